/**
 * The rollup node's P2P host (op-node p2p/host.go, node.go): a libp2p host (TCP, noise, yamux;
 * identify, ping; UPnP with `--p2p.nat`) gated by `--p2p.netrestrict` and the peer book's bans and
 * operator blocks (peers, IPs, subnets), checked on dial and on every inbound connection, before and
 * after the handshake. On it: block gossip (`gossip.ts`: gossipsub with op-node's parameters and
 * scoring; verdicts from `BlockGossipValidator`), discv5 discovery (`discovery.ts`), req-resp sync
 * (`reqResp.ts`), and the one-second monitor, whose peer decisions — bans, tides, static peers — are
 * the `PeerManager`'s (`peerManager.ts`).
 *
 * libp2p is loaded with a dynamic import after `polyfill.ts`, so a node with `--p2p.disable` never
 * loads it and Node 20 gets `Promise.withResolvers` first.
 */
import "./polyfill.js";
import type { Connection, ConnectionGater, Libp2p, PeerId, PrivateKey } from "@libp2p/interface";
import type { Multiaddr } from "@multiformats/multiaddr";
import { bytesToHex } from "../primitives/hex.js";
import type { RollupConfig } from "../rollup/config/rollupConfig.js";
import { envelopeOf, type PayloadEnvelope } from "../rollup/engine/engineClient.js";
import type { Logger } from "../util/log.js";
import type { BlockSigner } from "./blockSigner.js";
import { Discovery } from "./discovery.js";
import {
  blockGossipService,
  blockTopics,
  type GossipPeerStats,
  type GossipSub,
  subscribeBlockTopics,
} from "./gossip.js";
import {
  BlockGossipValidator,
  type BlockVersion,
  blocksTopic,
  blockVersionAt,
  type GossipVerdict,
  gossipMessage,
} from "./gossipBlock.js";
import { loadOrCreateNetworkKey } from "./netKey.js";
import { P2pError } from "./p2pError.js";
import { PeerBook, SubnetSet } from "./peerBook.js";
import { PeerManager } from "./peerManager.js";
import { PayloadByNumberClient, PayloadByNumberServer, payloadByNumberProtocol } from "./reqResp.js";
import { ApplicationScorer, IP_COLOCATION_THRESHOLD } from "./scoring.js";
import { payloadHashOf } from "./signingHash.js";
import { encodeEnvelope } from "./ssz.js";

// Declared in their own files; named here too for the importers of host.js.
export type { GossipPeerStats, GossipSub } from "./gossip.js";
export { P2pError };

/** The P2P options (spec part 4B), as the flag table gives them (durations in ms). */
export interface P2pConfig {
  readonly "p2p.no-discovery": boolean;
  readonly "p2p.advertise.ip"?: string | undefined;
  readonly "p2p.advertise.tcp": number;
  readonly "p2p.advertise.udp": number;
  readonly "p2p.listen.ip": string;
  readonly "p2p.listen.tcp": number;
  readonly "p2p.listen.udp": number;
  readonly "p2p.nat": boolean;
  readonly "p2p.netrestrict"?: readonly string[] | undefined;
  readonly "p2p.bootnodes"?: readonly string[] | undefined;
  readonly "p2p.static"?: readonly string[] | undefined;
  readonly "p2p.discovery.path": string;
  readonly "p2p.peerstore.path": string;
  readonly "p2p.priv.path": string;
  readonly "p2p.scoring": string;
  readonly "p2p.ban.peers": boolean;
  readonly "p2p.ban.threshold": number;
  readonly "p2p.ban.duration": number;
  readonly "p2p.peers.lo": number;
  readonly "p2p.peers.hi": number;
  readonly "p2p.peers.grace": number;
  readonly "p2p.gossip.timestamp.threshold": number;
  readonly "p2p.sync.req-resp": boolean;
  readonly "p2p.sync.onlyreqtostatic": boolean;
}

