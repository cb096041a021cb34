/**
 * The execution node: composition only. `ExecNode.start(config)` opens the store
 * (`<datadir>/chaindata`, RocksKv behind CachedKv), the chain (a `--dev` datadir without one gets
 * the dev genesis), the worker pools, the tx pool, the Engine API, the RPC registry and its
 * servers (HTTP, WS, the JWT-authenticated engine endpoint), dev sealing, and the head-change
 * fan-out (pool reset, subscription events). `stop()` undoes it in the order the storage bindings
 * need: producers, servers, worker pools, then the database (storage-bindings.md: pool.destroy()
 * before db.close()).
 */

import { mkdirSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { arch, platform } from "node:os";
import { join } from "node:path";
import { headerHash } from "../../block/header.js";
import { Blockchain, ChainError, DURABLE_INTERVAL_MS, type HeadChange } from "../../chain/blockchain.js";
import { parseGenesis } from "../../chain/genesis.js";
import { loadKzg } from "../../crypto/kzg.js";
import { builtinBootnodes } from "../../devp2p/discovery/bootnodes.js";
import { loadOrCreateNodeKey, type NodeKey, nodeKeyOf } from "../../devp2p/discovery/nodeKey.js";
import { Devp2pHost } from "../../devp2p/host.js";
import { Downloader, type SyncProgress } from "../../devp2p/sync/downloader.js";
import { AuthRpcServer } from "../../engine/authServer.js";
import { EngineApi } from "../../engine/engineApi.js";
import { defaultJwtSecretPath, loadOrCreateJwtSecret } from "../../engine/jwtSecret.js";
import { engineMethods, testingMethods } from "../../engine/methods.js";
import { toChecksumAddress } from "../../primitives/address.js";
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import type { JsonValue } from "../../primitives/json.js";
import { adminApi } from "../../rpc/admin.js";
import { backlogBounds, ReplyBacklog } from "../../rpc/backlog.js";
import { offloadCalls } from "../../rpc/callOffload.js";
import { debugApi } from "../../rpc/debug/api.js";
import { traceApi } from "../../rpc/debug/traceApi.js";
import { logCrashes } from "../../rpc/dispatch.js";
import { RpcError } from "../../rpc/errors.js";
import { ethApi } from "../../rpc/eth/api.js";
import { ChainReader } from "../../rpc/eth/chainReader.js";
import { DEFAULT_TX_CONDITIONAL_COST_RATE_LIMIT } from "../../rpc/eth/conditional.js";
import { DEFAULT_LOG_QUERY_LIMITS, type LogQueryLimits } from "../../rpc/eth/filters.js";
import { EventHub } from "../../rpc/events.js";
import { DEFAULT_HTTP_OPTIONS, RpcHttpServer } from "../../rpc/httpServer.js";
import { minerApi } from "../../rpc/miner.js";
import { netApi } from "../../rpc/net.js";
import { type AnyMethod, type AnySubscription, Registry } from "../../rpc/registry.js";
import { txpoolApi } from "../../rpc/txpoolApi.js";
import { web3Api } from "../../rpc/web3.js";
import { RpcWsServer } from "../../rpc/wsServer.js";
import { CachedKv, CHAIN_CACHE } from "../../storage/cachedKv.js";
import { type DbEngine, type OpenedStore, openStore, type StoreOptions } from "../../storage/engine.js";
import { decodeTx } from "../../tx/envelope.js";
import { BlobSidecarStore } from "../../txpool/blobSidecars.js";
import { LOCALS_RECHECK_MS, LocalTxTracker } from "../../txpool/localTxTracker.js";
import { MinerSettings } from "../../txpool/minerSettings.js";
import { TxPool } from "../../txpool/txPool.js";
import { DEFAULT_TX_POOL_OPTIONS } from "../../txpool/txPoolOptions.js";
import { txSourceOf } from "../../txpool/txsByPriceAndNonce.js";
import { Log, type LogLevelNumber } from "../../util/log.js";
import { Slicer } from "../../util/slicer.js";
import { timerDelay } from "../../util/timers.js";
import { createPools, type Pools } from "../pools.js";
import { DevBeaconServer } from "./devBeacon.js";
import { type DevAccount, devAccounts, formatDevAccounts, l1DevGenesis } from "./devGenesis.js";
import { DevSealer } from "./devSealer.js";

export const CLIENT_NAME = "Opal";
export const CLIENT_VERSION = "0.1.0";
/**
 * Blocks an L1 node without a beacon API keeps included blob txs' sidecars (a reorg may put the txs
 * back in the pool): about 13 minutes of 12 s slots, past finality.
 */
const BLOB_BLOCKS_KEPT = 64;
/** Longest a signal-triggered shutdown may take before the process exits anyway (servers close in 1 s). */
const SHUTDOWN_DEADLINE_MS = 15_000;
/** How often a node without a consensus client looks for a peer head above its own (--sync.followpeers). */
const FOLLOW_PEERS_INTERVAL_MS = 2_000;

/**
 * What the node reads from the resolved opal-exec flags (cli/execFlags.ts `ExecConfig` satisfies
 * it; the node does not import the CLI layer).
 */
export interface ExecNodeConfig {
  readonly datadir: string;
  readonly networkid: bigint;
  /** Execution-layer P2P (src/devp2p/host.ts); off in --dev, as geth's developer mode. */
  readonly port: number;
  readonly "discovery.port": number;
  readonly bootnodes: readonly string[];
  readonly nodiscover: boolean;
  readonly "discovery.v4": boolean;
  readonly "discovery.v5": boolean;
  readonly maxpeers: number;
  readonly netrestrict?: string | undefined;
  readonly nat: string;
  readonly nodekey?: string | undefined;
  /** Opal: follow the best eth/69 peer's head until a consensus client speaks (default true). */
  readonly "sync.followpeers"?: boolean | undefined;
  /** reth --debug.tip: a block hash to sync to without a consensus client. */
  readonly "debug.tip"?: string | undefined;
  /** op-geth --rollup.historicalrpc (not served yet: a warning says so at start). */
  readonly "rollup.historicalrpc"?: string | undefined;
  /** op-geth --rollup.disabletxpoolgossip: no tx gossip over devp2p in or out. */
  readonly "rollup.disabletxpoolgossip"?: boolean | undefined;
  readonly dev: boolean;
  readonly "dev.period": number;
  readonly "dev.gaslimit": bigint;
  readonly "dev.safe-lag"?: number;
  readonly "dev.finalized-lag"?: number;
  readonly "dev.beacon"?: boolean;
  readonly "dev.beacon.addr"?: string;
  readonly "dev.beacon.port"?: number;
  readonly "miner.gaslimit": bigint;
  readonly http: boolean;
  readonly "http.addr": string;
  readonly "http.port": number;
  readonly "http.api": readonly string[];
  readonly "http.corsdomain": readonly string[];
  readonly "http.vhosts": readonly string[];
  readonly ws: boolean;
  readonly "ws.addr": string;
  readonly "ws.port": number;
  readonly "ws.api": readonly string[];
  readonly "ws.origins": readonly string[];
  readonly "authrpc.addr": string;
  readonly "authrpc.port": number;
  readonly "authrpc.jwtsecret": string | undefined;
  readonly "authrpc.vhosts": readonly string[];
  readonly "engine.fsync-forkchoice"?: boolean;
  readonly "rpc.gascap": bigint;
  readonly "rpc.txfeecap": number;
  readonly "rpc.evmtimeout": number;
  readonly "rpc.allow-unprotected-txs"?: boolean;
  readonly "rpc.logquerylimit"?: number;
  readonly "rpc.rangelimit"?: number;
  readonly "rpc.batch-request-limit": number;
  readonly "rpc.http-body-limit"?: number;
  readonly "rpc.batch-response-max-size": number;
  readonly "rollup.sequencerhttp": string | undefined;
  readonly "rollup.sequencertxconditionalenabled"?: boolean;
  readonly "rollup.sequencertxconditionalcostratelimit"?: number;
  readonly "txpool.nolocals": boolean;
  readonly "txpool.pricelimit": bigint;
  readonly "txpool.pricebump": number;
  readonly "txpool.accountslots": number;
  readonly "txpool.globalslots": number;
  readonly "txpool.accountqueue": number;
  readonly "txpool.globalqueue": number;
  readonly "txpool.lifetime": number;
  readonly "workers.sigrecover": number;
  readonly "workers.triehash": number;
  readonly "workers.evmcall": number;
  readonly "db.engine": DbEngine;
  /** `--cache` in MiB (RocksDB's memtable budget is a share of it; default 1024). */
  readonly cache?: number;
  readonly "workers.evmcall.queue": number;
  readonly "workers.evmcall.inline": number;
  readonly "rpc.callcache": number;
  readonly verbosity: number;
  readonly "log.format": "terminal" | "logfmt" | "json";
}

// ---------------------------------------------------------------------------------------------
// Logging

/**
 * opal-exec's logger: util/log.ts `Log` at geth's `--verbosity` (0 silent … 5 trace) in one of
 * geth's formats (terminal, logfmt, json).
 */
export class ExecLogger extends Log {
  constructor(
    readonly verbosity: number,
    format: "terminal" | "logfmt" | "json",
    write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
    now: () => Date = () => new Date(),
  ) {
    const level = Math.max(0, Math.min(5, Math.trunc(verbosity))) as LogLevelNumber;
    super({ level, format, sink: write, clock: now });
  }
}

// ---------------------------------------------------------------------------------------------
// RPC namespaces besides engine

/** Where head changes go for subscriptions (rpc/events.ts EventHub fits). */
export interface HeadEvents {
  emitHeadChange(change: HeadChange): void;
}

/**
 * What the eth/net/web3/txpool namespaces are built from: the fields of rpc/eth/api.ts `EthDeps`
 * the node owns (the API side adds its ChainReader and EventHub).
 */
export interface NodeApiContext {
  readonly chain: Blockchain;
  readonly pool: TxPool;
  /** The locals tracker eth_sendRawTransaction hands its txs to; null or absent: none (--txpool.nolocals). */
  readonly localTxs?: LocalTxTracker | null;
  readonly networkId: bigint;
  readonly clientVersion: string;
  /** --rpc.gascap (0 = no cap). */
  readonly gasCap: bigint;
  /** --rpc.txfeecap in ether (0 = no cap). */
  readonly txFeeCap: number;
  /** --rpc.evmtimeout, ms. */
  readonly evmTimeoutMs: number;
  /** --rpc.logquerylimit and --rpc.rangelimit (geth's defaults when absent). */
  readonly logQueryLimits?: LogQueryLimits;
  /** The node's slicer for long reads (util/slicer.ts); absent: one of its own. */
  readonly slicer?: Slicer;
  /** The --dev accounts (empty otherwise). */
  readonly devAccounts: readonly DevAccount[];
  /** --rpc.allow-unprotected-txs: eth_sendRawTransaction takes pre-EIP-155 legacy txs. */
  readonly allowUnprotectedTxs?: boolean;
  /** --rollup.sequencerhttp: forwards a raw tx to the sequencer and returns its hash (null = local pool). */
  readonly forwardRawTx: ((raw: Uint8Array) => Promise<Uint8Array>) | null;
  /** An L1 node's blob sidecars (blob txs arrive in the network form); null on OP chains. */
  readonly blobSidecars?: BlobSidecarStore | null;
  /** `--rollup.sequencertxconditionalenabled` with its cost rate; null or absent: not served. */
  readonly txConditional?: { readonly costRateLimit: number } | null;
  /** --rollup.sequencerhttp: forwards a conditional tx to the sequencer and returns its hash. */
  readonly forwardRawTxConditional?: ((raw: Uint8Array, conditional: JsonValue) => Promise<Uint8Array>) | null;
  /** Told of miner_setGasLimit (the dev sealer's gas ceiling follows it). */
  readonly onMinerGasLimit?: (ceil: bigint) => void;
  /** Told of a debug_setHead rewind (the pool and subscriptions follow it as they follow forkchoice). */
  readonly onDebugSetHead?: (change: HeadChange) => void;
  /** The execution-layer P2P host once started (admin_*, net_peerCount); null without P2P. */
  readonly p2p?: () => Devp2pHost | null;
  /** The execution-layer sync's progress (eth_syncing); null when not syncing. */
  readonly syncProgress?: () => SyncProgress | null;
}

/** op-geth's sequencer forwarding: eth_sendRawTransaction on `url`; its errors pass through. */
export function sequencerForwarder(url: string): (raw: Uint8Array) => Promise<Uint8Array> {
  const call = sequencerTxCall(url, "eth_sendRawTransaction");
  return (raw) => call([bytesToHex(raw)]);
}

/** op-geth sequencerapi: eth_sendRawTransactionConditional(raw, conditional) on `url`; errors pass through. */
export function sequencerConditionalForwarder(
  url: string,
): (raw: Uint8Array, conditional: JsonValue) => Promise<Uint8Array> {
  const call = sequencerTxCall(url, "eth_sendRawTransactionConditional");
  return (raw, conditional) => call([bytesToHex(raw), conditional]);
}

/** One tx-submitting `method` on the sequencer at `url`, answering the tx hash. */
function sequencerTxCall(url: string, method: string): (params: JsonValue[]) => Promise<Uint8Array> {
  let id = 0;
  return async (params) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const text = await res.text();
    let reply: { result?: unknown; error?: { code?: number; message?: string; data?: unknown } };
    try {
      reply = JSON.parse(text);
    } catch {
      throw RpcError.server(`sequencer: HTTP ${res.status}: ${text.slice(0, 200).trim()}`);
    }
    if (reply.error !== undefined) {
      throw new RpcError(reply.error.code ?? -32000, reply.error.message ?? "sequencer error", reply.error.data);
    }
    if (typeof reply.result !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(reply.result))
      throw RpcError.server(`sequencer: malformed ${method} result`);
    return hexToBytes(reply.result);
  };
}

