/**
 * BLS12-381 encodings shared by the EIP-2537 precompiles (0x0b–0x11): an Fp element is 64 bytes
 * big-endian (< p, so the top 16 bytes are zero), G1 = x ‖ y (128 B), G2 = x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1
 * (256 B), all-zero is infinity. Decoders return null on any invalid encoding.
 */
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { bytesToBigint } from "../../primitives/u256.js";
import { writeBigint } from "./types.js";

export const G1 = bls12_381.G1.Point;
export const G2 = bls12_381.G2.Point;
export type G1Point = InstanceType<typeof G1>;
export type G2Point = InstanceType<typeof G2>;
const Fp = bls12_381.fields.Fp;
const Fp2 = bls12_381.fields.Fp2;
const Fp12 = bls12_381.fields.Fp12;
const P = Fp.ORDER;
export const R = bls12_381.fields.Fr.ORDER;
const B1 = 4n;
const B2 = Fp2.create({ c0: 4n, c1: 4n });

/** Fp element from 64 bytes at `pos`, or -1n when not canonical. */
export function decodeFp(data: Uint8Array, pos: number): bigint {
  const v = bytesToBigint(data.subarray(pos, pos + 64));
  return v >= P ? -1n : v;
}

/** G1 point at `pos` (on-curve checked; subgroup checked when `subgroup`), or null. */
export function decodeG1(data: Uint8Array, pos: number, subgroup: boolean): G1Point | null {
  const x = decodeFp(data, pos);
  const y = decodeFp(data, pos + 64);
  if (x < 0n || y < 0n) return null;
  if (x === 0n && y === 0n) return G1.ZERO;
  if (Fp.sqr(y) !== Fp.add(Fp.mul(Fp.sqr(x), x), B1)) return null;
  const p = G1.fromAffine({ x, y });
  if (subgroup && !p.isTorsionFree()) return null;
  return p;
}

/** G2 point at `pos` (on-curve checked; subgroup checked when `subgroup`), or null. */
export function decodeG2(data: Uint8Array, pos: number, subgroup: boolean): G2Point | null {
  const x0 = decodeFp(data, pos);
  const x1 = decodeFp(data, pos + 64);
  const y0 = decodeFp(data, pos + 128);
  const y1 = decodeFp(data, pos + 192);
  if (x0 < 0n || x1 < 0n || y0 < 0n || y1 < 0n) return null;
  if (x0 === 0n && x1 === 0n && y0 === 0n && y1 === 0n) return G2.ZERO;
  const x = Fp2.create({ c0: x0, c1: x1 });
  const y = Fp2.create({ c0: y0, c1: y1 });
  if (!Fp2.eql(Fp2.sqr(y), Fp2.add(Fp2.mul(Fp2.sqr(x), x), B2))) return null;
  const p = G2.fromAffine({ x, y });
  if (subgroup && !p.isTorsionFree()) return null;
  return p;
}

export function encodeG1(p: G1Point): Uint8Array {
  const out = new Uint8Array(128);
  if (p.is0()) return out;
  const a = p.toAffine();
  writeBigint(a.x, out, 0, 64);
  writeBigint(a.y, out, 64, 64);
  return out;
}

export function encodeG2(p: G2Point): Uint8Array {
  const out = new Uint8Array(256);
  if (p.is0()) return out;
  const a = p.toAffine();
  writeBigint(a.x.c0, out, 0, 64);
  writeBigint(a.x.c1, out, 64, 64);
  writeBigint(a.y.c0, out, 128, 64);
  writeBigint(a.y.c1, out, 192, 64);
  return out;
}

/** Discount per k (per mille) for G1 MSM, k = 1..128; 519 beyond (EIP-2537). */
export const G1_K_DISCOUNT: readonly number[] = [
  1000, 949, 848, 797, 764, 750, 738, 728, 719, 712, 705, 698, 692, 687, 682, 677, 673, 669, 665, 661, 658, 654, 651,
  648, 645, 642, 640, 637, 635, 632, 630, 627, 625, 623, 621, 619, 617, 615, 613, 611, 609, 608, 606, 604, 603, 601,
  599, 598, 596, 595, 593, 592, 591, 589, 588, 586, 585, 584, 582, 581, 580, 579, 577, 576, 575, 574, 573, 572, 570,
  569, 568, 567, 566, 565, 564, 563, 562, 561, 560, 559, 558, 557, 556, 555, 554, 553, 552, 551, 550, 549, 548, 547,
  547, 546, 545, 544, 543, 542, 541, 540, 540, 539, 538, 537, 536, 536, 535, 534, 533, 532, 532, 531, 530, 529, 528,
  528, 527, 526, 525, 525, 524, 523, 522, 522, 521, 520, 520, 519,
];
export const G1_MAX_DISCOUNT = 519;

/** Discount per k (per mille) for G2 MSM, k = 1..128; 524 beyond (EIP-2537). */
export const G2_K_DISCOUNT: readonly number[] = [
  1000, 1000, 923, 884, 855, 832, 812, 796, 782, 770, 759, 749, 740, 732, 724, 717, 711, 704, 699, 693, 688, 683, 679,
  674, 670, 666, 663, 659, 655, 652, 649, 646, 643, 640, 637, 634, 632, 629, 627, 624, 622, 620, 618, 615, 613, 611,
  609, 607, 606, 604, 602, 600, 598, 597, 595, 593, 592, 590, 589, 587, 586, 584, 583, 582, 580, 579, 578, 576, 575,
  574, 573, 571, 570, 569, 568, 567, 566, 565, 563, 562, 561, 560, 559, 558, 557, 556, 555, 554, 553, 552, 552, 551,
  550, 549, 548, 547, 546, 545, 545, 544, 543, 542, 541, 541, 540, 539, 538, 537, 537, 536, 535, 535, 534, 533, 532,
  532, 531, 530, 530, 529, 528, 528, 527, 526, 526, 525, 524, 524,
];
export const G2_MAX_DISCOUNT = 524;

/** MSM gas: k · base · discount(k) / 1000. */
export function msmGas(k: number, base: number, table: readonly number[], maxDiscount: number): number {
  if (k === 0) return 0;
  const discount = k <= table.length ? table[k - 1] : maxDiscount;
  return Math.floor((k * base * discount) / 1000);
}

export function pairingIsOne(pairs: { g1: G1Point; g2: G2Point }[]): boolean {
  const live = pairs.filter((p) => !p.g1.is0() && !p.g2.is0());
  if (live.length === 0) return true;
  return Fp12.eql(bls12_381.pairingBatch(live), Fp12.ONE);
}

export function mapFpToG1(u: bigint): G1Point {
  // With one field element (m = 1) noble takes the bare bigint, not a one-element array.
  const map = bls12_381.G1.mapToCurve as unknown as (u: bigint) => unknown;
  const r = map(u);
  return r instanceof G1 ? r : G1.fromAffine(r as { x: bigint; y: bigint });
}

export function mapFp2ToG2(c0: bigint, c1: bigint): G2Point {
  // Typed as returning affine coordinates; noble 2.4 returns the (cofactor-cleared) point.
  const r: unknown = bls12_381.G2.mapToCurve([c0, c1]);
  return r instanceof G2 ? r : G2.fromAffine(r as Parameters<typeof G2.fromAffine>[0]);
}
