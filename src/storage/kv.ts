/**
 * The storage interface every engine implements (RocksDB in production, memory in unit tests).
 * Reads are synchronous: the EVM and the trie run synchronously (code-models §10.1) and the chosen
 * RocksDB binding reads synchronously through MultiGet (storage-bindings.md §7). Writes go through
 * one atomic batch across tables.
 */
import { StorageError } from "./errors.js";
import type { TableName } from "./tables.js";

export interface KvRange {
  /** Inclusive lower bound. */
  gte?: Uint8Array;
  /** Exclusive upper bound. */
  lt?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

/** Bounds of a cursor (`KvReader.cursor`): it never shows a key outside [gte, lt). */
export interface KvCursorOptions {
  /** Inclusive lower bound: a seek below it lands on the first key ≥ gte. */
  gte?: Uint8Array;
  /** Exclusive upper bound. */
  lt?: Uint8Array;
  /**
   * The cursor will walk far (a full scan): read ahead in large chunks from the first seek, and
   * leave the engine's block cache to point reads (RocksDB fillCache false, as `iterate` does).
   */
  scan?: boolean;
}

/**
 * A forward cursor over one table, for many short ordered reads (the trie walker reads thousands of
 * small leaf ranges per state root). One `iterate` per range creates a native iterator each time
 * (~15 µs on RocksDB); a cursor keeps one, so a seek costs ~2 µs, and a seek to a key the cursor has
 * already read ahead costs no native call at all. Typical use:
 *   for (let ok = c.seek(from); ok && compareBytes(c.key, to) < 0; ok = c.next()) use(c.key, c.value);
 * A cursor reads one view taken at or after its creation: writes made while it is open may or may
 * not be seen. Close it when done (try/finally); once the store is closed its cursors throw.
 */
export interface KvCursor {
  /**
   * Moves to the first entry with key ≥ `key` (within the bounds); false when there is none.
   * `readAhead` hints how many rows the caller will read from there: a store that reads rows ahead
   * of `next` (RocksDB) fetches that many with the seek instead of its default; others ignore it.
   */
  seek(key: Uint8Array, readAhead?: number): boolean;
  /** Moves to the next entry; false at the end (the cursor is then invalid until the next seek). */
  next(): boolean;
  /** True when the cursor is on an entry. */
  readonly valid: boolean;
  /** Key of the current entry (caller-owned bytes); meaningful only while `valid`. */
  readonly key: Uint8Array;
  /** Value of the current entry (caller-owned bytes); meaningful only while `valid`. */
  readonly value: Uint8Array;
  /** Releases the cursor; idempotent. Any other call afterwards throws StorageError CLOSED. */
  close(): void;
}

/**
 * A KvCursor that opens the one it wraps at its first `seek` (a walk that may need no range read
 * does not pay for a native iterator); `close` closes it if it was opened.
 */
export class LazyCursor implements KvCursor {
  private c: KvCursor | null = null;
  private closed = false;

  constructor(private readonly open: () => KvCursor) {}

  seek(key: Uint8Array, readAhead?: number): boolean {
    if (this.c === null) {
      if (this.closed) throw new StorageError("CLOSED", "LazyCursor: closed");
      this.c = this.open();
    }
    return this.c.seek(key, readAhead);
  }

  next(): boolean {
    return this.c === null ? false : this.c.next();
  }

  get valid(): boolean {
    return this.c?.valid === true;
  }

  get key(): Uint8Array {
    return this.c === null ? new Uint8Array(0) : this.c.key;
  }

  get value(): Uint8Array {
    return this.c === null ? new Uint8Array(0) : this.c.value;
  }

  close(): void {
    this.closed = true;
    this.c?.close();
  }
}

export interface KvReader {
  /** Value of `key` in `table`, or undefined. Returned bytes belong to the caller. */
  get(table: TableName, key: Uint8Array): Uint8Array | undefined;
  /** Values of many keys in one call (one native MultiGet on RocksDB). */
  getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[];
  /**
   * As `get`, but the bytes may be the reader's own (a cache's copy of the row): read-only to the
   * caller, who must neither modify nor transfer them. Optional: a reader without it (a wrapper
   * that counts or logs reads) is read through `get`; call it through `getShared` below.
   * PERF: a row over 64 bytes (an account, a trie branch, code) lives off V8's heap, and copying
   * one costs ~1 µs here against ~0.1 µs for a 40-byte row: more than a cache hit's lookup.
   */
  getShared?(table: TableName, key: Uint8Array): Uint8Array | undefined;
  /** As `getMany`, with `getShared`'s read-only bytes; optional as it is. */
  getManyShared?(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[];
  /** Entries of `table` in key order within `range`. */
  iterate(table: TableName, range?: KvRange): Iterable<[Uint8Array, Uint8Array]>;
  /** A forward cursor over `table` (see KvCursor); unpositioned until the first `seek`. */
  cursor(table: TableName, opts?: KvCursorOptions): KvCursor;
}

/** `kv.getShared`, or `kv.get` for a reader without it: bytes to read, never modify or transfer. */
export function getShared(kv: KvReader, table: TableName, key: Uint8Array): Uint8Array | undefined {
  return kv.getShared === undefined ? kv.get(table, key) : kv.getShared(table, key);
}

/** `kv.getManyShared`, or `kv.getMany` for a reader without it (see `getShared`). */
export function getManyShared(kv: KvReader, table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
  return kv.getManyShared === undefined ? kv.getMany(table, keys) : kv.getManyShared(table, keys);
}

export type BatchOp =
  | {
      readonly type: "put";
      readonly table: TableName;
      readonly key: Uint8Array;
      readonly value: Uint8Array;
      /** The writer knows the key has no row before this batch (WriteBatch.insert). */
      readonly fresh?: boolean;
    }
  | { readonly type: "del"; readonly table: TableName; readonly key: Uint8Array };

/** Ordered puts and deletes, applied atomically by `KvStore.write`. */
export class WriteBatch {
  readonly ops: BatchOp[] = [];
  put(table: TableName, key: Uint8Array, value: Uint8Array): this {
    this.ops.push({ type: "put", table, key, value });
    return this;
  }
  /**
   * A put of a key the writer knows has no row yet (a contract's first slots): stores apply it as a
   * put; `inverseBatch` undoes it with a delete instead of reading the key back.
   */
  insert(table: TableName, key: Uint8Array, value: Uint8Array): this {
    this.ops.push({ type: "put", table, key, value, fresh: true });
    return this;
  }
  del(table: TableName, key: Uint8Array): this {
    this.ops.push({ type: "del", table, key });
    return this;
  }
  get size(): number {
    return this.ops.length;
  }
}

export interface KvStore extends KvReader {
  /** Applies every op of `batch` atomically; `sync` asks for an fsync before returning (checkpoints). */
  write(batch: WriteBatch, opts?: { sync?: boolean }): void;
  /**
   * Takes note of `batch`, which another thread wrote straight to this store's database
   * (storage/sharedRows.ts): the caches and logs above the database learn its rows as if `write` had
   * applied them. Only a store whose database other threads can write defines it, and a store that
   * wraps another defines it only when the inner one does.
   */
  readonly noteWritten?: ((batch: WriteBatch) => void) | undefined;
  close(): Promise<void>;
}
