/**
 * The execution-layer P2P host of opal-exec (geth's p2p.Server + eth handler, in one place): RLPx
 * sessions in and out (rlpx/), the `eth` capability at 69 and 68 on each (eth/), peers found by
 * discv4/discv5 (discovery/) and given by `--bootnodes` / admin_addPeer, and what the node does with
 * them — serve headers, bodies, receipts and pooled txs, gossip txs (unless
 * `--rollup.disabletxpoolgossip`), and hand every peer to the execution-layer downloader (sync/).
 *
 * Peer limits as geth: at most `maxPeers` eth peers; inbound ones beyond `maxPeers - maxPeers/3`
 * (geth's default dial ratio 3: a third of the slots are kept for dials) are refused with
 * TooManyPeers; a second session to a node already connected is refused with AlreadyConnected, one
 * to ourselves with ConnectedToSelf; a session without a shared eth version with UselessPeer. Static
 * peers (admin_addPeer) are redialled every 15 s while not connected and count against no limit.
 */
import type { Server } from "node:net";
import type { Blockchain, HeadChange } from "../chain/blockchain.js";
import { bytesToHex, bytesToHexRaw } from "../primitives/hex.js";
import { forkPoints } from "../spec/forkId.js";
import type { TxPool } from "../txpool/txPool.js";
import type { Logger } from "../util/log.js";
import { SILENT_LOGGER } from "../util/log.js";
import { Discovery, type PeerCandidate } from "./discovery/discovery.js";
import { formatEnode, parseEnode } from "./discovery/enode.js";
import { newForkFilter } from "./discovery/forkFilter.js";
import { ipFromBytes, ipToBytes } from "./discovery/ip.js";
import type { NodeKey } from "./discovery/nodeKey.js";
import { EthPeer } from "./eth/ethPeer.js";
import { ETH68, ETH69, type EthVersion } from "./eth/messages.js";
import { EthServer } from "./eth/server.js";
import type { EthSession } from "./eth/session.js";
import { StatusProvider } from "./eth/status.js";
import { TxBroadcaster, TxFetcher } from "./eth/txAnnounce.js";
import { dialRlpx, listenRlpx, type RlpxLocalOptions } from "./rlpx/dial.js";
import { DisconnectReason } from "./rlpx/p2pMessages.js";
import type { RlpxSession, RlpxSessionOptions } from "./rlpx/rlpxSession.js";
import type { Downloader } from "./sync/downloader.js";
import { EthSyncPeer } from "./sync/ethSyncPeer.js";

/** geth's default `--maxpeers`. */
export const DEFAULT_MAX_PEERS = 50;
/** geth p2p.Server dialRatio: one slot in three is for dialled peers. */
const DIAL_RATIO = 3;
/** How often the host looks for peers to dial and redials static peers (geth's dial scheduler ticks faster; 5 s is plenty here). */
const DIAL_TICK_MS = 5_000;
/** How often the tx fetcher's timers run (geth's fetcher wakes on its earliest timeout; 250 ms is its granularity here). */
const FETCH_TICK_MS = 250;
/** eth/69 BlockRangeUpdate cadence (EIP-7642: "every 2 minutes" at most, here on every 64 new blocks or 2 min). */
const RANGE_UPDATE_MS = 120_000;
/** Dial attempts in flight at once (geth maxActiveDialTasks 16). */
const MAX_ACTIVE_DIALS = 16;

