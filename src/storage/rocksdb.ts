/**
 * RocksKv: the production KvStore on RocksDB through @nxtedition/rocksdb (storage-bindings.md §7).
 * Every table of TABLES is one column family. Reads are synchronous on the calling thread: get and
 * getMany are one native MultiGet each, iterate pulls bounded chunks with `querySync`, a cursor keeps
 * one native iterator and reads ahead (RocksCursor). A WriteBatch becomes one native
 * rocksdb::WriteBatch across column families, written synchronously.
 * Worker threads read through the owner's native DB: `shareHandle()` → `RocksKv.fromHandle()`; the
 * one write such a view makes is `syncLog()`, which fsyncs the log off the owner's thread.
 * Shutdown order: `pool.destroy()` → `releaseHandle()` → `close()`; any other order can segfault.
 */
import { compareBytes, concatBytes } from "../primitives/bytes.js";
import { StorageError } from "./errors.js";
import type { KvCursor, KvCursorOptions, KvRange, KvStore, WriteBatch } from "./kv.js";
import {
  type RocksBatchHandle,
  type RocksBatchNative,
  type RocksColumnOptions,
  type RocksDbContext,
  type RocksGetOptions,
  type RocksIterator,
  type RocksIteratorOptions,
  type RocksLevelDb,
  type RocksQueryOptions,
  rocksBatchNative,
  rocksDbContext,
  rocksLevel,
} from "./rocksBinding.js";
import type { PackedRows } from "./sharedRows.js";
import { TABLE_NAMES, type TableName } from "./tables.js";
import { TRIE_LOG_TABLES, WriteLog, type WriteLogRef } from "./writeLog.js";

export interface RocksKvOptions {
  /** Create the directory and the database when missing (default true). */
  readonly createIfMissing?: boolean;
  /**
   * Block cache per table in bytes (default DEFAULT_CACHE_BYTES). Each column family has its own
   * cache, so the total is the sum over tables. The binding reads it as uint32: 4 GiB or more is
   * rejected here (4 GiB + 1 MiB would silently become 1 MiB). 0 disables the cache.
   */
  readonly cacheBytes?: number;
  /** Per-table overrides of `cacheBytes`. */
  readonly tableCacheBytes?: Readonly<Partial<Record<TableName, number>>>;
  /** ZSTD block compression for every table (default true). */
  readonly compression?: boolean;
  /** RocksDB background threads for flush and compaction (default: the binding's cores / 2). */
  readonly parallelism?: number;
  /**
   * Memtable budget of the whole store in bytes (default DEFAULT_MEMTABLE_BYTES), split between the
   * tables by MEMTABLE_WEIGHTS with at least MIN_TABLE_MEMTABLE_BYTES each (memtableBudgets). A
   * table's memtables hold 0.75 of its budget before a flush and 1.5 of it at most.
   */
  readonly memtableBytes?: number;
}

/** The binding's own default per column family; production config passes larger values per table. */
export const DEFAULT_CACHE_BYTES = 8 * 1024 * 1024;
/** Largest block cache the binding can take per column family (uint32). */
export const MAX_CACHE_BYTES = 0xffff_ffff;

/**
 * Memtables. Without a size each column family keeps RocksDB's default 64 MiB write buffer (two of
 * them), so a store's memory grew with every byte written, unbounded by `--cache`, until a table had
 * written 64 MiB (a 10-minute devnet soak: +26 MB RSS per opal-exec, no flush). The binding sets a
 * write buffer only through `compaction: "level"` + `memtableMemoryBudget` (binding.cc InitOptions,
 * RocksDB's OptimizeLevelStyleCompaction): for a budget B, write buffers of B/4, a flush once two
 * are full (0.75 B resident with the active one), at most 6 (1.5 B), L0→L1 compaction at 2 files,
 * SST files of B/8, L1 of B, L0–L1 uncompressed and ZSTD below.
 * The store's budget is `--cache` / MEMTABLE_CACHE_DIVISOR (storage/engine.ts; 32 MiB at the default
 * 1024), split by weight: the tables written by every block's state commit 4, the chain's per-block
 * rows 2, the rest 1, each at least MIN_TABLE_MEMTABLE_BYTES.
 */
