/** BLS12_MAP_FP2_TO_G2 (0x11, EIP-2537): SSWU map of one Fp2 element plus cofactor clearing; 23,800 gas. */
import type { ForkRules } from "../../spec/forks.js";
import { decodeFp, encodeG2, mapFp2ToG2 } from "./bls12381.js";
import { failure, ok, outOfGas, type PrecompileResult } from "./types.js";

const GAS = 23_800;

export function blsMapFp2ToG2(input: Uint8Array, gasLimit: number, _rules: ForkRules): PrecompileResult {
  if (gasLimit < GAS) return outOfGas(gasLimit);
  if (input.length !== 128) return failure(gasLimit);
  const c0 = decodeFp(input, 0);
  const c1 = decodeFp(input, 64);
  if (c0 < 0n || c1 < 0n) return failure(gasLimit);
  try {
    return ok(GAS, encodeG2(mapFp2ToG2(c0, c1)));
  } catch {
    return failure(gasLimit);
  }
}