/** What the host reports; the node's `Metricer` implements it (node/metrics.ts). */
export interface P2pMetricsSink {
  /** Connected peers. */
  setPeerCount(count: number): void;
  /** Open streams over all connections. */
  setStreamCount(count: number): void;
  /** A pubsub event by go-libp2p-pubsub's trace name (PUBLISH_MESSAGE, DELIVER_MESSAGE, REJECT_MESSAGE, DUPLICATE_MESSAGE). */
  recordGossipEvent(type: string): void;
  /** A block-gossip verdict with its reason ("valid" when accepted). */
  recordGossipValidation(result: "accept" | "reject" | "ignore", reason: string): void;
  /** A req-resp exchange: the client's outcome or the server's answer. */
  recordReqResp(role: "client" | "server", result: string): void;
  /** A peer banned for its score. */
  recordPeerBan(): void;
  /** The scores of the connected peers, once a second. */
  recordPeerScores(scores: readonly number[]): void;
  /** Publishing a block this node built failed (`publishing_errors`). */
  recordPublishingError(): void;
}

export interface P2pDeps {
  readonly cfg: RollupConfig;
  readonly log: Logger;
  readonly metrics?: P2pMetricsSink | null;
  /** The current unsafe-block signer (the runtime config's, from L1). */
  readonly unsafeSigner: () => Uint8Array;
  /** A validated payload from gossip or req-resp, for the driver's unsafe queue. */
  readonly onUnsafePayload: (env: PayloadEnvelope, from: string) => void;
  /** Our own block `n` for the req-resp server (null: not found). */
  readonly payloadByNumber: (n: number) => Promise<PayloadEnvelope | null>;
  /** Signs blocks this node publishes (sequencer); null on a verifier. */
  readonly blockSigner?: BlockSigner | null;
  /** Unix seconds (tests move time). */
  readonly now?: () => number;
  /** The agent string in identify. */
  readonly userAgent?: string;
}

/** A connected or known peer, as opp2p_peers shows it. */
export interface PeerSummary {
  readonly peerId: string;
  readonly addresses: string[];
  readonly protocols: string[];
  readonly userAgent: string;
  readonly protocolVersion: string;
  readonly connected: boolean;
  readonly direction: "inbound" | "outbound" | "unknown";
  readonly protected: boolean;
  readonly latencyMs: number;
  readonly score: number;
  readonly reqResp: { validResponses: number; errorResponses: number; rejectedPayloads: number };
  readonly gossipBlocks: boolean;
  readonly connectedAt: number;
}

/** The monitor's period (ms). */
const TICK_MS = 1000;

function ipOfMultiaddr(ma: Multiaddr | string): string | null {
  const m = /^\/ip[46]\/([^/]+)/.exec(ma.toString());
  return m === null ? null : m[1]!;
}

function isUnspecified(ip: string): boolean {
  return ip === "0.0.0.0" || ip === "::";
}

/** libp2p and the modules the host is built from, loaded on first use (after `polyfill.ts`). */
async function loadLibp2p() {
  const [
    { createLibp2p },
    { tcp },
    { noise },
    { yamux },
    { identify },
    { ping },
    { gossipsub },
    { privateKeyFromRaw },
    { multiaddr },
  ] = await Promise.all([
    import("libp2p"),
    import("@libp2p/tcp"),
    import("@chainsafe/libp2p-noise"),
    import("@chainsafe/libp2p-yamux"),
    import("@libp2p/identify"),
    import("@libp2p/ping"),
    import("@libp2p/gossipsub"),
    import("@libp2p/crypto/keys"),
    import("@multiformats/multiaddr"),
  ]);
  return { createLibp2p, tcp, noise, yamux, identify, ping, gossipsub, privateKeyFromRaw, multiaddr };
}

type Libp2pModules = Awaited<ReturnType<typeof loadLibp2p>>;

/** What the host is built around besides libp2p. */
interface HostParts {
  /** The network key (secp256k1, raw). */
  readonly key: Uint8Array;
  readonly book: PeerBook;
  readonly netrestrict: SubnetSet | null;
  readonly app: ApplicationScorer;
}

/**
 * Gating: never dial or accept outside `--p2p.netrestrict`, nor peers, IPs or subnets the peer book
 * bans or blocks; checked on dial and on every inbound connection, before and after the handshake.
 */
