/**
 * The verifier half of opal-node, wired from its options: the L1 client (`--l1`, `--l1.trustrpc`,
 * `--l1.rpckind`, concurrency, batching, rate limit and cache), new heads over HTTP polling or a
 * WebSocket subscription, safe/finalized polling, the beacon client for blobs with its startup health
 * check (`--l1.beacon*`; KZG proofs and recomputed commitments in a kzgVerify worker), Alt-DA (`--altda.*`), the runtime
 * config from L1 state and `--rollup.halt`, the derivation driver over the engine, the safe-head DB
 * and the snapshot log. `start` runs the checks that must stop the node; `stop` undoes everything.
 * Under an op-supervisor (interop managed mode) derivation moves the local-safe head and the
 * supervisor's cross-safe and finalized heads go to the engine (`promoteCrossSafe`, `promoteFinalized`).
 */
import { appendFileSync } from "node:fs";
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { AltDaSource } from "../../rollup/altDa/altDaSource.js";
import { DaClient } from "../../rollup/altDa/daClient.js";
import { AltDaManager } from "../../rollup/altDa/daState.js";
import {
  compareProtocolVersions,
  formatProtocolVersion,
  type HaltLevel,
  OPAL_PROTOCOL_SUPPORT,
  shouldHalt,
} from "../../rollup/config/protocolVersion.js";
import type { RollupConfig } from "../../rollup/config/rollupConfig.js";
import { loadRuntimeConfig, type RuntimeConfigValues } from "../../rollup/config/runtimeConfig.js";
import type { PayloadAttributes } from "../../rollup/derive/attributes.js";
import { Driver, type SafeHeadListener } from "../../rollup/driver/driver.js";
import type { EngineClient, PayloadEnvelope } from "../../rollup/engine/engineClient.js";
import { BeaconClient } from "../../rollup/l1/beaconClient.js";
import { PoolBlobVerifier } from "../../rollup/l1/blobVerifier.js";
import {
  type L1Client,
  L1Client as L1ClientImpl,
  L1NotFoundError,
  type RpcProviderKind,
} from "../../rollup/l1/l1Client.js";
import { L1HeadPoller } from "../../rollup/l1/l1HeadPoller.js";
import { L1Source } from "../../rollup/l1/l1Source.js";
import { Semaphore } from "../../rollup/l1/limits.js";
import type { L1BlockRef, L2BlockRef, SyncStatus } from "../../rollup/refs.js";
import { l1RefJson, l2RefJson } from "../../rollup/refs.js";
import { type Conductor, Sequencer } from "../../rollup/sequencer/sequencer.js";
import type { SequencerApiDeps } from "../../rollup/sequencer/sequencerApi.js";
import type { SequencerControl } from "../../rollup/sequencer/sequencerControl.js";
import { WsRpcClient } from "../../rollup/transport/wsRpcClient.js";
import type { ChainConfig } from "../../spec/chainConfig.js";
import type { Logger } from "../../util/log.js";
import { timerDelay } from "../../util/timers.js";
import { PiscinaPool, SMALL_TASK_YOUNG_MB } from "../pools.js";

export interface DerivationConfig {
  readonly l1: string;
  readonly "l1.trustrpc": boolean;
  readonly "l1.rpckind": RpcProviderKind;
  readonly "l1.max-concurrency": number;
  readonly "l1.rpc-max-batch-size": number;
  readonly "l1.rpc-rate-limit": number;
  readonly "l1.cache-size": number;
  readonly "l1.http-poll-interval": number;
  readonly "l1.epoch-poll-interval": number;
  readonly "l1.runtime-config-reload-interval": number;
  readonly "l1.beacon": string | undefined;
  readonly "l1.beacon-header": string | undefined;
  readonly "l1.beacon-fallbacks": readonly string[] | undefined;
  readonly "l1.beacon.fetch-all-sidecars": boolean;
  readonly "l1.beacon.ignore": boolean;
  readonly "verifier.l1-confs": number;
  readonly syncmode: "consensus-layer" | "execution-layer";
  readonly "l2.enginekind": "geth" | "reth" | "erigon";
  readonly "rollup.halt": HaltLevel | undefined;
  readonly "snapshotlog.file": string | undefined;
  readonly "altda.enabled": boolean;
  readonly "altda.da-server": string | undefined;
  readonly "altda.da-service": boolean;
  readonly "altda.get-timeout": number;
  readonly "altda.put-timeout": number;
  readonly "altda.max-concurrent-da-requests": number;
  readonly "altda.verify-on-read": boolean;
  readonly "sequencer.enabled"?: boolean;
  readonly "sequencer.l1-confs"?: number;
  readonly "sequencer.max-safe-lag"?: number;
}

