/**
 * Nibble paths of the Merkle-Patricia trie (Yellow Paper appendix C/D). A path is a Uint8Array with
 * one nibble (0..15) per byte. Hex-prefix ("compact") encoding packs a path plus the leaf flag into
 * bytes: the first nibble is flag | odd, with a zero pad nibble after it when the length is even.
 */
import { TrieError } from "./errors.js";

/** Unpacks bytes into nibbles (high nibble first); writes into `out` at `pos` when given. */
export function bytesToNibbles(b: Uint8Array, out: Uint8Array = new Uint8Array(b.length * 2), pos = 0): Uint8Array {
  for (let i = 0; i < b.length; i++) {
    out[pos + 2 * i] = b[i] >> 4;
    out[pos + 2 * i + 1] = b[i] & 15;
  }
  return out;
}

/** Packs an even-length nibble path back into bytes. */
export function nibblesToBytes(n: Uint8Array, start = 0, end = n.length): Uint8Array {
  const len = end - start;
  if (len % 2 !== 0) throw new TrieError("BAD_PATH", `nibble path of odd length ${len} is not a byte key`);
  const out = new Uint8Array(len / 2);
  for (let i = 0; i < out.length; i++) out[i] = (n[start + 2 * i] << 4) | n[start + 2 * i + 1];
  return out;
}

/** Nibble `i` of the byte string `b` (no bounds check). */
export function nibbleAt(b: Uint8Array, i: number): number {
  return i & 1 ? b[i >> 1] & 15 : b[i >> 1] >> 4;
}

/** Length of the common prefix of `a[aStart..aEnd)` and `b[bStart..bEnd)`. */
export function commonPrefixLength(
  a: Uint8Array,
  b: Uint8Array,
  aStart = 0,
  bStart = 0,
  aEnd = a.length,
  bEnd = b.length,
): number {
  const n = Math.min(aEnd - aStart, bEnd - bStart);
  let i = 0;
  while (i < n && a[aStart + i] === b[bStart + i]) i++;
  return i;
}

/** Byte length of the hex-prefix encoding of a path of `n` nibbles. */
export function compactLength(n: number): number {
  return (n >> 1) + 1;
}

/** Writes the hex-prefix encoding of `path[start..end)` into `out` at `pos`; returns the end position. */
export function writeCompact(
  out: Uint8Array,
  pos: number,
  path: Uint8Array,
  start: number,
  end: number,
  leaf: boolean,
): number {
  const len = end - start;
  const flag = leaf ? 0x20 : 0;
  let i = start;
  if (len & 1) {
    out[pos++] = flag | 0x10 | path[i++];
  } else {
    out[pos++] = flag;
  }
  for (; i < end; i += 2) out[pos++] = (path[i] << 4) | path[i + 1];
  return pos;
}

/** Hex-prefix encoding of `path[start..end)` with the leaf flag. */
export function encodeCompact(path: Uint8Array, leaf: boolean, start = 0, end = path.length): Uint8Array {
  const out = new Uint8Array(compactLength(end - start));
  writeCompact(out, 0, path, start, end, leaf);
  return out;
}

/** Decodes a hex-prefix path; throws TrieError("BAD_PATH") on a bad flag or a non-zero pad nibble. */
export function decodeCompact(b: Uint8Array): { path: Uint8Array; leaf: boolean } {
  if (b.length === 0) throw new TrieError("BAD_PATH", "empty hex-prefix path");
  const flag = b[0] >> 4;
  if (flag > 3) throw new TrieError("BAD_PATH", `hex-prefix flag nibble ${flag} is not 0..3`);
  const odd = (flag & 1) === 1;
  if (!odd && (b[0] & 15) !== 0) throw new TrieError("BAD_PATH", "even hex-prefix path has a non-zero pad nibble");
  const path = new Uint8Array((b.length - 1) * 2 + (odd ? 1 : 0));
  let p = 0;
  if (odd) path[p++] = b[0] & 15;
  for (let i = 1; i < b.length; i++) {
    path[p++] = b[i] >> 4;
    path[p++] = b[i] & 15;
  }
  return { path, leaf: (flag & 2) === 2 };
}

/**
 * Smallest byte string above every 32-byte key with nibble prefix `path[0..len)`, packed, or null when
 * the prefix is all 0xf nibbles (no upper bound). Used to turn nibble prefixes into KV ranges.
 */
export function nibblePrefixUpperBound(path: Uint8Array, len = path.length): Uint8Array | null {
  let end = len;
  while (end > 0 && path[end - 1] === 15) end--;
  if (end === 0) return null;
  const out = new Uint8Array((end + 1) >> 1);
  for (let i = 0; i < end - 1; i++) out[i >> 1] |= i & 1 ? path[i] : path[i] << 4;
  const last = path[end - 1] + 1;
  out[(end - 1) >> 1] |= (end - 1) & 1 ? last : last << 4;
  return out;
}

/** Packs `path[0..len)` into bytes, padding an odd tail with a zero nibble (the range's lower bound). */
export function nibblePrefixLowerBound(path: Uint8Array, len = path.length): Uint8Array {
  const out = new Uint8Array((len + 1) >> 1);
  for (let i = 0; i < len; i++) out[i >> 1] |= i & 1 ? path[i] : path[i] << 4;
  return out;
}
