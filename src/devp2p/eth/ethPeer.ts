/**
 * One `eth` peer over an `EthSession`: the Status handshake with a timeout, serving the peer's
 * requests, our requests matched by request id (EIP-2481) with per-request timeouts and a
 * concurrency limit, tx gossip into the fetcher and broadcaster, and disconnects with geth's reasons
 * for anything malformed (SPEC: devp2p caps/eth.md; geth eth/protocols/eth handler.go, handlers.go,
 * handshake.go).
 */
import type { BlockBody } from "../../block/block.js";
import type { Header } from "../../block/header.js";
import type { Receipt } from "../../block/receipt.js";
import { keccak256 } from "../../crypto/keccak.js";
import { equalBytes } from "../../primitives/bytes.js";
import { type Logger, SILENT_LOGGER } from "../../util/log.js";
import { DisconnectReason } from "../rlpx/p2pMessages.js";
import {
  decodeEthMessage,
  type EthMessage,
  EthMsg,
  type EthVersion,
  encodeBlockBodies,
  encodeBlockHeaders,
  encodeBlockRangeUpdate,
  encodeGetBlockHeaders,
  encodeHashesRequest,
  encodePooledTransactions,
  encodeReceiptsRaw,
  encodeStatus,
  type HeaderOrigin,
  isDecodeError,
  type Status,
} from "./messages.js";
import type { EthServer } from "./server.js";
import { type EthSession, type EthTimers, NODE_TIMERS } from "./session.js";
import type { StatusError } from "./status.js";
import { validateBlockRange } from "./status.js";
import { KnownCache, type TxFetcher, type TxPeerQueue } from "./txAnnounce.js";

/** geth handshake.go handshakeTimeout. */
export const HANDSHAKE_TIMEOUT_MS = 5000;
/**
 * Time a peer has to answer one request. Chosen here: geth's downloader adapts its TTL from measured
 * round trips up to a 1 min cap (ttlLimit) and reth uses 20 s; 15 s sits between a slow peer serving
 * 2 MiB and a stalled one.
 */
export const REQUEST_TIMEOUT_MS = 15_000;
/**
 * Requests in flight per peer; more wait in a queue. Chosen here: geth's downloader keeps one
 * request per peer per data kind (headers, bodies, receipts), so three are enough for one syncer,
 * and a fourth slot leaves room for the tx fetcher.
 */
export const MAX_CONCURRENT_REQUESTS = 4;

/** Our side of the handshake (`StatusProvider` satisfies it). */
export interface StatusSource {
  status(version: EthVersion): Status;
  validate(version: EthVersion, s: Status): StatusError | null;
}

export type EthRequestFailure = "timeout" | "closed" | "bad-response";

