/**
 * BLS12_G1MSM (0x0c, EIP-2537): k × (G1 point ‖ 32-byte scalar), k ≥ 1, subgroup-checked points.
 * Gas k · 12,000 · discount(k) / 1000. OP input caps: 513,760 B from Isthmus, 288,960 B from Jovian.
 */
import type { ForkRules } from "../../spec/forks.js";
import { decodeG1, encodeG1, G1, G1_K_DISCOUNT, G1_MAX_DISCOUNT, type G1Point } from "./bls12381.js";
import { blsMsm, type MsmSpec } from "./blsMsm.js";
import type { PrecompileResult } from "./types.js";

export const ISTHMUS_MAX_INPUT = 513_760;
export const JOVIAN_MAX_INPUT = 288_960;

const SPEC: MsmSpec<G1Point> = Object.freeze({
  pointLen: 128,
  baseGas: 12_000,
  kDiscount: G1_K_DISCOUNT,
  maxDiscount: G1_MAX_DISCOUNT,
  isthmusMaxInput: ISTHMUS_MAX_INPUT,
  jovianMaxInput: JOVIAN_MAX_INPUT,
  group: G1,
  decode: decodeG1,
  encode: encodeG1,
});

export function blsG1Msm(input: Uint8Array, gasLimit: number, rules: ForkRules): PrecompileResult {
  return blsMsm(SPEC, input, gasLimit, rules);
}
