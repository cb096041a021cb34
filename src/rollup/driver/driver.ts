/**
 * The verifier's driver (op-node rollup/driver): runs derivation steps into the engine controller,
 * reacts to their errors by class — a temporary error is retried after a backoff, a reset error
 * finds the sync start again and restarts the pipeline, a critical error stops derivation — and
 * takes the L1 head, safe and finalized signals from the L1 pollers. Every step is explicit
 * (`step`), so action tests drive it without timers; `run` is the production loop around it.
 */
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { Logger } from "../../util/log.js";
import type { RollupConfig } from "../config/rollupConfig.js";
import { DeriveError } from "../derive/errors.js";
import { DerivationPipeline, type PipelineDeps } from "../derive/pipeline.js";
import type { EngineClient, PayloadEnvelope } from "../engine/engineClient.js";
import type { AttributesOutcome, Heads } from "../engine/engineController.js";
import { EngineController, PayloadRejectedError } from "../engine/engineController.js";
import type { Semaphore } from "../l1/limits.js";
import type { BlockId, L1BlockRef, L2BlockRef, SyncStatus } from "../refs.js";
import { ZERO_L1_REF } from "../refs.js";
import { findL2Heads, type SyncStartL1 } from "./syncStart.js";

/** Queued unsafe block numbers kept at most (op-node bounds its queue by memory, ~500 MB). */
const UNSAFE_QUEUE_MAX = 4096;

/** Where safe-head updates go (the safe-head DB of `--safedb.path`). */
export interface SafeHeadListener {
  safeHeadUpdated(safe: BlockId, l1: BlockId): void;
  safeHeadReset(newSafe: L2BlockRef): void;
}

export interface DriverDeps extends Omit<PipelineDeps, "l1"> {
  readonly l1: PipelineDeps["l1"] & SyncStartL1;
  readonly engine: EngineClient;
  readonly log: Logger;
  readonly safeDb?: SafeHeadListener | null;
  readonly metrics?: { recordPipelineReset(): void; recordDerivationError(): void };
  /** Held during each step; the sequencer holds it while it builds (they share the engine). */
  readonly lock?: Semaphore;
}

export interface DriverOptions {
  readonly skipSyncStartCheck?: boolean;
  /** `--syncmode`: with execution-layer the engine first syncs itself from unsafe payloads. */
  readonly syncMode?: "consensus-layer" | "execution-layer";
  /**
   * `--l2.enginekind`: geth can only EL-sync before its first finalized block, so with geth EL sync
   * is skipped when the engine already has one; reth and erigon sync at any point.
   */
  readonly engineKind?: "geth" | "reth" | "erigon";
  /**
   * Interop managed mode (an op-supervisor drives the node): derivation moves the local-safe head;
   * safe and finalized of Interop blocks come from the supervisor (engine/engineController.ts).
   */
  readonly managed?: boolean;
}

/** What one `step` did, for tests and metrics. */
export type DriverStep =
  | { readonly kind: "reset"; readonly heads: Heads; readonly base: L1BlockRef }
  | { readonly kind: "attributes"; readonly outcome: AttributesOutcome }
  | { readonly kind: "advanced"; readonly origin: L1BlockRef }
  | { readonly kind: "unsafe"; readonly ref: L2BlockRef }
  | { readonly kind: "progress" }
  | { readonly kind: "idle" }
  | { readonly kind: "temporary"; readonly error: DeriveError }
  | { readonly kind: "critical"; readonly error: Error };

export class Driver {
  readonly controller: EngineController;
  readonly pipeline: DerivationPipeline;
  private needReset = true;
  private critical: Error | null = null;
  private l1Head: L1BlockRef = ZERO_L1_REF;
  private l1Safe: L1BlockRef = ZERO_L1_REF;
  private l1Finalized: L1BlockRef = ZERO_L1_REF;
  /** Consecutive temporary errors (drives the backoff of `run`). */
  private failures = 0;
  private wake: (() => void) | null = null;
  private stopped = false;
  private loop: Promise<void> | null = null;
  /** Called after anything that may have moved a head (derived block, reset, finality, L1 head). */
  onChange: (() => void) | null = null;
  /** Steps taken, resets done (metrics). */
  readonly counters = {
    steps: 0,
    resets: 0,
    derived: 0,
    consolidated: 0,
    reorgs: 0,
    temporaryErrors: 0,
    unsafeInserted: 0,
    unsafeDropped: 0,
  };
  /**
   * Unsafe payloads (P2P gossip, req-resp sync) waiting to extend the unsafe head, by block number —
   * op-node's payloads queue. Bounded: past `UNSAFE_QUEUE_MAX` the highest numbers are dropped.
   */
  private readonly unsafeQueue = new Map<number, PayloadEnvelope[]>();
  /** Called (at most once a second per gap start) when queued payloads leave a gap after the unsafe head. */
  onUnsafeGap: ((from: number, to: number) => void) | null = null;
  private lastGap = { from: -1, at: 0 };

