/**
 * Transaction receipts, consensus encoding (Yellow Paper §4.3.1, EIP-658, EIP-2718):
 * - legacy: `rlp([statusOrPostState, cumulativeGasUsed, logsBloom, logs])`
 * - typed (0x01–0x04): `type ‖ rlp([status, cumulativeGasUsed, logsBloom, logs])`
 * - OP deposit (0x7e, SPEC: specs/protocol/deposits.md#deposit-receipt; op-geth core/types/receipt.go):
 *   `0x7e ‖ rlp([status, cumulativeGasUsed, logsBloom, logs, depositNonce?, depositReceiptVersion?])`,
 *   `depositNonce` from Regolith, `depositReceiptVersion` (= 1) from Canyon.
 *
 * The receipts root hashes a fork-dependent form (`encodeReceiptForRoot`): before Canyon a deposit
 * receipt enters the trie in the plain 4-field form even when it stores a nonce (op-geth keeps that
 * Regolith quirk, "TestReceiptEncodeIndexBugIsEnshrined"); from Canyon the 6-field form. Every other
 * receipt hashes its consensus encoding. Decoded byte fields are views into the input.
 */
import { encodedLength, encodeRlpInto, headerLength, uintToRlpBytes, writeHeader } from "../rlp/encode.js";
import { type ForkRules, OpFork } from "../spec/forks.js";
import { TxType } from "../tx/tx.js";
import { BlockError } from "./errors.js";
import { ListReader } from "./listReader.js";
import { logEncodedLength, type ReceiptLog, readLog, writeLog } from "./log.js";
import { logsBloom } from "./logsBloom.js";

/** `depositReceiptVersion` written from Canyon on. */
export const CANYON_DEPOSIT_RECEIPT_VERSION = 1;

export interface Receipt {
  /** EIP-2718 type of the transaction (0 legacy, 1–4, 0x7e deposit). */
  type: number;
  /** EIP-658 status: 1 success, 0 failure. Ignored when `postState` is set. */
  status: number;
  /** Pre-Byzantium intermediate state root (32 bytes) in place of the status; null from Byzantium. */
  postState: Uint8Array | null;
  cumulativeGasUsed: number;
  /** 256 bytes; see logsBloom.ts. */
  logsBloom: Uint8Array;
  logs: ReceiptLog[];
  /** Deposit receipts from Regolith: the sender nonce before execution. Null otherwise. */
  depositNonce: number | null;
  /** Deposit receipts from Canyon: `CANYON_DEPOSIT_RECEIPT_VERSION`. Null otherwise. */
  depositReceiptVersion: number | null;
}

const STATUS_SUCCESS = Uint8Array.of(0x01);
const STATUS_FAILURE = new Uint8Array(0);

function isKnownType(t: number): boolean {
  return (t >= TxType.AccessList && t <= TxType.SetCode) || t === TxType.Deposit;
}

/** Decodes a receipt's consensus (EIP-2718) encoding. */
export function decodeReceipt(input: Uint8Array): Receipt {
  if (input.length === 0) throw new BlockError("RECEIPT_TYPE", "empty receipt");
  const first = input[0];
  let type = TxType.Legacy;
  let r: ListReader;
  if (first >= 0xc0) {
    r = ListReader.whole(input, "receipt");
  } else {
    if (!isKnownType(first)) throw new BlockError("RECEIPT_TYPE", `unknown receipt type 0x${first.toString(16)}`);
    type = first;
    r = ListReader.whole(input.subarray(1), "receipt");
  }
  return readReceiptBody(r, type, true);
}

/**
 * The fields of a receipt list after its type — status or post-state, cumulative gas, the bloom
 * (`withBloom`; eth/69's network form omits it and it is recomputed from the logs, EIP-7642), the
 * logs and a deposit's nonce and receipt version — then the list's end.
 */
export function readReceiptBody(r: ListReader, type: number, withBloom: boolean): Receipt {
  const statusBytes = r.bytes("receipt.status");
  let status: number;
  let postState: Uint8Array | null = null;
  if (statusBytes.length === 0) status = 0;
  else if (statusBytes.length === 1 && statusBytes[0] === 1) status = 1;
  else if (statusBytes.length === 32) {
    status = 1;
    postState = statusBytes;
  } else throw new BlockError("RECEIPT_STATUS", `receipt.status: invalid ${statusBytes.length}-byte value`);
  const cumulativeGasUsed = r.safeInt("receipt.cumulativeGasUsed");
  const bloom = withBloom ? r.fixed(256, "receipt.logsBloom") : null;
  const l = r.list("receipt.logs");
  const logs: ReceiptLog[] = [];
  while (l.hasMore()) logs.push(readLog(l));
  let depositNonce: number | null = null;
  let depositReceiptVersion: number | null = null;
  if (type === TxType.Deposit) {
    if (r.hasMore()) depositNonce = r.safeInt("receipt.depositNonce");
    if (r.hasMore()) depositReceiptVersion = r.safeInt("receipt.depositReceiptVersion");
  }
  r.finish("receipt");
  return {
    type,
    status,
    postState,
    cumulativeGasUsed,
    logsBloom: bloom ?? logsBloom(logs),
    logs,
    depositNonce,
    depositReceiptVersion,
  };
}

