/**
 * Storage tries hashed in parallel during block import. The storage tries a block changed are
 * independent of each other, so after the flat rows are written each one's incremental update
 * (`updateStorageRoot`) can run anywhere that reads the same store: the trieHash workers read it
 * through the shared RocksDB handle (storage/engine.ts). The import stays synchronous:
 *  - the jobs (address + changed slots) go into SharedArrayBuffers; workers take jobs from the
 *    front through a shared cursor, the importing thread takes them from the back, each claimed
 *    once by compare-and-swap on a per-job state word (pending / claimed / done);
 *  - a worker writes the new root and its branch-node writes (batchCodec encoding) into the job's
 *    region of a shared arena, then publishes the job as done; a result that does not fit its region
 *    is marked and redone by the importing thread;
 *  - when nothing is left to claim, the importing thread waits for jobs still held by workers (a
 *    bounded wait; a job held past it is redone here), then merges the results in job order.
 * The account trie is then updated on the importing thread with every new storage root.
 */
import { decodeBatch, encodeBatch } from "../storage/batchCodec.js";
import { type KvReader, WriteBatch } from "../storage/kv.js";
import {
  claim,
  claimState,
  drainFromCursor,
  publish,
  sharedBytes,
  sharedInts,
  waitDone,
} from "../util/sharedClaims.js";
import { idleThreads, type TaskPool } from "../util/taskPool.js";

/** One storage trie to update: its account and the sorted, unique keys of its changed slots. */
export interface StorageJob {
  readonly hashedAddress: Uint8Array;
  readonly slots: readonly Uint8Array[];
  /**
   * The trie's root before the change, when known: the importing thread's walk then starts from its
   * bottom cache at the root (TrieWalkerOptions `rootHash`). Not sent to the workers.
   */
  readonly root?: Uint8Array | null;
}

/** The shared buffers of one block's storage jobs (the worker task's payload). */
export interface StorageJobBuffers {
  /** Job i: its address then its slots, 32 bytes each, at keys[32·keyOffsets[i] .. 32·keyOffsets[i+1]). */
  readonly keys: Uint8Array;
  readonly keyOffsets: Int32Array;
  /** Job i's result region: arena[arenaOffsets[i] .. arenaOffsets[i+1]) = root (32) ‖ encoded batch. */
  readonly arena: Uint8Array;
  readonly arenaOffsets: Int32Array;
  /** Per job: encoded batch length (-1: did not fit or failed), then the TrieWalkStats counters. */
  readonly results: Int32Array;
  /** n job states (0 pending, 1 claimed, 2 done), then the workers' cursor at index n. */
  readonly state: Int32Array;
}

/** Counters of trie walks (stateRoot.ts reports them per root). */
export interface TrieWalkStats {
  nodesRead: number;
  leavesRead: number;
  refsAdded: number;
  nodePuts: number;
  nodeDels: number;
  /** Tries rebuilt from all their rows instead of walked (stateRoot.ts `REBUILD`). */
  rebuilds: number;
}

const STAT_KEYS = ["nodesRead", "leavesRead", "refsAdded", "nodePuts", "nodeDels", "rebuilds"] as const;

/** Computes one job's update: returns the new root, appends the writes to `batch`, adds to `stats`. */
export type StorageJobRunner = (kv: KvReader, job: StorageJob, batch: WriteBatch, stats: TrieWalkStats) => Uint8Array;

const RESULT_WORDS = 1 + STAT_KEYS.length;

/** Waits this long (ms) for a job a worker holds before redoing it here. */
const CLAIM_WAIT_MS = 5000;

/**
 * Region bytes per changed slot: a changed leaf rewrites the branch nodes on its path (about
 * log16(slots) of them, each stored in at most ~600 bytes with its key and encoding) and may delete
 * as many; 8 levels covers tries of billions of slots. A result that still does not fit is redone
 * by the importing thread, so the bound is about memory, not correctness.
 */
const REGION_PER_SLOT = 8 * 2 * 640;
const REGION_BASE = 4096;

/**
 * PERF: below this many changed slots in all jobs together the hop (waking a worker, ~0.1–0.3 ms)
 * costs more than it saves: an incremental storage-trie update costs ~10–30 µs per changed slot here.
 */
export const MIN_SHARED_SLOTS = 32;

export function packStorageJobs(jobs: readonly StorageJob[]): StorageJobBuffers {
  const n = jobs.length;
  const keyOffsets = sharedInts(n + 1);
  const arenaOffsets = sharedInts(n + 1);
  let keys = 0;
  let arena = 0;
  for (let i = 0; i < n; i++) {
    keys += 1 + jobs[i].slots.length;
    keyOffsets[i + 1] = keys;
    arena += REGION_BASE + REGION_PER_SLOT * jobs[i].slots.length;
    arenaOffsets[i + 1] = arena;
  }
  const b: StorageJobBuffers = {
    keys: sharedBytes(32 * keys),
    keyOffsets,
    arena: sharedBytes(arena),
    arenaOffsets,
    results: sharedInts(RESULT_WORDS * n),
    state: claimState(n),
  };
  for (let i = 0; i < n; i++) {
    let at = 32 * keyOffsets[i];
    b.keys.set(jobs[i].hashedAddress, at);
    for (const s of jobs[i].slots) b.keys.set(s, (at += 32));
  }
  return b;
}

