/**
 * A read cache in front of any KvStore for the point reads execution makes (accounts, storage
 * slots, code): hits and misses of `get` are remembered per table, and every `write` through this
 * store updates the cached entries it touches, so the cache can never serve a stale row — block
 * commits, rejected-block rewinds and reorg undo batches all pass through `write`. Range reads
 * (`iterate`, `cursor`) go straight to the store. Entries are bounded per table; the oldest
 * inserted are dropped first (a Map keeps insertion order), which is enough for a working set that
 * turns over block by block.
 * Measured on RocksKv: a hit costs a Map lookup on a latin1 key (~0.2 µs) against ~7 µs for a get.
 */
import { bytesKey } from "../primitives/bytes.js";
import {
  getManyShared,
  getShared,
  type KvCursor,
  type KvCursorOptions,
  type KvRange,
  type KvStore,
  type WriteBatch,
} from "./kv.js";
import type { TableName } from "./tables.js";

export interface CachedKvOptions {
  /** Cached tables and the entry limit of each. */
  readonly tables: Partial<Record<TableName, number>>;
  /**
   * Cached tables whose written rows are cached too, not only the ones read before: rows that are
   * read right after they are written (a block's header, body, receipts and total difficulty).
   */
  readonly writeThrough?: readonly TableName[];
}

/** Execution's point-read tables with default limits (~100k accounts, ~400k slots, 20k code blobs). */
export const EXECUTION_CACHE: CachedKvOptions = Object.freeze({
  tables: Object.freeze({ hashedAccounts: 100_000, hashedStorage: 400_000, code: 20_000 }),
});

/**
 * The records of the last blocks written, kept as they are written (`writeThrough`): a block is
 * read back right after its import or build — its body by the forkchoice (tx lookups) and the tx
 * pool's new head, header and body by engine_getPayload and eth_getBlockByHash, its receipts by the
 * next newPayload's known-block check, its total difficulty by the next block's build.
 * PERF (issue 25, catch-up profile): ~8 RocksDB gets a block of rows written a moment before, each
 * ~50 µs with the store's blocks out of the CPU caches. Bounds in blocks: the reads come within a
 * block or two, and a full block's body or receipts reach a few MB, so only the last 4 of those
 * (≤ ~20 MB); headers and total difficulties are small (32).
 */
const RECENT_BLOCKS = Object.freeze({ headers: 32, difficulty: 32, bodies: 4, receipts: 4 });

/**
 * A node's chain store (opal-exec, and its `import`): execution's tables, and the stored trie
 * branches that every state-root update reads again on the paths of the changed keys, with the
 * undo of their rewrite (the upper levels of the account trie and of busy contracts' storage tries
 * are the same records block after block). Records are ≤ 518 bytes: ≤ 17 MB a table when full.
 * PERF: `npm run bench -- sync`, main thread: 56 account-trie and 8 storage-trie keys read from
 * RocksDB a block without these, 0.6 and 0.3 with them. And the few `meta` rows (heads, labels):
 * every forkchoice compares the safe and finalized labels with the stored ones (2 reads a block).
 */
export const CHAIN_CACHE: CachedKvOptions = Object.freeze({
  tables: Object.freeze({
    ...EXECUTION_CACHE.tables,
    accountTrie: 32_768,
    storageTrie: 32_768,
    meta: 64,
    ...RECENT_BLOCKS,
  }),
  writeThrough: Object.freeze(Object.keys(RECENT_BLOCKS) as TableName[]),
});

/**
 * A trieHash worker's cache of the stored trie branches its state roots read (storage/engine.ts
 * `openCachedWorkerStore`), the same bound as CHAIN_CACHE's: ≤ 17 MB a table when full.
 */
export const WORKER_TRIE_CACHE: CachedKvOptions = Object.freeze({
  tables: Object.freeze({ accountTrie: 32_768, storageTrie: 32_768 }),
});

/**
 * The cache's own copy of a row the store returned. The store's bytes are a view of a native
 * Buffer (off V8's heap, with a finalizer); a copy of a row of ≤ 64 bytes (a slot) is an on-heap
 * array, so neither the cache nor a caller keeps the native one alive, as before shared reads.
 */
function ownCopy(v: Uint8Array | undefined): Uint8Array | undefined {
  return v === undefined ? undefined : v.slice();
}

/** The cache's bytes as a reader gets them: a copy for `get`, the bytes themselves for `getShared`. */
function handOut(v: Uint8Array | undefined, copy: boolean): Uint8Array | undefined {
  return copy && v !== undefined ? v.slice() : v;
}

/** Point reads of a cached reader's tables: served by its cache (hits) and by the store (misses). */
export interface ReadCounts {
  readonly hits: number;
  readonly misses: number;
}

/** The counts of a reader without a cache. */
export const NO_READS: ReadCounts = Object.freeze({ hits: 0, misses: 0 });

export class CachedKv implements KvStore {
  private readonly caches = new Map<TableName, Map<string, Uint8Array | undefined>>();
  private readonly limits = new Map<TableName, number>();
  private readonly writeThrough: ReadonlySet<TableName>;
  hits = 0;
  misses = 0;
  /** Defined when the inner store's is (KvStore.noteWritten): its rows reach the caches as a write's. */
  readonly noteWritten: ((batch: WriteBatch) => void) | undefined;

  constructor(
    readonly inner: KvStore,
    opts: CachedKvOptions = EXECUTION_CACHE,
  ) {
    for (const [t, n] of Object.entries(opts.tables) as [TableName, number][]) {
      this.caches.set(t, new Map());
      this.limits.set(t, n);
    }
    this.writeThrough = new Set((opts.writeThrough ?? []).filter((t) => this.caches.has(t)));
    const below = inner.noteWritten;
    this.noteWritten =
      below === undefined
        ? undefined
        : (batch) => {
            below(batch);
            this.noteWrites(batch);
          };
  }

