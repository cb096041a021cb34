/**
 * `RollupNode`: the rollup node's process shell (op-node node/node.go), wiring what the node serves
 * besides derivation: the rollup config (bundled network or rollup.json, with fork overrides), the
 * engine connection (`--l2` with the JWT of `--l2.jwt-secret`, created when missing or empty), the
 * node RPC (`optimism_*` always, `admin_*` with `--rpc.enable-admin`, `GET /healthz`), the sequencer
 * run state with `--rpc.admin-state`, metrics and the profiler, and an ordered shutdown.
 *
 * With `--l1` the derivation service (node/derivationService.ts) follows L1 and drives the engine;
 * the sync status is then the driver's. Until its first pipeline reset (and without `--l1`), the L2
 * heads are read from the execution client's own labels (latest, safe, finalized: what op-node's
 * FindL2Heads starts from) every `headPollMs`.
 */

import { readFileSync } from "node:fs";
import { type LoadedJwtSecret, obtainJwtSecret } from "../../engine/jwtSecret.js";
import { type BlockSignerConfig, blockSignerFromConfig } from "../../p2p/blockSigner.js";
import { type P2pConfig, type P2pMetricsSink, P2pNode } from "../../p2p/host.js";
import { p2pMethods } from "../../p2p/p2pApi.js";
import { bytesToHex } from "../../primitives/hex.js";
import { checkPayloadEnvelope, L2Source } from "../../rollup/api/l2Source.js";
import { adminMethods, type NodeApiDeps, optimismMethods } from "../../rollup/api/nodeApi.js";
import { networkRollupConfig } from "../../rollup/config/network.js";
import {
  applyForkOverrides,
  OPTIONAL_ROLLUP_FORKS,
  parseL1ChainConfig,
  parseRollupConfig,
  ROLLUP_FORKS,
  type RollupConfig,
  type RollupFork,
  rollupConfigToJson,
} from "../../rollup/config/rollupConfig.js";
import { SafeDb } from "../../rollup/driver/safeDb.js";
import { EngineClient, envelopeOf } from "../../rollup/engine/engineClient.js";
import { type L2BlockRef, type SyncStatus, ZERO_L1_REF, ZERO_L2_REF } from "../../rollup/refs.js";
import { ConductorClient } from "../../rollup/sequencer/conductorClient.js";
import { sequencerApiMethods } from "../../rollup/sequencer/sequencerApi.js";
import { SequencerControl } from "../../rollup/sequencer/sequencerControl.js";
import { FailoverRpcClient } from "../../rollup/transport/failoverClient.js";
import { RpcClient } from "../../rollup/transport/rpcClient.js";
import type { RpcTransport } from "../../rollup/transport/rpcTransport.js";
import { logCrashes } from "../../rpc/dispatch.js";
import { RpcHttpServer } from "../../rpc/httpServer.js";
import { type AnyMethod, Registry } from "../../rpc/registry.js";
import type { ChainConfig } from "../../spec/chainConfig.js";
import { listenError } from "../../util/httpServe.js";
import type { Logger } from "../../util/log.js";
import { type DerivationConfig, type DerivationMetrics, DerivationService } from "./derivationService.js";
import { type InteropOptions, InteropService, managedModeOn } from "./interopService.js";

/** The resolved rollup configuration as the node uses it (rollup/config.ts produces it). */
export interface NodeRollupConfig {
  readonly l2ChainId: bigint;
  readonly genesisL1: { readonly hash: Uint8Array; readonly number: number };
  readonly genesisL2: { readonly hash: Uint8Array; readonly number: number };
  readonly blockTime: number;
  /** optimism_rollupConfig's answer (op-node's rollup.json shape). */
  readonly json: unknown;
  /** The whole config (fork times choose payload versions). */
  readonly config: RollupConfig;
}

export interface RollupNodeConfig {
  readonly "rpc.addr": string;
  readonly "rpc.port": number;
  readonly "rpc.enable-admin": boolean;
  readonly "rpc.admin-state": string | undefined;
  readonly l2: readonly string[];
  readonly "l2.jwt-secret": string | undefined;
  readonly "l2.engine-rpc-timeout": number;
  readonly "sequencer.enabled": boolean;
  readonly "sequencer.stopped": boolean;
  readonly "sequencer.recover": boolean;
  readonly "conductor.enabled": boolean;
  readonly "conductor.rpc"?: string;
  readonly "conductor.rpc-timeout"?: number;
  readonly "safedb.path": string | undefined;
  readonly "fetch-withdrawal-root-from-state"?: boolean;
  readonly "experimental.sequencer-api"?: boolean;
}