/**
 * geth's checkModuleAvailability (node/endpoints.go): the names of `--http.api`/`--ws.api` that no
 * service serves on an open transport (`rpc`, always served, and `engine`, an authenticated API
 * geth never opens, are not reported), and the namespaces that are available there.
 */
export function checkModuleAvailability(
  modules: readonly string[],
  registry: Registry,
): { bad: string[]; available: string[] } {
  const available = openNamespaces(registry);
  const bad = modules.filter((m) => !available.includes(m) && m !== "rpc" && m !== ENGINE_NAMESPACE);
  return { bad, available };
}

/** geth's authenticated namespace: served on the auth port only, whatever `--http.api` says. */
const ENGINE_NAMESPACE = "engine";

/** The namespaces an open (unauthenticated) transport can serve: all but engine. */
function openNamespaces(registry: Registry): string[] {
  return registry.namespaces().filter((ns) => ns !== ENGINE_NAMESPACE);
}

/**
 * The namespaces an open transport serves for `modules`, geth's RegisterApis over its open APIs:
 * engine never (geth marks it Authenticated; only the JWT port serves it), and an unavailable name
 * logged at error level with what is available, in geth's words ("Unavailable modules in HTTP API
 * list", for WebSocket too: geth shares the function).
 */
function openApis(modules: readonly string[], registry: Registry, log: Log): string[] {
  const { bad, available } = checkModuleAvailability(modules, registry);
  if (bad.length > 0) log.error("Unavailable modules in HTTP API list", { unavailable: bad, available });
  return modules.filter((m) => m !== ENGINE_NAMESPACE);
}

