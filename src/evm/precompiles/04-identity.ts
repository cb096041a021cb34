/** IDENTITY (0x04): 15 + 3 per word; returns a copy of the input. */
import type { ForkRules } from "../../spec/forks.js";
import { ok, outOfGas, type PrecompileResult, words } from "./types.js";

export function identity(input: Uint8Array, gasLimit: number, _rules: ForkRules): PrecompileResult {
  const gas = 15 + 3 * words(input.length);
  if (gasLimit < gas) return outOfGas(gasLimit);
  return ok(gas, input.slice());
}
