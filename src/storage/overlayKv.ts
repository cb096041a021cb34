/**
 * A read-only view of a store with some rows replaced: `overlay` maps table → (key → value, or null
 * for "absent"), and `hidden` maps table → key prefixes under which the store's own rows are not
 * seen (an undo record's range deletes; the overlay's entries under them still are). Point reads
 * consult the overlay first, then the prefixes; range reads merge the overlay into the store's rows
 * (materialised per range, so meant for the occasional historical proof, not scans).
 * chain/stateAt.ts builds these from undo records to read the state of a recent block.
 */
import { bytesKey, compareBytes } from "../primitives/bytes.js";
import { StorageError } from "./errors.js";
import { getShared, type KvCursor, type KvCursorOptions, type KvRange, type KvReader } from "./kv.js";
import type { TableName } from "./tables.js";

export type Overlay = Map<TableName, Map<string, { key: Uint8Array; value: Uint8Array | null }>>;
/** Per table, the key prefixes whose rows in the base store are hidden. */
export type HiddenPrefixes = Map<TableName, Uint8Array[]>;

/** Whether `key` starts with one of `prefixes`. */
export function underPrefix(prefixes: readonly Uint8Array[] | undefined, key: Uint8Array): boolean {
  if (prefixes === undefined) return false;
  for (const p of prefixes) {
    if (key.length < p.length) continue;
    let i = 0;
    while (i < p.length && key[i] === p[i]) i++;
    if (i === p.length) return true;
  }
  return false;
}

const EMPTY = new Uint8Array(0);

export class OverlayKv implements KvReader {
  constructor(
    readonly base: KvReader,
    readonly overlay: Overlay,
    readonly hidden: HiddenPrefixes = new Map(),
  ) {}

  get(table: TableName, key: Uint8Array): Uint8Array | undefined {
    const o = this.overlay.get(table)?.get(bytesKey(key));
    if (o !== undefined) return o.value === null ? undefined : o.value.slice();
    if (underPrefix(this.hidden.get(table), key)) return undefined;
    return this.base.get(table, key);
  }

  getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    return keys.map((k) => this.get(table, k));
  }

  getShared(table: TableName, key: Uint8Array): Uint8Array | undefined {
    const o = this.overlay.get(table)?.get(bytesKey(key));
    if (o !== undefined) return o.value === null ? undefined : o.value;
    if (underPrefix(this.hidden.get(table), key)) return undefined;
    return getShared(this.base, table, key);
  }

  getManyShared(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    return keys.map((k) => this.getShared(table, k));
  }

  private merged(table: TableName, gte?: Uint8Array, lt?: Uint8Array): [Uint8Array, Uint8Array][] {
    const rows = new Map<string, [Uint8Array, Uint8Array]>();
    const range: KvRange = {};
    if (gte !== undefined) range.gte = gte;
    if (lt !== undefined) range.lt = lt;
    const hidden = this.hidden.get(table);
    for (const [k, v] of this.base.iterate(table, range)) if (!underPrefix(hidden, k)) rows.set(bytesKey(k), [k, v]);
    const o = this.overlay.get(table);
    if (o !== undefined) {
      for (const [s, { key, value }] of o) {
        if (gte !== undefined && compareBytes(key, gte) < 0) continue;
        if (lt !== undefined && compareBytes(key, lt) >= 0) continue;
        if (value === null) rows.delete(s);
        else rows.set(s, [key, value]);
      }
    }
    return [...rows.values()].sort((a, b) => compareBytes(a[0], b[0]));
  }

  *iterate(table: TableName, range: KvRange = {}): Iterable<[Uint8Array, Uint8Array]> {
    const rows = this.merged(table, range.gte, range.lt);
    if (range.reverse) rows.reverse();
    const limit = range.limit ?? Number.POSITIVE_INFINITY;
    for (let i = 0; i < rows.length && i < limit; i++) yield [rows[i][0].slice(), rows[i][1].slice()];
  }

  cursor(table: TableName, opts: KvCursorOptions = {}): KvCursor {
    return new ArrayCursor(this.merged(table, opts.gte, opts.lt));
  }
}

class ArrayCursor implements KvCursor {
  valid = false;
  key: Uint8Array = EMPTY;
  value: Uint8Array = EMPTY;
  private i = 0;
  private closed = false;

  constructor(private readonly rows: readonly [Uint8Array, Uint8Array][]) {}

  private at(i: number): boolean {
    if (this.closed) throw new StorageError("CLOSED", "OverlayKv: cursor is closed");
    this.i = i;
    const r = this.rows[i];
    this.valid = r !== undefined;
    this.key = r === undefined ? EMPTY : r[0].slice();
    this.value = r === undefined ? EMPTY : r[1].slice();
    return this.valid;
  }

  seek(key: Uint8Array): boolean {
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareBytes(this.rows[mid][0], key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return this.at(lo);
  }

  next(): boolean {
    return this.at(this.valid ? this.i + 1 : this.rows.length);
  }

  close(): void {
    this.closed = true;
  }
}