  constructor(
    private readonly cfg: RollupConfig,
    private readonly deps: DriverDeps,
    private readonly opts: DriverOptions = {},
  ) {
    this.controller = new EngineController(cfg, deps.engine, deps.log, { managed: opts.managed === true });
    this.pipeline = new DerivationPipeline(cfg, {
      ...deps,
      warn: deps.warn ?? ((m, c) => deps.log.warn(m, c)),
    });
    this.controller.onSafe = (safe, l1) => this.deps.safeDb?.safeHeadUpdated(safe, l1);
    this.controller.onElSyncDone = () => this.requestReset();
    this.elSyncChecked = opts.syncMode !== "execution-layer";
  }

  /** Whether the EL-sync decision has been made (at the first reset). */
  private elSyncChecked: boolean;

  get stoppedBy(): Error | null {
    return this.critical;
  }

  /** A new L1 head (the poller or subscription); wakes an idle loop. */
  onL1Head(ref: L1BlockRef): void {
    this.l1Head = ref;
    this.onChange?.();
    this.wake?.();
  }

  onL1Safe(ref: L1BlockRef): void {
    this.l1Safe = ref;
  }

  /** L1 finalized a block: finalize the L2 blocks derived from it. */
  async onL1Finalized(ref: L1BlockRef): Promise<void> {
    this.l1Finalized = ref;
    try {
      await this.controller.finalize(ref, async (n) => {
        const b = await this.deps.l1.l1BlockRefByNumber(n);
        return b === null ? new Uint8Array(32) : b.hash;
      });
      this.onChange?.();
    } catch (e) {
      this.deps.log.warn("failed to finalize", { err: (e as Error).message });
    }
  }

  /**
   * Queues an unsafe payload (already validated by the P2P layer); it becomes the unsafe head once it
   * extends it. Payloads at or below the unsafe head are dropped.
   */
  addUnsafePayload(env: PayloadEnvelope): void {
    if (!this.controller.elSyncing && env.number <= this.controller.state.unsafe.number) return;
    const at = this.unsafeQueue.get(env.number);
    if (at === undefined) this.unsafeQueue.set(env.number, [env]);
    else if (at.some((e) => bytesToHex(e.blockHash) === bytesToHex(env.blockHash))) return;
    else at.push(env);
    this.wakeRequested = true;
    if (this.unsafeQueue.size > UNSAFE_QUEUE_MAX) {
      const highest = Math.max(...this.unsafeQueue.keys());
      this.counters.unsafeDropped += this.unsafeQueue.get(highest)?.length ?? 0;
      this.unsafeQueue.delete(highest);
    }
    this.wake?.();
  }

  /** Set when a payload arrived while a step ran: the loop then steps again at once instead of idling. */
  private wakeRequested = false;

  private takeWakeRequest(): boolean {
    const w = this.wakeRequested;
    this.wakeRequested = false;
    return w;
  }

  /** Payloads waiting in the unsafe queue (metrics, tests). */
  get unsafeQueued(): number {
    let n = 0;
    for (const v of this.unsafeQueue.values()) n += v.length;
    return n;
  }

  /**
   * Takes the next queued payload that extends the unsafe head into the engine. Returns null when
   * none can go in now (empty queue, or a gap — then `onUnsafeGap` asks for the missing range).
   */
  private async stepUnsafe(): Promise<DriverStep | null> {
    if (this.unsafeQueue.size === 0) return null;
    const c = this.controller;
    if (c.elSyncing) {
      // EL sync: hand the engine the newest payload; it fetches the rest itself.
      const n = Math.max(...this.unsafeQueue.keys());
      const env = this.unsafeQueue.get(n)![0]!;
      this.unsafeQueue.clear();
      await c.insertUnsafePayload(env);
      this.onChange?.();
      return { kind: "progress" };
    }
    const head = c.state.unsafe;
    for (const n of [...this.unsafeQueue.keys()]) {
      if (n <= head.number) {
        this.unsafeQueue.delete(n);
      }
    }
    const next = this.unsafeQueue.get(head.number + 1);
    if (next === undefined) {
      if (this.unsafeQueue.size > 0) this.reportGap(head.number + 1, Math.min(...this.unsafeQueue.keys()) - 1);
      return null;
    }
    this.unsafeQueue.delete(head.number + 1);
    const headHex = bytesToHex(head.hash);
    const env = next.find((e) => (e.executionPayload as { parentHash?: string }).parentHash === headHex);
    if (env === undefined) {
      // None of them builds on our unsafe head: another fork, dropped (op-node does the same).
      this.counters.unsafeDropped += next.length;
      this.deps.log.warn("dropping unsafe payloads that do not extend the unsafe head", {
        number: head.number + 1,
        head: headHex,
      });
      return null;
    }
    try {
      if (!(await c.insertUnsafePayload(env))) return null;
    } catch (e) {
      if (e instanceof PayloadRejectedError) {
        this.counters.unsafeDropped++;
        this.deps.log.warn("engine refused an unsafe payload", { number: env.number, err: e.message });
        return null;
      }
      throw e;
    }
    this.counters.unsafeInserted++;
    this.deps.log.info("Inserted unsafe payload", { number: env.number, hash: bytesToHex(env.blockHash) });
    this.onChange?.();
    return { kind: "unsafe", ref: c.state.unsafe };
  }

