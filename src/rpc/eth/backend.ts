/**
 * `EthBackend`: what the eth namespace's state and execution methods share over a chain view —
 * geth's `StateAndHeaderByNumberOrHash` errors, the EVM environment of a call, eth_call-style
 * state and block overrides, geth's texts for refused messages, the gas a call runs with, and
 * eth_call itself (internal/ethapi/api.go `DoCall`). The main thread and the evmCall workers
 * (rpc/callOffload.ts) build one each.
 */
import type { Header } from "../../block/header.js";
import type { ChainView } from "../../chain/blockchain.js";
import { headerBlobBaseFee } from "../../chain/importBlock.js";
import { stateViewAt } from "../../chain/stateAt.js";
import { KECCAK256_EMPTY, keccak256 } from "../../crypto/keccak.js";
import { blockContext } from "../../executor/executeBlock.js";
import type { TxOutcome, TxRejectCode } from "../../executor/executeTx.js";
import { type CallEnv, type CallMessage, CallTimeoutError, callOnce, messageTx } from "../../executor/simulate.js";
import { toChecksumAddress } from "../../primitives/address.js";
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { bytesToBigint, MAX_U64 } from "../../primitives/u256.js";
import { rulesAt } from "../../spec/chainConfig.js";
import { OpFork } from "../../spec/forks.js";
import { KvStateReader } from "../../state/kvStateReader.js";
import type { KvReader } from "../../storage/kv.js";
import { floorDataGas, intrinsicGas } from "../../tx/intrinsicGas.js";
import { RpcError } from "../errors.js";
import { type BlockSelector, ParamError } from "../params.js";
import { callMessage, checkFeeArgs, type TxArgs } from "./callArgs.js";
import type { ChainReader } from "./chainReader.js";
import { overriddenBlock, overriddenView, parseBlockOverrides, parseStateOverrides } from "./overrides.js";

/** The "latest" selector: where the state and call methods run when no block is named. */
export const LATEST: BlockSelector = { kind: "tag", tag: "latest" };

/** A block's state to read or run on: its flat-table view, header and hash. */
export interface StateAt {
  readonly view: KvReader;
  readonly header: Header;
  readonly hash: Uint8Array;
}

/** What the read-only execution methods need: also all a worker thread has (rpc/callOffload.ts). */
export interface CallDeps {
  readonly chain: ChainView;
  readonly reader: ChainReader;
  /** --rpc.gascap (0 = none). */
  readonly gasCap: bigint;
  /**
   * --rpc.evmtimeout for eth_call run here (absent or 0: none). Calls in the evmCall pool are timed
   * by the pool (rpc/callOffload.ts), so the workers' backends leave it out.
   */
  readonly evmTimeoutMs?: number;
  /**
   * A time budget, ms, for eth_call on the main thread before the evmCall pool (rpc/callOffload.ts):
   * a call still running after it stops and `doCall` throws the `CallTimeoutError` itself, for the
   * caller to run the call again where time is no object. Absent or 0: none.
   */
  readonly budgetMs?: number;
}

/** Shared helpers over the chain (eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1, state reads). */
export class EthBackend {
  constructor(readonly deps: CallDeps) {}

  get chain(): ChainView {
    return this.deps.chain;
  }

  /** geth `HeaderByNumberOrHash` errors, as `StateAndHeaderByNumberOrHash` reports them. */
  headerAt(sel: BlockSelector): { header: Header; hash: Uint8Array } {
    const store = this.chain.store;
    if (sel.kind === "hash") {
      const h = store.header(sel.hash);
      if (h === null) throw RpcError.server("header for hash not found");
      if (sel.requireCanonical) {
        const c = store.canonicalHash(h.number);
        if (c === null || !equalBytes(c, sel.hash)) throw RpcError.server("hash is not currently canonical");
      }
      return { header: h, hash: sel.hash };
    }
    // The head is decoded in memory already: "latest" (most reads) needs no lookup.
    if (sel.kind === "tag" && (sel.tag === "latest" || sel.tag === "pending")) {
      return { header: this.chain.head, hash: this.chain.headBlockHash };
    }
    const hash = this.deps.reader.resolve(sel);
    const header = hash === null ? null : store.header(hash);
    if (hash === null || header === null) {
      if (sel.kind === "tag" && (sel.tag === "safe" || sel.tag === "finalized")) {
        throw RpcError.server(`${sel.tag} block not found`);
      }
      throw RpcError.server("header not found");
    }
    return { header, hash };
  }

