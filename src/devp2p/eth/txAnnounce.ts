/**
 * Transaction propagation as geth does it, as pure classes driven by send functions and a clock:
 * - `TxBroadcaster` (geth eth/handler.go `BroadcastTransactions`, eth/protocols/eth/broadcast.go):
 *   full txs to √(peers without the tx), hashes to the rest; blob txs and txs over 4 KiB only
 *   announced; per-peer known sets so nothing goes back to a peer that has it.
 * - `TxFetcher` (geth eth/fetcher/tx_fetcher.go): announced unknown hashes wait 500 ms for a
 *   broadcast, then are requested from one announcer at a time in batches (256 txs / 128 KiB), with
 *   a 5 s timeout that reschedules to another announcer, deduplicated across peers.
 * With `disableTxPoolGossip` (op-geth `--rollup.disabletxpoolgossip`) nothing goes out or comes in.
 */
import { keccak256 } from "../../crypto/keccak.js";
import { bytesKey } from "../../primitives/bytes.js";
import { decodeBlobTxNetwork } from "../../tx/blobNetwork.js";
import { txHash } from "../../tx/envelope.js";
import { TxType } from "../../tx/tx.js";
import { EthMsg, encodeNewPooledTransactionHashes, encodeTransactions } from "./messages.js";

// geth eth/protocols/eth/peer.go and broadcast.go.
/** Tx hashes remembered per peer as known to it (geth maxKnownTxs). */
export const MAX_KNOWN_TXS = 32768;
/** Txs queued for broadcast to one peer before the oldest are dropped (geth maxQueuedTxs). */
export const MAX_QUEUED_TXS = 4096;
/** Announcements queued for one peer before the oldest are dropped (geth maxQueuedTxAnns). */
export const MAX_QUEUED_TX_ANNS = 4096;
/** Target size of one Transactions / announcement packet (geth broadcast.go maxTxPacketSize, 100 KiB). */
export const MAX_TX_PACKET_SIZE = 100 * 1024;
/** Larger txs are announced, never broadcast in full (geth eth/handler.go txMaxBroadcastSize). */
export const TX_MAX_BROADCAST_SIZE = 4096;

// geth eth/fetcher/tx_fetcher.go.
/** Unique hashes one peer may have waiting or queued (geth maxTxAnnounces). */
export const MAX_TX_ANNOUNCES = 4096;
/** Txs requested in one GetPooledTransactions (geth maxTxRetrievals). */
export const MAX_TX_RETRIEVALS = 256;
/** Announced bytes requested in one GetPooledTransactions (geth maxTxRetrievalSize, 128 KiB). */
export const MAX_TX_RETRIEVAL_SIZE = 128 * 1024;
/** Wait for a broadcast before requesting an announced tx (geth txArriveTimeout). */
export const TX_ARRIVE_TIMEOUT_MS = 500;
/** Time a peer has to answer a tx request (geth txFetchTimeout). */
export const TX_FETCH_TIMEOUT_MS = 5000;
/** Underpriced hashes remembered, and for how long (geth maxTxUnderpricedSetSize/Timeout). */
export const MAX_TX_UNDERPRICED = 32768;
export const TX_UNDERPRICED_TIMEOUT_MS = 5 * 60 * 1000;

/** The hash of a tx envelope as carried on the wire (a blob tx's network form hashes without sidecar). */
export function wireTxHash(env: Uint8Array): Uint8Array {
  if (env[0] === TxType.Blob) {
    try {
      return txHash(decodeBlobTxNetwork(env).tx);
    } catch {
      // Not the network form: the plain envelope.
    }
  }
  return keccak256(env);
}

/** An insertion-ordered set with a cap; the oldest key leaves first (geth evicts at random). */
export class KnownCache {
  private readonly set = new Set<string>();
  constructor(private readonly max: number) {}
  has(key: string): boolean {
    return this.set.has(key);
  }
  add(key: string): void {
    if (this.set.has(key)) return;
    if (this.set.size >= this.max) this.set.delete(this.set.values().next().value as string);
    this.set.add(key);
  }
  get size(): number {
    return this.set.size;
  }
}

/** A tx to propagate: its hash, type, announced size (EIP-5793: length of the envelope) and bytes. */
export interface GossipTx {
  readonly hash: Uint8Array;
  readonly type: number;
  readonly encoded: Uint8Array;
  /** Groups one account's txs onto the same direct peers (geth picks by sender); hash if absent. */
  readonly sender?: Uint8Array;
}

export type SendFn = (code: number, payload: Uint8Array) => void;

/** One peer's side of propagation: what it knows and what is queued for it. */
export class TxPeerQueue {
  readonly known = new KnownCache(MAX_KNOWN_TXS);
  private full: GossipTx[] = [];
  private anns: GossipTx[] = [];

