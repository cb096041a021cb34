/**
 * The `eth` namespace with geth/op-geth semantics and error texts (internal/ethapi/api.go,
 * eth/filters, eth/gasprice): chain and state reads at any selector the chain has state for,
 * eth_call / eth_estimateGas / eth_createAccessList over `executor/simulate`, tx submission to the
 * pool (or forwarded to the sequencer on OP, as op-geth does with --rollup.sequencerhttp), polling
 * filters and WebSocket subscriptions fed by the EventHub.
 */
import { type Header, headerHash } from "../../block/header.js";
import type { ChainView } from "../../chain/blockchain.js";
import { headerBlobBaseFee } from "../../chain/importBlock.js";
import { stateViewAt } from "../../chain/stateAt.js";
import { expectedBaseFee } from "../../chain/validateHeader.js";
import { KECCAK256_EMPTY, keccak256 } from "../../crypto/keccak.js";
import { createAddress } from "../../evm/evm.js";
import { buildPrecompileTable, precompileAddress } from "../../evm/precompiles/table.js";
import { blockContext } from "../../executor/executeBlock.js";
import type { TxOutcome, TxRejectCode } from "../../executor/executeTx.js";
import { type CallEnv, type CallMessage, CallTimeoutError, callOnce, estimateGas } from "../../executor/simulate.js";
import { toChecksumAddress } from "../../primitives/address.js";
import { bytesKey, compareBytes, equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { decodeHeader } from "../../rlp/decode.js";
import { rulesAt } from "../../spec/chainConfig.js";
import { OpFork } from "../../spec/forks.js";
import { KvStateReader } from "../../state/kvStateReader.js";
import { WorldState } from "../../state/worldState.js";
import type { KvReader } from "../../storage/kv.js";
import { accountProof, storageProofs } from "../../trie/proof.js";
import { decodeBlobTxNetwork } from "../../tx/blobNetwork.js";
import { decodeTx, encodeTx, txHash } from "../../tx/envelope.js";
import { signTx } from "../../tx/signer.js";
import { type AccessList, type SignedTx, type Tx, TxType } from "../../tx/tx.js";
import type { BlobSidecarStore } from "../../txpool/blobSidecars.js";
import { checkTxFeeOf } from "../../txpool/txFeeCap.js";
import type { TxPool } from "../../txpool/txPool.js";
import { RpcError } from "../errors.js";
import type { EventHub } from "../events.js";
import { headerJson, type Json, qty } from "../format.js";
import {
  address,
  type BlockNumberSelector,
  type BlockSelector,
  blockNumber,
  blockNumberOrHash,
  bool,
  data,
  hash,
  json,
  optional,
  type ParamDecoder,
  ParamError,
  quantity,
  string,
} from "../params.js";
import { type AnyMethod, type AnySubscription, defineMethod, defineSubscription } from "../registry.js";
import { pendingTxJson } from "../txpoolApi.js";
import { callMessage, checkFeeArgs, revertError, type TxArgs, txArgs } from "./callArgs.js";
import type { ChainReader, DecodedBlock } from "./chainReader.js";
import { ethConfig } from "./config.js";
import {
  DEFAULT_LOG_QUERY_LIMITS,
  FilterManager,
  filterCriteria,
  getLogs,
  type LogQueryLimits,
  optionalFilterCriteria,
  subscribeLogs,
  subscribeNewHeads,
  subscribePendingTxs,
} from "./filters.js";
import { feeHistory, GasPriceOracle } from "./gasPrice.js";
import { overriddenBlock, overriddenView, parseBlockOverrides, parseStateOverrides, simulateV1 } from "./simulate.js";

export interface EthDeps {
  chain: ChainView;
  reader: ChainReader;
  pool: TxPool;
  /** --rpc.gascap (0 = none). */
  gasCap: bigint;
  /** --rpc.txfeecap in ether (0 = none). */
  txFeeCap: number;
  /** --rpc.evmtimeout. */
  evmTimeoutMs: number;
  /** --rpc.logquerylimit and --rpc.rangelimit (geth's defaults when absent). */
  logQueryLimits?: LogQueryLimits;
  networkId: bigint;
  clientVersion: string;
  devAccounts: readonly { address: Uint8Array; privateKey: Uint8Array }[];
  /** --rollup.sequencerhttp: forwards a raw tx and returns its hash. */
  forwardRawTx: ((raw: Uint8Array) => Promise<Uint8Array>) | null;
  events: EventHub;
  /** A dev L1's blob sidecars: blob txs arrive in the network form, their sidecars kept here. */
  blobSidecars?: BlobSidecarStore | null;
}

export interface StateAt {
  readonly view: KvReader;
  readonly header: Header;
  readonly hash: Uint8Array;
}

/** A type-3 envelope whose payload starts with a list (the tx fields): the EIP-4844 network form. */
function isNetworkForm(raw: Uint8Array): boolean {
  try {
    const outer = decodeHeader(raw, 1);
    return outer.list && decodeHeader(raw, outer.start).list;
  } catch {
    return false;
  }
}

const LATEST: BlockSelector = { kind: "tag", tag: "latest" };
const U64_MAX = (1n << 64n) - 1n;

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
}

