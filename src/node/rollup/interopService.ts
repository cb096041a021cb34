/**
 * opal-node's interop options (spec part 4B "Interop (super experimental)", part 5.2; op-node
 * rollup/interop/config.go `Setup`, managed/system.go `NewManagedMode`):
 *
 * - On a network without an interop activation time (rollup config `interop_time`) nothing starts:
 *   each interop option given is logged as ignored.
 * - `--interop.dependency-set`: loaded and validated at startup (rollup/interop/dependencySet.ts); a
 *   malformed file stops the node with one line naming the file and the field.
 * - `--interop.rpc.addr` (off when unset) / `--interop.rpc.port` (9645; 0 picks a free port): a
 *   WebSocket-only JSON-RPC server with the `interop` namespace of managed mode
 *   (rollup/interop/managed.ts) for an op-supervisor. The HS256 JWT of `--interop.jwt-secret` (a
 *   missing or empty file gets a new secret; no path, an ephemeral one) is checked on the upgrade
 *   request with the Engine API's checks (engine/jwt.ts): a missing, wrong, stale or future token is
 *   answered 401 with geth's reason and no socket is opened; an open socket stays authenticated. A
 *   plain HTTP request is answered 404 (the server speaks only WebSocket).
 */
import type { AddressInfo } from "node:net";
import { jwtAuthHook } from "../../engine/jwt.js";
import { obtainJwtSecret } from "../../engine/jwtSecret.js";
import type { L2Source } from "../../rollup/api/l2Source.js";
import type { RollupConfig } from "../../rollup/config/rollupConfig.js";
import type { EngineClient } from "../../rollup/engine/engineClient.js";
import { type DependencySet, loadDependencySet } from "../../rollup/interop/dependencySet.js";
import { interopMethods, type ManagedL1, ManagedMode, type ManagedModeDeps } from "../../rollup/interop/managed.js";
import type { RpcTransport } from "../../rollup/transport/rpcTransport.js";
import { logCrashes } from "../../rpc/dispatch.js";
import { Registry } from "../../rpc/registry.js";
import { RpcWsServer } from "../../rpc/wsServer.js";
import { listenError } from "../../util/httpServe.js";
import type { Logger } from "../../util/log.js";

/** op-node's default `--interop.rpc.port`. */
export const DEFAULT_INTEROP_RPC_PORT = 9645;

export interface InteropOptions {
  readonly "interop.dependency-set"?: string | undefined;
  readonly "interop.jwt-secret"?: string | undefined;
  readonly "interop.rpc.addr"?: string | undefined;
  readonly "interop.rpc.port"?: number | undefined;
}

export interface InteropDeps {
  readonly cfg: RollupConfig;
  readonly log: Logger;
  readonly l2: L2Source;
  readonly engine: EngineClient;
  readonly l2Rpc: RpcTransport;
  readonly l1: () => ManagedL1 | null;
  readonly forceReset: ManagedModeDeps["forceReset"];
  readonly promoteCrossSafe: ManagedModeDeps["promoteCrossSafe"];
  readonly promoteFinalized: ManagedModeDeps["promoteFinalized"];
  readonly replaceBlock: ManagedModeDeps["replaceBlock"];
  /** Unix seconds for the token check; tests pin it. */
  readonly clock?: () => number;
}

/** An interop option that cannot be used: one line naming the option. */
export class InteropError extends Error {
  override readonly name = "InteropError";
}

/** The interop options given (a port only when it differs from the default). */
function givenOptions(o: InteropOptions): string[] {
  const out: string[] = [];
  if (o["interop.dependency-set"] !== undefined) out.push("interop.dependency-set");
  if (o["interop.jwt-secret"] !== undefined) out.push("interop.jwt-secret");
  if (o["interop.rpc.addr"] !== undefined && o["interop.rpc.addr"] !== "") out.push("interop.rpc.addr");
  const port = o["interop.rpc.port"];
  if (port !== undefined && port !== DEFAULT_INTEROP_RPC_PORT) out.push("interop.rpc.port");
  return out;
}

/**
 * Whether managed mode runs: an interop network with `--interop.rpc.addr` set. Then derivation
 * leaves safe and finalized of Interop blocks to the supervisor (node/derivationService.ts).
 */
