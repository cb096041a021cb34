/**
 * A block's bulk of new flat rows written by a worker thread while the importing thread goes on.
 * A contract whose storage is built in the block (created, or found empty) has all its slots as new
 * rows (10k for storage-writes), and nothing the block's state root reads: its trie is folded from
 * the values in memory (trie/stateRoot.ts `freshStorageRoot`). Putting them into the store costs the
 * importing thread ~5 µs a row (the binding's napi call per row and the memtable insert), so
 * `WorldState.commitBlock` packs them into shared memory as it makes them (BlockCommit.freshRows)
 * and a trieHash worker writes them through its view of the same RocksDB (`RocksKv.writeRows`)
 * while the importing thread computes the root.
 *
 * Crash safety is the import's, unchanged: the rows' undo is in the crash marker, written by the
 * importing thread before the rows are handed over (a crash before the block's last write undoes
 * them, written or not), and the importing thread waits for them (`finish`) before it writes
 * anything after them. The rows go in chunks, each an item of the shared-claims protocol
 * (util/sharedClaims.ts): whichever thread claims a chunk writes it, the worker from the first on,
 * the importing thread (once its root is done) from the last on, so neither waits while rows are
 * left; a chunk a worker failed is written again here (puts of the same bytes).
 */
import { claim, claimState, drainFromCursor, publish, sharedInts, waitDone } from "../util/sharedClaims.js";
import { idleThreads, type TaskPool } from "../util/taskPool.js";
import { StorageError } from "./errors.js";
import { type KvStore, WriteBatch } from "./kv.js";
import type { TableName } from "./tables.js";
import { TRIE_LOG_TABLES } from "./writeLog.js";

/** Puts of one table, packed: row i is keys[keyOffsets[i] .. keyOffsets[i+1]) → values[…] alike. */
export interface PackedRows {
  readonly keys: Uint8Array;
  readonly keyOffsets: Int32Array;
  readonly values: Uint8Array;
  readonly valueOffsets: Int32Array;
}

/** Puts of one table as a batch (for this thread's own writes and the caches) and packed (for a worker). */
export interface PackedPuts {
  readonly batch: WriteBatch;
  readonly rows: PackedRows;
}

/**
 * The worker task: the rows in shared memory, cut in chunks of consecutive rows (chunk i is rows
 * chunks[i] .. chunks[i+1]), each an item of the claims protocol with its outcome in `results`
 * (1 written, -1 failed).
 */
export interface SharedRowsTask {
  readonly kind: "writeRows";
  readonly table: TableName;
  readonly rows: PackedRows;
  readonly chunks: Int32Array;
  /** One state word per chunk, then the workers' cursor. */
  readonly state: Int32Array;
  readonly results: Int32Array;
}

/**
 * PERF: below this many rows the hop (shared buffers, waking a worker, ~0.2–0.5 ms) is worth less
 * than the write it moves (~5 µs a row on the importing thread).
 */
export const MIN_SHARED_ROWS = 1024;

/**
 * Rows per chunk: the worker writes chunks from the first on, and the importing thread, once it has
 * nothing else to do, writes any left from the last on instead of waiting (~5 ms a chunk).
 */
export const CHUNK_ROWS = 1024;

/** How long the importing thread waits for rows a worker took before it gives the block up. */
const WORKER_WRITE_WAIT_MS = 60_000;

/** A store that puts packed rows from the thread that calls it (RocksKv, owner or worker's view). */
export interface PackedRowWriter {
  writeRows(table: TableName, rows: PackedRows): void;
}

/** Rows a .. b of `rows` (their offsets stay absolute). */
function rowsBetween(rows: PackedRows, a: number, b: number): PackedRows {
  return {
    keys: rows.keys,
    keyOffsets: rows.keyOffsets.subarray(a, b + 1),
    values: rows.values,
    valueOffsets: rows.valueOffsets.subarray(a, b + 1),
  };
}

/** The worker side: writes the chunks it claims, from the first on; returns how many. */
export function writeRowsOnWorker(store: PackedRowWriter, task: SharedRowsTask): number {
  return drainFromCursor(task.state, (i) => {
    try {
      store.writeRows(task.table, rowsBetween(task.rows, task.chunks[i]!, task.chunks[i + 1]!));
      task.results[i] = 1;
    } catch {
      task.results[i] = -1; // written (and any error raised) by the importing thread
    }
  });
}