function connectionGater(book: PeerBook, netrestrict: SubnetSet | null): ConnectionGater {
  const ipAllowed = (ip: string | null): boolean =>
    ip === null || ((netrestrict === null || netrestrict.has(ip)) && book.ipAllowed(ip));
  const peerAllowed = (id: PeerId): boolean => book.peerAllowed(id.toString());
  return {
    denyDialPeer: (id) => !peerAllowed(id),
    denyDialMultiaddr: (ma) => !ipAllowed(ipOfMultiaddr(ma)),
    denyInboundConnection: (c) => !ipAllowed(ipOfMultiaddr(c.remoteAddr)),
    denyInboundEncryptedConnection: (id, c) => !peerAllowed(id) || !ipAllowed(ipOfMultiaddr(c.remoteAddr)),
    denyOutboundEncryptedConnection: (id) => !peerAllowed(id),
    filterMultiaddrForPeer: (_id, ma) => ipAllowed(ipOfMultiaddr(ma)),
  };
}

/** The TCP listen address and the addresses announced (`--p2p.advertise.ip`, `.tcp`). */
function hostAddresses(config: P2pConfig): { listen: string; announce: string[] } {
  const listenIp = config["p2p.listen.ip"];
  const listen = `/${listenIp.includes(":") ? "ip6" : "ip4"}/${listenIp}/tcp/${config["p2p.listen.tcp"]}`;
  const announce: string[] = [];
  const advIp = config["p2p.advertise.ip"];
  if (advIp !== undefined && advIp !== "") {
    const port = config["p2p.advertise.tcp"] || config["p2p.listen.tcp"];
    if (port !== 0) announce.push(`/${advIp.includes(":") ? "ip6" : "ip4"}/${advIp}/tcp/${port}`);
  }
  return { listen, announce };
}

/** The libp2p node with its services (identify, ping, block gossip; UPnP with `--p2p.nat`), listening. */
async function createHost(
  lib: Libp2pModules,
  config: P2pConfig,
  deps: P2pDeps,
  parts: HostParts,
): Promise<Libp2p<{ pubsub: GossipSub }>> {
  const { listen, announce } = hostAddresses(config);
  const hi = config["p2p.peers.hi"];
  const base = {
    identify: lib.identify(),
    ping: lib.ping(),
    pubsub: blockGossipService(lib.gossipsub, {
      topics: blockTopics(deps.cfg.l2ChainId),
      scoring: config["p2p.scoring"] === "none" ? "none" : "light",
      blockTime: deps.cfg.blockTime,
      appScore: (p) => parts.app.score(p),
    }),
  };
  const services = config["p2p.nat"] ? { ...base, nat: (await import("@libp2p/upnp-nat")).uPnPNAT() } : base;
  try {
    return await lib.createLibp2p({
      privateKey: lib.privateKeyFromRaw(parts.key) as PrivateKey,
      nodeInfo: { userAgent: deps.userAgent ?? "opal-node" },
      addresses: { listen: [listen], announce },
      transports: [lib.tcp()],
      connectionEncrypters: [lib.noise()],
      streamMuxers: [lib.yamux()],
      connectionManager: { maxConnections: Math.max(hi * 2, hi + 10) },
      connectionGater: connectionGater(parts.book, parts.netrestrict),
      services,
    });
  } catch (e) {
    throw new P2pError(`cannot start the P2P host on ${listen}: ${(e as Error).message}`);
  }
}

/**
 * discv5 on UDP (`--p2p.listen.udp`, else the host's TCP port), unless `--p2p.no-discovery`. When it
 * cannot start, the host is stopped too.
 */
async function startDiscovery(
  config: P2pConfig,
  deps: P2pDeps,
  libp2p: Libp2p,
  parts: HostParts,
): Promise<Discovery | null> {
  if (config["p2p.no-discovery"]) return null;
  const tcpPort = Number(
    /\/tcp\/(\d+)/.exec(libp2p.getMultiaddrs()[0]?.toString() ?? "")?.[1] ?? config["p2p.listen.tcp"],
  );
  const listenIp = config["p2p.listen.ip"];
  const advIp = config["p2p.advertise.ip"];
  const netrestrict = parts.netrestrict;
  const udp = config["p2p.listen.udp"] || tcpPort;
  try {
    return await Discovery.start({
      privateKey: parts.key,
      chainId: deps.cfg.l2ChainId,
      listenIp,
      udpPort: udp,
      tcpPort: config["p2p.advertise.tcp"] || tcpPort,
      ...(advIp !== undefined && advIp !== "" ? { advertiseIp: advIp } : {}),
      ...(config["p2p.advertise.tcp"] ? { advertiseTcp: config["p2p.advertise.tcp"] } : {}),
      ...(config["p2p.advertise.udp"] ? { advertiseUdp: config["p2p.advertise.udp"] } : {}),
      bootnodes: [...(config["p2p.bootnodes"] ?? [])],
      dbPath: config["p2p.discovery.path"],
      netrestrict: (ip: string) => netrestrict === null || netrestrict.has(ip),
      log: deps.log,
    });
  } catch (e) {
    await libp2p.stop();
    throw new P2pError(`cannot start discovery on UDP ${listenIp}:${udp}: ${(e as Error).message}`);
  }
}

