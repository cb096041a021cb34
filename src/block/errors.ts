/**
 * Typed errors of the block layer (headers, bodies, withdrawals, receipts, OP extraData). Malformed
 * RLP underneath surfaces as the RLP layer's own `RlpError`; everything structural about blocks and
 * receipts is a `BlockError` with one of these stable codes.
 */
export type BlockErrorCode =
  /** A list was expected (header, block, body part, withdrawal, log, receipt). */
  | "EXPECTED_LIST"
  /** A byte string was expected (a header field, an integer, a hash). */
  | "EXPECTED_BYTES"
  /** Too few or too many fields in a header, block, body, withdrawal, log or receipt. */
  | "FIELD_COUNT"
  /** A fixed-size field (hash, address, bloom, nonce) has the wrong length. */
  | "FIELD_LENGTH"
  /** An RLP integer field starts with a zero byte. */
  | "INT_LEADING_ZERO"
  /** An integer field is wider than its type (u64, u256) or, for `number` fields, above 2^53-1. */
  | "INT_TOO_LARGE"
  /** Encoding: an optional header field is set while an earlier one is null. */
  | "FIELD_ORDER"
  /** A typed transaction in a block body is not `type ‖ payload` with 0 < type < 0x80. */
  | "TX_ENCODING"
  /** Receipt type byte not known (legacy, 0x01–0x04, OP deposit 0x7e). */
  | "RECEIPT_TYPE"
  /** Receipt status field is neither empty, 0x01, nor a 32-byte post-state root. */
  | "RECEIPT_STATUS"
  /** A receipt is encoded for the receipts root under rules that lack its fields. */
  | "RECEIPT_FIELDS"
  /** Holocene/Jovian extraData has the wrong length. */
  | "EXTRA_DATA_LENGTH"
  /** Holocene/Jovian extraData has the wrong version byte. */
  | "EXTRA_DATA_VERSION"
  /** Holocene/Jovian extraData carries a zero denominator or elasticity. */
  | "EXTRA_DATA_ZERO_PARAM";

export class BlockError extends Error {
  override readonly name = "BlockError";
  constructor(
    readonly code: BlockErrorCode,
    message: string,
  ) {
    super(message);
  }
}