export interface Devp2pHostOptions {
  readonly key: NodeKey;
  readonly clientId: string;
  /** TCP listen address and port (`--port`, 30303; 0 picks one). */
  readonly listenAddr: string;
  readonly port: number;
  /** `--maxpeers` (0: no peers, no listening: geth's `--maxpeers 0`). */
  readonly maxPeers: number;
  /** Discovery, or null (`--nodiscover`). */
  readonly discovery: {
    readonly udpPort: number;
    readonly v4: boolean;
    readonly v5: boolean;
    readonly bootnodes: readonly string[];
    readonly netrestrict: string | null;
    readonly advertiseIp?: string;
  } | null;
  /** Nodes dialled at start and kept connected (the bootnodes' enode URLs are dialled as well). */
  readonly staticNodes: readonly string[];
  /** `--networkid` (default: the chain id). */
  readonly networkId?: bigint;
  /** op-geth `--rollup.disabletxpoolgossip`. */
  readonly disableTxPoolGossip: boolean;
  /** eth versions offered, newest first (default 69, 68). */
  readonly ethVersions?: readonly EthVersion[];
  /** RLPx session timers and message bound (defaults: geth's, rlpx/rlpxSession.ts); tests shorten them. */
  readonly rlpx?: Pick<
    RlpxSessionOptions,
    "handshakeTimeoutMs" | "pingIntervalMs" | "idleTimeoutMs" | "maxMessageSize"
  >;
}

export interface Devp2pHostDeps {
  readonly chain: Blockchain;
  readonly pool: TxPool;
  readonly downloader: Downloader | null;
  readonly log?: Logger;
}

/** What admin_peers shows of one peer (geth p2p.PeerInfo). */
export interface PeerInfo {
  readonly id: string;
  readonly enode: string;
  readonly name: string;
  readonly caps: string[];
  readonly network: {
    readonly localAddress: string;
    readonly remoteAddress: string;
    readonly inbound: boolean;
    readonly trusted: boolean;
    readonly static: boolean;
  };
  readonly protocols: { readonly eth: { readonly version: number } };
}

interface Connected {
  readonly session: RlpxSession;
  readonly peer: EthPeer;
  readonly inbound: boolean;
  readonly enode: string;
}

/** The eth capability of a session as the EthPeer wants it. */
function ethSession(s: RlpxSession, id: string): EthSession {
  return {
    id,
    send: (code, payload) => {
      s.send("eth", code, payload);
    },
    onMessage: (handler) => {
      s.on("message", (cap, code, payload) => {
        if (cap === "eth") handler(code, payload);
      });
    },
    onClose: (handler) => {
      s.on("close", (info) => handler(info.reason));
    },
    disconnect: (reason) => s.disconnect(reason),
  };
}

export class Devp2pHost {
  private readonly log: Logger;
  private readonly status: StatusProvider;
  private readonly server: EthServer;
  private readonly broadcaster: TxBroadcaster;
  private readonly fetcher: TxFetcher;
  private readonly peers = new Map<string, Connected>();
  private readonly dialing = new Set<string>();
  /** Static nodes by id (hex): enode URL and the next time a dial is due. */
  private readonly statics = new Map<string, { url: string; due: number }>();
  private readonly candidates = new Map<string, PeerCandidate>();
  private readonly timers: NodeJS.Timeout[] = [];
  private listener: Server | null = null;
  private discovery: Discovery | null = null;
  private unsubscribePool: (() => void) | null = null;
  private stopped = false;
  private readonly selfId: string;
  private readonly versions: readonly EthVersion[];
  /** The TCP port listened on (after start; 0 when not listening). */
  listenPort = 0;
  readonly counters = { dialed: 0, accepted: 0, refused: 0, dropped: 0 };

  private constructor(
    private readonly opts: Devp2pHostOptions,
    private readonly deps: Devp2pHostDeps,
  ) {
    this.log = deps.log ?? SILENT_LOGGER;
    this.selfId = bytesToHexRaw(opts.key.publicKey);
    this.versions = opts.ethVersions ?? [ETH69, ETH68];
    this.status = new StatusProvider(deps.chain, opts.networkId === undefined ? {} : { networkId: opts.networkId });
    this.server = new EthServer({ store: deps.chain.store, pool: opts.disableTxPoolGossip ? null : deps.pool });
    this.broadcaster = new TxBroadcaster({ disableTxPoolGossip: opts.disableTxPoolGossip });
    this.fetcher = new TxFetcher(
      { disableTxPoolGossip: opts.disableTxPoolGossip },
      {
        now: () => Date.now(),
        isKnown: (h) => deps.pool.has(h) || deps.chain.store.txLocation(h) !== null,
        addTxs: async (txs) => (await deps.pool.add(txs)).map((r) => ({ error: r.error })),
        fetchTxs: (peer, hashes) => this.peers.get(peer)?.peer.fetchPooledTxs(hashes),
        dropPeer: (peer, reason) => this.peers.get(peer)?.peer.misbehaved(reason),
      },
    );
  }

