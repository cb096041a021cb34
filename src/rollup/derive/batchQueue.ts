/**
 * The pre-Holocene batch queue (SPEC: specs/protocol/derivation.md#batch-queue,
 * delta/span-batches.md#batch-queue; op-stack.md §2.7; op-node rollup/derive/batch_queue.go), and
 * the state it shares with the Holocene batch stage (op-node `baseBatchStage`): the window of L1
 * blocks from the safe head's origin on, the singular batches left from a span batch, and empty
 * batch generation once the sequencing window has passed.
 *
 * The queue buffers batches in L1 inclusion order, keeps `future` and `undecided` ones, and hands
 * out the first one that is valid on the safe head. A span batch is checked as a whole and then
 * handed out one singular batch at a time.
 */
import { equalBytes } from "../../primitives/bytes.js";
import type { RollupConfig } from "../config/rollupConfig.js";
import type { L1BlockRef, L2BlockRef } from "../refs.js";
import { BatchType, type BatchWithInclusion, type SingularBatch, type SpanBatchElement } from "./batchTypes.js";
import { type BatchCheck, BatchValidity, checkBatch, type L2Reader } from "./batchValidity.js";
import { criticalError, EOF, NOT_ENOUGH_DATA, resetError, type StageSignal } from "./errors.js";

/** The stage before the batch stages: decoded batches tagged with their L1 inclusion block. */
export interface BatchSource {
  /** The pipeline's current L1 origin. */
  origin(): L1BlockRef;
  nextBatch(): Promise<BatchWithInclusion | StageSignal>;
  /** Holocene: drop the rest of the current channel (fast channel invalidation). */
  flushChannel?(): void;
}

/** Sees every non-accepting check result, so the pipeline can log drops with their reason. */
export type BatchCheckObserver = (check: BatchCheck) => void;

/** One singular batch for the attributes stage; `lastInSpan` is false while a span has more. */
export interface NextBatch {
  readonly batch: SingularBatch;
  readonly lastInSpan: boolean;
}

/** What the attributes stage pulls from (op-node `SingularBatchProvider`). */
export interface SingularBatchProvider {
  origin(): L1BlockRef;
  nextBatch(parent: L2BlockRef): Promise<NextBatch | StageSignal>;
  reset(base: L1BlockRef): void;
  /** Drop buffered batches (and, for Holocene, the rest of the channel). */
  flush(): void;
}

const ZERO_HASH: Uint8Array = new Uint8Array(32);

function sameRef(a: L1BlockRef | null, b: L1BlockRef): boolean {
  return a !== null && a.number === b.number && equalBytes(a.hash, b.hash);
}

/** State and rules shared by the pre-Holocene queue and the Holocene stage (op-node `baseBatchStage`). */
export abstract class BaseBatchStage implements SingularBatchProvider {
  /** The L1 block this stage has seen up to; null before the first reset. */
  protected stageOrigin: L1BlockRef | null = null;
  /**
   * Consecutive L1 blocks from the safe head's origin (the epoch) on; at most a sequencing window
   * long. An epoch leaves once every L2 block of it is safe.
   */
  protected l1Blocks: L1BlockRef[] = [];
  /** Blocks of the current span batch still to hand out, after the safe head. */
  protected nextSpan: SpanBatchElement[] = [];
  /** Called with each check that did not accept (drop, past, future, undecided); null: nobody listens. */
  observer: BatchCheckObserver | null = null;

  constructor(
    protected readonly cfg: RollupConfig,
    protected readonly prev: BatchSource,
    protected readonly l2: L2Reader,
  ) {}

  origin(): L1BlockRef {
    return this.prev.origin();
  }

  abstract nextBatch(parent: L2BlockRef): Promise<NextBatch | StageSignal>;
  abstract flush(): void;

  reset(base: L1BlockRef): void {
    // The base is kept as an epoch to build on: needed at startup, dropped later on a normal reset.
    this.stageOrigin = base;
    this.l1Blocks = [base];
    this.nextSpan = [];
  }

  /** The L1 block this stage has seen up to; null before the first reset. */
  currentOrigin(): L1BlockRef | null {
    return this.stageOrigin;
  }

  /** The window of known L1 blocks (for tests and for the Holocene transition). */
  l1Window(): readonly L1BlockRef[] {
    return this.l1Blocks;
  }

