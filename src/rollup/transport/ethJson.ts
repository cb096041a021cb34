/**
 * The L1 execution client's JSON, typed and checked (op-service/sources/types.go, receipts.go,
 * eth/account_proof.go of op-node v1.10): headers and blocks from eth_getBlockBy*, transactions
 * rebuilt from their RPC objects (types 0–4 and the OP deposit 0x7e, signatures included), receipts
 * from any of the receipt methods, and eth_getProof results.
 *
 * Verification (everything but `--l1.trustrpc`), in op-node's order and with its wording:
 * - header: the block hash recomputed from the header fields (through Prague's requestsHash) must
 *   equal the RPC's `hash` ("failed to verify block hash");
 * - block: every tx present ("block tx N is nil"), the transactions root recomputed from the
 *   rebuilt txs ("failed to verify transactions list"), and with a withdrawals root every withdrawal
 *   present ("block withdrawal N is null") and the withdrawals root recomputed ("failed to verify
 *   withdrawals list"); without one, no withdrawals;
 * - receipts: one per tx, the metadata consistent with the block (tx index, block hash and number,
 *   gasUsed = the cumulative gas step, log indices counting up through the block, no removed log),
 *   and the receipts root recomputed from the consensus receipts;
 * - proofs: the account proof against the block's state root, each storage proof against the
 *   account's storage root.
 * A failure is an `L1VerifyError` naming the field; malformed JSON is one too (field + why).
 */
import { type Header, headerHash } from "../../block/header.js";
import type { ReceiptLog } from "../../block/log.js";
import { decodeReceipt, encodeReceipt, type Receipt } from "../../block/receipt.js";
import { encodeWithdrawal, type Withdrawal } from "../../block/withdrawal.js";
import { KECCAK256_EMPTY, keccak256 } from "../../crypto/keccak.js";
import { equalBytes, padLeft, stripLeadingZeros } from "../../primitives/bytes.js";
import { bytesToHex, hexToBytes, parseData } from "../../primitives/hex.js";
import type { JsonObject } from "../../primitives/json.js";
import { decodeQuantity } from "../../primitives/quantity.js";
import { bytesToBigint, MAX_U64 } from "../../primitives/u256.js";
import { encodeRlp, uintToRlpBytes } from "../../rlp/encode.js";
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from "../../trie/orderedRoot.js";
import { verifyProof } from "../../trie/proof.js";
import { encodeTx, txHash } from "../../tx/envelope.js";
import { type AccessListEntry, type Authorization, type Tx, TxType } from "../../tx/tx.js";
import type { BlockId, L1BlockRef } from "../refs.js";