/** Shared helpers over the chain (also used by eth_simulateV1). */
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
          return h === null ? 0n : BigInt(bytesToHex(h));
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
      case "INTRINSIC_GAS_TOO_LOW":
        return "intrinsic gas too low";
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
    const cap = this.deps.gasCap === 0n ? U64_MAX : this.deps.gasCap;
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
    const cap = this.deps.gasCap === 0n ? U64_MAX : this.deps.gasCap;
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
    const env = this.envWith(st.header, blockOv);
    const gas = this.ethCallGas(args, st, env);
    const msg = callMessage(args, gas);
    const timeoutMs = this.deps.evmTimeoutMs ?? 0;
    let r: ReturnType<typeof callOnce>;
    try {
      r = callOnce(st.view, msg, gas, env, timeoutMs);
    } catch (e) {
      if (e instanceof CallTimeoutError) throw RpcError.executionAborted(timeoutMs);
      throw e;
    }
    if (typeof r === "string") {
      throw RpcError.server(`err: ${this.rejectMessage(r, st.view, msg, gas, env)} (supplied gas ${gas})`);
    }
    return { outcome: r, st };
  }
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

function hexAddrKey(a: Uint8Array): string {
  return bytesToHex(a);
}

/** geth `decodeStorageKey`: lenient hex up to 32 bytes, left-padded. */
export function decodeStorageKey(s: string): { key: Uint8Array; length: number } {
  let raw = s.startsWith("0x") || s.startsWith("0X") ? s.slice(2) : s;
  if (raw.length % 2 === 1) raw = `0${raw}`;
  if (raw.length > 64)
    throw RpcError.invalidParams(`storage key too long (want at most 32 bytes): ${JSON.stringify(s)}`);
  if (!/^[0-9a-fA-F]*$/.test(raw)) throw RpcError.invalidParams(`invalid hex in storage key: ${JSON.stringify(s)}`);
  const b = Buffer.from(raw, "hex");
  const key = new Uint8Array(32);
  key.set(b, 32 - b.length);
  return { key, length: b.length };
}

const storageValuesRequest: ParamDecoder<Map<string, { addr: Uint8Array; keys: Uint8Array[] }>> = {
  optional: false,
  decode: (v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      throw new ParamError("json: cannot unmarshal non-object into Go value of type map[common.Address][]common.Hash");
    }
    const out = new Map<string, { addr: Uint8Array; keys: Uint8Array[] }>();
    for (const [k, list] of Object.entries(v as Record<string, unknown>)) {
      const addr = address.decode(k);
      if (!Array.isArray(list))
        throw new ParamError("json: cannot unmarshal non-array into Go value of type []common.Hash");
      out.set(k, { addr, keys: list.map((x) => hash.decode(x)) });
    }
    return out;
  },
};

const stringList: ParamDecoder<string[]> = {
  optional: false,
  decode: (v) => {
    if (v === null) return [];
    if (!Array.isArray(v)) throw new ParamError("json: cannot unmarshal non-array into Go value of type []string");
    return v.map((x) => {
      if (typeof x !== "string") throw new ParamError("json: cannot unmarshal number into Go value of type string");
      return x;
    });
  },
};

const floatList: ParamDecoder<number[]> = {
  optional: true,
  decode: (v) => {
    if (v === null || v === undefined) return [];
    if (!Array.isArray(v)) throw new ParamError("json: cannot unmarshal non-array into Go value of type []float64");
    return v.map((x) => {
      if (typeof x !== "number")
        throw new ParamError(`json: cannot unmarshal ${typeof x} into Go value of type float64`);
      return x;
    });
  },
};

