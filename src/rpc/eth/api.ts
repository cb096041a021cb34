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
import type { SyncProgress } from "../../devp2p/sync/downloader.js";
import { estimateGas } from "../../executor/simulate.js";
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { JsonValue } from "../../primitives/json.js";
import { bytesToBigint } from "../../primitives/u256.js";
import { decodeHeader } from "../../rlp/decode.js";
import { rulesAt } from "../../spec/chainConfig.js";
import { AddressHashes } from "../../state/addressHashes.js";
import { KvStateReader } from "../../state/kvStateReader.js";
import { accountProof, storageProofs } from "../../trie/proof.js";
import { decodeBlobTxNetwork } from "../../tx/blobNetwork.js";
import { decodeTx, encodeTx, txHash } from "../../tx/envelope.js";
import { TxError } from "../../tx/errors.js";
import { recoverSender, signTx } from "../../tx/signer.js";
import { type SignedTx, type Tx, TxType } from "../../tx/tx.js";
import type { BlobSidecarStore } from "../../txpool/blobSidecars.js";
import { isTemporaryReject, type TxPoolRejection } from "../../txpool/errors.js";
import type { LocalTxTracker } from "../../txpool/localTxTracker.js";
import type { TxConditional } from "../../txpool/txConditional.js";
import { checkTxFeeOf } from "../../txpool/txFeeCap.js";
import type { TxPool } from "../../txpool/txPool.js";
import { Slicer } from "../../util/slicer.js";
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
import { EthBackend, LATEST, unpricedEnv } from "./backend.js";
import { blockReceiptsJson } from "./blockReceipts.js";
import { callMessage, checkFeeArgs, revertError, txArgs } from "./callArgs.js";
import type { ChainReader, DecodedBlock } from "./chainReader.js";
import { CostRateLimiter, checkConditionalAtHead, conditionalJson, txConditional, waitForCost } from "./conditional.js";
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
import { estimateGasVia, fillTransaction, type SignDeps, signMethods, UNKNOWN_ACCOUNT } from "./sign.js";
import { simulateV1 } from "./simulate.js";

export interface EthDeps {
  chain: ChainView;
  reader: ChainReader;
  pool: TxPool;
  /**
   * The locals tracker (`--txpool.nolocals` off): RPC submissions the pool refused for a temporary
   * reason are kept and answered with their hash, as geth's SendTx does; null or absent: none.
   */
  localTxs?: LocalTxTracker | null;
  /** --rpc.gascap (0 = none). */
  gasCap: bigint;
  /** --rpc.txfeecap in ether (0 = none). */
  txFeeCap: number;
  /** --rpc.evmtimeout. */
  evmTimeoutMs: number;
  /** --rpc.logquerylimit, --rpc.rangelimit and the reply cap (geth's defaults when absent). */
  logQueryLimits?: LogQueryLimits;
  /** Runs the long reads (eth_getLogs, eth_getFilterLogs) in slices; one per node, shared by its APIs. */
  slicer?: Slicer;
  networkId: bigint;
  clientVersion: string;
  devAccounts: readonly { address: Uint8Array; privateKey: Uint8Array }[];
  /** --rpc.allow-unprotected-txs: take pre-EIP-155 legacy txs over RPC (geth refuses them by default). */
  allowUnprotectedTxs?: boolean;
  /** --rollup.sequencerhttp: forwards a raw tx and returns its hash. */
  forwardRawTx: ((raw: Uint8Array) => Promise<Uint8Array>) | null;
  events: EventHub;
  /** A dev L1's blob sidecars: blob txs arrive in the network form, their sidecars kept here. */
  blobSidecars?: BlobSidecarStore | null;
  /**
   * `--rollup.sequencertxconditionalenabled`: serve eth_sendRawTransactionConditional, its cost
   * taken at `costRateLimit` lookups a second (`--rollup.sequencertxconditionalcostratelimit`).
   * Absent or null: the method is not served (op-geth does not register it).
   */
  txConditional?: { readonly costRateLimit: number } | null;
  /** With --rollup.sequencerhttp: sends a conditional tx on to the sequencer and returns its hash. */
  forwardRawTxConditional?: ((raw: Uint8Array, conditional: JsonValue) => Promise<Uint8Array>) | null;
  /** The execution-layer sync's progress (devp2p/sync/downloader.ts `progress`); absent: never syncing. */
  syncProgress?: (() => SyncProgress | null) | null;
}