/** The non-engine namespaces and, when they serve subscriptions, where head changes go. */
export interface NodeApis {
  readonly methods: readonly (AnyMethod | AnySubscription)[];
  readonly events: HeadEvents | null;
}

/** Builds the non-engine RPC namespaces; the node's default is `coreApis`. */
export type ApiFactory = (ctx: NodeApiContext) => NodeApis;

/**
 * The node's namespaces besides engine: eth (rpc/eth/api.ts over a ChainReader), net, web3,
 * txpool, debug and trace (served only where `--http.api` / `--ws.api` enable them), and the EventHub (rpc/events.ts) their filters and subscriptions listen on, fed here
 * with the pool's pending txs and by the node with head changes.
 */
export function coreApis(ctx: NodeApiContext): NodeApis {
  const events = new EventHub();
  ctx.pool.onPending((txs) => events.emitPending(txs));
  const reader = new ChainReader(ctx.chain);
  // One slicer for the node's long reads: its per-turn budget and its running jobs are shared.
  const slicer = ctx.slicer ?? new Slicer();
  const logQueryLimits = ctx.logQueryLimits ?? DEFAULT_LOG_QUERY_LIMITS;
  const eth = ethApi({
    chain: ctx.chain,
    reader,
    pool: ctx.pool,
    localTxs: ctx.localTxs ?? null,
    gasCap: ctx.gasCap,
    txFeeCap: ctx.txFeeCap,
    evmTimeoutMs: ctx.evmTimeoutMs,
    logQueryLimits,
    slicer,
    networkId: ctx.networkId,
    clientVersion: ctx.clientVersion,
    devAccounts: ctx.devAccounts,
    allowUnprotectedTxs: ctx.allowUnprotectedTxs === true,
    forwardRawTx: ctx.forwardRawTx,
    events,
    blobSidecars: ctx.blobSidecars ?? null,
    txConditional: ctx.txConditional ?? null,
    forwardRawTxConditional: ctx.forwardRawTxConditional ?? null,
    syncProgress: ctx.syncProgress ?? null,
  });
  return {
    methods: [
      ...eth,
      ...netApi({ networkId: ctx.networkId, peerCount: () => ctx.p2p?.()?.peerCount ?? 0 }),
      ...adminApi({ host: () => ctx.p2p?.() ?? null }),
      ...web3Api({ clientVersion: ctx.clientVersion }),
      ...txpoolApi({ pool: ctx.pool }),
      ...minerApi({
        miner: ctx.pool.miner,
        pool: ctx.pool,
        ...(ctx.onMinerGasLimit === undefined ? {} : { onGasLimit: ctx.onMinerGasLimit }),
      }),
      ...debugApi({
        chain: ctx.chain,
        reader,
        gasCap: ctx.gasCap,
        resultSizeLimit: logQueryLimits.resultSizeLimit,
        ...(ctx.onDebugSetHead === undefined ? {} : { onHead: ctx.onDebugSetHead }),
      }),
      ...traceApi({
        chain: ctx.chain,
        reader,
        gasCap: ctx.gasCap,
        slicer,
        resultSizeLimit: logQueryLimits.resultSizeLimit,
      }),
    ],
    events,
  };
}