/** Rows handed to a worker (`writeRowsAside`); `finish` them before the next write that follows them. */
export class AsideRows {
  private finished = false;

  constructor(
    /** The rows as a batch: for the importing thread's own writes, and for the caches (noteWritten). */
    readonly batch: WriteBatch,
    /** The worker task, its claim words and outcomes. */
    readonly task: SharedRowsTask,
  ) {}

  /** Chunk i's ops as a batch. */
  private chunk(i: number): WriteBatch {
    const b = new WriteBatch();
    const { chunks } = this.task;
    for (let r = chunks[i]!; r < chunks[i + 1]!; r++) b.ops.push(this.batch.ops[r]!);
    return b;
  }

  /**
   * Returns once the rows are in the store: the chunks no worker has taken are written here, from
   * the last on, then the ones workers took are waited for (and written here if one failed).
   * `kv`'s caches learn the workers' chunks before the wait (this thread reads nothing meanwhile,
   * and they go on to the store whatever happens). A write that fails here is thrown only once no
   * worker is writing a chunk any more (the chunks left are claimed and not written), so nothing
   * lands after the caller's rewind; WRITE_FAILED when a worker holds a chunk past the wait.
   */
  finish(kv: KvStore): void {
    if (this.finished) return;
    this.finished = true;
    const { state, results } = this.task;
    const n = state.length - 1;
    const theirs: number[] = [];
    let failed: { e: unknown } | null = null;
    for (let i = n - 1; i >= 0; i--) {
      if (!claim(state, i)) {
        theirs.push(i);
        continue;
      }
      if (failed === null) {
        try {
          kv.write(this.chunk(i));
        } catch (e) {
          failed = { e };
        }
      }
      publish(state, i);
    }
    const noted = theirs.map((i) => this.chunk(i));
    if (failed === null) for (const b of noted) (kv.noteWritten as (b: WriteBatch) => void)(b);
    const until = performance.now() + WORKER_WRITE_WAIT_MS;
    for (let k = 0; k < theirs.length; k++) {
      const i = theirs[k]!;
      while (!waitDone(state, i, 1000)) {
        if (performance.now() > until) {
          throw new StorageError("WRITE_FAILED", `a worker took ${noted[k]!.size} rows to write and did not finish`);
        }
      }
      if (failed === null && results[i] !== 1) {
        try {
          kv.write(noted[k]!);
        } catch (e) {
          failed = { e };
        }
      }
    }
    if (failed !== null) throw failed.e;
  }
}

/** Whether `pool` has a thread free for rows now (commitBlock packs them only then). */
export function canWriteAside(pool: TaskPool): boolean {
  return pool.canAcceptWork() && idleThreads(pool) >= 1;
}

/**
 * Hands `puts` (of `table`, which nothing reads before `finish`) to one of `pool`'s workers, which
 * write through a view of `kv`'s database, in chunks of `chunkRows`; null when `kv`'s database
 * cannot be written by other threads (`kv.noteWritten` undefined) or no thread is free.
 */
export function writeRowsAside(
  kv: KvStore,
  pool: TaskPool,
  table: TableName,
  puts: PackedPuts,
  chunkRows = CHUNK_ROWS,
): AsideRows | null {
  const { rows, batch } = puts;
  if (kv.noteWritten === undefined || !canWriteAside(pool)) return null;
  if (TRIE_LOG_TABLES.includes(table)) throw new StorageError("BAD_OPTION", `writeRowsAside: ${table} is logged`);
  const total = rows.keyOffsets.length - 1;
  if (batch.size !== total) throw new StorageError("BAD_OPTION", "writeRowsAside: the batch and the rows differ");
  const n = Math.max(1, Math.ceil(total / chunkRows));
  const chunks = sharedInts(n + 1);
  for (let i = 0; i <= n; i++) chunks[i] = Math.min(total, i * chunkRows);
  const task: SharedRowsTask = { kind: "writeRows", table, rows, chunks, state: claimState(n), results: sharedInts(n) };
  // A rejected task (pool closing) leaves every chunk to the importing thread.
  pool.run(task).catch(() => 0);
  return new AsideRows(batch, task);
}
