/**
 * The `eth` namespace's method table with geth/op-geth semantics and error texts
 * (internal/ethapi/api.go, eth/filters, eth/gasprice): chain and state reads at any selector the
 * chain has state for, eth_call / eth_estimateGas / eth_createAccessList / eth_simulateV1 over the
 * `EthBackend` (backend.ts; accessList.ts, simulate.ts), tx submission to the pool (or forwarded to
 * the sequencer on OP, as op-geth does with --rollup.sequencerhttp), polling filters and WebSocket
 * subscriptions fed by the EventHub. Its parameter decoders are in ethParams.ts.
 */

import { headerHash } from "../../block/header.js";
import type { ChainView } from "../../chain/blockchain.js";
import { headerBlobBaseFee } from "../../chain/importBlock.js";
import { expectedBaseFee } from "../../chain/validateHeader.js";
import { KECCAK256_EMPTY, keccak256 } from "../../crypto/keccak.js";
import { estimateGas } from "../../executor/simulate.js";
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { JsonValue } from "../../primitives/json.js";
import { bytesToBigint } from "../../primitives/u256.js";
import { decodeHeader } from "../../rlp/decode.js";
import { rulesAt } from "../../spec/chainConfig.js";
import { KvStateReader } from "../../state/kvStateReader.js";
import { accountProof, storageProofs } from "../../trie/proof.js";
import { decodeBlobTxNetwork } from "../../tx/blobNetwork.js";
import { decodeTx, encodeTx, txHash } from "../../tx/envelope.js";
import { signTx } from "../../tx/signer.js";
import { type SignedTx, type Tx, TxType } from "../../tx/tx.js";
import type { BlobSidecarStore } from "../../txpool/blobSidecars.js";
import { checkTxFeeOf } from "../../txpool/txFeeCap.js";
import type { TxPool } from "../../txpool/txPool.js";
import { RpcError } from "../errors.js";
import type { EventHub } from "../events.js";
import { headerJson, qty } from "../format.js";
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
  quantity,
  string,
} from "../params.js";
import { type AnyMethod, type AnySubscription, defineMethod, defineSubscription } from "../registry.js";
import { pendingTxJson } from "../txpoolApi.js";
import { createAccessList } from "./accessList.js";
import { EthBackend, LATEST } from "./backend.js";
import { callMessage, checkFeeArgs, revertError, type TxArgs, txArgs } from "./callArgs.js";
import type { ChainReader, DecodedBlock } from "./chainReader.js";
import { ethConfig } from "./config.js";
import { decodeStorageKey, floatList, hexOrDecimal, storageValuesRequest, stringList } from "./ethParams.js";
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
import { simulateV1 } from "./simulate.js";

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

/** A type-3 envelope whose payload starts with a list (the tx fields): the EIP-4844 network form. */
function isNetworkForm(raw: Uint8Array): boolean {
  try {
    const outer = decodeHeader(raw, 1);
    return outer.list && decodeHeader(raw, outer.start).list;
  } catch {
    return false;
  }
}

function hexAddrKey(a: Uint8Array): string {
  return bytesToHex(a);
}

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
        let storageProof: JsonValue[] = [];
        if (keys.length > 0) {
          const outKey = (k: { key: Uint8Array; length: number }): string =>
            k.length === 32 ? bytesToHex(k.key) : qty(bytesToBigint(k.key));
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

function uncleJson(b: DecodedBlock | null, i: number): JsonValue {
  if (b === null || i >= b.body.ommers.length) return null;
  const u = b.body.ommers[i];
  const o = headerJson(u, headerHash(u), 0);
  delete o.size;
  o.uncles = [];
  return o;
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
