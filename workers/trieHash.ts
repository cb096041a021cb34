/**
 * Piscina entry: trie hashing. "refs": disjoint first-nibble groups of a full root
 * (src/trie/parallel.ts; in: packed sorted keys, values and offsets, moved; out: the 16 root-branch
 * slot refs, copied). "storageRoots": incremental storage-trie updates of a block import, taken one
 * by one from shared buffers alongside the importing thread (src/trie/sharedStorageRoots.ts), read
 * through the node's store when workerData shares one (storage/engine.ts); without a store the
 * worker takes no job and the importing thread runs them all. "stateRoot": a sliced import's whole
 * incremental state root over that store (src/trie/remoteStateRoot.ts). "logSync": one synced write
 * through that store, so the node's forkchoice waits for the disk here and not on its event loop
 * (Blockchain.logSync).
 */
import { workerData } from "node:worker_threads";
import { openWorkerStore, type WorkerKv, type WorkerStoreRef } from "../src/storage/engine.js";
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
  | StateRootTask;

let kv: Promise<WorkerKv> | null = null;

export default async function trieHash(task: TrieHashTask): Promise<unknown> {
  if (task.kind === "ping") return 0;
  if (task.kind === "storageRoots" || task.kind === "stateRoot" || task.kind === "logSync") {
    const store = (workerData as { data?: { store?: WorkerStoreRef } } | undefined)?.data?.store;
    if (store === undefined) {
      if (task.kind !== "storageRoots") throw new Error(`trieHash: no shared store for ${task.kind}`);
      return 0;
    }
    kv ??= openWorkerStore(store);
    if (task.kind === "stateRoot") return stateRootOnWorker(await kv, task);
    if (task.kind === "logSync") {
      (await kv).syncLog();
      return 0;
    }
    return workStorageJobs(await kv, task.buffers, storageJobOnWorker);
  }
  return subtrieRefsPacked(task.keys, task.values, task.valueOffsets);
}