  stateAt(sel: BlockSelector = LATEST): StateAt {
    const { header, hash } = this.headerAt(sel);
    const view = stateViewAt(this.chain.store, this.chain.stateBlockHash, hash);
    if (view === null) {
      throw RpcError.server(`missing trie node ${bytesToHex(header.stateRoot)} (path ) state is not available`);
    }
    return { view, header, hash };
  }

  /** The EVM environment of a call on top of `header`'s state, in `header`'s block context. */
  callEnv(header: Header, gasCap: bigint = this.deps.gasCap): CallEnv {
    const cfg = this.chain.config;
    const rules = rulesAt(cfg, header.number, header.timestamp);
    const store = this.chain.store;
    return {
      rules,
      chainId: cfg.chainId,
      gasCap,
      block: blockContext(header, {
        rules,
        chainId: cfg.chainId,
        blobBaseFee: headerBlobBaseFee(cfg, header.excessBlobGas, header.timestamp),
        maxBlobGas: 0,
        depositContract: null,
        blockHash: (n: bigint) => {
          if (n >= BigInt(header.number) || n < BigInt(header.number) - 256n || n < 0n) return 0n;
          const h = store.canonicalHash(Number(n));
          return h === null ? 0n : bytesToBigint(h);
        },
        intermediateRoot: null,
      }),
    };
  }

  /** `st` with eth_call-style state overrides applied (unchanged when absent). */
  overridden(st: StateAt, stateOv: unknown): StateAt {
    if (stateOv === undefined || stateOv === null) return st;
    return {
      ...st,
      view: overriddenView(
        st.view,
        asArg(2, () => parseStateOverrides(stateOv)),
      ),
    };
  }

  /** The call environment of `header` with eth_call-style block overrides. */
  envWith(header: Header, blockOv: unknown): CallEnv {
    const env = this.callEnv(header);
    if (blockOv === undefined || blockOv === null) return env;
    return {
      ...env,
      block: overriddenBlock(
        env.block,
        asArg(3, () => parseBlockOverrides(blockOv)),
      ),
    };
  }

  /** geth's messages for a message the state refuses before execution. */
  rejectMessage(
    code: TxRejectCode,
    view: KvReader,
    msg: CallMessage,
    gas: bigint,
    env: CallEnv,
    current?: { readonly nonce: bigint; readonly balance: bigint; readonly codeHash: Uint8Array } | null,
  ): string {
    const from = toChecksumAddress(msg.from);
    const acct = current ?? new KvStateReader(view).account(keccak256(msg.from));
    switch (code) {
      case "INSUFFICIENT_FUNDS": {
        const price = msg.gasPrice ?? msg.maxFeePerGas ?? 0n;
        return `insufficient funds for gas * price + value: address ${from} have ${acct?.balance ?? 0n} want ${gas * price + msg.value}`;
      }
      case "FEE_CAP_BELOW_BASE_FEE":
        return `max fee per gas less than block base fee: address ${from}, maxFeePerGas: ${msg.maxFeePerGas ?? msg.gasPrice ?? 0n}, baseFee: ${env.block.baseFee}`;
      case "NONCE_MAX":
        return `nonce has max value: address ${from}, nonce: ${acct?.nonce ?? 0n}`;
      case "NONCE_TOO_LOW":
        return `nonce too low: address ${from}`;
      case "NONCE_TOO_HIGH":
        return `nonce too high: address ${from}`;
      case "SENDER_NOT_EOA":
        return `sender not an eoa: address ${from}, codehash: ${bytesToHex(acct?.codeHash ?? KECCAK256_EMPTY)}`;
      case "INTRINSIC_GAS_TOO_LOW": {
        // geth core/state_transition.go: "%w: have %d, want %d" for the intrinsic gas, then (Prague)
        // for the EIP-7623 calldata floor; executeTx reports both with this one code.
        const tx = messageTx(msg, gas, env.chainId);
        const intrinsic = BigInt(intrinsicGas(tx, env.rules.fork));
        if (gas < intrinsic) return `intrinsic gas too low: have ${gas}, want ${intrinsic}`;
        return `insufficient gas for floor data gas cost: have ${gas}, want ${floorDataGas(tx)}`;
      }
      case "GAS_ALLOWANCE_EXCEEDED":
        return "gas limit reached";
      case "BLOB_FEE_CAP_BELOW_BLOB_BASE_FEE":
        return `max fee per blob gas less than block blob gas fee: address ${from}`;
      case "BLOB_GAS_EXCEEDED":
        return "blob gas limit reached";
    }
  }

