/**
 * BLS12_G2MSM (0x0e, EIP-2537): k × (G2 point ‖ 32-byte scalar), k ≥ 1, subgroup-checked points.
 * Gas k · 22,500 · discount(k) / 1000. OP input caps: 488,448 B from Isthmus, 278,784 B from Jovian.
 */
import { pippenger } from "@noble/curves/abstract/curve.js";
import { type ForkRules, OpFork } from "../../spec/forks.js";
import { decodeG2, encodeG2, G2, G2_K_DISCOUNT, G2_MAX_DISCOUNT, type G2Point, msmGas, R } from "./bls12381.js";
import { bytesToBigint, failure, ok, outOfGas, type PrecompileResult } from "./types.js";

const PAIR_LEN = 288;
export const ISTHMUS_MAX_INPUT = 488_448;
export const JOVIAN_MAX_INPUT = 278_784;

export function blsG2Msm(input: Uint8Array, gasLimit: number, rules: ForkRules): PrecompileResult {
  const k = Math.floor(input.length / PAIR_LEN);
  const gas = msmGas(k, 22_500, G2_K_DISCOUNT, G2_MAX_DISCOUNT);
  if (gasLimit < gas) return outOfGas(gasLimit);
  if (k === 0 || input.length % PAIR_LEN !== 0) return failure(gasLimit);
  if (rules.op !== null) {
    if (rules.op >= OpFork.Jovian && input.length > JOVIAN_MAX_INPUT) return failure(gasLimit);
    if (rules.op >= OpFork.Isthmus && input.length > ISTHMUS_MAX_INPUT) return failure(gasLimit);
  }
  const points: G2Point[] = [];
  const scalars: bigint[] = [];
  for (let i = 0; i < k; i++) {
    const p = decodeG2(input, i * PAIR_LEN, true);
    if (p === null) return failure(gasLimit);
    const s = bytesToBigint(input.subarray(i * PAIR_LEN + 256, (i + 1) * PAIR_LEN)) % R;
    if (s === 0n || p.is0()) continue;
    points.push(p);
    scalars.push(s);
  }
  try {
    const sum =
      points.length === 0
        ? G2.ZERO
        : points.length === 1
          ? points[0].multiply(scalars[0])
          : pippenger(G2, points, scalars);
    return ok(gas, encodeG2(sum));
  } catch {
    return failure(gasLimit);
  }
}