/** The L1 RPC served something that is malformed or does not match what it must commit to. */
export class L1VerifyError extends Error {
  override readonly name = "L1VerifyError";
  constructor(
    /** The offending field, e.g. `hash`, `transactionsRoot`, `transactions[3].r`, `receiptsRoot`. */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** A header and its hash (the RPC's, checked against the fields unless the RPC is trusted). */
export interface L1BlockInfo {
  readonly hash: Uint8Array;
  readonly header: Header;
}

/** A block with its transactions (eth_getBlockBy* with full txs). */
export interface L1Block extends L1BlockInfo {
  readonly txs: readonly Tx[];
  /** Null when the block has no `withdrawals` field (pre-Shanghai). */
  readonly withdrawals: readonly Withdrawal[] | null;
}

/** A consensus receipt with the RPC's metadata about where it sits. */
export interface RpcReceipt {
  readonly receipt: Receipt;
  readonly txHash: Uint8Array;
  readonly txIndex: number;
  readonly blockHash: Uint8Array;
  readonly blockNumber: number;
  readonly gasUsed: number;
  readonly logs: readonly RpcLogMeta[];
}

export interface RpcLogMeta {
  readonly logIndex: number;
  readonly txIndex: number;
  readonly txHash: Uint8Array;
  readonly blockHash: Uint8Array;
  readonly blockNumber: number;
  readonly removed: boolean;
}

export interface StorageProofEntry {
  /** The slot, 32 bytes. */
  readonly key: Uint8Array;
  readonly value: bigint;
  readonly proof: readonly Uint8Array[];
}

/** An eth_getProof result (EIP-1186). */
export interface AccountProof {
  readonly address: Uint8Array;
  readonly nonce: bigint;
  readonly balance: bigint;
  readonly storageHash: Uint8Array;
  readonly codeHash: Uint8Array;
  readonly accountProof: readonly Uint8Array[];
  readonly storageProof: readonly StorageProofEntry[];
}

// --- JSON field readers -------------------------------------------------------------------------

function fail(field: string, why: string): never {
  throw new L1VerifyError(field, `${field}: ${why}`);
}

function asObject(v: unknown, field: string): JsonObject {
  if (v === null || typeof v !== "object" || Array.isArray(v)) fail(field, "not an object");
  return v as JsonObject;
}

function asArray(v: unknown, field: string): unknown[] {
  if (!Array.isArray(v)) fail(field, "not an array");
  return v;
}

function bytesField(o: JsonObject, key: string, field: string, size?: number): Uint8Array {
  const v = o[key];
  if (typeof v !== "string") fail(field, "missing or not a string");
  try {
    return parseData(v, size);
  } catch (e) {
    return fail(field, (e as Error).message);
  }
}

function optBytesField(o: JsonObject, key: string, field: string, size?: number): Uint8Array | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  return bytesField(o, key, field, size);
}

function bigField(o: JsonObject, key: string, field: string): bigint {
  const v = o[key];
  if (typeof v !== "string") fail(field, "missing or not a quantity");
  try {
    return decodeQuantity(v);
  } catch (e) {
    return fail(field, (e as Error).message);
  }
}

function optBigField(o: JsonObject, key: string, field: string): bigint | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  return bigField(o, key, field);
}

function u64Field(o: JsonObject, key: string, field: string): bigint {
  const v = bigField(o, key, field);
  if (v > MAX_U64) fail(field, "exceeds 64 bits");
  return v;
}

function numField(o: JsonObject, key: string, field: string): number {
  const v = bigField(o, key, field);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) fail(field, "exceeds 2^53-1");
  return Number(v);
}

function optNumField(o: JsonObject, key: string, field: string): number | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  return numField(o, key, field);
}

/** `to`: null/absent for a creation, else a 20-byte address. */
function toField(o: JsonObject, field: string): Uint8Array | null {
  return optBytesField(o, "to", field, 20);
}

// --- headers and blocks ---------------------------------------------------------------------------

/** The header fields of an eth_getBlockBy* answer (either tx form) and its claimed hash, unchecked. */
function readHeader(o: JsonObject): L1BlockInfo {
  const header: Header = {
    parentHash: bytesField(o, "parentHash", "parentHash", 32),
    ommersHash: bytesField(o, "sha3Uncles", "sha3Uncles", 32),
    coinbase: bytesField(o, "miner", "miner", 20),
    stateRoot: bytesField(o, "stateRoot", "stateRoot", 32),
    transactionsRoot: bytesField(o, "transactionsRoot", "transactionsRoot", 32),
    receiptsRoot: bytesField(o, "receiptsRoot", "receiptsRoot", 32),
    logsBloom: bytesField(o, "logsBloom", "logsBloom", 256),
    difficulty: bigField(o, "difficulty", "difficulty"),
    number: numField(o, "number", "number"),
    gasLimit: u64Field(o, "gasLimit", "gasLimit"),
    gasUsed: numField(o, "gasUsed", "gasUsed"),
    timestamp: numField(o, "timestamp", "timestamp"),
    extraData: bytesField(o, "extraData", "extraData"),
    mixHash: bytesField(o, "mixHash", "mixHash", 32),
    nonce: bytesField(o, "nonce", "nonce", 8),
    baseFeePerGas: optBigField(o, "baseFeePerGas", "baseFeePerGas"),
    withdrawalsRoot: optBytesField(o, "withdrawalsRoot", "withdrawalsRoot", 32),
    blobGasUsed: optNumField(o, "blobGasUsed", "blobGasUsed"),
    excessBlobGas: optNumField(o, "excessBlobGas", "excessBlobGas"),
    parentBeaconBlockRoot: optBytesField(o, "parentBeaconBlockRoot", "parentBeaconBlockRoot", 32),
    requestsHash: optBytesField(o, "requestsHash", "requestsHash", 32),
  };
  return { hash: bytesField(o, "hash", "hash", 32), header };
}