// ---------------------------------------------------------------------------------------------
// The node

export class NodeError extends Error {
  override readonly name = "NodeError";
}

export interface ExecNodeDeps {
  /** Non-engine namespaces (default `coreApis`). */
  readonly apis?: ApiFactory;
  /** Extra receiver of head changes, besides the pool and the APIs' own events (tests). */
  readonly events?: HeadEvents;
  readonly logger?: ExecLogger;
  /** Where the dev account listing goes (default stdout). */
  readonly print?: (text: string) => void;
  /** Clock for the engine JWT check, Unix seconds (tests). */
  readonly jwtClock?: () => number;
  /** Opens the chain database (default `openStore`; the power-loss tests hand in a fault-injecting store). */
  readonly openStore?: (path: string, engine: DbEngine, opts?: StoreOptions) => Promise<OpenedStore>;
}

export interface NodeEndpoints {
  readonly http: AddressInfo | null;
  readonly ws: AddressInfo | null;
  readonly auth: AddressInfo;
}

function endpoint(a: AddressInfo): string {
  return a.family === "IPv6" ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}

export class ExecNode {
  private stopping: Promise<void> | null = null;
  /** The dev L1's beacon API (`--dev --dev.beacon`); null otherwise. */
  devBeacon: DevBeaconServer | null = null;
  /** The execution-layer P2P host and the sync behind it (not in --dev); stopped by `stop()`. */
  p2p: Devp2pHost | null = null;
  downloader: Downloader | null = null;
  /** Syncs head changes every DURABLE_INTERVAL_MS; cleared by `stop()`. */
  private durableTimer: NodeJS.Timeout | null = null;
  /** The locals tracker (null with `--txpool.nolocals`); its recheck timer stops with the node. */
  localTxs: LocalTxTracker | null = null;

