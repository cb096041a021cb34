/**
 * The attributes queue, the outermost derivation stage (SPEC: protocol/derivation.md#payload-
 * attributes-derivation; op-node derive/attributes_queue.go): takes the next singular batch for the
 * pending safe head and turns it into payload attributes — the L1-derived deposits and upgrades of
 * `preparePayloadAttributes`, then the batch's own transactions, with the tx pool off.
 */
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { RollupConfig } from "../config/rollupConfig.js";
import type { L1BlockRef, L2BlockRef } from "../refs.js";
import { type AttributesDeps, type AttributesWithParent, preparePayloadAttributes } from "./attributes.js";
import type { NextBatch, SingularBatchProvider } from "./batchQueue.js";
import { resetError, type StageSignal } from "./errors.js";

export class AttributesQueue {
  private batch: NextBatch | null = null;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly deps: AttributesDeps,
    private readonly prev: SingularBatchProvider,
  ) {}

  origin(): L1BlockRef {
    return this.prev.origin();
  }

  async nextAttributes(parent: L2BlockRef): Promise<AttributesWithParent | StageSignal> {
    if (this.batch === null) {
      const b = await this.prev.nextBatch(parent);
      if (typeof b === "symbol") return b;
      this.batch = b;
    }
    const { batch, lastInSpan } = this.batch;
    if (batch.timestamp !== parent.timestamp + this.cfg.blockTime) {
      this.batch = null;
      throw resetError(
        `valid batch has bad timestamp ${batch.timestamp}, expected ${parent.timestamp + this.cfg.blockTime}`,
      );
    }
    if (!equalBytes(batch.parentHash, parent.hash)) {
      this.batch = null;
      throw resetError(
        `valid batch has bad parent hash ${bytesToHex(batch.parentHash)}, expected ${bytesToHex(parent.hash)}`,
      );
    }
    // A temporary failure here keeps the batch for the next call.
    const attrs = await preparePayloadAttributes(this.cfg, this.deps, parent, {
      hash: batch.epochHash,
      number: batch.epochNum,
    });
    this.batch = null;
    return {
      attributes: { ...attrs, transactions: [...attrs.transactions, ...batch.transactions], noTxPool: true },
      parent,
      isLastInSpan: lastInSpan,
      derivedFrom: this.origin(),
    };
  }

  reset(): void {
    this.batch = null;
  }
}
