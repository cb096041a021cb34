/**
 * The second storage engine (`--db.engine=lmdb`): LMDB through the `lmdb` package (lmdb-js 3.5.6,
 * pinned), behind the same `KvStore` as RocksDB (storage-bindings.md §7 names it the fallback:
 * documented synchronous `get`, B+tree reads at 240–260k/s here, native readers in every thread).
 *
 * - One LMDB environment in the directory, one named database per table of `tables.ts`.
 * - Keys are stored behind one 0x00 byte: LMDB refuses zero-length keys, ours include the empty key
 *   (an ordinary entry here as on every engine), and a constant prefix keeps the byte order.
 * - `write` is one `transactionSync` across the tables: all or nothing. lmdb-js commits with
 *   overlapping sync (the next commit waits for the previous one's flush), so a process crash loses
 *   nothing committed; `sync: true` is accepted and means the same.
 * - `iterate` and `cursor` read through `getRange`, whose read transaction is a snapshot: a cursor
 *   sees one consistent view, which is more than the interface asks. Each range read in progress
 *   holds a native cursor in a read transaction; `close` ends them all before it closes the
 *   environment, which frees every transaction (a cursor closed after that reads freed memory).
 * - `sequence` is the last committed transaction id. Worker threads get no view of an LMDB store
 *   yet (storage/engine.ts says why).
 */
import { createRequire } from "node:module";
import { StorageError } from "./errors.js";
import type { KvCursor, KvCursorOptions, KvRange, KvStore, WriteBatch } from "./kv.js";
import { TABLE_NAMES, type TableName } from "./tables.js";

interface LmdbRange {
  start?: Uint8Array;
  end?: Uint8Array;
  reverse?: boolean;
  limit?: number;
  exclusiveStart?: boolean;
  inclusiveEnd?: boolean;
}

interface LmdbDb {
  getBinary(key: Uint8Array): Uint8Array | undefined;
  put(key: Uint8Array, value: Uint8Array): unknown;
  remove(key: Uint8Array): unknown;
  getRange(range: LmdbRange): Iterable<LmdbEntry>;
}

interface LmdbEntry {
  key: Uint8Array;
  value: Uint8Array;
}

/** A range read of lmdb-js: a native cursor in a read transaction until it is done or `return`ed. */
type RangeRead = Iterator<LmdbEntry>;

interface LmdbRoot {
  openDB(opts: { name: string; encoding: "binary"; keyEncoding: "binary" }): LmdbDb;
  transactionSync<T>(fn: () => T): T;
  getStats(): { lastTxnId: number };
  close(): Promise<void>;
}

type LmdbOpen = (opts: Record<string, unknown>) => LmdbRoot;

/** The one place the binding is loaded (CommonJS entry; it also works from worker threads). */
function lmdbOpen(): LmdbOpen {
  return (createRequire(import.meta.url)("lmdb") as { open: LmdbOpen }).open;
}

export interface LmdbKvOptions {
  /** The largest size the map may grow to, bytes (lmdb-js grows it as needed; default 1 TiB). */
  readonly mapSize?: number;
}

const PREFIX = 0x00;
/** LMDB's default maximum key size is 511 bytes; one goes to the prefix. */
const MAX_KEY = 510;

function stored(key: Uint8Array): Uint8Array {
  if (key.length > MAX_KEY) throw new StorageError("WRITE_FAILED", `LMDB: key of ${key.length} bytes (max ${MAX_KEY})`);
  const k = new Uint8Array(key.length + 1);
  k[0] = PREFIX;
  k.set(key, 1);
  return k;
}

/** Our key of a stored one, and a value, as plain Uint8Arrays the caller owns. */
function own(b: Uint8Array, from = 0): Uint8Array {
  return new Uint8Array(b.subarray(from));
}

export class LmdbKv implements KvStore {
  private readonly dbs = new Map<TableName, LmdbDb>();
  private closed = false;
  /** Range reads in progress (scans of `iterate`, cursors), ended by `close()` while the env is open. */
  private readonly reads = new Set<RangeRead>();

  private constructor(private readonly root: LmdbRoot) {
    for (const t of TABLE_NAMES) this.dbs.set(t, root.openDB({ name: t, encoding: "binary", keyEncoding: "binary" }));
  }

  static async open(path: string, opts: LmdbKvOptions = {}): Promise<LmdbKv> {
    let root: LmdbRoot;
    try {
      root = lmdbOpen()({
        path,
        maxDbs: TABLE_NAMES.length + 4,
        encoding: "binary",
        keyEncoding: "binary",
        compression: false,
        mapSize: opts.mapSize ?? 2 ** 40,
      });
    } catch (e) {
      throw new StorageError("OPEN_FAILED", `LMDB: cannot open ${path}: ${(e as Error).message}`, { cause: e });
    }
    return new LmdbKv(root);
  }

  private db(table: TableName): LmdbDb {
    if (this.closed) throw new StorageError("CLOSED", "LMDB store is closed");
    const d = this.dbs.get(table);
    if (d === undefined) throw new StorageError("UNKNOWN_TABLE", `unknown table ${String(table)}`);
    return d;
  }

  /** The last committed transaction: it moves with every write (callOffload's consistency check). */
  get sequence(): number {
    if (this.closed) throw new StorageError("CLOSED", "LMDB store is closed");
    return this.root.getStats().lastTxnId;
  }