  /** Take over another stage's L1 window and origin (the Holocene transition keeps them). */
  adoptWindow(origin: L1BlockRef | null, l1Blocks: readonly L1BlockRef[]): void {
    this.stageOrigin = origin;
    this.l1Blocks = [...l1Blocks];
  }

  protected report(check: BatchCheck): void {
    if (check.validity !== BatchValidity.Accept && this.observer !== null) this.observer(check);
  }

  protected originBehind(parent: L2BlockRef): boolean {
    return this.prev.origin().number < parent.l1origin.number;
  }

  /** Track the pipeline origin and drop epochs the safe head has left (op-node `updateOrigins`). */
  protected updateOrigins(parent: L2BlockRef): void {
    const originBehind = this.originBehind(parent);
    const prevOrigin = this.prev.origin();
    if (!sameRef(this.stageOrigin, prevOrigin)) {
      this.stageOrigin = prevOrigin;
      // Behind: only right after a reset to a base before the safe head's origin; start over.
      if (originBehind) this.l1Blocks = [];
      else this.l1Blocks.push(prevOrigin);
    }
    const first = this.l1Blocks[0];
    if (first !== undefined && parent.l1origin.number > first.number) {
      for (let i = 0; i < this.l1Blocks.length; i++) {
        if (this.l1Blocks[i]!.number === parent.l1origin.number) {
          this.l1Blocks = this.l1Blocks.slice(i);
          break;
        }
      }
    }
  }

  /** The epoch of the L1 window must be the parent's origin or the block after it. */
  protected checkEpoch(parent: L2BlockRef): void {
    const epoch = this.l1Blocks[0];
    if (epoch === undefined) throw criticalError("batch stage has no L1 origin: not reset");
    const same = parent.l1origin.number === epoch.number && equalBytes(parent.l1origin.hash, epoch.hash);
    if (!same && parent.l1origin.number !== epoch.number - 1) {
      throw resetError(
        `buffered L1 epoch ${epoch.number} in the batch stage does not match the safe head origin ${parent.l1origin.number}`,
      );
    }
  }

  /** Queue the blocks of an accepted span that come after `parent`. */
  protected setSpan(blocks: readonly SpanBatchElement[], parent: L2BlockRef): void {
    this.nextSpan = blocks.filter((b) => b.timestamp > parent.timestamp);
  }

  /**
   * The next singular batch of the queued span if it follows `parent`; otherwise the rest of the
   * span is discarded (the engine did not take the previous one) and null is returned.
   */
  protected nextFromSpan(parent: L2BlockRef): SingularBatch | null {
    const next = this.nextSpan[0];
    if (next === undefined) return null;
    if (next.timestamp !== parent.timestamp + this.cfg.blockTime) {
      this.nextSpan = [];
      return null;
    }
    this.nextSpan.shift();
    return this.toSingular(next, parent);
  }

  /**
   * A span block as a singular batch on `parent`: the parent hash is the parent's (the span's parent
   * check covered the first), the epoch hash the known L1 block's. An origin missing from the window
   * gets the zero hash, which the singular check then drops (Holocene: invalid, not a stall).
   */
  protected toSingular(block: SpanBatchElement, parent: L2BlockRef): SingularBatch {
    let epochHash = ZERO_HASH;
    for (const b of this.l1Blocks) {
      if (b.number === block.epochNum) {
        epochHash = b.hash;
        break;
      }
    }
    return {
      parentHash: parent.hash,
      epochNum: block.epochNum,
      epochHash,
      timestamp: block.timestamp,
      transactions: block.transactions,
    };
  }

  /**
   * An empty batch once the sequencing window of the epoch has passed (op-node
   * `deriveNextEmptyBatch`): same epoch while the next L1 block is still later than the slot or no
   * block of the epoch exists yet; otherwise the window moves to the next epoch and null is returned.
   * Null also when nothing can be generated yet.
   */
  protected deriveNextEmptyBatch(outOfData: boolean, parent: L2BlockRef): SingularBatch | null {
    const epoch = this.l1Blocks[0];
    const origin = this.stageOrigin;
    if (epoch === undefined || origin === null) return null;
    const expiry = epoch.number + this.cfg.seqWindowSize;
    const forceEmpty = (expiry === origin.number && outOfData) || expiry < origin.number;
    if (!forceEmpty) return null;
    const nextEpoch = this.l1Blocks[1];
    if (nextEpoch === undefined) return null;
    const firstOfEpoch = epoch.number === parent.l1origin.number + 1;
    const nextTimestamp = parent.timestamp + this.cfg.blockTime;
    if (nextTimestamp < nextEpoch.timestamp || firstOfEpoch) {
      return {
        parentHash: parent.hash,
        epochNum: epoch.number,
        epochHash: epoch.hash,
        timestamp: nextTimestamp,
        transactions: [],
      };
    }
    // Every empty block of this epoch is out: move to the next one.
    this.l1Blocks.shift();
    return null;
  }
}

