/**
 * Typed face of @nxtedition/rocksdb 12.2.12 (RocksDB 9.7.4), the one file that loads it. The package
 * ships no .d.ts, and the calls Opal relies on for synchronous reads and writes are private by
 * convention (underscore) or undocumented; each is listed here, and each has a test in
 * test/unit/storage/rocksdb.test.ts so that a binding upgrade that changes one fails CI.
 * Facts are from the package source (index.js, chained-batch.js, binding.cc) and storage-bindings.md.
 */
import { createRequire } from "node:module";

/** Opaque native column-family handle (a napi external); only ever passed back to the binding. */
export interface RocksColumn {
  readonly __brand: "RocksColumn";
}

/** Per-column-family options read by binding.cc `InitOptions` (subset Opal sets). */
export interface RocksColumnOptions {
  /** Block cache bytes for this CF. Read as uint32: 4 GiB + 1 MiB wraps to 1 MiB, 0 disables the cache. */
  cacheSize?: number;
  /** true: ZSTD with a 16 KiB dictionary (the binding's default); false: no compression. */
  compression?: boolean;
  /** "point-lookup": Ribbon filter, binary+hash data-block index, memtable whole-key bloom. */
  optimize?: "point-lookup";
  /**
   * "level": RocksDB's OptimizeLevelStyleCompaction for `memtableMemoryBudget` (B, read as uint64,
   * default 256 MiB): write_buffer_size B/4, min_write_buffer_number_to_merge 2,
   * max_write_buffer_number 6, L0 compaction trigger 2, target_file_size_base B/8,
   * max_bytes_for_level_base B, no compression on L0–L1 (ZSTD below). Without it the binding sets no
   * memtable option at all (RocksDB's 64 MiB write buffers) and ignores the budget.
   */
  compaction?: "level";
  memtableMemoryBudget?: number;
}

/** `db.open()` options read by binding.cc `db_open`. `default` must be listed in `columns`. */
export interface RocksOpenOptions {
  createIfMissing?: boolean;
  errorIfExists?: boolean;
  /** Background flush/compaction threads (default: hardware_concurrency / 2). */
  parallelism?: number;
  /** ZSTD compression of the write-ahead log's records (binding default true; RocksDB's false). */
  walCompression?: boolean;
  columns?: Record<string, RocksColumnOptions>;
}

/** Options of `_getManySync` (binding.cc `db_get_many_sync`). */
export interface RocksGetOptions {
  readonly column: RocksColumn;
  readonly fillCache?: boolean;
}

/**
 * Options of `querySync` (binding.cc `db_query` → `Iterator::create` + one `nextv`). The encodings
 * are required: without them the binding throws `Convert(...) failed!`. `limit` bounds the rows,
 * `highWaterMarkBytes` stops early (then `finished` is false). `gt`/`lte` exist too; Opal uses
 * `gte`/`lt` only.
 */
export interface RocksQueryOptions {
  column: RocksColumn;
  keyEncoding: "buffer";
  valueEncoding: "buffer";
  gte?: Uint8Array;
  lt?: Uint8Array;
  reverse?: boolean;
  limit?: number;
  highWaterMarkBytes?: number;
  fillCache?: boolean;
}

/** `querySync` result: keys and values interleaved (`rows[2i]` key, `rows[2i+1]` value). */
export interface RocksQueryResult {
  rows: Buffer[];
  /** True when the native iterator ran past the range or hit `limit`; false when stopped by bytes. */
  finished: boolean;
}

/**
 * Options of `db.iterator()` as Opal calls it: abstract-level copies them (encoding the bounds with
 * the "buffer" encoding, which wraps without copying), then binding.cc `Iterator::create` reads
 * them. The native iterator takes an implicit snapshot at creation. `fillCache` defaults to false.
 */
export interface RocksIteratorOptions {
  column: RocksColumn;
  keyEncoding: "buffer";
  valueEncoding: "buffer";
  gte?: Uint8Array;
  lt?: Uint8Array;
  fillCache?: boolean;
  /** A `_nextvSync` stops after the row that takes it past this many key + value bytes. */
  highWaterMarkBytes?: number;
}

/**
 * The binding's Iterator (iterator.js) through its synchronous underscore methods, which skip
 * abstract-level's callback and nextTick machinery. It is an abstract-level resource of its db:
 * `_closeSync` does not detach it, so call `db.detachResource(it)` after it.
 */
export interface RocksIterator {
  /**
   * binding.cc `iterator_seek`: positions at the first key ≥ target. The binding throws on an empty
   * target, and a target below the iterator's `gte` (or at/above its `lt`) leaves it past the end.
   */
  _seekSync(target: Uint8Array): void;
  /** binding.cc `iterator_nextv_sync`: up to `size` rows from the current position, as in querySync. */
  _nextvSync(size: number): RocksQueryResult;
  /** Closes the native iterator (idempotent). */
  _closeSync(): void;
}