export const DEFAULT_MEMTABLE_BYTES = 32 * 1024 * 1024;
/** Smallest budget of a table: 256 KiB write buffers, 128 KiB SST files. */
export const MIN_TABLE_MEMTABLE_BYTES = 1024 * 1024;
/** `default` holds nothing but RocksDB always has it. */
const DEFAULT_CF_MEMTABLE_BYTES = MIN_TABLE_MEMTABLE_BYTES;
/** Largest budget the binding's uint64 read takes exactly as a JS number. */
const MAX_MEMTABLE_BYTES = Number.MAX_SAFE_INTEGER;

const MEMTABLE_WEIGHTS: Readonly<Record<TableName, number>> = Object.freeze({
  meta: 1,
  hashedAccounts: 4,
  hashedStorage: 4,
  accountTrie: 4,
  storageTrie: 4,
  code: 1,
  headers: 2,
  bodies: 2,
  receipts: 2,
  difficulty: 1,
  canonical: 1,
  txLookup: 2,
  history: 4,
  safeHeads: 1,
  badBlocks: 1,
  syncHeaders: 1,
  blobSidecars: 1,
});

/** Each table's memtable budget (whole bytes) for a store budget of `total` bytes. */
export function memtableBudgets(total: number): Record<TableName, number> {
  checkSize("memtableBytes", total, 0, MAX_MEMTABLE_BYTES);
  let weights = 0;
  for (const t of TABLE_NAMES) weights += MEMTABLE_WEIGHTS[t];
  const out = {} as Record<TableName, number>;
  for (const t of TABLE_NAMES) {
    out[t] = Math.max(MIN_TABLE_MEMTABLE_BYTES, Math.floor((total * MEMTABLE_WEIGHTS[t]) / weights));
  }
  return out;
}

/**
 * Iteration chunking. `querySync` materializes a whole chunk, so chunks are bounded by rows and by
 * bytes; the first chunk is small because many scans stop after a few rows (first/last key).
 * PERF: full scan of 100k entries (32 B keys, 100 B values): 1024-row chunks 2.3 µs/entry, 256-row
 * chunks 4.3, one unbounded querySync 2.7 (it builds one 200k-element array); measured alongside
 * bench/storage.bench.ts on the 2-core dev VM. 4 MiB bounds a chunk of 24 KiB code values.
 * Scans use the binding's default fillCache:false, so a long scan does not evict the point-read
 * working set from the block cache.
 */
const FIRST_CHUNK_ROWS = 64;
const MAX_CHUNK_ROWS = 1024;
const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Cursor read-ahead. A seek reads CURSOR_SEEK_ROWS rows: the trie walker's leaf ranges mostly hold one
 * row, and the second one ends the range (or starts the next one) without another native call. A
 * `next` past the rows read fetches as many again, then twice as many each time up to
 * CURSOR_MAX_ROWS (a long walk soon reads big chunks; a short one wastes little).
 * PERF (2-core dev VM, 100k accounts): native seek ~2 µs, each row returned ~1.5–3 µs (two Buffer
 * copies), a new native iterator (one `iterate` or `querySync`) ~12–15 µs. Cursors fill the block
 * cache: they serve repeated short reads of the same blocks (state roots), unlike long scans.
 */
const CURSOR_SEEK_ROWS = 2;
/** First read of a `scan` cursor; later reads double up to CURSOR_MAX_ROWS. */
const SCAN_FIRST_ROWS = 64;
const CURSOR_MAX_ROWS = 1024;

/**
 * Zero-length stand-in with a non-null data pointer. The prebuilt binding keeps RocksDB's asserts,
 * and a zero-length Uint8Array has a null pointer: comparing such a key aborts the whole process
 * (`Slice::compare … data_ != nullptr`). Every key, value and bound of length 0 is replaced by this.
 */
