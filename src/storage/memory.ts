/**
 * In-memory KvStore for unit tests and throwaway devnets. Keys are kept as latin-1 strings in a Map
 * per table; iteration sorts on demand (tests iterate rarely). Values are copied in and out (`new Uint8Array(v)`: `Buffer#slice` would return a view), so a
 * caller mutating its buffer cannot change stored data, as with a real engine.
 */
import { bytesKey, compareBytes } from "../primitives/bytes.js";
import type { KvRange, KvStore, WriteBatch } from "./kv.js";
import { TABLE_NAMES, type TableName } from "./tables.js";

function keyBytes(k: string): Uint8Array {
  const out = new Uint8Array(k.length);
  for (let i = 0; i < k.length; i++) out[i] = k.charCodeAt(i);
  return out;
}

export class MemoryKv implements KvStore {
  private readonly tables = new Map<TableName, Map<string, Uint8Array>>();
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

  get(table: TableName, key: Uint8Array): Uint8Array | undefined {
    const v = this.table(table).get(bytesKey(key));
    return v === undefined ? undefined : new Uint8Array(v);
  }

  getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    return keys.map((k) => this.get(table, k));
  }

  *iterate(table: TableName, range: KvRange = {}): Iterable<[Uint8Array, Uint8Array]> {
    const entries: [Uint8Array, Uint8Array][] = [];
    for (const [k, v] of this.table(table)) {
      const kb = keyBytes(k);
      if (range.gte !== undefined && compareBytes(kb, range.gte) < 0) continue;
      if (range.lt !== undefined && compareBytes(kb, range.lt) >= 0) continue;
      entries.push([kb, v]);
    }
    entries.sort((a, b) => compareBytes(a[0], b[0]));
    if (range.reverse) entries.reverse();
    const limit = range.limit ?? Number.POSITIVE_INFINITY;
    let n = 0;
    for (const [k, v] of entries) {
      if (n++ >= limit) return;
      yield [k, new Uint8Array(v)];
    }
  }

  write(batch: WriteBatch): void {
    // Validate table names first so a bad op cannot leave the batch half applied.
    for (const op of batch.ops) this.table(op.table);
    for (const op of batch.ops) {
      const m = this.table(op.table);
      if (op.type === "put") m.set(bytesKey(op.key), new Uint8Array(op.value));
      else m.delete(bytesKey(op.key));
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