/**
 * The derivation options: all of them when `l1` is set (derivation runs; opal-node's flag table
 * gives every one), else any of them, unread.
 */
export type DerivationOptions = DerivationConfig | { readonly l1?: undefined };

/**
 * The P2P and block-signer options: all of them when `p2p.disable` is false (the stack runs;
 * opal-node's flag table gives every one), else any of them, unread.
 */
export type P2pOptions =
  | ({ readonly "p2p.disable": false } & P2pConfig & BlockSignerConfig)
  | { readonly "p2p.disable"?: true };

/**
 * The node's options, keyed by opal-node's flag names (cli/nodeFlags.ts `NodeConfig` is checked
 * to supply them; this layer cannot import the CLI's types).
 */
export type RollupNodeOptions = RollupNodeConfig & InteropOptions & DerivationOptions & P2pOptions;

/** Metrics the shell records (node/metrics.ts `NodeMetrics`, or its no-op twin). */
export interface ShellMetrics {
  recordRpcServerRequest(method: string, seconds: number): void;
  recordL2Ref(kind: "l2_unsafe" | "l2_safe" | "l2_finalized", ref: L2BlockRef): void;
}

/** A server the node owns and closes on shutdown (metrics, profiler). */
export interface OwnedService {
  readonly name: string;
  close(): Promise<void>;
}

export interface RollupNodeDeps {
  readonly log: Logger;
  readonly rollup: NodeRollupConfig;
  /** optimism_version, /healthz. */
  readonly version: string;
  readonly metrics: ShellMetrics;
  /** admin_setLogLevel: apply a level by name, or return why not. */
  readonly setLogLevel: (level: string) => string | null;
  /** Services started before the node (closed after it, in reverse order). */
  readonly services?: readonly OwnedService[];
  /** L2 head polling period, ms (default 2000). */
  readonly headPollMs?: number;
  /** The L1 chain config (`--rollup.l1-chain-config`): blob fee schedule; null when unknown. */
  readonly l1ChainConfig?: ChainConfig | null;
  /** Derivation metrics (node/metrics.ts NodeMetrics). */
  readonly derivationMetrics?: DerivationMetrics;
  /** P2P metrics (node/metrics.ts NodeMetrics). */
  readonly p2pMetrics?: P2pMetricsSink;
}

/** A startup failure: one line for the operator. */
export class RollupNodeError extends Error {
  override readonly name = "RollupNodeError";
}

/** The flags that choose the rollup config. */
export interface RollupConfigFlags {
  readonly network: string | undefined;
  readonly "rollup.config": string | undefined;
  /** `--override.<fork>` values by fork name (0 = no override). */
  readonly overrides: Readonly<Partial<Record<RollupFork, bigint>>>;
  /** `--override.keep-karst-upgrade-gas`: replaces `keep_karst_upgrade_gas` when set (op-node v1.19.1). */
  readonly keepKarstUpgradeGas?: boolean | undefined;
}

/**
 * The rollup config of `--network` (bundled) or `--rollup.config` (a rollup.json file), with the
 * non-zero `--override.*` fork times applied (op-node: overrides replace the bundled or file value).
 */
export function resolveRollupConfig(f: RollupConfigFlags): RollupConfig {
  let cfg: RollupConfig;
  if (f.network !== undefined) {
    const c = networkRollupConfig(f.network);
    if (c === null) throw new RollupNodeError(`--network: unknown network ${JSON.stringify(f.network)}`);
    cfg = c;
  } else if (f["rollup.config"] !== undefined) {
    const path = f["rollup.config"];
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new RollupNodeError(
        `--rollup.config: ${path}: ${code === "ENOENT" ? "no such file" : (code ?? (e as Error).message)}`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new RollupNodeError(`--rollup.config: ${path}: not JSON`);
    }
    try {
      cfg = parseRollupConfig(json);
    } catch (e) {
      throw new RollupNodeError(`--rollup.config: ${path}: ${(e as Error).message}`);
    }
  } else {
    throw new RollupNodeError("missing rollup configuration: give --network or --rollup.config");
  }
  if (f.keepKarstUpgradeGas !== undefined && f.keepKarstUpgradeGas !== cfg.keepKarstUpgradeGas) {
    cfg = Object.freeze({ ...cfg, keepKarstUpgradeGas: f.keepKarstUpgradeGas });
  }
  const overrides: Partial<Record<RollupFork, number>> = {};
  let any = false;
  for (const [fork, v] of Object.entries(f.overrides) as [RollupFork, bigint | undefined][]) {
    if (v === undefined || v === 0n) continue;
    overrides[fork] = Number(v);
    any = true;
  }
  if (!any) return cfg;
  try {
    return applyForkOverrides(cfg, overrides);
  } catch (e) {
    throw new RollupNodeError(`--override.*: ${(e as Error).message}`);
  }
}

