/**
 * JSON shapes of the eth namespace's resources, field for field as geth/op-geth write them
 * (internal/ethapi: RPCMarshalHeader/Block, RPCTransaction, MarshalReceipt; execution-apis schemas),
 * plus the OP receipt fields. Quantities are minimal 0x-hex, data 0x-hex. Pure functions of stored
 * data: the callers fetch headers, bodies and receipts from the chain store.
 *
 * OP receipts always carry `l1GasUsed`, `l1GasPrice`, `l1Fee` and `l1FeeScalar` (a decimal string)
 * right after the standard fields (spec.md §2.3). op-geth drops `l1FeeScalar` from Ecotone on; Opal
 * keeps it and fills it with the Ecotone base-fee scalar divided by 1e6 (the same decimal rendering),
 * beside the upstream `l1BaseFeeScalar` / `l1BlobBaseFee` / `l1BlobBaseFeeScalar`.
 */
import type { Header } from "../block/header.js";
import type { ReceiptLog } from "../block/log.js";
import type { Receipt } from "../block/receipt.js";
import type { Withdrawal } from "../block/withdrawal.js";
import { createAddress } from "../evm/evm.js";
import { formatFeeScalar, type L1ReceiptFields } from "../executor/op/l1Cost.js";
import { bytesToHex } from "../primitives/hex.js";
import type { JsonValue } from "../primitives/json.js";
import { bigintToAddress } from "../state/worldState.js";
import { legacyChainId } from "../tx/legacy.js";
import { type AccessList, type Tx, TxType } from "../tx/tx.js";
import { RpcError } from "./errors.js";

/**
 * A QUANTITY: minimal 0x-hex of a non-negative integer. Anything else (a negative, a fraction, NaN)
 * is a bug upstream of the formatter, never a value to put on the wire (`"0x-3ab24f4c"` is not hex):
 * it is refused as an internal error (-32603) rather than rendered.
 */
export function qty(v: number | bigint): string {
  if (typeof v === "bigint" ? v < 0n : !(Number.isSafeInteger(v) && v >= 0)) {
    throw RpcError.internal(`not a quantity: ${v}`);
  }
  return `0x${v.toString(16)}`;
}

const hex = bytesToHex;

export function headerJson(h: Header, hash: Uint8Array, size: number): Record<string, JsonValue> {
  const o: Record<string, JsonValue> = {};
  if (h.baseFeePerGas !== null) o.baseFeePerGas = qty(h.baseFeePerGas);
  if (h.blobGasUsed !== null) o.blobGasUsed = qty(h.blobGasUsed);
  o.difficulty = qty(h.difficulty);
  if (h.excessBlobGas !== null) o.excessBlobGas = qty(h.excessBlobGas);
  o.extraData = hex(h.extraData);
  o.gasLimit = qty(h.gasLimit);
  o.gasUsed = qty(h.gasUsed);
  o.hash = hex(hash);
  o.logsBloom = hex(h.logsBloom);
  o.miner = hex(h.coinbase);
  o.mixHash = hex(h.mixHash);
  o.nonce = hex(h.nonce);
  o.number = qty(h.number);
  if (h.parentBeaconBlockRoot !== null) o.parentBeaconBlockRoot = hex(h.parentBeaconBlockRoot);
  o.parentHash = hex(h.parentHash);
  o.receiptsRoot = hex(h.receiptsRoot);
  if (h.requestsHash !== null) o.requestsHash = hex(h.requestsHash);
  o.sha3Uncles = hex(h.ommersHash);
  o.size = qty(size);
  o.stateRoot = hex(h.stateRoot);
  o.timestamp = qty(h.timestamp);
  o.transactionsRoot = hex(h.transactionsRoot);
  if (h.withdrawalsRoot !== null) o.withdrawalsRoot = hex(h.withdrawalsRoot);
  return o;
}

