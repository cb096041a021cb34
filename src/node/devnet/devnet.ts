/**
 * A whole OP rollup on one machine (`opal-devnet`, `npm start`): writes the configuration into a data
 * folder once (devnetConfig.ts: genesis files, rollup.json, JWT secrets; each execution client's
 * datadir initialised with `opal-exec init`), then runs six processes from this package's own
 * launchers — the dev L1 (`opal-exec --dev`, sealing on a timer, with its beacon API), the
 * sequencer's opal-exec and opal-node, `opal-batcher`, and a verifier's opal-exec and opal-node
 * (P2P off: the verifier follows L1 only). Each process logs to `<datadir>/logs/<name>.log`.
 *
 * Started again on the same folder it resumes (the chains are in it); `fresh` starts over. `stop`
 * ends the processes in reverse order, SIGTERM first and SIGKILL after a grace period.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadOrCreateNodeKey, nodeKeyPath } from "../../devp2p/discovery/nodeKey.js";
import { loadOrCreateNetworkKey, peerIdOfNetworkKey } from "../../p2p/netKey.js";
import { bytesToHex, bytesToHexRaw } from "../../primitives/hex.js";
import type { RollupFork } from "../../rollup/config/rollupConfig.js";
import { type DevnetRoles, devnetConfig, devnetRoles } from "./devnetConfig.js";

export type DaType = "calldata" | "blobs" | "auto";

export interface DevnetOptions {
  readonly datadir: string;
  readonly fresh: boolean;
  /** L2 block time, seconds. */
  readonly blockTime: number;
  /** L1 block time (the dev L1's sealing period), seconds. */
  readonly l1BlockTime: number;
  readonly da: DaType;
  readonly upTo: RollupFork;
  /** Later forks activated this many seconds after L2 genesis (`--activate`; devnetConfig.ts). */
  readonly activate?: Readonly<Partial<Record<RollupFork, number>>>;
  /** Where progress lines go. */
  readonly print: (line: string) => void;
  /**
   * Added to every port of DEVNET_PORTS (default 0), so that a harness can run a devnet beside
   * another one on the same machine.
   */
  readonly portOffset?: number;
  /** Serve each opal-exec's and opal-node's Prometheus metrics on its `*Metrics` port (default off). */
  readonly metrics?: boolean;
  /**
   * Execution-layer sync (`--el-sync`): the verifier's opal-node runs `--syncmode execution-layer`
   * and its opal-exec fetches the chain over devp2p from the sequencer's, whose enode it is given
   * as its bootnode (default off: the verifier's engine is fed payload by payload).
   */
  readonly elSync?: boolean;
}

/**
 * With `elSync`, the verifier starts once the sequencer has built this many blocks: the range its
 * client must fetch over devp2p before gossip can extend its chain.
 */
export const EL_SYNC_LEAD_BLOCKS = 12;

/** The fixed local ports of a devnet (documented in the README). */
export const DEVNET_PORTS = {
  l1Http: 8545,
  l1Auth: 8651,
  l1Beacon: 5052,
  seqElHttp: 9545,
  seqElAuth: 9551,
  seqNode: 9547,
  verElHttp: 10545,
  verElAuth: 10551,
  verNode: 10547,
  seqP2p: 9222,
  verP2p: 10222,
  /** The L2 execution clients' devp2p ports (used with `elSync`). */
  seqElP2p: 30313,
  verElP2p: 30314,
  /** The metrics endpoints, served only with the `metrics` option. */
  l1Metrics: 6061,
  seqElMetrics: 9560,
  verElMetrics: 10560,
  seqNodeMetrics: 9300,
  verNodeMetrics: 10300,
} as const;

export type DevnetPorts = { readonly [K in keyof typeof DEVNET_PORTS]: number };

/** One process of a running devnet: its role name, its pid, and whether it has exited. */
export interface DevnetProcess {
  readonly name: string;
  readonly pid: number | undefined;
  readonly exited: boolean;
}