  static async start(opts: Devp2pHostOptions, deps: Devp2pHostDeps): Promise<Devp2pHost> {
    const h = new Devp2pHost(opts, deps);
    await h.startNetworking();
    return h;
  }

  private rlpxOptions(): RlpxLocalOptions {
    return {
      ...this.opts.rlpx,
      privateKey: this.opts.key.privateKey,
      clientId: this.opts.clientId,
      capabilities: this.versions.map((v) => ({ name: "eth", version: v, length: v === ETH69 ? 18 : 17 })),
      listenPort: this.listenPort,
    };
  }

  private async startNetworking(): Promise<void> {
    if (this.opts.maxPeers > 0) {
      this.listener = await listenRlpx(
        this.opts.port,
        this.opts.listenAddr,
        this.rlpxOptions(),
        (s) => this.onSession(s, true),
        { log: this.log },
      );
      const a = this.listener.address();
      this.listenPort = typeof a === "object" && a !== null ? a.port : this.opts.port;
    }
    const d = this.opts.discovery;
    if (d !== null && this.opts.maxPeers > 0) {
      const g = this.status.genesis;
      const chain = this.deps.chain;
      const filter = newForkFilter(g.hash, forkPoints(chain.config, g.timestamp), () => ({
        number: chain.head.number,
        time: chain.head.timestamp,
      }));
      this.discovery = await Discovery.start({
        key: this.opts.key,
        udpPort: d.udpPort,
        tcpPort: this.listenPort,
        bindIp: this.opts.listenAddr,
        ...(d.advertiseIp === undefined ? {} : { advertiseIp: d.advertiseIp }),
        bootnodes: d.bootnodes,
        netrestrict: d.netrestrict,
        v4: d.v4,
        v5: d.v5,
        fork: { id: this.status.forkId(), filter },
        wantMore: () => this.peers.size < this.opts.maxPeers,
        log: this.log,
      });
      this.discovery.onPeer((p) => {
        this.candidates.set(p.id, p);
        this.dialCandidates();
      });
    }
    for (const url of this.opts.staticNodes) this.addStatic(url);
    this.unsubscribePool = this.deps.pool.onPending((txs) => {
      if (this.opts.disableTxPoolGossip) return;
      this.broadcaster.broadcast(
        txs.map((p) => ({ hash: p.hash, type: p.tx.type, encoded: p.encoded, sender: p.sender })),
      );
    });
    this.timers.push(setInterval(() => this.tick(), DIAL_TICK_MS).unref());
    this.timers.push(setInterval(() => this.fetcher.step(), FETCH_TICK_MS).unref());
    this.timers.push(setInterval(() => this.sendRangeUpdates(), RANGE_UPDATE_MS).unref());
    this.tick();
  }

  /** A static peer (admin_addPeer, bootnodes): dialled now and whenever it is not connected. */
  addStatic(url: string): boolean {
    const n = parseEnode(url);
    const id = bytesToHexRaw(n.publicKey);
    if (id === this.selfId) return false;
    this.statics.set(id, { url, due: 0 });
    this.tick();
    return true;
  }

  /** admin_removePeer: forgets a static node and disconnects it. */
  removeStatic(url: string): boolean {
    const id = bytesToHexRaw(parseEnode(url).publicKey);
    const had = this.statics.delete(id);
    const c = this.peers.get(id);
    c?.peer.close(DisconnectReason.Requested);
    return had || c !== undefined;
  }

