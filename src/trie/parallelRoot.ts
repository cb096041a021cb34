/**
 * Trie root of a sorted packed leaf set, hashed across a worker pool: the 16 first-nibble groups are
 * split into one contiguous range per worker (balanced by leaf count), each worker hashes its groups
 * to root-branch refs (parallel.ts), and the calling thread assembles the root. Small inputs, a
 * missing or full pool, or a single group take the single-threaded path.
 */
import type { TaskPool } from "../util/taskPool.js";
import { packLeafRange, sortLeaves } from "./packLeaves.js";
import { type ChildRefs, groupBounds, mergeChildRefs, rootFromChildRefs, trieRootPacked } from "./parallel.js";

/**
 * Below this many leaves the hop (copying the slices, waking a worker) costs more than the hashing:
 * 4096 leaves hash in about 6 ms here (bench/trie/root.bench.ts), a round trip costs ~0.3 ms plus copies.
 */
export const MIN_PARALLEL_LEAVES = 4096;

export interface PackedLeaves {
  /** 32·n bytes of sorted keys. */
  keys: Uint8Array;
  /** Leaf values back to back. */
  values: Uint8Array;
  /** n + 1 offsets into `values`. */
  valueOffsets: Uint32Array;
}

/** The worker task: hash the groups present in these leaves. */
export interface TrieRefsTask extends PackedLeaves {
  kind: "refs";
}

/** Splits groups [0,16) into at most `parts` contiguous ranges of about equal leaf count. */
function splitGroups(bounds: Uint32Array, parts: number): [number, number][] {
  const n = bounds[16];
  const ranges: [number, number][] = [];
  let g = 0;
  for (let p = 0; p < parts && g < 16; p++) {
    const target = (n * (p + 1)) / parts;
    const start = g;
    while (g < 16 && (g === start || bounds[g + 1] <= target || p === parts - 1)) g++;
    ranges.push([start, g]);
  }
  if (g < 16) ranges[ranges.length - 1][1] = 16;
  return ranges;
}

function sliceLeaves(leaves: PackedLeaves, from: number, to: number): PackedLeaves {
  const base = leaves.valueOffsets[from];
  const valueOffsets = new Uint32Array(to - from + 1);
  for (let i = from; i <= to; i++) valueOffsets[i - from] = leaves.valueOffsets[i] - base;
  return {
    keys: leaves.keys.slice(32 * from, 32 * to),
    values: leaves.values.slice(base, leaves.valueOffsets[to]),
    valueOffsets,
  };
}

export async function trieRootParallel(
  leaves: PackedLeaves,
  pool: TaskPool | null,
  minParallel: number = MIN_PARALLEL_LEAVES,
): Promise<Uint8Array> {
  const n = leaves.keys.length / 32;
  if (pool === null || n < minParallel || !pool.canAcceptWork()) {
    return trieRootPacked(leaves.keys, leaves.values, leaves.valueOffsets);
  }
  const bounds = groupBounds(leaves.keys);
  let groups = 0;
  for (let g = 0; g < 16; g++) if (bounds[g + 1] > bounds[g]) groups++;
  if (groups < 2) return trieRootPacked(leaves.keys, leaves.values, leaves.valueOffsets);

  const parts = await Promise.all(
    splitGroups(bounds, pool.threads).map(([g0, g1]) => {
      const slice = sliceLeaves(leaves, bounds[g0], bounds[g1]);
      const task: TrieRefsTask = { kind: "refs", ...slice };
      return pool.run<ChildRefs>(task, [slice.keys.buffer, slice.values.buffer, slice.valueOffsets.buffer]);
    }),
  );
  const merged = mergeChildRefs(parts);
  return rootFromChildRefs(merged.refs, merged.lengths);
}

/**
 * Trie root of unsorted (32-byte key, value) pairs across the pool (keys distinct: UNSORTED_KEYS).
 * One sort on the calling thread, then each worker's groups are packed straight into their own
 * buffers and sent off before the next part is packed: packing overlaps hashing, and nothing is
 * packed and then sliced again as with packSortedLeaves + trieRootParallel.
 */
export async function trieRootOfPairs(
  keys: readonly Uint8Array[],
  values: readonly Uint8Array[],
  pool: TaskPool | null,
  minParallel: number = MIN_PARALLEL_LEAVES,
): Promise<Uint8Array> {
  const sorted = sortLeaves(keys, values);
  const n = keys.length;
  // Sorted positions of the first-nibble groups.
  const bounds = new Uint32Array(17);
  for (let i = 0; i < n; i++) bounds[(keys[i]![0]! >> 4) + 1]!++;
  let groups = 0;
  for (let g = 0; g < 16; g++) {
    if (bounds[g + 1]! > 0) groups++;
    bounds[g + 1]! += bounds[g]!;
  }
  if (pool === null || n < minParallel || groups < 2 || !pool.canAcceptWork()) {
    const all = packLeafRange(keys, values, sorted, 0, n);
    return trieRootPacked(all.keys, all.values, all.valueOffsets);
  }
  const runs = splitGroups(bounds, pool.threads).map(([g0, g1]) => {
    const part = packLeafRange(keys, values, sorted, bounds[g0]!, bounds[g1]!);
    const task: TrieRefsTask = { kind: "refs", ...part };
    return pool.run<ChildRefs>(task, [part.keys.buffer, part.values.buffer, part.valueOffsets.buffer]);
  });
  const merged = mergeChildRefs(await Promise.all(runs));
  return rootFromChildRefs(merged.refs, merged.lengths);
}
