/** Typed RLP decode errors; every rejection of outside bytes carries one of these codes. */
export type RlpErrorCode =
  | "EMPTY_INPUT"
  | "TRUNCATED"
  | "TRAILING_BYTES"
  | "NON_CANONICAL_SINGLE_BYTE"
  | "NON_CANONICAL_SIZE"
  | "LEADING_ZERO_SIZE"
  | "SIZE_TOO_LARGE"
  | "DEPTH_EXCEEDED"
  | "EXPECTED_BYTES"
  | "EXPECTED_LIST"
  | "INT_LEADING_ZERO"
  | "INT_TOO_LARGE"
  | "WRONG_FIELD_COUNT";

export class RlpError extends Error {
  override readonly name = "RlpError";
  constructor(
    readonly code: RlpErrorCode,
    message: string,
  ) {
    super(message);
  }
}