export interface BlockJsonInput {
  readonly header: Header;
  readonly hash: Uint8Array;
  /** RLP size of the whole block. */
  readonly size: number;
  /** Tx hashes, or full tx objects when the caller asked for them. */
  readonly transactions: JsonValue[];
  readonly uncleHashes: readonly Uint8Array[];
  readonly withdrawals: readonly Withdrawal[] | null;
  /**
   * The chain's total difficulty at this block, for the blocks eth_getBlockBy* return (spec.md §2.4
   * lists `totalDifficulty`; geth wrote it there until v1.14.9 removed it, and never in blocks of
   * eth_simulateV1 or debug calls, which leave it out).
   */
  readonly totalDifficulty?: bigint | null;
}

/** geth's block object: the header fields, then transactions, uncles and withdrawals, in key order. */
export function blockJson(b: BlockJsonInput): Record<string, JsonValue> {
  const o = headerJson(b.header, b.hash, b.size);
  const out: Record<string, JsonValue> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  // geth `rpcMarshalBlock` (before v1.14.9): `GetTd` of the block, null when the chain has none.
  if (b.totalDifficulty !== undefined) out.totalDifficulty = b.totalDifficulty === null ? null : qty(b.totalDifficulty);
  out.transactions = b.transactions;
  out.uncles = b.uncleHashes.map((u) => hex(u));
  if (b.withdrawals !== null) out.withdrawals = b.withdrawals.map(withdrawalJson);
  // geth marshals a map: every key in sorted order.
  const sorted: Record<string, JsonValue> = {};
  for (const k of Object.keys(out).sort()) sorted[k] = out[k];
  return sorted;
}

export function withdrawalJson(w: Withdrawal): Record<string, JsonValue> {
  return { index: qty(w.index), validatorIndex: qty(w.validatorIndex), address: hex(w.address), amount: qty(w.amount) };
}

/** Where a tx sits; null fields for pending txs. */
export interface TxPlace {
  readonly blockHash: Uint8Array | null;
  readonly blockNumber: number | null;
  readonly blockTimestamp: number | null;
  readonly index: number | null;
  /** The block's base fee (effective gasPrice of 1559-style txs in a block), null when pending. */
  readonly baseFee: bigint | null;
}

export interface TxExtras {
  readonly hash: Uint8Array;
  readonly from: Uint8Array;
  /** OP deposits: the receipt's depositNonce (Regolith+) and depositReceiptVersion (Canyon+). */
  readonly depositNonce?: number | null;
  readonly depositReceiptVersion?: number | null;
}

function accessListJson(list: AccessList): JsonValue[] {
  return list.map((e) => ({ address: hex(e.address), storageKeys: e.storageKeys.map((k) => hex(k)) }));
}

