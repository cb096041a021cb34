/**
 * Piscina entry: read-only EVM calls (eth_call, eth_estimateGas) on the worker's own view of the
 * node's RocksDB (a shared native handle from workerData). Thin by rule: the logic is
 * src/chain/callTask.ts, tested on the main thread.
 */
import { workerData } from "node:worker_threads";
import { type CallTask, runCallTask } from "../src/chain/callTask.js";
import { type ChainConfig, parseChainConfig } from "../src/spec/chainConfig.js";
import { RocksKv } from "../src/storage/rocksdb.js";

interface EvmCallData {
  handle: bigint;
  config: unknown;
}

export type EvmCallTask = { kind: "ping" } | CallTask;

let kv: RocksKv | null = null;
let cfg: ChainConfig | null = null;

export default async function evmCall(task: EvmCallTask): Promise<unknown> {
  if (task.kind === "ping") return 0;
  if (kv === null || cfg === null) {
    const d = (workerData as { data: EvmCallData }).data;
    kv = await RocksKv.fromHandle(d.handle);
    cfg = parseChainConfig(d.config);
  }
  return runCallTask(kv, cfg, task);
}