/** math.HexOrDecimal64: a hex string, a decimal string, or a JSON number. */
const hexOrDecimal: ParamDecoder<number> = {
  optional: false,
  decode: (v) => {
    if (typeof v === "number" && Number.isInteger(v) && v >= 0) return v;
    if (typeof v === "string") {
      if (v.startsWith("0x") || v.startsWith("0X")) return quantity.decode(v);
      if (/^[0-9]+$/.test(v)) return Number(v);
      throw new ParamError(`invalid hex or decimal integer ${JSON.stringify(v)}`);
    }
    throw new ParamError("json: cannot unmarshal non-string into Go value of type math.HexOrDecimal64");
  },
};

/**
 * The read-only execution methods (eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1):
 * the same definitions run on the main thread and in the evmCall workers (rpc/callOffload.ts).
 */
export function ethCallMethods(be: EthBackend): AnyMethod[] {
  return [
    defineMethod({
      name: "eth_call",
      params: [txArgs, optional(blockNumberOrHash), optional(json), optional(json)],
      handler: ([args, sel, stateOv, blockOv]) => {
        const { outcome } = be.doCall(args, sel ?? LATEST, stateOv, blockOv);
        if (outcome.status !== 1) {
          if (outcome.error === "execution reverted" || outcome.error === null) throw revertError(outcome.output);
          throw RpcError.server(outcome.error);
        }
        return bytesToHex(outcome.output);
      },
    }),
    defineMethod({
      name: "eth_estimateGas",
      params: [txArgs, optional(blockNumberOrHash), optional(json), optional(json)],
      handler: ([args, sel, stateOv, blockOv]) => {
        const feeErr = checkFeeArgs(args);
        if (feeErr !== null) throw RpcError.server(feeErr);
        const st = be.overridden(be.stateAt(sel ?? LATEST), stateOv);
        const env = be.envWith(st.header, blockOv);
        const msg = callMessage(args, args.gas);
        const r = estimateGas(st.view, msg, env);
        if (r.ok) return qty(r.gas);
        if ("reject" in r) {
          const gas = be.callGas(args, st.header);
          throw RpcError.server(be.rejectMessage(r.reject, st.view, msg, gas, env));
        }
        const f = r.failed;
        if (f.error === "execution reverted") throw revertError(f.output);
        // geth gasestimator: the allowance named is the highest gas tried (after the gas cap, the
        // EIP-7825 cap and the balance).
        if (f.error === "out of gas" || f.error === null)
          throw RpcError.server(`gas required exceeds allowance (${r.allowance})`);
        throw RpcError.server(f.error);
      },
    }),
    defineMethod({
      name: "eth_createAccessList",
      params: [txArgs, optional(blockNumberOrHash), optional(json)],
      handler: ([args, sel, stateOv]) => createAccessList(be, args, sel ?? LATEST, stateOv),
    }),
    defineMethod({
      name: "eth_simulateV1",
      params: [json, optional(blockNumberOrHash)],
      handler: ([opts, sel]) => simulateV1(be, opts, sel ?? LATEST),
    }),
  ];
}