function jobAt(b: StorageJobBuffers, i: number): StorageJob {
  const from = b.keyOffsets[i];
  const to = b.keyOffsets[i + 1];
  const slots: Uint8Array[] = [];
  for (let k = from + 1; k < to; k++) slots.push(b.keys.slice(32 * k, 32 * k + 32));
  return { hashedAddress: b.keys.slice(32 * from, 32 * from + 32), slots };
}

/** Runs job i and writes its result into its region (or marks it as not fitting). */
function runIntoRegion(kv: KvReader, b: StorageJobBuffers, i: number, run: StorageJobRunner): void {
  const batch = new WriteBatch();
  const stats: TrieWalkStats = { nodesRead: 0, leavesRead: 0, refsAdded: 0, nodePuts: 0, nodeDels: 0, rebuilds: 0 };
  const root = run(kv, jobAt(b, i), batch, stats);
  const enc = encodeBatch(batch);
  const off = b.arenaOffsets[i];
  const r = RESULT_WORDS * i;
  if (32 + enc.length > b.arenaOffsets[i + 1] - off) {
    b.results[r] = -1;
  } else {
    b.arena.set(root, off);
    b.arena.set(enc, off + 32);
    b.results[r] = enc.length;
  }
  for (let k = 0; k < STAT_KEYS.length; k++) b.results[r + 1 + k] = stats[STAT_KEYS[k]];
}

/** The worker side: runs jobs from the cursor on until it passes the end; returns how many it ran. */
export function workStorageJobs(kv: KvReader, b: StorageJobBuffers, run: StorageJobRunner): number {
  return drainFromCursor(b.state, (i) => {
    try {
      runIntoRegion(kv, b, i, run);
    } catch {
      b.results[RESULT_WORDS * i] = -1; // redone (and its error raised) by the importing thread
    }
  });
}

export interface SharedStorageOutcome {
  /** New storage root per job, in job order. */
  readonly roots: Uint8Array[];
  /** Jobs run by workers. */
  readonly byWorkers: number;
}

/**
 * Runs every job, on `pool`'s workers and on this thread together, appending each job's writes to
 * `batch` in job order. `run` is what both sides execute. Without a pool, or with too little work,
 * every job runs here in order.
 */
export function runStorageJobs(
  kv: KvReader,
  jobs: readonly StorageJob[],
  batch: WriteBatch,
  stats: TrieWalkStats,
  run: StorageJobRunner,
  pool: TaskPool | null,
  opts: { readonly minSlots?: number; readonly claimWaitMs?: number } = {},
): SharedStorageOutcome {
  let slots = 0;
  for (const j of jobs) slots += j.slots.length;
  if (pool === null || jobs.length < 2 || slots < (opts.minSlots ?? MIN_SHARED_SLOTS) || !pool.canAcceptWork()) {
    return { roots: jobs.map((j) => run(kv, j, batch, stats)), byWorkers: 0 };
  }
  const tasks = Math.min(idleThreads(pool), jobs.length - 1);
  if (tasks <= 0) return { roots: jobs.map((j) => run(kv, j, batch, stats)), byWorkers: 0 };
  const b = packStorageJobs(jobs);
  for (let t = 0; t < tasks; t++) pool.run({ kind: "storageRoots", buffers: b }).catch(() => 0);
  const n = jobs.length;
  const local: (WriteBatch | null)[] = new Array(n).fill(null);
  const roots: Uint8Array[] = new Array(n);
  // From the back while anything is pending.
  for (let i = n - 1; i >= 0; i--) {
    if (!claim(b.state, i)) continue;
    const own = new WriteBatch();
    roots[i] = run(kv, jobs[i], own, stats);
    local[i] = own;
    publish(b.state, i);
  }
  let byWorkers = 0;
  const waitMs = opts.claimWaitMs ?? CLAIM_WAIT_MS;
  for (let i = 0; i < n; i++) {
    const own = local[i];
    if (own !== null) {
      for (const op of own.ops) batch.ops.push(op);
      continue;
    }
    const r = RESULT_WORDS * i;
    if (!waitDone(b.state, i, waitMs) || b.results[r] < 0) {
      roots[i] = run(kv, jobs[i], batch, stats); // held too long, did not fit, or failed there
      continue;
    }
    byWorkers++;
    const off = b.arenaOffsets[i];
    roots[i] = b.arena.slice(off, off + 32);
    // slice(): the ops keep plain copies, not views into the shared arena.
    for (const op of decodeBatch(b.arena.slice(off + 32, off + 32 + b.results[r])).ops) batch.ops.push(op);
    for (let k = 0; k < STAT_KEYS.length; k++) stats[STAT_KEYS[k]] += b.results[r + 1 + k];
  }
  return { roots, byWorkers };
}