export class EthRequestError extends Error {
  override readonly name = "EthRequestError";
  constructor(
    readonly kind: EthRequestFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Raised by `handshake()` when the peer's Status is refused or never comes. */
export class EthHandshakeError extends Error {
  override readonly name = "EthHandshakeError";
  constructor(
    readonly reason: number,
    message: string,
  ) {
    super(message);
  }
}

export interface HeadersRequest {
  readonly origin: Uint8Array | number;
  readonly amount: number;
  readonly skip?: number;
  readonly reverse?: boolean;
}

export interface HeadersResult {
  readonly headers: readonly Header[];
  /** Each header's RLP (its hash is keccak256 of it). */
  readonly rlp: readonly Uint8Array[];
}

export interface BodiesResult {
  readonly bodies: readonly BlockBody[];
  readonly rlp: readonly Uint8Array[];
}

export interface EthPeerOptions {
  readonly version: EthVersion;
  readonly handshakeTimeoutMs?: number | undefined;
  readonly requestTimeoutMs?: number | undefined;
  readonly maxConcurrentRequests?: number | undefined;
  /** op-geth `--rollup.disabletxpoolgossip`: ignore tx messages, serve no pooled txs, announce nothing. */
  readonly disableTxPoolGossip?: boolean | undefined;
}

export interface EthPeerDeps {
  readonly session: EthSession;
  readonly status: StatusSource;
  /** Serves the peer's requests; null answers every request empty. */
  readonly server: EthServer | null;
  /** The node's tx fetcher (announcements and deliveries go there); null: tx messages are ignored. */
  readonly fetcher?: TxFetcher | null | undefined;
  /** This peer's broadcast queue (known-tx marks); from `TxBroadcaster.addPeer`. */
  readonly txQueue?: TxPeerQueue | null | undefined;
  readonly timers?: EthTimers | undefined;
  readonly log?: Logger | undefined;
  /** Told when the peer is dropped for misbehaviour (peer scoring). */
  readonly onMisbehaviour?: ((peer: EthPeer, reason: string) => void) | undefined;
}

interface Pending {
  readonly want: number;
  readonly onResponse: (m: EthMessage) => string | null;
  readonly reject: (e: EthRequestError) => void;
  timer: unknown;
}

/** How many timed-out request ids are remembered so their late answers are dropped quietly. */
const EXPIRED_IDS = 256;

export class EthPeer {
  readonly version: EthVersion;
  readonly id: string;
  /** The peer's Status once the handshake passed. */
  remoteStatus: Status | null = null;
  /** eth/69: the peer's served block range (from Status, then BlockRangeUpdate). */
  range: { earliest: number; latest: number; latestHash: Uint8Array } | null = null;
  /** Set once closed; the reason our side gave, if it was us. */
  closed: { reason: number | null; detail: string } | null = null;

  private readonly session: EthSession;
  private readonly timers: EthTimers;
  private readonly log: Logger;
  private readonly handshakeTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly maxConcurrent: number;
  /** Tx messages go to the fetcher (gossip on and a fetcher given). */
  private readonly gossip: boolean;
  /** GetPooledTransactions is answered from the pool (op-geth serves a NilPool with gossip off). */
  private readonly serveTxs: boolean;
  private nextId: bigint;
  private readonly pending = new Map<bigint, Pending>();
  private readonly waiting: (() => void)[] = [];
  private readonly expired = new KnownCache(EXPIRED_IDS);
  private handshakeDone: Promise<Status> | null = null;
  private handshakeSettle: { resolve: (s: Status) => void; reject: (e: Error) => void; timer: unknown } | null = null;
  private earlyStatus: Status | null = null;

  constructor(
    opts: EthPeerOptions,
    private readonly deps: EthPeerDeps,
  ) {
    this.version = opts.version;
    this.session = deps.session;
    this.id = deps.session.id;
    this.timers = deps.timers ?? NODE_TIMERS;
    this.log = deps.log ?? SILENT_LOGGER;
    this.handshakeTimeoutMs = opts.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    this.maxConcurrent = opts.maxConcurrentRequests ?? MAX_CONCURRENT_REQUESTS;
    this.serveTxs = !(opts.disableTxPoolGossip ?? false);
    this.gossip = this.serveTxs && (deps.fetcher ?? null) !== null;
    // Request ids: a random start, then sequential (geth draws each at random; uniqueness is what matters).
    this.nextId = BigInt(Math.floor(Math.random() * 0x7fffffff));
    this.session.onMessage((code, payload) => this.onMessage(code, payload));
    this.session.onClose((reason) => this.onClose(reason));
  }

  /** Sends our Status and waits for the peer's (geth Handshake): resolves with it, or rejects after disconnecting. */
  handshake(): Promise<Status> {
    if (this.handshakeDone !== null) return this.handshakeDone;
    this.handshakeDone = new Promise<Status>((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        this.fail(DisconnectReason.PingTimeout, "read timeout");
      }, this.handshakeTimeoutMs);
      this.handshakeSettle = { resolve, reject, timer };
    });
    this.session.send(EthMsg.Status, encodeStatus(this.deps.status.status(this.version)));
    if (this.earlyStatus !== null) this.acceptStatus(this.earlyStatus);
    return this.handshakeDone;
  }

  private acceptStatus(s: Status): void {
    const err = this.deps.status.validate(this.version, s);
    if (err !== null) {
      this.fail(DisconnectReason.SubprotocolError, err.message);
      return;
    }
    this.remoteStatus = s;
    if (s.form !== 68) this.range = { earliest: s.earliest, latest: s.latest, latestHash: s.latestHash };
    const settle = this.handshakeSettle;
    this.handshakeSettle = null;
    if (settle !== null) {
      this.timers.clearTimeout(settle.timer);
      settle.resolve(s);
    }
  }