export class P2pNode {
  readonly topics: readonly string[];
  readonly book: PeerBook;
  readonly discovery: Discovery | null;
  readonly peerIdString: string;
  private readonly validator: BlockGossipValidator;
  private readonly app: ApplicationScorer;
  private readonly netrestrict: SubnetSet | null;
  /** Bans, tides, static peers, protection; its `tick` runs in the monitor. */
  private readonly peers: PeerManager;
  /** `@multiformats/multiaddr`'s parser, loaded with libp2p. */
  private readonly dialString: (s: string) => Multiaddr;
  private ticker: NodeJS.Timeout | null = null;
  private lastDecay = 0;
  private stopped = false;
  private server: PayloadByNumberServer | null = null;
  private readonly client: PayloadByNumberClient;
  private syncing = false;
  /** Every gossip verdict (tests, tracing). */
  onGossipVerdict: ((v: { result: "accept" | "reject" | "ignore"; reason: string; from: string }) => void) | null =
    null;
  /** Counters for tests and metrics. */
  readonly counters = { published: 0, accepted: 0, rejected: 0, ignored: 0, bans: 0, pruned: 0, synced: 0 };

  private constructor(
    readonly libp2p: Libp2p<{ pubsub: GossipSub }>,
    private readonly config: P2pConfig,
    private readonly deps: P2pDeps,
    parts: HostParts & { readonly discovery: Discovery | null; readonly multiaddr: (s: string) => Multiaddr },
  ) {
    const chainId = deps.cfg.l2ChainId;
    this.topics = blockTopics(chainId);
    this.book = parts.book;
    this.discovery = parts.discovery;
    this.peerIdString = libp2p.peerId.toString();
    this.netrestrict = parts.netrestrict;
    this.app = parts.app;
    this.dialString = parts.multiaddr;
    this.validator = new BlockGossipValidator({
      cfg: deps.cfg,
      chainId,
      signer: deps.unsafeSigner,
      timestampThresholdSec: config["p2p.gossip.timestamp.threshold"] / 1000,
      ...(deps.now === undefined ? {} : { now: deps.now }),
    });
    const g = deps.cfg.genesis;
    this.client = new PayloadByNumberClient({
      chainId,
      versionAtNumber: (n: number) => blockVersionAt(deps.cfg, g.l2Time + (n - g.l2.number) * deps.cfg.blockTime),
      onResult: (peer: string, outcome: "valid" | "error" | "rejected") => {
        this.app.record(peer, outcome);
        deps.metrics?.recordReqResp("client", outcome);
      },
      log: deps.log,
    });
    const discovery = parts.discovery;
    this.peers = new PeerManager(config, {
      host: {
        connectedPeerIds: () => this.connectedPeerIds(),
        scoreOf: (id) => this.scoreOf(id),
        dial: (id, addr) => this.dial(id, addr),
        hangUp: (id) => this.hangUp(id),
        ban: (id, durationMs) => this.book.banPeer(id, durationMs),
        findPeers: discovery === null ? null : () => discovery.findPeers(),
      },
      selfId: this.peerIdString,
      log: deps.log,
      metrics: deps.metrics ?? null,
      counters: this.counters,
    });
  }

