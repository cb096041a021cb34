/**
 * The Holocene batch stage (SPEC: specs/protocol/holocene/derivation.md#span-batches, #batch-queue,
 * #fast-channel-invalidation; op-stack.md §2.7; op-node rollup/derive/batch_stage.go; kona
 * stages/batch/{batch_stream,batch_validator}.rs).
 *
 * Batches must arrive in order, so nothing is buffered: a singular batch is checked as it comes; a
 * span batch gets the prefix checks and is then streamed out one singular batch at a time, each
 * checked on its own. `past` batches are skipped silently. The first invalid batch drops the rest of
 * its span and of its channel: the stage calls `prev.flushChannel()` and counts the flush.
 */
import type { L1BlockRef, L2BlockRef } from "../refs.js";
import { BaseBatchStage, type NextBatch } from "./batchQueue.js";
import { BatchType, type SingularBatch } from "./batchTypes.js";
import { BatchValidity, checkSingularBatch, checkSpanBatchPrefix } from "./batchValidity.js";
import { criticalError, EOF, NOT_ENOUGH_DATA, type StageSignal } from "./errors.js";

/** A singular batch to check, with the L1 block its channel was read from. */
interface Candidate {
  readonly batch: SingularBatch;
  readonly inclusion: L1BlockRef;
}

export class BatchStage extends BaseBatchStage {
  /** L1 inclusion block of the span being streamed. */
  private spanInclusion: L1BlockRef | null = null;
  private flushes = 0;

  /** How many times this stage flushed its channel (fast channel invalidation). */
  channelFlushes(): number {
    return this.flushes;
  }

  override reset(base: L1BlockRef): void {
    super.reset(base);
    this.spanInclusion = null;
  }

  /** Drop the rest of the span and tell the previous stage to drop the rest of its channel. */
  flush(): void {
    this.nextSpan = [];
    this.spanInclusion = null;
    this.flushes++;
    this.prev.flushChannel?.();
  }

  async nextBatch(parent: L2BlockRef): Promise<NextBatch | StageSignal> {
    // Nothing is buffered across origins, so the window can always follow the safe head.
    this.updateOrigins(parent);
    // A channel read from the parent's origin (or before it) can only hold past batches: drain.
    if (this.originBehind(parent) || parent.l1origin.number === this.stageOrigin?.number) {
      const read = await this.prev.nextBatch();
      return read === EOF ? EOF : NOT_ENOUGH_DATA;
    }
    if (this.l1Blocks.length < 2) {
      throw criticalError(
        `batch stage holds ${this.l1Blocks.length} L1 blocks at origin ${this.stageOrigin?.number}, parent origin ${parent.l1origin.number}: derivation did not start at a safe head`,
      );
    }
    this.checkEpoch(parent);

    const candidate = await this.nextCandidate(parent);
    if (candidate === EOF) {
      // Only once the span and the previous stage are empty: maybe an empty batch.
      const empty = this.deriveNextEmptyBatch(true, parent);
      // An empty batch always advances the (local) safe head.
      return empty === null ? EOF : { batch: empty, lastInSpan: true };
    }
    if (candidate === NOT_ENOUGH_DATA) return NOT_ENOUGH_DATA;

    const check = checkSingularBatch(this.cfg, this.l1Blocks, parent, candidate.batch, candidate.inclusion);
    this.report(check);
    switch (check.validity) {
      case BatchValidity.Accept:
        // With Holocene every accepted block is immediately (local) safe.
        return { batch: candidate.batch, lastInSpan: true };
      case BatchValidity.Past:
        return NOT_ENOUGH_DATA;
      case BatchValidity.Drop:
        this.flush();
        return NOT_ENOUGH_DATA;
      case BatchValidity.Undecided:
        return NOT_ENOUGH_DATA;
      case BatchValidity.Future:
        throw criticalError(`future batch validity under Holocene: ${check.reason}`);
    }
  }

  /** The next singular batch: from the current span, else from the previous stage. */
  private async nextCandidate(parent: L2BlockRef): Promise<Candidate | StageSignal> {
    const fromSpan = this.nextFromSpan(parent);
    if (fromSpan !== null) return { batch: fromSpan, inclusion: this.spanInclusion ?? this.origin() };
    const read = await this.prev.nextBatch();
    if (read === EOF || read === NOT_ENOUGH_DATA) return read;
    if (read.batch.type === BatchType.Singular) return { batch: read.batch.batch, inclusion: read.inclusionBlock };

    const span = read.batch.batch;
    const check = await checkSpanBatchPrefix(this.cfg, this.l1Blocks, parent, span, read.inclusionBlock, this.l2);
    this.report(check);
    switch (check.validity) {
      case BatchValidity.Accept:
        break;
      case BatchValidity.Past:
        return NOT_ENOUGH_DATA;
      case BatchValidity.Drop:
        this.flush();
        return NOT_ENOUGH_DATA;
      case BatchValidity.Undecided:
        return NOT_ENOUGH_DATA;
      case BatchValidity.Future:
        throw criticalError(`future span batch validity under Holocene: ${check.reason}`);
    }
    this.setSpan(span.batches, parent);
    this.spanInclusion = read.inclusionBlock;
    const first = this.nextFromSpan(parent);
    if (first === null) throw criticalError("accepted span batch has no block after the safe head");
    return { batch: first, inclusion: read.inclusionBlock };
  }
}
