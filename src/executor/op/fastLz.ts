/**
 * The length of the FastLZ level-1 compression of a byte string, without producing the output: the
 * `fastlzSize` input of the Fjord L1-fee model and the Jovian DA footprint (SPEC:
 * specs/protocol/fjord/exec-engine.md#fees). Consensus-critical, so it follows op-geth
 * `FlzCompressLen` (core/types/rollup_cost.go; op-revm `flz_compress_len` is the same) step for step,
 * quirks included: an 8192-entry hash table keyed by `(v * 2654435769) >>> 19 & 0x1fff` over 3-byte
 * little-endian windows, unset entries read as position 0, no match starting in the 13-byte tail or
 * at the last position before it, literal runs in blocks of 32 (33 bytes each), match lengths split
 * every 262, and a match-length scan that counts one byte past the first mismatch.
 *
 * op-geth's comment cites Solady's JS `LibZip.flzCompress` as its origin; that JS hashes the second
 * window after a match from a sign-extended 32-bit read, so it can differ by a byte when that
 * window's next byte is ≥ 0x80 (seen in a differential run: 1596 of 20000 random inputs). op-geth
 * hashes the 24-bit window, and so does this file.
 */

const HASH_SIZE = 8192;
const HASH_MASK = 0x1fff;
/** Largest backward distance a FastLZ level-1 match may span. */
const MAX_DISTANCE = 0x1fff;
/** Bytes at the end that the compressor never starts a match in (level-1 `ip_bound` slack). */
const TAIL = 13;

/**
 * Scratch hash table (position of the last 3-byte window with each hash), cleared at every call.
 * One per module instance (so one per worker thread); safe because this function is synchronous,
 * calls no user code and so cannot be re-entered while the table is live.
 */
const TABLE = new Uint32Array(HASH_SIZE);

function u24(b: Uint8Array, i: number): number {
  return b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
}

function hash24(v: number): number {
  // 32-bit wrapping multiply, as Go's uint32 arithmetic and Solidity's masked mulmod do.
  return (Math.imul(v, 2654435769) >>> 19) & HASH_MASK;
}

/** Output bytes for a run of `r` literals: a 1-byte header per block of up to 32. */
function literalsLength(r: number): number {
  const rest = r % 32;
  return 33 * ((r - rest) / 32) + (rest === 0 ? 0 : rest + 1);
}

/** Output bytes for a match of length `l` (≥ 1 as the reference counts it). */
function matchLength(l: number): number {
  const m = l - 1;
  const rest = m % 262;
  return 3 * ((m - rest) / 262) + (rest >= 6 ? 3 : 2);
}

/**
 * Compares `b[p..]` with `b[q..]` up to `end` (exclusive, relative to q). Returns the index of the
 * first differing byte plus one, or the full span when none differs: the reference scans one byte
 * past the mismatch, and the extra byte is part of the encoded length.
 */
function scan(b: Uint8Array, p: number, q: number, end: number): number {
  const span = end - q;
  for (let l = 0; l < span; l++) {
    if (b[p + l] !== b[q + l]) return l + 1;
  }
  return span;
}

/** Length in bytes of FastLZ level-1 compression of `data` (0 for empty input). */
export function fastLzCompressedLength(data: Uint8Array): number {
  const len = data.length;
  const ipLimit = len < TAIL ? 0 : len - TAIL;
  let n = 0;
  let anchor = 0;
  if (ipLimit > 2) TABLE.fill(0);
  let ip = 2;
  while (ip < ipLimit) {
    let ref = 0;
    // Find the next position whose 3-byte window repeats within MAX_DISTANCE.
    for (;;) {
      const seq = u24(data, ip);
      const h = hash24(seq);
      ref = TABLE[h];
      TABLE[h] = ip;
      const distance = ip - ref;
      if (ip >= ipLimit) break;
      ip++;
      if (distance <= MAX_DISTANCE && seq === u24(data, ref)) break;
    }
    if (ip >= ipLimit) break;
    ip--;
    if (ip > anchor) n += literalsLength(ip - anchor);
    const l = scan(data, ref + 3, ip + 3, ipLimit + 9);
    n += matchLength(l);
    // Hash the two positions after the match, then continue from the second one.
    let p = ip + l;
    TABLE[hash24(u24(data, p))] = p;
    p++;
    TABLE[hash24(u24(data, p))] = p;
    ip = p + 1;
    anchor = ip;
  }
  return n + literalsLength(len - anchor);
}