  private reportGap(from: number, to: number): void {
    if (to < from || this.onUnsafeGap === null) return;
    const now = Date.now();
    if (this.lastGap.from === from && now - this.lastGap.at < 1000) return;
    this.lastGap = { from, at: now };
    this.onUnsafeGap(from, to);
  }

  /** Asks for a pipeline reset at the next step (admin_resetDerivationPipeline). */
  requestReset(): void {
    this.needReset = true;
    this.wake?.();
  }

  syncStatus(): SyncStatus {
    const h = this.controller.state;
    return {
      currentL1: this.pipeline.origin(),
      headL1: this.l1Head,
      safeL1: this.l1Safe,
      finalizedL1: this.l1Finalized,
      unsafeL2: h.unsafe,
      safeL2: h.safe,
      finalizedL2: h.finalized,
      pendingSafeL2: h.pendingSafe,
      // Without a supervisor the local-safe head is the safe head and is not reported apart.
      ...(this.controller.managed ? { localSafeL2: h.localSafe } : {}),
    };
  }

  /** One unit of work; never throws. */
  step(): Promise<DriverStep> {
    const lock = this.deps.lock;
    return lock === undefined ? this.stepUnlocked() : lock.run(() => this.stepUnlocked());
  }

  private async stepUnlocked(): Promise<DriverStep> {
    if (this.critical !== null) return { kind: "critical", error: this.critical };
    this.counters.steps++;
    try {
      if (this.controller.elSyncing) {
        const u = await this.stepUnsafe();
        if (u !== null) return u;
      }
      if (this.needReset) return await this.reset();
      const u = await this.stepUnsafe();
      if (u !== null) return u;
      const h = this.controller.state;
      const r = await this.pipeline.step(h.pendingSafe);
      switch (r.kind) {
        case "progress":
          this.failures = 0;
          return { kind: "progress" };
        case "eof":
          this.failures = 0;
          return { kind: "idle" };
        case "advanced":
          this.failures = 0;
          this.controller.recordDerivedFrom(r.finished);
          // L1 may have finalized this block before derivation got past it (op-node finalizer:
          // finality is tried again on every derived L1 block).
          if (this.l1Finalized.number >= r.finished.number) await this.onL1Finalized(this.l1Finalized);
          this.deps.log.debug("advanced L1 origin", { origin: this.pipeline.origin().number });
          return { kind: "advanced", origin: this.pipeline.origin() };
        case "attributes": {
          const outcome = await this.controller.processAttributes(r.attributes);
          this.failures = 0;
          this.account(outcome, r.attributes.isLastInSpan);
          this.onChange?.();
          return { kind: "attributes", outcome };
        }
      }
    } catch (e) {
      return this.onError(e);
    }
  }

  private account(outcome: AttributesOutcome, _lastInSpan: boolean): void {
    switch (outcome.kind) {
      case "consolidated":
        this.counters.consolidated++;
        break;
      case "built":
        this.counters.derived++;
        if (outcome.reorged) this.counters.reorgs++;
        this.deps.log.info("derived block", { number: outcome.ref.number, hash: bytesToHex(outcome.ref.hash) });
        break;
      case "depositsOnly":
        this.counters.derived++;
        this.pipeline.flushChannel();
        break;
      case "dropped":
        break;
      case "stale":
        this.deps.log.warn("attributes do not build on the pending safe head, resetting", { reason: outcome.reason });
        this.needReset = true;
        break;
    }
  }

