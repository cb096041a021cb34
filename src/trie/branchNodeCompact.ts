/**
 * Stored branch node record ("BranchNodeCompact", after reth): what the state-root walker needs to
 * skip an unchanged subtrie without reading its leaves.
 *   stateMask: children present;
 *   treeMask:  children whose subtrie holds further stored branch nodes;
 *   hashMask:  children that are branch nodes referenced by a 32-byte hash, whose hashes are kept.
 * Leaf and extension children are never in hashMask (the walker rebuilds them from flat leaves or
 * from the stored branch below the extension), so a kept hash always names a branch sitting exactly
 * at parentPath ‖ nibble and stays valid wherever the surrounding trie changes.
 *
 * Record encoding (tables accountTrie / storageTrie):
 *   stateMask u16 BE ‖ treeMask u16 BE ‖ hashMask u16 BE ‖ 32-byte hash per hashMask bit, nibble order.
 * Key encoding: the branch node's nibble path, one nibble per byte (so byte order = path order and a
 * path's subtrie is the key range [path, path with last nibble + 1)); storageTrie keys carry the
 * 32-byte hashed address in front.
 */
import { TrieError } from "./errors.js";

export interface BranchNodeCompact {
  readonly stateMask: number;
  readonly treeMask: number;
  readonly hashMask: number;
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
  const out = new Uint8Array(6 + node.hashes.length);
  out[0] = node.stateMask >> 8;
  out[1] = node.stateMask & 0xff;
  out[2] = node.treeMask >> 8;
  out[3] = node.treeMask & 0xff;
  out[4] = node.hashMask >> 8;
  out[5] = node.hashMask & 0xff;
  out.set(node.hashes, 6);
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
  if (b.length !== 6 + 32 * popcount16(hashMask)) {
    throw new TrieError("BAD_RECORD", `branch record of ${b.length} bytes does not match its hash mask`);
  }
  return { stateMask, treeMask, hashMask, hashes: b.subarray(6) };
}
