/**
 * Where a trie lives in storage. A trie is its flat leaves (hashedAccounts, or hashedStorage under one
 * hashed address) plus its stored branch nodes (accountTrie, or storageTrie under that address); see
 * branchNodeCompact.ts for the record and key layout. This file maps nibble paths to KV keys and
 * ranges, and turns a HashBuilder's branch updates into puts and deletes against what was stored.
 */
import { bytesKey, compareBytes, equalBytes } from "../primitives/bytes.js";
import type { KvCursor, KvRange, KvReader, WriteBatch } from "../storage/kv.js";
import type { TableName } from "../storage/tables.js";
import type { BranchUpdate } from "./hashBuilder.js";
import { nibblePrefixLowerBound, nibblePrefixUpperBound } from "./nibbles.js";

export interface TrieView {
  /** Flat leaves: 32-byte trie keys after `leafPrefix`. */
  readonly leafTable: TableName;
  readonly leafPrefix: Uint8Array;
  /** Stored branch nodes: nibble paths (one per byte) after `nodePrefix`. */
  readonly nodeTable: TableName;
  readonly nodePrefix: Uint8Array;
  /** Storage leaves hold minimal big-endian words and the trie holds rlp(word); accounts hold RLP as is. */
  readonly storage: boolean;
  /**
   * Its records keep their hashed leaf children's hashes too (branchNodeCompact.ts `leafMask`): the
   * account trie. Then every branch with a hashed leaf child has a record, the root included.
   */
  readonly leafHashes: boolean;
}

const NONE = new Uint8Array(0);

export const ACCOUNT_TRIE_VIEW: TrieView = Object.freeze({
  leafTable: "hashedAccounts",
  leafPrefix: NONE,
  nodeTable: "accountTrie",
  nodePrefix: NONE,
  storage: false,
  leafHashes: true,
});

export function storageTrieView(hashedAddress: Uint8Array): TrieView {
  return {
    leafTable: "hashedStorage",
    leafPrefix: hashedAddress,
    nodeTable: "storageTrie",
    nodePrefix: hashedAddress,
    storage: true,
    leafHashes: false,
  };
}

/** Smallest byte string greater than every string starting with `b`, or null when `b` is all 0xff. */
export function bytePrefixUpperBound(b: Uint8Array): Uint8Array | null {
  let end = b.length;
  while (end > 0 && b[end - 1] === 0xff) end--;
  if (end === 0) return null;
  const out = b.slice(0, end);
  out[end - 1]++;
  return out;
}

function withPrefix(prefix: Uint8Array, rest: Uint8Array): Uint8Array {
  if (prefix.length === 0) return rest;
  const out = new Uint8Array(prefix.length + rest.length);
  out.set(prefix);
  out.set(rest, prefix.length);
  return out;
}

function range(gte: Uint8Array, lt: Uint8Array | null, limit?: number): KvRange {
  const r: KvRange = { gte };
  if (lt !== null) r.lt = lt;
  if (limit !== undefined) r.limit = limit;
  return r;
}

/** KV key of the flat leaf with 32-byte trie key `key`. */
export function leafKey(view: TrieView, key: Uint8Array): Uint8Array {
  return withPrefix(view.leafPrefix, key);
}

/** KV key of the branch node at `path[0..len)` (a new array). */
export function nodeKey(view: TrieView, path: Uint8Array, len = path.length): Uint8Array {
  return withPrefix(view.nodePrefix, path.slice(0, len));
}

/** Range of stored branch nodes whose path starts with `path[0..len)`. */
export function nodeRange(view: TrieView, path: Uint8Array, len: number, limit?: number): KvRange {
  const gte = nodeKey(view, path, len);
  let lt: Uint8Array | null;
  if (len > 0) {
    lt = gte.slice();
    lt[lt.length - 1]++; // a nibble is at most 15, so no carry
  } else {
    lt = bytePrefixUpperBound(view.nodePrefix);
  }
  return range(gte, lt, limit);
}

/** Range of every stored branch node of the trie. */
export function allNodesRange(view: TrieView): KvRange {
  return range(view.nodePrefix, bytePrefixUpperBound(view.nodePrefix));
}

/** Lowest flat-leaf key with the nibble prefix `path[0..len)` (inclusive bound). */
export function leafLower(view: TrieView, path: Uint8Array, len: number): Uint8Array {
  return withPrefix(view.leafPrefix, nibblePrefixLowerBound(path, len));
}

/** Exclusive bound above every flat-leaf key with the nibble prefix `path[0..len)`; null = none. */
export function leafUpper(view: TrieView, path: Uint8Array, len: number): Uint8Array | null {
  const up = nibblePrefixUpperBound(path, len);
  return up === null ? bytePrefixUpperBound(view.leafPrefix) : withPrefix(view.leafPrefix, up);
}

/** Range of flat-leaf keys in [gte, lt) (lt null = to the end). */
export function keyRange(gte: Uint8Array, lt: Uint8Array | null): KvRange {
  return range(gte, lt);
}

/**
 * Adds to `batch` the puts that store `updates` (skipping records identical to the `old` ones) and
 * notes their keys in `kept`. Pair with `deleteStale`, which deletes the old keys not kept.
 * `oldIsAll`: `old` holds every stored node of the trie (readAllNodes), so a key not in it has no
 * row and its put is a `WriteBatch.insert`, undone by a delete without reading it back. PERF: a new
 * storage trie's ~800 branch rows for 10k slots (storage-writes) were read back one MultiGet each
 * import, through the chain's cache, only to find nothing.
 */
export function putTrieUpdates(
  batch: WriteBatch,
  view: TrieView,
  updates: readonly BranchUpdate[],
  old: ReadonlyMap<string, Uint8Array>,
  kept: Set<string>,
  oldIsAll = false,
): number {
  let puts = 0;
  for (const u of updates) {
    const key = nodeKey(view, u.path);
    const k = bytesKey(key);
    kept.add(k);
    const rec = u.record;
    const prev = old.get(k);
    if (prev === undefined) {
      if (oldIsAll) batch.insert(view.nodeTable, key, rec);
      else batch.put(view.nodeTable, key, rec);
    } else if (!equalBytes(prev, rec)) batch.put(view.nodeTable, key, rec);
    else continue;
    puts++;
  }
  return puts;
}

/** Deletes from `table` every key of `old` (latin-1 KV keys) that is not in `kept`. */
export function deleteStale(
  batch: WriteBatch,
  table: TableName,
  old: ReadonlyMap<string, Uint8Array>,
  kept: ReadonlySet<string>,
): number {
  let dels = 0;
  for (const k of old.keys()) {
    if (kept.has(k)) continue;
    batch.del(table, latin1ToBytes(k));
    dels++;
  }
  return dels;
}

/**
 * Every stored branch node of the trie: KV key (latin-1) → record. With `cursor` (on the view's node
 * table) the read costs a seek instead of a new iterator: many deleted accounts hold no storage nodes.
 */
export function readAllNodes(
  kv: KvReader,
  view: TrieView,
  into = new Map<string, Uint8Array>(),
  cursor?: KvCursor,
): Map<string, Uint8Array> {
  const range = allNodesRange(view);
  if (cursor === undefined) {
    for (const [k, v] of kv.iterate(view.nodeTable, range)) into.set(bytesKey(k), v);
    return into;
  }
  const lt = range.lt;
  for (let ok = cursor.seek(range.gte!); ok; ok = cursor.next()) {
    const k = cursor.key;
    if (lt !== undefined && compareBytes(k, lt) >= 0) break;
    into.set(bytesKey(k), cursor.value);
  }
  return into;
}

export function latin1ToBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