  private async reset(): Promise<DriverStep> {
    const engine = this.deps.engine;
    const [unsafe, safeLabel, finalizedLabel] = await Promise.all([
      engine.blockRef("latest"),
      engine.blockRef("safe"),
      engine.blockRef("finalized"),
    ]);
    // op-node sync.currentHeads: no finalized label (nothing finalized yet, or a rewind below it
    // cleared it) means genesis; no safe label means the finalized block.
    const finalized = finalizedLabel ?? (await engine.blockRef(this.cfg.genesis.l2.hash));
    const safe = safeLabel ?? finalized;
    if (unsafe === null || safe === null || finalized === null) {
      throw new DeriveError("temporary", "the engine has no head, safe or finalized block yet");
    }
    if (!this.elSyncChecked) {
      this.elSyncChecked = true;
      const atGenesis = finalized.number === this.cfg.genesis.l2.number;
      if (atGenesis || (this.opts.engineKind ?? "geth") !== "geth") {
        this.controller.elSyncing = true;
        this.deps.log.info("Starting EL sync: waiting for unsafe payloads", { engine: this.opts.engineKind ?? "geth" });
      } else {
        this.deps.log.info("Skipping EL sync: the engine already has a finalized block", {
          finalized: finalized.number,
        });
      }
    }
    if (this.controller.elSyncing) return { kind: "idle" };
    const heads = await findL2Heads(this.cfg, this.deps.l1, engine, { unsafe, safe, finalized }, this.opts);
    // op-node onEngineConfirmedReset: a reset to the rollup genesis records it as safe from L1 block
    // 0 (not genesis.l1: the contracts may predate it). A later reset never deletes that entry, so it
    // always finds an earlier one and re-records its safe head under the first L1 block it truncates;
    // without it, a reset whose safe head was the DB's first entry deleted that entry for good
    // (re-derivation starts after the reset safe head).
    const gen = this.cfg.genesis.l2;
    let l1Genesis: L1BlockRef | null = null;
    if (this.deps.safeDb && heads.safe.number === gen.number && equalBytes(heads.safe.hash, gen.hash)) {
      l1Genesis = await this.deps.l1.l1BlockRefByNumber(0);
      if (l1Genesis === null) throw new DeriveError("temporary", "L1 has no genesis block to record the L2 genesis at");
    }
    await this.controller.reset(heads);
    const base = await this.pipeline.reset(heads.safe);
    this.deps.safeDb?.safeHeadReset(heads.safe);
    if (l1Genesis !== null) this.deps.safeDb?.safeHeadUpdated(heads.safe, l1Genesis);
    this.needReset = false;
    this.counters.resets++;
    this.deps.metrics?.recordPipelineReset();
    this.deps.log.info("derivation pipeline reset", {
      unsafe: heads.unsafe.number,
      safe: heads.safe.number,
      finalized: heads.finalized.number,
      base: base.number,
    });
    this.onChange?.();
    return { kind: "reset", heads: this.controller.state, base };
  }

  private onError(e: unknown): DriverStep {
    if (e instanceof DeriveError && e.severity === "reset") {
      this.deps.log.warn("derivation reset", { err: e.message });
      this.needReset = true;
      return { kind: "progress" };
    }
    if (e instanceof DeriveError && e.severity === "critical") {
      this.critical = e;
      this.deps.log.error("derivation stopped on a critical error", { err: e.message });
      return { kind: "critical", error: e };
    }
    const err =
      e instanceof DeriveError ? e : new DeriveError("temporary", (e as Error).message ?? String(e), { cause: e });
    this.failures++;
    this.counters.temporaryErrors++;
    this.deps.metrics?.recordDerivationError();
    this.deps.log.warn("derivation failed, retrying", { err: err.message, attempt: this.failures });
    return { kind: "temporary", error: err };
  }

  /** Steps until derivation has nothing more to do (or fails); for tests and the run loop. */
  async stepUntilIdle(maxSteps = 100_000): Promise<DriverStep> {
    let last: DriverStep = { kind: "idle" };
    for (let i = 0; i < maxSteps; i++) {
      last = await this.step();
      if (last.kind === "idle" || last.kind === "critical" || last.kind === "temporary") return last;
    }
    return last;
  }

  /** The production loop: step, back off on temporary errors (up to 10 s), wait for L1 when idle. */
  start(idleWaitMs: number): void {
    if (this.loop !== null) return;
    this.loop = (async () => {
      while (!this.stopped) {
        const r = await this.step();
        if (r.kind === "critical") return;
        if ((r.kind === "idle" || r.kind === "temporary") && !this.takeWakeRequest()) {
          const wait = r.kind === "idle" ? idleWaitMs : Math.min(10_000, 250 * 2 ** Math.min(this.failures, 6));
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, wait);
            t.unref?.();
            this.wake = () => {
              clearTimeout(t);
              resolve();
            };
          });
          this.wake = null;
        } else if (this.counters.steps % 64 === 0) {
          // Let timers, RPC and pollers run during long catch-ups.
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }
}
