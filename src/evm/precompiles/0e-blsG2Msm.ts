/**
 * BLS12_G2MSM (0x0e, EIP-2537): k × (G2 point ‖ 32-byte scalar), k ≥ 1, subgroup-checked points.
 * Gas k · 22,500 · discount(k) / 1000. OP input caps: 488,448 B from Isthmus, 278,784 B from Jovian.
 */
import type { ForkRules } from "../../spec/forks.js";
import { decodeG2, encodeG2, G2, G2_K_DISCOUNT, G2_MAX_DISCOUNT, type G2Point } from "./bls12381.js";
import { blsMsm, type MsmSpec } from "./blsMsm.js";
import type { PrecompileResult } from "./types.js";

export const ISTHMUS_MAX_INPUT = 488_448;
export const JOVIAN_MAX_INPUT = 278_784;

const SPEC: MsmSpec<G2Point> = Object.freeze({
  pointLen: 256,
  baseGas: 22_500,
  kDiscount: G2_K_DISCOUNT,
  maxDiscount: G2_MAX_DISCOUNT,
  isthmusMaxInput: ISTHMUS_MAX_INPUT,
  jovianMaxInput: JOVIAN_MAX_INPUT,
  group: G2,
  decode: decodeG2,
  encode: encodeG2,
});

export function blsG2Msm(input: Uint8Array, gasLimit: number, rules: ForkRules): PrecompileResult {
  return blsMsm(SPEC, input, gasLimit, rules);
}
