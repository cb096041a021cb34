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

/**
 * Big-endian bytes (any length) → bigint; empty → 0n. Six bytes per step through a Number window
 * (exact below 2^53), one BigInt shift per step.
 */
export function bytesToBigint(b: Uint8Array): bigint {
  // PERF: per call on this 2-core VM (node 20), against the hex-string parse this replaced and a
  // byte-per-step BigInt shift: 32 bytes 285 ns vs 1165 / 871 ns, 20 bytes 179 vs 729 / 558 ns,
  // 8 bytes 82 vs 345 / 207 ns; ≤ 6 bytes is one BigInt(number). Scratch micro-bench, issue 22.
  const n = b.length;
  if (n <= 6) {
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + b[i];
    return BigInt(v);
  }
  let v = 0n;
  let i = 0;
  const head = n % 6;
  if (head > 0) {
    let w = 0;
    for (; i < head; i++) w = w * 256 + b[i];
    v = BigInt(w);
  }
  for (; i < n; i += 6) {
    const w =
      b[i] * 0x10000000000 +
      b[i + 1] * 0x100000000 +
      ((b[i + 2] << 24) >>> 0) +
      ((b[i + 3] << 16) | (b[i + 4] << 8) | b[i + 5]);
    v = (v << 48n) | BigInt(w);
  }
  return v;
}

/** Nibble value of an ASCII hex digit ('0'-'9', 'a'-'f'), indexed by char code. */
const NIBBLE = (() => {
  const t = new Uint8Array(128);
  for (let i = 0; i < 10; i++) t[48 + i] = i;
  for (let i = 0; i < 6; i++) t[97 + i] = 10 + i;
  return t;
})();

/** Below this a value goes through one Number (exact: 6 bytes < 2^53). */
const SMALL = 1n << 48n;

/**
 * Bytes of `n` (a non-negative integer Number) written big-endian ending before `end`, leftwards;
 * returns the index left of the last byte written.
 */
function writeNumberBytes(n: number, out: Uint8Array, end: number): number {
  let i = end - 1;
  for (; n > 0; i--) {
    out[i] = n & 0xff;
    n = Math.floor(n / 256);
  }
  return i;
}

/** As writeNumberBytes, for the lowercase hex digits `s` (no prefix). */
function writeHexBytes(s: string, out: Uint8Array, end: number): number {
  let i = end - 1;
  let j = s.length - 1;
  for (; j > 0; i--, j -= 2) out[i] = NIBBLE[s.charCodeAt(j)] | (NIBBLE[s.charCodeAt(j - 1)] << 4);
  if (j === 0) out[i--] = NIBBLE[s.charCodeAt(0)];
  return i;
}

/**
 * bigint (0 ≤ v < 2^256) → 32 big-endian bytes written into `out` at `pos` (default: new buffer).
 * PERF: a Number for values under 2^48, else one `toString(16)` read back two digits a byte:
 * ~0.2 µs for a 32-byte word against ~1 µs for a BigInt shift and mask per byte (scratch
 * micro-bench on this VM, node 20; SSTORE keys and commit rows, storage-writes in the evm bench).
 */
export function bigintToBytes32(
  v: bigint,
  out: Uint8Array = new Uint8Array(32),
  pos = 0,
  /** `out[pos..pos+32)` is already zero: the leading zero bytes are not written (a new buffer). */
  zeroed = false,
): Uint8Array {
  if (v < 0n || v > MAX_U256) throw new RangeError("bigintToBytes32: value out of range");
  let i = v < SMALL ? writeNumberBytes(Number(v), out, pos + 32) : writeHexBytes(v.toString(16), out, pos + 32);
  if (!zeroed) for (; i >= pos; i--) out[i] = 0;
  return out;
}

/**
 * As `bigintToBytes`, written into `out` at `pos` (room for 32 bytes, 0 ≤ v < 2^256); returns the
 * length written. No array per value (WorldState.commitBlock packs a new contract's rows).
 */
export function writeMinimalBytes(v: bigint, out: Uint8Array, pos: number): number {
  if (v < 0n || v > MAX_U256) throw new RangeError("writeMinimalBytes: value out of range");
  if (v === 0n) return 0;
  if (v < SMALL) {
    // Written in place: its length first, then the bytes from the last.
    const n = Number(v);
    let len = 0;
    for (let m = n; m > 0; len++) m = Math.floor(m / 256);
    writeNumberBytes(n, out, pos + len);
    return len;
  }
  // Written right-aligned in the 32 bytes at pos, then moved to pos (within the same buffer).
  const i = v < SMALL ? writeNumberBytes(Number(v), out, pos + 32) : writeHexBytes(v.toString(16), out, pos + 32);
  const len = pos + 31 - i;
  out.copyWithin(pos, i + 1, pos + 32);
  return len;
}

/** Minimal big-endian bytes of a non-negative bigint (0 → empty), as RLP integers need. */
export function bigintToBytes(v: bigint): Uint8Array {
  if (v < 0n) throw new RangeError("bigintToBytes: negative value");
  if (v < SMALL) {
    const n = Number(v);
    let len = 0;
    for (let m = n; m > 0; len++) m = Math.floor(m / 256);
    const out = new Uint8Array(len);
    writeNumberBytes(n, out, len);
    return out;
  }
  const s = v.toString(16);
  const out = new Uint8Array((s.length + 1) >> 1);
  writeHexBytes(s, out, out.length);
  return out;
}
