/**
 * BLS12_G1MSM (0x0c, EIP-2537): k × (G1 point ‖ 32-byte scalar), k ≥ 1, subgroup-checked points.
 * Gas k · 12,000 · discount(k) / 1000. OP input caps: 513,760 B from Isthmus, 288,960 B from Jovian.
 */
import { pippenger } from "@noble/curves/abstract/curve.js";
import { type ForkRules, OpFork } from "../../spec/forks.js";
import { decodeG1, encodeG1, G1, G1_K_DISCOUNT, G1_MAX_DISCOUNT, type G1Point, msmGas, R } from "./bls12381.js";
import { bytesToBigint, failure, ok, outOfGas, type PrecompileResult } from "./types.js";

const PAIR_LEN = 160;
export const ISTHMUS_MAX_INPUT = 513_760;
export const JOVIAN_MAX_INPUT = 288_960;

export function blsG1Msm(input: Uint8Array, gasLimit: number, rules: ForkRules): PrecompileResult {
  const k = Math.floor(input.length / PAIR_LEN);
  const gas = msmGas(k, 12_000, G1_K_DISCOUNT, G1_MAX_DISCOUNT);
  if (gasLimit < gas) return outOfGas(gasLimit);
  if (k === 0 || input.length % PAIR_LEN !== 0) return failure(gasLimit);
  if (rules.op !== null) {
    if (rules.op >= OpFork.Jovian && input.length > JOVIAN_MAX_INPUT) return failure(gasLimit);
    if (rules.op >= OpFork.Isthmus && input.length > ISTHMUS_MAX_INPUT) return failure(gasLimit);
  }
  const points: G1Point[] = [];
  const scalars: bigint[] = [];
  for (let i = 0; i < k; i++) {
    const p = decodeG1(input, i * PAIR_LEN, true);
    if (p === null) return failure(gasLimit);
    const s = bytesToBigint(input.subarray(i * PAIR_LEN + 128, (i + 1) * PAIR_LEN)) % R;
    if (s === 0n || p.is0()) continue;
    points.push(p);
    scalars.push(s);
  }
  try {
    const sum =
      points.length === 0
        ? G1.ZERO
        : points.length === 1
          ? points[0].multiply(scalars[0])
          : pippenger(G1, points, scalars);
    return ok(gas, encodeG1(sum));
  } catch {
    return failure(gasLimit);
  }
}