/** Block hash recomputed from the header fields. Throws L1VerifyError when the optional fields skip one. */
export function computeBlockHash(header: Header): Uint8Array {
  try {
    return headerHash(header);
  } catch (e) {
    return fail("header", (e as Error).message);
  }
}

function checkHash(info: L1BlockInfo): void {
  const computed = computeBlockHash(info.header);
  if (!equalBytes(computed, info.hash)) {
    throw new L1VerifyError(
      "hash",
      `failed to verify block hash: computed ${bytesToHex(computed)} but RPC said ${bytesToHex(info.hash)}`,
    );
  }
}

/**
 * A header (eth_getBlockBy* with or without txs, or a newHeads notification). With `verify`, the
 * hash is recomputed and must match.
 */
export function parseL1Header(json: unknown, verify: boolean): L1BlockInfo {
  const info = readHeader(asObject(json, "block"));
  if (verify) checkHash(info);
  return info;
}

/** A block with full transaction objects; with `verify`, checked as op-node's rpcBlock.verify. */
export function parseL1Block(json: unknown, verify: boolean): L1Block {
  const o = asObject(json, "block");
  const info = readHeader(o);
  if (verify) checkHash(info);
  const rawTxs = asArray(o.transactions, "transactions");
  const txs: Tx[] = new Array(rawTxs.length);
  for (let i = 0; i < rawTxs.length; i++) {
    if (rawTxs[i] === null || rawTxs[i] === undefined) {
      throw new L1VerifyError(`transactions[${i}]`, `block tx ${i} is nil`);
    }
    txs[i] = parseRpcTx(rawTxs[i], `transactions[${i}]`);
  }
  let withdrawals: Withdrawal[] | null = null;
  const rawW = o.withdrawals;
  if (rawW !== undefined && rawW !== null) {
    const list = asArray(rawW, "withdrawals");
    withdrawals = new Array(list.length);
    for (let i = 0; i < list.length; i++) {
      if (list[i] === null || list[i] === undefined) {
        throw new L1VerifyError(`withdrawals[${i}]`, `block withdrawal ${i} is null`);
      }
      withdrawals[i] = parseWithdrawal(list[i], `withdrawals[${i}]`);
    }
  }
  const block: L1Block = { hash: info.hash, header: info.header, txs, withdrawals };
  if (verify) verifyBlockBody(block);
  return block;
}

function verifyBlockBody(b: L1Block): void {
  const txRoot = orderedTrieRoot(b.txs.map((tx) => encodeTx(tx)));
  if (!equalBytes(txRoot, b.header.transactionsRoot)) {
    throw new L1VerifyError(
      "transactionsRoot",
      `failed to verify transactions list: computed ${bytesToHex(txRoot)} but RPC said ${bytesToHex(b.header.transactionsRoot)}`,
    );
  }
  const wRoot = b.header.withdrawalsRoot;
  if (wRoot !== null) {
    if (b.withdrawals === null) throw new L1VerifyError("withdrawals", "expected withdrawals");
    const computed = orderedTrieRoot(b.withdrawals.map(encodeWithdrawal));
    if (!equalBytes(computed, wRoot)) {
      throw new L1VerifyError(
        "withdrawalsRoot",
        `failed to verify withdrawals list: computed ${bytesToHex(computed)} but RPC said ${bytesToHex(wRoot)}`,
      );
    }
  } else if (b.withdrawals !== null) {
    throw new L1VerifyError(
      "withdrawals",
      `expected no withdrawals due to missing withdrawals-root, but got ${b.withdrawals.length}`,
    );
  }
}

function parseWithdrawal(v: unknown, field: string): Withdrawal {
  const o = asObject(v, field);
  return {
    index: u64Field(o, "index", `${field}.index`),
    validatorIndex: u64Field(o, "validatorIndex", `${field}.validatorIndex`),
    address: bytesField(o, "address", `${field}.address`, 20),
    amount: u64Field(o, "amount", `${field}.amount`),
  };
}

/** The L1BlockRef of a header. */
export function l1BlockRef(info: L1BlockInfo): L1BlockRef {
  return {
    hash: info.hash,
    number: info.header.number,
    parentHash: info.header.parentHash,
    timestamp: info.header.timestamp,
  };
}

// --- transactions -------------------------------------------------------------------------------