const EMPTY = new Uint8Array(new ArrayBuffer(8), 0, 0);
const ZERO_BYTE = new Uint8Array(1);
const SYNC = Object.freeze({ sync: true });
const NO_SYNC = Object.freeze({ sync: false });
const ENCODINGS = Object.freeze({ keyEncoding: "buffer", valueEncoding: "buffer" } as const);
/** The meta row `syncLog()` writes (its value is one byte that never changes; nothing reads it). */
export const LOG_SYNC_KEY = new TextEncoder().encode("logSync");
const LOG_SYNC_VALUE = new Uint8Array([1]);

function nonNull(b: Uint8Array): Uint8Array {
  return b.length === 0 ? EMPTY : b;
}

/** Plain Uint8Array view of a binding Buffer (each is a fresh copy, so the view owns its bytes). */
function bytes(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

const NO_ROWS: Buffer[] = [];

/** First even index i in rows[from..) (keys at even indices, ascending) with rows[i] ≥ target; rows.length if none. */
function lowerBoundRows(rows: readonly Buffer[], from: number, target: Uint8Array): number {
  let lo = from >>> 1;
  let hi = rows.length >>> 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareBytes(rows[2 * mid]!, target) < 0) lo = mid + 1;
    else hi = mid;
  }
  return 2 * lo;
}

/**
 * KvCursor on one native iterator (binding.cc Iterator through the sync methods of iterator.js).
 * Rows come in chunks; the rows held always are every key of the table ≥ `base` (> base when
 * `baseExclusive`) up to the last one held, so a seek to a target in that stretch is a binary search
 * in JS. The native iterator's view is fixed at its creation (RocksDB implicit snapshot).
 */
class RocksCursor implements KvCursor {
  valid = false;
  private it: RocksIterator;
  private rows: Buffer[] = NO_ROWS;
  private pos = 0;
  /** The native iterator may hold rows after `rows`. */
  private more = false;
  /** Rows of the last fetch; `next` past them fetches as many again once, then twice as many each time. */
  private chunk = CURSOR_SEEK_ROWS;
  private refills = 0;
  private base: Uint8Array | null = null;
  private baseExclusive = false;
  private k: Uint8Array | null = null;
  private v: Uint8Array | null = null;
  private closed = false;
  /** The native iterator has not moved since it was opened (it sits at its first key). */
  private fresh = true;

  /** Rows read right after a native seek. */
  private readonly seekRows: number;

  constructor(
    private readonly db: RocksLevelDb,
    private readonly opts: RocksIteratorOptions,
    private readonly table: TableName,
    scan: boolean,
    private readonly storeOpen: () => boolean,
    private readonly release: (c: RocksCursor) => void,
  ) {
    this.seekRows = scan ? SCAN_FIRST_ROWS : CURSOR_SEEK_ROWS;
    this.it = this.open();
  }

  private open(): RocksIterator {
    try {
      return this.db.iterator(this.opts);
    } catch (e) {
      throw new StorageError("READ_FAILED", `RocksKv: cursor on ${this.table} failed: ${messageOf(e)}`, { cause: e });
    }
  }

  private check(): void {
    if (this.closed) throw new StorageError("CLOSED", "RocksKv: cursor is closed");
    if (!this.storeOpen()) throw new StorageError("CLOSED", "RocksKv: store is closed");
  }

  get key(): Uint8Array {
    if (!this.valid) return EMPTY;
    if (this.k === null) this.k = bytes(this.rows[this.pos]!);
    return this.k;
  }

  get value(): Uint8Array {
    if (!this.valid) return EMPTY;
    if (this.v === null) this.v = bytes(this.rows[this.pos + 1]!);
    return this.v;
  }

  private at(i: number): boolean {
    this.pos = i;
    this.k = null;
    this.v = null;
    this.valid = true;
    return true;
  }

  private end(): boolean {
    this.valid = false;
    this.k = null;
    this.v = null;
    return false;
  }