  constructor(
    readonly id: string,
    private readonly send: SendFn,
  ) {}

  /** Marks a hash as known to the peer (it sent or announced it, or we did). */
  markKnown(hash: Uint8Array): void {
    this.known.add(bytesKey(hash));
  }

  knows(hash: Uint8Array): boolean {
    return this.known.has(bytesKey(hash));
  }

  queueFull(tx: GossipTx): void {
    this.markKnown(tx.hash);
    this.full.push(tx);
    if (this.full.length > MAX_QUEUED_TXS) this.full.splice(0, this.full.length - MAX_QUEUED_TXS);
  }

  queueAnnounce(tx: GossipTx): void {
    this.markKnown(tx.hash);
    this.anns.push(tx);
    if (this.anns.length > MAX_QUEUED_TX_ANNS) this.anns.splice(0, this.anns.length - MAX_QUEUED_TX_ANNS);
  }

  /** Sends everything queued, in packets of about MAX_TX_PACKET_SIZE (one oversized tx goes alone). */
  flush(): void {
    while (this.full.length > 0) {
      let size = 0;
      let n = 0;
      while (n < this.full.length && size < MAX_TX_PACKET_SIZE) size += this.full[n++].encoded.length;
      const batch = this.full.splice(0, n);
      this.send(EthMsg.Transactions, encodeTransactions(batch.map((t) => t.encoded)));
    }
    while (this.anns.length > 0) {
      let size = 0;
      let n = 0;
      while (n < this.anns.length && size < MAX_TX_PACKET_SIZE) {
        size += 32;
        n++;
      }
      const batch = this.anns.splice(0, n);
      this.send(
        EthMsg.NewPooledTransactionHashes,
        encodeNewPooledTransactionHashes(
          Uint8Array.from(batch.map((t) => t.type)),
          batch.map((t) => t.encoded.length),
          batch.map((t) => t.hash),
        ),
      );
    }
  }
}

/** geth `BroadcastTransactions` over the connected peers. */
export class TxBroadcaster {
  private readonly peers = new Map<string, TxPeerQueue>();

  constructor(private readonly opts: { readonly disableTxPoolGossip: boolean }) {}

  addPeer(id: string, send: SendFn): TxPeerQueue {
    const q = new TxPeerQueue(id, send);
    this.peers.set(id, q);
    return q;
  }

  removePeer(id: string): void {
    this.peers.delete(id);
  }

  peer(id: string): TxPeerQueue | undefined {
    return this.peers.get(id);
  }

  /** Propagates new pool txs: full to √n of the n peers lacking each, hashes to the others. */
  broadcast(txs: readonly GossipTx[]): void {
    if (this.opts.disableTxPoolGossip) return; // op-geth handler: `if h.noTxGossip { return }`
    const touched = new Set<TxPeerQueue>();
    for (const tx of txs) {
      const lacking: TxPeerQueue[] = [];
      for (const p of this.peers.values()) if (!p.knows(tx.hash)) lacking.push(p);
      if (lacking.length === 0) continue;
      const mayDirect = tx.type !== TxType.Blob && tx.encoded.length <= TX_MAX_BROADCAST_SIZE;
      const numDirect = mayDirect ? Math.floor(Math.sqrt(lacking.length)) : 0;
      // Deterministic choice per sender: the same account's txs reach the same peers (no nonce gaps).
      const seed = tx.sender ?? tx.hash;
      const ranked =
        numDirect === 0
          ? lacking
          : lacking
              .map((p) => ({ p, k: bytesKey(keccak256(concat(seed, p.id))) }))
              .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
              .map((x) => x.p);
      for (let i = 0; i < ranked.length; i++) {
        if (i < numDirect) ranked[i].queueFull(tx);
        else ranked[i].queueAnnounce(tx);
        touched.add(ranked[i]);
      }
    }
    for (const p of touched) p.flush();
  }
}