function accessListField(o: JsonObject, field: string): AccessListEntry[] {
  const v = o.accessList;
  if (v === undefined || v === null) return [];
  return asArray(v, `${field}.accessList`).map((e, i) => {
    const f = `${field}.accessList[${i}]`;
    const eo = asObject(e, f);
    const keys = eo.storageKeys === undefined || eo.storageKeys === null ? [] : asArray(eo.storageKeys, f);
    return {
      address: bytesField(eo, "address", `${f}.address`, 20),
      storageKeys: keys.map((k, j) => bytesField({ k }, "k", `${f}.storageKeys[${j}]`, 32)),
    };
  });
}

/** yParity of a typed tx: `yParity`, else `v`; both given must agree; only 0 or 1. */
function yParityField(o: JsonObject, field: string): number {
  const y = optBigField(o, "yParity", `${field}.yParity`);
  const v = optBigField(o, "v", `${field}.v`);
  if (y === null && v === null) fail(`${field}.v`, "missing signature field 'v'");
  if (y !== null && v !== null && y !== v) fail(`${field}.yParity`, "'v' and 'yParity' differ");
  const p = y ?? (v as bigint);
  if (p > 1n) fail(`${field}.yParity`, `invalid y parity ${p}`);
  return Number(p);
}

function authorizationField(v: unknown, field: string): Authorization {
  const o = asObject(v, field);
  const yParity = bigField(o, "yParity", `${field}.yParity`);
  if (yParity > 255n) fail(`${field}.yParity`, "exceeds 8 bits");
  return {
    chainId: bigField(o, "chainId", `${field}.chainId`),
    address: bytesField(o, "address", `${field}.address`, 20),
    nonce: u64Field(o, "nonce", `${field}.nonce`),
    yParity: Number(yParity),
    r: bigField(o, "r", `${field}.r`),
    s: bigField(o, "s", `${field}.s`),
  };
}

function requiredTo(o: JsonObject, field: string): Uint8Array {
  const to = toField(o, `${field}.to`);
  if (to === null) fail(`${field}.to`, "this tx type cannot create a contract");
  return to;
}

/**
 * Rebuilds a transaction from its RPC object (geth's RPCTransaction / Transaction.UnmarshalJSON):
 * every consensus field including the signature, so its envelope, hash and the block's transactions
 * root can be recomputed. Sender and hash fields of the object are ignored.
 */
