/**
 * eth_call and eth_estimateGas: a message executed against a state view with geth's DoCall
 * semantics (no nonce, EOA or block-gas checks; no L1 fee; zero prices pay nothing), never
 * committed. Estimation is geth's: a first run at the cap, then a binary search between the gas the
 * successful run used and the cap, each run on a fresh WorldState over the same view.
 * Sources: go-ethereum internal/ethapi/api.go (DoCall, DoEstimateGas), eth/gasestimator.
 */
import { keccak256 } from "../crypto/keccak.js";
import type { BlockContext } from "../evm/context.js";
import { Evm } from "../evm/evm.js";
import type { EvmTracer } from "../evm/tracer.js";
import { MAX_U64 } from "../primitives/u256.js";
import { Fork, type ForkRules } from "../spec/forks.js";
import { AddressHashes } from "../state/addressHashes.js";
import { KvStateReader } from "../state/kvStateReader.js";
import { WorldState } from "../state/worldState.js";
import type { KvReader } from "../storage/kv.js";
import { MAX_TX_GAS_LIMIT_OSAKA } from "../tx/intrinsicGas.js";
import type { AccessList, Authorization, Tx } from "../tx/tx.js";
import { TxType } from "../tx/tx.js";
import { executeTx, type TxOutcome, type TxRejectCode } from "./executeTx.js";

export interface CallMessage {
  readonly from: Uint8Array;
  readonly to: Uint8Array | null;
  /** null: the cap. */
  readonly gas: bigint | null;
  readonly gasPrice: bigint | null;
  readonly maxFeePerGas: bigint | null;
  readonly maxPriorityFeePerGas: bigint | null;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly accessList: AccessList;
  readonly authorizationList?: readonly Authorization[];
}

export interface CallEnv {
  readonly rules: ForkRules;
  readonly block: BlockContext;
  readonly chainId: bigint;
  /** --rpc.gascap (0 = no cap beyond the block gas limit). */
  readonly gasCap: bigint;
}

const TX_GAS_CAP = BigInt(MAX_TX_GAS_LIMIT_OSAKA);

/** The tx the message stands for (fee fields as given; unsigned). */
export function messageTx(msg: CallMessage, gas: bigint, chainId: bigint): Tx {
  const common = { nonce: 0n, gasLimit: gas, to: msg.to, value: msg.value, data: msg.data, r: 0n, s: 0n };
  if (msg.authorizationList !== undefined && msg.authorizationList.length > 0 && msg.to !== null) {
    return {
      ...common,
      type: TxType.SetCode,
      to: msg.to,
      chainId,
      maxFeePerGas: msg.maxFeePerGas ?? msg.gasPrice ?? 0n,
      maxPriorityFeePerGas: msg.maxPriorityFeePerGas ?? msg.gasPrice ?? 0n,
      accessList: msg.accessList,
      authorizationList: msg.authorizationList,
      yParity: 0,
    };
  }
  if (msg.maxFeePerGas !== null || msg.maxPriorityFeePerGas !== null) {
    return {
      ...common,
      type: TxType.FeeMarket,
      chainId,
      maxFeePerGas: msg.maxFeePerGas ?? 0n,
      maxPriorityFeePerGas: msg.maxPriorityFeePerGas ?? 0n,
      accessList: msg.accessList,
      yParity: 0,
    };
  }
  if (msg.accessList.length > 0) {
    return {
      ...common,
      type: TxType.AccessList,
      chainId,
      gasPrice: msg.gasPrice ?? 0n,
      accessList: msg.accessList,
      yParity: 0,
    };
  }
  return { ...common, type: TxType.Legacy, gasPrice: msg.gasPrice ?? 0n, v: 0n };
}

function gasLimitOf(msg: CallMessage, env: CallEnv): bigint {
  const cap = env.gasCap === 0n ? MAX_U64 : env.gasCap;
  let gas = msg.gas ?? env.block.gasLimit;
  if (msg.gas === null && env.gasCap !== 0n && gas > cap) gas = cap;
  return gas > cap ? cap : gas;
}

/** A call stopped at its time limit (geth: `evm.Cancelled()` after `--rpc.evmtimeout`). */
export class CallTimeoutError extends Error {
  override readonly name = "CallTimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`call stopped after ${timeoutMs} ms`);
  }
}

