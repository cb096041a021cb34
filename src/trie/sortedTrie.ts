/**
 * The root and storable branch records of a trie given all its leaves at once, keys strictly
 * ascending: a storage trie built from nothing (stateRoot.ts `freshStorageRoot`: a contract's first
 * slots, 10k of them in the storage-writes workload). Native (native/src/trie.c: the same fold and
 * encodings as HashBuilder, every node hashed as it closes, one call for the whole trie) when the
 * addon is loaded; `sortedTriePure` (HashBuilder) otherwise. Both return the same root and the same
 * updates in the same order (test/unit/trie/sortedTrie.test.ts).
 */
import { native } from "../native/load.js";
import { decodeBranchNodeCompact } from "./branchNodeCompact.js";
import { TrieError } from "./errors.js";
import { type BranchUpdate, borrowHashBuilder, releaseHashBuilder } from "./hashBuilder.js";

/** Leaf i: key `keys[32i..32i+32)`, value `values[offsets[i]..offsets[i+1])`. */
export interface SortedLeaves {
  readonly keys: Uint8Array;
  readonly values: Uint8Array;
  /** n + 1 ascending offsets into `values`. */
  readonly offsets: Uint32Array;
}

export interface SortedTrie {
  readonly root: Uint8Array;
  /** The branch nodes worth storing, as HashBuilder's `takeUpdates` lists them. */
  readonly updates: BranchUpdate[];
}

function checkShape(leaves: SortedLeaves): number {
  const n = leaves.offsets.length - 1;
  if (n < 0 || leaves.keys.length !== 32 * n) {
    throw new TrieError("BAD_INPUT", "sortedTrie: keys must hold 32 bytes per leaf");
  }
  return n;
}

/**
 * The pure-TS twin: HashBuilder with updates. Throws UNSORTED_KEYS unless keys strictly ascend.
 * `leafHashes`: the records keep hashed leaf children too (the account trie's layout).
 */
export function sortedTriePure(leaves: SortedLeaves, leafHashes = false): SortedTrie {
  const n = checkShape(leaves);
  const { keys, values, offsets } = leaves;
  const hb = borrowHashBuilder({ updates: true, leafHashes });
  for (let i = 0; i < n; i++) hb.addLeafBytes(keys, values, 32 * i, 32 * i + 32, offsets[i], offsets[i + 1]);
  const root = hb.root();
  const updates = hb.takeUpdates();
  releaseHashBuilder(hb);
  return { root, updates };
}

/** Through the addon (which must be loaded): its packed answer read into updates. */
export function sortedTrieNative(leaves: SortedLeaves, leafHashes = false): SortedTrie {
  const n = checkShape(leaves);
  if (native === null) throw new TrieError("BAD_INPUT", "sortedTrieNative: the addon is not loaded");
  const { keys, values, offsets } = leaves;
  if (n > 0 && offsets[n]! > values.length) throw new TrieError("BAD_INPUT", "sortedTrie: offsets past the values");
  return readAnswer(native.sortedTrie(keys, values, offsets, false, leafHashes));
}

/**
 * A new contract's storage rows as `WorldState.commitBlock` packs them (storage/sharedRows.ts): row i's
 * key `keys[64i..64i+64)` (hashed address ‖ hashed slot; the leaf's key is the second half), its
 * value the storage word `values[offsets[i]..offsets[i+1])`, 1 to 55 bytes, which the leaf holds
 * RLP-encoded. Offsets may start past 0 (a contract's part of a block's packed rows).
 */
export interface SortedRows {
  readonly keys: Uint8Array;
  readonly values: Uint8Array;
  readonly offsets: Uint32Array;
}

/** The row count, after checking there are 64 key bytes per offset pair. */
function rowCount(rows: SortedRows): number {
  const n = rows.offsets.length - 1;
  if (n < 0 || rows.keys.length !== 64 * n)
    throw new TrieError("BAD_INPUT", "sortedTrieRows: rows must hold 64 bytes each");
  return n;
}

/** rowCount, each value's length and bounds checked too (the addon checks those itself). */
function checkRows(rows: SortedRows): number {
  const n = rowCount(rows);
  for (let i = 0; i < n; i++) {
    const len = rows.offsets[i + 1]! - rows.offsets[i]!;
    if (len < 1 || len > 55 || rows.offsets[i + 1]! > rows.values.length) {
      throw new TrieError("BAD_INPUT", "sortedTrieRows: a row's value must hold 1 to 55 bytes within values");
    }
  }
  return n;
}

/** The pure-TS twin of `sortedTrieRowsNative`: the leaves packed (key, rlp(word)) for sortedTriePure. */
export function sortedTrieRowsPure(rows: SortedRows): SortedTrie {
  const n = checkRows(rows);
  const keys = new Uint8Array(32 * n);
  const values = new Uint8Array(rows.offsets[n]! - rows.offsets[0]! + n);
  const offsets = new Uint32Array(n + 1);
  let pos = 0;
  for (let i = 0; i < n; i++) {
    keys.set(rows.keys.subarray(64 * i + 32, 64 * i + 64), 32 * i);
    const v = rows.values.subarray(rows.offsets[i]!, rows.offsets[i + 1]!);
    if (!(v.length === 1 && v[0]! < 0x80)) values[pos++] = 0x80 + v.length;
    values.set(v, pos);
    pos += v.length;
    offsets[i + 1] = pos;
  }
  return sortedTriePure({ keys, values: values.subarray(0, pos), offsets });
}

/** `sortedTrie` of packed rows, through the addon (which must be loaded), with no pass over them here. */
export function sortedTrieRowsNative(rows: SortedRows): SortedTrie {
  rowCount(rows);
  if (native === null) throw new TrieError("BAD_INPUT", "sortedTrieRowsNative: the addon is not loaded");
  return readAnswer(native.sortedTrie(rows.keys, rows.values, rows.offsets, true));
}

/** The addon's packed answer (root, count, then each update) read into updates; null: unsorted keys. */
function readAnswer(out: Uint8Array | null): SortedTrie {
  if (out === null) throw new TrieError("UNSORTED_KEYS", "sortedTrie: keys must be strictly ascending");
  const count = out[32]! | (out[33]! << 8) | (out[34]! << 16) | (out[35]! << 24);
  const updates: BranchUpdate[] = new Array(count);
  let pos = 36;
  for (let i = 0; i < count; i++) {
    const pathLen = out[pos]!;
    const path = out.subarray(pos + 1, pos + 1 + pathLen);
    pos += 1 + pathLen;
    const recLen = (out[pos]! << 8) | out[pos + 1]!;
    const record = out.subarray(pos + 2, pos + 2 + recLen);
    pos += 2 + recLen;
    updates[i] = { path, node: decodeBranchNodeCompact(record), record };
  }
  return { root: out.slice(0, 32), updates };
}

/** Root and branch records of the trie of `leaves` (keys strictly ascending, else UNSORTED_KEYS). */
export const sortedTrie: (leaves: SortedLeaves, leafHashes?: boolean) => SortedTrie =
  native === null ? sortedTriePure : sortedTrieNative;

/** `sortedTrie` of a new contract's packed rows (keys strictly ascending, else UNSORTED_KEYS). */
export const sortedTrieRows: (rows: SortedRows) => SortedTrie =
  native === null ? sortedTrieRowsPure : sortedTrieRowsNative;