export function ethApi(deps: EthDeps): (AnyMethod | AnySubscription)[] {
  const { chain, reader, pool, events } = deps;
  const be = new EthBackend(deps);
  const oracle = new GasPriceOracle(chain, reader);
  const logLimits = deps.logQueryLimits ?? DEFAULT_LOG_QUERY_LIMITS;
  const filters = new FilterManager(reader, events, Date.now, logLimits);

  const blockBySel = (sel: BlockNumberSelector | BlockSelector): DecodedBlock | null => {
    const h = reader.resolve(sel);
    return h === null ? null : reader.block(h);
  };

  const nextBaseFee = (): bigint => {
    const h = chain.head;
    const next = rulesAt(chain.config, h.number + 1, h.timestamp);
    return expectedBaseFee(h, chain.config, next.op) ?? 0n;
  };

  const sendRaw = async (raw: Uint8Array): Promise<string> => {
    let tx: Tx;
    const sidecars = deps.blobSidecars ?? null;
    if (sidecars !== null && raw[0] === TxType.Blob && isNetworkForm(raw)) {
      // EIP-4844 network form: verify and keep the sidecars, pool the canonical tx.
      let w: ReturnType<typeof decodeBlobTxNetwork>;
      try {
        w = decodeBlobTxNetwork(raw);
        sidecars.add(w);
      } catch (e) {
        throw RpcError.server((e as Error).message);
      }
      const canonical = encodeTx(w.tx);
      return submit(decodeTx(canonical) as SignedTx, canonical);
    }
    try {
      tx = decodeTx(raw);
    } catch (e) {
      throw RpcError.server((e as Error).message);
    }
    if (tx.type === TxType.Deposit) throw RpcError.server("transaction type not supported");
    return submit(tx as SignedTx, raw);
  };

  const submit = async (tx: SignedTx, raw: Uint8Array): Promise<string> => {
    const feeErr = checkTxFeeOf(tx, deps.txFeeCap);
    if (feeErr !== null) throw RpcError.server(feeErr);
    if (tx.type === TxType.Legacy && !isProtected(tx)) {
      throw RpcError.server("only replay-protected (EIP-155) transactions allowed over RPC");
    }
    const h = txHash(tx);
    if (deps.forwardRawTx !== null) {
      // op-geth: forward to the sequencer, then keep a local copy (errors only logged).
      await deps.forwardRawTx(raw);
      await pool.add([raw], true).catch(() => undefined);
      return bytesToHex(h);
    }
    const [r] = await pool.add([raw], true);
    if (r.error !== null) {
      // geth answers every pool refusal with -32000; the op-reth refusals carry reth's code.
      throw r.error.rpcCode === undefined
        ? RpcError.server(r.error.message)
        : new RpcError(r.error.rpcCode, r.error.message);
    }
    return bytesToHex(h);
  };

  const stateArgs = (sel: BlockSelector | undefined) => be.stateAt(sel ?? LATEST);

  const methods: (AnyMethod | AnySubscription)[] = [
    defineMethod({ name: "eth_blockNumber", params: [], handler: () => qty(chain.head.number) }),
    defineMethod({ name: "eth_chainId", params: [], handler: () => qty(chain.config.chainId) }),
    defineMethod({ name: "eth_syncing", params: [], handler: () => false }),
    defineMethod({ name: "eth_gasPrice", params: [], handler: () => qty(oracle.suggestGasPrice()) }),
    defineMethod({ name: "eth_maxPriorityFeePerGas", params: [], handler: () => qty(oracle.suggestTip()) }),
    defineMethod({ name: "eth_baseFee", params: [], handler: () => qty(nextBaseFee()) }),
    defineMethod({
      name: "eth_blobBaseFee",
      params: [],
      handler: () => qty(headerBlobBaseFee(chain.config, chain.head.excessBlobGas ?? 0, chain.head.timestamp)),
    }),
    defineMethod({
      name: "eth_feeHistory",
      params: [hexOrDecimal, blockNumber, floatList],
      handler: ([count, last, pct]) => feeHistory(chain, reader, count, last, pct),
    }),
    defineMethod({ name: "eth_config", params: [], handler: () => ethConfig(chain) }),
    defineMethod({
      name: "eth_capabilities",
      params: [],
      handler: () => {
        const avail = { disabled: false, oldestBlock: "0x0" };
        return {
          head: { number: qty(chain.head.number), hash: bytesToHex(chain.headBlockHash) },
          state: avail,
          tx: avail,
          logs: avail,
          receipts: avail,
          blocks: avail,
          stateproofs: avail,
        };
      },
    }),
    defineMethod({
      name: "eth_accounts",
      params: [],
      handler: () => deps.devAccounts.map((a) => bytesToHex(a.address)),
    }),

    // ---- state ----------------------------------------------------------------------------------
    defineMethod({
      name: "eth_getBalance",
      params: [address, optional(blockNumberOrHash)],
      handler: ([addr, sel]) => {
        const st = stateArgs(sel);
        return qty(new KvStateReader(st.view).account(keccak256(addr))?.balance ?? 0n);
      },
    }),
    defineMethod({
      name: "eth_getCode",
      params: [address, optional(blockNumberOrHash)],
      handler: ([addr, sel]) => {
        const r = new KvStateReader(stateArgs(sel).view);
        const a = r.account(keccak256(addr));
        return bytesToHex(a === null ? new Uint8Array(0) : r.code(a.codeHash));
      },
    }),
    defineMethod({
      name: "eth_getStorageAt",
      params: [address, string, optional(blockNumberOrHash)],
      handler: ([addr, keyHex, sel]) => {
        const st = stateArgs(sel);
        const { key } = decodeStorageKey(keyHex);
        const v = new KvStateReader(st.view).storage(keccak256(addr), keccak256(key));
        return `0x${v.toString(16).padStart(64, "0")}`;
      },
    }),
    defineMethod({
      name: "eth_getStorageValues",
      params: [storageValuesRequest, optional(blockNumberOrHash)],
      handler: ([req, sel]) => {
        let total = 0;
        for (const { keys } of req.values()) total += keys.length;
        if (total > 1024) throw new RpcError(-32005, "too many slots (max 1024)");
        if (total === 0) throw RpcError.invalidParams("empty request");
        const r = new KvStateReader(stateArgs(sel).view);
        const out: Record<string, string[]> = {};
        for (const { addr, keys } of req.values()) {
          const ha = keccak256(addr);
          out[hexAddrKey(addr)] = keys.map((k) => `0x${r.storage(ha, keccak256(k)).toString(16).padStart(64, "0")}`);
        }
        return out;
      },
    }),
    defineMethod({
      name: "eth_getTransactionCount",
      params: [address, optional(blockNumberOrHash)],
      handler: ([addr, sel]) => {
        if (sel?.kind === "tag" && sel.tag === "pending") return qty(pool.nonceAt(addr));
        const st = stateArgs(sel);
        return qty(new KvStateReader(st.view).account(keccak256(addr))?.nonce ?? 0n);
      },
    }),
    defineMethod({
      name: "eth_getProof",
      params: [address, stringList, optional(blockNumberOrHash)],
      handler: ([addr, keyStrs, sel]) => {
        if (keyStrs.length > 1024) {
          throw RpcError.invalidParams(`too many storage keys requested (max 1024, got ${keyStrs.length})`);
        }
        const keys = keyStrs.map((k) => decodeStorageKey(k));
        const st = stateArgs(sel);
        const ha = keccak256(addr);
        const acct = new KvStateReader(st.view).account(ha);
        const ap = accountProof(st.view, ha);
        const storageHash = acct?.storageRoot ?? EMPTY_ROOT;
        let storageProof: Json[] = [];
        if (keys.length > 0) {
          const outKey = (k: { key: Uint8Array; length: number }): string =>
            k.length === 32 ? bytesToHex(k.key) : qty(BigInt(bytesToHex(k.key)));
          if (acct === null || equalBytes(storageHash, EMPTY_ROOT)) {
            storageProof = keys.map((k) => ({ key: outKey(k), value: "0x0", proof: [] }));
          } else {
            const sp = storageProofs(
              st.view,
              ha,
              keys.map((k) => keccak256(k.key)),
            );
            const r = new KvStateReader(st.view);
            storageProof = keys.map((k, i) => ({
              key: outKey(k),
              value: qty(r.storage(ha, keccak256(k.key))),
              proof: sp.proofs[i].proof.map((n) => bytesToHex(n)),
            }));
          }
        }
        return {
          address: bytesToHex(addr),
          accountProof: ap.proof.proof.map((n) => bytesToHex(n)),
          balance: qty(acct?.balance ?? 0n),
          codeHash: bytesToHex(acct?.codeHash ?? (acct === null ? ZERO32 : KECCAK256_EMPTY)),
          nonce: qty(acct?.nonce ?? 0n),
          storageHash: bytesToHex(acct === null ? ZERO32 : storageHash),
          storageProof,
        };
      },
    }),

    ...ethCallMethods(be),

    // ---- submission -----------------------------------------------------------------------------
    defineMethod({ name: "eth_sendRawTransaction", params: [data], handler: ([raw]) => sendRaw(raw) }),
    defineMethod({
      name: "eth_sendTransaction",
      params: [txArgs],
      handler: async ([args]) => {
        const from = args.from;
        const acct = from === null ? undefined : deps.devAccounts.find((a) => equalBytes(a.address, from));
        if (from === null || acct === undefined) throw RpcError.server("unknown account");
        const tx = await fillTx(be, pool, oracle, args, from);
        const signed = signTx(tx, acct.privateKey, chain.config.chainId);
        return submit(signed, encodeTx(signed));
      },
    }),

    // ---- blocks ---------------------------------------------------------------------------------
    defineMethod({
      name: "eth_getBlockByNumber",
      params: [blockNumber, bool],
      handler: ([sel, full]) => {
        const h = reader.resolve(sel);
        return h === null ? null : reader.blockJson(h, full);
      },
    }),
    defineMethod({
      name: "eth_getBlockByHash",
      params: [hash, bool],
      handler: ([h, full]) => reader.blockJson(h, full),
    }),
    defineMethod({
      name: "eth_getHeaderByNumber",
      params: [blockNumber],
      handler: ([sel]) => {
        const b = blockBySel(sel);
        return b === null ? null : headerJson(b.header, b.hash, b.size);
      },
    }),
    defineMethod({
      name: "eth_getHeaderByHash",
      params: [hash],
      handler: ([h]) => {
        const b = reader.block(h);
        return b === null ? null : headerJson(b.header, b.hash, b.size);
      },
    }),
    defineMethod({
      name: "eth_getBlockReceipts",
      params: [blockNumberOrHash],
      handler: ([sel]) => {
        if (sel.kind === "tag" && sel.tag === "pending") throw RpcError.server("pending receipts is not available");
        const b = blockBySel(sel);
        return b === null ? null : reader.receiptsJson(b);
      },
    }),
    defineMethod({
      name: "eth_getBlockTransactionCountByNumber",
      params: [blockNumber],
      handler: ([sel]) => {
        const b = blockBySel(sel);
        return b === null ? null : qty(b.txs.length);
      },
    }),
    defineMethod({
      name: "eth_getBlockTransactionCountByHash",
      params: [hash],
      handler: ([h]) => {
        const b = reader.block(h);
        return b === null ? null : qty(b.txs.length);
      },
    }),
    defineMethod({
      name: "eth_getUncleCountByBlockNumber",
      params: [blockNumber],
      handler: ([sel]) => {
        const b = blockBySel(sel);
        return b === null ? null : qty(b.body.ommers.length);
      },
    }),
    defineMethod({
      name: "eth_getUncleCountByBlockHash",
      params: [hash],
      handler: ([h]) => {
        const b = reader.block(h);
        return b === null ? null : qty(b.body.ommers.length);
      },
    }),
    defineMethod({
      name: "eth_getUncleByBlockNumberAndIndex",
      params: [blockNumber, quantity],
      handler: ([sel, i]) => uncleJson(blockBySel(sel), i),
    }),
    defineMethod({
      name: "eth_getUncleByBlockHashAndIndex",
      params: [hash, quantity],
      handler: ([h, i]) => uncleJson(reader.block(h), i),
    }),

    // ---- transactions ---------------------------------------------------------------------------
    defineMethod({
      name: "eth_getTransactionByHash",
      params: [hash],
      handler: ([h]) => {
        const t = reader.txByHash(h);
        if (t !== null) return t;
        const p = pool.get(h);
        return p === null ? null : pendingTxJson(p);
      },
    }),
    defineMethod({
      name: "eth_getRawTransactionByHash",
      params: [hash],
      handler: ([h]) => {
        const at = reader.locate(h);
        if (at !== null) return bytesToHex(at.block.body.transactions[at.index]);
        const p = pool.get(h);
        return p === null ? "0x" : bytesToHex(p.encoded);
      },
    }),
    defineMethod({
      name: "eth_getTransactionByBlockNumberAndIndex",
      params: [blockNumber, quantity],
      handler: ([sel, i]) => {
        const b = blockBySel(sel);
        return b === null || i >= b.txs.length ? null : reader.txJsonAt(b, i);
      },
    }),
    defineMethod({
      name: "eth_getTransactionByBlockHashAndIndex",
      params: [hash, quantity],
      handler: ([h, i]) => {
        const b = reader.block(h);
        return b === null || i >= b.txs.length ? null : reader.txJsonAt(b, i);
      },
    }),
    defineMethod({
      name: "eth_getRawTransactionByBlockNumberAndIndex",
      params: [blockNumber, quantity],
      handler: ([sel, i]) => {
        const b = blockBySel(sel);
        return b === null || i >= b.txs.length ? "0x" : bytesToHex(b.body.transactions[i]);
      },
    }),
    defineMethod({
      name: "eth_getRawTransactionByBlockHashAndIndex",
      params: [hash, quantity],
      handler: ([h, i]) => {
        const b = reader.block(h);
        return b === null || i >= b.txs.length ? "0x" : bytesToHex(b.body.transactions[i]);
      },
    }),
    defineMethod({
      name: "eth_getTransactionReceipt",
      params: [hash],
      handler: ([h]) => reader.receiptByTxHash(h),
    }),

    // ---- logs and filters -----------------------------------------------------------------------
    defineMethod({ name: "eth_getLogs", params: [filterCriteria], handler: ([c]) => getLogs(reader, c, logLimits) }),
    defineMethod({ name: "eth_newFilter", params: [filterCriteria], handler: ([c]) => filters.newLogFilter(c) }),
    defineMethod({ name: "eth_newBlockFilter", params: [], handler: () => filters.newBlockFilter() }),
    defineMethod({
      name: "eth_newPendingTransactionFilter",
      params: [optional(bool)],
      handler: () => filters.newPendingTxFilter(),
    }),
    defineMethod({ name: "eth_getFilterChanges", params: [string], handler: ([id]) => filters.changes(id) }),
    defineMethod({ name: "eth_getFilterLogs", params: [string], handler: ([id]) => filters.filterLogs(id) }),
    defineMethod({ name: "eth_uninstallFilter", params: [string], handler: ([id]) => filters.uninstall(id) }),

    // ---- subscriptions --------------------------------------------------------------------------
    defineSubscription({
      namespace: "eth",
      name: "newHeads",
      params: [],
      handler: (_p, sub) => subscribeNewHeads(reader, events, sub),
    }),
    defineSubscription({
      namespace: "eth",
      name: "logs",
      params: [optionalFilterCriteria],
      handler: ([crit], sub) =>
        subscribeLogs(
          reader,
          events,
          sub,
          crit ?? { blockHash: null, fromBlock: null, toBlock: null, addresses: [], topics: [] },
          logLimits.logQueryLimit,
        ),
    }),
    defineSubscription({
      namespace: "eth",
      name: "newPendingTransactions",
      params: [optional(bool)],
      handler: ([full], sub) => subscribePendingTxs(events, sub, full === true),
    }),
  ];
  return methods;
}