/** What the service records (node/metrics.ts NodeMetrics fits). */
export interface DerivationMetrics {
  recordPipelineReset(): void;
  recordDerivationError(): void;
  recordDerivedBatch(type: "singular" | "span"): void;
  recordSequencerBuildStarted(): void;
  recordSequencerBuild(diffSeconds: number): void;
  recordSequencerSealing(seconds: number): void;
  recordSequencingError(): void;
  countSequencedTxs(count: number): void;
  recordL1Ref(type: "l1_head" | "l1_safe" | "l1_finalized" | "l1_derived", ref: L1BlockRef): void;
  recordL2Ref(type: "l2_unsafe" | "l2_safe" | "l2_finalized" | "l2_pending_safe", ref: SyncStatus["unsafeL2"]): void;
}

export class DerivationStartError extends Error {
  override readonly name = "DerivationStartError";
}

/** What `validateL1Config` asks of the L1 client. */
export interface L1ConfigSource {
  chainId(): Promise<bigint>;
  l1BlockRefByNumber(n: number): Promise<L1BlockRef>;
}

/** How often an L1 config check that found L1 unreachable at start is tried again. */
const L1_CHECK_RETRY_MS = 5_000;

/**
 * op-node `rollup.Config.ValidateL1Config` (node.go `initL1`): the L1 endpoint's chain id must be
 * the config's `l1_chain_id`, and L1's block at `genesis.l1.number` must be `genesis.l1.hash`;
 * otherwise derivation could never find its reset base (it would retry "failed to find the
 * pipeline reset base" forever). Returns what is wrong in op-node's words and what it means, or
 * null when both hold; a transport failure is thrown.
 */
export async function l1ConfigError(cfg: RollupConfig, l1: L1ConfigSource): Promise<string | null> {
  const id = await l1.chainId();
  if (id !== cfg.l1ChainId) return `incorrect L1 RPC chain id ${id}, expected ${cfg.l1ChainId}`;
  const g = cfg.genesis.l1;
  const where = `the rollup config's genesis.l1 (block ${g.number}, hash ${bytesToHex(g.hash)}) is not on the L1 chain`;
  let ref: L1BlockRef;
  try {
    ref = await l1.l1BlockRefByNumber(g.number);
  } catch (e) {
    if (e instanceof L1NotFoundError) return `failed to get L1 genesis blockhash: ${e.message}: ${where}`;
    throw e;
  }
  if (equalBytes(ref.hash, g.hash)) return null;
  return `incorrect L1 genesis block hash ${bytesToHex(ref.hash)}, expected ${bytesToHex(g.hash)}: ${where}`;
}

export interface DerivationDeps {
  readonly cfg: RollupConfig;
  readonly engine: EngineClient;
  readonly log: Logger;
  readonly l1Chain: ChainConfig | null;
  readonly safeDb: SafeHeadListener | null;
  readonly metrics?: DerivationMetrics;
  /** Called when `--rollup.halt` asks the node to stop. */
  readonly onHalt?: (reason: string) => void;
  /** The sequencer's run state; with `--sequencer.enabled` the service also sequences. */
  readonly control?: SequencerControl | null;
  /** The conductor client (`--conductor.enabled`). */
  readonly conductor?: Conductor | null;
  /** Each block the sequencer builds (P2P gossip publishes it). */
  readonly onSequencedBlock?: (ref: L2BlockRef, env: PayloadEnvelope) => void;
  /** Interop managed mode: an op-supervisor, not derivation, moves safe and finalized (rollup/driver.ts). */
  readonly managed?: boolean;
}

const IDLE_WAIT_MS = 2_000;
const RUNTIME_LOAD_ATTEMPTS = 1;

