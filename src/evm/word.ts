/**
 * 256-bit words between memory/code bytes and the bigint stack. Both directions go through V8's
 * native hex codecs (BigInt("0x…") and toString(16)), which measured faster here than building a
 * bigint 8 bits (or 64 bits) at a time for 32-byte words.
 */

const HEX: string[] = [];
for (let i = 0; i < 256; i++) HEX.push(i.toString(16).padStart(2, "0"));

const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) {
  NIBBLE[97 + i] = 10 + i;
  NIBBLE[65 + i] = 10 + i;
}

export const MASK_256: bigint = (1n << 256n) - 1n;
export const SIGN_256: bigint = 1n << 255n;
export const MASK_160: bigint = (1n << 160n) - 1n;

/** Big-endian unsigned value of b[pos, pos+len) (len ≤ 32; bytes past the end of `b` read as 0). */
export function readWord(b: Uint8Array, pos: number, len: number): bigint {
  const end = pos + len;
  if (len <= 6 && end <= b.length) {
    let n = 0;
    for (let i = pos; i < end; i++) n = n * 256 + b[i];
    return BigInt(n);
  }
  let s = "0x0";
  const stop = end < b.length ? end : b.length;
  for (let i = pos; i < stop; i++) s += HEX[b[i]];
  for (let i = stop > pos ? stop : pos; i < end; i++) s += "00";
  return BigInt(s);
}

/** Writes `v` (0 ≤ v < 2^256) as 32 big-endian bytes at `pos`. */
export function writeWord(v: bigint, out: Uint8Array, pos: number): void {
  if (v < 0x100000000n) {
    let n = Number(v);
    for (let i = pos + 31; i >= pos + 28; i--) {
      out[i] = n & 0xff;
      n >>>= 8;
    }
    out.fill(0, pos, pos + 28);
    return;
  }
  const h = v.toString(16);
  let j = h.length;
  let i = pos + 31;
  for (; j >= 2; j -= 2, i--) out[i] = (NIBBLE[h.charCodeAt(j - 2)] << 4) | NIBBLE[h.charCodeAt(j - 1)];
  if (j === 1) out[i--] = NIBBLE[h.charCodeAt(0)];
  if (i >= pos) out.fill(0, pos, i + 1);
}

/** `v` as a new 32-byte array. */
export function wordBytes(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  writeWord(v, out, 0);
  return out;
}

/** The 20-byte address value of b[pos, pos+20). */
export function readAddress(b: Uint8Array, pos = 0): bigint {
  return readWord(b, pos, 20);
}
