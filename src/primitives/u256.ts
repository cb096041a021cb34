/**
 * 256-bit word helpers on bigint (the EVM word type until a bench proves limbs pay; code-models §8).
 */
export const MAX_U256: bigint = (1n << 256n) - 1n;
export const MAX_U64: bigint = (1n << 64n) - 1n;
export const SIGN_BIT: bigint = 1n << 255n;
export const TWO_256: bigint = 1n << 256n;

/** Reduces any bigint modulo 2^256. */
export function wrap256(v: bigint): bigint {
  return v & MAX_U256;
}

/** Two's complement view of a 256-bit word. */
export function toSigned256(v: bigint): bigint {
  return v & SIGN_BIT ? v - TWO_256 : v;
}

export function fromSigned256(v: bigint): bigint {
  return v < 0n ? v + TWO_256 : v;
}

/** Big-endian bytes (any length) → bigint. */
export function bytesToBigint(b: Uint8Array): bigint {
  // PERF: 8 bytes per step through a Number-sized window would be faster for long inputs; words are
  // at most 32 bytes, and the hex path below runs in V8's native BigInt parser.
  if (b.length === 0) return 0n;
  let s = "0x";
  for (let i = 0; i < b.length; i++) s += (b[i] < 16 ? "0" : "") + b[i].toString(16);
  return BigInt(s);
}

/** bigint (0 ≤ v < 2^256) → 32 big-endian bytes written into `out` at `pos` (default: new buffer). */
export function bigintToBytes32(v: bigint, out: Uint8Array = new Uint8Array(32), pos = 0): Uint8Array {
  if (v < 0n || v > MAX_U256) throw new RangeError("bigintToBytes32: value out of range");
  for (let i = pos + 31; i >= pos; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Minimal big-endian bytes of a non-negative bigint (0 → empty), as RLP integers need. */
export function bigintToBytes(v: bigint): Uint8Array {
  if (v < 0n) throw new RangeError("bigintToBytes: negative value");
  if (v === 0n) return new Uint8Array(0);
  let hex = v.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.substr(i * 2, 2), 16);
  return out;
}