  /** Disconnects for misbehaviour: the reason goes to the session, scoring and any waiting promise. */
  fail(reason: DisconnectReason, detail: string): void {
    if (this.closed !== null) return;
    this.log.debug("Dropping eth peer", { peer: this.id, reason, detail });
    this.closed = { reason, detail };
    if (reason !== DisconnectReason.Requested && reason !== DisconnectReason.ClientQuitting) {
      this.deps.onMisbehaviour?.(this, detail);
    }
    this.session.disconnect(reason, detail);
    this.teardown(detail);
  }

  /** A caller (the syncer) found this peer's data wrong after the fact: drop it with that reason. */
  misbehaved(detail: string): void {
    this.fail(DisconnectReason.SubprotocolError, detail);
  }

  /** Leaves politely (shutdown, peer limits). */
  close(reason: DisconnectReason = DisconnectReason.Requested): void {
    if (this.closed !== null) return;
    this.closed = { reason, detail: "closed" };
    this.session.disconnect(reason, "closed");
    this.teardown("closed");
  }

  private onClose(reason: number | null): void {
    if (this.closed === null) this.closed = { reason, detail: "session closed" };
    // A disconnect of ours closes the session synchronously: keep the reason we gave.
    this.teardown(this.closed.detail);
  }

  private teardown(detail: string): void {
    const settle = this.handshakeSettle;
    this.handshakeSettle = null;
    if (settle !== null) {
      this.timers.clearTimeout(settle.timer);
      settle.reject(new EthHandshakeError(this.closed?.reason ?? DisconnectReason.TcpError, detail));
    }
    for (const [id, p] of this.pending) {
      this.timers.clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new EthRequestError("closed", `peer closed: ${detail}`));
    }
    this.waiting.length = 0;
    this.deps.fetcher?.dropPeer(this.id);
  }

  // ---- inbound ------------------------------------------------------------------------------------

  private onMessage(code: number, payload: Uint8Array): void {
    if (this.closed !== null) return;
    const m = decodeEthMessage(this.version, code, payload);
    if (this.remoteStatus === null) {
      if (code !== EthMsg.Status) {
        this.fail(
          DisconnectReason.SubprotocolError,
          `no status message: first msg has code ${code.toString(16)} (!= 0)`,
        );
        return;
      }
      if (isDecodeError(m)) {
        this.fail(DisconnectReason.SubprotocolError, m.reason);
        return;
      }
      if (this.handshakeSettle === null && this.handshakeDone === null) {
        this.earlyStatus = m as Status;
        return;
      }
      this.acceptStatus(m as Status);
      return;
    }
    if (isDecodeError(m)) {
      this.fail(DisconnectReason.SubprotocolError, m.reason);
      return;
    }
    this.handle(m);
  }

  private handle(m: EthMessage): void {
    switch (m.code) {
      case EthMsg.Status:
        this.fail(DisconnectReason.SubprotocolError, "extra status message");
        return;
      // SPEC: post-merge geth refuses block propagation (handlers.go): every OP chain is post-merge.
      case EthMsg.NewBlockHashes:
        this.fail(DisconnectReason.SubprotocolError, "block announcements disallowed");
        return;
      case EthMsg.NewBlock:
        this.fail(DisconnectReason.SubprotocolError, "block broadcasts disallowed");
        return;
      case EthMsg.BlockRangeUpdate: {
        const bad = validateBlockRange(m.earliest, m.latest, m.latestHash);
        if (bad !== null) {
          this.fail(DisconnectReason.SubprotocolError, `invalid block range update: ${bad}`);
          return;
        }
        this.range = { earliest: m.earliest, latest: m.latest, latestHash: m.latestHash };
        return;
      }
      case EthMsg.Transactions: {
        if (!this.gossip) return; // op-geth AcceptTxs() is false with gossip disabled: dropped silently
        for (const tx of m.txs) this.deps.txQueue?.markKnown(keccak256(tx));
        void this.deps.fetcher?.enqueue(this.id, m.txs, false);
        return;
      }
      case EthMsg.NewPooledTransactionHashes: {
        if (!this.gossip) return;
        for (const h of m.hashes) this.deps.txQueue?.markKnown(h);
        this.deps.fetcher?.notify(this.id, m.types, m.sizes, m.hashes);
        return;
      }
      case EthMsg.GetBlockHeaders: {
        const rlp = this.deps.server?.headers(m) ?? [];
        this.session.send(EthMsg.BlockHeaders, encodeBlockHeaders(m.requestId, rlp));
        return;
      }
      case EthMsg.GetBlockBodies: {
        const rlp = this.deps.server?.bodies(m.hashes) ?? [];
        this.session.send(EthMsg.BlockBodies, encodeBlockBodies(m.requestId, rlp));
        return;
      }
      case EthMsg.GetReceipts: {
        const lists = this.deps.server?.receipts(this.version, m.hashes) ?? [];
        this.session.send(EthMsg.Receipts, encodeReceiptsRaw(m.requestId, lists));
        return;
      }
      case EthMsg.GetPooledTransactions: {
        const found =
          this.serveTxs && this.deps.server ? this.deps.server.pooledTxs(m.hashes) : { hashes: [], txs: [] };
        for (const h of found.hashes) this.deps.txQueue?.markKnown(h);
        this.session.send(EthMsg.PooledTransactions, encodePooledTransactions(m.requestId, found.txs));
        return;
      }
      case EthMsg.BlockHeaders:
      case EthMsg.BlockBodies:
      case EthMsg.Receipts:
      case EthMsg.PooledTransactions:
        this.dispatchResponse(m.requestId, m);
        return;
    }
  }

  private dispatchResponse(id: bigint, m: EthMessage): void {
    const p = this.pending.get(id);
    if (p === undefined) {
      // A late answer to a request we gave up on is dropped; any other id was never asked for.
      if (this.expired.has(id.toString())) return;
      this.fail(DisconnectReason.SubprotocolError, `unrequested response: id ${id} code ${m.code}`);
      return;
    }
    if (p.want !== m.code) {
      this.fail(DisconnectReason.SubprotocolError, `response type mismatch: want ${p.want}, got ${m.code}`);
      return;
    }
    this.pending.delete(id);
    this.timers.clearTimeout(p.timer);
    const bad = p.onResponse(m);
    this.release();
    if (bad !== null) {
      p.reject(new EthRequestError("bad-response", bad));
      this.fail(DisconnectReason.SubprotocolError, bad);
    }
  }

  // ---- outbound requests ----------------------------------------------------------------------------

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
  }

  /**
   * Sends a request when a slot is free. `onResponse` returns null on an acceptable answer (and
   * resolves the caller's promise itself) or the reason the answer is a protocol violation.
   */
  private request<T>(
    code: number,
    want: number,
    payload: (id: bigint) => Uint8Array,
    check: (m: EthMessage) => T | string,
  ): Promise<T> {
    if (this.closed !== null) return Promise.reject(new EthRequestError("closed", "peer closed"));
    if (this.remoteStatus === null) return Promise.reject(new EthRequestError("closed", "handshake not done"));
    return new Promise<T>((resolve, reject) => {
      const start = (): void => {
        if (this.closed !== null) {
          reject(new EthRequestError("closed", "peer closed"));
          return;
        }
        const id = this.nextId++;
        const pending: Pending = {
          want,
          reject,
          timer: null,
          onResponse: (m) => {
            const r = check(m);
            if (typeof r === "string") return r;
            resolve(r);
            return null;
          },
        };
        pending.timer = this.timers.setTimeout(() => {
          if (!this.pending.delete(id)) return;
          this.expired.add(id.toString());
          this.release();
          reject(new EthRequestError("timeout", `request ${id} (code ${code}) timed out`));
        }, this.requestTimeoutMs);
        this.pending.set(id, pending);
        this.session.send(code, payload(id));
      };
      if (this.pending.size < this.maxConcurrent) start();
      else this.waiting.push(start);
    });
  }

  /** Requests in flight and queued (for peer selection). */
  get load(): number {
    return this.pending.size + this.waiting.length;
  }

  /**
   * GetBlockHeaders. The answer must hold at most `amount` headers, the first one the origin and the
   * rest spaced by `skip` in the requested direction; otherwise the peer is dropped.
   */
  requestHeaders(q: HeadersRequest): Promise<HeadersResult> {
    const skip = q.skip ?? 0;
    const reverse = q.reverse ?? false;
    const origin: HeaderOrigin = typeof q.origin === "number" ? BigInt(q.origin) : q.origin;
    return this.request(
      EthMsg.GetBlockHeaders,
      EthMsg.BlockHeaders,
      (requestId) =>
        encodeGetBlockHeaders({ requestId, origin, amount: BigInt(q.amount), skip: BigInt(skip), reverse }),
      (m) => {
        if (m.code !== EthMsg.BlockHeaders || m.decoded === undefined) return "bad headers response";
        const hs = m.decoded;
        if (hs.length > q.amount) return `headers response too long: ${hs.length} > ${q.amount}`;
        if (hs.length > 0) {
          const first = hs[0];
          const ok =
            typeof q.origin === "number" ? first.number === q.origin : equalBytes(keccak256(m.headers[0]), q.origin);
          if (!ok) return "headers response does not start at the requested origin";
          for (let i = 1; i < hs.length; i++) {
            const want = reverse ? hs[i - 1].number - (skip + 1) : hs[i - 1].number + skip + 1;
            if (hs[i].number !== want) return `headers response out of sequence at ${i}`;
            if (skip === 0) {
              const linked = reverse
                ? equalBytes(hs[i - 1].parentHash, keccak256(m.headers[i]))
                : equalBytes(hs[i].parentHash, keccak256(m.headers[i - 1]));
              if (!linked) return `headers response not a chain at ${i}`;
            }
          }
        }
        return { headers: hs, rlp: m.headers };
      },
    );
  }

  /** GetBlockBodies: at most one body per hash, in order (the caller matches them to headers). */
  requestBodies(hashes: readonly Uint8Array[]): Promise<BodiesResult> {
    return this.request(
      EthMsg.GetBlockBodies,
      EthMsg.BlockBodies,
      (id) => encodeHashesRequest(id, hashes),
      (m) => {
        if (m.code !== EthMsg.BlockBodies || m.decoded === undefined) return "bad bodies response";
        if (m.bodies.length > hashes.length) return `bodies response too long: ${m.bodies.length} > ${hashes.length}`;
        return { bodies: m.decoded, rlp: m.bodies };
      },
    );
  }

  /** GetReceipts: one receipt list per block, in order (blooms recomputed for eth/69). */
  requestReceipts(hashes: readonly Uint8Array[]): Promise<readonly (readonly Receipt[])[]> {
    return this.request(
      EthMsg.GetReceipts,
      EthMsg.Receipts,
      (id) => encodeHashesRequest(id, hashes),
      (m) => {
        if (m.code !== EthMsg.Receipts) return "bad receipts response";
        if (m.receipts.length > hashes.length) {
          return `receipts response too long: ${m.receipts.length} > ${hashes.length}`;
        }
        return m.receipts;
      },
    );
  }

  /** GetPooledTransactions: envelopes of the hashes the peer still has. Unrequested txs drop the peer. */
  requestPooledTxs(hashes: readonly Uint8Array[]): Promise<readonly Uint8Array[]> {
    return this.request(
      EthMsg.GetPooledTransactions,
      EthMsg.PooledTransactions,
      (id) => encodeHashesRequest(id, hashes),
      (m) => {
        if (m.code !== EthMsg.PooledTransactions) return "bad pooled transactions response";
        if (m.txs.length > hashes.length) return `pooled txs response too long: ${m.txs.length} > ${hashes.length}`;
        return m.txs;
      },
    );
  }

  /** The fetcher's `fetchTxs` for this peer: request, then hand the answer back as a direct delivery. */
  fetchPooledTxs(hashes: Uint8Array[]): void {
    const fetcher = this.deps.fetcher;
    if (fetcher === undefined || fetcher === null) return;
    this.requestPooledTxs(hashes).then(
      (txs) => fetcher.enqueue(this.id, txs, true),
      () => undefined, // timeouts are the fetcher's own (TX_FETCH_TIMEOUT_MS); closes drop the peer there
    );
  }

  /** eth/69: tells the peer our served range changed (geth sends about every two minutes, EIP-7642). */
  sendBlockRangeUpdate(earliest: number, latest: number, latestHash: Uint8Array): void {
    if (this.version !== 69 || this.closed !== null) return;
    this.session.send(EthMsg.BlockRangeUpdate, encodeBlockRangeUpdate({ earliest, latest, latestHash }));
  }
}