  private constructor(
    readonly config: ExecNodeConfig,
    readonly log: ExecLogger,
    readonly store: OpenedStore,
    readonly chain: Blockchain,
    readonly pools: Pools,
    readonly txPool: TxPool,
    readonly engine: EngineApi,
    readonly registry: Registry,
    readonly httpServer: RpcHttpServer | null,
    readonly wsServer: RpcWsServer | null,
    readonly authServer: AuthRpcServer,
    readonly sealer: DevSealer | null,
    readonly devKeys: readonly DevAccount[],
    readonly jwtSecret: Uint8Array,
  ) {}

  /** Opens everything and starts listening; on failure, whatever was opened is closed again. */
  static async start(config: ExecNodeConfig, deps: ExecNodeDeps = {}): Promise<ExecNode> {
    const log = deps.logger ?? new ExecLogger(config.verbosity, config["log.format"]);
    mkdirSync(config.datadir, { recursive: true });
    const chaindata = join(config.datadir, "chaindata");
    let store: OpenedStore;
    try {
      store = await (deps.openStore ?? openStore)(chaindata, config["db.engine"], { cacheMb: config.cache });
    } catch (e) {
      throw new NodeError((e as Error).message);
    }
    const cleanup: (() => Promise<void>)[] = [() => store.close()];
    const unwind = async (): Promise<void> => {
      for (const f of cleanup.reverse()) await f().catch(() => undefined);
    };
    try {
      const kv = new CachedKv(store.kv, CHAIN_CACHE);
      const devKeys = config.dev ? devAccounts() : [];
      let chain: Blockchain;
      try {
        chain = Blockchain.open(kv);
      } catch (e) {
        if (!(e instanceof ChainError) || !/no chain/.test(e.message)) throw e;
        if (!config.dev) throw new NodeError(`no chain in ${chaindata}: run opal-exec init <genesis.json>`);
        const g = l1DevGenesis(config["dev.gaslimit"], devKeys);
        chain = Blockchain.init(kv, parseGenesis(g), g.config);
        log.info("Initialised dev chain", { chainid: chain.config.chainId, genesis: chain.headBlockHash });
      }
      log.info("Loaded chain head", { number: chain.head.number, hash: chain.headBlockHash });
      // Head changes (forkchoice without --engine.fsync-forkchoice, dev sealing, devp2p sync,
      // debug_setHead) are synced within DURABLE_INTERVAL_MS (docs/design/storage.md "Durability");
      // stop() syncs the rest.
      const durable = setInterval(() => chain.persistSoon(), DURABLE_INTERVAL_MS);
      durable.unref();
      cleanup.push(async () => clearInterval(durable));

      const pools = createPools({
        sigRecoverThreads: config["workers.sigrecover"],
        trieHashThreads: config["workers.triehash"],
        trieStore: store,
        evmCall: {
          threads: config["workers.evmcall"],
          maxQueue: config["workers.evmcall.queue"],
          store,
          gasCap: config["rpc.gascap"],
          replyMaxSize: config["rpc.batch-response-max-size"],
        },
      });
      cleanup.push(() => pools.destroy());
      chain.storagePool = pools.storageRoots;
      // Forkchoice and the timer above wait for the disk off this thread (docs/design/storage.md
      // "Durability"); the syncs under way end before the pools go.
      chain.logSync = store.syncLog ?? pools.logSync;
      chain.durableForkchoice = config["engine.fsync-forkchoice"] === true;
      cleanup.push(() => chain.stopLogSync());
      // Every L1 node takes blob txs in their network form and keeps the sidecars (geth's blobpool);
      // a dev L1 with --dev.beacon also serves them from its beacon API, so it keeps sealed blocks'
      // sidecars as long as a beacon node would, on disk (the chain's blobSidecars table); another
      // L1 node keeps them until the txs are BLOB_BLOCKS_KEPT blocks deep (geth's limbo keeps
      // included blobs for reorgs).
      const beaconApi = config.dev && config["dev.beacon"] === true;
      const blobSidecars =
        chain.config.optimism === null
          ? beaconApi
            ? new BlobSidecarStore(undefined, chain, chain.kv)
            : new BlobSidecarStore(BLOB_BLOCKS_KEPT, chain)
          : null;
      // Its first blob tx needs the KZG trusted setup, whose load blocks the thread for 1.2–1.6 s
      // here: load it while starting, not under the first blob tx (the soak saw a 2.6 s event-loop
      // stall on the dev L1 when the batcher's first blob arrived). Other L1 nodes load it on demand.
      if (blobSidecars !== null && beaconApi) loadKzg();
      // geth legacypool sanitize: a lifetime below 1 falls back to the default, with this warning.
      if (!(config["txpool.lifetime"] >= 1)) {
        log.warn("Sanitizing invalid txpool lifetime", {
          provided: `${config["txpool.lifetime"]}ms`,
          updated: `${DEFAULT_TX_POOL_OPTIONS.lifetime}ms`,
        });
      }
      // geth's miner.Config, shared by the pool's builder iterator, the Engine API and miner_*.
      const miner = new MinerSettings({ gasCeil: config["miner.gaslimit"] });
      // The dev sealer's gas ceiling: --dev.gaslimit until miner_setGasLimit names another.
      let devGasCeil = config["dev.gaslimit"];
      const txPool = new TxPool(
        {
          priceLimit: config["txpool.pricelimit"],
          priceBump: config["txpool.pricebump"],
          accountSlots: config["txpool.accountslots"],
          globalSlots: config["txpool.globalslots"],
          accountQueue: config["txpool.accountqueue"],
          globalQueue: config["txpool.globalqueue"],
          lifetime: config["txpool.lifetime"],
        },
        { chain, recoveryPool: pools.sigRecover, acceptBlobs: blobSidecars !== null, miner },
      );
      // geth ≥ 1.15: RPC submissions are tracked and re-submitted (unless --txpool.nolocals), with
      // the pool's own bounds: an account's accountslots + accountqueue txs, the pool's slot total.
      const localTxs = config["txpool.nolocals"]
        ? null
        : new LocalTxTracker(txPool, {
            perAccount: txPool.opts.accountSlots + txPool.opts.accountQueue,
            slots: txPool.opts.globalSlots + txPool.opts.globalQueue,
          });
      localTxs?.start(LOCALS_RECHECK_MS, (e) => log.warn("Local tx recheck failed", { err: (e as Error).message }));
      cleanup.unshift(async () => localTxs?.stop());
      // The pool applies the miner's tip and DA limits to what a build takes (miner_* change them).
      const engine = new EngineApi(chain, (baseFee) => txSourceOf(txPool.byPriceAndNonce(baseFee)), {
        miner,
        recoveryPool: pools.sigRecover,
        blobs: blobSidecars,
      });
      const networkId = config.networkid === 0n ? chain.config.chainId : config.networkid;
      // Execution-layer sync: forkchoice to a head the node lacks answers SYNCING and fetches it from
      // devp2p peers (devp2p/sync); a sync cut short resumes here. Not in --dev (no P2P there).
      const p2pOn = !config.dev && config.maxpeers > 0;
      const downloader = p2pOn ? new Downloader({}, { chain, log }) : null;
      if (downloader !== null) engine.attachSync(downloader);
      let p2pHost: Devp2pHost | null = null;
      const clientVersion = `${CLIENT_NAME}/v${CLIENT_VERSION}/${platform()}-${arch()}/nodejs${process.versions.node}`;
      const seqUrl = config["rollup.sequencerhttp"];
      const apis = (deps.apis ?? coreApis)({
        chain,
        pool: txPool,
        localTxs,
        networkId,
        clientVersion,
        gasCap: config["rpc.gascap"],
        txFeeCap: config["rpc.txfeecap"],
        evmTimeoutMs: config["rpc.evmtimeout"],
        logQueryLimits: {
          logQueryLimit: config["rpc.logquerylimit"] ?? DEFAULT_LOG_QUERY_LIMITS.logQueryLimit,
          rangeLimit: config["rpc.rangelimit"] ?? DEFAULT_LOG_QUERY_LIMITS.rangeLimit,
          resultSizeLimit: config["rpc.batch-response-max-size"],
        },
        devAccounts: devKeys,
        allowUnprotectedTxs: config["rpc.allow-unprotected-txs"] === true,
        forwardRawTx: seqUrl === undefined || seqUrl === "" ? null : sequencerForwarder(seqUrl),
        blobSidecars,
        txConditional:
          config["rollup.sequencertxconditionalenabled"] === true
            ? {
                costRateLimit:
                  config["rollup.sequencertxconditionalcostratelimit"] ?? DEFAULT_TX_CONDITIONAL_COST_RATE_LIMIT,
              }
            : null,
        forwardRawTxConditional: seqUrl === undefined || seqUrl === "" ? null : sequencerConditionalForwarder(seqUrl),
        onMinerGasLimit: (ceil) => {
          devGasCeil = ceil;
        },
        // fanOut is defined below; a rewind can only be asked for once the servers run.
        onDebugSetHead: (change) => fanOut(change),
        p2p: () => p2pHost,
        syncProgress: () => downloader?.progress() ?? null,
      });
      // Not silently ignored: op-geth forwards pre-Bedrock requests to this endpoint; Opal does not yet.
      const historical = config["rollup.historicalrpc"];
      if (historical !== undefined && historical !== "") {
        log.warn("--rollup.historicalrpc is not used: requests for blocks before Bedrock are not forwarded", {
          url: historical,
        });
      }
      if (config["rollup.sequencertxconditionalenabled"] === true) {
        log.info("Enabling eth_sendRawTransactionConditional endpoint support");
      }
      const listeners = [apis.events, deps.events ?? null].filter((e): e is HeadEvents => e !== null);
      const fanOut = (change: HeadChange): void => {
        txPool.onNewHead(change.newHead);
        p2pHost?.onHead(change);
        for (const l of listeners) l.emitHeadChange(change);
      };
      engine.onHead = (change) => {
        // Blocks that joined the chain: their blob txs' sidecars are now held by block (and age out).
        if (blobSidecars !== null) {
          for (const h of change.added) {
            const hash = headerHash(h);
            const txs = (chain.store.body(hash)?.transactions ?? []).map((t) => decodeTx(t));
            blobSidecars.sealed(h.number, hash, txs);
          }
        }
        fanOut(change);
      };
      // Read-only execution goes to the evmCall pool when there is one (rpc/callOffload.ts).
      const served =
        pools.evmCall === null
          ? apis.methods
          : offloadCalls(apis.methods, {
              pool: pools.evmCall,
              head: () => chain.headBlockHash,
              // geth: 0 or less = no timeout; beyond Node's longest timer (24.8 days) that timer, not 1 ms.
              timeoutMs: config["rpc.evmtimeout"] > 0 ? timerDelay(config["rpc.evmtimeout"]) : 0,
              cacheEntries: config["rpc.callcache"],
              // Short calls answer on the main thread, without the hop; longer ones go to the pool.
              inline: {
                deps: { chain, reader: new ChainReader(chain), gasCap: config["rpc.gascap"] },
                // Never past --rpc.evmtimeout: the pool would only stop it there too.
                budgetMs:
                  config["rpc.evmtimeout"] > 0
                    ? Math.min(config["workers.evmcall.inline"], config["rpc.evmtimeout"])
                    : config["workers.evmcall.inline"],
              },
              // The client gets geth's "method handler crashed"; the cause is the operator's.
              onWorkerError: (method, e) => log.error("RPC method handler crashed", { method, err: e.message }),
            });
      const registry = new Registry([...engineMethods(engine), ...testingMethods(engine), ...served]);
      const limits = {
        batchItemLimit: config["rpc.batch-request-limit"],
        batchResponseMaxSize: config["rpc.batch-response-max-size"],
        // Every reply is held to the batch cap too (a trace of a big block, a log query).
        replyMaxSize: config["rpc.batch-response-max-size"],
        // One account of unflushed replies for both servers: their sum is what is bounded.
        backlog: new ReplyBacklog(backlogBounds(config["rpc.batch-response-max-size"])),
      };

      const onCrash = logCrashes(log);
      let httpServer: RpcHttpServer | null = null;
      if (config.http) {
        httpServer = new RpcHttpServer(
          {
            addr: config["http.addr"],
            port: config["http.port"],
            apis: openApis(config["http.api"], registry, log),
            cors: config["http.corsdomain"],
            vhosts: config["http.vhosts"],
            ...limits,
            // geth: --rpc.http-body-limit in MiB; 0 keeps the default (5 MiB).
            bodyLimit:
              (config["rpc.http-body-limit"] ?? 0) > 0
                ? (config["rpc.http-body-limit"] as number) * 1024 * 1024
                : DEFAULT_HTTP_OPTIONS.bodyLimit,
          },
          { registry, onCrash },
        );
        const a = await httpServer.listen();
        const s = httpServer;
        cleanup.push(() => s.close());
        log.info("HTTP server started", {
          endpoint: endpoint(a),
          auth: false,
          prefix: "",
          cors: config["http.corsdomain"].join(","),
          vhosts: config["http.vhosts"].join(","),
        });
      }
      let wsServer: RpcWsServer | null = null;
      if (config.ws) {
        wsServer = new RpcWsServer(
          {
            addr: config["ws.addr"],
            port: config["ws.port"],
            apis: openApis(config["ws.api"], registry, log),
            origins: config["ws.origins"],
            ...limits,
          },
          { registry, onCrash },
        );
        const a = await wsServer.listen();
        const s = wsServer;
        cleanup.push(() => s.close());
        log.info("WebSocket enabled", { url: `ws://${endpoint(a)}` });
      }

      const secretPath = config["authrpc.jwtsecret"] ?? defaultJwtSecretPath(config.datadir);
      const jwt = loadOrCreateJwtSecret(secretPath);
      if (jwt.created) log.info("Generated JWT secret", { path: secretPath });
      const authServer = new AuthRpcServer(
        {
          addr: config["authrpc.addr"],
          port: config["authrpc.port"],
          vhosts: config["authrpc.vhosts"],
          secret: jwt.secret,
          ...(deps.jwtClock === undefined ? {} : { clock: deps.jwtClock }),
        },
        { registry, onCrash },
      );
      const authAddr = await authServer.listen();
      cleanup.push(() => authServer.close());
      log.info("HTTP server started", {
        endpoint: endpoint(authAddr),
        auth: true,
        prefix: "",
        cors: "",
        vhosts: config["authrpc.vhosts"].join(","),
      });

      if (p2pOn && downloader !== null) {
        const key =
          config.nodekey === undefined ? loadOrCreateNodeKey(config.datadir) : readNodeKeyFile(config.nodekey);
        const extip = /^extip:(.+)$/.exec(config.nat)?.[1];
        const bootnodes = config.bootnodes.length > 0 ? config.bootnodes : builtinBootnodes(chain.config.chainId);
        const host = await Devp2pHost.start(
          {
            key,
            clientId: clientVersion,
            listenAddr: "0.0.0.0",
            port: config.port,
            maxPeers: config.maxpeers,
            discovery: config.nodiscover
              ? null
              : {
                  udpPort: config["discovery.port"],
                  v4: config["discovery.v4"],
                  v5: config["discovery.v5"],
                  bootnodes,
                  netrestrict: config.netrestrict ?? null,
                  ...(extip === undefined ? {} : { advertiseIp: extip }),
                },
            // geth dials the bootnodes only for discovery; with discovery off they are the peers to dial.
            staticNodes: config.nodiscover ? bootnodes.filter((b) => b.startsWith("enode://")) : [],
            networkId,
            disableTxPoolGossip: config["rollup.disabletxpoolgossip"] === true,
          },
          { chain, pool: txPool, downloader, log },
        );
        p2pHost = host;
        cleanup.push(async () => {
          await downloader.stop();
          await host.stop();
        });
        log.info("Started P2P networking", { self: host.enode(extip ?? "127.0.0.1") });
        if (downloader.resume()) log.info("Resuming the execution-layer sync from the stored skeleton");
        const tip = config["debug.tip"];
        if (tip !== undefined) {
          log.info("Syncing to the --debug.tip block", { hash: tip });
          downloader.sync(hexToBytes(tip), new Uint8Array(32), new Uint8Array(32));
        } else if (config["sync.followpeers"] !== false) {
          downloader.followPeers(FOLLOW_PEERS_INTERVAL_MS);
        }
      }

      let sealer: DevSealer | null = null;
      let devBeacon: DevBeaconServer | null = null;
      if (config.dev) {
        const print = deps.print ?? ((t: string) => process.stdout.write(`${t}\n`));
        print(formatDevAccounts(devKeys));
        const s = new DevSealer(
          {
            period: config["dev.period"],
            feeRecipient: devKeys[0]!.address,
            get gasCeil() {
              return devGasCeil;
            },
            safeLag: config["dev.safe-lag"] ?? null,
            finalizedLag: config["dev.finalized-lag"] ?? null,
          },
          {
            chain,
            pool: txPool,
            onHead: (change) => {
              if (blobSidecars !== null) {
                const txs = (chain.store.body(chain.headBlockHash)?.transactions ?? []).map((t) => decodeTx(t));
                blobSidecars.sealed(change.newHead.number, chain.headBlockHash, txs);
              }
              fanOut(change);
              const h = change.newHead;
              log.info("Sealed new block", {
                number: h.number,
                txs: chain.store.body(chain.headBlockHash)?.transactions.length ?? 0,
                gas: h.gasUsed,
                hash: chain.headBlockHash,
              });
            },
            onError: (m) => log.error("Dev block sealing failed", { err: m }),
          },
        );
        s.start();
        sealer = s;
        cleanup.push(async () => s.stop());
        log.info("Dev mode enabled", {
          period: config["dev.period"],
          etherbase: toChecksumAddress(devKeys[0]!.address),
        });
        if (beaconApi && blobSidecars !== null) {
          const beacon = new DevBeaconServer(chain, blobSidecars, clientVersion);
          const a = await beacon.listen(config["dev.beacon.addr"] ?? "127.0.0.1", config["dev.beacon.port"] ?? 5052);
          cleanup.push(() => beacon.close());
          devBeacon = beacon;
          log.info("Beacon API started", { endpoint: `http://${a.address}:${a.port}` });
        }
      }
      const node = new ExecNode(
        config,
        log,
        store,
        chain,
        pools,
        txPool,
        engine,
        registry,
        httpServer,
        wsServer,
        authServer,
        sealer,
        devKeys,
        jwt.secret,
      );
      node.devBeacon = devBeacon;
      node.p2p = p2pHost;
      node.downloader = downloader;
      node.durableTimer = durable;
      node.localTxs = localTxs;
      return node;
    } catch (e) {
      await unwind();
      throw e;
    }
  }

