/**
 * Reading the state of a block other than the one the flat tables hold: the undo records of the
 * blocks in between (`history`) are layered, newest first, over the current rows, so the view shows
 * exactly the rows as they were after `target`. Works for every ancestor of the state block whose
 * undo records are kept; other blocks (side branches, pruned history) have no state view.
 */
import { bytesKey, equalBytes } from "../primitives/bytes.js";
import { decodeBatch } from "../storage/batchCodec.js";
import type { KvReader, WriteBatch } from "../storage/kv.js";
import { type Overlay, OverlayKv } from "../storage/overlayKv.js";
import { type ChainStore, pendingUndo } from "./chainStore.js";

/** Lays an encoded undo batch over `overlay`; a later call wins over earlier ones for the same key. */
export function layerUndo(overlay: Overlay, rec: Uint8Array): void {
  layerBatch(overlay, decodeBatch(rec));
}

/** Lays an undo batch over `overlay`; a later call wins over earlier ones for the same key. */
export function layerBatch(overlay: Overlay, batch: WriteBatch): void {
  for (const op of batch.ops) {
    let t = overlay.get(op.table);
    if (t === undefined) {
      t = new Map();
      overlay.set(op.table, t);
    }
    t.set(bytesKey(op.key), { key: op.key, value: op.type === "put" ? op.value : null });
  }
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
  layerUndo(overlay, pending);
  return new OverlayKv(kv, overlay);
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
  let cursor = stateBlock;
  const targetHeader = store.header(target);
  if (targetHeader === null) return null;
  for (let depth = 0; depth < maxDepth; depth++) {
    const h = store.header(cursor);
    if (h === null || h.number <= targetHeader.number) return null;
    const rec = store.kv.get("history", cursor);
    if (rec === undefined) return null;
    // Older records are applied later and win: they hold the values from before newer writes.
    layerUndo(overlay, rec);
    cursor = h.parentHash;
    if (equalBytes(cursor, target)) return new OverlayKv(store.kv, overlay);
  }
  return null;
}