/**
 * `--rollup.l1-chain-config`: the L1 chain config (geth genesis `config`, bare or inside a
 * genesis.json), checked against the rollup config's L1 chain id at startup. Ethereum mainnet and
 * Sepolia need none (op-node knows them); the blob schedule of any other L1 comes from here.
 */
export function loadL1ChainConfig(path: string, l1ChainId: bigint): ChainConfig {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code !== undefined ? code : "not JSON";
    throw new RollupNodeError(`--rollup.l1-chain-config: ${path}: ${why}`);
  }
  try {
    return parseL1ChainConfig(json, l1ChainId);
  } catch (e) {
    throw new RollupNodeError(`--rollup.l1-chain-config: ${path}: ${(e as Error).message}`);
  }
}

/** What the node shell takes from the rollup config. */
export function nodeRollupConfigOf(cfg: RollupConfig): NodeRollupConfig {
  return {
    l2ChainId: cfg.l2ChainId,
    genesisL1: cfg.genesis.l1,
    genesisL2: cfg.genesis.l2,
    blockTime: cfg.blockTime,
    json: rollupConfigToJson(cfg),
    config: cfg,
  };
}

/** The fork times of `cfg` as log fields (unset forks left out), for the startup line. */
export function forkTimeFields(cfg: RollupConfig): Record<string, number> {
  const out: Record<string, number> = {};
  for (const fork of [...ROLLUP_FORKS, ...OPTIONAL_ROLLUP_FORKS]) {
    const t = cfg[`${fork}Time`];
    if (t !== null) out[fork] = t;
  }
  return out;
}

/** What the node reports before it has seen anything. */
const ZERO_STATUS: SyncStatus = {
  currentL1: ZERO_L1_REF,
  headL1: ZERO_L1_REF,
  safeL1: ZERO_L1_REF,
  finalizedL1: ZERO_L1_REF,
  unsafeL2: ZERO_L2_REF,
  safeL2: ZERO_L2_REF,
  finalizedL2: ZERO_L2_REF,
  pendingSafeL2: ZERO_L2_REF,
};

export class RollupNode {
  private status: SyncStatus = ZERO_STATUS;
  private poller: NodeJS.Timeout | null = null;
  private polling = false;
  private lastPollError = "";
  private stopped = false;

  /** Resolves with the reason when the node must stop on its own (`--rollup.halt`). */
  readonly halted: Promise<string>;
  private halt: (reason: string) => void = () => undefined;
  /** The derivation service; null without `--l1`. */
  derivation: DerivationService | null = null;
  /** The P2P stack; null with `--p2p.disable` (or when the options do not mention P2P at all). */
  p2p: P2pNode | null = null;
  /** Interop (node/interopService.ts): null on networks without interop or without interop options. */
  interop: InteropService | null = null;

  private constructor(
    private readonly deps: RollupNodeDeps,
    readonly l2: L2Source,
    readonly sequencer: SequencerControl,
    readonly rpcServer: RpcHttpServer,
    readonly jwt: LoadedJwtSecret,
    /** --safedb.path (null when not enabled); the derivation writes it. */
    readonly safeDb: SafeDb | null,
  ) {
    this.halted = new Promise<string>((resolve) => {
      this.halt = resolve;
    });
  }

  get syncStatus(): SyncStatus {
    return this.status;
  }

  /**
   * The driver's status once its pipeline has been reset; the polled one before. Under a supervisor
   * (interop managed mode) with its cross-unsafe, cross-safe and finalized heads.
   */
  private get liveStatus(): SyncStatus {
    const d = this.derivation;
    const s = d !== null && d.driver.counters.resets > 0 ? d.syncStatus() : this.status;
    const m = this.interop?.managed ?? null;
    return m === null ? s : m.overlay(s);
  }