  /** Starts the host, gossip, discovery, req-resp and the peer manager from the options. */
  static async start(config: P2pConfig, deps: P2pDeps): Promise<P2pNode> {
    const lo = config["p2p.peers.lo"];
    const hi = config["p2p.peers.hi"];
    if (hi < lo) throw new P2pError(`--p2p.peers.hi (${hi}) must not be below --p2p.peers.lo (${lo})`);
    const { key, created } = loadOrCreateNetworkKey(config["p2p.priv.path"]);
    if (created) deps.log.info("Generated a new P2P network key", { path: config["p2p.priv.path"] });
    const book = PeerBook.open(config["p2p.peerstore.path"]);
    book.storePrivateKeyCopy(bytesToHex(key).slice(2));
    const netrestrict = (config["p2p.netrestrict"]?.length ?? 0) > 0 ? new SubnetSet(config["p2p.netrestrict"]) : null;
    const parts: HostParts = { key, book, netrestrict, app: new ApplicationScorer(deps.cfg.blockTime) };

    const lib = await loadLibp2p();
    const libp2p = await createHost(lib, config, deps, parts);
    const discovery = await startDiscovery(config, deps, libp2p, parts);
    const node = new P2pNode(libp2p, config, deps, { ...parts, discovery, multiaddr: lib.multiaddr });
    node.wireGossip();
    node.wirePeerEvents();
    discovery?.onPeer((p) => node.peers.onDiscovered(p.peerId, p.multiaddr));
    if (config["p2p.sync.req-resp"]) await node.startReqRespServer();
    deps.log.info("Started P2P host", {
      peerId: node.peerIdString,
      addrs: libp2p.getMultiaddrs().map((m) => m.toString()),
      ...(discovery === null ? {} : { enr: discovery.localEnr() }),
    });
    node.startMonitor();
    return node;
  }

  /** Each block topic validated by the block rules (`validate`), then subscribed. */
  private wireGossip(): void {
    subscribeBlockTopics(this.libp2p.services.pubsub, this.topics, (version, from, data) =>
      this.validate(version, from, data),
    );
  }

  /** Connections start and end the peer manager's grace periods and move the peer-count gauge. */
  private wirePeerEvents(): void {
    this.libp2p.addEventListener("peer:connect", (e) => {
      this.peers.onConnect(e.detail.toString());
      this.updatePeerCount();
    });
    this.libp2p.addEventListener("peer:disconnect", (e) => {
      this.peers.onDisconnect(e.detail.toString());
      this.updatePeerCount();
    });
  }

  /** Serves our blocks over `payload_by_number` (`--p2p.sync.req-resp`). */
  private async startReqRespServer(): Promise<void> {
    const deps = this.deps;
    this.server = new PayloadByNumberServer({
      chainId: deps.cfg.l2ChainId,
      payloadByNumber: async (n: number) => {
        const env = await deps.payloadByNumber(n);
        if (env === null) return null;
        return {
          envelope: { executionPayload: env.executionPayload, parentBeaconBlockRoot: env.parentBeaconBlockRoot },
          timestamp: env.timestamp,
        };
      },
      versionAt: (ts: number) => blockVersionAt(deps.cfg, ts),
      log: deps.log,
      onServed: (result) => deps.metrics?.recordReqResp("server", result),
    });
    await this.server.register(this.libp2p);
  }

  /** The monitor, now and once a second: application-score decay, the peer manager's round, the stream gauge. */
  private startMonitor(): void {
    this.tick();
    this.ticker = setInterval(() => this.tick(), TICK_MS);
    this.ticker.unref();
  }

  private tick(): void {
    if (this.stopped) return;
    this.decayAppScores();
    this.peers.tick();
    this.reportStreams();
  }

  /** Application scores decay once per slot; the tick is 1 s, slots are ≥ 1 s. */
  private decayAppScores(): void {
    const now = Date.now();
    const slotMs = (this.deps.cfg.blockTime || 2) * 1000;
    if (now - this.lastDecay >= slotMs) {
      this.lastDecay = now;
      this.app.decayAll();
    }
  }

  private updatePeerCount(): void {
    this.deps.metrics?.setPeerCount(this.connectedPeerIds().length);
  }

  private reportStreams(): void {
    const m = this.deps.metrics;
    if (m === null || m === undefined) return;
    let streams = 0;
    for (const c of this.libp2p.getConnections()) streams += c.streams.length;
    m.setStreamCount(streams);
  }

