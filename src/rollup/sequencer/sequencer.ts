/**
 * The sequencer (op-node rollup/sequencing/sequencer.go, origin_selector.go; op-stack.md §2.13):
 * builds the next L2 block on the unsafe head when its time has come, through the same engine
 * controller derivation uses (the two never run at once: `lock`).
 *
 * - L1 origin: the next L1 block when it is visible (behind `--sequencer.l1-confs`) and not newer
 *   than the new L2 block; otherwise the current origin, unless that would pass the max sequencer
 *   drift — then the next origin is required, and without it the sequencer waits.
 * - The tx pool is off (`noTxPool`) in the activation blocks of Ecotone, Fjord, Isthmus, Jovian, Karst
 *   and Interop (op-node sequencer.go "Sequencing Karst upgrade block"), past the drift, and in recover mode (`--sequencer.recover`, admin_setRecoverMode), where the
 *   sequencer only makes deposit-only blocks.
 * - `--sequencer.max-safe-lag`: no new block while the unsafe head is that many blocks past safe.
 * - With `--conductor.enabled` the conductor is asked for leadership before a block is built and
 *   must commit the payload before it becomes the unsafe head; a conductor that does not answer in
 *   `--conductor.rpc-timeout` stops this block (nothing is published), and the next tick asks again.
 */
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { ChainConfig } from "../../spec/chainConfig.js";
import type { Logger } from "../../util/log.js";
import { isForkActivationBlock, maxSequencerDriftAt, type RollupConfig } from "../config/rollupConfig.js";
import { type L1InfoSource, preparePayloadAttributes, type SystemConfigSource } from "../derive/attributes.js";
import { DeriveError } from "../derive/errors.js";
import type { PayloadEnvelope } from "../engine/engineClient.js";
import type { EngineController } from "../engine/engineController.js";
import type { Semaphore } from "../l1/limits.js";
import type { BlockId, L1BlockRef, L2BlockRef } from "../refs.js";
import type { SequencerControl } from "./sequencerControl.js";

export interface SequencerL1 extends L1InfoSource {
  /** null when not visible yet (beyond the head or the confirmation depth). */
  l1BlockRefByNumber(n: number): Promise<L1BlockRef | null>;
  l1BlockRefByHash(hash: Uint8Array): Promise<L1BlockRef>;
}

/** op-conductor's RPC as the sequencer uses it. */
export interface Conductor {
  leader(): Promise<boolean>;
  commitUnsafePayload(env: PayloadEnvelope): Promise<void>;
}

export interface SequencerDeps {
  readonly cfg: RollupConfig;
  readonly controller: EngineController;
  readonly l1: SequencerL1;
  readonly l2: SystemConfigSource;
  readonly l1Chain: ChainConfig | null;
  readonly control: SequencerControl;
  readonly lock: Semaphore;
  readonly log: Logger;
  readonly conductor: Conductor | null;
  /** `--sequencer.max-safe-lag` (0 = off). */
  readonly maxSafeLag: number;
  /** Seconds, wall clock (tests pass their own). */
  readonly now?: () => number;
  /** op-node's sequencer metrics (node/metrics.ts NodeMetrics fits). */
  readonly metrics?: SequencerMetrics;
  /** False until the engine's heads are known (the driver's first reset). */
  readonly ready?: () => boolean;
  /** A block was built and is the new unsafe head (gossip, metrics). */
  readonly onBlock?: (ref: L2BlockRef, env: PayloadEnvelope) => void;
  /**
   * The unsafe head's L1 origin is no longer on the L1 chain (an L1 reorg): ask the driver for a
   * pipeline reset now, as op-node's sequencer emits a ResetEvent, instead of retrying until the
   * driver notices the reorg itself.
   */
  readonly requestReset?: (why: string) => void;
}

export interface SequencerMetrics {
  recordSequencerBuildStarted(): void;
  recordSequencerBuild(diffSeconds: number): void;
  recordSequencerSealing(seconds: number): void;
  recordSequencingError(): void;
  countSequencedTxs(count: number): void;
}

export type SequencerStep =
  | { readonly kind: "built"; readonly ref: L2BlockRef }
  | { readonly kind: "inactive" }
  | { readonly kind: "early"; readonly waitMs: number }
  | { readonly kind: "lagging" }
  | { readonly kind: "notLeader" }
  | { readonly kind: "failed"; readonly error: string };

const NO_TX_POOL_FORKS = ["ecotone", "fjord", "isthmus", "jovian", "karst", "interop"] as const;

export class Sequencer {
  private loop: Promise<void> | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  private readonly now: () => number;
  readonly counters = { built: 0, errors: 0 };

  constructor(private readonly deps: SequencerDeps) {
    this.now = deps.now ?? (() => Date.now() / 1000);
  }