/** The package root: src/node/devnet → ../../.. from the sources, dist/src/node/devnet → ../../../.. from the build. */
const ROOT = fileURLToPath(new URL(import.meta.url.includes("/dist/") ? "../../../../" : "../../../", import.meta.url));

interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  exited: boolean;
}

export interface HeadsLine {
  readonly l1: number | null;
  readonly seq: { unsafe: number; safe: number; finalized: number } | null;
  readonly ver: { unsafe: number; safe: number; finalized: number } | null;
}

/** A fork activated after genesis, and what both L2 nodes know of its activation block so far. */
export interface ForkActivation {
  readonly fork: string;
  /** Activation time (rollup.json) and the first L2 block at or after it. */
  readonly time: number;
  readonly block: number;
  /** The activation block's hash on each execution client, null while it does not have it. */
  readonly sequencerHash: string | null;
  readonly verifierHash: string | null;
  /** Whether the verifier's safe head (derived from L1) has reached the activation block. */
  readonly verifierSafe: boolean;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(2000),
  });
  const j = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (j.error !== undefined) throw new Error(j.error.message);
  return j.result;
}

const url = (port: number): string => `http://127.0.0.1:${port}`;

/** Whether something accepts connections on 127.0.0.1:`port`. */
function portInUse(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = connect({ host: "127.0.0.1", port });
    s.once("connect", () => {
      s.destroy();
      done(true);
    });
    s.once("error", () => done(false));
  });
}

export class Devnet {
  private readonly procs: Proc[] = [];
  private stopping: Promise<void> | null = null;
  /** This devnet's ports: DEVNET_PORTS shifted by `portOffset`. */
  readonly ports: DevnetPorts;

  private constructor(
    readonly opts: DevnetOptions,
    readonly roles: DevnetRoles,
  ) {
    const off = opts.portOffset ?? 0;
    this.ports = Object.fromEntries(Object.entries(DEVNET_PORTS).map(([k, v]) => [k, v + off])) as DevnetPorts;
  }

  private path(...p: string[]): string {
    return join(this.opts.datadir, ...p);
  }

  /** Writes the configuration on first use (or with `fresh`), then starts every process. */
  static async start(opts: DevnetOptions): Promise<Devnet> {
    if (opts.fresh) rmSync(opts.datadir, { recursive: true, force: true });
    mkdirSync(join(opts.datadir, "logs"), { recursive: true });
    const net = new Devnet(opts, devnetRoles());
    if (!existsSync(net.path("rollup.json"))) await net.writeConfig();
    else opts.print(`Resuming the devnet in ${opts.datadir} (--fresh to start over)`);
    try {
      await net.startAll();
    } catch (e) {
      await net.stop();
      throw e;
    }
    return net;
  }

  private async writeConfig(): Promise<void> {
    const o = this.opts;
    o.print(`Writing a new devnet into ${o.datadir}`);
    const c = devnetConfig({
      timestamp: Math.floor(Date.now() / 1000),
      blockTime: o.blockTime,
      upTo: o.upTo,
      ...(o.activate === undefined ? {} : { activate: o.activate }),
    });
    const write = (name: string, v: unknown): void => writeFileSync(this.path(name), `${JSON.stringify(v, null, 2)}\n`);
    write("l1-genesis.json", c.l1Genesis);
    write("l2-genesis.json", c.l2Genesis);
    write("rollup.json", c.rollup);
    writeFileSync(this.path("jwt-sequencer.hex"), bytesToHex(new Uint8Array(randomBytes(32))), { mode: 0o600 });
    writeFileSync(this.path("jwt-verifier.hex"), bytesToHex(new Uint8Array(randomBytes(32))), { mode: 0o600 });
    for (const [dir, genesis] of [
      ["l1", "l1-genesis.json"],
      ["sequencer-el", "l2-genesis.json"],
      ["verifier-el", "l2-genesis.json"],
    ] as const) {
      await this.runToEnd("init", "opal-exec", [
        "init",
        this.path(genesis),
        "--datadir",
        this.path(dir),
        "--verbosity",
        "1",
      ]);
    }
  }