/** Opaque native `rocksdb::WriteBatch*` (a napi external freed when collected). */
export interface RocksBatchHandle {
  readonly __brand: "RocksBatchHandle";
}

/** Opaque native `Database*` of an open RocksLevel (a napi external; see `rocksDbContext`). */
export interface RocksDbContext {
  readonly __brand: "RocksDbContext";
}

/**
 * The binding's napi functions for one WriteBatch (binding.cc `batch_*`, loaded by binding.js), called
 * directly instead of through chained-batch.js. PERF: chained-batch.js's `_put` asserts its context,
 * checks key and value for null and for strings, and defaults the options before the same napi call;
 * an import writes a row per changed slot (storage-writes: 10k in one batch).
 * A WriteBatch is independent of any database until `batch_write`; the caller keeps it and clears it.
 */
export interface RocksBatchNative {
  /** A new empty native WriteBatch. */
  batch_init(): RocksBatchHandle;
  /**
   * Appends a put. `options.column` is the column family (read by name per call; absent: default).
   * The key and value bytes are copied into the batch: the arrays may be reused after the call.
   */
  batch_put(
    batch: RocksBatchHandle,
    key: Uint8Array,
    value: Uint8Array,
    options: { readonly column: RocksColumn },
  ): void;
  batch_del(batch: RocksBatchHandle, key: Uint8Array, options: { readonly column: RocksColumn }): void;
  /** `DB::Write` of the batch on the calling thread; throws on failure. The batch keeps its ops. */
  batch_write(db: RocksDbContext, batch: RocksBatchHandle, options: { readonly sync: boolean }): void;
  /** Empties the batch so it can be reused. */
  batch_clear(batch: RocksBatchHandle): void;
  /** Number of ops in the batch. */
  batch_count(batch: RocksBatchHandle): number;
}

/** The `RocksLevel` instance surface Opal uses. */
export interface RocksLevelDb {
  readonly status: "opening" | "open" | "closing" | "closed";
  /** Column-family handles by name, filled in by `open()` (also on a handle-wrapping instance). */
  readonly columns: Readonly<Record<string, RocksColumn>>;
  /** Native `Database*` as a BigInt (valid while open); `new RocksLevel(handle)` in a worker shares it. */
  readonly handle: bigint;
  /** `GetLatestSequenceNumber()`: grows with every write; equal before and after ⇒ nothing written. */
  readonly sequence: number;
  readonly location: string;
  open(options?: RocksOpenOptions): Promise<void>;
  close(): Promise<void>;
  /** One synchronous MultiGet on the calling thread: Buffer (a fresh copy), undefined (missing), null (aborted). */
  _getManySync(keys: readonly Uint8Array[], options: RocksGetOptions): (Buffer | undefined | null)[];
  querySync(options: RocksQueryOptions): RocksQueryResult;
  /** abstract-level `iterator()`: a new native iterator (binding.cc `iterator_init`). */
  iterator(options: RocksIteratorOptions): RocksIterator;
  /** abstract-level: forget a closed resource (otherwise `close()` keeps a reference to it). */
  detachResource(resource: RocksIterator): void;
  getProperty(property: string): string;
}

export interface RocksLevelConstructor {
  new (locationOrHandle: string | bigint, options: { keyEncoding: "buffer"; valueEncoding: "buffer" }): RocksLevelDb;
}

const require = createRequire(import.meta.url);

let ctor: RocksLevelConstructor | null = null;

/** The `RocksLevel` class, loaded at first use (so importing storage/ never loads RocksDB by itself). */
export function rocksLevel(): RocksLevelConstructor {
  if (ctor === null) ctor = (require("@nxtedition/rocksdb") as { RocksLevel: RocksLevelConstructor }).RocksLevel;
  return ctor;
}

let native: RocksBatchNative | null = null;

/** The binding's napi functions (its binding.js, the prebuilt addon the package itself loads). */
export function rocksBatchNative(): RocksBatchNative {
  if (native === null) native = require("@nxtedition/rocksdb/binding") as RocksBatchNative;
  return native;
}

/**
 * The native `Database*` of an open (or opening) RocksLevel: the value index.js keeps under its
 * private `Symbol('context')` (set by the constructor from `db_init`), found by the symbol's description.
 * Throws if the binding no longer keeps it there.
 */
export function rocksDbContext(db: RocksLevelDb): RocksDbContext {
  const key = Object.getOwnPropertySymbols(db).find((s) => s.description === "context");
  const ctx = key === undefined ? undefined : (db as unknown as Record<symbol, unknown>)[key];
  if (ctx === undefined || ctx === null || typeof ctx !== "object") {
    throw new Error("@nxtedition/rocksdb: RocksLevel keeps no native context under Symbol('context')");
  }
  return ctx as RocksDbContext;
}

/** Version of the loaded binding package (tests assert the pin). */
export function rocksBindingVersion(): string {
  return (require("@nxtedition/rocksdb/package.json") as { version: string }).version;
}