export function parseRpcTx(json: unknown, field = "tx"): Tx {
  const o = asObject(json, field);
  const type = o.type === undefined || o.type === null ? 0n : bigField(o, "type", `${field}.type`);
  const f = (k: string): string => `${field}.${k}`;
  switch (type) {
    case 0n:
      return {
        type: TxType.Legacy,
        nonce: u64Field(o, "nonce", f("nonce")),
        gasPrice: bigField(o, "gasPrice", f("gasPrice")),
        gasLimit: u64Field(o, "gas", f("gas")),
        to: toField(o, f("to")),
        value: bigField(o, "value", f("value")),
        data: bytesField(o, "input", f("input")),
        v: bigField(o, "v", f("v")),
        r: bigField(o, "r", f("r")),
        s: bigField(o, "s", f("s")),
      };
    case 1n:
      return {
        type: TxType.AccessList,
        chainId: bigField(o, "chainId", f("chainId")),
        nonce: u64Field(o, "nonce", f("nonce")),
        gasPrice: bigField(o, "gasPrice", f("gasPrice")),
        gasLimit: u64Field(o, "gas", f("gas")),
        to: toField(o, f("to")),
        value: bigField(o, "value", f("value")),
        data: bytesField(o, "input", f("input")),
        accessList: accessListField(o, field),
        yParity: yParityField(o, field),
        r: bigField(o, "r", f("r")),
        s: bigField(o, "s", f("s")),
      };
    case 2n:
      return {
        type: TxType.FeeMarket,
        chainId: bigField(o, "chainId", f("chainId")),
        nonce: u64Field(o, "nonce", f("nonce")),
        maxPriorityFeePerGas: bigField(o, "maxPriorityFeePerGas", f("maxPriorityFeePerGas")),
        maxFeePerGas: bigField(o, "maxFeePerGas", f("maxFeePerGas")),
        gasLimit: u64Field(o, "gas", f("gas")),
        to: toField(o, f("to")),
        value: bigField(o, "value", f("value")),
        data: bytesField(o, "input", f("input")),
        accessList: accessListField(o, field),
        yParity: yParityField(o, field),
        r: bigField(o, "r", f("r")),
        s: bigField(o, "s", f("s")),
      };
    case 3n: {
      const hashes = asArray(o.blobVersionedHashes, f("blobVersionedHashes"));
      return {
        type: TxType.Blob,
        chainId: bigField(o, "chainId", f("chainId")),
        nonce: u64Field(o, "nonce", f("nonce")),
        maxPriorityFeePerGas: bigField(o, "maxPriorityFeePerGas", f("maxPriorityFeePerGas")),
        maxFeePerGas: bigField(o, "maxFeePerGas", f("maxFeePerGas")),
        gasLimit: u64Field(o, "gas", f("gas")),
        to: requiredTo(o, field),
        value: bigField(o, "value", f("value")),
        data: bytesField(o, "input", f("input")),
        accessList: accessListField(o, field),
        maxFeePerBlobGas: bigField(o, "maxFeePerBlobGas", f("maxFeePerBlobGas")),
        blobVersionedHashes: hashes.map((h, i) => bytesField({ h }, "h", f(`blobVersionedHashes[${i}]`), 32)),
        yParity: yParityField(o, field),
        r: bigField(o, "r", f("r")),
        s: bigField(o, "s", f("s")),
      };
    }
    case 4n: {
      const auths = asArray(o.authorizationList, f("authorizationList"));
      return {
        type: TxType.SetCode,
        chainId: bigField(o, "chainId", f("chainId")),
        nonce: u64Field(o, "nonce", f("nonce")),
        maxPriorityFeePerGas: bigField(o, "maxPriorityFeePerGas", f("maxPriorityFeePerGas")),
        maxFeePerGas: bigField(o, "maxFeePerGas", f("maxFeePerGas")),
        gasLimit: u64Field(o, "gas", f("gas")),
        to: requiredTo(o, field),
        value: bigField(o, "value", f("value")),
        data: bytesField(o, "input", f("input")),
        accessList: accessListField(o, field),
        authorizationList: auths.map((a, i) => authorizationField(a, f(`authorizationList[${i}]`))),
        yParity: yParityField(o, field),
        r: bigField(o, "r", f("r")),
        s: bigField(o, "s", f("s")),
      };
    }
    case 0x7en: {
      const sys = o.isSystemTx;
      if (sys !== undefined && sys !== null && typeof sys !== "boolean") fail(f("isSystemTx"), "not a boolean");
      return {
        type: TxType.Deposit,
        sourceHash: bytesField(o, "sourceHash", f("sourceHash"), 32),
        from: bytesField(o, "from", f("from"), 20),
        to: toField(o, f("to")),
        mint: optBigField(o, "mint", f("mint")) ?? 0n,
        value: bigField(o, "value", f("value")),
        gasLimit: u64Field(o, "gas", f("gas")),
        isSystemTx: sys === true,
        data: bytesField(o, "input", f("input")),
      };
    }
    default:
      return fail(f("type"), `unsupported tx type 0x${type.toString(16)}`);
  }
}

/** Hashes of `txs` in order (memoized on each tx). */
export function txHashes(txs: readonly Tx[]): Uint8Array[] {
  return txs.map((tx) => txHash(tx));
}

// --- receipts -----------------------------------------------------------------------------------

function parseLog(v: unknown, field: string): { log: ReceiptLog; meta: RpcLogMeta } {
  const o = asObject(v, field);
  const topics = asArray(o.topics, `${field}.topics`).map((t, i) =>
    bytesField({ t }, "t", `${field}.topics[${i}]`, 32),
  );
  const log: ReceiptLog = {
    address: bytesField(o, "address", `${field}.address`, 20),
    topics,
    data: bytesField(o, "data", `${field}.data`),
  };
  const removed = o.removed;
  if (removed !== undefined && removed !== null && typeof removed !== "boolean")
    fail(`${field}.removed`, "not a boolean");
  const meta: RpcLogMeta = {
    logIndex: numField(o, "logIndex", `${field}.logIndex`),
    txIndex: numField(o, "transactionIndex", `${field}.transactionIndex`),
    txHash: bytesField(o, "transactionHash", `${field}.transactionHash`, 32),
    blockHash: bytesField(o, "blockHash", `${field}.blockHash`, 32),
    blockNumber: numField(o, "blockNumber", `${field}.blockNumber`),
    removed: removed === true,
  };
  return { log, meta };
}

