/** SHA256 (0x02): 60 + 12 per word. */
import { sha256 as sha256Hash } from "../../crypto/sha256.js";
import type { ForkRules } from "../../spec/forks.js";
import { ok, outOfGas, type PrecompileResult, words } from "./types.js";

export function sha256(input: Uint8Array, gasLimit: number, _rules: ForkRules): PrecompileResult {
  const gas = 60 + 12 * words(input.length);
  if (gasLimit < gas) return outOfGas(gasLimit);
  return ok(gas, sha256Hash(input));
}
