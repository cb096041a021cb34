/**
 * eth_call / eth_estimateGas as a self-contained task, so worker threads can run them on their own
 * view of the store (a shared RocksDB handle) while the main thread keeps serving the network
 * (design card: read-only EVM execution in a Piscina pool). The task and its result are plain data
 * (hex strings and decimal strings), cheap to structured-clone; the logic is the same `simulate.ts`
 * the main thread uses, and the state is read through `stateAt.ts` at the requested block.
 */
import { blockContext } from "../executor/executeBlock.js";
import { type CallMessage, call, estimateGas } from "../executor/simulate.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { type ChainConfig, rulesAt } from "../spec/chainConfig.js";
import type { KvReader } from "../storage/kv.js";
import type { AccessList } from "../tx/tx.js";
import { ChainStore, META_STATE } from "./chainStore.js";
import { headerBlobBaseFee } from "./importBlock.js";
import { stateViewAt } from "./stateAt.js";

export interface CallTaskMessage {
  from: string;
  to: string | null;
  gas: string | null;
  gasPrice: string | null;
  maxFeePerGas: string | null;
  maxPriorityFeePerGas: string | null;
  value: string;
  data: string;
  accessList: { address: string; storageKeys: string[] }[];
}

export interface CallTask {
  kind: "call" | "estimate";
  /** The block whose post-state the call runs on. */
  block: string;
  msg: CallTaskMessage;
  gasCap: string;
}

export type CallTaskResult =
  | { ok: true; status: number; gasUsed: number; output: string; error: string | null; gas: string | null }
  | { ok: false; reject: string }
  | { ok: false; missing: "block" | "state" };

export function toTaskMessage(m: CallMessage): CallTaskMessage {
  const s = (v: bigint | null): string | null => (v === null ? null : v.toString());
  return {
    from: bytesToHex(m.from),
    to: m.to === null ? null : bytesToHex(m.to),
    gas: s(m.gas),
    gasPrice: s(m.gasPrice),
    maxFeePerGas: s(m.maxFeePerGas),
    maxPriorityFeePerGas: s(m.maxPriorityFeePerGas),
    value: m.value.toString(),
    data: bytesToHex(m.data),
    accessList: m.accessList.map((e) => ({
      address: bytesToHex(e.address),
      storageKeys: e.storageKeys.map((k) => bytesToHex(k)),
    })),
  };
}

function fromTaskMessage(t: CallTaskMessage): CallMessage {
  const b = (v: string | null): bigint | null => (v === null ? null : BigInt(v));
  const accessList: AccessList = t.accessList.map((e) => ({
    address: hexToBytes(e.address),
    storageKeys: e.storageKeys.map((k) => hexToBytes(k)),
  }));
  return {
    from: hexToBytes(t.from),
    to: t.to === null ? null : hexToBytes(t.to),
    gas: b(t.gas),
    gasPrice: b(t.gasPrice),
    maxFeePerGas: b(t.maxFeePerGas),
    maxPriorityFeePerGas: b(t.maxPriorityFeePerGas),
    value: BigInt(t.value),
    data: hexToBytes(t.data),
    accessList,
  };
}

/** Runs a call task against `kv` (the node's store, or a worker's view of it). */
export function runCallTask(kv: KvReader, cfg: ChainConfig, task: CallTask): CallTaskResult {
  const store = new ChainStore(kv);
  const target = hexToBytes(task.block);
  const header = store.header(target);
  if (header === null) return { ok: false, missing: "block" };
  const stateBlock = store.meta(META_STATE);
  const view = stateBlock === null ? null : stateViewAt(store, stateBlock, target);
  if (view === null) return { ok: false, missing: "state" };
  const rules = rulesAt(cfg, header.number, header.timestamp);
  const ancestors = new Map<bigint, bigint>();
  const env = {
    rules,
    chainId: cfg.chainId,
    gasCap: BigInt(task.gasCap),
    block: blockContext(header, {
      rules,
      chainId: cfg.chainId,
      blobBaseFee: headerBlobBaseFee(cfg, header.excessBlobGas, header.timestamp),
      maxBlobGas: 0,
      depositContract: null,
      blockHash: (n: bigint): bigint => {
        let h = ancestors.get(n);
        if (h === undefined) {
          const c = store.canonicalHash(Number(n));
          h = c === null ? 0n : BigInt(bytesToHex(c));
          ancestors.set(n, h);
        }
        return h;
      },
      intermediateRoot: null,
    }),
  };
  const msg = fromTaskMessage(task.msg);
  if (task.kind === "estimate") {
    const r = estimateGas(view, msg, env);
    if (r.ok) return { ok: true, status: 1, gasUsed: 0, output: "0x", error: null, gas: r.gas.toString() };
    if ("reject" in r) return { ok: false, reject: r.reject };
    const f = r.failed;
    return { ok: true, status: 0, gasUsed: f.gasUsed, output: bytesToHex(f.output), error: f.error, gas: null };
  }
  const r = call(view, msg, env);
  if (typeof r === "string") return { ok: false, reject: r };
  return { ok: true, status: r.status, gasUsed: r.gasUsed, output: bytesToHex(r.output), error: r.error, gas: null };
}
