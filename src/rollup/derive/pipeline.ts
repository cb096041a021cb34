/**
 * The derivation pipeline (SPEC: protocol/derivation.md; op-stack.md §2.1; op-node derive/
 * pipeline.go). The constructor reads like the spec, innermost stage first:
 *
 *   L1Traversal → FrameQueue (L1 retrieval + frames) → ChannelStage (bank / Holocene assembler +
 *   channel reader) → BatchMux (batch queue / Holocene batch stage) → AttributesQueue
 *
 * Pull-based: `step` asks the outermost stage for attributes; a stage that needs more input pulls
 * from the one before it; when every stage is drained (EOF) traversal moves to the next L1 block.
 * A reset restarts every stage from a base one channel timeout before the safe head's L1 origin, so
 * channels that were still open at the safe head are read again (`initialReset` in op-node).
 */
import type { ChainConfig } from "../../spec/chainConfig.js";
import { channelTimeoutAt, type RollupConfig } from "../config/rollupConfig.js";
import type { L1BlockRef, L2BlockRef } from "../refs.js";
import type { AttributesWithParent, L1InfoSource, SystemConfigSource } from "./attributes.js";
import { AttributesQueue } from "./attributesQueue.js";
import { BatchMux } from "./batchMux.js";
import type { BatchCheckObserver } from "./batchQueue.js";
import type { L2Reader } from "./batchValidity.js";
import { ChannelStage, type StageWarn } from "./channelStage.js";
import type { AltDaResolver, BlobSource, L1TxSource } from "./dataSource.js";
import { EOF, NOT_ENOUGH_DATA, temporaryError } from "./errors.js";
import { FrameQueue } from "./frameQueue.js";
import { type L1BlockSource, L1Traversal } from "./l1Traversal.js";
import type { SystemConfig } from "./systemConfig.js";

export interface PipelineL1 extends L1BlockSource, L1TxSource, L1InfoSource {
  l1BlockRefByHash(hash: Uint8Array): Promise<L1BlockRef>;
}

export interface PipelineL2 extends L2Reader, SystemConfigSource {
  l2BlockRefByHash(hash: Uint8Array): Promise<L2BlockRef>;
}

export interface PipelineDeps {
  readonly l1: PipelineL1;
  readonly l2: PipelineL2;
  readonly blobs: BlobSource | null;
  readonly altDa: AltDaResolver | null;
  readonly l1Chain: ChainConfig | null;
  readonly warn?: StageWarn;
  /** Sees each batch read from a channel, by type. */
  readonly onBatch?: (type: "singular" | "span") => void;
  /** Sees every batch that was not accepted, with the reason. */
  readonly onBatchCheck?: BatchCheckObserver;
}

/** What one step did. */
export type StepResult =
  | { readonly kind: "attributes"; readonly attributes: AttributesWithParent }
  /** Traversal moved to a new L1 block; `finished` is the block derivation is done with. */
  | { readonly kind: "advanced"; readonly finished: L1BlockRef }
  /** Nothing new on L1 yet. */
  | { readonly kind: "eof" }
  /** A stage made progress without output: step again. */
  | { readonly kind: "progress" };

export class DerivationPipeline {
  readonly traversal: L1Traversal;
  private readonly frames: FrameQueue;
  private readonly channels: ChannelStage;
  readonly batches: BatchMux;
  private readonly attributes: AttributesQueue;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly deps: PipelineDeps,
  ) {
    const warn = deps.warn ?? (() => undefined);
    const g = cfg.genesis;
    const genesisL1: L1BlockRef = {
      hash: g.l1.hash,
      number: g.l1.number,
      parentHash: new Uint8Array(32),
      timestamp: 0,
    };
    this.traversal = new L1Traversal(cfg, deps.l1, genesisL1, g.systemConfig, (m) => warn(m));
    this.frames = new FrameQueue(cfg, this.traversal, { l1: deps.l1, blobs: deps.blobs, altDa: deps.altDa, warn });
    this.channels = new ChannelStage(cfg, this.frames, warn);
    if (deps.onBatch !== undefined) this.channels.onBatch = deps.onBatch;
    this.batches = new BatchMux(cfg, this.channels, deps.l2);
    if (deps.onBatchCheck !== undefined) this.batches.observer = deps.onBatchCheck;
    this.attributes = new AttributesQueue(
      cfg,
      { l1: deps.l1, l2: deps.l2, l1Chain: deps.l1Chain, warn: (m) => warn(m) },
      this.batches,
    );
  }

  /** The L1 block derivation is reading. */
  origin(): L1BlockRef {
    return this.traversal.origin();
  }

  /** One pull for the attributes of the block after `pendingSafe`. Throws DeriveError. */
  async step(pendingSafe: L2BlockRef): Promise<StepResult> {
    const r = await this.attributes.nextAttributes(pendingSafe);
    if (r === NOT_ENOUGH_DATA) return { kind: "progress" };
    if (r !== EOF) return { kind: "attributes", attributes: r };
    const finished = this.traversal.origin();
    const adv = await this.traversal.advance();
    return adv === EOF ? { kind: "eof" } : { kind: "advanced", finished };
  }

  /** Holocene: the rest of the current channel is dropped (an invalid batch or payload). */
  flushChannel(): void {
    this.channels.flushChannel();
    this.batches.flush();
  }

  /**
   * Restarts every stage for the safe head `safe`: from the L1 block one channel timeout before its
   * origin (not before genesis), with the system config of the L2 block there.
   */
  async reset(safe: L2BlockRef): Promise<L1BlockRef> {
    const { base, sysConfig } = await this.resetBase(safe);
    this.traversal.reset(base, sysConfig);
    this.channels.reset();
    this.batches.reset(base);
    this.attributes.reset();
    return base;
  }

  private async resetBase(safe: L2BlockRef): Promise<{ base: L1BlockRef; sysConfig: SystemConfig }> {
    const g = this.cfg.genesis;
    const l1OriginNumber = safe.l1origin.number;
    let l2 = safe;
    try {
      let origin = await this.deps.l1.l1BlockRefByHash(l2.l1origin.hash);
      for (;;) {
        const afterL2Genesis = l2.number > g.l2.number;
        const afterL1Genesis = l2.l1origin.number > g.l1.number;
        const withinTimeout = l2.l1origin.number + channelTimeoutAt(this.cfg, origin.timestamp) > l1OriginNumber;
        if (!(afterL2Genesis && afterL1Genesis && withinTimeout)) break;
        l2 = await this.deps.l2.l2BlockRefByHash(l2.parentHash);
        origin = await this.deps.l1.l1BlockRefByHash(l2.l1origin.hash);
      }
      const sysConfig = await this.deps.l2.systemConfigByL2Hash(l2.hash);
      return { base: origin, sysConfig };
    } catch (e) {
      throw temporaryError(`failed to find the pipeline reset base for safe head ${safe.number}`, e);
    }
  }
}