export class DerivationService {
  readonly driver: Driver;
  readonly sequencer: Sequencer | null;
  /** What the test-sequencer RPC needs (null without a sequencer). */
  readonly sequencerApi: SequencerApiDeps | null;
  readonly l1Client: L1Client;
  private readonly poller: L1HeadPoller;
  private readonly kzgPool: PiscinaPool | null;
  private readonly ws: WsRpcClient | null;
  private head: L1BlockRef | null = null;
  /** Serialises the driver, the sequencer and interop block replacement on the engine. */
  private readonly lock: Semaphore;
  private runtime: RuntimeConfigValues | null = null;
  private reloader: NodeJS.Timeout | null = null;
  private l1Checker: NodeJS.Timeout | null = null;
  private lastSnapshot = "";

  private constructor(
    private readonly config: DerivationConfig,
    private readonly deps: DerivationDeps,
    parts: {
      l1Client: L1Client;
      ws: WsRpcClient | null;
      beacon: BeaconClient | null;
      kzgPool: PiscinaPool | null;
      altDa: AltDaSource | null;
    },
  ) {
    this.l1Client = parts.l1Client;
    this.ws = parts.ws;
    this.kzgPool = parts.kzgPool;
    const confs = config["verifier.l1-confs"];
    const l1 = new L1Source(parts.l1Client, confs, () => this.head);
    const lock = new Semaphore(1);
    this.lock = lock;
    this.driver = new Driver(
      deps.cfg,
      {
        l1,
        l2: deps.engine,
        engine: deps.engine,
        blobs: parts.beacon,
        altDa: parts.altDa,
        l1Chain: deps.l1Chain,
        log: deps.log,
        safeDb: deps.safeDb,
        lock,
        ...(deps.metrics === undefined
          ? {}
          : { metrics: deps.metrics, onBatch: (t: "singular" | "span") => deps.metrics?.recordDerivedBatch(t) }),
      },
      {
        syncMode: config.syncmode === "execution-layer" ? "execution-layer" : "consensus-layer",
        engineKind: config["l2.enginekind"] ?? "geth",
        managed: deps.managed === true,
      },
    );
    this.sequencer = null;
    if (config["sequencer.enabled"] === true && deps.control !== undefined && deps.control !== null) {
      const driver = this.driver;
      this.sequencer = new Sequencer({
        cfg: deps.cfg,
        controller: driver.controller,
        l1: new L1Source(parts.l1Client, config["sequencer.l1-confs"] ?? 4, () => this.head),
        l2: deps.engine,
        l1Chain: deps.l1Chain,
        control: deps.control,
        lock,
        log: deps.log,
        conductor: deps.conductor ?? null,
        maxSafeLag: config["sequencer.max-safe-lag"] ?? 0,
        ready: () => driver.counters.resets > 0,
        requestReset: () => driver.requestReset(),
        ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
        ...(deps.onSequencedBlock === undefined ? {} : { onBlock: deps.onSequencedBlock }),
      });
    }
    this.sequencerApi =
      this.sequencer === null
        ? null
        : {
            cfg: deps.cfg,
            controller: this.driver.controller,
            sequencer: this.sequencer,
            l1: new L1Source(parts.l1Client, config["sequencer.l1-confs"] ?? 4, () => this.head),
            l2: deps.engine,
            l1Chain: deps.l1Chain,
            lock,
          };
    const isWs = /^wss?:\/\//.test(config.l1);
    this.poller = new L1HeadPoller({
      source: parts.l1Client,
      ...(isWs ? { wsUrl: config.l1 } : {}),
      trustRpc: config["l1.trustrpc"],
      httpPollIntervalMs: config["l1.http-poll-interval"],
      epochPollIntervalMs: config["l1.epoch-poll-interval"],
      onHead: (ref) => {
        this.head = ref;
        deps.metrics?.recordL1Ref("l1_head", ref);
        this.driver.onL1Head(ref);
      },
      onSafe: (ref) => {
        deps.metrics?.recordL1Ref("l1_safe", ref);
        this.driver.onL1Safe(ref);
      },
      onFinalized: (ref) => {
        deps.metrics?.recordL1Ref("l1_finalized", ref);
        void this.driver.onL1Finalized(ref);
      },
      onError: (err, what) => deps.log.warn(`L1 ${what} poll failed`, { err: (err as Error).message }),
    });
  }

