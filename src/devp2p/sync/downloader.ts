/**
 * The execution-layer downloader (geth's beacon sync, reth's headers → bodies → execution pipeline,
 * simplified): given a target head the consensus side names (engine_forkchoiceUpdated to a block the
 * node lacks, extended by engine_newPayload), it
 *  1. downloads headers backwards from the target to a block the node has executed, in chunks asked
 *     of several peers at once, each chunk linked by parent hash to the one above it (a chunk that
 *     does not link is its peer's lie: the peer is dropped and the range asked again elsewhere);
 *  2. downloads the bodies forwards, checks each against its header's tx, ommers and withdrawals
 *     commitments (bodyCheck.ts; a mismatch drops the peer), and
 *  3. executes them in order through `Blockchain.insertBlockSliced`, making each batch canonical with
 *     `setHead`, and on reaching the target applies the forkchoice (head, safe, finalized).
 * Linked headers and the range are on disk (skeleton.ts), so after a restart `resume()` continues
 * where it stopped; executed blocks are the chain's own. Requests carry a deadline; a slow peer rests.
 */

import { type BlockBody, decodeBody, encodeBlock } from "../../block/block.js";
import { decodeHeader, type Header } from "../../block/header.js";
import type { Blockchain, HeadChange } from "../../chain/blockchain.js";
import { keccak256 } from "../../crypto/keccak.js";
import { bytesKey, equalBytes, isZeroBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { WriteBatch } from "../../storage/kv.js";
import { type Logger, SILENT_LOGGER } from "../../util/log.js";
import { bodyMismatch } from "./bodyCheck.js";
import { ProgressMeter } from "./progressMeter.js";
import { Skeleton, type SkeletonHeader, type SkeletonState } from "./skeleton.js";
import { PeerFault, type SyncPeer } from "./syncPeer.js";

export interface DownloaderOptions {
  /**
   * Headers per request: 192, geth's skeleton asks 512 and eth peers serve up to 1024 (geth
   * MaxHeadersServe); smaller chunks spread one target's range over more peers at once.
   */
  readonly headerBatch: number;
  /** Bodies per request: 64, half of geth's MaxBlockFetch (128), so 2 MiB soft-limited answers come whole. */
  readonly bodyBatch: number;
  /** Blocks executed between head updates (one canonical-index batch each): 128. */
  readonly commitBatch: number;
  /** Deadline of one request: 10 s (geth's downloader starts at 5 s and stretches to 30 s by peer RTT). */
  readonly requestTimeoutMs: number;
  /** Bodies held ahead of execution at most (bounds memory while one slow range is re-asked): 2048. */
  readonly maxBlocksAhead: number;
  /** Header chunks received or in flight ahead of the linked tail at most: 16. */
  readonly maxHeaderChunksAhead: number;
  /** Interval of the progress lines: 8 s (geth's "Syncing: chain download in progress" every 8 s). */
  readonly progressIntervalMs: number;
}

export const DEFAULT_DOWNLOADER_OPTIONS: DownloaderOptions = Object.freeze({
  headerBatch: 192,
  bodyBatch: 64,
  commitBatch: 128,
  requestTimeoutMs: 10_000,
  maxBlocksAhead: 2048,
  maxHeaderChunksAhead: 16,
  progressIntervalMs: 8_000,
});

export interface DownloaderDeps {
  readonly chain: Blockchain;
  readonly log?: Logger;
  /** Clock in ms (tests). */
  readonly now?: () => number;
}

/** What eth_syncing reports (rpc/eth/api.ts adds geth's snap fields as zero). */
export interface SyncProgress {
  readonly startingBlock: number;
  readonly currentBlock: number;
  readonly highestBlock: number;
  /** Headers linked so far below the target (the skeleton). */
  readonly headersDownloaded: number;
}

/** A target whose chain holds an invalid block: forkchoice to it answers INVALID. */
export interface InvalidTarget {
  readonly latestValidHash: Uint8Array | null;
  readonly error: string;
}

type PhaseResult = "again" | "done" | "failed" | "stopped";

interface PeerEntry {
  readonly peer: SyncPeer;
  busy: boolean;
  strikes: number;
  restUntil: number;
}

interface HeaderChunk {
  readonly peer: PeerEntry;
  readonly headers: Header[];
  readonly hashes: Uint8Array[];
  readonly rlps: Uint8Array[];
}

interface Range {
  /** headers: highest number (asked in reverse); bodies: lowest number. */
  readonly at: number;
  readonly count: number;
}

/** Remote headers kept from newPayload for a forkchoice to name later (geth's remoteBlocks: 10; OP blocks come every 2 s). */
const REMOTE_HEADERS = 256;
/** A peer rests 0.5 s × 2^strikes after a slow answer, at most 30 s. */
const REST_BASE_MS = 500;
const REST_MAX_MS = 30_000;
/** The run loop re-checks at least this often when nothing wakes it. */
const IDLE_WAIT_MS = 250;
/** A forkchoice's "no safe / finalized block". */
const ZERO_HASH = new Uint8Array(32);

export class Downloader {
  /** Told about head changes the sync makes (the node's fan-out: pool reset, subscriptions). */
  onHead: ((change: HeadChange) => void) | null = null;

  private readonly opts: DownloaderOptions;
  private readonly chain: Blockchain;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly skeleton: Skeleton;
  private readonly peers = new Map<string, PeerEntry>();
  private readonly remote = new Map<string, Uint8Array>();
  private readonly invalid = new Map<string, InvalidTarget>();
  private readonly meter: ProgressMeter;
  private state: SkeletonState | null;
  /** A target named by hash only: its header is asked of peers first. */
  private pending: { hash: Uint8Array; safe: Uint8Array; finalized: Uint8Array; startingBlock: number } | null = null;
  /** Bumped by every new target: work of an older generation is dropped. */
  private generation = 0;
  private running: Promise<void> | null = null;
  private stopped = false;
  private wakeUp: (() => void) | null = null;
  /** Counters for tests and metrics: headers linked, bodies accepted, blocks executed. */
  readonly counters = { headers: 0, bodies: 0, executed: 0 };
  /** Set once the consensus client has named a head or sent a payload: its heads rule from then on. */
  private consensusSpoke = false;
  private followTimer: ReturnType<typeof setInterval> | null = null;
  /** The peer head the last follow step aimed at (logged once per target). */
  private followed: Uint8Array | null = null;

  constructor(opts: Partial<DownloaderOptions>, deps: DownloaderDeps) {
    this.opts = { ...DEFAULT_DOWNLOADER_OPTIONS, ...opts };
    this.chain = deps.chain;
    this.log = deps.log ?? SILENT_LOGGER;
    this.now = deps.now ?? Date.now;
    this.skeleton = new Skeleton(this.chain.kv);
    this.state = this.skeleton.load();
    this.meter = new ProgressMeter(this.log, this.opts.progressIntervalMs, this.now);
  }

  // ---- peers -------------------------------------------------------------------------------------

  addPeer(peer: SyncPeer): void {
    if (!this.peers.has(peer.id)) this.peers.set(peer.id, { peer, busy: false, strikes: 0, restUntil: 0 });
    this.wake();
  }

  removePeer(id: string): void {
    this.peers.delete(id);
  }

  get peerCount(): number {
    return this.peers.size;
  }

  /** The highest head a peer has announced with its number (eth/69 Status or BlockRangeUpdate), or null. */
  bestPeerHead(): { hash: Uint8Array; number: number } | null {
    let best: { hash: Uint8Array; number: number } | null = null;
    for (const e of this.peers.values()) {
      const h = e.peer.head;
      if (h.number !== null && (best === null || h.number > best.number)) best = { hash: h.hash, number: h.number };
    }
    return best;
  }

  // ---- before a consensus client speaks ------------------------------------------------------------

  /**
   * Follows the peers' best head until the consensus client speaks (`--sync.followpeers`): every
   * `intervalMs`, when no sync runs and an eth/69 peer announces a block above the local head, a
   * sync towards that head starts as a forkchoice without safe or finalized block would (geth's
   * full sync before the merge, reth's `--debug.tip` from the peers). Blocks are still checked
   * against their headers and executed to their state roots; which chain is canonical stays the
   * consensus client's call — its first forkchoice ends following, and moves the head if it differs.
   */
  followPeers(intervalMs: number): void {
    if (this.followTimer !== null || this.consensusSpoke) return;
    this.followTimer = setInterval(() => this.followStep(), intervalMs);
    this.followTimer.unref();
  }

  /** The consensus client named a head or sent a payload: peer-following ends for good. */
  consensusSpeaks(): void {
    if (this.consensusSpoke) return;
    this.consensusSpoke = true;
    if (this.followTimer !== null) {
      clearInterval(this.followTimer);
      this.followTimer = null;
      this.log.info("Consensus client active, no longer following peers' heads");
    }
  }

  /** One follow step (the timer's; tests call it directly). True when it started a sync. */
  followStep(): boolean {
    if (this.consensusSpoke || this.stopped || this.syncing) return false;
    const best = this.bestPeerHead();
    if (best === null || best.number <= this.chain.head.number) return false;
    if (this.invalid.has(bytesKey(best.hash))) return false;
    if (this.followed === null || !equalBytes(this.followed, best.hash)) {
      this.followed = best.hash;
      this.log.info("No consensus client yet, following the best peer's head", {
        number: best.number,
        hash: best.hash,
        head: this.chain.head.number,
      });
    }
    this.startSync(best.hash, ZERO_HASH, ZERO_HASH);
    return true;
  }

  // ---- what the Engine API calls -----------------------------------------------------------------

  /** True while a sync is under way (a target set and not yet reached). */
  get syncing(): boolean {
    return this.state !== null || this.pending !== null;
  }

  /** The hash the sync is heading for, or null. */
  get target(): Uint8Array | null {
    return this.pending?.hash ?? this.state?.top ?? null;
  }

  /**
   * Starts (or moves) a sync towards `head`, the forkchoice's head the node lacks; `safe` and
   * `finalized` (zero: none) are applied when it gets there (geth `BeaconSync` from
   * forkchoiceUpdated). A head whose header came with newPayload needs no network to start.
   */
  sync(head: Uint8Array, safe: Uint8Array, finalized: Uint8Array): void {
    this.consensusSpeaks();
    this.startSync(head, safe, finalized);
  }

  private startSync(head: Uint8Array, safe: Uint8Array, finalized: Uint8Array): void {
    if (this.stopped || this.invalid.has(bytesKey(head))) return;
    const s = this.state;
    if (s !== null && equalBytes(s.top, head) && this.pending === null) {
      if (!equalBytes(s.safe, safe) || !equalBytes(s.finalized, finalized)) {
        this.persist(new WriteBatch(), { ...s, safe, finalized });
      }
      this.ensureRunning();
      return;
    }
    if (this.pending !== null && equalBytes(this.pending.hash, head)) {
      this.pending = { ...this.pending, safe, finalized };
      this.ensureRunning();
      return;
    }
    const startingBlock = s?.startingBlock ?? this.pending?.startingBlock ?? this.chain.head.number;
    const rlp = this.remote.get(bytesKey(head)) ?? this.chain.store.headerRlp(head) ?? null;
    if (rlp === null) {
      this.pending = { hash: head, safe, finalized, startingBlock };
      this.generation++;
      this.log.info("Sync target header unknown, asking peers", { hash: head });
    } else {
      this.retarget(rlp, head, safe, finalized, startingBlock);
    }
    this.ensureRunning();
  }

  /**
   * A payload whose parent the node lacks (geth `BeaconExtend` from newPayload): its header is kept
   * for a later forkchoice, and a running sync whose target is its parent moves up to it. Returns
   * whether a sync is running.
   */
  extend(headerRlp: Uint8Array): boolean {
    const hash = keccak256(headerRlp);
    this.remember(hash, headerRlp);
    const s = this.state;
    if (s === null || this.pending !== null || this.stopped) return this.syncing;
    const header = decodeHeader(headerRlp);
    if (header.number === s.topNumber + 1 && equalBytes(header.parentHash, s.top)) {
      this.retarget(headerRlp, hash, s.safe, s.finalized, s.startingBlock);
      this.ensureRunning();
    }
    return true;
  }

  /** Why forkchoice to `hash` must answer INVALID: a sync towards it met an invalid block. */
  invalidTarget(hash: Uint8Array): InvalidTarget | null {
    return this.invalid.get(bytesKey(hash)) ?? null;
  }

  /**
   * The consensus side moved to a block the node has (forkchoice VALID elsewhere): a sync towards
   * another target is dropped, with its skeleton (geth: a forkchoice to a known head ends the sync).
   */
  abandon(): void {
    if (!this.syncing) return;
    this.log.info("Sync abandoned: forkchoice moved to a known block", { target: this.target });
    this.generation++;
    this.pending = null;
    this.state = null;
    this.skeleton.clear();
    this.wake();
  }

  /** Continues a sync a restart interrupted (its skeleton is on disk); false when there is none. */
  resume(): boolean {
    const s = this.state;
    if (s === null || this.stopped) return false;
    this.log.info("Resuming sync", {
      target: s.topNumber,
      hash: s.top,
      headers: s.complete ? "complete" : `${s.topNumber - s.tail + 1} linked`,
      head: this.chain.head.number,
    });
    this.ensureRunning();
    return true;
  }

  /** eth_syncing's numbers, or null when not syncing. */
  progress(): SyncProgress | null {
    const s = this.state;
    const current = this.chain.head.number;
    if (s === null) {
      const p = this.pending;
      return p === null
        ? null
        : { startingBlock: p.startingBlock, currentBlock: current, highestBlock: current, headersDownloaded: 0 };
    }
    return {
      startingBlock: s.startingBlock,
      currentBlock: current,
      highestBlock: Math.max(s.topNumber, current),
      headersDownloaded: s.topNumber - s.tail + 1,
    };
  }

  /** Resolves when the run loop has nothing more to do (target reached, failed, or stopped). */
  async whenIdle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  /** Stops the run loop after the block in hand; the skeleton stays on disk for `resume()`. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.followTimer !== null) clearInterval(this.followTimer);
    this.followTimer = null;
    this.wake();
    await this.whenIdle();
  }

  // ---- the run loop --------------------------------------------------------------------------------

  private ensureRunning(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.wake();
      return;
    }
    this.running = this.run().finally(() => {
      this.running = null;
    });
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped) {
        const gen = this.generation;
        let r: PhaseResult;
        if (this.pending !== null) r = await this.fetchTarget(gen);
        else if (this.state === null) return;
        else if (!this.state.complete) r = await this.fillHeaders(gen);
        else r = await this.executeForward(gen);
        if (r === "stopped" || r === "failed") return;
        if (r === "done" && gen === this.generation) {
          // Queued behind any chain mutation under way, which may have moved the sync on.
          const finished = await this.chain.exclusive(() => {
            if (gen !== this.generation || this.state === null) return false;
            this.finish();
            return true;
          });
          if (finished) return;
        }
      }
    } catch (e) {
      // The skeleton stays: a later forkchoice or restart resumes from it.
      this.log.error("Sync failed", { err: (e as Error).message });
    }
  }

  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }

  private sleep(ms = IDLE_WAIT_MS): Promise<void> {
    return new Promise((resolve) => {
      // Unref'd: a sync waiting for peers never keeps a process alive on its own.
      const t = setTimeout(() => done(), ms);
      t.unref?.();
      const done = (): void => {
        clearTimeout(t);
        if (this.wakeUp === done) this.wakeUp = null;
        resolve();
      };
      this.wakeUp = done;
    });
  }

  private remember(hash: Uint8Array, rlp: Uint8Array): void {
    const k = bytesKey(hash);
    if (this.remote.has(k)) return;
    if (this.remote.size >= REMOTE_HEADERS) this.remote.delete(this.remote.keys().next().value as string);
    this.remote.set(k, rlp);
  }

  private persist(b: WriteBatch, s: SkeletonState): void {
    this.skeleton.putState(b, s);
    this.chain.kv.write(b);
    this.state = s;
  }

  /**
   * Makes `rlp` (hash `hash`) the new target: a subchain of one header. The current subchain stays
   * as the previous one, for the new one to link to (an extension links at once); headers above the
   * new target are dropped.
   */
  private retarget(
    rlp: Uint8Array,
    hash: Uint8Array,
    safe: Uint8Array,
    finalized: Uint8Array,
    startingBlock: number,
  ): void {
    const n = decodeHeader(rlp).number;
    const old = this.state;
    const b = new WriteBatch();
    let prevTail = 0;
    let prevTop = 0;
    let prevComplete = false;
    if (old !== null) {
      if (old.prevTop > 0) {
        // The current subchain had not linked yet: it is dropped, the older one kept below it.
        prevTail = old.prevTail;
        prevTop = Math.min(old.prevTop, old.tail - 1);
        prevComplete = old.prevComplete;
      } else {
        prevTail = old.tail;
        prevTop = old.topNumber;
        prevComplete = old.complete;
      }
      const highest = Math.max(old.topNumber, prevTop);
      if (highest > n) this.skeleton.deleteRange(b, n + 1, highest);
      prevTop = Math.min(prevTop, n - 1);
      if (prevTop < prevTail) {
        prevTail = 0;
        prevTop = 0;
        prevComplete = false;
      }
    }
    this.skeleton.putHeader(b, n, rlp);
    this.generation++;
    this.pending = null;
    this.persist(b, {
      top: hash,
      topNumber: n,
      tail: n,
      complete: false,
      prevTail,
      prevTop,
      prevComplete,
      safe,
      finalized,
      startingBlock,
    });
    this.log.debug("Sync target set", { number: n, hash });
  }

  /** Where a header whose parent is `parentHash` links: a block executed here, the previous subchain, or nowhere. */
  private linkOf(parentHash: Uint8Array, number: number): "executed" | "prev" | null {
    if (this.chain.store.receiptsRlp(parentHash) !== undefined) return "executed";
    const s = this.state;
    if (s !== null && s.prevTop > 0 && number - 1 >= s.prevTail && number - 1 <= s.prevTop) {
      const h = this.skeleton.header(number - 1);
      if (h !== null && equalBytes(h.hash, parentHash)) return "prev";
    }
    return null;
  }

  /** Applies a link found at the tail into the state written with `b`; returns whether headers are done. */
  private applyLink(b: WriteBatch, s: SkeletonState, tail: number, link: "executed" | "prev" | null): boolean {
    if (link === "executed") {
      this.persist(b, { ...s, tail, complete: true, prevTail: 0, prevTop: 0, prevComplete: false });
      return true;
    }
    if (link === "prev") {
      const next = { ...s, tail: s.prevTail, complete: s.prevComplete, prevTail: 0, prevTop: 0, prevComplete: false };
      this.persist(b, next);
      if (next.complete) return true;
      const t = this.skeleton.header(next.tail);
      if (t !== null && this.linkOf(t.header.parentHash, next.tail) === "executed") {
        this.persist(new WriteBatch(), { ...next, complete: true });
        return true;
      }
      return false;
    }
    this.persist(b, { ...s, tail });
    return false;
  }

  // ---- peers: choice, deadlines, faults ------------------------------------------------------------

  private idlePeer(atLeast: number | null): PeerEntry | null {
    const t = this.now();
    let fallback: PeerEntry | null = null;
    for (const e of this.peers.values()) {
      if (e.busy || e.restUntil > t) continue;
      const n = e.peer.head.number;
      if (atLeast === null || n === null || n >= atLeast) return e;
      fallback ??= e;
    }
    return fallback;
  }

  /** Runs one request with the deadline; null on timeout or rejection (the peer rests). */
  private async ask<T>(e: PeerEntry, f: () => Promise<T>): Promise<T | null> {
    e.busy = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const r = await Promise.race([
        f(),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), this.opts.requestTimeoutMs);
        }),
      ]);
      if (r === null) this.slow(e, "request timed out");
      return r;
    } catch (err) {
      this.slow(e, `request failed: ${(err as Error).message}`);
      return null;
    } finally {
      clearTimeout(timer);
      e.busy = false;
      this.wake();
    }
  }

  private slow(e: PeerEntry, reason: string): void {
    e.strikes++;
    e.restUntil = this.now() + Math.min(REST_MAX_MS, REST_BASE_MS * 2 ** e.strikes);
    e.peer.penalize(PeerFault.Slow, reason);
  }

  private drop(e: PeerEntry, reason: string): void {
    this.log.warn("Dropping sync peer", { peer: e.peer.id, reason });
    this.peers.delete(e.peer.id);
    e.peer.penalize(PeerFault.Useless, reason);
  }

  // ---- stage 0: a target named by hash ----------------------------------------------------------

  private async fetchTarget(gen: number): Promise<PhaseResult> {
    while (!this.stopped && gen === this.generation && this.pending !== null) {
      const p = this.pending;
      const e = this.idlePeer(null);
      if (e === null) {
        await this.sleep();
        continue;
      }
      const items = await this.ask(e, () => e.peer.headers(p.hash, 1, 0, false));
      if (items === null || gen !== this.generation) continue;
      if (items.length === 0) {
        this.slow(e, "target header unknown");
        continue;
      }
      if (items.length !== 1 || !equalBytes(keccak256(items[0]), p.hash)) {
        this.drop(e, "wrong target header");
        continue;
      }
      try {
        decodeHeader(items[0]);
      } catch {
        this.drop(e, "undecodable header");
        continue;
      }
      this.retarget(items[0], p.hash, p.safe, p.finalized, p.startingBlock);
    }
    return this.stopped ? "stopped" : "again";
  }

  // ---- stage 1: headers, backwards -------------------------------------------------------------

  private async fillHeaders(gen: number): Promise<PhaseResult> {
    let s = this.state as SkeletonState;
    const tailHeader = this.skeleton.header(s.tail);
    if (tailHeader === null) throw new Error(`sync skeleton is missing header #${s.tail}`);
    let tailParent = tailHeader.header.parentHash;
    if (this.applyLink(new WriteBatch(), s, s.tail, this.linkOf(tailParent, s.tail))) return "again";
    s = this.state as SkeletonState;
    if (s.tail !== tailHeader.header.number) {
      // Linked onto the previous subchain (a target extended by one block): its tail is ours now, and
      // so is its tail's parent, the hash the next chunk must end in.
      const t = this.skeleton.header(s.tail);
      if (t === null) throw new Error(`sync skeleton is missing header #${s.tail}`);
      tailParent = t.header.parentHash;
    }
    const batch = this.opts.headerBatch;
    // The lowest block worth asking for at first: above the previous subchain or the local head.
    let floor = Math.max(1, Math.min(s.tail - 1, s.prevTop > 0 ? s.prevTop + 1 : this.chain.head.number + 1));
    let nextHi = s.tail - 1;
    const retry: Range[] = [];
    const got = new Map<number, HeaderChunk>();
    let inFlight = 0;
    const topNumber = s.topNumber;
    this.meter.begin("headers", topNumber - s.tail);
    const take = (): Range | null => {
      const r = retry.shift();
      if (r !== undefined) return r;
      if (nextHi < floor) return null;
      const count = Math.min(batch, nextHi - floor + 1);
      const range = { at: nextHi, count };
      nextHi -= count;
      return range;
    };
    for (;;) {
      if (this.stopped) return "stopped";
      if (gen !== this.generation) return "again";
      s = this.state as SkeletonState;
      // Link received chunks onto the tail, top down.
      let chunk = got.get(s.tail - 1);
      while (chunk !== undefined) {
        got.delete(s.tail - 1);
        if (!equalBytes(chunk.hashes[0], tailParent)) {
          this.drop(
            chunk.peer,
            `headers do not link to the chain above: #${s.tail - 1} is ${bytesToHex(chunk.hashes[0]!)}, the parent of #${s.tail} is ${bytesToHex(tailParent)}`,
          );
          retry.unshift({ at: s.tail - 1, count: chunk.headers.length });
          break;
        }
        const b = new WriteBatch();
        let tail = s.tail;
        let link: "executed" | "prev" | null = null;
        for (let i = 0; i < chunk.headers.length && link === null; i++) {
          const h = chunk.headers[i];
          this.skeleton.putHeader(b, h.number, chunk.rlps[i]);
          tail = h.number;
          tailParent = h.parentHash;
          this.counters.headers++;
          link = this.linkOf(tailParent, tail);
        }
        if (this.applyLink(b, s, tail, link)) return "again";
        s = this.state as SkeletonState;
        if (link === "prev") {
          // Linked onto the previous subchain, whose tail is now ours: carry on below it.
          const t = this.skeleton.header(s.tail);
          if (t === null) throw new Error(`sync skeleton is missing header #${s.tail}`);
          tailParent = t.header.parentHash;
          got.clear();
          retry.length = 0;
          nextHi = s.tail - 1;
          floor = Math.max(1, Math.min(nextHi, this.chain.head.number + 1));
        }
        chunk = got.get(s.tail - 1);
      }
      this.meter.report(s.tail, topNumber, topNumber - s.tail, topNumber - floor + 1);
      // Ask idle peers for the next ranges.
      while (inFlight + got.size < this.opts.maxHeaderChunksAhead) {
        const range = take();
        if (range === null) break;
        const e = this.idlePeer(range.at);
        if (e === null) {
          retry.unshift(range);
          break;
        }
        inFlight++;
        void this.requestHeaders(e, range).then((c) => {
          inFlight--;
          if (gen !== this.generation) return;
          if (c === null) {
            retry.push(range);
            return;
          }
          got.set(range.at, c);
          if (c.headers.length < range.count)
            retry.push({ at: range.at - c.headers.length, count: range.count - c.headers.length });
        });
      }
      if (inFlight === 0 && got.size === 0 && retry.length === 0 && nextHi < floor) {
        if (floor <= 1) {
          this.fail(s, null, "the target's chain does not reach this node's genesis");
          return "failed";
        }
        floor = Math.max(1, floor - batch * 8);
        continue;
      }
      await this.sleep();
    }
  }

  /** One header range, checked: numbers as asked, each header the parent's child. Null: ask again. */
  private async requestHeaders(e: PeerEntry, range: Range): Promise<HeaderChunk | null> {
    const items = await this.ask(e, () => e.peer.headers(range.at, range.count, 0, true));
    if (items === null) return null;
    if (items.length === 0) {
      this.slow(e, "empty headers answer");
      return null;
    }
    if (items.length > range.count) {
      this.drop(e, "more headers than asked");
      return null;
    }
    const headers: Header[] = [];
    const hashes: Uint8Array[] = [];
    for (let i = 0; i < items.length; i++) {
      let h: Header;
      try {
        h = decodeHeader(items[i]);
      } catch {
        this.drop(e, "undecodable header");
        return null;
      }
      if (h.number !== range.at - i) {
        this.drop(e, "header numbers out of order");
        return null;
      }
      const hash = keccak256(items[i]);
      if (i > 0 && !equalBytes(headers[i - 1].parentHash, hash)) {
        this.drop(e, "headers do not link");
        return null;
      }
      headers.push(h);
      hashes.push(hash);
    }
    e.strikes = 0;
    return { peer: e, headers, hashes, rlps: items };
  }

  // ---- stages 2 and 3: bodies and execution, forwards ---------------------------------------------

  /** The first skeleton block not executed yet. */
  private firstUnexecuted(s: SkeletonState): number {
    let n = s.tail;
    const head = this.chain.head.number;
    if (head >= s.tail && head <= s.topNumber) {
      const h = this.skeleton.header(head);
      if (h !== null && equalBytes(h.hash, this.chain.headBlockHash)) n = head + 1;
    }
    for (; n <= s.topNumber; n++) {
      const h = this.skeleton.header(n);
      if (h === null || this.chain.store.receiptsRlp(h.hash) === undefined) break;
    }
    return n;
  }

  private async executeForward(gen: number): Promise<PhaseResult> {
    const s = this.state as SkeletonState;
    let next = this.firstUnexecuted(s);
    let nextFetch = next;
    const ready = new Map<number, BlockBody>();
    const retry: Range[] = [];
    let uncommitted: Uint8Array | null = null;
    let sinceCommit = 0;
    const first = next;
    this.meter.begin("execution", next - 1);
    // Head changes go through the chain's mutation queue, after any Engine API import under way.
    const commit = async (): Promise<void> => {
      if (uncommitted === null) return;
      const to = uncommitted;
      uncommitted = null;
      sinceCommit = 0;
      await this.chain.exclusive(() => {
        if (!equalBytes(this.chain.headBlockHash, to)) this.headChanged(this.chain.setHead(to));
      });
    };
    const take = (): Range | null => {
      const r = retry.shift();
      if (r !== undefined) return r;
      if (nextFetch > s.topNumber || nextFetch >= next + this.opts.maxBlocksAhead) return null;
      const count = Math.min(this.opts.bodyBatch, s.topNumber - nextFetch + 1);
      const range = { at: nextFetch, count };
      nextFetch += count;
      return range;
    };
    for (;;) {
      if (this.stopped || gen !== this.generation) {
        await commit();
        return this.stopped ? "stopped" : "again";
      }
      const body = ready.get(next);
      if (body !== undefined) {
        ready.delete(next);
        const sh = this.skeleton.header(next);
        if (sh === null) throw new Error(`sync skeleton is missing header #${next}`);
        // In slices and queued with the other chain mutations (an Engine API payload meanwhile).
        const r = await this.chain.insertBlockSliced(encodeBlock({ header: sh.header, body }));
        if (r.status === "INVALID" || r.status === "UNKNOWN_PARENT") {
          await commit();
          this.fail(s, sh, r.error ?? r.status);
          return "failed";
        }
        this.counters.executed++;
        uncommitted = sh.hash;
        next++;
        if (++sinceCommit >= this.opts.commitBatch || next > s.topNumber) await commit();
        this.meter.report(next - 1, s.topNumber, next - 1, s.topNumber);
        // A block's commit is synchronous: let the event loop serve RPC and answers between blocks.
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      if (next > s.topNumber) {
        await commit();
        if (next > first) this.meter.report(next - 1, s.topNumber, next - 1, s.topNumber, true);
        return "done";
      }
      while (true) {
        const range = take();
        if (range === null) break;
        const e = this.idlePeer(range.at + range.count - 1);
        if (e === null) {
          retry.unshift(range);
          break;
        }
        void this.requestBodies(e, range).then((bodies) => {
          if (gen !== this.generation) return;
          if (bodies === null) {
            retry.push(range);
            return;
          }
          for (let i = 0; i < bodies.length; i++) ready.set(range.at + i, bodies[i]);
          if (bodies.length < range.count)
            retry.push({ at: range.at + bodies.length, count: range.count - bodies.length });
        });
      }
      await this.sleep();
    }
  }

  /** Bodies of one range, each checked against its header. Null: ask again elsewhere. */
  private async requestBodies(e: PeerEntry, range: Range): Promise<BlockBody[] | null> {
    const headers: SkeletonHeader[] = [];
    for (let i = 0; i < range.count; i++) {
      const h = this.skeleton.header(range.at + i);
      if (h === null) return null;
      headers.push(h);
    }
    const items = await this.ask(e, () => e.peer.bodies(headers.map((h) => h.hash)));
    if (items === null) return null;
    if (items.length === 0) {
      this.slow(e, "empty bodies answer");
      return null;
    }
    if (items.length > range.count) {
      this.drop(e, "more bodies than asked");
      return null;
    }
    const out: BlockBody[] = [];
    for (let i = 0; i < items.length; i++) {
      let body: BlockBody;
      try {
        body = decodeBody(items[i]);
      } catch {
        this.drop(e, "undecodable body");
        return null;
      }
      const bad = bodyMismatch(this.chain.config, headers[i].header, body);
      if (bad !== null) {
        this.drop(e, `body does not match its header: ${bad}`);
        return null;
      }
      out.push(body);
    }
    e.strikes = 0;
    this.counters.bodies += out.length;
    return out;
  }

  /** A head change the sync made (the change is made first; `onHead?.(setHead())` would skip it). */
  private headChanged(change: HeadChange): void {
    this.onHead?.(change);
  }

  // ---- the end ---------------------------------------------------------------------------------------

  /** The target is executed: it becomes the head, the forkchoice's safe and finalized apply. */
  private finish(): void {
    const s = this.state as SkeletonState;
    if (!equalBytes(this.chain.headBlockHash, s.top)) this.headChanged(this.chain.setHead(s.top));
    const known = (h: Uint8Array): Uint8Array | null =>
      isZeroBytes(h) || this.chain.store.header(h) === null ? null : h;
    this.chain.setSafeAndFinalized(known(s.safe), known(s.finalized));
    this.skeleton.clear();
    this.state = null;
    this.log.info("Sync complete", {
      number: s.topNumber,
      hash: s.top,
      started: s.startingBlock,
      executed: this.counters.executed,
    });
  }

  /** The target's chain holds an invalid block (or none reaches here): the sync ends, the target is refused. */
  private fail(s: SkeletonState, bad: SkeletonHeader | null, error: string): void {
    const latestValidHash = bad === null ? null : bad.header.parentHash;
    this.invalid.set(bytesKey(s.top), { latestValidHash, error });
    this.log.error("Sync target's chain is invalid", {
      target: s.topNumber,
      hash: s.top,
      block: bad?.header.number ?? "none",
      err: error,
    });
    this.skeleton.clear();
    this.state = null;
  }
}
