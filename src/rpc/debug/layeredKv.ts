/**
 * A block's state held in memory over the store, for replays that must see each tx's changes
 * committed (debug_intermediateRoots, debug_storageRangeAt) without writing anything: the rows of
 * an historical view (chain/stateAt.ts: undo records over the current rows) plus the replay's own
 * batches, layered over the store's tables.
 *
 * Unlike storage/overlayKv.ts, whose range reads materialise the merged range (fine for a proof of
 * a few keys), cursors here merge lazily: the trie walker opens unbounded cursors on the leaf and
 * branch tables and seeks along them, which must cost seeks, not a copy of the table.
 */
import { bytesKey, compareBytes } from "../../primitives/bytes.js";
import {
  getManyShared,
  getShared,
  type KvCursor,
  type KvCursorOptions,
  type KvRange,
  type KvReader,
  type WriteBatch,
} from "../../storage/kv.js";
import { type Overlay, OverlayKv } from "../../storage/overlayKv.js";
import type { TableName } from "../../storage/tables.js";

type Entry = { readonly key: Uint8Array; readonly value: Uint8Array | null };

const EMPTY = new Uint8Array(0);

/** First index in sorted `keys` at or after `k`. */
function lowerBound(keys: readonly string[], k: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class LayeredKv implements KvReader {
  private readonly layer: Overlay;
  /** Sorted latin-1 keys of each table's layer, rebuilt after a write to that table. */
  private readonly sorted = new Map<TableName, string[]>();

  private constructor(
    private readonly base: KvReader,
    layer: Overlay,
  ) {
    this.layer = layer;
  }

  /** `view` (a store, or an OverlayKv over one) as the bottom of a new layer. */
  static over(view: KvReader): LayeredKv {
    if (view instanceof OverlayKv) {
      const copy: Overlay = new Map();
      for (const [t, m] of view.overlay) copy.set(t, new Map(m));
      return new LayeredKv(view.base, copy);
    }
    return new LayeredKv(view, new Map());
  }

  /** Applies `batch` to the layer (the store is never written). */
  apply(batch: WriteBatch): void {
    for (const op of batch.ops) {
      let t = this.layer.get(op.table);
      if (t === undefined) {
        t = new Map();
        this.layer.set(op.table, t);
      }
      t.set(bytesKey(op.key), { key: op.key.slice(), value: op.type === "put" ? op.value.slice() : null });
      this.sorted.delete(op.table);
    }
  }

  get(table: TableName, key: Uint8Array): Uint8Array | undefined {
    const e = this.layer.get(table)?.get(bytesKey(key));
    if (e !== undefined) return e.value === null ? undefined : e.value.slice();
    return this.base.get(table, key);
  }

  getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    const t = this.layer.get(table);
    if (t === undefined || t.size === 0) return this.base.getMany(table, keys);
    return keys.map((k) => this.get(table, k));
  }

  getShared(table: TableName, key: Uint8Array): Uint8Array | undefined {
    const e = this.layer.get(table)?.get(bytesKey(key));
    if (e !== undefined) return e.value === null ? undefined : e.value;
    return getShared(this.base, table, key);
  }

  getManyShared(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    const t = this.layer.get(table);
    if (t === undefined || t.size === 0) return getManyShared(this.base, table, keys);
    return keys.map((k) => this.getShared(table, k));
  }

  *iterate(table: TableName, range: KvRange = {}): Iterable<[Uint8Array, Uint8Array]> {
    const opts: KvCursorOptions = {};
    if (range.gte !== undefined) opts.gte = range.gte;
    if (range.lt !== undefined) opts.lt = range.lt;
    const c = this.cursor(table, opts);
    const limit = range.limit ?? Number.POSITIVE_INFINITY;
    try {
      if (range.reverse === true) {
        const rows: [Uint8Array, Uint8Array][] = [];
        for (let ok = c.seek(range.gte ?? EMPTY); ok; ok = c.next()) rows.push([c.key, c.value]);
        rows.reverse();
        for (let i = 0; i < rows.length && i < limit; i++) yield rows[i]!;
        return;
      }
      let n = 0;
      for (let ok = c.seek(range.gte ?? EMPTY); ok && n < limit; ok = c.next(), n++) yield [c.key, c.value];
    } finally {
      c.close();
    }
  }

  cursor(table: TableName, opts: KvCursorOptions = {}): KvCursor {
    const t = this.layer.get(table);
    const base = this.base.cursor(table, opts);
    if (t === undefined || t.size === 0) return base;
    let keys = this.sorted.get(table);
    if (keys === undefined) {
      keys = [...t.keys()].sort();
      this.sorted.set(table, keys);
    }
    const lo = opts.gte === undefined ? 0 : lowerBound(keys, bytesKey(opts.gte));
    const hi = opts.lt === undefined ? keys.length : lowerBound(keys, bytesKey(opts.lt));
    return new MergedCursor(base, t, keys, lo, hi);
  }
}

/** The store's cursor and the layer's sorted entries, merged; a layer entry hides the store's row. */
class MergedCursor implements KvCursor {
  valid = false;
  key: Uint8Array = EMPTY;
  value: Uint8Array = EMPTY;
  private i: number;
  /** The current entry is the store's row (else the layer's entry `i`). */
  private onBase = false;

  constructor(
    private readonly base: KvCursor,
    private readonly entries: ReadonlyMap<string, Entry>,
    private readonly keys: readonly string[],
    private readonly lo: number,
    private readonly hi: number,
  ) {
    this.i = lo;
  }

  seek(key: Uint8Array): boolean {
    this.base.seek(key);
    this.i = Math.max(this.lo, lowerBound(this.keys, bytesKey(key)));
    return this.settle();
  }

  next(): boolean {
    if (!this.valid) return false;
    if (this.onBase) {
      this.base.next();
    } else {
      const e = this.entries.get(this.keys[this.i]!)!;
      if (this.base.valid && compareBytes(this.base.key, e.key) === 0) this.base.next();
      this.i++;
    }
    return this.settle();
  }

  /** Lands on the smaller of the two sides, skipping deleted and hidden rows. */
  private settle(): boolean {
    for (;;) {
      const e = this.i < this.hi ? this.entries.get(this.keys[this.i]!)! : null;
      const b = this.base.valid ? this.base.key : null;
      if (e === null && b === null) {
        this.valid = false;
        this.key = EMPTY;
        this.value = EMPTY;
        return false;
      }
      const cmp = e === null ? 1 : b === null ? -1 : compareBytes(e.key, b);
      if (cmp <= 0 && e !== null) {
        if (e.value === null) {
          // Deleted in the layer: skip it, and the store's row it hides.
          if (cmp === 0) this.base.next();
          this.i++;
          continue;
        }
        this.onBase = false;
        this.valid = true;
        this.key = e.key.slice();
        this.value = e.value.slice();
        return true;
      }
      this.onBase = true;
      this.valid = true;
      this.key = this.base.key;
      this.value = this.base.value;
      return true;
    }
  }

  close(): void {
    this.base.close();
  }
}
