/**
 * Sorts unsorted (32-byte key, value) pairs into the packed layout of parallel.ts / parallelRoot.ts
 * (keys back to back, values back to back, n + 1 value offsets). The sort is an MSD radix sort on
 * an index array: one counting pass over the first two key bytes (65,536 buckets), then each bucket
 * sorted by the following bytes (insertion sort when small, another byte-wise counting pass when
 * not). Hashed keys spread evenly, so buckets hold one or two keys and the sort is two linear passes.
 * PERF (100k account leaves, 2-core dev VM, min of 20): sort ~8 ms + pack ~22 ms (mostly the page
 * faults of 10 MB of fresh output) against ~150–180 ms for an index Array#sort with compareBytes
 * and a gathering pack (bench/trie/root.bench.ts).
 */
import { native } from "../native/load.js";
import { TrieError } from "./errors.js";
import type { PackedLeaves } from "./parallelRoot.js";

const KEY = 32;
/** Buckets this small are insertion-sorted; larger ones get another counting pass on the next byte. */
const SMALL = 24;
/** Below this many keys one 65,536-entry count table costs more than it saves: start byte-wise. */
const MIN_TWO_BYTE = 2048;

function duplicate(k: Uint8Array): never {
  let hex = "";
  for (let i = 0; i < KEY; i++) hex += k[i]!.toString(16).padStart(2, "0");
  throw new TrieError("UNSORTED_KEYS", `duplicate key 0x${hex}`);
}

/**
 * Sorts order[lo..hi) by keys[order[i]] from byte `depth` on (bytes before `depth` are equal within
 * the range). Equal keys throw UNSORTED_KEYS, or with `dupes` stay in input order.
 */
function sortRange(
  keys: readonly Uint8Array[],
  order: Uint32Array,
  lo: number,
  hi: number,
  depth: number,
  dupes: boolean,
): void {
  if (hi - lo < 2) return;
  if (depth === KEY) {
    if (dupes) return;
    duplicate(keys[order[lo]!]!);
  }
  if (hi - lo <= SMALL) {
    insertionSort(keys, order, lo, hi, depth, dupes);
    return;
  }
  // Counting pass on byte `depth`, then recurse into each bucket.
  const counts = new Uint32Array(257);
  for (let i = lo; i < hi; i++) counts[keys[order[i]!]![depth]! + 1]!++;
  for (let b = 0; b < 256; b++) counts[b + 1]! += counts[b]!;
  const tmp = new Uint32Array(hi - lo);
  const next = counts.slice(0, 256);
  for (let i = lo; i < hi; i++) {
    const ix = order[i]!;
    tmp[next[keys[ix]![depth]!]!++] = ix;
  }
  order.set(tmp, lo);
  for (let b = 0; b < 256; b++) sortRange(keys, order, lo + counts[b]!, lo + counts[b + 1]!, depth + 1, dupes);
}

function insertionSort(
  keys: readonly Uint8Array[],
  order: Uint32Array,
  lo: number,
  hi: number,
  depth: number,
  dupes: boolean,
): void {
  for (let i = lo + 1; i < hi; i++) {
    const ix = order[i]!;
    const k = keys[ix]!;
    let j = i - 1;
    while (j >= lo) {
      const o = keys[order[j]!]!;
      let d = 0;
      for (let p = depth; p < KEY && d === 0; p++) d = o[p]! - k[p]!;
      if (d === 0 && !dupes) duplicate(k);
      if (d <= 0) break;
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = ix;
  }
}

/**
 * Insertion sort of order[lo..hi) whose keys share their first two bytes: by `sub` (bytes 2..5 as a
 * uint32, read in the sequential first pass so that this pass rarely touches the keys), then by the
 * remaining bytes.
 */
function insertionSortSub(
  keys: readonly Uint8Array[],
  sub: Uint32Array,
  order: Uint32Array,
  lo: number,
  hi: number,
  dupes: boolean,
): void {
  for (let i = lo + 1; i < hi; i++) {
    const ix = order[i]!;
    const s = sub[ix]!;
    let j = i - 1;
    while (j >= lo) {
      const jx = order[j]!;
      const t = sub[jx]!;
      if (t < s) break;
      if (t === s) {
        const k = keys[ix]!;
        const o = keys[jx]!;
        let d = 0;
        for (let p = 6; p < KEY && d === 0; p++) d = o[p]! - k[p]!;
        if (d === 0 && !dupes) duplicate(k);
        if (d <= 0) break;
      }
      order[j + 1] = jx;
      j--;
    }
    order[j + 1] = ix;
  }
}

/**
 * Index permutation that sorts `keys` (32 bytes each, BAD_INPUT otherwise) ascending. Equal keys
 * throw UNSORTED_KEYS, or with `allowDuplicates` sit next to each other in input order.
 */
export function sortKeyOrder(keys: readonly Uint8Array[], allowDuplicates = false): Uint32Array {
  const n = keys.length;
  for (let i = 0; i < n; i++) {
    const l = keys[i]!.length;
    if (l !== KEY) throw new TrieError("BAD_INPUT", `key ${i} has ${l} bytes (want 32)`);
  }
  const dupes = allowDuplicates;
  const order = new Uint32Array(n);
  if (n < MIN_TWO_BYTE) {
    for (let i = 0; i < n; i++) order[i] = i;
    sortRange(keys, order, 0, n, 0, dupes);
    return order;
  }
  // One sequential pass reads each key once: its bucket (first two bytes) and the next four bytes.
  const bucket = new Uint16Array(n);
  const sub = new Uint32Array(n);
  const starts = new Uint32Array(65537);
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    const b = (k[0]! << 8) | k[1]!;
    bucket[i] = b;
    sub[i] = ((k[2]! << 24) | (k[3]! << 16) | (k[4]! << 8) | k[5]!) >>> 0;
    starts[b + 1]!++;
  }
  for (let b = 0; b < 65536; b++) starts[b + 1]! += starts[b]!;
  const next = starts.slice(0, 65536);
  for (let i = 0; i < n; i++) order[next[bucket[i]!]!++] = i;
  for (let b = 0; b < 65536; b++) {
    const lo = starts[b]!;
    const hi = starts[b + 1]!;
    if (hi - lo < 2) continue;
    if (hi - lo <= SMALL) insertionSortSub(keys, sub, order, lo, hi, dupes);
    else sortRange(keys, order, lo, hi, 2, dupes);
  }
  return order;
}