const EMPTY_ROOT = Uint8Array.from(
  Buffer.from("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421", "hex"),
);
const ZERO32 = new Uint8Array(32);

function isProtected(tx: Tx): boolean {
  if (tx.type !== TxType.Legacy) return true;
  return tx.v !== 27n && tx.v !== 28n;
}

function uncleJson(b: DecodedBlock | null, i: number): Json {
  if (b === null || i >= b.body.ommers.length) return null;
  const u = b.body.ommers[i];
  const o = headerJson(u, headerHash(u), 0);
  delete o.size;
  o.uncles = [];
  return o;
}

/** geth `AccessList`: run until the touched set is stable; sender, recipient and precompiles excluded. */
function createAccessList(be: EthBackend, args: TxArgs, sel: BlockSelector, stateOv: unknown): Record<string, Json> {
  const feeErr = checkFeeArgs(args);
  if (feeErr !== null) throw RpcError.server(feeErr);
  const st = be.overridden(be.stateAt(sel), stateOv);
  const env = be.callEnv(st.header);
  const gas = be.callGas(args, st.header);
  const from = args.from ?? new Uint8Array(20);
  const reader = new KvStateReader(st.view);
  const nonce = args.nonce ?? reader.account(keccak256(from))?.nonce ?? 0n;
  const to = args.to ?? bigintToAddr(createAddress(from, nonce));
  const excluded = new Set<string>([bytesKey(from), bytesKey(to)]);
  for (const id of buildPrecompileTable(env.rules).keys()) excluded.add(bytesKey(precompileAddress(id)));
  let list: AccessList = args.accessList ?? [];
  for (let round = 0; round < 16; round++) {
    const msg: CallMessage = { ...callMessage(args, gas), accessList: list };
    const touched = new Map<string, { addr: Uint8Array; slots: Map<string, Uint8Array> }>();
    const r = runTracked(st.view, msg, gas, env, touched);
    if (typeof r === "string") {
      throw RpcError.server(
        `failed to apply transaction: err: ${be.rejectMessage(r, st.view, msg, gas, env)} (supplied gas ${gas})`,
      );
    }
    for (const e of list) {
      const k = bytesKey(e.address);
      if (!touched.has(k)) touched.set(k, { addr: e.address, slots: new Map() });
      for (const s of e.storageKeys) touched.get(k)!.slots.set(bytesKey(s), s);
    }
    const next: AccessList = [...touched.values()]
      .filter((t) => !excluded.has(bytesKey(t.addr)) || t.slots.size > 0)
      .sort((a, b) => compareBytes(a.addr, b.addr))
      .map((t) => ({ address: t.addr, storageKeys: [...t.slots.values()].sort(compareBytes) }));
    if (sameList(next, list)) {
      const out: Record<string, Json> = {
        accessList: next.map((e) => ({
          address: bytesToHex(e.address),
          storageKeys: e.storageKeys.map((k) => bytesToHex(k)),
        })),
        gasUsed: qty(r.gasUsed),
      };
      if (r.status !== 1)
        out.error = r.error === "execution reverted" ? "execution reverted" : (r.error ?? "execution reverted");
      return out;
    }
    list = next;
  }
  throw RpcError.server("access list did not converge");
}