  private fetch(rows: number): void {
    this.chunk = rows;
    let res: { rows: Buffer[]; finished: boolean };
    try {
      res = this.it._nextvSync(rows);
    } catch (e) {
      throw new StorageError("READ_FAILED", `RocksKv: cursor read of ${this.table} failed: ${messageOf(e)}`, {
        cause: e,
      });
    }
    this.rows = res.rows;
    // `finished` is false when the count stopped the read, even if no row follows.
    this.more = !res.finished;
  }

  seek(key: Uint8Array, readAhead?: number): boolean {
    this.check();
    const { gte, lt } = this.opts;
    let target = key;
    if (gte !== undefined && compareBytes(target, gte) < 0) target = gte;
    if (lt !== undefined && compareBytes(target, lt) >= 0) return this.end();
    const rows = this.rows;
    const base = this.base;
    if (rows.length > 0 && base !== null) {
      const c = compareBytes(target, base);
      if (c > 0 || (c === 0 && !this.baseExclusive)) {
        if (compareBytes(rows[rows.length - 2]!, target) >= 0) {
          const from = this.valid && compareBytes(rows[this.pos]!, target) <= 0 ? this.pos : 0;
          return this.at(lowerBoundRows(rows, from, target));
        }
        // Every key ≥ base is held and all are below target.
        if (!this.more) return this.end();
      }
    }
    try {
      if (target.length === 0) {
        // The binding refuses an empty seek target; a new native iterator starts at the first key.
        if (!this.fresh) {
          this.it._closeSync();
          this.db.detachResource(this.it);
          this.it = this.open();
        }
      } else {
        this.it._seekSync(target);
      }
    } catch (e) {
      if (e instanceof StorageError) throw e;
      throw new StorageError("READ_FAILED", `RocksKv: cursor seek in ${this.table} failed: ${messageOf(e)}`, {
        cause: e,
      });
    }
    this.base = target.slice();
    this.baseExclusive = false;
    this.fresh = false;
    this.refills = 0;
    this.fetch(readAhead === undefined ? this.seekRows : Math.min(Math.max(readAhead, 1), CURSOR_MAX_ROWS));
    return this.rows.length === 0 ? this.end() : this.at(0);
  }

  next(): boolean {
    this.check();
    if (!this.valid) return false;
    const p = this.pos + 2;
    const rows = this.rows;
    if (p < rows.length) return this.at(p);
    if (!this.more) return this.end();
    const last = rows[rows.length - 2]!;
    const grow = this.refills++ > 0 || this.chunk > CURSOR_SEEK_ROWS;
    this.fetch(grow ? Math.min(2 * this.chunk, CURSOR_MAX_ROWS) : this.chunk);
    this.base = last;
    this.baseExclusive = true;
    return this.rows.length === 0 ? this.end() : this.at(0);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.end();
    this.rows = NO_ROWS;
    this.base = null;
    try {
      this.it._closeSync();
    } finally {
      this.db.detachResource(this.it);
      this.release(this);
    }
  }
}

function checkSize(name: string, n: number | undefined, min: number, max: number): void {
  if (n === undefined) return;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new StorageError("BAD_OPTION", `RocksKv: ${name} must be an integer in [${min}, ${max}], got ${n}`);
  }
}