export function managedModeOn(o: InteropOptions, cfg: RollupConfig): boolean {
  const addr = o["interop.rpc.addr"];
  return cfg.interopTime !== null && addr !== undefined && addr !== "";
}

export class InteropService {
  private constructor(
    readonly dependencySet: DependencySet | null,
    /** Managed mode and its server; null without `--interop.rpc.addr`. */
    readonly managed: ManagedMode | null,
    readonly server: RpcWsServer | null,
    private readonly log: Logger,
  ) {}

  /**
   * Sets up what the options ask for; null on a network without interop (after warning about each
   * option given) or when no interop option is given at all.
   */
  static async start(o: InteropOptions, deps: InteropDeps): Promise<InteropService | null> {
    const { cfg, log } = deps;
    const given = givenOptions(o);
    if (cfg.interopTime === null) {
      for (const name of given) {
        log.warn(`--${name} is ignored: the network has no interop activation time`, { option: name });
      }
      return null;
    }
    let depSet: DependencySet | null = null;
    const depPath = o["interop.dependency-set"];
    if (depPath !== undefined) {
      try {
        depSet = loadDependencySet(depPath);
      } catch (e) {
        throw new InteropError(`--interop.dependency-set: ${(e as Error).message}`);
      }
      log.info("Loaded interop dependency set", {
        chains: depSet.chains().map(String).join(","),
        message_expiry_window: depSet.messageExpiryWindow(),
      });
      if (!depSet.hasChain(cfg.l2ChainId)) {
        log.warn("The interop dependency set does not list this chain", { chain_id: cfg.l2ChainId });
      }
    }
    const addr = o["interop.rpc.addr"];
    if (addr === undefined || !managedModeOn(o, cfg)) {
      if (o["interop.jwt-secret"] !== undefined) {
        log.warn("--interop.jwt-secret is ignored without --interop.rpc.addr", { option: "interop.jwt-secret" });
      }
      return depSet === null ? null : new InteropService(depSet, null, null, log);
    }
    const secretPath = o["interop.jwt-secret"] ?? "";
    let secret: Uint8Array;
    try {
      const loaded = obtainJwtSecret(secretPath);
      secret = loaded.secret;
      if (loaded.created && secretPath.trim() !== "") {
        log.warn("Generated a new interop JWT secret; configure the supervisor with it", { path: secretPath });
      } else if (loaded.created) {
        log.warn("No --interop.jwt-secret given: generated an ephemeral secret no supervisor can know");
      }
    } catch (e) {
      throw new InteropError(`--interop.jwt-secret: ${(e as Error).message}`);
    }
    const managed = new ManagedMode({
      cfg,
      l2: deps.l2,
      engine: deps.engine,
      l2Rpc: deps.l2Rpc,
      l1: deps.l1,
      forceReset: deps.forceReset,
      promoteCrossSafe: deps.promoteCrossSafe,
      promoteFinalized: deps.promoteFinalized,
      replaceBlock: deps.replaceBlock,
      log,
    });
    const port = o["interop.rpc.port"] ?? DEFAULT_INTEROP_RPC_PORT;
    const check = deps.clock === undefined ? jwtAuthHook(secret) : jwtAuthHook(secret, deps.clock);
    const server = new RpcWsServer(
      {
        addr,
        port,
        apis: ["interop"],
        // The supervisor authenticates with the token; browsers' Origin is not a concern here.
        origins: ["*"],
        beforeRequest: (req) => check(req.headers),
      },
      { registry: new Registry(interopMethods(managed)), onCrash: logCrashes(log) },
    );
    let bound: AddressInfo;
    try {
      bound = await server.listen();
    } catch (e) {
      throw new InteropError(listenError("interop RPC", addr, port, e));
    }
    log.info("Started interop RPC", { endpoint: `ws://${bound.address}:${bound.port}` });
    return new InteropService(depSet, managed, server, log);
  }

  /** The interop server's address (throws when it does not run). */
  address(): AddressInfo {
    if (this.server === null) throw new Error("the interop RPC server is not running");
    return this.server.address();
  }

  async close(): Promise<void> {
    if (this.server === null) return;
    await this.server.close(1000);
    this.log.info("Interop RPC stopped");
  }
}
