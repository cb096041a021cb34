/**
 * A block's incremental state root on a trieHash worker (issue 25): once a sliced import has
 * written its flat rows, the worker walks the tries through its own handle on the same store
 * (storage/engine.ts) while the importing thread's event loop stays free for reads; the root, the
 * trie writes (batchCodec encoding) and the new storage roots come back. The worker runs the whole
 * update (`updateStateRoot`, storage tries included) on its thread.
 */
import { decodeBatch, encodeBatch } from "../storage/batchCodec.js";
import type { KvReader, WriteBatch } from "../storage/kv.js";
import type { TaskPool } from "../util/taskPool.js";
import { type StateChangeset, updateStateRoot } from "./stateRoot.js";

/** The worker task. */
export interface StateRootTask {
  readonly kind: "stateRoot";
  readonly changes: StateChangeset;
}

/** What the worker sends back. */
export interface StateRootReply {
  readonly root: Uint8Array;
  readonly batch: Uint8Array;
  readonly storageRoots: { hashedAddress: Uint8Array; root: Uint8Array }[];
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
export function stateRootOnWorker(kv: KvReader, task: StateRootTask): StateRootReply {
  const r = updateStateRoot(kv, task.changes);
  return { root: r.root, batch: encodeBatch(r.batch), storageRoots: r.storageRoots };
}

/**
 * The importing side: the root of `changes` on `pool`, or null when the change is small or the
 * pool is busy (then computed here).
 */
export function remoteStateRoot(
  pool: TaskPool,
  changes: StateChangeset,
): Promise<{ root: Uint8Array; batch: WriteBatch; storageRoots: StateRootReply["storageRoots"] }> | null {
  if (changedKeys(changes) < MIN_REMOTE_ROOT_KEYS || !pool.canAcceptWork()) return null;
  const task: StateRootTask = { kind: "stateRoot", changes };
  return pool.run<StateRootReply>(task).then((r) => ({
    root: r.root,
    batch: decodeBatch(r.batch),
    storageRoots: r.storageRoots,
  }));
}
