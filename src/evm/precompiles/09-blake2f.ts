/**
 * BLAKE2F (0x09, EIP-152): the BLAKE2b compression function F. Input is exactly 213 bytes:
 * rounds (u32 BE) ‖ h (8 × u64 LE) ‖ m (16 × u64 LE) ‖ t (2 × u64 LE) ‖ f (0 or 1). Gas = rounds.
 * 64-bit words are held as (lo, hi) u32 pairs in `V`/`M`: module scratch, safe because F never
 * yields or calls user code.
 */
import type { ForkRules } from "../../spec/forks.js";
import { failure, ok, outOfGas, type PrecompileResult } from "./types.js";

const INPUT_LEN = 213;
const IV = new Uint32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a, 0xade682d1,
  0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);
const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];
const V = new Uint32Array(32);
const M = new Uint32Array(32);

/** V[a] += V[b] + M[x] (64-bit, as u32 pairs). */
function add3(a: number, b: number, x: number): void {
  let lo = V[2 * a] + V[2 * b];
  let hi = V[2 * a + 1] + V[2 * b + 1] + ((lo / 0x100000000) | 0);
  lo >>>= 0;
  const lo2 = lo + M[2 * x];
  hi = hi + M[2 * x + 1] + ((lo2 / 0x100000000) | 0);
  V[2 * a] = lo2;
  V[2 * a + 1] = hi;
}

function add2(a: number, b: number): void {
  const lo = V[2 * a] + V[2 * b];
  V[2 * a + 1] = V[2 * a + 1] + V[2 * b + 1] + ((lo / 0x100000000) | 0);
  V[2 * a] = lo;
}

/** V[d] = rotr64(V[d] ^ V[a], r) for r in {32, 24, 16, 63}. */
function xorRot(d: number, a: number, r: number): void {
  const lo = V[2 * d] ^ V[2 * a];
  const hi = V[2 * d + 1] ^ V[2 * a + 1];
  if (r === 32) {
    V[2 * d] = hi;
    V[2 * d + 1] = lo;
  } else if (r === 63) {
    V[2 * d] = (lo << 1) | (hi >>> 31);
    V[2 * d + 1] = (hi << 1) | (lo >>> 31);
  } else {
    V[2 * d] = (lo >>> r) | (hi << (32 - r));
    V[2 * d + 1] = (hi >>> r) | (lo << (32 - r));
  }
}

function g(a: number, b: number, c: number, d: number, x: number, y: number): void {
  add3(a, b, x);
  xorRot(d, a, 32);
  add2(c, d);
  xorRot(b, c, 24);
  add3(a, b, y);
  xorRot(d, a, 16);
  add2(c, d);
  xorRot(b, c, 63);
}

export function blake2f(input: Uint8Array, gasLimit: number, _rules: ForkRules): PrecompileResult {
  if (input.length !== INPUT_LEN) return failure(gasLimit);
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const rounds = view.getUint32(0, false);
  if (gasLimit < rounds) return outOfGas(gasLimit);
  const f = input[212];
  if (f > 1) return failure(gasLimit);
  for (let i = 0; i < 16; i++) V[i] = view.getUint32(4 + 4 * i, true);
  V.set(IV, 16);
  for (let i = 0; i < 32; i++) M[i] = view.getUint32(68 + 4 * i, true);
  V[24] ^= view.getUint32(196, true);
  V[25] ^= view.getUint32(200, true);
  V[26] ^= view.getUint32(204, true);
  V[27] ^= view.getUint32(208, true);
  if (f === 1) {
    V[28] = ~V[28];
    V[29] = ~V[29];
  }
  for (let r = 0; r < rounds; r++) {
    const s = SIGMA[r % 10];
    g(0, 4, 8, 12, s[0], s[1]);
    g(1, 5, 9, 13, s[2], s[3]);
    g(2, 6, 10, 14, s[4], s[5]);
    g(3, 7, 11, 15, s[6], s[7]);
    g(0, 5, 10, 15, s[8], s[9]);
    g(1, 6, 11, 12, s[10], s[11]);
    g(2, 7, 8, 13, s[12], s[13]);
    g(3, 4, 9, 14, s[14], s[15]);
  }
  const out = new Uint8Array(64);
  const ov = new DataView(out.buffer);
  for (let i = 0; i < 16; i++) ov.setUint32(4 * i, view.getUint32(4 + 4 * i, true) ^ V[i] ^ V[i + 16], true);
  return ok(rounds, out);
}