  /** Gossip validation: the verdict of the block rules, and valid blocks handed to the driver. */
  private validate(version: BlockVersion, from: string, data: Uint8Array): "accept" | "reject" | "ignore" {
    const v: GossipVerdict = this.validator.validate(version, data);
    const m = this.deps.metrics;
    this.onGossipVerdict?.({ result: v.result, reason: v.result === "accept" ? "valid" : v.reason, from });
    if (v.result !== "accept") {
      m?.recordGossipValidation(v.result, v.reason);
      m?.recordGossipEvent(v.reason === "duplicate" ? "DUPLICATE_MESSAGE" : "REJECT_MESSAGE");
      if (v.result === "reject") {
        this.counters.rejected++;
        this.deps.log.warn("Rejected gossiped block", { peer: from, reason: v.reason });
      } else {
        this.counters.ignored++;
      }
      return v.result;
    }
    m?.recordGossipValidation("accept", "valid");
    m?.recordGossipEvent("DELIVER_MESSAGE");
    this.counters.accepted++;
    const env = envelopeOf(v.envelope.executionPayload, v.envelope.parentBeaconBlockRoot);
    this.deps.log.info("Received signed execution payload from p2p", {
      number: env.number,
      hash: bytesToHex(env.blockHash),
      peer: from,
    });
    this.deps.onUnsafePayload(env, from);
    return "accept";
  }

  /** Signs and publishes a block this node built (the sequencer's new unsafe head). */
  async publishBlock(env: PayloadEnvelope): Promise<void> {
    const signer = this.deps.blockSigner;
    if (signer === null || signer === undefined) return;
    const version = blockVersionAt(this.deps.cfg, env.timestamp);
    const signed = encodeEnvelope(version, {
      executionPayload: env.executionPayload,
      parentBeaconBlockRoot: env.parentBeaconBlockRoot,
    });
    const sig = await signer.sign(this.deps.cfg.l2ChainId, payloadHashOf(signed));
    if (sig.length !== 65) throw new P2pError(`block signer returned ${sig.length} bytes, want 65`);
    const topic = blocksTopic(this.deps.cfg.l2ChainId, version);
    await this.libp2p.services.pubsub.publish(topic, gossipMessage(signed, sig));
    this.counters.published++;
    this.deps.metrics?.recordGossipEvent("PUBLISH_MESSAGE");
    this.deps.log.debug("Published block", { number: env.number, hash: bytesToHex(env.blockHash), topic });
  }

  /**
   * Fills a gap in the unsafe chain over req-resp: blocks `from..to`, each checked to build on the
   * one before, starting from `trustedParent` (the unsafe head). One range at a time.
   */
  requestRange(from: number, to: number, trustedParent: Uint8Array): void {
    if (!this.config["p2p.sync.req-resp"] || this.syncing || this.stopped || to < from) return;
    const last = Math.min(to, from + 255);
    this.syncing = true;
    void (async () => {
      try {
        let parent = bytesToHex(trustedParent);
        for (let n = from; n <= last && !this.stopped; n++) {
          let got = false;
          for (const peer of this.syncPeers()) {
            const r = await this.client.request(this.libp2p, peer, n, { parentHash: parent });
            if (r instanceof Error) continue;
            const env = envelopeOf(r.envelope.executionPayload, r.envelope.parentBeaconBlockRoot);
            parent = bytesToHex(env.blockHash);
            this.counters.synced++;
            this.deps.onUnsafePayload(env, peer);
            got = true;
            break;
          }
          if (!got) {
            this.deps.log.debug("No peer served the block", { number: n });
            break;
          }
        }
      } catch (e) {
        this.deps.log.warn("req-resp sync failed", { err: (e as Error).message });
      } finally {
        this.syncing = false;
      }
    })();
  }

  /** Peers to ask over req-resp: connected ones that speak the protocol (static only, if so configured). */
  private syncPeers(): string[] {
    const proto = payloadByNumberProtocol(this.deps.cfg.l2ChainId);
    const ids = this.connectedPeerIds().filter(
      (id) => !this.config["p2p.sync.onlyreqtostatic"] || this.peers.isStatic(id),
    );
    const withProto: string[] = [];
    const unknown: string[] = [];
    for (const id of ids) {
      const protos = this.peerProtocols(id);
      if (protos.includes(proto)) withProto.push(id);
      else if (protos.length === 0) unknown.push(id);
    }
    // Best application score first.
    return [...withProto, ...unknown].sort((a, b) => this.app.score(b) - this.app.score(a));
  }