/**
 * A receipt object (eth_getTransactionReceipt, eth_getBlockReceipts, parity_/erigon_/alchemy_
 * variants). The status is `status`, or `root` for a pre-Byzantium receipt.
 */
export function parseRpcReceipt(json: unknown, field = "receipt"): RpcReceipt {
  const o = asObject(json, field);
  const type = o.type === undefined || o.type === null ? 0n : bigField(o, "type", `${field}.type`);
  if (type > 0xffn) fail(`${field}.type`, "exceeds 8 bits");
  const root = optBytesField(o, "root", `${field}.root`);
  let postState: Uint8Array | null = null;
  let status = 1;
  if (root !== null && root.length > 0) {
    if (root.length !== 32) fail(`${field}.root`, "not 32 bytes");
    postState = root;
  } else {
    const s = bigField(o, "status", `${field}.status`);
    if (s > 1n) fail(`${field}.status`, `invalid status ${s}`);
    status = Number(s);
  }
  const parsed = asArray(o.logs, `${field}.logs`).map((l, i) => parseLog(l, `${field}.logs[${i}]`));
  const receipt: Receipt = {
    type: Number(type),
    status,
    postState,
    cumulativeGasUsed: numField(o, "cumulativeGasUsed", `${field}.cumulativeGasUsed`),
    logsBloom: bytesField(o, "logsBloom", `${field}.logsBloom`, 256),
    logs: parsed.map((p) => p.log),
    depositNonce: type === 0x7en ? optNumField(o, "depositNonce", `${field}.depositNonce`) : null,
    depositReceiptVersion:
      type === 0x7en ? optNumField(o, "depositReceiptVersion", `${field}.depositReceiptVersion`) : null,
  };
  return {
    receipt,
    txHash: bytesField(o, "transactionHash", `${field}.transactionHash`, 32),
    txIndex: numField(o, "transactionIndex", `${field}.transactionIndex`),
    blockHash: bytesField(o, "blockHash", `${field}.blockHash`, 32),
    blockNumber: numField(o, "blockNumber", `${field}.blockNumber`),
    gasUsed: numField(o, "gasUsed", `${field}.gasUsed`),
    logs: parsed.map((p) => p.meta),
  };
}

/**
 * Raw consensus receipts (debug_getRawReceipts) with the metadata filled in from the block, as
 * op-node's DecodeRawReceipts does.
 */
export function decodeRawReceipts(
  block: BlockId,
  raw: readonly unknown[],
  hashes: readonly Uint8Array[],
): RpcReceipt[] {
  if (raw.length !== hashes.length) {
    throw new L1VerifyError("receipts", `got ${raw.length} raw receipts, but expected ${hashes.length}`);
  }
  const out: RpcReceipt[] = new Array(raw.length);
  let logIndex = 0;
  let prevGas = 0;
  for (let i = 0; i < raw.length; i++) {
    const field = `receipts[${i}]`;
    let receipt: Receipt;
    try {
      receipt = decodeReceipt(bytesField({ r: raw[i] }, "r", field));
    } catch (e) {
      if (e instanceof L1VerifyError) throw e;
      return fail(field, `failed to decode receipt: ${(e as Error).message}`);
    }
    const logs: RpcLogMeta[] = receipt.logs.map(() => ({
      logIndex: logIndex++,
      txIndex: i,
      txHash: hashes[i],
      blockHash: block.hash,
      blockNumber: block.number,
      removed: false,
    }));
    out[i] = {
      receipt,
      txHash: hashes[i],
      txIndex: i,
      blockHash: block.hash,
      blockNumber: block.number,
      gasUsed: receipt.cumulativeGasUsed - prevGas,
      logs,
    };
    prevGas = receipt.cumulativeGasUsed;
  }
  return out;
}

/**
 * The bytes a receipt contributes to the receipts trie (geth/op-geth EncodeIndex): the consensus
 * encoding; a deposit receipt carries its nonce and version only when it has a version (Canyon),
 * the pre-Canyon form hashes without the nonce.
 */