  /** Builds the clients and runs the startup checks (beacon health, runtime config); then derives. */
  static async start(config: DerivationConfig, deps: DerivationDeps): Promise<DerivationService> {
    const { cfg, log } = deps;
    const isWs = /^wss?:\/\//.test(config.l1);
    const ws = isWs ? new WsRpcClient(config.l1) : null;
    let cacheSize = config["l1.cache-size"];
    if (cacheSize === 0) cacheSize = Math.floor((cfg.seqWindowSize * 3) / 2);
    const l1Client = new L1ClientImpl({
      url: config.l1,
      ...(ws === null ? {} : { transport: ws }),
      trustRpc: config["l1.trustrpc"],
      rpcKind: config["l1.rpckind"],
      maxConcurrency: config["l1.max-concurrency"],
      maxBatchSize: config["l1.rpc-max-batch-size"],
      rateLimit: config["l1.rpc-rate-limit"],
      cacheSize,
    });

    // A wrong config fails the start (exit 1); an L1 that does not answer yet is checked again in
    // the background, and a wrong config found then halts the node (exit 1) with the same words.
    let l1Unchecked = false;
    try {
      const bad = await l1ConfigError(cfg, l1Client);
      if (bad !== null) throw new DerivationStartError(bad);
    } catch (e) {
      if (e instanceof DerivationStartError) throw e;
      log.warn("Failed to validate the L1 config; trying again while the node runs", { err: (e as Error).message });
      l1Unchecked = true;
    }

    let beacon: BeaconClient | null = null;
    let kzgPool: PiscinaPool | null = null;
    const ecotoneScheduled = cfg.ecotoneTime !== null;
    const beaconUrl = config["l1.beacon"];
    if (beaconUrl !== undefined && beaconUrl !== "") {
      kzgPool = new PiscinaPool("kzgVerify", { threads: 1, youngGenerationMb: SMALL_TASK_YOUNG_MB });
      try {
        beacon = new BeaconClient({
          url: beaconUrl,
          headers: config["l1.beacon-header"] === undefined ? [] : [config["l1.beacon-header"]],
          fallbacks: config["l1.beacon-fallbacks"] ?? [],
          fetchAllSidecars: config["l1.beacon.fetch-all-sidecars"],
          verifier: new PoolBlobVerifier(kzgPool),
        });
        const version = await beacon.checkHealth();
        log.info("Connected to L1 Beacon API", { version });
      } catch (e) {
        if (!config["l1.beacon.ignore"]) {
          await kzgPool.destroy();
          throw new DerivationStartError(
            `failed to check L1 Beacon API version: ${(e as Error).message} (--l1.beacon.ignore=true to start anyway)`,
          );
        }
        log.warn("Failed to check L1 Beacon API version, but continuing (--l1.beacon.ignore)", {
          err: (e as Error).message,
        });
      }
    } else if (ecotoneScheduled && !config["l1.beacon.ignore"]) {
      throw new DerivationStartError(
        "expected L1 Beacon API endpoint (--l1.beacon), but got none; blobs cannot be read without it (--l1.beacon.ignore=true to start anyway)",
      );
    }

    let altDa: AltDaSource | null = null;
    if (config["altda.enabled"]) {
      if (cfg.altDa === null) {
        await kzgPool?.destroy();
        throw new DerivationStartError("--altda.enabled, but the rollup config has no alt_da section");
      }
      const server = config["altda.da-server"];
      if (server === undefined || server === "") {
        await kzgPool?.destroy();
        throw new DerivationStartError("--altda.enabled needs --altda.da-server");
      }
      const client = new DaClient({
        url: server,
        getTimeoutMs: config["altda.get-timeout"],
        putTimeoutMs: config["altda.put-timeout"],
        maxConcurrent: config["altda.max-concurrent-da-requests"],
        verifyOnRead: config["altda.verify-on-read"],
        daService: config["altda.da-service"],
      });
      const manager = new AltDaManager(cfg.altDa, client, {
        fetchReceipts: async (h) => (await l1Client.fetchReceipts(h)).receipts,
        txsByHash: async (h) => (await l1Client.infoAndTxsByHash(h)).txs,
        l1BlockRefByNumber: (n) => l1Client.l1BlockRefByNumber(n),
      });
      altDa = new AltDaSource(manager, (m, c) => log.warn(m, c));
    }

    const svc = new DerivationService(config, deps, { l1Client, ws, beacon, kzgPool, altDa });
    await svc.loadRuntime(true);
    // 0 or negative intervals disable polling (op-service eth.PollBlockChanges warns once per label).
    if (!svc.poller.epochPolling) {
      for (const label of ["safe", "finalized"]) {
        log.warn("polling of block is disabled", { interval: `${config["l1.epoch-poll-interval"]}ms`, label });
      }
    }
    if (!isWs && !svc.poller.headPolling) {
      log.warn("polling of block is disabled", { interval: `${config["l1.http-poll-interval"]}ms`, label: "latest" });
    }
    if (l1Unchecked) svc.recheckL1Config();
    svc.poller.start();
    const every = config["l1.runtime-config-reload-interval"];
    if (every > 0) {
      svc.reloader = setInterval(() => void svc.loadRuntime(false), timerDelay(every));
      svc.reloader.unref();
    } else {
      log.debug("not running runtime-config reloading background loop");
    }
    if (config["snapshotlog.file"] !== undefined) svc.driver.onChange = () => svc.snapshot();
    svc.driver.start(IDLE_WAIT_MS);
    svc.sequencer?.start();
    return svc;
  }