  get(table: TableName, key: Uint8Array): Uint8Array | undefined {
    const v = this.db(table).getBinary(stored(key));
    return v === undefined ? undefined : own(v);
  }

  getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    const d = this.db(table);
    return keys.map((k) => {
      const v = d.getBinary(stored(k));
      return v === undefined ? undefined : own(v);
    });
  }

  *iterate(table: TableName, range: KvRange = {}): Iterable<[Uint8Array, Uint8Array]> {
    const d = this.db(table);
    if (range.limit === 0) return;
    const lo = range.gte === undefined ? new Uint8Array([PREFIX]) : stored(range.gte);
    const hi = range.lt === undefined ? new Uint8Array([PREFIX + 1]) : stored(range.lt);
    const r: LmdbRange = range.reverse
      ? { start: hi, end: lo, reverse: true, exclusiveStart: true, inclusiveEnd: true }
      : { start: lo, end: hi };
    if (range.limit !== undefined) r.limit = range.limit;
    const it = this.startRead(d, r);
    try {
      for (;;) {
        // The consumer may have closed the store while suspended at a yield: the read is gone.
        if (this.closed) throw new StorageError("CLOSED", "LMDB store is closed");
        const e = it.next();
        if (e.done === true) return;
        yield [own(e.value.key, 1), own(e.value.value)];
      }
    } finally {
      this.endRead(it);
    }
  }

  cursor(table: TableName, opts: KvCursorOptions = {}): KvCursor {
    const d = this.db(table);
    return new LmdbCursor(
      opts,
      (r) => this.startRead(d, r),
      (it) => this.endRead(it),
      () => this.closed,
    );
  }

  private startRead(d: LmdbDb, r: LmdbRange): RangeRead {
    const it = d.getRange(r)[Symbol.iterator]();
    this.reads.add(it);
    return it;
  }

  /** Ends a range read (closes its native cursor); a no-op once `close()` has ended it. */
  private endRead(it: RangeRead): void {
    if (this.reads.delete(it)) it.return?.();
  }

  write(batch: WriteBatch, _opts?: { sync?: boolean }): void {
    if (batch.ops.length === 0) return;
    // Resolve every table first: an unknown one fails the batch before any op lands.
    const ops = batch.ops.map((op) => ({ op, d: this.db(op.table), k: stored(op.key) }));
    try {
      this.root.transactionSync(() => {
        for (const { op, d, k } of ops) {
          if (op.type === "put") d.put(k, op.value);
          else d.remove(k);
        }
      });
    } catch (e) {
      throw new StorageError("WRITE_FAILED", `LMDB: ${(e as Error).message}`, { cause: e });
    }
  }

  /**
   * Ends every range read still open, then closes the environment. The order matters: closing the
   * env aborts and frees its read transactions, and lmdb-js's `mdb_cursor_close` reads the cursor's
   * transaction, so a cursor closed afterwards is a use-after-free (a SIGSEGV when the freed memory
   * has been reused).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const reads = [...this.reads];
    this.reads.clear();
    try {
      for (const it of reads) it.return?.();
    } finally {
      await this.root.close();
    }
  }
}

/** A forward cursor: each seek opens a range read from the target, `next` walks it. */
class LmdbCursor implements KvCursor {
  private it: RangeRead | null = null;
  private k: Uint8Array = new Uint8Array(0);
  private v: Uint8Array = new Uint8Array(0);
  private ok = false;
  private done = false;
  private readonly lo: Uint8Array;
  private readonly hi: Uint8Array;

  constructor(
    opts: KvCursorOptions,
    private readonly startRead: (r: LmdbRange) => RangeRead,
    private readonly endRead: (it: RangeRead) => void,
    private readonly storeClosed: () => boolean,
  ) {
    this.lo = opts.gte === undefined ? new Uint8Array([PREFIX]) : stored(opts.gte);
    this.hi = opts.lt === undefined ? new Uint8Array([PREFIX + 1]) : stored(opts.lt);
  }

  private check(): void {
    if (this.done || this.storeClosed()) throw new StorageError("CLOSED", "cursor is closed");
  }

  seek(key: Uint8Array): boolean {
    this.check();
    const s = stored(key);
    const start = Buffer.compare(s, this.lo) < 0 ? this.lo : s;
    this.release();
    this.it = this.startRead({ start, end: this.hi });
    return this.advance();
  }

  next(): boolean {
    this.check();
    if (this.it === null || !this.ok) return false;
    return this.advance();
  }

  private advance(): boolean {
    const r = this.it!.next();
    if (r.done === true) {
      this.ok = false;
      return false;
    }
    this.k = own(r.value.key, 1);
    this.v = own(r.value.value);
    this.ok = true;
    return true;
  }

  get valid(): boolean {
    return this.ok;
  }

  get key(): Uint8Array {
    return this.k;
  }

  get value(): Uint8Array {
    return this.v;
  }

  /**
   * Ends the range read in progress. After the store closed, its `close()` has ended it already, and
   * the read must not be touched again: its native cursor belongs to a freed transaction.
   */
  private release(): void {
    const it = this.it;
    this.it = null;
    if (it !== null) this.endRead(it);
  }

  close(): void {
    this.done = true;
    this.ok = false;
    this.release();
  }
}
