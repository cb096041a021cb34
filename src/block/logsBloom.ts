/**
 * Log blooms (Yellow Paper §4.3.1, M3:2048): a receipt's bloom has the bits of keccak256(address)
 * and keccak256(topic) for each of its logs; a block's bloom is the OR of its receipts' blooms.
 * All hashes of a call go through one `keccak256Batch`, so a whole block costs one native call.
 */
import { keccak256Batch } from "../crypto/keccak.js";
import { BLOOM_BYTES, bloomAddHashAt, bloomOr } from "../primitives/bloom.js";
import type { ReceiptLog } from "./log.js";

/** Blooms of several log sets (one per receipt), hashing every address and topic in one batch. */
export function logsBlooms(logSets: readonly (readonly ReceiptLog[])[]): Uint8Array[] {
  return logsBloomsWith(logSets, null);
}

/**
 * `logsBlooms` and the block's bloom, set in the same pass over the hashes (a block's bloom is the OR
 * of its receipts' blooms: `blockLogsBloom` would read every receipt's 256 bytes again).
 */
export function receiptAndBlockBlooms(logSets: readonly (readonly ReceiptLog[])[]): {
  readonly receipts: Uint8Array[];
  readonly block: Uint8Array;
} {
  const block = new Uint8Array(BLOOM_BYTES);
  return { receipts: logsBloomsWith(logSets, block), block };
}

function logsBloomsWith(logSets: readonly (readonly ReceiptLog[])[], block: Uint8Array | null): Uint8Array[] {
  let items = 0;
  let bytes = 0;
  for (const logs of logSets) {
    for (const log of logs) {
      items += 1 + log.topics.length;
      bytes += log.address.length;
      for (const t of log.topics) bytes += t.length;
    }
  }
  const blooms = new Array<Uint8Array>(logSets.length);
  if (items === 0) {
    for (let i = 0; i < logSets.length; i++) blooms[i] = new Uint8Array(BLOOM_BYTES);
    return blooms;
  }
  const packed = new Uint8Array(bytes);
  const offsets = new Uint32Array(items + 1);
  let k = 0;
  let pos = 0;
  for (const logs of logSets) {
    for (const log of logs) {
      packed.set(log.address, pos);
      pos += log.address.length;
      offsets[++k] = pos;
      for (const t of log.topics) {
        packed.set(t, pos);
        pos += t.length;
        offsets[++k] = pos;
      }
    }
  }
  const hashes = keccak256Batch(packed, offsets);
  k = 0;
  for (let i = 0; i < logSets.length; i++) {
    const bloom = new Uint8Array(BLOOM_BYTES);
    for (const log of logSets[i]) {
      const n = 1 + log.topics.length;
      for (let j = 0; j < n; j++, k++) {
        bloomAddHashAt(bloom, hashes, 32 * k);
        if (block !== null) bloomAddHashAt(block, hashes, 32 * k);
      }
    }
    blooms[i] = bloom;
  }
  return blooms;
}

/** Bloom of one receipt's logs. */
export function logsBloom(logs: readonly ReceiptLog[]): Uint8Array {
  return logsBlooms([logs])[0];
}

/** Block bloom: the OR of the receipts' blooms. */
export function blockLogsBloom(receiptBlooms: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(BLOOM_BYTES);
  for (const b of receiptBlooms) bloomOr(out, b);
  return out;
}