export function receiptTrieItem(r: Receipt): Uint8Array {
  if (r.type === TxType.Deposit && r.depositReceiptVersion === null && r.depositNonce !== null) {
    return encodeReceipt({ ...r, depositNonce: null });
  }
  return encodeReceipt(r);
}

/** Receipts root of consensus receipts. */
export function receiptsRoot(receipts: readonly Receipt[]): Uint8Array {
  return orderedTrieRoot(receipts.map(receiptTrieItem));
}

/**
 * op-node's validateReceipts: one receipt per tx, metadata consistent with the block and the txs,
 * and the receipts root recomputed from the consensus fields equal to the header's.
 */
export function verifyReceipts(
  block: BlockId,
  root: Uint8Array,
  hashes: readonly Uint8Array[],
  receipts: readonly (RpcReceipt | null)[],
): void {
  if (receipts.length !== hashes.length) {
    throw new L1VerifyError("receipts", `got ${receipts.length} receipts but expected ${hashes.length}`);
  }
  if (hashes.length === 0 && !equalBytes(root, EMPTY_TRIE_ROOT)) {
    throw new L1VerifyError(
      "receiptsRoot",
      `no transactions, but got non-empty receipt trie root: ${bytesToHex(root)}`,
    );
  }
  let logIndex = 0;
  let cumulative = 0;
  const consensus: Receipt[] = new Array(receipts.length);
  for (let i = 0; i < receipts.length; i++) {
    const r = receipts[i];
    const f = `receipts[${i}]`;
    if (r === null) throw new L1VerifyError(f, `receipt of tx ${i} returns nil on retrieval`);
    if (r.txIndex !== i)
      throw new L1VerifyError(`${f}.transactionIndex`, `receipt ${i} has unexpected tx index ${r.txIndex}`);
    if (r.blockNumber !== block.number) {
      throw new L1VerifyError(
        `${f}.blockNumber`,
        `receipt ${i} has unexpected block number ${r.blockNumber}, expected ${block.number}`,
      );
    }
    if (!equalBytes(r.blockHash, block.hash)) {
      throw new L1VerifyError(
        `${f}.blockHash`,
        `receipt ${i} has unexpected block hash ${bytesToHex(r.blockHash)}, expected ${bytesToHex(block.hash)}`,
      );
    }
    const expected = r.receipt.cumulativeGasUsed - cumulative;
    if (r.gasUsed !== expected) {
      throw new L1VerifyError(
        `${f}.gasUsed`,
        `receipt ${i} has invalid gas used metadata: ${r.gasUsed}, expected ${expected}`,
      );
    }
    for (let j = 0; j < r.logs.length; j++) {
      const l = r.logs[j];
      const lf = `${f}.logs[${j}]`;
      if (l.logIndex !== logIndex) {
        throw new L1VerifyError(
          `${lf}.logIndex`,
          `log ${logIndex} (${j} of tx ${i}) has unexpected log index ${l.logIndex}`,
        );
      }
      if (l.txIndex !== i)
        throw new L1VerifyError(`${lf}.transactionIndex`, `log ${logIndex} has unexpected tx index ${l.txIndex}`);
      if (!equalBytes(l.blockHash, block.hash)) {
        throw new L1VerifyError(
          `${lf}.blockHash`,
          `log ${logIndex} has unexpected block hash ${bytesToHex(l.blockHash)}`,
        );
      }
      if (l.blockNumber !== block.number) {
        throw new L1VerifyError(`${lf}.blockNumber`, `log ${logIndex} has unexpected block number ${l.blockNumber}`);
      }
      if (!equalBytes(l.txHash, hashes[i])) {
        throw new L1VerifyError(
          `${lf}.transactionHash`,
          `log ${logIndex} has unexpected tx hash ${bytesToHex(l.txHash)}`,
        );
      }
      if (l.removed)
        throw new L1VerifyError(`${lf}.removed`, `canonical log (${logIndex}) must never be removed due to reorg`);
      logIndex++;
    }
    cumulative = r.receipt.cumulativeGasUsed;
    consensus[i] = r.receipt;
  }
  let computed: Uint8Array;
  try {
    computed = receiptsRoot(consensus);
  } catch (e) {
    computed = fail("receipts", (e as Error).message);
  }
  if (!equalBytes(computed, root)) {
    throw new L1VerifyError(
      "receiptsRoot",
      `failed to fetch list of receipts: expected receipt root ${bytesToHex(root)} but computed ${bytesToHex(computed)} from retrieved receipts`,
    );
  }
}