/** geth's RPCTransaction. */
export function txJson(tx: Tx, x: TxExtras, place: TxPlace): Record<string, JsonValue> {
  const o: Record<string, JsonValue> = {
    blockHash: place.blockHash === null ? null : hex(place.blockHash),
    blockNumber: place.blockNumber === null ? null : qty(place.blockNumber),
  };
  if (place.blockTimestamp !== null) o.blockTimestamp = qty(place.blockTimestamp);
  o.from = hex(x.from);
  o.gas = qty(tx.gasLimit);
  switch (tx.type) {
    case TxType.Legacy:
    case TxType.AccessList:
      o.gasPrice = qty(tx.gasPrice);
      break;
    case TxType.Deposit:
      o.gasPrice = "0x0";
      break;
    default: {
      const price =
        place.baseFee === null ? tx.maxFeePerGas : min(tx.maxFeePerGas, place.baseFee + tx.maxPriorityFeePerGas);
      o.gasPrice = qty(price);
      o.maxFeePerGas = qty(tx.maxFeePerGas);
      o.maxPriorityFeePerGas = qty(tx.maxPriorityFeePerGas);
      if (tx.type === TxType.Blob) o.maxFeePerBlobGas = qty(tx.maxFeePerBlobGas);
    }
  }
  o.hash = hex(x.hash);
  o.input = hex(tx.data);
  o.nonce = qty(tx.type === TxType.Deposit ? (x.depositNonce ?? 0) : tx.nonce);
  o.to = tx.to === null ? null : hex(tx.to);
  o.transactionIndex = place.index === null ? null : qty(place.index);
  o.value = qty(tx.value);
  o.type = qty(tx.type);
  if (tx.type === TxType.Deposit) {
    o.v = "0x0";
    o.r = "0x0";
    o.s = "0x0";
    o.sourceHash = hex(tx.sourceHash);
    o.mint = qty(tx.mint);
    if (tx.isSystemTx) o.isSystemTx = true;
    if (x.depositReceiptVersion !== undefined && x.depositReceiptVersion !== null) {
      o.depositReceiptVersion = qty(x.depositReceiptVersion);
    }
    return o;
  }
  if (tx.type !== TxType.Legacy) {
    o.accessList = accessListJson(tx.accessList);
    o.chainId = qty(tx.chainId);
    if (tx.type === TxType.Blob) o.blobVersionedHashes = tx.blobVersionedHashes.map((h) => hex(h));
    if (tx.type === TxType.SetCode) {
      o.authorizationList = tx.authorizationList.map((a) => ({
        chainId: qty(a.chainId),
        address: hex(a.address),
        nonce: qty(a.nonce),
        yParity: qty(a.yParity),
        r: qty(a.r),
        s: qty(a.s),
      }));
    }
    o.v = qty(tx.yParity);
    o.r = qty(tx.r);
    o.s = qty(tx.s);
    o.yParity = qty(tx.yParity);
  } else {
    const cid = legacyChainId(tx.v);
    if (cid !== null && cid !== undefined) o.chainId = qty(cid);
    o.v = qty(tx.v);
    o.r = qty(tx.r);
    o.s = qty(tx.s);
  }
  return o;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

export interface LogPlace {
  readonly blockHash: Uint8Array;
  readonly blockNumber: number;
  readonly blockTimestamp: number;
  readonly txHash: Uint8Array;
  readonly txIndex: number;
  /** Index of the log in the block. */
  readonly logIndex: number;
  readonly removed?: boolean;
}

export function logJson(l: ReceiptLog, p: LogPlace): Record<string, JsonValue> {
  return {
    address: hex(l.address),
    topics: l.topics.map((t) => hex(t)),
    data: hex(l.data),
    blockNumber: qty(p.blockNumber),
    transactionHash: hex(p.txHash),
    transactionIndex: qty(p.txIndex),
    blockHash: hex(p.blockHash),
    blockTimestamp: qty(p.blockTimestamp),
    logIndex: qty(p.logIndex),
    removed: p.removed === true,
  };
}

/** Characters of `qty(n)` for a safe non-negative integer. */
function qtyLength(n: number): number {
  let digits = 1;
  while (n >= 16) {
    n = Math.floor(n / 16);
    digits++;
  }
  return 2 + digits;
}

/**
 * The keys, quotes, colons and commas of `JSON.stringify(logJson(l, p))` with no topics: `{"address":"",
 * "topics":[],"data":"","blockNumber":"","transactionHash":"","transactionIndex":"","blockHash":"",
 * "blockTimestamp":"","logIndex":"","removed":}`.
 */
const LOG_JSON_FRAME =
  '{"address":"","topics":[],"data":"","blockNumber":"","transactionHash":"","transactionIndex":"","blockHash":"","blockTimestamp":"","logIndex":"","removed":}'
    .length;

/**
 * `JSON.stringify(logJson(l, p)).length` without building it: a log query measures its reply with
 * this before it builds any of it, so a query past the reply cap costs no memory.
 */
export function logJsonLength(l: ReceiptLog, p: LogPlace): number {
  const t = l.topics.length;
  return (
    LOG_JSON_FRAME +
    42 + // address
    (t === 0 ? 0 : t * 69 - 1) + // "0x…" (68 characters) per topic, comma-separated
    2 +
    2 * l.data.length +
    qtyLength(p.blockNumber) +
    66 +
    qtyLength(p.txIndex) +
    66 +
    qtyLength(p.blockTimestamp) +
    qtyLength(p.logIndex) +
    (p.removed === true ? 4 : 5)
  );
}

export interface ReceiptPlace {
  readonly blockHash: Uint8Array;
  readonly blockNumber: number;
  readonly blockTimestamp: number;
  readonly index: number;
  /** Sum of logs of the earlier receipts of the block. */
  readonly firstLogIndex: number;
  /** cumulativeGasUsed of the previous receipt (0 for the first). */
  readonly previousCumulativeGas: number;
  readonly baseFee: bigint | null;
  readonly blobBaseFee: bigint | null;
  /** OP: the L1 fee fields of this tx (null on L1 chains and for deposits). */
  readonly l1: L1ReceiptFields | null;
}

/** The effective gas price a receipt reports. */
export function effectiveGasPrice(tx: Tx, baseFee: bigint | null): bigint {
  switch (tx.type) {
    case TxType.Legacy:
    case TxType.AccessList:
      return tx.gasPrice;
    case TxType.Deposit:
      return 0n;
    default:
      return baseFee === null ? tx.maxFeePerGas : min(tx.maxFeePerGas, baseFee + tx.maxPriorityFeePerGas);
  }
}

export function receiptJson(r: Receipt, tx: Tx, x: TxExtras, p: ReceiptPlace): Record<string, JsonValue> {
  const o: Record<string, JsonValue> = {};
  if (tx.type === TxType.Blob && p.blobBaseFee !== null) {
    o.blobGasPrice = qty(p.blobBaseFee);
    o.blobGasUsed = qty(131072 * tx.blobVersionedHashes.length);
  }
  o.blockHash = hex(p.blockHash);
  o.blockNumber = qty(p.blockNumber);
  let contract: string | null = null;
  if (tx.to === null) {
    const nonce = tx.type === TxType.Deposit ? BigInt(r.depositNonce ?? 0) : tx.nonce;
    contract = hex(bigintToAddress(createAddress(x.from, nonce)));
  }
  o.contractAddress = contract;
  o.cumulativeGasUsed = qty(r.cumulativeGasUsed);
  o.effectiveGasPrice = qty(effectiveGasPrice(tx, p.baseFee));
  o.from = hex(x.from);
  o.gasUsed = qty(r.cumulativeGasUsed - p.previousCumulativeGas);
  o.logs = r.logs.map((l, i) =>
    logJson(l, {
      blockHash: p.blockHash,
      blockNumber: p.blockNumber,
      blockTimestamp: p.blockTimestamp,
      txHash: x.hash,
      txIndex: p.index,
      logIndex: p.firstLogIndex + i,
    }),
  );
  o.logsBloom = hex(r.logsBloom);
  if (r.postState !== null) o.root = hex(r.postState);
  else o.status = qty(r.status);
  o.to = tx.to === null ? null : hex(tx.to);
  o.transactionHash = hex(x.hash);
  o.transactionIndex = qty(p.index);
  o.type = qty(tx.type);
  if (p.l1 !== null) {
    const l1 = p.l1;
    o.l1GasPrice = qty(l1.l1GasPrice);
    o.l1GasUsed = qty(l1.l1GasUsed);
    o.l1Fee = qty(l1.l1Fee);
    o.l1FeeScalar = l1.l1FeeScalar ?? formatFeeScalar(BigInt(l1.l1BaseFeeScalar ?? 0));
    if (l1.l1BaseFeeScalar !== undefined) o.l1BaseFeeScalar = qty(l1.l1BaseFeeScalar);
    if (l1.l1BlobBaseFee !== undefined) o.l1BlobBaseFee = qty(l1.l1BlobBaseFee);
    if (l1.l1BlobBaseFeeScalar !== undefined) o.l1BlobBaseFeeScalar = qty(l1.l1BlobBaseFeeScalar);
    if (l1.operatorFeeScalar !== undefined) o.operatorFeeScalar = qty(l1.operatorFeeScalar);
    if (l1.operatorFeeConstant !== undefined) o.operatorFeeConstant = qty(l1.operatorFeeConstant);
    if (l1.daFootprintGasScalar !== undefined) o.daFootprintGasScalar = qty(l1.daFootprintGasScalar);
    if (l1.blobGasUsed !== undefined) o.blobGasUsed = qty(l1.blobGasUsed);
  }
  if (tx.type === TxType.Deposit) {
    if (r.depositNonce !== null) o.depositNonce = qty(r.depositNonce);
    if (r.depositReceiptVersion !== null) o.depositReceiptVersion = qty(r.depositReceiptVersion);
  }
  return o;
}
