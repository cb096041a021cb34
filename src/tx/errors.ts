/**
 * Typed errors of the transaction layer. Decoding outside bytes throws `TxError` (never an untyped
 * error); stateless validity is a returned `TxInvalidCode` (code-models §10.2), not a throw.
 */
import type { RlpError } from "../rlp/errors.js";

/** Why bytes could not be decoded (or a tx object could not be encoded/signed). */
export type TxErrorCode =
  /** Zero-length input. */
  | "EMPTY_INPUT"
  /** Malformed RLP framing (truncated, non-canonical sizes, trailing bytes); `rlpCode` says which. */
  | "RLP"
  /** The first byte is neither a legacy list header nor a known EIP-2718 type. */
  | "TYPE_NOT_SUPPORTED"
  | "TOO_FEW_FIELDS"
  | "TOO_MANY_FIELDS"
  /** A list where a byte string belongs. */
  | "EXPECTED_BYTES"
  /** A byte string where a list belongs. */
  | "EXPECTED_LIST"
  | "INT_LEADING_ZERO"
  /** Integer wider than its field (u8, u64 or u256), or a value out of range when encoding. */
  | "INT_OVERFLOW"
  | "ADDRESS_LENGTH"
  /** A 32-byte field (storage key, versioned hash, source hash) of another length. */
  | "HASH_LENGTH"
  /** A boolean other than 0x80 (false) or 0x01 (true). */
  | "BOOL_INVALID"
  /** EIP-4844 and EIP-7702 txs cannot create contracts: `to` must be a 20-byte address. */
  | "CREATE_NOT_ALLOWED"
  /** EIP-4844 network wrapper with inconsistent blobs, commitments, proofs or version. */
  | "BLOB_WRAPPER"
  /** Signing a deposit, or with an invalid private key. */
  | "UNSIGNABLE";

export class TxError extends Error {
  override readonly name = "TxError";
  constructor(
    readonly code: TxErrorCode,
    message: string,
    /** The underlying RLP error code when `code === "RLP"`. */
    readonly rlpCode: RlpError["code"] | null = null,
  ) {
    super(message);
  }
}

/**
 * Why a decoded tx is not valid under a fork's stateless rules (validateTx). Stateful checks
 * (nonce match, balance, base fee, blob base fee, sender code) belong to the executor and pool.
 */
export type TxInvalidCode =
  /** Tx type not active at this fork; blob txs on OP chains; deposits on L1 chains. */
  | "TYPE_NOT_SUPPORTED"
  /** A deposit (0x7E) outside a block/payload context, e.g. submitted to the pool or RPC. */
  | "DEPOSIT_NOT_ALLOWED"
  /** Typed chainId, or EIP-155 v, names another chain (or v is malformed from Spurious Dragon). */
  | "INVALID_CHAIN_ID"
  /** v / yParity / r / s out of range (EIP-2: s ≤ n/2 from Homestead). */
  | "INVALID_SIGNATURE"
  /** Signature in range but no public key recovers from it. */
  | "SENDER_RECOVERY_FAILED"
  /** EIP-2681: nonce ≥ 2^64-1. */
  | "NONCE_TOO_BIG"
  /** A field beyond its width (nonce/gas > 2^64-1, value/fees ≥ 2^256); only constructed objects. */
  | "FIELD_OVERFLOW"
  /** gasLimit × (max) fee per gas does not fit 256 bits. */
  | "GAS_PRICE_PRODUCT_OVERFLOW"
  /** EIP-1559: maxPriorityFeePerGas > maxFeePerGas. */
  | "PRIORITY_FEE_GREATER_THAN_MAX_FEE"
  | "INTRINSIC_GAS_TOO_LOW"
  /** EIP-7623 (Prague): gasLimit below the calldata floor. */
  | "FLOOR_DATA_GAS_TOO_LOW"
  /** EIP-7825 (Osaka): gasLimit above 2^24. */
  | "GAS_LIMIT_CAP_EXCEEDED"
  /** EIP-3860 (Shanghai): creation with initcode over 49152 bytes. */
  | "INITCODE_SIZE_EXCEEDED"
  /** EIP-4844 / EIP-7702 without `to`. */
  | "CREATE_NOT_ALLOWED"
  | "NO_BLOB_HASHES"
  | "BLOB_COUNT_EXCEEDED"
  /** A blob versioned hash whose first byte is not 0x01 (VERSIONED_HASH_VERSION_KZG). */
  | "BLOB_HASH_VERSION"
  | "EMPTY_AUTHORIZATION_LIST";