// --- proofs -------------------------------------------------------------------------------------

/** A lenient 256-bit hex number (eth_getProof keys and values: `0x0`, padded words, leading zeros). */
function wordField(o: JsonObject, key: string, field: string): Uint8Array {
  const v = o[key];
  if (typeof v !== "string" || !/^0[xX][0-9a-fA-F]*$/.test(v)) fail(field, "missing or not hex");
  const digits = v.slice(2);
  const b = stripLeadingZeros(hexToBytes(digits.length % 2 === 0 ? digits : `0${digits}`));
  if (b.length > 32) fail(field, "exceeds 32 bytes");
  return padLeft(b, 32);
}

function proofList(v: unknown, field: string): Uint8Array[] {
  return asArray(v, field).map((n, i) => bytesField({ n }, "n", `${field}[${i}]`));
}

/** An eth_getProof answer. */
export function parseAccountProof(json: unknown): AccountProof {
  const o = asObject(json, "proof");
  const sp = o.storageProof === undefined || o.storageProof === null ? [] : asArray(o.storageProof, "storageProof");
  return {
    address: bytesField(o, "address", "address", 20),
    nonce: u64Field(o, "nonce", "nonce"),
    balance: bigField(o, "balance", "balance"),
    storageHash: bytesField(o, "storageHash", "storageHash", 32),
    codeHash: bytesField(o, "codeHash", "codeHash", 32),
    accountProof: proofList(o.accountProof, "accountProof"),
    storageProof: sp.map((e, i) => {
      const f = `storageProof[${i}]`;
      const eo = asObject(e, f);
      return {
        key: wordField(eo, "key", `${f}.key`),
        value: bytesToBigint(wordField(eo, "value", `${f}.value`)),
        proof: proofList(eo.proof, `${f}.proof`),
      };
    }),
  };
}

function proven(root: Uint8Array, key: Uint8Array, proof: readonly Uint8Array[], field: string): Uint8Array | null {
  try {
    return verifyProof(root, key, proof);
  } catch (e) {
    return fail(field, `failed to verify proof: ${(e as Error).message}`);
  }
}

/**
 * op-node's AccountResult.Verify: each storage value against the account's storage root (an absent
 * slot proves zero), then the account [nonce, balance, storageHash, codeHash] against `stateRoot`.
 * An account the trie does not hold is accepted only when claimed empty (nonce 0, balance 0, empty
 * storage and code).
 */
export function verifyAccountProof(p: AccountProof, stateRoot: Uint8Array): void {
  for (let i = 0; i < p.storageProof.length; i++) {
    const e = p.storageProof[i];
    const f = `storageProof[${i}]`;
    const val = proven(p.storageHash, keccak256(e.key), e.proof, f);
    if (val === null && e.value === 0n) continue;
    const claimed = encodeRlp(uintToRlpBytes(e.value));
    if (val === null || !equalBytes(val, claimed)) {
      throw new L1VerifyError(
        `${f}.value`,
        `value ${i} in storage proof does not match proven value at key ${bytesToHex(e.key)}`,
      );
    }
  }
  const claimed = encodeRlp([uintToRlpBytes(p.nonce), uintToRlpBytes(p.balance), p.storageHash, p.codeHash]);
  const val = proven(stateRoot, keccak256(p.address), p.accountProof, "accountProof");
  if (val === null) {
    const empty =
      p.nonce === 0n &&
      p.balance === 0n &&
      (equalBytes(p.storageHash, EMPTY_TRIE_ROOT) || equalBytes(p.storageHash, new Uint8Array(32))) &&
      (equalBytes(p.codeHash, KECCAK256_EMPTY) || equalBytes(p.codeHash, new Uint8Array(32)));
    if (empty && p.storageProof.every((e) => e.value === 0n)) return;
    throw new L1VerifyError("accountProof", "account proof shows no account, but the RPC claims one");
  }
  if (!equalBytes(val, claimed)) {
    throw new L1VerifyError("accountProof", "account proof does not match the claimed account fields");
  }
}