function concat(a: Uint8Array, id: string): Uint8Array {
  const b = new TextEncoder().encode(id);
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

// ---- fetcher -------------------------------------------------------------------------------------

interface Meta {
  readonly hash: Uint8Array;
  readonly type: number;
  readonly size: number;
}

/** Result of adding one tx to the pool: a pool error code (`ALREADY_KNOWN`, `UNDERPRICED`, …) or null. */
export interface AddOutcome {
  readonly error: { readonly code: string } | null;
}

export interface TxFetcherDeps {
  /** Milliseconds, monotonic enough for timeouts. */
  readonly now: () => number;
  /** Whether the pool (or chain) already has the tx. */
  readonly isKnown: (hash: Uint8Array) => boolean;
  /** Adds remote txs to the pool (`TxPool.add(txs, false)`); one outcome per tx, in order. */
  readonly addTxs: (txs: Uint8Array[]) => Promise<readonly AddOutcome[]>;
  /** Sends GetPooledTransactions to a peer; the answer comes back through `enqueue(…, true)`. */
  readonly fetchTxs: (peer: string, hashes: Uint8Array[]) => void;
  /** A peer broke the announcement rules (type or size mismatch). */
  readonly dropPeer: (peer: string, reason: string) => void;
}

/** geth TxFetcher's three stages (wait list, queue, fetching) over plain maps. */
export class TxFetcher {
  /** Stage 1: hash → announcing peers and first-seen time. */
  private readonly waitlist = new Map<string, { time: number; peers: Map<string, Meta> }>();
  /** Stage 2/3: per peer the hashes it announced (for scheduling and DoS counts). */
  private readonly announces = new Map<string, Map<string, Meta>>();
  /** Stage 2: hash → peers it can be fetched from. */
  private readonly announced = new Map<string, Set<string>>();
  /** Stage 3: hash → peer it is being fetched from, and the other announcers as alternates. */
  private readonly fetching = new Map<string, string>();
  private readonly alternates = new Map<string, Set<string>>();
  private readonly requests = new Map<string, { hashes: Uint8Array[]; time: number }>();
  private readonly underpriced = new Map<string, number>();

  constructor(
    private readonly opts: { readonly disableTxPoolGossip: boolean },
    private readonly deps: TxFetcherDeps,
  ) {}

  /** Stats for tests and metrics. */
  get stats(): { waiting: number; queued: number; fetching: number; requests: number } {
    return {
      waiting: this.waitlist.size,
      queued: this.announced.size,
      fetching: this.fetching.size,
      requests: this.requests.size,
    };
  }

  private slots(peer: string): number {
    let n = this.announces.get(peer)?.size ?? 0;
    for (const w of this.waitlist.values()) if (w.peers.has(peer)) n++;
    return n;
  }

  private isUnderpriced(key: string, now: number): boolean {
    const t = this.underpriced.get(key);
    if (t === undefined) return false;
    if (now - t > TX_UNDERPRICED_TIMEOUT_MS) {
      this.underpriced.delete(key);
      return false;
    }
    return true;
  }

  /** A NewPooledTransactionHashes from `peer` (already length-checked by the decoder). */
  notify(peer: string, types: Uint8Array, sizes: readonly number[], hashes: readonly Uint8Array[]): void {
    if (this.opts.disableTxPoolGossip) return;
    const now = this.deps.now();
    let used = this.slots(peer);
    for (let i = 0; i < hashes.length; i++) {
      const hash = hashes[i];
      const key = bytesKey(hash);
      if (this.deps.isKnown(hash) || this.isUnderpriced(key, now)) continue;
      const meta: Meta = { hash, type: types[i], size: sizes[i] };
      const mine = this.announces.get(peer);
      if (mine?.has(key) || this.waitlist.get(key)?.peers.has(peer)) continue;
      // SPEC: geth drops announcements past maxTxAnnounces per peer (DoS protection).
      if (used >= MAX_TX_ANNOUNCES) break;
      used++;
      if (this.fetching.has(key) || this.announced.has(key)) {
        this.track(peer, key, meta);
        if (this.fetching.has(key)) this.alternates.get(key)?.add(peer);
        else this.announced.get(key)?.add(peer);
        continue;
      }
      const w = this.waitlist.get(key);
      if (w !== undefined) w.peers.set(peer, meta);
      else this.waitlist.set(key, { time: now, peers: new Map([[peer, meta]]) });
    }
    this.step();
  }

  private track(peer: string, key: string, meta: Meta): void {
    let m = this.announces.get(peer);
    if (m === undefined) this.announces.set(peer, (m = new Map()));
    m.set(key, meta);
  }

  /** Moves expired waits into the queue, times out requests, and schedules fetches to idle peers. */
  step(): void {
    const now = this.deps.now();
    for (const [key, w] of this.waitlist) {
      if (now - w.time < TX_ARRIVE_TIMEOUT_MS) continue;
      this.waitlist.delete(key);
      const peers = new Set<string>();
      for (const [peer, meta] of w.peers) {
        this.track(peer, key, meta);
        peers.add(peer);
      }
      this.announced.set(key, peers);
    }
    for (const [peer, req] of this.requests) {
      if (now - req.time < TX_FETCH_TIMEOUT_MS) continue;
      // SPEC: a timed-out request is rescheduled to alternates; the slow peer stops being a source.
      this.requests.delete(peer);
      this.unschedule(peer, req.hashes, null);
    }
    this.schedule(now);
  }

  /** Hashes `peer` failed to deliver go back to the queue with the other announcers, or are forgotten. */
  private unschedule(peer: string, hashes: readonly Uint8Array[], delivered: Set<string> | null): void {
    const mine = this.announces.get(peer);
    for (const h of hashes) {
      const key = bytesKey(h);
      if (delivered?.has(key)) continue;
      if (this.fetching.get(key) !== peer) continue;
      this.fetching.delete(key);
      mine?.delete(key);
      const alts = this.alternates.get(key);
      this.alternates.delete(key);
      alts?.delete(peer);
      if (alts !== undefined && alts.size > 0) this.announced.set(key, alts);
      else this.forgetEverywhere(key);
    }
    if (mine?.size === 0) this.announces.delete(peer);
  }

  private schedule(now: number): void {
    for (const [peer, mine] of this.announces) {
      if (this.requests.has(peer)) continue; // one request in flight per peer (geth invariant)
      const hashes: Uint8Array[] = [];
      let bytes = 0;
      for (const [key, meta] of mine) {
        if (hashes.length >= MAX_TX_RETRIEVALS || bytes >= MAX_TX_RETRIEVAL_SIZE) break;
        const from = this.announced.get(key);
        if (from === undefined || this.fetching.has(key)) continue;
        hashes.push(meta.hash);
        bytes += meta.size;
        this.fetching.set(key, peer);
        this.alternates.set(key, from);
        this.announced.delete(key);
      }
      if (hashes.length === 0) continue;
      this.requests.set(peer, { hashes, time: now });
      this.deps.fetchTxs(peer, hashes);
    }
  }

  private forgetEverywhere(key: string): void {
    this.waitlist.delete(key);
    this.announced.delete(key);
    this.alternates.delete(key);
    this.fetching.delete(key);
    for (const [peer, m] of this.announces) {
      m.delete(key);
      if (m.size === 0) this.announces.delete(peer);
    }
  }

  /**
   * Txs that arrived from `peer`: a broadcast (`direct` false) or the answer to our request. Adds them
   * to the pool, then untracks them; on a direct answer, what the peer did not send is rescheduled.
   */
  async enqueue(peer: string, txs: readonly Uint8Array[], direct: boolean): Promise<void> {
    if (this.opts.disableTxPoolGossip) return;
    const hashes = txs.map(wireTxHash);
    const keys = hashes.map(bytesKey);
    // SPEC: geth Enqueue checks a direct delivery against what the peer announced: a different type
    // or size is a protocol violation.
    let violation: string | null = null;
    const mine = this.announces.get(peer);
    for (let i = 0; i < txs.length && direct; i++) {
      const meta = mine?.get(keys[i]);
      if (meta === undefined) continue;
      if (meta.type !== txType(txs[i])) violation = `announced tx type ${meta.type} != delivered ${txType(txs[i])}`;
      else if (meta.size !== txs[i].length) violation = `announced tx size ${meta.size} != delivered ${txs[i].length}`;
      if (violation !== null) break;
    }
    const outcomes = txs.length > 0 ? await this.deps.addTxs([...txs]) : [];
    const now = this.deps.now();
    for (let i = 0; i < outcomes.length; i++) {
      const code = outcomes[i].error?.code;
      if (code === "UNDERPRICED" || code === "REPLACE_UNDERPRICED") {
        if (this.underpriced.size >= MAX_TX_UNDERPRICED) {
          this.underpriced.delete(this.underpriced.keys().next().value as string);
        }
        this.underpriced.set(keys[i], now);
      }
    }
    const delivered = new Set(keys);
    // Delivered (accepted or refused): nobody needs to fetch it any more. Another peer's request for
    // it stays in flight; its answer then finds the hash untracked.
    for (const key of keys) this.forgetEverywhere(key);
    if (direct) {
      const req = this.requests.get(peer);
      if (req !== undefined) {
        this.requests.delete(peer);
        this.unschedule(peer, req.hashes, delivered);
      }
    }
    if (violation !== null) {
      this.dropPeer(peer);
      this.deps.dropPeer(peer, violation);
      return;
    }
    this.step();
  }

  /** Forgets a disconnected peer; its in-flight hashes go to alternates. */
  dropPeer(peer: string): void {
    const req = this.requests.get(peer);
    this.requests.delete(peer);
    if (req !== undefined) this.unschedule(peer, req.hashes, null);
    for (const [key, w] of this.waitlist) {
      w.peers.delete(peer);
      if (w.peers.size === 0) this.waitlist.delete(key);
    }
    const mine = this.announces.get(peer);
    this.announces.delete(peer);
    if (mine !== undefined) {
      for (const key of mine.keys()) {
        const from = this.announced.get(key);
        if (from === undefined) continue;
        from.delete(peer);
        if (from.size === 0) this.announced.delete(key);
      }
    }
    for (const alts of this.alternates.values()) alts.delete(peer);
  }
}

function txType(env: Uint8Array): number {
  return env[0] >= 0xc0 ? TxType.Legacy : env[0];
}