  syncStatus(): SyncStatus {
    return this.driver.syncStatus();
  }

  /**
   * Interop reset (rollup/interop/managed.ts, op-node's ForceResetEvent): the engine's heads become
   * `h` (a forkchoice update, which rewinds the engine when `h.unsafe` is behind), then the pipeline
   * resets and derivation restarts from them — from the safe (cross-safe) head, re-deriving the
   * local-safe blocks above it. Between driver and sequencer steps.
   */
  forceReset(h: { unsafe: L2BlockRef; localSafe: L2BlockRef; safe: L2BlockRef; finalized: L2BlockRef }): Promise<void> {
    return this.lock.run(async () => {
      await this.driver.controller.forceReset(h);
      this.driver.requestReset();
    });
  }

  /**
   * Interop managed mode: the supervisor's cross-safe block (derived from `source`) and finalized
   * block go to the engine's forkchoice (engine/engineController.ts `promoteCrossSafe`), between
   * driver and sequencer steps.
   */
  promoteCrossSafe(ref: L2BlockRef, source: L1BlockRef): Promise<void> {
    return this.lock.run(async () => {
      if (await this.driver.controller.promoteCrossSafe(ref, source)) this.driver.onChange?.();
    });
  }

  promoteFinalized(ref: L2BlockRef): Promise<void> {
    return this.lock.run(async () => {
      if (await this.driver.controller.promoteFinalized(ref)) this.driver.onChange?.();
    });
  }

  /**
   * Interop block replacement (rollup/interop/managed.ts): builds `attrs` on `parent` and makes the
   * result the unsafe head in place of `invalidated`, between driver and sequencer steps. Refused
   * when `invalidated` is at or below the (local-)safe head or no longer canonical, or the engine
   * refuses.
   */
  replaceUnsafeBlock(invalidated: L2BlockRef, parent: L2BlockRef, attrs: PayloadAttributes): Promise<L2BlockRef> {
    return this.lock.run(async () => {
      const c = this.driver.controller;
      const safe = c.state.localSafe;
      if (invalidated.number <= safe.number) {
        throw new Error(`block ${invalidated.number} is at or below the local-safe head ${safe.number}`);
      }
      const canonical = await this.deps.engine.blockRef(invalidated.number);
      if (canonical === null || bytesToHex(canonical.hash) !== bytesToHex(invalidated.hash)) {
        throw new Error(`block ${bytesToHex(invalidated.hash)} is no longer canonical`);
      }
      const built = await c.build(parent, attrs);
      if (!built.ok) throw new Error(`engine refused the replacement: ${built.reason}`);
      await c.adoptUnsafe(built.ref);
      return built.ref;
    });
  }

