/**
 * Re-executing history for the debug_trace* and trace_* methods: the state after the parent block
 * (chain/stateAt.ts) under a read-only WorldState, a BlockExecutor for the block, its system calls
 * and earlier txs untraced, then each wanted tx with its tracer (geth eth/tracers/api.go
 * stateAtTransaction + traceTx). Nothing is written to the store.
 */
import { GAS_PER_BLOB } from "../../block/blobGas.js";
import { decodeBlock } from "../../block/block.js";
import { type Header, headerHash } from "../../block/header.js";
import type { ChainView } from "../../chain/blockchain.js";
import { headerBlobBaseFee } from "../../chain/importBlock.js";
import { stateViewAt } from "../../chain/stateAt.js";
import type { BlockContext } from "../../evm/context.js";
import { Evm } from "../../evm/evm.js";
import type { EvmTracer } from "../../evm/tracer.js";
import { type BlockExecEnv, BlockExecutor, blockContext } from "../../executor/executeBlock.js";
import type { TxOutcome } from "../../executor/executeTx.js";
import { executeTx } from "../../executor/executeTx.js";
import { type CallMessage, messageTx } from "../../executor/simulate.js";
import { bytesToHex } from "../../primitives/hex.js";
import { bytesToBigint, MAX_U64 } from "../../primitives/u256.js";
import { blobParamsAt, type ChainConfig, rulesAt } from "../../spec/chainConfig.js";
import { KvStateReader } from "../../state/kvStateReader.js";
import { addressToBigint, WorldState } from "../../state/worldState.js";
import type { KvReader } from "../../storage/kv.js";
import { decodeTx, txHash } from "../../tx/envelope.js";
import { recoverSenders } from "../../tx/recoverPacked.js";
import { type Tx, TxType, txMaxFeePerGas, txMaxPriorityFeePerGas } from "../../tx/tx.js";
import { RpcError } from "../errors.js";
import type { DecodedBlock } from "../eth/chainReader.js";

/** geth traceTx's error for a tx past its trace timeout. */
export const TRACE_TIMEOUT = "execution timeout";

/** Ancestor hashes for BLOCKHASH, walking parent links from `tip` (works off the canonical chain too). */
export function ancestorHashes(chain: ChainView, tip: Uint8Array): (n: bigint) => bigint {
  const byNumber = new Map<number, bigint>();
  let cursor: Uint8Array = tip;
  let header = chain.store.header(tip);
  return (n: bigint): bigint => {
    const want = Number(n);
    const hit = byNumber.get(want);
    if (hit !== undefined) return hit;
    while (header !== null && header.number >= want) {
      byNumber.set(header.number, bytesToBigint(cursor));
      if (header.number === want || header.number === 0) break;
      cursor = header.parentHash;
      header = chain.store.header(cursor);
    }
    return byNumber.get(want) ?? 0n;
  };
}

/** The execution environment of `header`, as block import builds it. */
export function blockEnv(chain: ChainView, header: Header): BlockExecEnv {
  return execEnv(chain.config, header, ancestorHashes(chain, header.parentHash));
}

/** `blockEnv` with BLOCKHASH answered by `blockHash` (a stateless run takes it from its witness). */
export function execEnv(cfg: ChainConfig, header: Header, blockHash: (n: bigint) => bigint): BlockExecEnv {
  const rules = rulesAt(cfg, header.number, header.timestamp);
  const blob = blobParamsAt(cfg, header.timestamp);
  return {
    rules,
    chainId: cfg.chainId,
    blobBaseFee: headerBlobBaseFee(cfg, header.excessBlobGas, header.timestamp),
    maxBlobGas: blob === null ? 0 : blob.max * GAS_PER_BLOB,
    depositContract: cfg.depositContractAddress,
    blockHash,
    intermediateRoot: null,
    canyonActivation: cfg.optimism !== null && cfg.canyonTime === header.timestamp,
  };
}

