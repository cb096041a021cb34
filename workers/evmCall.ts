/**
 * Piscina entry: read-only execution methods (eth_call, eth_estimateGas, eth_createAccessList,
 * eth_simulateV1, debug_traceCall, trace_call, and the traces of stored blocks) on the worker's own view of the node's store (a
 * RocksDB native handle from workerData, storage/engine.ts). Thin by rule: the logic is src/rpc/callOffload.ts.
 */
import { workerData } from "node:worker_threads";
import { type CallReply, type CallTask, CallWorker } from "../src/rpc/callOffload.js";
import { openWorkerStore, type WorkerStoreRef } from "../src/storage/engine.js";

interface EvmCallData {
  store: WorkerStoreRef;
  gasCap: bigint;
  /** The node's reply cap (--rpc.batch-response-max-size; 0 = none). */
  replyMaxSize?: number;
}

export type EvmCallTask = { kind: "ping" } | CallTask;

let worker: CallWorker | null = null;

export default async function evmCall(task: EvmCallTask): Promise<CallReply | 0> {
  if (task.kind === "ping") return 0;
  if (worker === null) {
    const d = (workerData as { data: EvmCallData }).data;
    worker = CallWorker.open(await openWorkerStore(d.store), d.gasCap, d.replyMaxSize ?? 0);
  }
  return worker.run(task);
}
