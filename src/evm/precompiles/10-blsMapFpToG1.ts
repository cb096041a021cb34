/** BLS12_MAP_FP_TO_G1 (0x10, EIP-2537): SSWU map of one Fp element plus cofactor clearing; 5,500 gas. */
import type { ForkRules } from "../../spec/forks.js";
import { decodeFp, encodeG1, mapFpToG1 } from "./bls12381.js";
import { failure, ok, outOfGas, type PrecompileResult } from "./types.js";

const GAS = 5500;

export function blsMapFpToG1(input: Uint8Array, gasLimit: number, _rules: ForkRules): PrecompileResult {
  if (gasLimit < GAS) return outOfGas(gasLimit);
  if (input.length !== 64) return failure(gasLimit);
  const u = decodeFp(input, 0);
  if (u < 0n) return failure(gasLimit);
  try {
    return ok(GAS, encodeG1(mapFpToG1(u)));
  } catch {
    return failure(gasLimit);
  }
}
