/** RIPEMD160 (0x03): 600 + 120 per word; the 20-byte digest left-padded to 32 bytes. */
import { ripemd160 as ripemd160Hash } from "../../crypto/ripemd160.js";
import type { ForkRules } from "../../spec/forks.js";
import { ok, outOfGas, type PrecompileResult, words } from "./types.js";

export function ripemd160(input: Uint8Array, gasLimit: number, _rules: ForkRules): PrecompileResult {
  const gas = 600 + 120 * words(input.length);
  if (gasLimit < gas) return outOfGas(gasLimit);
  const out = new Uint8Array(32);
  out.set(ripemd160Hash(input), 12);
  return ok(gas, out);
}
