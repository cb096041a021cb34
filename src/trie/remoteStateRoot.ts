/**
 * A block's incremental state root on a trieHash worker (issue 25): once a sliced import has
 * written its flat rows, the worker walks the tries through its own handle on the same store
 * (storage/engine.ts) while the importing thread's event loop stays free for reads; the root, the
 * trie writes (batchCodec encoding) and the new storage roots come back. The worker runs the whole
 * update (`updateStateRoot`, storage tries included) on its thread.
 */
import { encodeBatch, encodeRangeDeletes, joinEncodedBatches } from "../storage/batchCodec.js";
import { NO_READS, type ReadCounts } from "../storage/cachedKv.js";
import { type KvReader, WriteBatch } from "../storage/kv.js";
import { underPrefix } from "../storage/overlayKv.js";
import { inverseBatch } from "../storage/undo.js";
import type { TaskPool } from "../util/taskPool.js";
import { packedOwners, type StateChangeset, updateStateRoot } from "./stateRoot.js";

/** The worker task. */
export interface StateRootTask {
  readonly kind: "stateRoot";
  readonly changes: StateChangeset;
  /** The state root the store holds before `changes` (updateStateRoot `parentRoot`), when known. */
  readonly parentRoot?: Uint8Array | null;
}

/** What the worker sends back. */
export interface StateRootReply {
  readonly root: Uint8Array;
  /** The trie writes, encoded (batchCodec). */
  readonly batch: Uint8Array;
  /**
   * Their inverse, encoded, read on the worker: the store's trie rows are still the parent's there
   * (the import writes them only after this reply), so the importing thread does not read them.
   */
  readonly undo: Uint8Array;
  /**
   * `undo` as the crash marker and the block's history record keep it, when it differs: a new
   * contract's storage trie records (all new, as its rows are) undone by one range delete under its
   * hashed address instead of a delete each (batchCodec `encodeRangeDeletes`). Null: `undo` itself.
   */
  readonly undoRanged: Uint8Array | null;
  readonly storageRoots: { hashedAddress: Uint8Array; root: Uint8Array }[];
  /**
   * Point reads of the trie tables (accountTrie, storageTrie) this root made, and how many of them
   * went to the store (missed the worker's trie cache); both 0 when the worker reads uncached.
   */
  readonly trieReads: number;
  readonly trieStoreReads: number;
}

/**
 * PERF: below this many changed keys (accounts and storage slots) the root costs about what the
 * hop does (~0.2–0.5 ms: posting the changes, waking the worker, the batch back), so it stays on
 * the importing thread; a small L2 block's root is over within a slice anyway.
 */
export const MIN_REMOTE_ROOT_KEYS = 128;

/** Changed keys of `changes` (accounts plus storage slots). */
function changedKeys(changes: StateChangeset): number {
  let n = changes.accounts.length;
  for (const s of changes.storage ?? []) n += s.slots.length;
  return n;
}

/** The worker side: the update over the worker's view of the store. */
export function stateRootOnWorker(
  kv: KvReader,
  task: StateRootTask,
  counts: () => ReadCounts = () => NO_READS,
): StateRootReply {
  const c0 = counts();
  const r = updateStateRoot(kv, task.changes, { parentRoot: task.parentRoot ?? null });
  const inverse = inverseBatch(kv, r.batch);
  const undo = encodeBatch(inverse);
  const c1 = counts();
  return {
    root: r.root,
    batch: encodeBatch(r.batch),
    undo,
    undoRanged: rangedUndo(task.changes, inverse),
    storageRoots: r.storageRoots,
    trieReads: c1.hits + c1.misses - c0.hits - c0.misses,
    trieStoreReads: c1.misses - c0.misses,
  };
}

/**
 * The importing side: the root of `changes` on `pool`, or null when the change is small or the
 * pool is busy (then computed here). The batches come back encoded: the import decodes them in
 * units of its own (chain/importBlock.ts), not in the reply's callback.
 */
export function remoteStateRoot(
  pool: TaskPool,
  changes: StateChangeset,
  parentRoot: Uint8Array | null = null,
): Promise<StateRootReply> | null {
  if (changedKeys(changes) < MIN_REMOTE_ROOT_KEYS || !pool.canAcceptWork()) return null;
  const task: StateRootTask = { kind: "stateRoot", changes, parentRoot };
  return pool.run<StateRootReply>(task);
}

/**
 * `inverse` with the storage-trie deletes under each packed contract (StorageChange.packed: its
 * storage was empty before the block, so it had no storage-trie records) replaced by one range
 * delete each, encoded; null when there is no such contract, or when an op under one of them is
 * not a delete (then the store had a record there, and only the explicit inverse restores it).
 */
export function rangedUndo(changes: StateChangeset, inverse: WriteBatch): Uint8Array | null {
  const owners = packedOwners(changes);
  if (owners.length === 0) return null;
  const rest = new WriteBatch();
  for (const op of inverse.ops) {
    if (op.table === "storageTrie" && underPrefix(owners, op.key)) {
      if (op.type !== "del") return null;
      continue;
    }
    rest.ops.push(op);
  }
  return joinEncodedBatches([encodeRangeDeletes("storageTrie", owners), encodeBatch(rest)]);
}
