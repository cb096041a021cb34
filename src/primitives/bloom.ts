/**
 * 2048-bit log bloom (Yellow Paper §4.3.1, M3:2048). The bit positions come from a keccak-256 hash
 * the caller computed (block/logsBloom.ts does the hashing), so this leaf module stays hash-free.
 */
export const BLOOM_BYTES = 256;

/** Sets the three bits selected by `hash` (32-byte keccak of an address or topic) in `bloom`. */
export function bloomAddHash(bloom: Uint8Array, hash: Uint8Array): void {
  bloomAddHashAt(bloom, hash, 0);
}

/** `bloomAddHash` of the 32-byte hash at `hashes[offset..]` (no view made). */
export function bloomAddHashAt(bloom: Uint8Array, hashes: Uint8Array, offset: number): void {
  for (let i = offset; i < offset + 6; i += 2) {
    const bit = ((hashes[i] << 8) | hashes[i + 1]) & 2047;
    bloom[BLOOM_BYTES - 1 - (bit >> 3)] |= 1 << (bit & 7);
  }
}

/** True when all three bits selected by `hash` are set (may be a false positive, never a false negative). */
export function bloomHasHash(bloom: Uint8Array, hash: Uint8Array): boolean {
  for (let i = 0; i < 6; i += 2) {
    const bit = ((hash[i] << 8) | hash[i + 1]) & 2047;
    if ((bloom[BLOOM_BYTES - 1 - (bit >> 3)] & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}

/** ORs `src` into `dst` (both 256 bytes): a block bloom is the union of its receipts' blooms. */
export function bloomOr(dst: Uint8Array, src: Uint8Array): void {
  for (let i = 0; i < BLOOM_BYTES; i++) dst[i] |= src[i];
}
