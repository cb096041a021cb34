/**
 * L1 retrieval and the frame queue (SPEC: protocol/derivation.md#l1-retrieval, #frame-queue;
 * holocene/derivation.md#frame-queue; op-node derive/l1_retrieval.go, frame_queue.go): opens the
 * current L1 block's batcher data once traversal hands it out, parses each payload into frames (a
 * payload with any bad frame is dropped whole), and from Holocene prunes frames that do not continue
 * their channel in order. EOF means the L1 block is exhausted.
 */
import { isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { L1BlockRef } from "../refs.js";
import { type DataSourceDeps, openData } from "./dataSource.js";
import { EOF, NOT_ENOUGH_DATA, type StageSignal } from "./errors.js";
import { type Frame, parseFrames, pruneFramesHolocene } from "./frame.js";
import type { L1Traversal } from "./l1Traversal.js";

export class FrameQueue {
  /** The block handed out by traversal whose data is not opened yet (kept across a failed open). */
  private pending: L1BlockRef | null = null;
  private datas: Uint8Array[] | null = null;
  private frames: Frame[] = [];

  constructor(
    private readonly cfg: RollupConfig,
    private readonly traversal: L1Traversal,
    private readonly deps: DataSourceDeps,
  ) {}

  origin(): L1BlockRef {
    return this.traversal.origin();
  }

  async nextFrame(): Promise<Frame | StageSignal> {
    if (this.frames.length === 0) {
      const data = await this.nextData();
      if (typeof data === "symbol") return data;
      const parsed = parseFrames(data);
      if (!Array.isArray(parsed)) {
        this.deps.warn?.("failed to parse frames", { origin: this.origin().number, err: parsed.toString() });
        return NOT_ENOUGH_DATA;
      }
      for (const f of parsed) this.frames.push(f);
      if (isForkActive(this.cfg, "holocene", this.origin().timestamp)) this.frames = pruneFramesHolocene(this.frames);
      if (this.frames.length === 0) return NOT_ENOUGH_DATA;
    }
    return this.frames.shift()!;
  }

  private async nextData(): Promise<Uint8Array | typeof EOF> {
    if (this.datas === null) {
      if (this.pending === null) {
        const next = this.traversal.nextL1Block();
        if (next === EOF) return EOF;
        this.pending = next;
      }
      // Throws a temporary error on failure; `pending` stays so the next call retries the same block.
      this.datas = await openData(this.cfg, this.deps, this.pending, this.traversal.systemConfig().batcherAddr);
      this.pending = null;
    }
    const d = this.datas.shift();
    if (d === undefined) {
      this.datas = null;
      return EOF;
    }
    return d;
  }

  reset(): void {
    this.pending = null;
    this.datas = null;
    this.frames = [];
  }
}
