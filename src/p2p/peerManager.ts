/**
 * Peer management: the decisions of the host's one-second monitor (op-node p2p/monitor, the
 * connection manager's tides, node.go's static peers), over a few host operations so it runs
 * without libp2p. Each `tick()`:
 *
 * - bans: a connected peer scoring below `--p2p.ban.threshold` (with `--p2p.ban.peers` and scoring
 *   on) is banned for `--p2p.ban.duration` in the peer book and hung up on, unless protected;
 * - static peers (`--p2p.static`, our own id skipped): protected, redialled while disconnected;
 * - tides: below `--p2p.peers.lo` it dials the known peers and asks discovery for more; above
 *   `--p2p.peers.hi` it prunes down to lo, lowest score first, sparing protected peers and new
 *   well-behaved ones (connected less than `--p2p.peers.grace` ago, score not negative).
 *
 * Between ticks, a discovered peer is remembered and dialled at once while the count is below hi.
 */
import type { Logger } from "../util/log.js";

/** Static peers are redialled at most this often (ms) while disconnected. */
const STATIC_REDIAL_MS = 5000;
/** Below lo, discovery is asked for peers at most this often (ms). */
const DISCOVERY_FAST_MS = 5000;

/** The host operations peer management needs. */
export interface PeerHost {
  /** The connected peers, each once. */
  connectedPeerIds(): string[];
  /** A peer's gossipsub score (0 without scoring). */
  scoreOf(id: string): number;
  /** Dials `addr` unless gating refuses it; resolves false when refused or failed, never rejects. */
  dial(id: string, addr: string): Promise<boolean>;
  /** Closes every connection to the peer. */
  hangUp(id: string): Promise<void>;
  /** Records a score ban in the peer book, so it outlives a restart. */
  ban(id: string, durationMs: number): void;
  /** One discovery lookup (its finds arrive through `onDiscovered`); null without discovery. */
  readonly findPeers: (() => Promise<unknown>) | null;
}

/** The options it reads (a slice of `P2pConfig`; durations in ms). */
export interface PeerManagerConfig {
  readonly "p2p.static"?: readonly string[] | undefined;
  readonly "p2p.scoring": string;
  readonly "p2p.ban.peers": boolean;
  readonly "p2p.ban.threshold": number;
  readonly "p2p.ban.duration": number;
  readonly "p2p.peers.lo": number;
  readonly "p2p.peers.hi": number;
  readonly "p2p.peers.grace": number;
}

/** What it reports (implemented by the host's `P2pMetricsSink`). */
export interface PeerMetrics {
  recordPeerBan(): void;
  recordPeerScores(scores: readonly number[]): void;
}

export interface PeerManagerDeps {
  readonly host: PeerHost;
  /** Our own peer id, never dialled nor remembered. */
  readonly selfId: string;
  readonly log: Logger;
  readonly metrics?: PeerMetrics | null;
  /** Counted up on each ban and prune (the host's `counters`). */
  readonly counters: { bans: number; pruned: number };
  /** Milliseconds since the epoch (tests move time); `Date.now` by default. */
  readonly now?: () => number;
}

export class PeerManager {
  /** Static peers: id → multiaddr. */
  private readonly staticPeers = new Map<string, string>();
  private readonly staticNextDial = new Map<string, number>();
  private readonly protectedPeers = new Set<string>();
  /** Peers discovery or the caller told us of: id → multiaddr. */
  private readonly known = new Map<string, string>();
  private readonly connectedAt = new Map<string, number>();
  /** Peers pruned or banned whose hang-up has not finished (`disconnect`). */
  private readonly closing = new Set<string>();
  private lastDiscovery = 0;
  private readonly host: PeerHost;
  private readonly now: () => number;

  constructor(
    private readonly config: PeerManagerConfig,
    private readonly deps: PeerManagerDeps,
  ) {
    this.host = deps.host;
    this.now = deps.now ?? Date.now;
    for (const addr of config["p2p.static"] ?? []) {
      const id = addr.slice(addr.lastIndexOf("/p2p/") + 5);
      if (id === deps.selfId) {
        deps.log.debug("Ignoring our own address in --p2p.static", { addr });
        continue;
      }
      this.staticPeers.set(id, addr);
      this.protectedPeers.add(id);
    }
  }

  /** One round of the monitor: bans, static peers, tides. */
  tick(): void {
    const now = this.now();
    // A peer being hung up on is gone already (`disconnect`): counted, it would be pruned again.
    const ids = this.host.connectedPeerIds().filter((id) => !this.closing.has(id));
    this.banLowScores(ids);
    this.redialStaticPeers(now);
    if (ids.length < this.config["p2p.peers.lo"]) this.seekPeers(ids, now);
    else if (ids.length > this.config["p2p.peers.hi"]) this.prune(ids, now);
  }

