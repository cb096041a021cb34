/**
 * Piscina entry: trie hashing of disjoint first-nibble groups (src/trie/parallel.ts). In: packed
 * sorted keys, values and offsets (moved). Out: the 16 root-branch slot refs (544 bytes, copied).
 */
import { subtrieRefsPacked } from "../src/trie/parallel.js";
import type { TrieRefsTask } from "../src/trie/parallelRoot.js";

export type TrieHashTask = { kind: "ping" } | TrieRefsTask;

export default function trieHash(task: TrieHashTask): unknown {
  if (task.kind === "ping") return 0;
  return subtrieRefsPacked(task.keys, task.values, task.valueOffsets);
}
