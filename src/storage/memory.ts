/**
 * In-memory KvStore for unit tests and throwaway devnets. Keys are kept as latin-1 strings in a Map
 * per table (latin-1 strings order exactly like their bytes), with a sorted key index built on the
 * first iteration after a write and reused until the next write, so range scans cost a binary search
 * plus the rows read. Values are copied in and out (`new Uint8Array(v)`: `Buffer#slice` would return
 * a view), so a caller mutating its buffer cannot change stored data, as with a real engine.
 */
import { bytesKey } from "../primitives/bytes.js";
import { StorageError } from "./errors.js";
import type { KvCursor, KvCursorOptions, KvRange, KvStore, WriteBatch } from "./kv.js";
import { TABLE_NAMES, type TableName } from "./tables.js";

function keyBytes(k: string): Uint8Array {
  const out = new Uint8Array(k.length);
  for (let i = 0; i < k.length; i++) out[i] = k.charCodeAt(i);
  return out;
}

/** First index in sorted `keys` whose key is ≥ `k`. */
function lowerBound(keys: readonly string[], k: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const EMPTY = new Uint8Array(0);

/**
 * KvCursor over the sorted key index as it was at creation (a later write replaces the index, it
 * never mutates it): keys put afterwards are not seen, keys deleted afterwards are skipped, values
 * are read when the cursor lands on them.
 */
class MemoryCursor implements KvCursor {
  valid = false;
  key: Uint8Array = EMPTY;
  value: Uint8Array = EMPTY;
  private i = 0;
  private closed = false;

  constructor(
    private readonly m: Map<string, Uint8Array>,
    private readonly keys: readonly string[],
    private readonly from: number,
    private readonly to: number,
    private readonly checkStore: () => void,
  ) {}

  private check(): void {
    if (this.closed) throw new StorageError("CLOSED", "MemoryKv: cursor is closed");
    this.checkStore();
  }

  /** Lands on the first live entry at index ≥ i. */
  private settle(i: number): boolean {
    for (; i < this.to; i++) {
      const v = this.m.get(this.keys[i]!);
      if (v === undefined) continue; // deleted after the cursor was made
      this.i = i;
      this.key = keyBytes(this.keys[i]!);
      this.value = new Uint8Array(v);
      this.valid = true;
      return true;
    }
    this.i = this.to;
    this.valid = false;
    this.key = EMPTY;
    this.value = EMPTY;
    return false;
  }

  seek(key: Uint8Array): boolean {
    this.check();
    return this.settle(Math.max(this.from, lowerBound(this.keys, bytesKey(key))));
  }

  next(): boolean {
    this.check();
    return this.valid ? this.settle(this.i + 1) : false;
  }

  close(): void {
    this.closed = true;
    this.valid = false;
  }
}

export class MemoryKv implements KvStore {
  private readonly tables = new Map<TableName, Map<string, Uint8Array>>();
  /** Sorted keys per table; dropped by any write to that table. */
  private readonly sorted = new Map<TableName, string[]>();
  private closed = false;

  constructor() {
    for (const t of TABLE_NAMES) this.tables.set(t, new Map());
  }

  private table(t: TableName): Map<string, Uint8Array> {
    if (this.closed) throw new Error("MemoryKv: store is closed");
    const m = this.tables.get(t);
    if (m === undefined) throw new Error(`MemoryKv: unknown table ${t}`);
    return m;
  }

  private sortedKeys(t: TableName): string[] {
    let keys = this.sorted.get(t);
    if (keys === undefined) {
      keys = [...this.table(t).keys()].sort();
      this.sorted.set(t, keys);
    }
    return keys;
  }

  get(table: TableName, key: Uint8Array): Uint8Array | undefined {
    const v = this.table(table).get(bytesKey(key));
    return v === undefined ? undefined : new Uint8Array(v);
  }

  getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    return keys.map((k) => this.get(table, k));
  }

  /** The stored row itself (KvReader.getShared: read-only); `write` stores copies, never edits them. */
  getShared(table: TableName, key: Uint8Array): Uint8Array | undefined {
    return this.table(table).get(bytesKey(key));
  }

  getManyShared(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    const m = this.table(table);
    return keys.map((k) => m.get(bytesKey(k)));
  }

  *iterate(table: TableName, range: KvRange = {}): Iterable<[Uint8Array, Uint8Array]> {
    const m = this.table(table);
    const keys = this.sortedKeys(table);
    const from = range.gte === undefined ? 0 : lowerBound(keys, bytesKey(range.gte));
    const to = range.lt === undefined ? keys.length : lowerBound(keys, bytesKey(range.lt));
    const limit = range.limit ?? Number.POSITIVE_INFINITY;
    let n = 0;
    const step = range.reverse ? -1 : 1;
    for (let i = range.reverse ? to - 1 : from; range.reverse ? i >= from : i < to; i += step) {
      if (n >= limit) return;
      const v = m.get(keys[i]);
      if (v === undefined) continue; // deleted by a write made during this iteration
      n++;
      yield [keyBytes(keys[i]), new Uint8Array(v)];
    }
  }

  cursor(table: TableName, opts: KvCursorOptions = {}): KvCursor {
    const m = this.table(table);
    const keys = this.sortedKeys(table);
    const from = opts.gte === undefined ? 0 : lowerBound(keys, bytesKey(opts.gte));
    const to = opts.lt === undefined ? keys.length : Math.max(from, lowerBound(keys, bytesKey(opts.lt)));
    return new MemoryCursor(m, keys, from, to, () => {
      this.table(table);
    });
  }

  write(batch: WriteBatch): void {
    // Validate table names first so a bad op cannot leave the batch half applied.
    for (const op of batch.ops) this.table(op.table);
    for (const op of batch.ops) {
      const m = this.table(op.table);
      if (op.type === "put") m.set(bytesKey(op.key), new Uint8Array(op.value));
      else m.delete(bytesKey(op.key));
      this.sorted.delete(op.table);
    }
  }

  /** Number of entries in a table (tests and metrics). */
  count(table: TableName): number {
    return this.table(table).size;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