  static async start(config: RollupNodeOptions, deps: RollupNodeDeps): Promise<RollupNode> {
    const { log, rollup } = deps;
    if (config.l2.length === 0) throw new RollupNodeError("--l2: no engine endpoint");
    const secretPath = config["l2.jwt-secret"];
    if (secretPath === undefined || secretPath.trim() === "") {
      throw new RollupNodeError("--l2.jwt-secret: file-name of jwt secret is empty");
    }
    let jwt: LoadedJwtSecret;
    try {
      jwt = obtainJwtSecret(secretPath);
    } catch (e) {
      throw new RollupNodeError(`--l2.jwt-secret: ${(e as Error).message}`);
    }
    if (jwt.created) {
      log.warn("Failed to read JWT secret from file, generated a new one. Configure the engine with this secret.", {
        path: secretPath,
      });
    }
    // Several --l2 URLs are failover endpoints, in order of preference (transport/failoverClient.ts).
    const clients = config.l2.map(
      (url) => new RpcClient(url, { jwtSecret: jwt.secret, timeoutMs: config["l2.engine-rpc-timeout"] }),
    );
    const client: RpcTransport = clients.length === 1 ? clients[0]! : new FailoverRpcClient(clients, log);
    if (clients.length > 1)
      log.info("L2 engine endpoints, first preferred, the others on failover", { urls: config.l2 });
    const l2 = new L2Source(
      client,
      { l1: rollup.genesisL1, l2: rollup.genesisL2 },
      { cfg: rollup.config, fromState: config["fetch-withdrawal-root-from-state"] === true },
    );
    const engine = new EngineClient(client, rollup.config);

    let node: RollupNode | null = null;
    // The live unsafe head: the engine controller's once derivation runs, else the polled one.
    const unsafeHead = (): Uint8Array => {
      if (node === null) return rollup.genesisL2.hash;
      const d = node.derivation;
      return d !== null && d.driver.counters.resets > 0
        ? d.driver.controller.state.unsafe.hash
        : node.status.unsafeL2.hash;
    };
    let sequencer: SequencerControl;
    try {
      sequencer = new SequencerControl(
        {
          enabled: config["sequencer.enabled"],
          stopped: config["sequencer.stopped"],
          adminStatePath: config["rpc.admin-state"] ?? null,
          conductorEnabled: config["conductor.enabled"],
        },
        unsafeHead,
      );
    } catch (e) {
      throw new RollupNodeError((e as Error).message);
    }
    if (sequencer.restoredFrom !== null) {
      log.warn("Sequencer state restored from the admin state file, overriding --sequencer.stopped", {
        started: sequencer.restoredFrom.sequencerStarted,
      });
    }
    sequencer.recoverMode = config["sequencer.recover"];
    sequencer.onChange((active) => log.info(active ? "Sequencer started" : "Sequencer stopped"));

    const conductorUrl = config["conductor.rpc"];
    const conductor =
      config["conductor.enabled"] && conductorUrl !== undefined
        ? new ConductorClient(conductorUrl, config["conductor.rpc-timeout"] ?? 1000)
        : null;
    let safeDb: SafeDb | null = null;
    const safeDbPath = config["safedb.path"];
    if (safeDbPath !== undefined) {
      try {
        safeDb = await SafeDb.open(safeDbPath);
      } catch (e) {
        throw new RollupNodeError(`--safedb.path: ${safeDbPath}: ${(e as Error).message.split("\n")[0]}`);
      }
    }
    const db = safeDb;
    const apiDeps: NodeApiDeps = {
      version: deps.version,
      rollupConfigJson: rollup.json,
      syncStatus: () => (node === null ? ZERO_STATUS : node.liveStatus),
      l2,
      safeHeadAtL1Block: db === null ? null : (n) => db.safeHeadAtL1(n),
      sequencer,
      setLogLevel: deps.setLogLevel,
      resetDerivationPipeline: () => {
        const d = node?.derivation ?? null;
        if (d === null) throw new Error("derivation pipeline is not running");
        d.driver.requestReset();
      },
      conductor: {
        enabled: () => config["conductor.enabled"],
        // op-node's no-op conductor when disabled.
        overrideLeader: async () => {
          if (conductor !== null) await conductor.overrideLeader();
        },
      },
      setRecoverMode: (on) => {
        sequencer.recoverMode = on;
        log.info("Sequencer recover mode", { enabled: on });
      },
      // op-conductor failover: the hash is recomputed first, then the payload becomes the unsafe head.
      postUnsafePayload: async (env) => {
        const { version, envelope } = checkPayloadEnvelope(rollup.config, env);
        const d = node?.derivation ?? null;
        if (d !== null && (d.driver.counters.resets > 0 || d.driver.controller.elSyncing)) {
          const p = envelopeOf(envelope.executionPayload, envelope.parentBeaconBlockRoot ?? null);
          if (!(await d.driver.controller.insertUnsafePayload(p))) {
            throw new Error(
              `payload ${String(envelope.executionPayload.blockHash)} does not extend the unsafe head ${bytesToHex(d.driver.controller.state.unsafe.hash)}`,
            );
          }
        } else {
          const s = node === null ? ZERO_STATUS : node.status;
          await l2.insertUnsafePayload(version, envelope, s.safeL2.hash, s.finalizedL2.hash);
        }
        log.info("Inserted unsafe payload from the admin API", { hash: String(envelope.executionPayload.blockHash) });
        await node?.pollHeads();
      },
    };
    const methods = [
      ...optimismMethods(apiDeps),
      ...(config["rpc.enable-admin"] ? adminMethods(apiDeps) : []),
      ...(config["experimental.sequencer-api"] === true
        ? sequencerApiMethods(() => node?.derivation?.sequencerApi ?? null)
        : []),
      // op-node serves opp2p only with P2P on; the host starts after the server, hence the getter.
      ...(config["p2p.disable"] === false ? p2pMethods(() => node?.p2p ?? null) : []),
    ];
    const registry = new Registry(methods.map((m) => timed(m, deps.metrics)));
    const rpcServer = new RpcHttpServer(
      {
        addr: config["rpc.addr"],
        port: config["rpc.port"],
        apis: ["optimism", "admin", "opstack", "opp2p"],
        cors: ["*"],
        vhosts: ["*"],
        // op-node's GET /healthz: 200 with the version string.
        getRoutes: { "/healthz": () => ({ status: 200, body: deps.version }) },
      },
      { registry, onCrash: logCrashes(log) },
    );
    try {
      const addr = await rpcServer.listen();
      log.info("Started JSON-RPC server", { endpoint: `http://${addr.address}:${addr.port}` });
    } catch (e) {
      await safeDb?.close();
      throw new RollupNodeError(listenError("RPC", config["rpc.addr"], config["rpc.port"], e));
    }
    node = new RollupNode(deps, l2, sequencer, rpcServer, jwt, safeDb);
    const self = node;
    if (config.l1 !== undefined) {
      try {
        self.derivation = await DerivationService.start(config, {
          cfg: rollup.config,
          engine,
          log,
          l1Chain: deps.l1ChainConfig ?? null,
          safeDb,
          ...(deps.derivationMetrics === undefined ? {} : { metrics: deps.derivationMetrics }),
          onHalt: (reason) => self.halt(reason),
          control: sequencer,
          conductor,
          onSequencedBlock: (_ref, env) => {
            self.p2p?.publishBlock(env).catch((e: unknown) => {
              deps.p2pMetrics?.recordPublishingError();
              log.warn("Failed to publish the sequenced block over P2P", { err: (e as Error).message });
            });
            // A supervisor hears of the block now rather than at the next head poll.
            self.observeInterop();
          },
          managed: managedModeOn(config, rollup.config),
        });
      } catch (e) {
        await rpcServer.close();
        await safeDb?.close();
        throw new RollupNodeError((e as Error).message);
      }
    }
    if (config["p2p.disable"] === false) {
      try {
        self.p2p = await P2pNode.start(config, {
          cfg: rollup.config,
          log,
          metrics: deps.p2pMetrics ?? null,
          unsafeSigner: () => self.derivation?.runtimeConfig?.unsafeBlockSigner ?? new Uint8Array(20),
          onUnsafePayload: (env) => self.derivation?.driver.addUnsafePayload(env),
          payloadByNumber: (n) => engine.payloadByNumber(n),
          blockSigner: blockSignerFromConfig(config),
          userAgent: `opal-node/${deps.version}`,
        });
      } catch (e) {
        await self.derivation?.stop();
        await rpcServer.close();
        await safeDb?.close();
        throw new RollupNodeError((e as Error).message);
      }
      const d = self.derivation;
      const p2p = self.p2p;
      if (d !== null) {
        d.driver.onUnsafeGap = (from, to) => p2p.requestRange(from, to, d.driver.controller.state.unsafe.hash);
      }
    }
    try {
      self.interop = await InteropService.start(config, {
        cfg: rollup.config,
        log,
        l2,
        engine,
        l2Rpc: client,
        l1: () => self.derivation?.l1Client ?? null,
        forceReset: (h) => {
          const d = self.derivation;
          if (d === null) return Promise.reject(new Error("derivation pipeline is not running"));
          return d.forceReset(h);
        },
        // Without derivation the supervisor's heads are only kept and reported.
        promoteCrossSafe: (ref, source) => self.derivation?.promoteCrossSafe(ref, source) ?? Promise.resolve(),
        promoteFinalized: (ref) => self.derivation?.promoteFinalized(ref) ?? Promise.resolve(),
        replaceBlock: (invalidated, parent, attrs) => {
          const d = self.derivation;
          if (d === null) return Promise.reject(new Error("derivation pipeline is not running"));
          return d.replaceUnsafeBlock(invalidated, parent, attrs);
        },
      });
    } catch (e) {
      await self.p2p?.stop();
      await self.derivation?.stop();
      await rpcServer.close();
      await safeDb?.close();
      throw new RollupNodeError((e as Error).message);
    }
    await node.pollHeads();
    node.poller = setInterval(() => void node!.pollHeads(), deps.headPollMs ?? 2000);
    node.poller.unref();
    return node;
  }