/** This thread's account keys of recently called addresses (one-shot runs never commit). */
const ADDRESS_HASHES = new AddressHashes();
const hashOfAddress = (a: Uint8Array): Uint8Array => ADDRESS_HASHES.of(a);

/**
 * Runs `msg` once with `gas` on a fresh WorldState over `view`; with `timeoutMs` > 0, a run that
 * outlasts it stops and throws `CallTimeoutError` (its outcome is not the message's). A `tracer`
 * runs the EVM's traced loop (eth_createAccessList's access-list tracer).
 */
export function callOnce(
  view: KvReader,
  msg: CallMessage,
  gas: bigint,
  env: CallEnv,
  timeoutMs = 0,
  tracer: EvmTracer | null = null,
): TxOutcome | TxRejectCode {
  const state = new WorldState(new KvStateReader(view), null, hashOfAddress);
  const evm = new Evm(env.rules, env.block, state);
  evm.tracer = tracer;
  evm.setDeadline(timeoutMs);
  try {
    const r = executeTx(evm, messageTx(msg, gas, env.chainId), {
      sender: msg.from,
      blockGasLeft: MAX_U64,
      blobGasLeft: Number.MAX_SAFE_INTEGER,
      simulate: true,
    });
    if (timeoutMs > 0 && evm.timedOut()) throw new CallTimeoutError(timeoutMs);
    return r;
  } finally {
    evm.release();
  }
}

/** eth_call. */
export function call(view: KvReader, msg: CallMessage, env: CallEnv): TxOutcome | TxRejectCode {
  return callOnce(view, msg, gasLimitOf(msg, env), env);
}

export type EstimateResult =
  | { readonly ok: true; readonly gas: bigint }
  /** Refused before execution at `allowance`, the highest gas the search could try. */
  | { readonly ok: false; readonly reject: TxRejectCode; readonly allowance: bigint }
  /** Fails (or runs out of gas) at `allowance`, the highest gas the search could try. */
  | { readonly ok: false; readonly failed: TxOutcome; readonly allowance: bigint };

/**
 * eth_estimateGas: the smallest gas limit at which the message succeeds. The search starts from the
 * message's gas (else the block's), capped by --rpc.gascap, from Osaka (L1) and Karst (OP, which
 * runs Osaka's EVM) by EIP-7825's 2^24, and by what the sender's balance buys. SPEC: geth
 * eth/gasestimator `Estimate` ("Cap the maximum gas allowance according to EIP-7825"); reth
 * rpc-eth-api estimate.rs `tx_gas_limit_cap().min(block_gas_limit)` (the fix op-reth v2.3.3 took:
 * optimism PR 21574, reth PR 25612 — before it op-reth searched from the block gas limit and every
 * estimate without `gas` failed with "intrinsic gas too high" on Karst chains).
 */
export function estimateGas(view: KvReader, msg: CallMessage, env: CallEnv): EstimateResult {
  let hi = gasLimitOf(msg, env);
  if (env.rules.fork >= Fork.Osaka && hi > TX_GAS_CAP) hi = TX_GAS_CAP;
  // A priced message can buy at most balance / price gas (geth caps hi the same way).
  const price = msg.gasPrice ?? msg.maxFeePerGas ?? 0n;
  if (price > 0n) {
    const balance = new KvStateReader(view).account(keccak256(msg.from))?.balance ?? 0n;
    const available = (balance > msg.value ? balance - msg.value : 0n) / price;
    if (available < hi) hi = available;
  }
  const first = callOnce(view, msg, hi, env);
  if (typeof first === "string") return { ok: false, reject: first, allowance: hi };
  if (first.status !== 1) return { ok: false, failed: first, allowance: hi };
  let lo = BigInt(first.gasUsed) - 1n;
  // geth: try the used gas (plus the 63/64 headroom a CALL needs) before searching.
  const optimistic = ((BigInt(first.gasUsed) + 2300n) * 64n) / 63n;
  if (optimistic < hi) {
    const r = callOnce(view, msg, optimistic, env);
    if (typeof r !== "string" && r.status === 1) hi = optimistic;
    else lo = optimistic;
  }
  while (lo + 1n < hi) {
    const mid = (lo + hi) / 2n;
    const r = callOnce(view, msg, mid, env);
    if (typeof r !== "string" && r.status === 1) hi = mid;
    else lo = mid;
  }
  return { ok: true, gas: hi };
}