/**
 * eth_syncing as geth answers it: false when not syncing (or caught up), else the block numbers and
 * geth's snap-sync counters, which a full-execution sync leaves at zero.
 */
function syncingJson(p: SyncProgress | null): JsonValue {
  if (p === null || p.currentBlock >= p.highestBlock) return false;
  const zero = "0x0";
  return {
    startingBlock: qty(p.startingBlock),
    currentBlock: qty(p.currentBlock),
    highestBlock: qty(p.highestBlock),
    syncedAccounts: zero,
    syncedAccountBytes: zero,
    syncedBytecodes: zero,
    syncedBytecodeBytes: zero,
    syncedStorage: zero,
    syncedStorageBytes: zero,
    healedTrienodes: zero,
    healedTrienodeBytes: zero,
    healedBytecodes: zero,
    healedBytecodeBytes: zero,
    healingTrienodes: zero,
    healingBytecode: zero,
    txIndexFinishedBlocks: zero,
    txIndexRemainingBlocks: zero,
  };
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
        const env = unpricedEnv(be.envWith(st.header, blockOv), args);
        // geth gasestimator: a given gas below 21,000 does not bound the search (hi = the block's).
        const msg = callMessage(args, args.gas !== null && args.gas < TX_GAS ? null : args.gas);
        // geth gasestimator `Estimate`: a priced estimate whose value is not below the balance fails
        // before any run (core.ErrInsufficientFundsForTransfer).
        const feeCap = args.gasPrice ?? args.maxFeePerGas ?? 0n;
        if (feeCap > 0n && msg.value >= (new KvStateReader(st.view).account(keccak256(msg.from))?.balance ?? 0n)) {
          throw RpcError.server("insufficient funds for transfer");
        }
        const r = estimateGas(st.view, msg, env);
        if (r.ok) return qty(r.gas);
        if ("reject" in r) {
          // geth gasestimator `execute`: too little gas for the intrinsic cost at the highest gas it
          // may try (a gas cap below it) is a failed run, reported as the allowance exceeded;
          // other refusals come back wrapped by `run` ("failed with %d gas: %w").
          if (r.reject === "INTRINSIC_GAS_TOO_LOW") {
            throw RpcError.server(`gas required exceeds allowance (${r.allowance})`);
          }
          const text = be.rejectMessage(r.reject, st.view, msg, r.allowance, env);
          throw RpcError.server(`failed with ${r.allowance} gas: ${text}`);
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
  const slicer = deps.slicer ?? new Slicer();
  const filters = new FilterManager(reader, events, Date.now, logLimits, slicer);

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
    const d = decodeRaw(raw);
    return submit(d.tx, d.raw);
  };

  /**
   * The tx of eth_sendRawTransaction(Conditional) and the canonical bytes to pool, with geth's
   * refusals. A blob tx arrives in the network form (EIP-4844 wrapper, or EIP-7594's cell-proof
   * wrapper from Osaka): on an L1 node its sidecars are verified and kept in the node's store (geth's
   * blobpool keeps them; every L1 node has one), and one without sidecars is refused as geth's
   * blobpool refuses it. On an OP chain a blob tx is refused in either form after decoding, as
   * op-geth's `SendTx` does before forwarding or pooling ("transaction type not supported").
   */
  const decodeRaw = (raw: Uint8Array): { tx: SignedTx; raw: Uint8Array } => {
    const op = chain.config.optimism !== null;
    const sidecars = deps.blobSidecars ?? null;
    if (raw[0] === TxType.Blob && isNetworkForm(raw)) {
      let w: ReturnType<typeof decodeBlobTxNetwork>;
      try {
        w = decodeBlobTxNetwork(raw);
      } catch (e) {
        throw RpcError.server((e as Error).message);
      }
      if (op) throw RpcError.server(TX_TYPE_NOT_SUPPORTED);
      if (sidecars !== null) {
        try {
          sidecars.add(w);
        } catch (e) {
          throw RpcError.server((e as Error).message);
        }
      }
      // Without a store (an API built without one) the pool, which then takes no blob txs, refuses it.
      const canonical = encodeTx(w.tx);
      return { tx: decodeTx(canonical) as SignedTx, raw: canonical };
    }
    let tx: Tx;
    try {
      tx = decodeTx(raw);
    } catch (e) {
      throw RpcError.server(rawTxDecodeError(raw, e));
    }
    if (tx.type === TxType.Deposit) throw RpcError.server(TX_TYPE_NOT_SUPPORTED);
    if (tx.type === TxType.Blob) {
      if (op) throw RpcError.server(TX_TYPE_NOT_SUPPORTED);
      // SPEC: geth core/txpool/validation.go `validateBlobSidecar`.
      if (sidecars !== null) throw RpcError.server("missing sidecar in blob transaction");
    }
    return { tx: tx as SignedTx, raw };
  };

  const localTxs = deps.localTxs ?? null;
  /** Hands a submission the pool took or refused for now to the locals tracker; false: not tracked. */
  const trackLocal = (
    tx: SignedTx,
    raw: Uint8Array,
    hash: Uint8Array,
    error: TxPoolRejection | null,
    conditional: TxConditional | null,
  ): boolean => {
    if (localTxs === null || conditional !== null || tx.type === TxType.Blob) return false;
    if (error !== null && !isTemporaryReject(error.code)) return false;
    const pooled = pool.get(hash);
    const sender = pooled?.sender ?? recoverSender(tx);
    if (sender === null) return false;
    // raw may be a view into the request body: keep a copy of the tx's bytes only.
    return localTxs.track({ hash, sender, nonce: tx.nonce, encoded: pooled?.encoded ?? raw.slice() });
  };

  const submit = async (tx: SignedTx, raw: Uint8Array, conditional: TxConditional | null = null): Promise<string> => {
    const feeErr = checkTxFeeOf(tx, deps.txFeeCap);
    if (feeErr !== null) throw RpcError.server(feeErr);
    if (deps.allowUnprotectedTxs !== true && !isProtected(tx)) {
      throw RpcError.server("only replay-protected (EIP-155) transactions allowed over RPC");
    }
    const h = txHash(tx);
    if (conditional !== null && deps.forwardRawTx !== null) {
      // op-geth sequencerapi: with a sequencer to forward to, the conditional tx only goes there.
      const forward = deps.forwardRawTxConditional ?? null;
      if (forward === null) throw RpcError.server("no sequencer to forward the conditional transaction to");
      return bytesToHex(await forward(raw, conditionalJson(conditional)));
    }
    if (deps.forwardRawTx !== null) {
      // op-geth: forward to the sequencer, then keep a local copy (errors only logged).
      await deps.forwardRawTx(raw);
      await pool.add([raw]).catch(() => undefined);
      return bytesToHex(h);
    }
    const [r] = await pool.add([raw], conditional);
    // geth SendTx: a tx the pool took, or refused for now, goes to the locals tracker, which
    // re-submits it when the pool lets it go; past the tracker's bounds a refusal stands.
    // Conditional txs are not tracked (a re-submission would lose the conditions).
    const tracked = trackLocal(tx, raw, h, r.error, conditional);
    if (r.error !== null && !tracked) {
      // geth answers every pool refusal with -32000; the op-reth refusals carry reth's code.
      throw r.error.rpcCode === undefined
        ? RpcError.server(r.error.message)
        : new RpcError(r.error.rpcCode, r.error.message);
    }
    return bytesToHex(h);
  };

  const stateArgs = (sel: BlockSelector | undefined) => be.stateAt(sel ?? LATEST);
  const hashes = new AddressHashes();

  const conditionalCfg = deps.txConditional ?? null;
  const costLimiter = conditionalCfg === null ? null : new CostRateLimiter(conditionalCfg.costRateLimit);

  const signDeps: SignDeps = {
    chain,
    devAccounts: deps.devAccounts,
    txFeeCap: deps.txFeeCap,
    nonceAt: (a) => pool.nonceAt(a),
    suggestTip: () => oracle.suggestTip(),
    estimateGas: estimateGasVia(ethCallMethods(be)),
  };

  const methods: (AnyMethod | AnySubscription)[] = [
    defineMethod({ name: "eth_blockNumber", params: [], handler: () => qty(chain.head.number) }),
    defineMethod({ name: "eth_chainId", params: [], handler: () => qty(chain.config.chainId) }),
    defineMethod({ name: "eth_syncing", params: [], handler: () => syncingJson(deps.syncProgress?.() ?? null) }),
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
        return qty(new KvStateReader(st.view).balance(hashes.of(addr)));
      },
    }),
    defineMethod({
      name: "eth_getCode",
      params: [address, optional(blockNumberOrHash)],
      handler: ([addr, sel]) => {
        const r = new KvStateReader(stateArgs(sel).view);
        const a = r.account(hashes.of(addr));
        return bytesToHex(a === null ? new Uint8Array(0) : r.code(a.codeHash));
      },
    }),
    defineMethod({
      name: "eth_getStorageAt",
      params: [address, string, optional(blockNumberOrHash)],
      handler: ([addr, keyHex, sel]) => {
        const st = stateArgs(sel);
        const { key } = decodeStorageKey(keyHex);
        const v = new KvStateReader(st.view).storage(hashes.of(addr), keccak256(key));
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
          const ha = hashes.of(addr);
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
        return qty(new KvStateReader(st.view).account(hashes.of(addr))?.nonce ?? 0n);
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
    ...(costLimiter === null
      ? []
      : [
          defineMethod({
            name: "eth_sendRawTransactionConditional",
            params: [data, txConditional],
            handler: async ([raw, cond]) => {
              const cost = checkConditionalAtHead(be, cond);
              await waitForCost(costLimiter, cost);
              const d = decodeRaw(raw);
              return submit(d.tx, d.raw, cond);
            },
          }),
        ]),
    defineMethod({
      name: "eth_sendTransaction",
      params: [txArgs],
      handler: async ([args]) => {
        const from = args.from;
        const acct = from === null ? undefined : deps.devAccounts.find((a) => equalBytes(a.address, from));
        if (from === null || acct === undefined) throw RpcError.server(UNKNOWN_ACCOUNT);
        // geth SendTransaction: setDefaults (fees first, then the gas estimated with them) and
        // ToTransaction, the same filling eth_fillTransaction and eth_signTransaction answer with.
        const tx = await fillTransaction(signDeps, args);
        const signed = signTx(tx, acct.privateKey, chain.config.chainId);
        return submit(signed, encodeTx(signed));
      },
    }),
    ...signMethods(signDeps),

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
        // In slices, measured against the reply cap before it is built (a big block's receipts).
        return b === null ? null : slicer.run(blockReceiptsJson(reader, b, logLimits.resultSizeLimit));
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
    defineMethod({
      name: "eth_getLogs",
      params: [filterCriteria],
      handler: ([c]) => getLogs(reader, c, logLimits, slicer),
    }),
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

/** core.ErrTxTypeNotSupported. */
const TX_TYPE_NOT_SUPPORTED = "transaction type not supported";

/**
 * geth `Transaction.UnmarshalBinary`'s refusals where they are its own: a first byte above 0x7f is
 * a legacy tx, which must be an RLP list; a typed tx needs a byte after its type (errShortTypedTx);
 * a type byte it does not know is ErrTxTypeNotSupported. Other decoding errors keep their text.
 */
function rawTxDecodeError(raw: Uint8Array, e: unknown): string {
  if (raw.length > 0 && raw[0] > 0x7f) {
    return raw[0] < 0xc0 ? "rlp: expected input list for types.LegacyTx" : (e as Error).message;
  }
  if (raw.length <= 1) return "typed transaction too short";
  if (e instanceof TxError && e.code === "TYPE_NOT_SUPPORTED") return TX_TYPE_NOT_SUPPORTED;
  return (e as Error).message;
}

/** params.TxGas: the least gas any tx needs. */
const TX_GAS = 21_000n;

const EMPTY_ROOT = Uint8Array.from(
  Buffer.from("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421", "hex"),
);
const ZERO32 = new Uint8Array(32);

/** geth `Transaction.Protected` (isProtectedV): a legacy v of 27/28 (or 0/1) carries no chain id. */
function isProtected(tx: Tx): boolean {
  if (tx.type !== TxType.Legacy) return true;
  return tx.v !== 27n && tx.v !== 28n && tx.v !== 0n && tx.v !== 1n;
}

function uncleJson(b: DecodedBlock | null, i: number): JsonValue {
  if (b === null || i >= b.body.ommers.length) return null;
  const u = b.body.ommers[i];
  const o = headerJson(u, headerHash(u), 0);
  delete o.size;
  o.uncles = [];
  return o;
}