  /** Reads the execution client's latest/safe/finalized blocks into the sync status. */
  async pollHeads(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      const [unsafe, safe, finalized] = await Promise.all([
        this.l2.blockRef("latest"),
        this.l2.blockRef("safe"),
        this.l2.blockRef("finalized"),
      ]);
      const s = this.status;
      if (this.derivation !== null && this.derivation.driver.counters.resets > 0) {
        this.status = this.derivation.syncStatus();
        this.recordStatus();
        this.observeInterop();
        return;
      }
      this.status = {
        ...s,
        unsafeL2: unsafe ?? s.unsafeL2,
        safeL2: safe ?? s.safeL2,
        pendingSafeL2: safe ?? s.pendingSafeL2,
        finalizedL2: finalized ?? s.finalizedL2,
      };
      this.recordStatus();
      this.observeInterop();
      if (this.lastPollError !== "") this.deps.log.info("Execution engine reachable again");
      this.lastPollError = "";
    } catch (e) {
      const msg = (e as Error).message;
      // One warning per distinct failure, not one per poll.
      if (msg !== this.lastPollError) this.deps.log.warn("Failed to read the L2 heads", { err: msg });
      this.lastPollError = msg;
    } finally {
      this.polling = false;
    }
  }

  /** Hands the new status to interop managed mode, which turns it into supervisor events. */
  private observeInterop(): void {
    const m = this.interop?.managed ?? null;
    if (m === null) return;
    const d = this.derivation;
    const live = d !== null && d.driver.counters.resets > 0 ? d.syncStatus() : this.status;
    m.observe(live, d?.driver.counters.resets ?? 0).catch((e: unknown) =>
      this.deps.log.warn("Interop: failed to report the heads", { err: (e as Error).message }),
    );
  }

  private recordStatus(): void {
    const m = this.deps.metrics;
    m.recordL2Ref("l2_unsafe", this.status.unsafeL2);
    m.recordL2Ref("l2_safe", this.status.safeL2);
    m.recordL2Ref("l2_finalized", this.status.finalizedL2);
    if (this.derivation !== null) this.deps.derivationMetrics?.recordL1Ref("l1_derived", this.status.currentL1);
  }

  /** Stops the poller, the RPC server, then the owned services (metrics, profiler) in reverse order. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.poller !== null) clearInterval(this.poller);
    await this.interop?.close();
    await this.p2p?.stop();
    await this.derivation?.stop();
    await this.rpcServer.close();
    await this.safeDb?.close();
    for (const s of [...(this.deps.services ?? [])].reverse()) {
      await s.close().catch((e: unknown) => this.deps.log.error(`Failed to close the ${s.name}`, { err: String(e) }));
    }
    this.deps.log.info("Rollup node stopped", { unsafe: bytesToHex(this.status.unsafeL2.hash) });
  }
}

/** Counts a method's calls and durations (op_node_default_rpc_server_*). */
function timed(m: AnyMethod, metrics: ShellMetrics): AnyMethod {
  const handler = m.handler as (p: unknown, ctx: unknown) => unknown;
  const wrapped = (p: unknown, ctx: unknown): unknown => {
    const t0 = performance.now();
    const done = (): void => metrics.recordRpcServerRequest(m.name, (performance.now() - t0) / 1000);
    let r: unknown;
    try {
      r = handler(p, ctx);
    } catch (e) {
      done();
      throw e;
    }
    if (r instanceof Promise) return r.finally(done);
    done();
    return r;
  };
  return { ...m, handler: wrapped } as AnyMethod;
}