  /** The L1 origin of the block after `parent` at `timestamp`, and whether it is past the drift. */
  async selectOrigin(parent: L2BlockRef, timestamp: number): Promise<{ origin: BlockId; pastDrift: boolean }> {
    const { cfg, l1 } = this.deps;
    const current = await l1.l1BlockRefByHash(parent.l1origin.hash);
    const next = await l1.l1BlockRefByNumber(current.number + 1);
    const pastDrift = timestamp > current.timestamp + maxSequencerDriftAt(cfg, current.timestamp);
    if (next !== null && !equalBytes(next.parentHash, current.hash)) {
      // op-node (sequencer.go startBuildingBlock): an origin that does not build on the head's.
      throw new DeriveError(
        "reset",
        `cannot build new L2 block with L1 origin ${bytesToHex(next.hash)} (parent L1 ${bytesToHex(next.parentHash)}) on current L2 head ${bytesToHex(parent.hash)} with L1 origin ${bytesToHex(current.hash)}`,
      );
    }
    if (next !== null && timestamp >= next.timestamp) return { origin: next, pastDrift: false };
    if (pastDrift) {
      if (next === null) {
        throw new DeriveError("temporary", `past the sequencer drift at ${timestamp} without a next L1 origin`);
      }
      // The next origin is still newer than the block: keep the current one, deposit-only.
      return { origin: current, pastDrift: true };
    }
    return { origin: current, pastDrift: false };
  }

  /** One attempt to build the next block; never throws. */
  async step(): Promise<SequencerStep> {
    const d = this.deps;
    if (!d.control.active) return { kind: "inactive" };
    if (d.ready !== undefined && !d.ready()) return { kind: "early", waitMs: 200 };
    return d.lock.run(async () => {
      const h = d.controller.state;
      const parent = h.unsafe;
      const timestamp = parent.timestamp + d.cfg.blockTime;
      const wait = (timestamp - this.now()) * 1000;
      if (wait > 0) return { kind: "early", waitMs: wait } as const;
      if (d.maxSafeLag > 0 && parent.number - h.safe.number >= d.maxSafeLag) return { kind: "lagging" } as const;
      try {
        if (d.conductor !== null && !(await d.conductor.leader())) return { kind: "notLeader" } as const;
        const { origin, pastDrift } = await this.selectOrigin(parent, timestamp);
        const attrs = await preparePayloadAttributes(d.cfg, { l1: d.l1, l2: d.l2, l1Chain: d.l1Chain }, parent, origin);
        const activation = NO_TX_POOL_FORKS.some((f) => isForkActivationBlock(d.cfg, f, timestamp));
        const noTxPool = activation || pastDrift || d.control.recoverMode;
        d.metrics?.recordSequencerBuildStarted();
        const t0 = performance.now();
        const built = await d.controller.build(parent, { ...attrs, noTxPool });
        d.metrics?.recordSequencerSealing((performance.now() - t0) / 1000);
        if (!built.ok) throw new DeriveError("temporary", `engine refused the sequencer's attributes: ${built.reason}`);
        // Stopped (admin_stopSequencer) while building: the block is not published; stop answered
        // with the head as it was.
        if (!d.control.active) return { kind: "inactive" } as const;
        if (d.conductor !== null) await d.conductor.commitUnsafePayload(built.envelope);
        await d.controller.adoptUnsafe(built.ref);
        this.counters.built++;
        // How late the block is against its slot (op-node sequencer_building_diff_seconds).
        d.metrics?.recordSequencerBuild(this.now() - timestamp);
        const txs = (built.envelope.executionPayload as { transactions?: unknown[] }).transactions?.length ?? 0;
        d.metrics?.countSequencedTxs(Math.max(0, txs - attrs.transactions.length));
        d.onBlock?.(built.ref, built.envelope);
        return { kind: "built", ref: built.ref } as const;
      } catch (e) {
        this.counters.errors++;
        d.metrics?.recordSequencingError();
        const error = (e as Error).message;
        d.log.warn("sequencer failed to build a block", { parent: parent.number, err: error });
        if (e instanceof DeriveError && e.severity === "reset") d.requestReset?.(error);
        return { kind: "failed", error } as const;
      }
    });
  }

  /** Runs until `stop`: a block each block time while active. */
  start(): void {
    if (this.loop !== null) return;
    this.deps.control.onChange(() => this.wake?.());
    this.loop = (async () => {
      while (!this.stopped) {
        const r = await this.step();
        if (r.kind === "built") {
          this.deps.log.info("Sequencer built block", { number: r.ref.number, hash: bytesToHex(r.ref.hash) });
          continue;
        }
        const ms =
          r.kind === "early"
            ? Math.min(r.waitMs, 1000)
            : r.kind === "failed"
              ? 1000
              : r.kind === "inactive"
                ? 60_000
                : 500;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, ms);
          t.unref?.();
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        this.wake = null;
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }
}
