/**
 * alt_bn128 (BN254) decoding shared by 0x06–0x08 (EIP-196/197): 32-byte big-endian coordinates,
 * (0, 0) is the point at infinity, G2 coordinates are (imaginary, real). Decoders return null on
 * any invalid encoding; callers turn that into a precompile failure.
 */
import { bn254 } from "@noble/curves/bn254.js";
import { bytesToBigint } from "../../primitives/u256.js";

export const G1 = bn254.G1.Point;
export const G2 = bn254.G2.Point;
export type G1Point = InstanceType<typeof G1>;
export type G2Point = InstanceType<typeof G2>;
const Fp = bn254.fields.Fp;
const Fp2 = bn254.fields.Fp2;
export const Fp12 = bn254.fields.Fp12;
const P = Fp.ORDER;
export const N = bn254.fields.Fr.ORDER;

/** G1 point from 64 bytes at `pos` (on-curve checked), or null. */
export function decodeG1(data: Uint8Array, pos: number): G1Point | null {
  const x = bytesToBigint(data.subarray(pos, pos + 32));
  const y = bytesToBigint(data.subarray(pos + 32, pos + 64));
  if (x >= P || y >= P) return null;
  if (x === 0n && y === 0n) return G1.ZERO;
  try {
    const p = G1.fromAffine({ x, y });
    p.assertValidity();
    return p;
  } catch {
    return null;
  }
}

/** G2 point from 128 bytes at `pos` (on-curve and subgroup checked), or null. */
export function decodeG2(data: Uint8Array, pos: number): G2Point | null {
  const xi = bytesToBigint(data.subarray(pos, pos + 32));
  const xr = bytesToBigint(data.subarray(pos + 32, pos + 64));
  const yi = bytesToBigint(data.subarray(pos + 64, pos + 96));
  const yr = bytesToBigint(data.subarray(pos + 96, pos + 128));
  if (xi >= P || xr >= P || yi >= P || yr >= P) return null;
  if (xi === 0n && xr === 0n && yi === 0n && yr === 0n) return G2.ZERO;
  try {
    const p = G2.fromAffine({ x: Fp2.create({ c0: xr, c1: xi }), y: Fp2.create({ c0: yr, c1: yi }) });
    p.assertValidity();
    if (!p.isTorsionFree()) return null;
    return p;
  } catch {
    return null;
  }
}

/** 64-byte encoding of a G1 point (zeros for infinity). */
export function encodeG1(p: G1Point): Uint8Array {
  const out = new Uint8Array(64);
  if (p.is0()) return out;
  const a = p.toAffine();
  writeWord(a.x, out, 0);
  writeWord(a.y, out, 32);
  return out;
}

function writeWord(v: bigint, out: Uint8Array, pos: number): void {
  for (let i = pos + 31; i >= pos; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

export function pairingIsOne(pairs: { g1: G1Point; g2: G2Point }[]): boolean {
  const live = pairs.filter((p) => !p.g1.is0() && !p.g2.is0());
  if (live.length === 0) return true;
  return Fp12.eql(bn254.pairingBatch(live), Fp12.ONE);
}