  private peerProtocols(id: string): string[] {
    const conn = this.libp2p.getConnections().find((c) => c.remotePeer.toString() === id);
    const peer = conn?.remotePeer;
    if (peer === undefined) return [];
    const cached = this.protocolCache.get(id);
    if (cached !== undefined) return cached;
    void this.libp2p.peerStore
      .get(peer)
      .then((p) => this.protocolCache.set(id, p.protocols))
      .catch(() => undefined);
    return [];
  }

  private readonly protocolCache = new Map<string, string[]>();

  connectedPeerIds(): string[] {
    return [...new Set(this.libp2p.getConnections().map((c) => c.remotePeer.toString()))];
  }

  /** A peer's req-resp counters (opp2p_peers, tests). */
  peerReqRespScores(id: string): { validResponses: number; errorResponses: number; rejectedPayloads: number } {
    return this.app.snapshot(id);
  }

  /** The gossipsub score of a peer (0 without scoring). */
  scoreOf(id: string): number {
    try {
      return this.libp2p.services.pubsub.getScore(id);
    } catch {
      return 0;
    }
  }

  /** Remembers a peer's address; the monitor dials known peers while the count is below lo. */
  addKnownPeer(peerId: string, addr: string): void {
    this.peers.addKnownPeer(peerId, addr);
  }

  private async dial(id: string, addr: string): Promise<boolean> {
    if (!this.book.peerAllowed(id)) return false;
    const ip = ipOfMultiaddr(addr);
    if (ip !== null && !isUnspecified(ip) && this.netrestrict !== null && !this.netrestrict.has(ip)) return false;
    try {
      await this.libp2p.dial(this.dialString(addr), { signal: AbortSignal.timeout(10_000) });
      return true;
    } catch (e) {
      this.deps.log.debug("Dial failed", { peer: id, addr, err: (e as Error).message });
      return false;
    }
  }

  async hangUp(id: string): Promise<void> {
    const conns = this.libp2p.getConnections().filter((c: Connection) => c.remotePeer.toString() === id);
    await Promise.all(conns.map((c) => c.close().catch(() => c.abort(new Error("closing")))));
  }

  /** opp2p_connectPeer: a multiaddr ending in `/p2p/<peer id>`; waits for the connection (30 s at most). */
  async connectPeer(addr: string): Promise<void> {
    let ma: Multiaddr;
    try {
      ma = this.dialString(addr);
    } catch (e) {
      throw new P2pError(`bad peer address: ${(e as Error).message}`);
    }
    const at = addr.lastIndexOf("/p2p/");
    if (at < 0 || at + 5 >= addr.length) throw new P2pError("bad peer address: invalid p2p multiaddr");
    const id = addr.slice(at + 5);
    if (!this.book.peerAllowed(id)) throw new P2pError(`peer ${id} is blocked or banned`);
    try {
      await this.libp2p.dial(ma, { signal: AbortSignal.timeout(30_000) });
    } catch (e) {
      throw new P2pError(`failed to connect to ${addr}: ${(e as Error).message}`);
    }
  }

  /** opp2p_disconnectPeer: closes every connection to the peer (it may reconnect). */
  async disconnectPeer(id: string): Promise<void> {
    await this.hangUp(id);
  }

  protect(id: string): void {
    this.peers.protect(id);
  }

  unprotect(id: string): void {
    this.peers.unprotect(id);
  }

  isProtected(id: string): boolean {
    return this.peers.isProtected(id);
  }

  /** Blocks a peer until unblocked (opp2p_blockPeer) and disconnects it. */
  async blockPeer(id: string): Promise<void> {
    this.book.blockPeer(id);
    await this.hangUp(id);
  }

  /** Blocks an IP (opp2p_blockAddr) and disconnects its peers. */
  async blockAddr(ip: string): Promise<void> {
    this.book.blockAddr(ip);
    await this.hangUpWhere((a) => a === ip);
  }

  async blockSubnet(cidr: string): Promise<void> {
    this.book.blockSubnet(cidr);
    const s = new SubnetSet([cidr]);
    await this.hangUpWhere((a) => s.has(a));
  }

