/**
 * The rollup node's P2P stack (op-node p2p/host.go, node.go, gossip.go, monitor): a libp2p host
 * (TCP, noise, yamux; identify, ping; UPnP with `--p2p.nat`), gossipsub on the block topics with
 * op-node's parameters and scoring, discv5 discovery (`discovery.ts`), req-resp sync
 * (`reqResp.ts`), and peer management:
 *
 * - gating: `--p2p.netrestrict` (never dial or accept outside those subnets), the peer book's
 *   bans and operator blocks (peers, IPs, subnets), checked on dial and on every inbound
 *   connection, before and after the handshake;
 * - banning: every second the monitor reads each connected peer's score; below
 *   `--p2p.ban.threshold` (with `--p2p.ban.peers`) the peer is banned for `--p2p.ban.duration`
 *   in the peer book (so the ban outlives a restart) and disconnected — unless it is protected
 *   (static peers, opp2p_protectPeer);
 * - tides: below `--p2p.peers.lo` the node looks for peers (discovery, known addresses); above
 *   `--p2p.peers.hi` it prunes back down to lo, lowest score first, sparing protected peers and new
 *   well-behaved ones within `--p2p.peers.grace`;
 * - static peers (`--p2p.static`): protected, redialled while disconnected; our own id skipped.
 *
 * libp2p is loaded with a dynamic import after `polyfill.ts`, so a node with `--p2p.disable` never
 * loads it and Node 20 gets `Promise.withResolvers` first.
 */
import "./polyfill.js";
import type { GossipSub as GossipSubApi, TopicValidatorResult } from "@libp2p/gossipsub";
import type { Connection, Libp2p, PeerId, PrivateKey } from "@libp2p/interface";
import type { Multiaddr } from "@multiformats/multiaddr";
import { bytesToHex } from "../primitives/hex.js";
import type { RollupConfig } from "../rollup/config/rollupConfig.js";
import { envelopeOf, type PayloadEnvelope } from "../rollup/engine/engineClient.js";
import type { Logger } from "../util/log.js";
import type { BlockSigner } from "./blockSigner.js";
import { Discovery } from "./discovery.js";
import {
  BlockGossipValidator,
  type BlockVersion,
  blocksTopic,
  blockVersionAt,
  type GossipVerdict,
  gossipMessage,
  gossipMessageId,
} from "./gossipBlock.js";
import { loadOrCreateNetworkKey } from "./netKey.js";
import { PeerBook, SubnetSet } from "./peerBook.js";
import { PayloadByNumberClient, PayloadByNumberServer, payloadByNumberProtocol } from "./reqResp.js";
import {
  ApplicationScorer,
  IP_COLOCATION_THRESHOLD,
  PEER_SCORE_THRESHOLDS,
  peerScoreParams,
  type ScoringMode,
} from "./scoring.js";
import { payloadHashOf } from "./signingHash.js";
import { encodeEnvelope } from "./ssz.js";

/** The gossipsub service with the scoring and mesh views its class has beyond the interface. */
export type GossipSub = GossipSubApi & {
  getScore(peerId: string): number;
  getMeshPeers(topic: string): string[];
  dumpPeerScoreStats(): Record<string, GossipPeerStats>;
};

/**
 * The gossipsub service factory giving the instance as its class is: the package exports only the
 * `GossipSub` interface, so the scoring and mesh views the node reads (opp2p_peers, the peer
 * monitor) are checked on the instance once, when libp2p creates it.
 */
function withScoringViews<C>(factory: (components: C) => GossipSubApi): (components: C) => GossipSub {
  return (components) => {
    const g = factory(components);
    if (!hasScoringViews(g)) {
      throw new P2pError("@libp2p/gossipsub: the instance lacks getScore, getMeshPeers or dumpPeerScoreStats");
    }
    return g;
  };
}