function columnOptions(opts: RocksKvOptions): Record<string, RocksColumnOptions> {
  const compression = opts.compression ?? true;
  const base = opts.cacheBytes ?? DEFAULT_CACHE_BYTES;
  checkSize("cacheBytes", base, 0, MAX_CACHE_BYTES);
  const memtables = memtableBudgets(opts.memtableBytes ?? DEFAULT_MEMTABLE_BYTES);
  // `default` is unused by Opal but RocksDB always has it and the binding requires it to be listed.
  const columns: Record<string, RocksColumnOptions> = {
    default: {
      cacheSize: 1024 * 1024,
      compression,
      compaction: "level",
      memtableMemoryBudget: DEFAULT_CF_MEMTABLE_BYTES,
    },
  };
  for (const t of TABLE_NAMES) {
    const cacheSize = opts.tableCacheBytes?.[t] ?? base;
    checkSize(`tableCacheBytes.${t}`, cacheSize, 0, MAX_CACHE_BYTES);
    // Every table is read by exact key far more than it is scanned; the hash index still seeks.
    columns[t] = {
      cacheSize,
      compression,
      optimize: "point-lookup",
      compaction: "level",
      memtableMemoryBudget: memtables[t],
    };
  }
  return columns;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class RocksKv implements KvStore {
  /** Per-table `{column}` objects, passed as-is to MultiGet, querySync and batch ops. */
  private readonly cols = new Map<string, RocksGetOptions>();
  /**
   * One reusable native WriteBatch and the DB to write it to, through the binding's napi functions
   * (null on a shared-handle view, which cannot write).
   */
  private readonly batch: {
    readonly native: RocksBatchNative;
    readonly b: RocksBatchHandle;
    readonly db: RocksDbContext;
  } | null;
  private closed = false;
  private shares = 0;
  /** The native batch of `syncLog()` and its DB, made at its first call (also on a view). */
  private syncBatch: { readonly b: RocksBatchHandle; readonly db: RocksDbContext } | null = null;
  /** Open cursors, closed by `close()` (a shared-handle view must not leave native iterators behind). */
  private readonly cursors = new Set<RocksCursor>();
  /** The log of trie rows written, for the workers' caches (writeLog.ts), once a worker shares the DB. */
  private log: WriteLog | null = null;
  /** The native batch of `writeRows` and its DB, made at its first call (also on a view). */
  private rowsBatch: { readonly b: RocksBatchHandle; readonly db: RocksDbContext } | null = null;
  /**
   * The owner's (its DB takes workers' writes, `writeRows`): nothing to learn, as the one log above
   * the DB keeps only the trie tables, which `writeRows` refuses. Undefined on a view.
   */
  readonly noteWritten: ((batch: WriteBatch) => void) | undefined;

  private constructor(
    private readonly db: RocksLevelDb,
    /** True for a worker's view over another thread's native DB (read-only, never closes it). */
    readonly shared: boolean,
  ) {
    for (const t of TABLE_NAMES) {
      const column = db.columns[t];
      if (column === undefined) throw new StorageError("OPEN_FAILED", `RocksKv: column family ${t} is not open`);
      this.cols.set(t, Object.freeze({ column }));
    }
    this.noteWritten = shared ? undefined : () => undefined;
    if (shared) this.batch = null;
    else {
      const native = rocksBatchNative();
      this.batch = { native, b: native.batch_init(), db: rocksDbContext(db) };
    }
  }

  /** Opens (creating if asked) the database at `path` with every table of TABLES as a column family. */
  static async open(path: string, opts: RocksKvOptions = {}): Promise<RocksKv> {
    const columns = columnOptions(opts);
    checkSize("parallelism", opts.parallelism, 1, 1024);
    const RocksLevel = rocksLevel();
    const db = new RocksLevel(path, ENCODINGS);
    try {
      await db.open({
        createIfMissing: opts.createIfMissing ?? true,
        // PERF: the binding ZSTD-compresses the write-ahead log unless told otherwise (RocksDB's own
        // default is off). A sync-bench block's ~40 KB in three writes cost 1.85 ms with it and
        // 1.15 ms without (alternating runs, issue 25); the log only lives until its memtables flush.
        walCompression: false,
        columns,
        ...(opts.parallelism === undefined ? {} : { parallelism: opts.parallelism }),
      });
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      const detail = cause === undefined ? messageOf(e) : `${messageOf(e)}: ${messageOf(cause)}`;
      throw new StorageError("OPEN_FAILED", `RocksKv: cannot open ${path}: ${detail}`, { cause: e });
    }
    try {
      return new RocksKv(db, false);
    } catch (e) {
      await db.close();
      throw e;
    }
  }

  /**
   * A read-only view, in a worker thread, of the native DB that `handle` (from `shareHandle()` on the
   * owning thread) points to. Reads see the owner's writes at once. `close()` on the view only
   * detaches it; the owner must stay open until every worker is gone.
   */
  static async fromHandle(handle: bigint): Promise<RocksKv> {
    if (typeof handle !== "bigint" || handle === 0n) {
      throw new StorageError("BAD_OPTION", "RocksKv.fromHandle: handle must be a non-zero bigint from shareHandle()");
    }
    const RocksLevel = rocksLevel();
    const db = new RocksLevel(handle, ENCODINGS);
    // On an already-open native DB, the binding's open only lists its column families.
    // createIfMissing:false skips the binding's mkdir of the location. The handle must come from an
    // owner that is open and has counted the share: a stale handle is a dangling native pointer.
    try {
      await db.open({ createIfMissing: false });
    } catch (e) {
      throw new StorageError("OPEN_FAILED", `RocksKv.fromHandle: ${messageOf(e)}`, { cause: e });
    }
    // Never close `db` here, not even on failure: it is the owner's native DB.
    return new RocksKv(db, true);
  }

  /** Directory of the database. */
  get location(): string {
    return this.db.location;
  }

  /**
   * RocksDB's latest sequence number; it grows with every write. A reader without snapshots (eth_call
   * in a worker) compares it before and after to detect a concurrent commit.
   */
  get sequence(): number {
    this.checkOpen();
    return this.db.sequence;
  }

  /**
   * The native handle for `RocksKv.fromHandle` in a worker (pass it in workerData). Each call counts a
   * share; `close()` refuses while shares remain, because closing under a reading worker segfaults.
   */
  shareHandle(): bigint {
    this.checkOpen();
    if (this.shared) throw new StorageError("READ_ONLY", "RocksKv: only the owning instance can share its handle");
    const h = this.db.handle;
    this.shares++;
    return h;
  }

  /**
   * The log every later `write` appends its trie rows to (made at the first call), for the read
   * caches of the workers that share this DB (storage/writeLog.ts, engine.ts `openWorkerStore`).
   */
  writeLog(): WriteLogRef {
    if (this.shared) throw new StorageError("READ_ONLY", "RocksKv: only the owning instance writes a log");
    this.log ??= new WriteLog();
    return this.log.ref;
  }

  /** Returns one share taken by `shareHandle()`; call it after the workers using it have exited. */
  releaseHandle(): void {
    if (this.shares > 0) this.shares--;
  }

  /** Shares not yet released. */
  get sharedHandles(): number {
    return this.shares;
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError("CLOSED", "RocksKv: store is closed");
  }

  private col(table: TableName): RocksGetOptions {
    if (this.closed) throw new StorageError("CLOSED", "RocksKv: store is closed");
    const c = this.cols.get(table);
    if (c === undefined) throw new StorageError("UNKNOWN_TABLE", `RocksKv: unknown table ${table}`);
    return c;
  }

  private multiGet(table: TableName, keys: readonly Uint8Array[]): (Buffer | undefined | null)[] {
    const opts = this.col(table);
    try {
      return this.db._getManySync(keys, opts);
    } catch (e) {
      throw new StorageError("READ_FAILED", `RocksKv: read of ${table} failed: ${messageOf(e)}`, { cause: e });
    }
  }

  get(table: TableName, key: Uint8Array): Uint8Array | undefined {
    const v = this.multiGet(table, [nonNull(key)])[0];
    if (v === undefined) return undefined;
    if (v === null) throw new StorageError("READ_FAILED", `RocksKv: read of ${table} aborted`);
    return bytes(v);
  }

  getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    const n = keys.length;
    if (n === 0) {
      this.col(table);
      return [];
    }
    let ks = keys;
    for (let i = 0; i < n; i++) {
      if (keys[i]!.length === 0) {
        ks = keys.map(nonNull);
        break;
      }
    }
    const rows = this.multiGet(table, ks);
    const out: (Uint8Array | undefined)[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const v = rows[i];
      if (v === null) throw new StorageError("READ_FAILED", `RocksKv: read of ${table} aborted`);
      out[i] = v === undefined ? undefined : bytes(v);
    }
    return out;
  }

  /**
   * Entries in key order (or reverse) within `range`, read lazily in chunks. Each chunk is a
   * consistent view; writes made between chunks (by this thread while iterating, or by the owner
   * under a worker) may or may not be seen by later chunks. Stopping early (`break`) costs nothing.
   */
  *iterate(table: TableName, range: KvRange = {}): Iterable<[Uint8Array, Uint8Array]> {
    const column = this.col(table).column;
    let remaining = range.limit ?? Number.POSITIVE_INFINITY;
    if (remaining <= 0) return;
    let gte = range.gte === undefined ? undefined : nonNull(range.gte);
    let lt = range.lt === undefined ? undefined : nonNull(range.lt);
    if (gte !== undefined && lt !== undefined && compareBytes(gte, lt) >= 0) return;
    const reverse = range.reverse === true;
    let chunk = FIRST_CHUNK_ROWS;
    for (;;) {
      const want = Math.min(remaining, chunk);
      const q: RocksQueryOptions = {
        column,
        keyEncoding: "buffer",
        valueEncoding: "buffer",
        reverse,
        limit: want,
        highWaterMarkBytes: CHUNK_BYTES,
      };
      if (gte !== undefined) q.gte = gte;
      if (lt !== undefined) q.lt = lt;
      // The consumer may have closed the store while suspended at a yield.
      this.checkOpen();
      let res: { rows: Buffer[]; finished: boolean };
      try {
        res = this.db.querySync(q);
      } catch (e) {
        throw new StorageError("READ_FAILED", `RocksKv: scan of ${table} failed: ${messageOf(e)}`, { cause: e });
      }
      const rows = res.rows;
      const got = rows.length >>> 1;
      for (let i = 0; i < rows.length; i += 2) yield [bytes(rows[i]!), bytes(rows[i + 1]!)];
      remaining -= got;
      // `finished` is also true when `limit` stopped the native iterator, so a full chunk may continue.
      if (remaining <= 0 || got === 0 || (res.finished && got < want)) return;
      const last = rows[rows.length - 2]!;
      if (reverse) lt = last;
      else gte = concatBytes(last, ZERO_BYTE); // the smallest key after `last`
      chunk = Math.min(chunk * 4, MAX_CHUNK_ROWS);
    }
  }

  /**
   * A forward cursor on one native iterator (see KvCursor): seeks cost ~2 µs instead of a new
   * iterator per range, and it fills the block cache unless `scan`. Its view is the table at its
   * creation.
   */
  cursor(table: TableName, opts: KvCursorOptions = {}): KvCursor {
    const column = this.col(table).column;
    const o: RocksIteratorOptions = {
      column,
      keyEncoding: "buffer",
      valueEncoding: "buffer",
      // Short reads come back to the same blocks (state roots); a scan must not evict them.
      fillCache: opts.scan !== true,
      highWaterMarkBytes: CHUNK_BYTES,
    };
    // Own copies: the caller may reuse its bound arrays. An empty gte bounds nothing.
    if (opts.gte !== undefined && opts.gte.length > 0) o.gte = opts.gte.slice();
    if (opts.lt !== undefined) o.lt = opts.lt.length === 0 ? EMPTY : opts.lt.slice();
    const c = new RocksCursor(
      this.db,
      o,
      table,
      opts.scan === true,
      () => !this.closed,
      (x) => this.cursors.delete(x),
    );
    this.cursors.add(c);
    return c;
  }

  write(batch: WriteBatch, opts?: { sync?: boolean }): void {
    this.checkOpen();
    const nb = this.batch;
    if (nb === null) throw new StorageError("READ_ONLY", "RocksKv: a shared-handle view cannot write");
    const ops = batch.ops;
    if (ops.length === 0) return;
    const { native, b } = nb;
    try {
      // Ops go into the native batch first; an unknown table throws before anything is written.
      // PERF: straight to the napi functions (rocksBinding.ts RocksBatchNative), the column looked
      // up once per run of ops on the same table: a block's rows come grouped by table.
      let table: TableName | null = null;
      let c: RocksGetOptions | null = null;
      for (let i = 0; i < ops.length; i++) {
        const op = ops[i]!;
        if (op.table !== table) {
          c = this.col(op.table);
          table = op.table;
        }
        if (op.type === "put") native.batch_put(b, nonNull(op.key), nonNull(op.value), c!);
        else native.batch_del(b, nonNull(op.key), c!);
      }
      native.batch_write(nb.db, b, opts?.sync === true ? SYNC : NO_SYNC);
      // In the log before this returns, so before any worker task this thread posts next.
      this.log?.append(batch);
    } catch (e) {
      if (e instanceof StorageError) throw e;
      throw new StorageError("WRITE_FAILED", `RocksKv: write failed: ${messageOf(e)}`, { cause: e });
    } finally {
      native.batch_clear(b);
    }
  }

  /**
   * Puts packed rows in one atomic write from the calling thread: on the owner, or on a worker's view
   * the one bulk write a view may make, for rows the owner handed over (storage/sharedRows.ts; the
   * owner notes them afterwards, KvStore.noteWritten). Refuses the tables the workers' trie caches
   * follow: only the owner's writes reach their log.
   */
  writeRows(table: TableName, rows: PackedRows): void {
    this.checkOpen();
    if (TRIE_LOG_TABLES.includes(table)) throw new StorageError("BAD_OPTION", `RocksKv.writeRows: ${table} is logged`);
    const c = this.col(table);
    const native = rocksBatchNative();
    this.rowsBatch ??= { b: native.batch_init(), db: rocksDbContext(this.db) };
    const nb = this.rowsBatch;
    const { keys, keyOffsets, values, valueOffsets } = rows;
    const n = keyOffsets.length - 1;
    try {
      for (let i = 0; i < n; i++) {
        native.batch_put(
          nb.b,
          keys.subarray(keyOffsets[i]!, keyOffsets[i + 1]!),
          values.subarray(valueOffsets[i]!, valueOffsets[i + 1]!),
          c,
        );
      }
      native.batch_write(nb.db, nb.b, NO_SYNC);
    } catch (e) {
      throw new StorageError("WRITE_FAILED", `RocksKv: rows write failed: ${messageOf(e)}`, { cause: e });
    } finally {
      native.batch_clear(nb.b);
    }
  }

  /**
   * Makes every batch written so far to this native DB, by any thread, survive power loss: one synced
   * write of the `LOG_SYNC_KEY` meta row. RocksDB fsyncs its write-ahead log for it, and the log holds
   * every earlier batch in order (a `write` of the owner returns once its batch is in the log). The
   * one write a shared-handle view may make: a worker calls it so that the owner's thread does not
   * wait for the disk (Blockchain.logSync). It blocks its own thread for the fsync.
   */
  syncLog(): void {
    this.checkOpen();
    const c = this.col("meta");
    const native = rocksBatchNative();
    this.syncBatch ??= { b: native.batch_init(), db: rocksDbContext(this.db) };
    const nb = this.syncBatch;
    try {
      native.batch_put(nb.b, LOG_SYNC_KEY, LOG_SYNC_VALUE, c);
      native.batch_write(nb.db, nb.b, SYNC);
    } catch (e) {
      throw new StorageError("WRITE_FAILED", `RocksKv: log sync failed: ${messageOf(e)}`, { cause: e });
    } finally {
      native.batch_clear(nb.b);
    }
  }

  /**
   * Closes the native DB (flushing the WAL). On a shared-handle view it only detaches the view: a
   * worker must never close the owner's DB (that segfaults the process). The owner refuses to
   * close while handles are shared (HANDLE_SHARED); release them after the workers are gone.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.shared) {
      this.closeCursors();
      this.closed = true;
      return;
    }
    if (this.shares > 0) {
      throw new StorageError(
        "HANDLE_SHARED",
        `RocksKv: ${this.shares} shared handle(s) not released; destroy the worker pool, releaseHandle(), then close()`,
      );
    }
    this.closeCursors();
    this.closed = true;
    await this.db.close();
  }

  private closeCursors(): void {
    for (const c of [...this.cursors]) c.close();
  }
}