function sameList(a: AccessList, b: AccessList): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (!equalBytes(a[i].address, b[i].address) || a[i].storageKeys.length !== b[i].storageKeys.length) return false;
    for (let j = 0; j < a[i].storageKeys.length; j++)
      if (!equalBytes(a[i].storageKeys[j], b[i].storageKeys[j])) return false;
  }
  return true;
}

function bigintToAddr(v: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(v.toString(16).padStart(40, "0"), "hex"));
}

function bigintToWord(v: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(v.toString(16).padStart(64, "0"), "hex"));
}

/** callOnce with the WorldState's access-set hooks recording every address and slot the EVM warms. */
function runTracked(
  view: KvReader,
  msg: CallMessage,
  gas: bigint,
  env: CallEnv,
  touched: Map<string, { addr: Uint8Array; slots: Map<string, Uint8Array> }>,
): TxOutcome | TxRejectCode {
  const proto = WorldState.prototype as unknown as {
    warmAddress(a: bigint): boolean;
    warmSlot(a: bigint, s: bigint): boolean;
  };
  const origAddr = proto.warmAddress;
  const origSlot = proto.warmSlot;
  const entry = (a: bigint) => {
    const addr = bigintToAddr(a);
    const k = bytesKey(addr);
    let e = touched.get(k);
    if (e === undefined) {
      e = { addr, slots: new Map() };
      touched.set(k, e);
    }
    return e;
  };
  const coinbase = env.block.coinbase;
  proto.warmAddress = function (this: WorldState, a: bigint): boolean {
    if (a !== coinbase) entry(a);
    return origAddr.call(this, a);
  };
  proto.warmSlot = function (this: WorldState, a: bigint, s: bigint): boolean {
    const w = bigintToWord(s);
    entry(a).slots.set(bytesKey(w), w);
    return origSlot.call(this, a, s);
  };
  try {
    return callOnce(view, msg, gas, env);
  } finally {
    proto.warmAddress = origAddr;
    proto.warmSlot = origSlot;
  }
}

