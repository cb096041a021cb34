/**
 * Piscina entry: trie hashing. "refs": disjoint first-nibble groups of a full root
 * (src/trie/parallel.ts; in: packed sorted keys, values and offsets, moved; out: the 16 root-branch
 * slot refs, copied). "storageRoots": incremental storage-trie updates of a block import, taken one
 * by one from shared buffers alongside the importing thread (src/trie/sharedStorageRoots.ts), read
 * through the node's store when workerData shares one (storage/engine.ts); without a store the
 * worker takes no job and the importing thread runs them all. "stateRoot": a sliced import's whole
 * incremental state root over that store (src/trie/remoteStateRoot.ts). Both read the stored trie
 * branches through this worker's cache, which the node's write log keeps equal to the store
 * (storage/writeLog.ts, engine.ts `openCachedWorkerStore`). "logSync": one synced write
 * through that store, so the node's forkchoice waits for the disk here and not on its event loop
 * (Blockchain.logSync). "writeRows": a block's bulk of new flat rows, put through that store while
 * the importing thread computes the root (src/storage/sharedRows.ts).
 */
import { workerData } from "node:worker_threads";
import { type CachedWorkerStore, openCachedWorkerStore, type WorkerStoreRef } from "../src/storage/engine.js";
import { type SharedRowsTask, writeRowsOnWorker } from "../src/storage/sharedRows.js";
import { subtrieRefsPacked } from "../src/trie/parallel.js";
import type { TrieRefsTask } from "../src/trie/parallelRoot.js";
import { type StateRootTask, stateRootOnWorker } from "../src/trie/remoteStateRoot.js";
import { type StorageJobBuffers, workStorageJobs } from "../src/trie/sharedStorageRoots.js";
import { storageJobOnWorker } from "../src/trie/stateRoot.js";

export type TrieHashTask =
  | { kind: "ping" }
  | TrieRefsTask
  | { kind: "storageRoots"; buffers: StorageJobBuffers }
  | { kind: "logSync" }
  | SharedRowsTask
  | StateRootTask;

/** This worker's view of the node's store, with its trie cache (kept exact by the node's write log). */
let opened: Promise<CachedWorkerStore> | null = null;

/** The shared store, opened at the first call; null when the node shares none. */
function sharedStore(): Promise<CachedWorkerStore> | null {
  const store = (workerData as { data?: { store?: WorkerStoreRef } } | undefined)?.data?.store;
  if (store === undefined) return null;
  opened ??= openCachedWorkerStore(store);
  return opened;
}

export default async function trieHash(task: TrieHashTask): Promise<unknown> {
  if (task.kind === "ping") {
    // A warm-up (PiscinaPool.warm) opens the store too: its binding loads in ~0.1 s here, which a
    // block's first storage job would otherwise wait for while the importing thread does it alone.
    // A store that fails to open fails the tasks that need it, as before, not the warm-up.
    await sharedStore()?.catch(() => undefined);
    return 0;
  }
  if (
    task.kind === "storageRoots" ||
    task.kind === "stateRoot" ||
    task.kind === "logSync" ||
    task.kind === "writeRows"
  ) {
    const opening = sharedStore();
    if (opening === null) {
      // Without a store the importing thread runs every storage job and writes the rows itself.
      if (task.kind !== "storageRoots" && task.kind !== "writeRows")
        throw new Error(`trieHash: no shared store for ${task.kind}`);
      return 0;
    }
    const s = await opening;
    if (task.kind === "stateRoot") return stateRootOnWorker(s.fresh(), task, s.readCounts);
    if (task.kind === "logSync") {
      s.view.syncLog();
      return 0;
    }
    if (task.kind === "writeRows") return writeRowsOnWorker(s.view, task);
    return workStorageJobs(s.fresh(), task.buffers, storageJobOnWorker);
  }
  return subtrieRefsPacked(task.keys, task.values, task.valueOffsets);
}
