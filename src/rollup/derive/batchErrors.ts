/**
 * Why batch data could not be decoded (`BatchDecodeError`) or blocks could not be encoded as a batch
 * (`BatchEncodeError`), for both batch types: batch.ts, rawSpanBatch.ts, deriveSpanBatch.ts and
 * spanBatchBuilder.ts throw them; the channel stage reads `BatchDecodeError.phase` to drop what
 * op-node drops (channelStage.ts), and `opal-node batch-decode` reports them.
 */
export type BatchDecodeReason =
  /** Zero-length batch data. */
  | "EMPTY"
  /** A batch type byte other than 0 (singular) or 1 (span). */
  | "UNKNOWN_TYPE"
  /** The singular batch RLP is malformed (framing, field count, field widths). */
  | "SINGULAR_RLP"
  /** Input ended inside a field. */
  | "TRUNCATED"
  /** A varint with a trailing zero group. */
  | "VARINT_NON_CANONICAL"
  /** A varint wider than u64. */
  | "VARINT_OVERFLOW"
  /** A value above 2^53 - 1 where a `number` is needed (timestamps, L1 numbers). */
  | "NUMBER_TOO_LARGE"
  /** block_count = 0. */
  | "EMPTY_SPAN"
  /** A count (or one tx data item) above MAX_SPAN_BATCH_ELEMENT_COUNT (op-node ErrTooBigSpanBatchSize). */
  | "TOO_BIG"
  /** A bitlist with a set bit beyond its length. */
  | "BITLIST_PADDING"
  /** A tx data item that is not `[type ‖] rlp-list`, or whose fields do not decode. */
  | "TX_DATA"
  /** A typed tx data item of a type span batches do not carry (only 1, 2 and 4 are defined). */
  | "TX_TYPE"
  /** A set-code (type 4) tx flagged as contract creation: it needs a `to`. */
  | "SET_CODE_CREATION"
  /** l1_origin_num is smaller than the number of origin changes it implies. */
  | "ORIGIN_UNDERFLOW"
  /** A hand-built RawSpanBatch whose columns disagree in length. */
  | "INCONSISTENT";

/**
 * Why batch data could not be decoded. `phase` tells where op-node would have failed: "decode"
 * (BatchData.UnmarshalBinary: op-node drops the rest of the channel) or "derive"
 * (DeriveSpanBatch: the batch is dropped after the channel reader moved past it).
 */
export class BatchDecodeError extends Error {
  override readonly name = "BatchDecodeError";
  constructor(
    readonly reason: BatchDecodeReason,
    readonly phase: "decode" | "derive",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type BatchEncodeReason =
  /** No blocks to encode. */
  | "EMPTY"
  /** RawSpanBatch columns disagree in length, or a field is out of range. */
  | "INCONSISTENT"
  /** A batch transaction that does not decode as an EIP-2718 envelope. */
  | "TX_DECODE"
  /** A tx type span batches cannot carry (blob, deposit). */
  | "TX_TYPE"
  /** A protected or typed tx signed for another chain id. */
  | "CHAIN_ID"
  /** A legacy v that is neither 27/28 nor ≥ 35, or a yParity other than 0/1. */
  | "SIGNATURE"
  /** Blocks out of order: decreasing timestamps, or an L1 origin that does not step by 0 or 1. */
  | "ORDER"
  /** A hash of the wrong size, or a number that is not a non-negative safe integer. */
  | "RANGE";

/** Why singular batches could not be turned into (or encoded as) a batch. */
export class BatchEncodeError extends Error {
  override readonly name = "BatchEncodeError";
  constructor(
    readonly reason: BatchEncodeReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
