/**
 * Choosing the storage engine (`--db.engine=rocksdb|lmdb`, geth's flag name): opening a data
 * directory with either, refusing a directory the other engine wrote, and handing worker threads
 * their own view — RocksDB's native handle. LMDB gives workers none yet: measured here, a commit
 * made with lmdb-js 3.5.6 (`transactionSync`; also `putSync`, `noSync`, no overlapping sync) became
 * visible to a reader in another thread only after a delay (read at once: 167 of 200 fresh; 5 ms
 * later: all), through every read API (get, resetReadTxn, useReadTransaction, getRange), so on LMDB
 * read-only calls stay on the main thread (`shareWithWorkers` answers null) rather than risk a
 * stale answer.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CachedKv, NO_READS, type ReadCounts, WORKER_TRIE_CACHE } from "./cachedKv.js";
import { StorageError } from "./errors.js";
import type { KvReader, KvStore } from "./kv.js";
import { LmdbKv } from "./lmdb.js";
import { RocksKv } from "./rocksdb.js";
import type { PackedRowWriter } from "./sharedRows.js";
import { WriteLogReader, type WriteLogRef } from "./writeLog.js";

export const DB_ENGINES = ["rocksdb", "lmdb"] as const;
export type DbEngine = (typeof DB_ENGINES)[number];

/** A store whose writes move a sequence number (what worker reads check for consistency). */
export type SequencedKv = KvStore & { readonly sequence: number };

/** What a worker thread needs to open its own view of the store (plain data, for workerData). */
export interface WorkerStoreRef {
  readonly engine: "rocksdb";
  readonly handle: bigint;
  /** The owner's log of trie rows written (writeLog.ts), for a worker's trie cache. */
  readonly writeLog?: WriteLogRef;
}

export interface OpenedStore {
  readonly engine: DbEngine;
  readonly kv: SequencedKv;
  /** A reference for worker threads (RocksDB counts it until `releaseWorkers`); null: not shareable. */
  shareWithWorkers(): WorkerStoreRef | null;
  /** After the workers are gone (RocksDB: before `close`, else it refuses). */
  releaseWorkers(): void;
  /**
   * A store that syncs its log off the caller's thread by itself (the power-loss tests' store) gives
   * Blockchain.logSync here; the node on RocksDB uses its trieHash workers instead (Pools.logSync).
   */
  readonly syncLog?: () => Promise<void>;
  close(): Promise<void>;
}

/** What the node's flags give the store. */
export interface StoreOptions {
  /** `--cache` in MiB: RocksDB's memtables get 1/MEMTABLE_CACHE_DIVISOR of it (rocksdb.ts, Memtables). */
  readonly cacheMb?: number | undefined;
}

/** RocksDB's memtables get `--cache` / 32 (32 MiB at geth's default 1024; ~51 MiB resident at most with the floors). */
export const MEMTABLE_CACHE_DIVISOR = 32;

/** The engine whose files are in `path`, if any. */
function engineOnDisk(path: string): DbEngine | null {
  if (existsSync(join(path, "data.mdb"))) return "lmdb";
  if (existsSync(join(path, "CURRENT"))) return "rocksdb";
  return null;
}

export async function openStore(path: string, engine: DbEngine, opts: StoreOptions = {}): Promise<OpenedStore> {
  const found = engineOnDisk(path);
  if (found !== null && found !== engine) {
    throw new StorageError("OPEN_FAILED", `${path} holds a ${found} database: start with --db.engine=${found}`);
  }
  if (engine === "lmdb") {
    const kv = await LmdbKv.open(path);
    return {
      engine,
      kv,
      shareWithWorkers: () => null,
      releaseWorkers: () => undefined,
      close: () => kv.close(),
    };
  }
  const kv = await RocksKv.open(
    path,
    opts.cacheMb === undefined
      ? {}
      : { memtableBytes: Math.floor((opts.cacheMb * 1024 * 1024) / MEMTABLE_CACHE_DIVISOR) },
  );
  return {
    engine,
    kv,
    shareWithWorkers: () => ({ engine: "rocksdb", handle: kv.shareHandle(), writeLog: kv.writeLog() }),
    releaseWorkers: () => kv.releaseHandle(),
    close: () => kv.close(),
  };
}

/**
 * A worker thread's view of the owner's store: read-only, but for `syncLog()` (RocksKv.syncLog),
 * which makes every batch the owner wrote so far durable without the owner's thread waiting, and
 * `writeRows` (RocksKv.writeRows), the rows an import hands over (sharedRows.ts).
 */
export type WorkerKv = SequencedKv & PackedRowWriter & { syncLog(): void };

/** A worker thread's view of the owner's store (see WorkerKv). */
export function openWorkerStore(ref: WorkerStoreRef): Promise<WorkerKv> {
  return RocksKv.fromHandle(ref.handle);
}

/**
 * A worker's view with a read cache of the stored trie branches (`WORKER_TRIE_CACHE`), kept equal to
 * the store by replaying the owner's write log (writeLog.ts): `fresh()` before each task's reads
 * returns the cached reader. Without a log in `ref` the view itself is returned, uncached.
 */
export interface CachedWorkerStore {
  readonly view: WorkerKv;
  fresh(): KvReader;
  /** Point reads of the cached tables so far: from the cache (hits) and from the store (misses). */
  readCounts(): ReadCounts;
}

export async function openCachedWorkerStore(ref: WorkerStoreRef): Promise<CachedWorkerStore> {
  const view = await openWorkerStore(ref);
  const log = ref.writeLog;
  if (log === undefined) return { view, fresh: () => view, readCounts: () => NO_READS };
  const cache = new CachedKv(view, WORKER_TRIE_CACHE);
  const reader = new WriteLogReader(log);
  return {
    view,
    fresh(): KvReader {
      if (!reader.replay(cache.noteWrite)) cache.clear();
      return cache;
    },
    readCounts: () => ({ hits: cache.hits, misses: cache.misses }),
  };
}