  /** Lifts an operator block (and a score ban) of a peer. */
  unblockPeer(id: string): void {
    this.book.unblockPeer(id);
  }

  unblockAddr(ip: string): void {
    this.book.unblockAddr(ip);
  }

  unblockSubnet(cidr: string): void {
    this.book.unblockSubnet(cidr);
  }

  /** Peers blocked by the operator plus those banned for their score, now. */
  bannedOrBlockedPeers(): string[] {
    return [...new Set([...this.book.blockedPeers(), ...Object.keys(this.book.bannedPeers())])];
  }

  bannedOrBlockedAddrs(): string[] {
    return [...new Set([...this.book.blockedAddrs(), ...Object.keys(this.book.bannedIps())])];
  }

  /** gossipsub's scoring state per peer (opp2p_peers' `scores.gossip`). */
  gossipScoreStats(): Record<string, GossipPeerStats> {
    try {
      return this.libp2p.services.pubsub.dumpPeerScoreStats();
    } catch {
      return {};
    }
  }

  /** gossipsub's IP colocation threshold (peers per IP before the penalty starts). */
  get ipColocationThreshold(): number {
    return this.config["p2p.scoring"] === "none" ? Number.POSITIVE_INFINITY : IP_COLOCATION_THRESHOLD;
  }

  get chainId(): bigint {
    return this.deps.cfg.l2ChainId;
  }

  get userAgent(): string {
    return this.deps.userAgent ?? "opal-node";
  }

  /** Every protocol this host speaks. */
  protocols(): string[] {
    return this.libp2p.getProtocols();
  }

  private async hangUpWhere(match: (ip: string) => boolean): Promise<void> {
    const conns = this.libp2p.getConnections().filter((c) => {
      const ip = ipOfMultiaddr(c.remoteAddr);
      return ip !== null && match(ip);
    });
    await Promise.all(conns.map((c) => c.close().catch(() => c.abort(new Error("closing")))));
  }

  /** Everything opp2p_peers / opp2p_self need about one peer. */
  async peerSummary(id: string): Promise<PeerSummary> {
    const conns = this.libp2p.getConnections().filter((c) => c.remotePeer.toString() === id);
    const { peerIdFromString } = await import("@libp2p/peer-id");
    let protocols: string[] = [];
    let addresses: string[] = conns.map((c) => c.remoteAddr.toString());
    let userAgent = "";
    let protocolVersion = "";
    try {
      const p = await this.libp2p.peerStore.get(peerIdFromString(id));
      protocols = p.protocols;
      if (addresses.length === 0) addresses = p.addresses.map((a) => a.multiaddr.toString());
      const dec = new TextDecoder();
      const agent = p.metadata.get("AgentVersion");
      const pv = p.metadata.get("ProtocolVersion");
      if (agent !== undefined) userAgent = dec.decode(agent);
      if (pv !== undefined) protocolVersion = dec.decode(pv);
    } catch {
      // Not in the peer store (yet).
    }
    const pubsub = this.libp2p.services.pubsub;
    const gossipBlocks = this.topics.some((t) => pubsub.getSubscribers(t).some((p) => p.toString() === id));
    return {
      peerId: id,
      addresses,
      protocols,
      userAgent,
      protocolVersion,
      connected: conns.length > 0,
      direction: conns[0]?.direction ?? "unknown",
      protected: this.peers.isProtected(id),
      latencyMs: conns[0]?.rtt ?? 0,
      score: this.scoreOf(id),
      reqResp: this.app.snapshot(id),
      gossipBlocks,
      connectedAt: this.peers.connectedSince(id),
    };
  }

  /** Known peers: connected ones and those discovery or static configuration gave us. */
  knownPeerIds(): string[] {
    return this.peers.knownPeerIds();
  }

  listenAddrs(): string[] {
    return this.libp2p.getMultiaddrs().map((m) => m.toString());
  }

  /** Subscribers per block topic (opp2p_peerStats). */
  topicPeers(version: BlockVersion): number {
    return this.libp2p.services.pubsub.getSubscribers(this.topics[version]!).length;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.ticker !== null) clearInterval(this.ticker);
    await this.server?.unregister();
    await this.discovery?.stop();
    await this.libp2p.stop();
  }
}
