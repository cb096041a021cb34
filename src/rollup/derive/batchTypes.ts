/**
 * The batch shapes derivation works on (SPEC: specs/protocol/derivation.md#batch-format,
 * delta/span-batches.md; op-stack.md §2.6). Bytes are Uint8Array, L1/L2 numbers and timestamps
 * `number` (they fit 2^53 for millennia), transactions kept as their EIP-2718 bytes because
 * derivation copies them into payload attributes untouched.
 */
import type { L1BlockRef } from "../refs.js";

export enum BatchType {
  Singular = 0,
  Span = 1,
}

/** One L2 block's batch (type 0). */
export interface SingularBatch {
  /** 32 bytes: the hash of the L2 block this batch builds on. */
  readonly parentHash: Uint8Array;
  /** L1 origin number. */
  readonly epochNum: number;
  /** 32 bytes: L1 origin hash. */
  readonly epochHash: Uint8Array;
  readonly timestamp: number;
  /** EIP-2718 encoded transactions (legacy txs as their RLP list). */
  readonly transactions: readonly Uint8Array[];
}

/** One block of a span batch, after decoding (op-node `SpanBatchElement`). */
export interface SpanBatchElement {
  readonly epochNum: number;
  readonly timestamp: number;
  readonly transactions: readonly Uint8Array[];
}

/**
 * A decoded span batch (type 1) with absolute timestamps and origins (op-node `SpanBatch`).
 * `parentCheck` and `l1OriginCheck` are the 20-byte prefixes of the parent hash of the first block
 * and of the L1 origin hash of the last block.
 */
export interface SpanBatch {
  readonly parentCheck: Uint8Array;
  readonly l1OriginCheck: Uint8Array;
  readonly batches: readonly SpanBatchElement[];
}

export type Batch =
  | { readonly type: BatchType.Singular; readonly batch: SingularBatch }
  | { readonly type: BatchType.Span; readonly batch: SpanBatch };

/** A batch with the L1 block in which its channel was completed (op-node `BatchWithL1InclusionBlock`). */
export interface BatchWithInclusion {
  readonly batch: Batch;
  readonly inclusionBlock: L1BlockRef;
}