function hasScoringViews(g: GossipSubApi): g is GossipSub {
  return (
    "getScore" in g &&
    typeof g.getScore === "function" &&
    "getMeshPeers" in g &&
    typeof g.getMeshPeers === "function" &&
    "dumpPeerScoreStats" in g &&
    typeof g.dumpPeerScoreStats === "function"
  );
}

/** What gossipsub keeps per peer for scoring (its `PeerStats`, as far as opp2p_peers reads it). */
export interface GossipPeerStats {
  readonly knownIPs: ReadonlySet<string>;
  readonly behaviourPenalty: number;
  readonly topics: Readonly<
    Record<
      string,
      {
        readonly meshTime: number;
        readonly firstMessageDeliveries: number;
        readonly meshMessageDeliveries: number;
        readonly invalidMessageDeliveries: number;
      }
    >
  >;
}

export class P2pError extends Error {
  override readonly name = "P2pError";
}

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

const TICK_MS = 1000;
const GOSSIP_MAX_SIZE = 10 * 1024 * 1024;
const STATIC_REDIAL_MS = 5000;
const DISCOVERY_FAST_MS = 5000;

function ipOfMultiaddr(ma: Multiaddr | string): string | null {
  const m = /^\/ip[46]\/([^/]+)/.exec(ma.toString());
  return m === null ? null : m[1]!;
}

function isUnspecified(ip: string): boolean {
  return ip === "0.0.0.0" || ip === "::";
}