  get(table: TableName, key: Uint8Array): Uint8Array | undefined {
    const c = this.caches.get(table);
    return c === undefined ? this.inner.get(table, key) : this.read(table, c, key, true);
  }

  /** As `get`, a cached row's own bytes (KvReader.getShared: read-only, no copy). */
  getShared(table: TableName, key: Uint8Array): Uint8Array | undefined {
    const c = this.caches.get(table);
    return c === undefined ? getShared(this.inner, table, key) : this.read(table, c, key, false);
  }

  getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    const c = this.caches.get(table);
    return c === undefined ? this.inner.getMany(table, keys) : this.readMany(table, c, keys, true);
  }

  getManyShared(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    const c = this.caches.get(table);
    return c === undefined ? getManyShared(this.inner, table, keys) : this.readMany(table, c, keys, false);
  }

  /**
   * A row of a cached table: the cached bytes (a copy of them when `copy`); on a miss the store's
   * row, remembered as the cache's own copy (`ownCopy`) and handed out as a hit would be.
   */
  private read(
    table: TableName,
    c: Map<string, Uint8Array | undefined>,
    key: Uint8Array,
    copy: boolean,
  ): Uint8Array | undefined {
    const k = bytesKey(key);
    // One lookup for a cached row; `has` only for a miss or a cached absence.
    const hit = c.get(k);
    if (hit !== undefined) {
      this.hits++;
      return handOut(hit, copy);
    }
    if (c.has(k)) {
      this.hits++;
      return undefined;
    }
    this.misses++;
    const own = ownCopy(this.inner.get(table, key));
    this.remember(table, c, k, own);
    return handOut(own, copy);
  }

  private readMany(
    table: TableName,
    c: Map<string, Uint8Array | undefined>,
    keys: readonly Uint8Array[],
    copy: boolean,
  ): (Uint8Array | undefined)[] {
    const out: (Uint8Array | undefined)[] = new Array(keys.length);
    const missing: number[] = [];
    const missingKeys: string[] = [];
    for (let i = 0; i < keys.length; i++) {
      const k = bytesKey(keys[i]);
      // As `read`: one lookup for a cached row.
      const hit = c.get(k);
      if (hit !== undefined || c.has(k)) {
        out[i] = handOut(hit, copy);
        this.hits++;
      } else {
        missing.push(i);
        missingKeys.push(k);
      }
    }
    if (missing.length > 0) {
      this.misses += missing.length;
      const got = this.inner.getMany(
        table,
        missing.map((i) => keys[i]),
      );
      for (let j = 0; j < missing.length; j++) {
        const own = ownCopy(got[j]);
        this.remember(table, c, missingKeys[j]!, own);
        out[missing[j]] = handOut(own, copy);
      }
    }
    return out;
  }

  iterate(table: TableName, range?: KvRange): Iterable<[Uint8Array, Uint8Array]> {
    return this.inner.iterate(table, range);
  }

  cursor(table: TableName, opts?: KvCursorOptions): KvCursor {
    return this.inner.cursor(table, opts);
  }

  write(batch: WriteBatch, opts?: { sync?: boolean }): void {
    this.inner.write(batch, opts);
    this.noteWrites(batch);
  }

  /**
   * `noteWrite` for each op. PERF: a run of ops on one table whose cache is empty (and not
   * write-through) is skipped whole: a new contract's 10k rows, none of them read before.
   */
  private noteWrites(batch: WriteBatch): void {
    const ops = batch.ops;
    let i = 0;
    while (i < ops.length) {
      const table = ops[i]!.table;
      let end = i + 1;
      while (end < ops.length && ops[end]!.table === table) end++;
      const c = this.caches.get(table);
      if (c !== undefined && (c.size > 0 || this.writeThrough.has(table))) {
        for (let k = i; k < end; k++) {
          const op = ops[k]!;
          this.noteWrite(table, op.key, op.type === "put" ? op.value : undefined);
        }
      }
      i = end;
    }
  }

  /**
   * Updates the cached entry of a row written to the store (`value` undefined: deleted), by this
   * store's `write` or, for a worker's cache, by the owner's thread (storage/writeLog.ts replays).
   */
  readonly noteWrite = (table: TableName, key: Uint8Array, value: Uint8Array | undefined): void => {
    const c = this.caches.get(table);
    if (c === undefined) return;
    if (this.writeThrough.has(table)) {
      const k = bytesKey(key);
      if (value !== undefined) this.remember(table, c, k, value.slice());
      else c.delete(k);
      return;
    }
    // PERF: an empty cache has no key to update (a contract's 10k fresh rows, none read before).
    if (c.size === 0) return;
    const k = bytesKey(key);
    // Only keys already cached are updated: a write is not a read, and caching every written
    // row would evict the rows execution actually reads.
    if (c.has(k)) c.set(k, value === undefined ? undefined : value.slice());
  };

  /** Drops every cached entry. */
  clear(): void {
    for (const c of this.caches.values()) c.clear();
  }

  close(): Promise<void> {
    this.clear();
    return this.inner.close();
  }

  /** Keeps `v` (the cache's own bytes, never handed to a writer) under `k`, dropping the oldest eighth when full. */
  private remember(
    table: TableName,
    c: Map<string, Uint8Array | undefined>,
    k: string,
    v: Uint8Array | undefined,
  ): void {
    const limit = this.limits.get(table) as number;
    if (c.size >= limit) {
      // Drop the oldest eighth in one pass rather than one entry per insert.
      let drop = Math.max(1, limit >> 3);
      for (const key of c.keys()) {
        c.delete(key);
        if (--drop === 0) break;
      }
    }
    c.set(k, v);
  }
}
