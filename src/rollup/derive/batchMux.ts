/**
 * Chooses the batch stage by fork (op-node rollup/derive/batch_mux.go): the pre-Holocene
 * `BatchQueue`, or the Holocene `BatchStage` once the pipeline's L1 origin is at or past Holocene
 * (SPEC: holocene/derivation.md#activation, op-stack.md §2.7).
 *
 * On a reset the stage matching the base's timestamp is used. When the origin moves into Holocene
 * (checked on every call, or forced with `transformHolocene`) the queue is replaced by a fresh
 * batch stage: buffered batches and any pending span are discarded, the L1 window and origin carry
 * over because the first Holocene channel still holds batches on pre-Holocene epochs.
 */
import { isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { L1BlockRef, L2BlockRef } from "../refs.js";
import {
  type BatchCheckObserver,
  BatchQueue,
  type BatchSource,
  type NextBatch,
  type SingularBatchProvider,
} from "./batchQueue.js";
import { BatchStage } from "./batchStage.js";
import type { L2Reader } from "./batchValidity.js";
import { criticalError, type StageSignal } from "./errors.js";

export class BatchMux implements SingularBatchProvider {
  private active: BatchQueue | BatchStage | null = null;
  /** Sees the non-accepting checks of whichever stage is active. */
  observer: BatchCheckObserver | null = null;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly prev: BatchSource,
    private readonly l2: L2Reader,
  ) {}

  /** The stage in use; null before the first reset. */
  stage(): BatchQueue | BatchStage | null {
    return this.active;
  }

  origin(): L1BlockRef {
    return this.prev.origin();
  }

  reset(base: L1BlockRef): void {
    if (isForkActive(this.cfg, "holocene", base.timestamp)) {
      if (!(this.active instanceof BatchStage)) this.active = this.newStage();
    } else if (!(this.active instanceof BatchQueue)) {
      this.active = this.newQueue();
    }
    this.active.reset(base);
  }

  /** Switch to the Holocene stage now, discarding the queue's batches but keeping its L1 window. */
  transformHolocene(): void {
    const old = this.active;
    if (!(old instanceof BatchQueue)) return;
    const next = this.newStage();
    next.adoptWindow(old.currentOrigin(), old.l1Window());
    this.active = next;
  }

  flush(): void {
    this.active?.flush();
  }

  async nextBatch(parent: L2BlockRef): Promise<NextBatch | StageSignal> {
    if (this.active === null) throw criticalError("batch mux used before reset");
    if (this.active instanceof BatchQueue && isForkActive(this.cfg, "holocene", this.prev.origin().timestamp)) {
      this.transformHolocene();
    }
    return this.active.nextBatch(parent);
  }

  private newQueue(): BatchQueue {
    const q = new BatchQueue(this.cfg, this.prev, this.l2);
    q.observer = (check) => this.observer?.(check);
    return q;
  }

  private newStage(): BatchStage {
    const s = new BatchStage(this.cfg, this.prev, this.l2);
    s.observer = (check) => this.observer?.(check);
    return s;
  }
}