export class P2pNode {
  readonly topics: readonly string[];
  private readonly validator: BlockGossipValidator;
  private readonly app: ApplicationScorer;
  private readonly protectedPeers = new Set<string>();
  private readonly staticPeers: Map<string, string>;
  private readonly staticNextDial = new Map<string, number>();
  private readonly known = new Map<string, string>();
  private readonly connectedAt = new Map<string, number>();
  private readonly netrestrict: SubnetSet | null;
  private ticker: NodeJS.Timeout | null = null;
  private lastDiscovery = 0;
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
    readonly book: PeerBook,
    readonly discovery: Discovery | null,
    readonly peerIdString: string,
    staticPeers: Map<string, string>,
    netrestrict: SubnetSet | null,
    app: ApplicationScorer,
  ) {
    const chainId = deps.cfg.l2ChainId;
    this.topics = ([0, 1, 2, 3] as const).map((v) => blocksTopic(chainId, v));
    this.staticPeers = staticPeers;
    for (const id of staticPeers.keys()) this.protectedPeers.add(id);
    this.netrestrict = netrestrict;
    this.app = app;
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
  }

  /** Starts the host, gossip, discovery, req-resp and the peer monitor from the options. */
  static async start(config: P2pConfig, deps: P2pDeps): Promise<P2pNode> {
    const log = deps.log;
    const lo = config["p2p.peers.lo"];
    const hi = config["p2p.peers.hi"];
    if (hi < lo) throw new P2pError(`--p2p.peers.hi (${hi}) must not be below --p2p.peers.lo (${lo})`);
    const { key, created } = loadOrCreateNetworkKey(config["p2p.priv.path"]);
    if (created) log.info("Generated a new P2P network key", { path: config["p2p.priv.path"] });
    const book = PeerBook.open(config["p2p.peerstore.path"]);
    book.storePrivateKeyCopy(bytesToHex(key).slice(2));
    const netrestrict = (config["p2p.netrestrict"]?.length ?? 0) > 0 ? new SubnetSet(config["p2p.netrestrict"]) : null;

    const [
      { createLibp2p },
      { tcp },
      { noise },
      { yamux },
      { identify },
      { ping },
      { gossipsub },
      { privateKeyFromRaw },
      { peerIdFromPrivateKey },
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
      import("@libp2p/peer-id"),
      import("@multiformats/multiaddr"),
    ]);
    const privateKey = privateKeyFromRaw(key) as PrivateKey;
    const selfId = peerIdFromPrivateKey(privateKey).toString();

    const staticPeers = new Map<string, string>();
    for (const s of config["p2p.static"] ?? []) {
      const id = s.slice(s.lastIndexOf("/p2p/") + 5);
      if (id === selfId) {
        log.debug("Ignoring our own address in --p2p.static", { addr: s });
        continue;
      }
      staticPeers.set(id, s);
    }

    const app = new ApplicationScorer(deps.cfg.blockTime);
    const scoring = (config["p2p.scoring"] === "none" ? "none" : "light") as ScoringMode;
    const chainId = deps.cfg.l2ChainId;
    const topics = ([0, 1, 2, 3] as const).map((v) => blocksTopic(chainId, v));
    let nodeRef: P2pNode | null = null;
    const ipAllowed = (ip: string | null): boolean =>
      ip === null || ((netrestrict === null || netrestrict.has(ip)) && book.ipAllowed(ip));
    const peerAllowed = (id: PeerId): boolean => book.peerAllowed(id.toString());

    const listenIp = config["p2p.listen.ip"];
    const ipv6 = listenIp.includes(":");
    const listen = `/${ipv6 ? "ip6" : "ip4"}/${listenIp}/tcp/${config["p2p.listen.tcp"]}`;
    const announce: string[] = [];
    const advIp = config["p2p.advertise.ip"];
    if (advIp !== undefined && advIp !== "") {
      const port = config["p2p.advertise.tcp"] || config["p2p.listen.tcp"];
      if (port !== 0) announce.push(`/${advIp.includes(":") ? "ip6" : "ip4"}/${advIp}/tcp/${port}`);
    }
    const base = {
      identify: identify(),
      ping: ping(),
      pubsub: withScoringViews(
        gossipsub({
          globalSignaturePolicy: "StrictNoSign",
          emitSelf: false,
          allowPublishToZeroTopicPeers: true,
          ignoreDuplicatePublishError: true,
          D: 8,
          Dlo: 6,
          Dhi: 12,
          Dlazy: 6,
          heartbeatInterval: 500,
          fanoutTTL: 24_000,
          mcacheLength: 12,
          mcacheGossip: 3,
          seenTTL: 130 * 500,
          maxInboundDataLength: GOSSIP_MAX_SIZE + 1024,
          allowedTopics: topics,
          msgIdFn: (msg) => gossipMessageId(msg.topic, msg.data),
          scoreParams: peerScoreParams(scoring, deps.cfg.blockTime, topics, (p) => app.score(p)),
          scoreThresholds: PEER_SCORE_THRESHOLDS,
          floodPublish: false,
          doPX: false,
        }),
      ),
    };
    const services = config["p2p.nat"] ? { ...base, nat: (await import("@libp2p/upnp-nat")).uPnPNAT() } : base;
    let libp2p: Libp2p<{ pubsub: GossipSub }>;
    try {
      libp2p = await createLibp2p({
        privateKey,
        nodeInfo: { userAgent: deps.userAgent ?? "opal-node" },
        addresses: { listen: [listen], announce },
        transports: [tcp()],
        connectionEncrypters: [noise()],
        streamMuxers: [yamux()],
        connectionManager: { maxConnections: Math.max(hi * 2, hi + 10) },
        connectionGater: {
          denyDialPeer: (id) => !peerAllowed(id),
          denyDialMultiaddr: (ma) => !ipAllowed(ipOfMultiaddr(ma)),
          denyInboundConnection: (c) => !ipAllowed(ipOfMultiaddr(c.remoteAddr)),
          denyInboundEncryptedConnection: (id, c) => !peerAllowed(id) || !ipAllowed(ipOfMultiaddr(c.remoteAddr)),
          denyOutboundEncryptedConnection: (id) => !peerAllowed(id),
          filterMultiaddrForPeer: (_id, ma) => ipAllowed(ipOfMultiaddr(ma)),
        },
        services,
      });
    } catch (e) {
      throw new P2pError(`cannot start the P2P host on ${listen}: ${(e as Error).message}`);
    }
    const tcpPort = Number(
      /\/tcp\/(\d+)/.exec(libp2p.getMultiaddrs()[0]?.toString() ?? "")?.[1] ?? config["p2p.listen.tcp"],
    );

    let discovery: Discovery | null = null;
    if (!config["p2p.no-discovery"]) {
      const udp = config["p2p.listen.udp"] || tcpPort;
      try {
        discovery = await Discovery.start({
          privateKey: key,
          chainId,
          listenIp,
          udpPort: udp,
          tcpPort: config["p2p.advertise.tcp"] || tcpPort,
          ...(advIp !== undefined && advIp !== "" ? { advertiseIp: advIp } : {}),
          ...(config["p2p.advertise.tcp"] ? { advertiseTcp: config["p2p.advertise.tcp"] } : {}),
          ...(config["p2p.advertise.udp"] ? { advertiseUdp: config["p2p.advertise.udp"] } : {}),
          bootnodes: [...(config["p2p.bootnodes"] ?? [])],
          dbPath: config["p2p.discovery.path"],
          netrestrict: (ip: string) => netrestrict === null || netrestrict.has(ip),
          log,
        });
      } catch (e) {
        await libp2p.stop();
        throw new P2pError(`cannot start discovery on UDP ${listenIp}:${udp}: ${(e as Error).message}`);
      }
    }

    const node = new P2pNode(libp2p, config, deps, book, discovery, selfId, staticPeers, netrestrict, app);
    nodeRef = node;
    node.wire(multiaddr);
    if (discovery !== null) {
      discovery.onPeer((p: { peerId: string; multiaddr: string }) => nodeRef?.onDiscovered(p.peerId, p.multiaddr));
    }
    if (config["p2p.sync.req-resp"]) {
      node.server = new PayloadByNumberServer({
        chainId,
        payloadByNumber: async (n: number) => {
          const env = await deps.payloadByNumber(n);
          if (env === null) return null;
          return {
            envelope: { executionPayload: env.executionPayload, parentBeaconBlockRoot: env.parentBeaconBlockRoot },
            timestamp: env.timestamp,
          };
        },
        versionAt: (ts: number) => blockVersionAt(deps.cfg, ts),
        log,
        onServed: (result) => deps.metrics?.recordReqResp("server", result),
      });
      await node.server.register(libp2p);
    }
    log.info("Started P2P host", {
      peerId: selfId,
      addrs: libp2p.getMultiaddrs().map((m) => m.toString()),
      ...(discovery === null ? {} : { enr: discovery.localEnr() }),
    });
    node.tick();
    node.ticker = setInterval(() => node.tick(), TICK_MS);
    node.ticker.unref();
    return node;
  }

  private dialString: (s: string) => Multiaddr = () => {
    throw new P2pError("host not started");
  };

  private wire(multiaddr: (s: string) => Multiaddr): void {
    this.dialString = multiaddr;
    const pubsub = this.libp2p.services.pubsub;
    for (const [i, topic] of this.topics.entries()) {
      pubsub.topicValidators.set(
        topic,
        (peer, msg) => this.validate(i as BlockVersion, peer.toString(), msg.data) as TopicValidatorResult,
      );
      pubsub.subscribe(topic);
    }
    this.libp2p.addEventListener("peer:connect", (e) => {
      const id = e.detail.toString();
      if (!this.connectedAt.has(id)) this.connectedAt.set(id, Date.now());
      this.updatePeerCount();
    });
    this.libp2p.addEventListener("peer:disconnect", (e) => {
      this.connectedAt.delete(e.detail.toString());
      this.updatePeerCount();
    });
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
      (id) => !this.config["p2p.sync.onlyreqtostatic"] || this.staticPeers.has(id),
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

  private onDiscovered(peerId: string, addr: string): void {
    if (peerId === this.peerIdString) return;
    this.known.set(peerId, addr);
    if (this.connectedPeerIds().length < this.config["p2p.peers.hi"] && !this.isConnected(peerId)) {
      void this.dial(peerId, addr);
    }
  }

  /** Remembers a peer's address; the monitor dials known peers while the count is below lo. */
  addKnownPeer(peerId: string, addr: string): void {
    if (peerId !== this.peerIdString) this.known.set(peerId, addr);
  }

  private isConnected(id: string): boolean {
    return this.libp2p.getConnections().some((c) => c.remotePeer.toString() === id);
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

  /** The monitor: bans, tides, static peers, app-score decay; once a second. */
  private tick(): void {
    if (this.stopped) return;
    const now = Date.now();
    const lo = this.config["p2p.peers.lo"];
    const hi = this.config["p2p.peers.hi"];
    const ids = this.connectedPeerIds();
    // Application scores decay once per slot; the tick is 1 s, slots are ≥ 1 s.
    const slotMs = (this.deps.cfg.blockTime || 2) * 1000;
    if (now - this.lastDecay >= slotMs) {
      this.lastDecay = now;
      this.app.decayAll();
    }
    // Bans.
    const scores: number[] = [];
    for (const id of ids) {
      const score = this.scoreOf(id);
      scores.push(score);
      if (
        this.config["p2p.ban.peers"] &&
        this.config["p2p.scoring"] !== "none" &&
        score < this.config["p2p.ban.threshold"] &&
        !this.protectedPeers.has(id)
      ) {
        void this.banPeer(id, score);
      }
    }
    this.deps.metrics?.recordPeerScores(scores);
    this.reportStreams();
    // Static peers.
    for (const [id, addr] of this.staticPeers) {
      if (this.isConnected(id) || (this.staticNextDial.get(id) ?? 0) > now) continue;
      this.staticNextDial.set(id, now + STATIC_REDIAL_MS);
      void this.dial(id, addr);
    }
    // Tides.
    const count = ids.length;
    if (count < lo) {
      for (const [id, addr] of this.known) {
        if (ids.length >= lo) break;
        if (!ids.includes(id)) void this.dial(id, addr);
      }
      if (this.discovery !== null && now - this.lastDiscovery >= DISCOVERY_FAST_MS) {
        this.lastDiscovery = now;
        void this.discovery.findPeers().catch(() => undefined);
      }
    } else if (count > hi) {
      const grace = this.config["p2p.peers.grace"];
      const candidates = ids
        .filter((id) => !this.protectedPeers.has(id))
        .filter((id) => {
          const since = this.connectedAt.get(id) ?? 0;
          // New, well-behaved peers are spared for the grace period.
          return now - since >= grace || this.scoreOf(id) < 0;
        })
        .sort((a, b) => this.scoreOf(a) - this.scoreOf(b));
      for (const id of candidates.slice(0, count - lo)) {
        this.counters.pruned++;
        void this.hangUp(id);
      }
    }
  }

  private lastDecay = 0;

  private async banPeer(id: string, score: number): Promise<void> {
    const duration = this.config["p2p.ban.duration"];
    this.book.banPeer(id, duration);
    this.counters.bans++;
    this.deps.metrics?.recordPeerBan();
    this.deps.log.warn("Banning peer with a low score", { peer: id, score, durationMs: duration });
    await this.hangUp(id);
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
    this.protectedPeers.add(id);
  }

  unprotect(id: string): void {
    this.protectedPeers.delete(id);
  }

  isProtected(id: string): boolean {
    return this.protectedPeers.has(id);
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
      protected: this.protectedPeers.has(id),
      latencyMs: conns[0]?.rtt ?? 0,
      score: this.scoreOf(id),
      reqResp: this.app.snapshot(id),
      gossipBlocks,
      connectedAt: this.connectedAt.get(id) ?? 0,
    };
  }

  /** Known peers: connected ones and those discovery or static configuration gave us. */
  knownPeerIds(): string[] {
    return [...new Set([...this.connectedPeerIds(), ...this.known.keys(), ...this.staticPeers.keys()])];
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