  get endpoints(): NodeEndpoints {
    return {
      http: this.httpServer?.address() ?? null,
      ws: this.wsServer?.address() ?? null,
      auth: this.authServer.address(),
    };
  }

  /** Stops block production, the servers, the worker pools, then closes the database. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.log.info("Shutting down");
      this.sealer?.stop();
      this.localTxs?.stop();
      // The sync first (it writes to the store), then the peers and the listener.
      await this.downloader?.stop();
      await this.p2p?.stop();
      this.engine.onHead = null;
      await Promise.all([
        this.httpServer?.close(1000),
        this.wsServer?.close(1000),
        this.authServer.close(1000),
        this.devBeacon?.close(),
      ]);
      this.log.debug("RPC servers closed");
      // Chain mutations still queued (a sliced block import) end first: they use the pools and the store.
      await this.chain.exclusive(() => undefined);
      await this.chain.stopLogSync();
      await this.pools.destroy();
      this.log.debug("Worker pools destroyed");
      if (this.durableTimer !== null) clearInterval(this.durableTimer);
      this.chain.persist();
      await this.store.close();
      this.log.info("Database closed");
    })();
    return this.stopping;
  }

  /** `stop()`, but the process exits with status 1 if the shutdown takes longer than `ms`. */
  async stopWithDeadline(ms = SHUTDOWN_DEADLINE_MS): Promise<void> {
    const t = setTimeout(() => {
      this.log.error("Shutdown timed out, exiting", { after: `${ms}ms` });
      process.exit(1);
    }, ms);
    t.unref();
    try {
      await this.stop();
    } finally {
      clearTimeout(t);
    }
  }
}

/** `--nodekey FILE` (geth crypto.LoadECDSA): 64 hex characters, trailing whitespace allowed; errors name the file. */
function readNodeKeyFile(path: string): NodeKey {
  let text: string;
  try {
    text = readFileSync(path, "latin1").trimEnd();
  } catch (e) {
    throw new NodeError(`--nodekey: cannot read ${path}: ${(e as Error).message}`);
  }
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new NodeError(`--nodekey: ${path} does not hold a 64-hex-character key`);
  return nodeKeyOf(hexToBytes(`0x${text}`));
}