  /** Bans the peers scoring below the threshold and reports every score. */
  private banLowScores(ids: readonly string[]): void {
    const banning = this.config["p2p.ban.peers"] && this.config["p2p.scoring"] !== "none";
    const scores: number[] = [];
    for (const id of ids) {
      const score = this.host.scoreOf(id);
      scores.push(score);
      if (banning && score < this.config["p2p.ban.threshold"] && !this.protectedPeers.has(id)) {
        void this.ban(id, score);
      }
    }
    this.deps.metrics?.recordPeerScores(scores);
  }

  private async ban(id: string, score: number): Promise<void> {
    const duration = this.config["p2p.ban.duration"];
    this.host.ban(id, duration);
    this.deps.counters.bans++;
    this.deps.metrics?.recordPeerBan();
    this.deps.log.warn("Banning peer with a low score", { peer: id, score, durationMs: duration });
    await this.disconnect(id);
  }

  /**
   * Hangs up on a peer; until the close finishes (a graceful one can outlast a tick) `tick` treats the
   * peer as gone, so it is neither pruned nor banned again nor counted toward lo and hi.
   */
  private async disconnect(id: string): Promise<void> {
    this.closing.add(id);
    try {
      await this.host.hangUp(id);
    } catch {
      // the connection is gone either way
    } finally {
      this.closing.delete(id);
    }
  }

  private redialStaticPeers(now: number): void {
    for (const [id, addr] of this.staticPeers) {
      if (this.isConnected(id) || (this.staticNextDial.get(id) ?? 0) > now) continue;
      this.staticNextDial.set(id, now + STATIC_REDIAL_MS);
      void this.host.dial(id, addr);
    }
  }

  /** Below lo: dials every known peer not connected (all at once), and asks discovery for more. */
  private seekPeers(ids: readonly string[], now: number): void {
    for (const [id, addr] of this.known) {
      if (!ids.includes(id)) void this.host.dial(id, addr);
    }
    const findPeers = this.host.findPeers;
    if (findPeers !== null && now - this.lastDiscovery >= DISCOVERY_FAST_MS) {
      this.lastDiscovery = now;
      void findPeers().catch(() => undefined);
    }
  }

  /** Above hi: hangs up on peers down to lo, lowest score first, sparing protected and new well-behaved ones. */
  private prune(ids: readonly string[], now: number): void {
    const grace = this.config["p2p.peers.grace"];
    const candidates = ids
      .filter((id) => !this.protectedPeers.has(id))
      .filter((id) => {
        const since = this.connectedAt.get(id) ?? 0;
        return now - since >= grace || this.host.scoreOf(id) < 0;
      })
      .sort((a, b) => this.host.scoreOf(a) - this.host.scoreOf(b));
    for (const id of candidates.slice(0, ids.length - this.config["p2p.peers.lo"])) {
      this.deps.counters.pruned++;
      void this.disconnect(id);
    }
  }

  /** A peer discovery found: remembered, and dialled at once while the count is below hi. */
  onDiscovered(id: string, addr: string): void {
    if (id === this.deps.selfId) return;
    this.known.set(id, addr);
    if (this.host.connectedPeerIds().length < this.config["p2p.peers.hi"] && !this.isConnected(id)) {
      void this.host.dial(id, addr);
    }
  }

  /** Remembers a peer's address; `tick` dials known peers while the count is below lo. */
  addKnownPeer(id: string, addr: string): void {
    if (id !== this.deps.selfId) this.known.set(id, addr);
  }

  /** The host's `peer:connect`: starts the peer's grace period (its first connection counts). */
  onConnect(id: string): void {
    if (!this.connectedAt.has(id)) this.connectedAt.set(id, this.now());
  }

  /** The host's `peer:disconnect`. */
  onDisconnect(id: string): void {
    this.connectedAt.delete(id);
  }

  /** When the peer connected (ms), 0 when not connected. */
  connectedSince(id: string): number {
    return this.connectedAt.get(id) ?? 0;
  }

  /** Connected peers and those discovery or static configuration gave us. */
  knownPeerIds(): string[] {
    return [...new Set([...this.host.connectedPeerIds(), ...this.known.keys(), ...this.staticPeers.keys()])];
  }

  isStatic(id: string): boolean {
    return this.staticPeers.has(id);
  }

  /** Spares a peer from bans and pruning (opp2p_protectPeer; static peers always are). */
  protect(id: string): void {
    this.protectedPeers.add(id);
  }

  unprotect(id: string): void {
    this.protectedPeers.delete(id);
  }

  isProtected(id: string): boolean {
    return this.protectedPeers.has(id);
  }

  private isConnected(id: string): boolean {
    return this.host.connectedPeerIds().includes(id);
  }
}
