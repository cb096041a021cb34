/**
 * Typed errors of the primitives layer. Codes are stable strings so callers (RPC, CLI) can map them
 * to their own error surfaces without parsing messages.
 */
export type PrimitiveErrorCode =
  | "HEX_PREFIX"
  | "HEX_ODD_LENGTH"
  | "HEX_CHAR"
  | "HEX_LENGTH"
  | "QUANTITY_EMPTY"
  | "QUANTITY_LEADING_ZERO"
  | "QUANTITY_RANGE"
  | "ADDRESS_LENGTH"
  | "ADDRESS_CHECKSUM"
  | "INT_RANGE";

export class PrimitiveError extends Error {
  override readonly name = "PrimitiveError";
  constructor(
    readonly code: PrimitiveErrorCode,
    message: string,
  ) {
    super(message);
  }
}