function statusItem(r: Receipt): Uint8Array {
  if (r.postState !== null) {
    if (r.postState.length !== 32) {
      throw new BlockError("FIELD_LENGTH", `receipt.postState: expected 32 bytes, got ${r.postState.length}`);
    }
    return r.postState;
  }
  return r.status === 0 ? STATUS_FAILURE : STATUS_SUCCESS;
}

/** Encodes with (`withDeposit`) or without the deposit fields. */
function encode(r: Receipt, withDeposit: boolean): Uint8Array {
  if (r.type !== TxType.Legacy && !isKnownType(r.type)) {
    throw new BlockError("RECEIPT_TYPE", `unknown receipt type 0x${r.type.toString(16)}`);
  }
  if (r.logsBloom.length !== 256) {
    throw new BlockError("FIELD_LENGTH", `receipt.logsBloom: expected 256 bytes, got ${r.logsBloom.length}`);
  }
  const status = statusItem(r);
  const gas = uintToRlpBytes(r.cumulativeGasUsed);
  let logsPayload = 0;
  for (const log of r.logs) logsPayload += logEncodedLength(log);
  let nonce: Uint8Array | null = null;
  let version: Uint8Array | null = null;
  if (withDeposit && r.type === TxType.Deposit) {
    if (r.depositReceiptVersion !== null && r.depositNonce === null) {
      throw new BlockError("RECEIPT_FIELDS", "deposit receipt has depositReceiptVersion without depositNonce");
    }
    if (r.depositNonce !== null) nonce = uintToRlpBytes(r.depositNonce);
    if (r.depositReceiptVersion !== null) version = uintToRlpBytes(r.depositReceiptVersion);
  }
  const payload =
    encodedLength(status) +
    encodedLength(gas) +
    (3 + 256) +
    headerLength(logsPayload) +
    logsPayload +
    (nonce === null ? 0 : encodedLength(nonce)) +
    (version === null ? 0 : encodedLength(version));
  const typed = r.type !== TxType.Legacy;
  const out = new Uint8Array((typed ? 1 : 0) + headerLength(payload) + payload);
  let pos = 0;
  if (typed) out[pos++] = r.type;
  pos = writeHeader(out, pos, payload, 0xc0);
  pos = encodeRlpInto(out, pos, status);
  pos = encodeRlpInto(out, pos, gas);
  pos = writeHeader(out, pos, 256, 0x80);
  out.set(r.logsBloom, pos);
  pos += 256;
  pos = writeHeader(out, pos, logsPayload, 0xc0);
  for (const log of r.logs) pos = writeLog(out, pos, log);
  if (nonce !== null) pos = encodeRlpInto(out, pos, nonce);
  if (version !== null) encodeRlpInto(out, pos, version);
  return out;
}

/**
 * Consensus (EIP-2718) encoding: what `eth_getRawReceipts`/eth/69 carry and `decodeReceipt` reads.
 * Deposit receipts include whichever of `depositNonce`/`depositReceiptVersion` are set.
 */
export function encodeReceipt(r: Receipt): Uint8Array {
  return encode(r, true);
}

/**
 * The bytes that enter the receipts trie at this receipt's index under `rules`.
 * SPEC (deposits.md#deposit-receipt): before Canyon a deposit receipt hashes as
 * `0x7e ‖ rlp([status, cumulativeGasUsed, logsBloom, logs])`, nonce or not; from Canyon it hashes
 * with `depositNonce` and `depositReceiptVersion`, both of which must then be set.
 */
export function encodeReceiptForRoot(r: Receipt, rules: ForkRules): Uint8Array {
  if (r.type !== TxType.Deposit) return encode(r, false);
  if (rules.op === null) throw new BlockError("RECEIPT_TYPE", "deposit receipt under L1 rules");
  if (rules.op < OpFork.Canyon) return encode(r, false);
  if (r.depositNonce === null || r.depositReceiptVersion === null) {
    throw new BlockError("RECEIPT_FIELDS", "Canyon deposit receipt needs depositNonce and depositReceiptVersion");
  }
  return encode(r, true);
}

/**
 * Whether `encodeReceiptForRoot(r, rules)` is `encodeReceipt(r)`: always but for a deposit receipt
 * before Canyon, which hashes without the nonce it carries. Where it is, the root's bytes can be
 * stored as they are (ImportedBlock.receiptsEncoded).
 */
export function rootEncodingIsConsensus(r: Receipt, rules: ForkRules): boolean {
  return r.type !== TxType.Deposit || (rules.op !== null && rules.op >= OpFork.Canyon);
}

/** `encodeReceiptForRoot` for a block's receipts in order: the input of the ordered receipts trie. */
export function encodeReceiptsForRoot(receipts: readonly Receipt[], rules: ForkRules): Uint8Array[] {
  const out = new Array<Uint8Array>(receipts.length);
  for (let i = 0; i < receipts.length; i++) out[i] = encodeReceiptForRoot(receipts[i], rules);
  return out;
}