  private tick(): void {
    if (this.stopped) return;
    const now = Date.now();
    for (const [id, s] of this.statics) {
      if (this.peers.has(id) || this.dialing.has(id) || s.due > now) continue;
      s.due = now + 15_000;
      const n = parseEnode(s.url);
      void this.dial(id, ipFromBytes(n.ip) ?? "127.0.0.1", n.tcpPort, n.publicKey);
    }
    this.dialCandidates();
  }

  private dialCandidates(): void {
    if (this.stopped) return;
    const maxDialed = this.opts.maxPeers - Math.floor(this.opts.maxPeers / DIAL_RATIO);
    for (const [id, p] of this.candidates) {
      if (this.peers.size + this.dialing.size >= Math.max(maxDialed, 1) || this.dialing.size >= MAX_ACTIVE_DIALS) break;
      const hexId = bytesToHexRaw(p.pubkey);
      this.candidates.delete(id);
      if (this.peers.has(hexId) || this.dialing.has(hexId) || hexId === this.selfId) continue;
      void this.dial(hexId, p.ip, p.tcpPort, p.pubkey);
    }
  }

  private async dial(id: string, ip: string, port: number, pubkey: Uint8Array): Promise<void> {
    this.dialing.add(id);
    this.counters.dialed++;
    try {
      const s = await dialRlpx(ip, port, pubkey, this.rlpxOptions(), { log: this.log });
      this.onSession(s, false);
    } catch (e) {
      this.log.debug("Dial failed", { id: id.slice(0, 16), addr: `${ip}:${port}`, err: (e as Error).message });
    } finally {
      this.dialing.delete(id);
    }
  }

  /** Why a new session is refused (geth p2p.Server postHandshakeChecks and the eth handler), or null. */
  private admission(id: string, s: RlpxSession, inbound: boolean): DisconnectReason | null {
    if (this.stopped) return DisconnectReason.ClientQuitting;
    if (id === this.selfId) return DisconnectReason.SelfConnection;
    if (this.peers.has(id)) return DisconnectReason.AlreadyConnected;
    if (!this.statics.has(id)) {
      const maxInbound = Math.ceil(this.opts.maxPeers / DIAL_RATIO);
      let inboundCount = 0;
      for (const c of this.peers.values()) if (c.inbound) inboundCount++;
      if (this.peers.size >= this.opts.maxPeers || (inbound && inboundCount >= maxInbound)) {
        return DisconnectReason.TooManyPeers;
      }
    }
    const eth = s.capabilities.filter((c) => c.name === "eth").map((c) => c.version);
    if (!this.versions.some((v) => eth.includes(v))) return DisconnectReason.UselessPeer;
    return null;
  }

  private onSession(s: RlpxSession, inbound: boolean): void {
    const id = bytesToHexRaw(s.remoteId!);
    const refused = this.admission(id, s, inbound);
    if (refused !== null) {
      this.counters.refused++;
      s.disconnect(refused);
      return;
    }
    const eth = s.capabilities.filter((c) => c.name === "eth").map((c) => c.version);
    const version = this.versions.find((v) => eth.includes(v))!;
    const peer = new EthPeer(
      { version, disableTxPoolGossip: this.opts.disableTxPoolGossip },
      {
        session: ethSession(s, id),
        status: this.status,
        server: this.server,
        fetcher: this.fetcher,
        txQueue: this.broadcaster.addPeer(id, (code, payload) => {
          s.send("eth", code, payload);
        }),
        log: this.log,
        onMisbehaviour: (_p, reason) => {
          this.counters.dropped++;
          this.log.debug("Peer misbehaved", { id: id.slice(0, 16), reason });
        },
      },
    );
    const addr = `${s.socket.remoteAddress}:${s.socket.remotePort}`;
    const enode = `enode://${id}@${s.socket.remoteAddress}:${inbound ? (s.remoteHello?.listenPort ?? 0) : s.socket.remotePort}`;
    const conn: Connected = { session: s, peer, inbound, enode };
    this.peers.set(id, conn);
    if (inbound) this.counters.accepted++;
    s.on("close", () => {
      if (this.peers.get(id) === conn) this.peers.delete(id);
      this.broadcaster.removePeer(id);
      this.fetcher.dropPeer(id);
      this.deps.downloader?.removePeer(id);
    });
    peer.handshake().then(
      () => {
        this.log.debug("Ethereum peer connected", { id: id.slice(0, 16), addr, eth: version, inbound });
        this.deps.downloader?.addPeer(new EthSyncPeer(peer));
      },
      (e: unknown) => this.log.debug("Ethereum handshake failed", { id: id.slice(0, 16), err: (e as Error).message }),
    );
  }

