/**
 * The transaction types as one discriminated union on `type`: legacy (with or without EIP-155),
 * EIP-2930 (0x01), EIP-1559 (0x02), EIP-4844 (0x03), EIP-7702 (0x04) and the OP Stack deposit (0x7E,
 * specs/protocol/deposits.md). Field order and widths follow the consensus RLP of each type.
 *
 * Numeric types: wei, fees, chain ids and signature words are bigint. `nonce` and `gasLimit` are
 * bigint too, although code-models §10.3 would make them `number`: they are u64 on the wire and
 * ethereum/tests TransactionTests holds valid txs with gasLimit 2^64-1 and nonce 2^64-2, which a
 * `number` cannot carry exactly. Executors convert them once, after checking them against the block
 * gas limit and the account nonce (both far below 2^53).
 *
 * Byte fields are views into the decoder's input; copy them if that buffer is reused.
 */

export enum TxType {
  Legacy = 0,
  AccessList = 1,
  FeeMarket = 2,
  Blob = 3,
  SetCode = 4,
  Deposit = 0x7e,
}

/** One EIP-2930 access list entry: a 20-byte address and 32-byte storage keys. */
export interface AccessListEntry {
  readonly address: Uint8Array;
  readonly storageKeys: readonly Uint8Array[];
}

export type AccessList = readonly AccessListEntry[];

/** EIP-7702 authorization tuple rlp([chainId, address, nonce, yParity, r, s]). */
export interface Authorization {
  /** u256; 0 means "any chain". */
  readonly chainId: bigint;
  readonly address: Uint8Array;
  /** u64 */
  readonly nonce: bigint;
  /** u8 on the wire; only 0 and 1 recover. */
  readonly yParity: number;
  readonly r: bigint;
  readonly s: bigint;
}

/**
 * Lazily filled cache of derived values (hash, signing hash, sender). Decoders create it holding
 * the exact bytes they read; functions in signer.ts / envelope.ts fill the rest on first use.
 */
export interface TxMemo {
  /** The EIP-2718 encoding the tx was decoded from (a view into the decoder's input). */
  encoded?: Uint8Array;
  hash?: Uint8Array;
  /** null when the tx has no signing form (deposit, or a legacy v that is neither 27/28 nor ≥ 35). */
  signingHash?: Uint8Array | null;
  /** Recovered sender; null when recovery failed. */
  sender?: Uint8Array | null;
}

export interface LegacyTx {
  readonly type: TxType.Legacy;
  readonly nonce: bigint;
  readonly gasPrice: bigint;
  readonly gasLimit: bigint;
  /** null = contract creation. */
  readonly to: Uint8Array | null;
  readonly value: bigint;
  readonly data: Uint8Array;
  /** 27/28 (pre-EIP-155) or chainId*2 + 35/36; kept as read so the encoding round-trips. */
  readonly v: bigint;
  readonly r: bigint;
  readonly s: bigint;
  memo?: TxMemo;
}

export interface AccessListTx {
  readonly type: TxType.AccessList;
  readonly chainId: bigint;
  readonly nonce: bigint;
  readonly gasPrice: bigint;
  readonly gasLimit: bigint;
  readonly to: Uint8Array | null;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly accessList: AccessList;
  readonly yParity: number;
  readonly r: bigint;
  readonly s: bigint;
  memo?: TxMemo;
}

export interface FeeMarketTx {
  readonly type: TxType.FeeMarket;
  readonly chainId: bigint;
  readonly nonce: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly maxFeePerGas: bigint;
  readonly gasLimit: bigint;
  readonly to: Uint8Array | null;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly accessList: AccessList;
  readonly yParity: number;
  readonly r: bigint;
  readonly s: bigint;
  memo?: TxMemo;
}

export interface BlobTx {
  readonly type: TxType.Blob;
  readonly chainId: bigint;
  readonly nonce: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly maxFeePerGas: bigint;
  readonly gasLimit: bigint;
  /** Required: blob txs cannot create contracts (the decoder rejects an empty `to`). */
  readonly to: Uint8Array;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly accessList: AccessList;
  readonly maxFeePerBlobGas: bigint;
  /** 32-byte versioned hashes, 0x01 ‖ sha256(commitment)[1:]. */
  readonly blobVersionedHashes: readonly Uint8Array[];
  readonly yParity: number;
  readonly r: bigint;
  readonly s: bigint;
  memo?: TxMemo;
}

export interface SetCodeTx {
  readonly type: TxType.SetCode;
  readonly chainId: bigint;
  readonly nonce: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly maxFeePerGas: bigint;
  readonly gasLimit: bigint;
  /** Required: set-code txs cannot create contracts. */
  readonly to: Uint8Array;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly accessList: AccessList;
  readonly authorizationList: readonly Authorization[];
  readonly yParity: number;
  readonly r: bigint;
  readonly s: bigint;
  memo?: TxMemo;
}

/** OP Stack deposit: no signature, no nonce, no fee fields (op-stack.md §3.1). */
export interface DepositTx {
  readonly type: TxType.Deposit;
  readonly sourceHash: Uint8Array;
  readonly from: Uint8Array;
  readonly to: Uint8Array | null;
  /** ETH minted on L2 to `from`; 0 is encoded as the empty string. */
  readonly mint: bigint;
  readonly value: bigint;
  /** u64 */
  readonly gasLimit: bigint;
  readonly isSystemTx: boolean;
  readonly data: Uint8Array;
  memo?: TxMemo;
}

export type SignedTypedTx = AccessListTx | FeeMarketTx | BlobTx | SetCodeTx;
export type SignedTx = LegacyTx | SignedTypedTx;
export type Tx = SignedTx | DepositTx;

/** The fee cap per gas: gasPrice for legacy/2930, maxFeePerGas for 1559-style txs, 0 for deposits. */
export function txMaxFeePerGas(tx: Tx): bigint {
  switch (tx.type) {
    case TxType.Legacy:
    case TxType.AccessList:
      return tx.gasPrice;
    case TxType.Deposit:
      return 0n;
    default:
      return tx.maxFeePerGas;
  }
}

/** The tip cap per gas: gasPrice for legacy/2930, maxPriorityFeePerGas for 1559-style txs, 0 for deposits. */
export function txMaxPriorityFeePerGas(tx: Tx): bigint {
  switch (tx.type) {
    case TxType.Legacy:
    case TxType.AccessList:
      return tx.gasPrice;
    case TxType.Deposit:
      return 0n;
    default:
      return tx.maxPriorityFeePerGas;
  }
}

const EMPTY_ACCESS_LIST: AccessList = Object.freeze([]) as AccessList;

/** The access list of any tx (empty for legacy and deposits). */
export function txAccessList(tx: Tx): AccessList {
  return tx.type === TxType.Legacy || tx.type === TxType.Deposit ? EMPTY_ACCESS_LIST : tx.accessList;
}
