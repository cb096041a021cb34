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
 * anything after them. The rows are one item of the shared-claims protocol (util/sharedClaims.ts):
 * whichever thread claims it writes it, so a worker that has not started when the importing thread
 * gets there leaves the write to it; a worker that failed is redone here (puts of the same bytes).
 */
import { claim, claimState, publish, sharedInts, waitDone } from "../util/sharedClaims.js";
import { idleThreads, type TaskPool } from "../util/taskPool.js";
import { StorageError } from "./errors.js";
import type { KvStore, WriteBatch } from "./kv.js";
import type { TableName } from "./tables.js";
import { TRIE_LOG_TABLES } from "./writeLog.js";

/** Puts of one table, packed: row i is keys[keyOffsets[i] .. keyOffsets[i+1]) → values[…] alike. */
export interface PackedRows {
  readonly keys: Uint8Array;
  readonly keyOffsets: Int32Array;
  readonly values: Uint8Array;
  readonly valueOffsets: Int32Array;
}

/** The worker task: the rows in shared memory, their claim word, and the outcome (1 written, -1 failed). */
export interface SharedRowsTask {
  readonly kind: "writeRows";
  readonly table: TableName;
  readonly rows: PackedRows;
  readonly state: Int32Array;
  readonly result: Int32Array;
}

/**
 * PERF: below this many rows the hop (shared buffers, waking a worker, ~0.2–0.5 ms) is worth less
 * than the write it moves (~5 µs a row on the importing thread).
 */
export const MIN_SHARED_ROWS = 1024;

/** How long the importing thread waits for rows a worker took before it gives the block up. */
const WORKER_WRITE_WAIT_MS = 60_000;

/** A store that puts packed rows from the thread that calls it (RocksKv, owner or worker's view). */
export interface PackedRowWriter {
  writeRows(table: TableName, rows: PackedRows): void;
}

/** The worker side: writes the rows unless the importing thread took them first; 1 when it did. */
export function writeRowsOnWorker(store: PackedRowWriter, task: SharedRowsTask): number {
  if (!claim(task.state, 0)) return 0;
  try {
    store.writeRows(task.table, task.rows);
    task.result[0] = 1;
  } catch {
    task.result[0] = -1; // written (and any error raised) by the importing thread
  }
  publish(task.state, 0);
  return 1;
}

/** Rows handed to a worker (`writeRowsAside`); `finish` them before the next write that follows them. */
export class AsideRows {
  private finished = false;

  constructor(
    /** The rows as a batch: for the importing thread's own write, and for the caches (noteWritten). */
    readonly batch: WriteBatch,
    /** The worker task, its claim word and outcome. */
    readonly task: SharedRowsTask,
  ) {}

  /**
   * Returns once the rows are in the store: written here when no worker took them (or one failed),
   * else after waiting for the worker. `kv`'s caches learn them before the wait (this thread reads
   * nothing meanwhile, and they go on to the store whatever happens). Throws (WRITE_FAILED) when a
   * worker holds them past the wait.
   */
  finish(kv: KvStore): void {
    if (this.finished) return;
    this.finished = true;
    const { state, result } = this.task;
    if (claim(state, 0)) {
      kv.write(this.batch);
      publish(state, 0);
      return;
    }
    (kv.noteWritten as (b: WriteBatch) => void)(this.batch);
    const until = performance.now() + WORKER_WRITE_WAIT_MS;
    while (!waitDone(state, 0, 1000)) {
      if (performance.now() > until) {
        throw new StorageError("WRITE_FAILED", `a worker took ${this.batch.size} rows to write and did not finish`);
      }
    }
    if (result[0] !== 1) kv.write(this.batch);
  }
}

/** Whether `pool` has a thread free for rows now (commitBlock packs them only then). */
export function canWriteAside(pool: TaskPool): boolean {
  return pool.canAcceptWork() && idleThreads(pool) >= 1;
}

/**
 * Hands `rows` (puts of `table`, which nothing reads before `finish`; `batch` holds them as ops) to
 * one of `pool`'s workers, which write through a view of `kv`'s database; null when `kv`'s database
 * cannot be written by other threads (`kv.noteWritten` undefined) or no thread is free.
 */
export function writeRowsAside(
  kv: KvStore,
  pool: TaskPool,
  table: TableName,
  rows: PackedRows,
  batch: WriteBatch,
): AsideRows | null {
  if (kv.noteWritten === undefined || !canWriteAside(pool)) return null;
  if (TRIE_LOG_TABLES.includes(table)) throw new StorageError("BAD_OPTION", `writeRowsAside: ${table} is logged`);
  const task: SharedRowsTask = { kind: "writeRows", table, rows, state: claimState(1), result: sharedInts(1) };
  // A rejected task (pool closing) leaves the claim to the importing thread.
  pool.run(task).catch(() => 0);
  return new AsideRows(batch, task);
}
