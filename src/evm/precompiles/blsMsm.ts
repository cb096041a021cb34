/**
 * The EIP-2537 multi-scalar multiplication shared by BLS12_G1MSM (0x0c) and BLS12_G2MSM (0x0e): the
 * two differ only in the group, the pair length, the base gas, the discount table and the OP input
 * caps, which each caller passes as a frozen `MsmSpec`.
 */
import { type CurvePoint, type CurvePointCons, pippenger } from "@noble/curves/abstract/curve.js";
import { bytesToBigint } from "../../primitives/u256.js";
import { type ForkRules, OpFork } from "../../spec/forks.js";
import { msmGas, R } from "./bls12381.js";
import { failure, ok, outOfGas, type PrecompileResult } from "./types.js";

// biome-ignore lint/suspicious/noExplicitAny: the field type differs per group; noble bounds points the same way
export interface MsmSpec<P extends CurvePoint<any, P>> {
  /** Encoded point length (128 for G1, 256 for G2); a pair adds a 32-byte scalar. */
  readonly pointLen: number;
  readonly baseGas: number;
  readonly kDiscount: readonly number[];
  readonly maxDiscount: number;
  /** OP caps on the input length from Isthmus and from Jovian. */
  readonly isthmusMaxInput: number;
  readonly jovianMaxInput: number;
  readonly group: CurvePointCons<P>;
  decode(data: Uint8Array, pos: number, subgroup: boolean): P | null;
  encode(p: P): Uint8Array;
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export function blsMsm<P extends CurvePoint<any, P>>(
  spec: MsmSpec<P>,
  input: Uint8Array,
  gasLimit: number,
  rules: ForkRules,
): PrecompileResult {
  const pairLen = spec.pointLen + 32;
  const k = Math.floor(input.length / pairLen);
  const gas = msmGas(k, spec.baseGas, spec.kDiscount, spec.maxDiscount);
  if (gasLimit < gas) return outOfGas(gasLimit);
  if (k === 0 || input.length % pairLen !== 0) return failure(gasLimit);
  if (rules.op !== null) {
    if (rules.op >= OpFork.Jovian && input.length > spec.jovianMaxInput) return failure(gasLimit);
    if (rules.op >= OpFork.Isthmus && input.length > spec.isthmusMaxInput) return failure(gasLimit);
  }
  const points: P[] = [];
  const scalars: bigint[] = [];
  for (let i = 0; i < k; i++) {
    const p = spec.decode(input, i * pairLen, true);
    if (p === null) return failure(gasLimit);
    const s = bytesToBigint(input.subarray(i * pairLen + spec.pointLen, (i + 1) * pairLen)) % R;
    if (s === 0n || p.is0()) continue;
    points.push(p);
    scalars.push(s);
  }
  try {
    const sum =
      points.length === 0
        ? spec.group.ZERO
        : points.length === 1
          ? points[0].multiply(scalars[0])
          : pippenger(spec.group, points, scalars);
    return ok(gas, spec.encode(sum));
  } catch {
    return failure(gasLimit);
  }
}