/**
 * A block given as RLP (debug_traceBlock, a kept bad block) in the shape stored blocks are read in;
 * throws on RLP that is not a block. Senders that do not recover are the zero address, as the
 * chain reader has them; such a tx then fails when it runs.
 */
export function decodedBlockOf(rlp: Uint8Array): DecodedBlock {
  const { header, body } = decodeBlock(rlp);
  const txs = body.transactions.map((t) => decodeTx(t));
  return {
    hash: headerHash(header),
    header,
    body,
    txs,
    txHashes: txs.map((t) => txHash(t)),
    senders: recoverSenders(txs).map((s) => s ?? new Uint8Array(20)),
    receipts: null,
    size: rlp.length,
  };
}

/** The state after block `hash` (read-only), or an RPC error as geth words it. */
export function stateAfter(chain: ChainView, hash: Uint8Array): KvReader {
  const view = stateViewAt(chain.store, chain.stateBlockHash, hash);
  if (view === null) throw RpcError.server(`required historical state unavailable (block ${bytesToHex(hash)})`);
  return view;
}

/** Per traced tx: its index, the tracer that saw it, and the outcome. */
export interface TracedTx {
  readonly index: number;
  readonly tracer: EvmTracer | null;
  readonly outcome: TxOutcome;
}

function txStart(x: BlockExecutor, tx: Tx, sender: Uint8Array, block: BlockContext) {
  const baseFee = block.baseFee;
  const maxFee = txMaxFeePerGas(tx);
  const tip = txMaxPriorityFeePerGas(tx);
  const gasPrice =
    tx.type === TxType.Legacy || tx.type === TxType.AccessList || tx.type === TxType.Deposit
      ? maxFee
      : maxFee < baseFee + tip
        ? maxFee
        : baseFee + tip;
  return {
    from: addressToBigint(sender),
    to: tx.to === null ? null : addressToBigint(tx.to),
    value: tx.value,
    input: tx.data,
    gasLimit: Number(tx.gasLimit),
    gasPrice,
    state: x.state,
    block,
  };
}

/**
 * Replays `b` on its parent's state. `tracerFor(i)` gives the tracer of tx i (null: run it
 * untraced); replay stops after tx `last` (default: the whole block).
 */
export function replayBlock(
  chain: ChainView,
  b: DecodedBlock,
  tracerFor: (i: number) => EvmTracer | null,
  last = b.txs.length - 1,
): TracedTx[] {
  return replayOnce(chain, b, tracerFor, last, 0).out;
}

/** What `replayBlockTimed` gives: the txs traced in time, and those past the timeout. */
export interface TimedReplay {
  readonly traced: TracedTx[];
  /** Indices of traced txs that outlasted the timeout (geth: "execution timeout"), ascending. */
  readonly timedOut: number[];
}

/**
 * `replayBlock` where each traced tx has `timeoutMs` (geth traceTx's deadline): a tx past it is
 * stopped at its next JUMP/JUMPI and reported in `timedOut`. Its partial run is not the block's
 * state, so the replay starts again with that tx untraced (and unbounded, as geth's untraced state
 * pass) and the ones already traced skipped, until every wanted tx is traced or timed out.
 */
export function replayBlockTimed(
  chain: ChainView,
  b: DecodedBlock,
  tracerFor: (i: number) => EvmTracer | null,
  timeoutMs: number,
  last = b.txs.length - 1,
): TimedReplay {
  const done = new Map<number, TracedTx>();
  const timedOut: number[] = [];
  for (;;) {
    const skip = new Set(timedOut);
    const r = replayOnce(chain, b, (i) => (done.has(i) || skip.has(i) ? null : tracerFor(i)), last, timeoutMs);
    for (const t of r.out) done.set(t.index, t);
    if (r.timedOut < 0) break;
    timedOut.push(r.timedOut);
    // Nothing after it to trace: no need for the right state.
    if (r.timedOut >= Math.min(last, b.txs.length - 1)) break;
  }
  return { traced: [...done.values()].sort((x, y) => x.index - y.index), timedOut: timedOut.sort((x, y) => x - y) };
}