  /** Runs a command to completion (the `opal-exec init` steps); its output goes to the init log. */
  private runToEnd(name: string, bin: string, args: string[]): Promise<void> {
    return new Promise((done, fail) => {
      const child = spawn(process.execPath, [join(ROOT, "bin", `${bin}.mjs`), ...args], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      const log = createWriteStream(this.path("logs", `${name}.log`), { flags: "a" });
      child.stdout?.pipe(log);
      child.stderr?.pipe(log);
      child.on("exit", (code) =>
        code === 0 ? done() : fail(new Error(`${bin} ${args[0]} failed (exit ${code}), see logs/${name}.log`)),
      );
      child.on("error", fail);
    });
  }

  private launch(name: string, bin: string, args: string[]): void {
    const child = spawn(process.execPath, [join(ROOT, "bin", `${bin}.mjs`), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const log = createWriteStream(this.path("logs", `${name}.log`), { flags: "a" });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    const p: Proc = { name, child, exited: false };
    child.on("exit", (code, signal) => {
      p.exited = true;
      if (this.stopping === null) this.opts.print(`${name} exited (${signal ?? `code ${code}`}); see logs/${name}.log`);
    });
    this.procs.push(p);
  }

  /** Waits until `probe` answers, or fails naming the process and its log. */
  private async ready(name: string, probe: () => Promise<unknown>, timeoutMs = 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const p = this.procs.find((x) => x.name === name);
      if (p?.exited) throw new Error(`${name} stopped during startup; see ${this.path("logs", `${name}.log`)}`);
      try {
        await probe();
        return;
      } catch {
        if (Date.now() > until)
          throw new Error(
            `${name} did not start within ${timeoutMs / 1000} s; see ${this.path("logs", `${name}.log`)}`,
          );
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  private async startAll(): Promise<void> {
    const o = this.opts;
    const P = this.ports;
    for (const port of Object.values(P)) {
      if (await portInUse(port)) {
        throw new Error(`port ${port} on 127.0.0.1 is in use (is another devnet running?)`);
      }
    }
    const quiet = ["--verbosity", "3"];
    const execMetrics = (port: number): string[] =>
      o.metrics === true ? ["--metrics", "--metrics.addr=127.0.0.1", `--metrics.port=${port}`] : [];
    const nodeMetrics = (port: number): string[] =>
      o.metrics === true ? ["--metrics.enabled", "--metrics.addr=127.0.0.1", `--metrics.port=${port}`] : [];
    this.launch("l1", "opal-exec", [
      "--dev",
      "--dev.period",
      String(o.l1BlockTime),
      "--datadir",
      this.path("l1"),
      "--http",
      "--http.addr=127.0.0.1",
      `--http.port=${P.l1Http}`,
      "--http.api=eth,net,web3,debug,txpool",
      `--authrpc.port=${P.l1Auth}`,
      "--dev.beacon",
      `--dev.beacon.port=${P.l1Beacon}`,
      ...execMetrics(P.l1Metrics),
      ...quiet,
    ]);
    await this.ready("l1", () => rpc(url(P.l1Http), "eth_chainId"));
    const seqEnode =
      o.elSync === true
        ? `enode://${bytesToHexRaw(loadOrCreateNodeKey(this.path("sequencer-el-key")).publicKey)}@127.0.0.1:${P.seqElP2p}`
        : "";
    const launchExec = (role: "sequencer" | "verifier"): void => {
      const [http, auth, metrics] =
        role === "sequencer" ? [P.seqElHttp, P.seqElAuth, P.seqElMetrics] : [P.verElHttp, P.verElAuth, P.verElMetrics];
      this.launch(`${role}-el`, "opal-exec", [
        "--datadir",
        this.path(`${role}-el`),
        "--http",
        "--http.addr=127.0.0.1",
        `--http.port=${http}`,
        "--http.api=eth,net,web3,debug,txpool",
        `--authrpc.port=${auth}`,
        `--authrpc.jwtsecret=${this.path(`jwt-${role}.hex`)}`,
        // Execution-layer P2P without discovery. With elSync the sequencer's client listens on a
        // fixed port under a fixed node key and the verifier's dials it; otherwise any free port.
        "--nodiscover",
        ...(o.elSync === true
          ? role === "sequencer"
            ? [`--port=${P.seqElP2p}`, `--nodekey=${nodeKeyPath(this.path("sequencer-el-key"))}`]
            : [`--port=${P.verElP2p}`, `--bootnodes=${seqEnode}`]
          : ["--port=0"]),
        ...(role === "verifier" ? [`--rollup.sequencerhttp=${url(P.seqElHttp)}`] : []),
        ...execMetrics(metrics),
        ...quiet,
      ]);
    };
    const nodeArgs = (role: "sequencer" | "verifier", auth: number, port: number): string[] => [
      `--rollup.config=${this.path("rollup.json")}`,
      `--rollup.l1-chain-config=${this.path("l1-genesis.json")}`,
      `--l1=${url(P.l1Http)}`,
      `--l1.beacon=${url(P.l1Beacon)}`,
      "--l1.http-poll-interval=1s",
      "--l1.epoch-poll-interval=4s",
      `--l2=${url(auth)}`,
      `--l2.jwt-secret=${this.path(`jwt-${role}.hex`)}`,
      "--rpc.addr=127.0.0.1",
      `--rpc.port=${port}`,
      "--rpc.enable-admin",
      `--safedb.path=${this.path(`${role}-safedb`)}`,
      // P2P between the two nodes only: no discovery, loopback, the sequencer a static peer.
      "--p2p.listen.ip=127.0.0.1",
      `--p2p.listen.tcp=${role === "sequencer" ? P.seqP2p : P.verP2p}`,
      "--p2p.no-discovery",
      `--p2p.priv.path=${this.path(`p2p-${role}.key`)}`,
      `--p2p.peerstore.path=${this.path(`${role}-peerstore`)}`,
      "--p2p.discovery.path=memory",
      "--p2p.peers.lo=1",
      "--p2p.peers.hi=4",
      "--log.level=info",
    ];
    const seqP2pKey = loadOrCreateNetworkKey(this.path("p2p-sequencer.key")).key;
    const seqPeerId = await peerIdOfNetworkKey(seqP2pKey);
    const launchSequencerNode = (): void =>
      this.launch("sequencer-node", "opal-node", [
        ...nodeArgs("sequencer", P.seqElAuth, P.seqNode),
        ...nodeMetrics(P.seqNodeMetrics),
        "--sequencer.enabled",
        "--sequencer.l1-confs=2",
        `--p2p.sequencer.key=${bytesToHex(this.roles.signer.privateKey)}`,
        `--rpc.admin-state=${this.path("sequencer-admin-state.json")}`,
      ]);
    const launchVerifierNode = (): void =>
      this.launch("verifier-node", "opal-node", [
        ...nodeArgs("verifier", P.verElAuth, P.verNode),
        ...nodeMetrics(P.verNodeMetrics),
        `--p2p.static=/ip4/127.0.0.1/tcp/${P.seqP2p}/p2p/${seqPeerId}`,
        ...(o.elSync === true ? ["--syncmode=execution-layer"] : []),
      ]);
    const launchBatcher = (): void =>
      this.launch("batcher", "opal-batcher", [
        `--l1-eth-rpc=${url(P.l1Http)}`,
        `--l2-eth-rpc=${url(P.seqElHttp)}`,
        `--rollup-rpc=${url(P.seqNode)}`,
        `--private-key=${bytesToHex(this.roles.batcher.privateKey)}`,
        "--poll-interval=1s",
        "--max-channel-duration=1",
        "--num-confirmations=1",
        "--batch-type=1",
        `--data-availability-type=${o.da}`,
      ]);
    if (o.elSync !== true) {
      launchExec("sequencer");
      launchExec("verifier");
      await this.ready("sequencer-el", () => rpc(url(P.seqElHttp), "eth_chainId"));
      await this.ready("verifier-el", () => rpc(url(P.verElHttp), "eth_chainId"));
      launchSequencerNode();
      launchVerifierNode();
      await this.ready("sequencer-node", () => rpc(url(P.seqNode), "optimism_version"));
      await this.ready("verifier-node", () => rpc(url(P.verNode), "optimism_version"));
      launchBatcher();
      return;
    }
    // EL sync: the verifier joins a running chain, as a new node does. Started together, it would get
    // every block by gossip from the first one on and its client would have nothing to fetch.
    launchExec("sequencer");
    await this.ready("sequencer-el", () => rpc(url(P.seqElHttp), "eth_chainId"));
    launchSequencerNode();
    await this.ready("sequencer-node", () => rpc(url(P.seqNode), "optimism_version"));
    launchBatcher();
    await this.ready(
      "sequencer-node",
      async () => {
        const s = (await rpc(url(P.seqNode), "optimism_syncStatus")) as { unsafe_l2: { number: number } };
        if (s.unsafe_l2.number < EL_SYNC_LEAD_BLOCKS) throw new Error("not yet");
      },
      EL_SYNC_LEAD_BLOCKS * o.blockTime * 1000 + 60_000,
    );
    launchExec("verifier");
    await this.ready("verifier-el", () => rpc(url(P.verElHttp), "eth_chainId"));
    launchVerifierNode();
    await this.ready("verifier-node", () => rpc(url(P.verNode), "optimism_version"));
  }

  /** The L1 head and the L2 heads of sequencer and verifier (null where a process does not answer). */
  async heads(): Promise<HeadsLine> {
    const P = this.ports;
    const l2 = async (port: number) => {
      try {
        const s = (await rpc(url(port), "optimism_syncStatus")) as Record<string, { number: number }>;
        return { unsafe: s.unsafe_l2!.number, safe: s.safe_l2!.number, finalized: s.finalized_l2!.number };
      } catch {
        return null;
      }
    };
    let l1: number | null = null;
    try {
      l1 = Number(BigInt((await rpc(url(P.l1Http), "eth_blockNumber")) as string));
    } catch {
      l1 = null;
    }
    const [seq, ver] = await Promise.all([l2(P.seqNode), l2(P.verNode)]);
    return { l1, seq, ver };
  }

  /**
   * The forks rollup.json schedules after genesis (`--activate`), each with its activation block —
   * the first L2 block whose timestamp is at or after the fork time — and that block's hash on the
   * sequencer's and the verifier's execution client, plus whether the verifier's safe head has
   * reached it.
   */
  async activations(): Promise<ForkActivation[]> {
    const P = this.ports;
    const rollup = JSON.parse(readFileSync(this.path("rollup.json"), "utf8")) as Record<string, unknown> & {
      block_time: number;
      genesis: { l2_time: number; l2: { number: number } };
    };
    const g = rollup.genesis;
    const scheduled = Object.entries(rollup)
      .filter((e): e is [string, number] => e[0].endsWith("_time") && typeof e[1] === "number" && e[1] > g.l2_time)
      .filter(([k]) => k !== "pectra_blob_schedule_time");
    const hashAt = async (port: number, n: number): Promise<string | null> => {
      try {
        const b = (await rpc(url(port), "eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as {
          hash: string;
        } | null;
        return b?.hash ?? null;
      } catch {
        return null;
      }
    };
    let verSafe = -1;
    try {
      const s = (await rpc(url(P.verNode), "optimism_syncStatus")) as { safe_l2: { number: number } };
      verSafe = s.safe_l2.number;
    } catch {
      verSafe = -1;
    }
    return Promise.all(
      scheduled.map(async ([key, time]) => {
        const block = g.l2.number + Math.ceil((time - g.l2_time) / rollup.block_time);
        const [sequencerHash, verifierHash] = await Promise.all([
          hashAt(P.seqElHttp, block),
          hashAt(P.verElHttp, block),
        ]);
        return {
          fork: key.slice(0, -"_time".length),
          time,
          block,
          sequencerHash,
          verifierHash,
          verifierSafe: verSafe >= block,
        };
      }),
    );
  }

  /** The endpoints and funded accounts, for the startup banner. */
  banner(): string {
    const P = this.ports;
    const rollup = JSON.parse(readFileSync(this.path("rollup.json"), "utf8")) as {
      l2_chain_id: number;
      l1_chain_id: number;
    };
    return [
      "",
      `OP devnet (L1 chain ${rollup.l1_chain_id}, L2 chain ${rollup.l2_chain_id}) in ${this.opts.datadir}`,
      `  L1 JSON-RPC          ${url(P.l1Http)}      beacon API ${url(P.l1Beacon)}`,
      `  L2 sequencer         ${url(P.seqElHttp)}      rollup node ${url(P.seqNode)}`,
      `  L2 verifier          ${url(P.verElHttp)}     rollup node ${url(P.verNode)}`,
      `  batcher              ${bytesToHex(this.roles.batcher.address)}`,
      `  logs                 ${this.path("logs")}`,
      "",
    ].join("\n");
  }

  /** The processes started so far, in start order. */
  processes(): DevnetProcess[] {
    return this.procs.map((p) => ({ name: p.name, pid: p.child.pid, exited: p.exited }));
  }

  /** Ends every process, newest first. */
  stop(): Promise<void> {
    if (this.stopping !== null) return this.stopping;
    this.stopping = (async () => {
      for (const p of [...this.procs].reverse()) {
        if (p.exited) continue;
        const gone = new Promise<void>((r) => p.child.once("exit", () => r()));
        p.child.kill("SIGTERM");
        const t = setTimeout(() => p.child.kill("SIGKILL"), 15_000);
        await gone;
        clearTimeout(t);
      }
    })();
    return this.stopping;
  }
}

/**
 * The news of a fork activation worth a line, given what was already printed (`seen`, updated):
 * the sequencer building the activation block, then the verifier's safe head passing it with the
 * hash it derived, compared with the sequencer's.
 */
export function activationNews(a: ForkActivation, seen: Set<string>): string | null {
  const name = a.fork[0]!.toUpperCase() + a.fork.slice(1);
  if (a.verifierSafe && a.verifierHash !== null && a.sequencerHash !== null && !seen.has(`${a.fork}:safe`)) {
    seen.add(`${a.fork}:safe`);
    seen.add(`${a.fork}:built`);
    const same = a.verifierHash === a.sequencerHash;
    return `${name} activation block #${a.block}: derived by the verifier (safe) ${a.verifierHash}, sequencer ${a.sequencerHash}: ${same ? "same hash" : "DIFFERENT HASHES"}`;
  }
  if (a.sequencerHash !== null && !seen.has(`${a.fork}:built`)) {
    seen.add(`${a.fork}:built`);
    return `${name} activation block #${a.block} built by the sequencer: ${a.sequencerHash}`;
  }
  return null;
}

/** One status line: `L1 #n | sequencer unsafe/safe/finalized | verifier unsafe/safe/finalized`. */
export function formatHeads(h: HeadsLine): string {
  const l2 = (x: HeadsLine["seq"]): string =>
    x === null ? "down" : `unsafe ${x.unsafe} safe ${x.safe} finalized ${x.finalized}`;
  return `L1 ${h.l1 === null ? "down" : `#${h.l1}`} | sequencer ${l2(h.seq)} | verifier ${l2(h.ver)}`;
}