/** geth `setDefaults` for eth_sendTransaction: nonce from the pool, fees from the oracle, gas estimated. */
async function fillTx(
  be: EthBackend,
  pool: TxPool,
  oracle: GasPriceOracle,
  args: TxArgs,
  from: Uint8Array,
): Promise<SignedTx> {
  const chainId = be.chain.config.chainId;
  const nonce = args.nonce ?? pool.nonceAt(from);
  const value = args.value ?? 0n;
  const input = args.input ?? new Uint8Array(0);
  let gas = args.gas;
  if (gas === null) {
    const st = be.stateAt(LATEST);
    const r = estimateGas(st.view, callMessage(args, null), be.callEnv(st.header));
    if (!r.ok) {
      if ("failed" in r && r.failed.error === "execution reverted") throw revertError(r.failed.output);
      throw RpcError.server("gas required exceeds allowance");
    }
    gas = r.gas;
  }
  const london = be.chain.head.baseFeePerGas !== null;
  if (args.gasPrice !== null || !london) {
    const gasPrice = args.gasPrice ?? oracle.suggestGasPrice();
    if (args.accessList !== null) {
      return {
        type: TxType.AccessList,
        chainId,
        nonce,
        gasPrice,
        gasLimit: gas,
        to: args.to,
        value,
        data: input,
        accessList: args.accessList,
        yParity: 0,
        r: 0n,
        s: 0n,
      };
    }
    return {
      type: TxType.Legacy,
      nonce,
      gasPrice,
      gasLimit: gas,
      to: args.to,
      value,
      data: input,
      v: 0n,
      r: 0n,
      s: 0n,
    };
  }
  const tip = args.maxPriorityFeePerGas ?? oracle.suggestTip();
  const maxFee = args.maxFeePerGas ?? tip + 2n * (be.chain.head.baseFeePerGas ?? 0n);
  if (args.authorizationList !== null && args.to !== null) {
    return {
      type: TxType.SetCode,
      chainId,
      nonce,
      maxPriorityFeePerGas: tip,
      maxFeePerGas: maxFee,
      gasLimit: gas,
      to: args.to,
      value,
      data: input,
      accessList: args.accessList ?? [],
      authorizationList: args.authorizationList,
      yParity: 0,
      r: 0n,
      s: 0n,
    };
  }
  return {
    type: TxType.FeeMarket,
    chainId,
    nonce,
    maxPriorityFeePerGas: tip,
    maxFeePerGas: maxFee,
    gasLimit: gas,
    to: args.to,
    value,
    data: input,
    accessList: args.accessList ?? [],
    yParity: 0,
    r: 0n,
    s: 0n,
  };
}