  /** The gas limit of a call: the given one, else the block's, both capped (geth CallDefaults). */
  callGas(args: TxArgs, header: Header): bigint {
    const cap = this.deps.gasCap === 0n ? MAX_U64 : this.deps.gasCap;
    const gas = args.gas ?? header.gasLimit;
    return gas > cap ? cap : gas;
  }

  /**
   * The gas an eth_call runs with. geth (L1 chains, and OP chains before Karst as op-geth answers):
   * `callGas`. OP chains from Karst answer as op-reth (op-geth's support ended there), SPEC: reth
   * rpc-eth-api call.rs `prepare_call_env` (88505c7): a given gas is capped by the gas cap; without
   * one the call gets the gas cap itself (`call_gas_limit`, --rpc.gascap; our 0 = no cap, which
   * reth's "max" spells 2^64-1), or, when it names a gas price, what the sender's balance buys
   * (alloy-evm `caller_gas_allowance`: (balance − value) / price) but at most the block's gas limit.
   * Neither client applies EIP-7825's 2^24 cap to eth_call (reth sets `tx_gas_limit_cap` to
   * u64::MAX there; geth's eth_call skips the transaction checks), and neither does `callOnce`.
   */
  ethCallGas(args: TxArgs, st: StateAt, env: CallEnv): bigint {
    const op = env.rules.op;
    if (this.chain.config.optimism === null || op === null || op < OpFork.Karst) return this.callGas(args, st.header);
    const cap = this.deps.gasCap === 0n ? MAX_U64 : this.deps.gasCap;
    if (args.gas !== null) return args.gas > cap ? cap : args.gas;
    const price = args.gasPrice ?? args.maxFeePerGas ?? 0n;
    if (price === 0n) return cap;
    const from = args.from ?? new Uint8Array(20);
    const balance = new KvStateReader(st.view).account(keccak256(from))?.balance ?? 0n;
    const value = args.value ?? 0n;
    const blockGas = env.block.gasLimit;
    // A value above the balance leaves the limit at the block's; execution then refuses the call.
    if (value > balance) return blockGas;
    const allowance = (balance - value) / price;
    return allowance < blockGas ? allowance : blockGas;
  }

  /** eth_call semantics: the outcome, or a thrown RpcError for refusals. */
  doCall(args: TxArgs, sel: BlockSelector, stateOv?: unknown, blockOv?: unknown): { outcome: TxOutcome; st: StateAt } {
    const feeErr = checkFeeArgs(args);
    if (feeErr !== null) throw RpcError.server(feeErr);
    const st = this.overridden(this.stateAt(sel), stateOv);
    const env = unpricedEnv(this.envWith(st.header, blockOv), args);
    const gas = this.ethCallGas(args, st, env);
    const msg = callMessage(args, gas);
    const budgetMs = this.deps.budgetMs ?? 0;
    const timeoutMs = budgetMs > 0 ? budgetMs : (this.deps.evmTimeoutMs ?? 0);
    let r: ReturnType<typeof callOnce>;
    try {
      r = callOnce(st.view, msg, gas, env, timeoutMs);
    } catch (e) {
      if (e instanceof CallTimeoutError && budgetMs === 0) throw RpcError.executionAborted(timeoutMs);
      throw e;
    }
    if (typeof r === "string") {
      throw RpcError.server(`err: ${this.rejectMessage(r, st.view, msg, gas, env)} (supplied gas ${gas})`);
    }
    return { outcome: r, st };
  }
}

/**
 * The environment of an eth_call / eth_estimateGas run: with no gas price at all (every price field
 * absent or 0) the block's base fee is lowered to 0, so BASEFEE reads 0 as GASPRICE does and the
 * fee-cap check has nothing to refuse. SPEC: geth internal/ethapi/api.go `applyMessage` and
 * eth/gasestimator `run`: "Lower the basefee to 0 to avoid breaking EVM invariants (basefee <
 * feecap)" when `msg.GasPrice.Sign() == 0`; with a price the block's base fee stands. (geth's
 * eth_createAccessList fills the fee fields first, so its runs see the block's base fee.)
 */
export function unpricedEnv(env: CallEnv, args: TxArgs): CallEnv {
  const priced =
    (args.gasPrice ?? 0n) !== 0n || (args.maxFeePerGas ?? 0n) !== 0n || (args.maxPriorityFeePerGas ?? 0n) !== 0n;
  if (priced || env.block.baseFee === 0n) return env;
  return { ...env, block: { ...env.block, baseFee: 0n } };
}

/** Decodes a handler-decoded argument with the dispatcher's "invalid argument N: " wording. */
function asArg<T>(i: number, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ParamError) throw RpcError.invalidParams(`invalid argument ${i}: ${e.message}`);
    throw e;
  }
}
