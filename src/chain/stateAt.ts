/**
 * Reading the state of a block other than the one the flat tables hold: the undo records of the
 * blocks in between (`history`) are layered, newest first, over the current rows, so the view shows
 * exactly the rows as they were after `target`. Works for every ancestor of the state block whose
 * undo records are kept; other blocks (side branches, pruned history) have no state view.
 */
import { bytesKey, equalBytes } from "../primitives/bytes.js";
import { decodeUndo } from "../storage/batchCodec.js";
import { type KvReader, WriteBatch } from "../storage/kv.js";
import { type HiddenPrefixes, type Overlay, OverlayKv, underPrefix } from "../storage/overlayKv.js";
import { bytePrefixUpperBound, keyRange } from "../trie/storedTrie.js";
import { type ChainStore, pendingUndo } from "./chainStore.js";

/**
 * Lays an encoded undo record over `overlay`; a later call wins over earlier ones for the same key.
 * A range delete (batchCodec) hides the base store's rows under its prefix (`hidden`) and makes
 * absent every row the overlay holds under it so far; later ops and later records may put rows
 * under it again.
 */
export function layerUndo(overlay: Overlay, rec: Uint8Array, hidden: HiddenPrefixes): void {
  for (const op of decodeUndo(rec).ops) {
    if (op.type !== "range") {
      layerOp(overlay, op);
      continue;
    }
    const t = overlay.get(op.table);
    if (t !== undefined) for (const e of t.values()) if (underPrefix([op.prefix], e.key)) e.value = null;
    const h = hidden.get(op.table);
    if (h === undefined) hidden.set(op.table, [op.prefix]);
    else h.push(op.prefix);
  }
}

/**
 * The batch that applies the encoded undo record `rec` to `kv` (the store in the state the record
 * undoes): its ops in order, each range delete resolved into a delete of every row `kv` holds under
 * its prefix and of every row the ops before it put there.
 */
export function undoBatch(kv: KvReader, rec: Uint8Array): WriteBatch {
  const u = decodeUndo(rec);
  const b = new WriteBatch();
  for (const op of u.ops) {
    if (op.type !== "range") {
      b.ops.push(op);
      continue;
    }
    const keys = new Map<string, Uint8Array>();
    for (const [k] of kv.iterate(op.table, keyRange(op.prefix, bytePrefixUpperBound(op.prefix))))
      keys.set(bytesKey(k), k);
    for (const o of b.ops)
      if (o.table === op.table && o.type === "put" && underPrefix([op.prefix], o.key)) keys.set(bytesKey(o.key), o.key);
    for (const k of keys.values()) b.del(op.table, k);
  }
  return b;
}

/** Lays an undo batch over `overlay`; a later call wins over earlier ones for the same key. */
export function layerBatch(overlay: Overlay, batch: WriteBatch): void {
  for (const op of batch.ops) layerOp(overlay, op);
}

/** One put or delete laid over `overlay` (a delete as an absent row). */
function layerOp(overlay: Overlay, op: WriteBatch["ops"][number]): void {
  let t = overlay.get(op.table);
  if (t === undefined) {
    t = new Map();
    overlay.set(op.table, t);
  }
  t.set(bytesKey(op.key), { key: op.key, value: op.type === "put" ? op.value : null });
}

/**
 * The store as its readers must see it while a block import is between its writes: the flat rows
 * may already hold the new block's values while `META_STATE` still names the parent. The import's
 * pending undo record (`pendingUndo`: META_PENDING and its tail) puts the parent's rows back, so
 * the view is exactly the state of `META_STATE`. Without a pending record this is `kv` itself.
 */
export function committedView(kv: KvReader): KvReader {
  const pending = pendingUndo(kv);
  if (pending === undefined) return kv;
  const overlay: Overlay = new Map();
  const hidden: HiddenPrefixes = new Map();
  layerUndo(overlay, pending, hidden);
  return new OverlayKv(kv, overlay, hidden);
}

/**
 * A reader of the store as it was after block `target`, or null when `target` is not the state
 * block or one of its ancestors with undo records. `maxDepth` bounds the blocks walked back.
 */
export function stateViewAt(
  store: ChainStore,
  stateBlock: Uint8Array,
  target: Uint8Array,
  maxDepth = 90_000,
): KvReader | null {
  if (equalBytes(stateBlock, target)) return store.kv;
  const overlay: Overlay = new Map();
  const hidden: HiddenPrefixes = new Map();
  let cursor = stateBlock;
  const targetHeader = store.header(target);
  if (targetHeader === null) return null;
  for (let depth = 0; depth < maxDepth; depth++) {
    const h = store.header(cursor);
    if (h === null || h.number <= targetHeader.number) return null;
    const rec = store.kv.get("history", cursor);
    if (rec === undefined) return null;
    // Older records are applied later and win: they hold the values from before newer writes.
    layerUndo(overlay, rec, hidden);
    cursor = h.parentHash;
    if (equalBytes(cursor, target)) return new OverlayKv(store.kv, overlay, hidden);
  }
  return null;
}
