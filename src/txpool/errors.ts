/**
 * Why the pool refused a tx: geth's error strings, exactly (core/txpool/errors.go,
 * core/txpool/legacypool/legacypool.go, core/error.go, core/types transaction_signing.go), because
 * wallets and the RPC tests match on them. A refusal is a returned `TxPoolRejection`, never a throw
 * (code-models §10.2); the RPC layer turns `message` into the JSON-RPC error text.
 */

/** The base strings, keyed by a code. `message` carries the base plus geth's details after ": ". */
export const TX_POOL_ERRORS = {
  // core/txpool/errors.go
  ALREADY_KNOWN: "already known",
  INVALID_SENDER: "invalid sender",
  /** Pool full and the tx is not better than the cheapest pooled one (legacypool `priced.Underpriced`). */
  UNDERPRICED: "transaction underpriced",
  REPLACE_UNDERPRICED: "replacement transaction underpriced",
  /** Tip cap below `--txpool.pricelimit` (geth ≥ 1.15; older geth said "transaction underpriced"). */
  GAS_PRICE_TOO_LOW: "transaction gas price below minimum",
  GAS_LIMIT: "exceeds block gas limit",
  OVERSIZED_DATA: "oversized data",
  INFLIGHT_TX_LIMIT_REACHED: "in-flight transaction limit reached for delegated accounts",
  // core/txpool/legacypool/legacypool.go
  TXPOOL_OVERFLOW: "txpool is full",
  OUT_OF_ORDER_TX_FROM_DELEGATED: "gapped-nonce tx from delegated accounts",
  AUTHORITY_RESERVED: "authority already reserved",
  FUTURE_REPLACE_PENDING: "future transaction tries to replace pending",
  // core/error.go
  NONCE_TOO_LOW: "nonce too low",
  NONCE_MAX: "nonce has max value",
  INSUFFICIENT_FUNDS: "insufficient funds for gas * price + value",
  INTRINSIC_GAS: "intrinsic gas too low",
  FLOOR_DATA_GAS: "insufficient gas for floor data gas cost",
  TX_TYPE_NOT_SUPPORTED: "transaction type not supported",
  TIP_ABOVE_FEE_CAP: "max priority fee per gas higher than max fee per gas",
  FEE_CAP_VERY_HIGH: "max fee per gas higher than 2^256-1",
  TIP_VERY_HIGH: "max priority fee per gas higher than 2^256-1",
  MAX_INITCODE_SIZE_EXCEEDED: "max initcode size exceeded",
  GAS_LIMIT_TOO_HIGH: "transaction gas limit too high",
  // core/txpool/validation.go (no sentinel)
  EMPTY_AUTHORIZATION_LIST: "set code tx must have at least one authorization tuple",
  // not geth: bytes that do not decode as a tx (geth's RPC fails before the pool with the rlp error)
  DECODE: "invalid transaction encoding",
  // op-reth (OP chains from Karst, where op-geth is no longer supported): reth's pool refuses a tx
  // above the EIP-7825 cap with InvalidTransactionError::GasLimitTooHigh, which eth_sendRawTransaction
  // reports as RpcInvalidTransactionError::GasLimitTooHigh (reth 88505c7 rpc-eth-types error/mod.rs).
  OP_GAS_LIMIT_TOO_HIGH: "gas limit too high",
} as const;

export type TxPoolErrorCode = keyof typeof TX_POOL_ERRORS;

/** A refusal: the code and geth's full error text. */
export interface TxPoolRejection {
  readonly code: TxPoolErrorCode;
  readonly message: string;
  /**
   * The JSON-RPC error code eth_sendRawTransaction answers with, when not geth's -32000: reth's
   * `EthRpcErrorCode::TransactionRejected` (-32003) for the op-reth refusals.
   */
  readonly rpcCode?: number;
}

/** alloy `EthRpcErrorCode::TransactionRejected`, the code reth gives most invalid-transaction errors. */
export const RETH_TX_REJECTED_CODE = -32003;

/** A rejection with geth's `"%w: details"` wrapping (just the base string when `details` is omitted). */
export function reject(code: TxPoolErrorCode, details?: string): TxPoolRejection {
  const base = TX_POOL_ERRORS[code];
  return { code, message: details === undefined ? base : `${base}: ${details}` };
}

/**
 * geth locals `IsTemporaryReject`: refusals the pool's later state may lift. An RPC submission
 * refused for one of these is kept by the locals tracker (and answered with its hash) while the
 * tracker has room for it.
 */
export function isTemporaryReject(code: TxPoolErrorCode): boolean {
  switch (code) {
    case "OUT_OF_ORDER_TX_FROM_DELEGATED":
    case "INFLIGHT_TX_LIMIT_REACHED":
    case "AUTHORITY_RESERVED":
    case "UNDERPRICED":
    case "TXPOOL_OVERFLOW":
    case "FUTURE_REPLACE_PENDING":
      return true;
    default:
      return false;
  }
}
