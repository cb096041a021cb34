/**
 * A warmed trieHash pool of one thread whose worker reads and writes rows through `kv`'s database
 * (its shared handle): the node's Blockchain.storagePool on a RocksDB store. Destroy the pool, then
 * `kv.releaseHandle()`, before closing `kv`.
 */
import { PiscinaPool } from "../../src/node/pools.js";
import type { RocksKv } from "../../src/storage/rocksdb.js";

export async function sharedTrieHashPool(kv: RocksKv): Promise<PiscinaPool> {
  const pool = new PiscinaPool("trieHash", { threads: 1 }, { store: { engine: "rocksdb", handle: kv.shareHandle() } });
  await pool.warm();
  return pool;
}