/** One replay; stops at the first traced tx past `timeoutMs` (> 0) and names it (else -1). */
function replayOnce(
  chain: ChainView,
  b: DecodedBlock,
  tracerFor: (i: number) => EvmTracer | null,
  last: number,
  timeoutMs: number,
): { out: TracedTx[]; timedOut: number } {
  if (b.header.number === 0) throw RpcError.server("genesis is not traceable");
  const view = stateAfter(chain, b.header.parentHash);
  const state = new WorldState(new KvStateReader(view), null);
  const env = blockEnv(chain, b.header);
  const x = new BlockExecutor(state, b.header, env);
  x.evm.tracer = null;
  x.begin();
  const out: TracedTx[] = [];
  for (let i = 0; i <= last && i < b.txs.length; i++) {
    const tracer = tracerFor(i);
    const tx = b.txs[i];
    x.evm.tracer = tracer;
    x.evm.setDeadline(tracer === null ? 0 : timeoutMs);
    tracer?.onTxStart?.(txStart(x, tx, b.senders[i], x.evm.block));
    const r = x.applyTx(tx, b.senders[i]);
    x.evm.tracer = null;
    const late = timeoutMs > 0 && tracer !== null && x.evm.timedOut();
    x.evm.setDeadline(0);
    if (late) return { out, timedOut: i };
    if (typeof r === "string") {
      tracer?.onTxEnd?.({ gasUsed: 0, status: 0, error: r });
      throw RpcError.server(`tracing failed: tx ${bytesToHex(b.txHashes[i])}: ${r}`);
    }
    tracer?.onTxEnd?.({ gasUsed: r.gasUsed, status: r.status, error: null });
    if (tracer !== null) out.push({ index: i, tracer, outcome: r });
  }
  return { out, timedOut: -1 };
}

/**
 * debug_traceCall / trace_call: `msg` on the state after `header`'s block, with geth's DoCall rules.
 * With `timeoutMs` > 0 (debug_traceCall's trace timeout), a run past it fails with geth's
 * "execution timeout".
 */
export function traceMessage(
  chain: ChainView,
  header: Header,
  hash: Uint8Array,
  msg: CallMessage,
  gasCap: bigint,
  tracer: EvmTracer,
  timeoutMs = 0,
): TxOutcome {
  const view = stateAfter(chain, hash);
  const env = blockEnv(chain, header);
  const block = blockContext(header, env);
  const state = new WorldState(new KvStateReader(view), null);
  const evm = new Evm(env.rules, block, state);
  const cap = gasCap === 0n ? MAX_U64 : gasCap;
  let gas = msg.gas ?? header.gasLimit;
  if (gas > cap) gas = cap;
  const tx = messageTx(msg, gas, env.chainId);
  evm.tracer = tracer;
  evm.setDeadline(timeoutMs);
  tracer.onTxStart?.({
    from: addressToBigint(msg.from),
    to: msg.to === null ? null : addressToBigint(msg.to),
    value: msg.value,
    input: msg.data,
    gasLimit: Number(gas),
    gasPrice: msg.gasPrice ?? msg.maxFeePerGas ?? 0n,
    state,
    block,
  });
  const r = executeTx(evm, tx, {
    sender: msg.from,
    blockGasLeft: MAX_U64,
    blobGasLeft: Number.MAX_SAFE_INTEGER,
    simulate: true,
  });
  evm.tracer = null;
  if (timeoutMs > 0 && evm.timedOut()) throw RpcError.server(TRACE_TIMEOUT);
  if (typeof r === "string") {
    tracer.onTxEnd?.({ gasUsed: 0, status: 0, error: r });
    throw RpcError.server(r);
  }
  tracer.onTxEnd?.({ gasUsed: r.gasUsed, status: r.status, error: null });
  return r;
}