/** The pre-Holocene batch queue (op-node `BatchQueue`). Call `reset` before use. */
export class BatchQueue extends BaseBatchStage {
  /** Batches in the order first seen; future and undecided ones wait here. */
  private batches: BatchWithInclusion[] = [];

  /** Number of buffered batches (for tests and metrics). */
  bufferedCount(): number {
    return this.batches.length;
  }

  override reset(base: L1BlockRef): void {
    super.reset(base);
    this.batches = [];
  }

  flush(): void {
    this.batches = [];
    this.nextSpan = [];
  }

  async nextBatch(parent: L2BlockRef): Promise<NextBatch | StageSignal> {
    const fromSpan = this.nextFromSpan(parent);
    if (fromSpan !== null) return { batch: fromSpan, lastInSpan: this.nextSpan.length === 0 };

    this.updateOrigins(parent);
    const originBehind = this.originBehind(parent);
    let outOfData = false;
    const read = await this.prev.nextBatch();
    if (read === EOF) outOfData = true;
    else if (read === NOT_ENOUGH_DATA) return NOT_ENOUGH_DATA;
    else if (!originBehind) await this.addBatch(read, parent);
    // Behind the safe head's origin: drain the previous stages without keeping anything.
    if (originBehind) return outOfData ? EOF : NOT_ENOUGH_DATA;

    const next = await this.deriveNextBatch(outOfData, parent);
    if (next === null) return outOfData ? EOF : NOT_ENOUGH_DATA;
    if (next.batch.type === BatchType.Singular) return { batch: next.batch.batch, lastInSpan: true };
    this.setSpan(next.batch.batch.batches, parent);
    const first = this.nextFromSpan(parent);
    if (first === null) throw criticalError("accepted span batch has no block after the safe head");
    return { batch: first, lastInSpan: this.nextSpan.length === 0 };
  }

  private async addBatch(b: BatchWithInclusion, parent: L2BlockRef): Promise<void> {
    if (this.l1Blocks.length === 0) throw criticalError(`cannot add a batch: no L1 origin prepared`);
    const check = await checkBatch(this.cfg, this.l1Blocks, parent, b.batch, b.inclusionBlock, this.l2);
    this.report(check);
    if (check.validity === BatchValidity.Drop) return;
    this.batches.push(b);
  }

  /**
   * The first buffered batch, in inclusion order, that is valid on `parent`; dropped ones leave the
   * buffer, future ones stay, an undecided one stops the scan. Else an empty batch if the window
   * has passed. Null: nothing yet.
   */
  private async deriveNextBatch(outOfData: boolean, parent: L2BlockRef): Promise<BatchWithInclusion | null> {
    this.checkEpoch(parent);
    const remaining: BatchWithInclusion[] = [];
    for (let i = 0; i < this.batches.length; i++) {
      const b = this.batches[i]!;
      const check = await checkBatch(this.cfg, this.l1Blocks, parent, b.batch, b.inclusionBlock, this.l2);
      this.report(check);
      switch (check.validity) {
        case BatchValidity.Future:
          remaining.push(b);
          break;
        case BatchValidity.Drop:
        // Past needs a Holocene inclusion block, which the mux never sends here; treat it as a drop.
        case BatchValidity.Past:
          break;
        case BatchValidity.Accept:
          for (let j = i + 1; j < this.batches.length; j++) remaining.push(this.batches[j]!);
          this.batches = remaining;
          return b;
        case BatchValidity.Undecided:
          for (let j = i; j < this.batches.length; j++) remaining.push(this.batches[j]!);
          this.batches = remaining;
          return null;
      }
    }
    this.batches = remaining;
    const empty = this.deriveNextEmptyBatch(outOfData, parent);
    if (empty === null) return null;
    const inclusionBlock = this.stageOrigin ?? this.prev.origin();
    return { batch: { type: BatchType.Singular, batch: empty }, inclusionBlock };
  }
}