/** The pure-TS twin of `sortPackedKeyOrder`: sortKeyOrder (duplicates allowed) over views of `packed`. */
export function sortPackedKeyOrderPure(packed: Uint8Array): Uint32Array {
  if (packed.length % KEY !== 0) throw new TrieError("BAD_INPUT", "sortPackedKeyOrder: keys must be 32 bytes each");
  const n = packed.length / KEY;
  const keys: Uint8Array[] = new Array(n);
  for (let i = 0; i < n; i++) keys[i] = packed.subarray(KEY * i, KEY * i + KEY);
  return sortKeyOrder(keys, true);
}

/**
 * Index permutation that sorts the 32-byte keys packed back to back in `packed` ascending, equal
 * keys in input order. Native (native/src/trie.c, a merge sort: one call, no key views) when the
 * addon is loaded; `sortPackedKeyOrderPure` otherwise, tested equal (test/unit/trie/packLeaves.test.ts).
 * PERF: commitBlock sorts a block's hashed slots of an account (storage-writes: 10k) in one cold call:
 * ~6 ms of main thread through the TS sort at load ~7, under 1 ms native.
 */
export function sortPackedKeyOrder(packed: Uint8Array): Uint32Array {
  if (native === null) return sortPackedKeyOrderPure(packed);
  if (packed.length % KEY !== 0) throw new TrieError("BAD_INPUT", "sortPackedKeyOrder: keys must be 32 bytes each");
  const order = new Uint32Array(packed.length / KEY);
  native.sortKeys32(packed, order);
  return order;
}

/**
 * A sort of (key, value) pairs, ready to pack all of it or consecutive parts of it (one per worker):
 * `order` sorts the keys, `rank` is its inverse, `lengths` holds the value sizes in input order.
 */
export interface LeafOrder {
  readonly order: Uint32Array;
  readonly rank: Uint32Array;
  readonly lengths: Uint32Array;
}

/** Sorts the pairs (BAD_INPUT on a key that is not 32 bytes or a values list of another length). */
export function sortLeaves(keys: readonly Uint8Array[], values: readonly Uint8Array[]): LeafOrder {
  const n = keys.length;
  if (values.length !== n) {
    throw new TrieError("BAD_INPUT", `packSortedLeaves: ${n} keys but ${values.length} values`);
  }
  const order = sortKeyOrder(keys);
  const rank = new Uint32Array(n);
  for (let i = 0; i < n; i++) rank[order[i]!] = i;
  const lengths = new Uint32Array(n);
  for (let i = 0; i < n; i++) lengths[i] = values[i]!.length;
  return { order, rank, lengths };
}

/**
 * Packs the sorted positions [from, to) of `sorted` into fresh buffers (transferable to a worker).
 * Scatters in input order rather than gathering in sorted order: the inputs are read sequentially
 * (usually their allocation order) and only the writes jump. PERF: 2x faster at 100k leaves.
 */
export function packLeafRange(
  keys: readonly Uint8Array[],
  values: readonly Uint8Array[],
  sorted: LeafOrder,
  from: number,
  to: number,
): PackedLeaves {
  const { order, rank, lengths } = sorted;
  const n = to - from;
  const valueOffsets = new Uint32Array(n + 1);
  let size = 0;
  for (let i = 0; i < n; i++) {
    size += lengths[order[from + i]!]!;
    if (size > 0xffff_ffff) throw new TrieError("BAD_INPUT", "packSortedLeaves: values exceed 4 GiB");
    valueOffsets[i + 1] = size;
  }
  const packedKeys = new Uint8Array(KEY * n);
  const packedValues = new Uint8Array(size);
  const all = rank.length;
  for (let i = 0; i < all; i++) {
    const r = rank[i]! - from;
    // Unsigned: below `from` wraps around past n.
    if (r >>> 0 >= n) continue;
    packedKeys.set(keys[i]!, KEY * r);
    packedValues.set(values[i]!, valueOffsets[r]!);
  }
  return { keys: packedKeys, values: packedValues, valueOffsets };
}

/**
 * Packs the pairs (keys[i], values[i]) in ascending key order: PackedLeaves for trieRootPacked and
 * trieRootParallel. Keys must be 32 bytes (BAD_INPUT otherwise) and distinct (UNSORTED_KEYS). The
 * inputs are only read; the output owns fresh buffers, so they can be transferred to a worker.
 */
export function packSortedLeaves(keys: readonly Uint8Array[], values: readonly Uint8Array[]): PackedLeaves {
  return packLeafRange(keys, values, sortLeaves(keys, values), 0, keys.length);
}