  private sendRangeUpdates(): void {
    const head = this.deps.chain.head;
    const earliest = this.status.genesis.number;
    for (const c of this.peers.values()) {
      if (c.peer.version === ETH69 && c.peer.remoteStatus !== null) {
        c.peer.sendBlockRangeUpdate(earliest, head.number, this.deps.chain.headBlockHash);
      }
    }
  }

  /** The head moved: eth/69 peers hear of the new range at once when it moved by a whole epoch (32 blocks). */
  onHead(change: HeadChange): void {
    if (change.newHead.number % 32 === 0) this.sendRangeUpdates();
  }

  /** Peers that passed the eth handshake. */
  get peerCount(): number {
    let n = 0;
    for (const c of this.peers.values()) if (c.peer.remoteStatus !== null && c.peer.closed === null) n++;
    return n;
  }

  /** This node's enode URL (geth admin_nodeInfo.enode). */
  enode(ip = "127.0.0.1"): string {
    const udpPort = this.opts.discovery?.udpPort ?? this.listenPort;
    return formatEnode({ publicKey: this.opts.key.publicKey, ip: ipToBytes(ip)!, tcpPort: this.listenPort, udpPort });
  }

  /** geth admin_nodeInfo. */
  nodeInfo(): Record<string, unknown> {
    const head = this.deps.chain.head;
    const ip = this.opts.discovery?.advertiseIp ?? "127.0.0.1";
    return {
      id: bytesToHexRaw(this.opts.key.id),
      name: this.opts.clientId,
      enode: this.enode(ip),
      enr: this.discovery?.localEnr() ?? null,
      ip,
      ports: { discovery: this.opts.discovery?.udpPort ?? 0, listener: this.listenPort },
      listenAddr: `${this.opts.listenAddr}:${this.listenPort}`,
      protocols: {
        eth: {
          network: Number(this.status.networkId),
          genesis: bytesToHex(this.status.genesis.hash),
          config: { chainId: Number(this.deps.chain.config.chainId) },
          head: bytesToHex(this.deps.chain.headBlockHash),
          number: head.number,
        },
      },
    };
  }

  /** geth admin_peers. */
  peerInfos(): PeerInfo[] {
    const out: PeerInfo[] = [];
    for (const [id, c] of this.peers) {
      const hello = c.session.remoteHello;
      out.push({
        id,
        enode: c.enode,
        name: hello?.clientId ?? "",
        caps: (hello?.capabilities ?? []).map((x) => `${x.name}/${x.version}`),
        network: {
          localAddress: `${c.session.socket.localAddress}:${c.session.socket.localPort}`,
          remoteAddress: `${c.session.socket.remoteAddress}:${c.session.socket.remotePort}`,
          inbound: c.inbound,
          trusted: false,
          static: this.statics.has(id),
        },
        protocols: { eth: { version: c.peer.version } },
      });
    }
    return out;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.unsubscribePool?.();
    for (const c of this.peers.values()) c.peer.close(DisconnectReason.ClientQuitting);
    await this.discovery?.stop();
    const l = this.listener;
    if (l !== null) await new Promise<void>((r) => l.close(() => r()));
  }
}
