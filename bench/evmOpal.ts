/**
 * Opal's runner for the `evm` bench: executes a workload's blocks on its genesis and returns the
 * summed gasUsed, the post-state root and the wall time of the block executions only (not genesis
 * setup), the same contract as `runEthereumjs` in evmEthereumjs.ts.
 *
 * Inside the timer, as for ethereumjs: sender recovery (as the node's Engine API does it: the
 * sigRecover workers recover ahead of execution, the executing thread takes what it reaches first —
 * tx/sharedRecovery.ts; `senders: "before"` recovers the whole block first, so execution can be
 * timed alone; OPAL_BENCH_EVM_POOL=0 recovers on the main thread),
 * execution of every tx (executor/executeBlock.ts, the node's path), the state commit and the
 * incremental state root. Outside: tx decoding and the genesis state (MemoryKv, so the figure is
 * the EVM's, not the disk's).
 */

import { availableParallelism } from "node:os";
import { blobBaseFee, GAS_PER_BLOB } from "../src/block/blobGas.js";
import { writeAlloc } from "../src/chain/genesisState.js";
import { executeBlock } from "../src/executor/executeBlock.js";
import { createPools, defaultThreads, type Pools } from "../src/node/pools.js";
import { blobParamsAt, parseChainConfig, rulesAt } from "../src/spec/chainConfig.js";
import { KvStateReader } from "../src/state/kvStateReader.js";
import { WorldState } from "../src/state/worldState.js";
import { MemoryKv } from "../src/storage/memory.js";
import { updateStateRoot } from "../src/trie/stateRoot.js";
import { decodeTx, encodeTx } from "../src/tx/envelope.js";
import { recoverSendersParallel } from "../src/tx/recoverSendersParallel.js";
import { startSharedRecovery } from "../src/tx/sharedRecovery.js";
import { testHeader } from "../test/utils/blocks.js";
import type { Workload } from "./workload.js";

let pools: Pools | null = null;

function recoveryPool(): Pools["sigRecover"] | null {
  if (process.env.OPAL_BENCH_EVM_POOL === "0") return null;
  pools ??= createPools({ sigRecoverThreads: defaultThreads(availableParallelism()) + 1, trieHashThreads: 1 });
  return pools.sigRecover;
}

/** Stops the worker pool (the section calls this once at its end). */
export async function closeOpal(): Promise<void> {
  await pools?.destroy();
  pools = null;
}

/** Opal's figures for one run: `ms` is recovery + execution + root, as ethereumjs's runBlock times it. */
export interface OpalRunResult {
  gasUsed: number;
  stateRoot: Uint8Array;
  ms: number;
  /** Decoding the raw txs (outside `ms`). */
  decodeMs: number;
  /** Sender recovery (inside `ms`); with senders "overlapped" only the packing before execution. */
  recoverMs: number;
  /** Execution of every tx and the state commit (inside `ms`; with "overlapped", the recovery not yet done by then too). */
  execMs: number;
  /** The incremental state root (inside `ms`). */
  rootMs: number;
}

export async function runOpal(w: Workload, opts: { senders?: "overlapped" | "before" } = {}): Promise<OpalRunResult> {
  const overlapped = opts.senders !== "before";
  const cfg = parseChainConfig(w.genesis.config);
  const kv = new MemoryKv();
  let root = writeAlloc(
    kv,
    [...w.genesis.alloc.values()].map((a) => ({ ...a, nonce: BigInt(a.nonce), storage: a.storage.entries() })),
  );
  const td = performance.now();
  const blocks = w.blocks.map((b) => ({ header: b.header, txs: b.transactions.map((t) => decodeTx(t)) }));
  const decodeMs = performance.now() - td;
  let gasUsed = 0;
  let recoverMs = 0;
  let execMs = 0;
  let rootMs = 0;
  // Let the pool settle outside the timer: the previous run's worker replies are handled only when
  // this thread yields, and until then Piscina counts those workers busy (the node yields between
  // Engine API calls; a run right after a synchronous one would otherwise get no idle worker).
  await new Promise((r) => setImmediate(r));
  const t0 = performance.now();
  for (const b of blocks) {
    const h = b.header;
    const rules = rulesAt(cfg, h.number, h.timestamp);
    const blob = blobParamsAt(cfg, h.timestamp);
    const tr = performance.now();
    const senders = overlapped
      ? startSharedRecovery(
          b.txs.map((t) => t.memo?.encoded ?? encodeTx(t)),
          recoveryPool(),
        )
      : ((await recoverSendersParallel(b.txs, recoveryPool())) as Uint8Array[]);
    const te = performance.now();
    recoverMs += te - tr;
    // Only the fields execution reads; the roots are what this run computes.
    const header = testHeader({
      coinbase: h.coinbase,
      number: h.number,
      timestamp: h.timestamp,
      gasLimit: h.gasLimit,
      mixHash: h.prevRandao,
      baseFeePerGas: h.baseFeePerGas ?? null,
      parentBeaconBlockRoot: h.parentBeaconBlockRoot ?? null,
    });
    const state = new WorldState(new KvStateReader(kv), kv);
    const res = executeBlock(
      state,
      { header, txs: b.txs, senders, ommers: [], withdrawals: [] },
      {
        rules,
        chainId: cfg.chainId,
        blobBaseFee: blob === null ? 0n : blobBaseFee(Number(h.excessBlobGas ?? 0n), blob.baseFeeUpdateFraction),
        maxBlobGas: blob === null ? 0 : blob.max * GAS_PER_BLOB,
        depositContract: cfg.depositContractAddress,
        blockHash: () => 0n,
        intermediateRoot: null,
      },
    );
    if ("error" in res) throw new Error(`block ${h.number}: tx ${res.txIndex}: ${res.error}`);
    gasUsed += res.gasUsed;
    const c = state.commitBlock();
    kv.write(c.batch);
    const tt = performance.now();
    execMs += tt - te;
    const r = updateStateRoot(kv, c.changeset);
    kv.write(r.batch);
    root = r.root;
    rootMs += performance.now() - tt;
  }
  return { gasUsed, stateRoot: root, ms: performance.now() - t0, decodeMs, recoverMs, execMs, rootMs };
}