  get runtimeConfig(): RuntimeConfigValues | null {
    return this.runtime;
  }

  /**
   * Reads the runtime config at the L1 head and applies `--rollup.halt`. At startup a few attempts
   * are made; failures are logged (the reload loop tries again later), never fatal.
   */
  private async loadRuntime(startup: boolean): Promise<void> {
    const attempts = startup ? RUNTIME_LOAD_ATTEMPTS : 1;
    for (let i = 0; i < attempts; i++) {
      try {
        const head = await this.l1Client.l1BlockRefByLabel("latest");
        this.runtime = await loadRuntimeConfig(this.deps.cfg, this.l1Client, head);
        this.checkProtocolVersions();
        return;
      } catch (e) {
        this.deps.log.warn("failed to load the runtime config from L1", { err: (e as Error).message, attempt: i + 1 });
        if (i + 1 < attempts) await new Promise((r) => setTimeout(r, 1000).unref());
      }
    }
  }

  private checkProtocolVersions(): void {
    const r = this.runtime;
    if (r === null || r.required.every((b) => b === 0)) return;
    const cmp = compareProtocolVersions(OPAL_PROTOCOL_SUPPORT, r.required);
    this.deps.log.info("protocol version signal", {
      required: formatProtocolVersion(r.required),
      recommended: formatProtocolVersion(r.recommended),
      local: formatProtocolVersion(OPAL_PROTOCOL_SUPPORT),
      comparison: cmp,
    });
    if (shouldHalt(this.config["rollup.halt"], cmp)) {
      const why = `opted to halt, unprepared for protocol change: required ${formatProtocolVersion(r.required)}, local ${formatProtocolVersion(OPAL_PROTOCOL_SUPPORT)}`;
      this.deps.log.error(why);
      this.deps.onHalt?.(why);
    }
  }

  /** `--snapshotlog.file`: one JSON line whenever the rollup state changed (op-node's snapshot log). */
  private snapshot(): void {
    const s = this.driver.syncStatus();
    const line = JSON.stringify({
      l1Head: l1RefJson(s.headL1),
      l1Current: l1RefJson(s.currentL1),
      l2Head: l2RefJson(s.unsafeL2),
      l2Safe: l2RefJson(s.safeL2),
      l2FinalizedHead: l2RefJson(s.finalizedL2),
    });
    if (line === this.lastSnapshot) return;
    this.lastSnapshot = line;
    try {
      appendFileSync(
        this.config["snapshotlog.file"]!,
        `${JSON.stringify({ t: new Date().toISOString(), lvl: "info", msg: "Rollup State Snapshot", event: "snapshot", ...JSON.parse(line) })}\n`,
      );
    } catch (e) {
      this.deps.log.warn("failed to write the snapshot log", { err: (e as Error).message });
    }
  }

  /** `l1ConfigError` every L1_CHECK_RETRY_MS until L1 answers; a wrong config then halts the node. */
  private recheckL1Config(): void {
    let running = false;
    this.l1Checker = setInterval(() => {
      if (running) return;
      running = true;
      l1ConfigError(this.deps.cfg, this.l1Client)
        .then((bad) => {
          if (this.l1Checker !== null) clearInterval(this.l1Checker);
          this.l1Checker = null;
          if (bad === null) {
            this.deps.log.info("Validated the L1 config");
            return;
          }
          this.deps.log.error(bad);
          this.deps.onHalt?.(bad);
        })
        .catch((e: unknown) => this.deps.log.debug("L1 config check failed", { err: (e as Error).message }))
        .finally(() => {
          running = false;
        });
    }, L1_CHECK_RETRY_MS);
    this.l1Checker.unref();
  }

  async stop(): Promise<void> {
    await this.sequencer?.stop();
    this.poller.stop();
    if (this.reloader !== null) clearInterval(this.reloader);
    if (this.l1Checker !== null) clearInterval(this.l1Checker);
    this.l1Checker = null;
    await this.driver.stop();
    this.ws?.close();
    await this.kzgPool?.destroy();
  }
}
