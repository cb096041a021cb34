/**
 * Stored branch node record ("BranchNodeCompact", after reth): what the state-root walker needs to
 * skip an unchanged subtrie without reading its leaves.
 *   stateMask: children present;
 *   treeMask:  children whose subtrie holds further stored branch nodes;
 *   hashMask:  children referenced by a 32-byte hash whose hashes are kept: branch nodes, and in the
 *              account trie also leaves (leafMask);
 *   leafMask:  the hashMask children that are leaves (never in treeMask).
 * A kept branch hash names a branch sitting exactly at parentPath ‖ nibble and stays valid wherever
 * the surrounding trie changes. A leaf's node holds the rest of its key after the branch, so its kept
 * hash is valid only while this branch stays where it is: the walker uses it only when two of the
 * branch's children are unchanged (trieWalker.ts). Extension children are never in hashMask (the
 * walker rebuilds them from the stored branch below).
 *
 * Why leaves too, unlike reth: on RocksDB a leaf range costs a seek through every level of the LSM
 * (~0.3 ms on a 10M-account state), where an MDBX B-tree seek is a page walk. With its leaves' hashes
 * kept, a changed account's bottom branch is one record read by exact key (bloom-filtered, one level)
 * and the account itself one exact read; its unchanged siblings are never read. The account trie's
 * leaves are always hashed (an account's RLP is over 32 bytes); a storage trie keeps the old layout
 * (its leaves are often embedded, and a token's writes would pay a record per bottom branch).
 *
 * Record encoding (tables accountTrie / storageTrie):
 *   stateMask u16 BE ‖ treeMask u16 BE ‖ hashMask u16 BE ‖ 32-byte hash per hashMask bit, nibble order
 *   [‖ leafMask u16 BE, present only when not zero].
 * The two lengths, 6 + 32n and 8 + 32n, never coincide, so a record says which it is.
 * Key encoding: the branch node's nibble path, one nibble per byte (so byte order = path order and a
 * path's subtrie is the key range [path, path with last nibble + 1)); storageTrie keys carry the
 * 32-byte hashed address in front.
 */
import { TrieError } from "./errors.js";

export interface BranchNodeCompact {
  readonly stateMask: number;
  readonly treeMask: number;
  readonly hashMask: number;
  /** The hashMask children that are leaves (0 in a record without the trailer). */
  readonly leafMask: number;
  /** 32 bytes per hashMask bit, in nibble order. */
  readonly hashes: Uint8Array;
}

export function popcount16(m: number): number {
  m = m - ((m >> 1) & 0x5555);
  m = (m & 0x3333) + ((m >> 2) & 0x3333);
  m = (m + (m >> 4)) & 0x0f0f;
  return (m + (m >> 8)) & 0x1f;
}

/** Offset into `hashes` of the hash kept for child `nibble` (hashMask must have the bit). */
export function hashOffset(node: BranchNodeCompact, nibble: number): number {
  return 32 * popcount16(node.hashMask & ((1 << nibble) - 1));
}

export function encodeBranchNodeCompact(node: BranchNodeCompact): Uint8Array {
  const out = new Uint8Array(6 + node.hashes.length + (node.leafMask !== 0 ? 2 : 0));
  out[0] = node.stateMask >> 8;
  out[1] = node.stateMask & 0xff;
  out[2] = node.treeMask >> 8;
  out[3] = node.treeMask & 0xff;
  out[4] = node.hashMask >> 8;
  out[5] = node.hashMask & 0xff;
  out.set(node.hashes, 6);
  if (node.leafMask !== 0) {
    out[out.length - 2] = node.leafMask >> 8;
    out[out.length - 1] = node.leafMask & 0xff;
  }
  return out;
}

/** Decodes a record; `hashes` is a view into `b`. Throws TrieError("BAD_RECORD") on inconsistency. */
export function decodeBranchNodeCompact(b: Uint8Array): BranchNodeCompact {
  if (b.length < 6) throw new TrieError("BAD_RECORD", `branch record of ${b.length} bytes`);
  const stateMask = (b[0] << 8) | b[1];
  const treeMask = (b[2] << 8) | b[3];
  const hashMask = (b[4] << 8) | b[5];
  if ((treeMask & ~stateMask) !== 0 || (hashMask & ~stateMask) !== 0) {
    throw new TrieError("BAD_RECORD", "tree or hash mask outside the state mask");
  }
  if (popcount16(stateMask) < 2) throw new TrieError("BAD_RECORD", "branch record with fewer than two children");
  const hashEnd = 6 + 32 * popcount16(hashMask);
  if (b.length === hashEnd) return { stateMask, treeMask, hashMask, leafMask: 0, hashes: b.subarray(6) };
  if (b.length !== hashEnd + 2) {
    throw new TrieError("BAD_RECORD", `branch record of ${b.length} bytes does not match its hash mask`);
  }
  const leafMask = (b[hashEnd] << 8) | b[hashEnd + 1];
  if (leafMask === 0 || (leafMask & ~(hashMask & ~treeMask)) !== 0) {
    throw new TrieError("BAD_RECORD", "leaf mask empty, outside the hash mask or inside the tree mask");
  }
  return { stateMask, treeMask, hashMask, leafMask, hashes: b.subarray(6, hashEnd) };
}
