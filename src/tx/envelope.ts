/**
 * EIP-2718 envelope: decode and encode any tx type, in the three shapes it travels in.
 * - Envelope (RPC, engine API, pool): a legacy RLP list, or type byte ‖ rlp(payload).
 * - Block-body item: a legacy list, or an RLP byte string holding the typed envelope (EIP-2718).
 * - Tree item from rlp/decode.ts (`RlpItem`).
 * Decoding throws TxError only; encoding is exact-size (one allocation). The tx hash is keccak of
 * the envelope, memoized on the tx.
 */
import { keccak256 } from "../crypto/keccak.js";
import { decodeHeader, type RlpItem } from "../rlp/decode.js";
import { encodeRlp, headerLength, writeHeader } from "../rlp/encode.js";
import { RlpError } from "../rlp/errors.js";
import { decodeDepositTxFields, depositTxFieldsLength, writeDepositTxFields } from "./deposit.js";
import { decodeFeeMarketTxFields, feeMarketTxFieldsLength, writeFeeMarketTxFields } from "./eip1559.js";
import { accessListTxFieldsLength, decodeAccessListTxFields, writeAccessListTxFields } from "./eip2930.js";
import { blobTxFieldsLength, decodeBlobTxFields, writeBlobTxFields } from "./eip4844.js";
import { decodeSetCodeTxFields, setCodeTxFieldsLength, writeSetCodeTxFields } from "./eip7702.js";
import { TxError } from "./errors.js";
import { decodeLegacyFields, legacyFieldsLength, writeLegacyFields } from "./legacy.js";
import { RlpCursor } from "./rlpCursor.js";
import { listLength, writeListHeader } from "./rlpWriter.js";
import { type Tx, type TxMemo, TxType } from "./tx.js";

/** Converts RLP framing errors into TxError; anything else is a bug and propagates unchanged. */
function asTxError(e: unknown): unknown {
  if (e instanceof RlpError) return new TxError("RLP", `${e.code}: ${e.message}`, e.code);
  return e;
}

function rlpError(code: RlpError["code"], message: string): TxError {
  return new TxError("RLP", `${code}: ${message}`, code);
}

function decodeTypedUnchecked(bytes: Uint8Array): Tx {
  const type = bytes[0];
  if (
    type !== TxType.AccessList &&
    type !== TxType.FeeMarket &&
    type !== TxType.Blob &&
    type !== TxType.SetCode &&
    type !== TxType.Deposit
  ) {
    throw new TxError("TYPE_NOT_SUPPORTED", `unknown tx type 0x${type.toString(16).padStart(2, "0")}`);
  }
  if (bytes.length < 2) throw rlpError("TRUNCATED", "typed tx without a payload");
  const h = decodeHeader(bytes, 1);
  if (!h.list) throw new TxError("EXPECTED_LIST", "typed tx payload must be an RLP list");
  const end = h.start + h.length;
  if (end !== bytes.length) throw rlpError("TRAILING_BYTES", `${bytes.length - end} bytes after the tx payload`);
  const c = new RlpCursor(bytes, h.start, end);
  const memo: TxMemo = { encoded: bytes };
  switch (type) {
    case TxType.AccessList:
      return decodeAccessListTxFields(c, memo);
    case TxType.FeeMarket:
      return decodeFeeMarketTxFields(c, memo);
    case TxType.Blob:
      return decodeBlobTxFields(c, memo);
    case TxType.SetCode:
      return decodeSetCodeTxFields(c, memo);
    default:
      return decodeDepositTxFields(c, memo);
  }
}

function decodeLegacyUnchecked(bytes: Uint8Array): Tx {
  const h = decodeHeader(bytes, 0);
  const end = h.start + h.length;
  if (end !== bytes.length) throw rlpError("TRAILING_BYTES", `${bytes.length - end} bytes after the tx`);
  return decodeLegacyFields(new RlpCursor(bytes, h.start, end), { encoded: bytes });
}

/**
 * Decodes an EIP-2718 envelope: a legacy RLP list (first byte ≥ 0xc0) or type ‖ rlp(payload)
 * (first byte ≤ 0x7f). The whole input must be consumed. Byte fields are views into `bytes`.
 */
export function decodeTx(bytes: Uint8Array): Tx {
  if (bytes.length === 0) throw new TxError("EMPTY_INPUT", "empty tx");
  try {
    const b0 = bytes[0];
    if (b0 >= 0xc0) return decodeLegacyUnchecked(bytes);
    if (b0 >= 0x80) {
      throw new TxError("TYPE_NOT_SUPPORTED", "first byte is a string header: neither a type byte nor a list");
    }
    return decodeTypedUnchecked(bytes);
  } catch (e) {
    throw asTxError(e);
  }
}

/** Decodes a typed envelope found inside a block-body byte string. */
function decodeWrappedTyped(payload: Uint8Array): Tx {
  if (payload.length === 0) throw new TxError("EMPTY_INPUT", "empty typed tx in block body");
  if (payload[0] >= 0x80) {
    throw new TxError("TYPE_NOT_SUPPORTED", "block-body byte string must hold a typed tx (type byte < 0x80)");
  }
  return decodeTypedUnchecked(payload);
}

/**
 * Decodes the block-body item at `pos` (a legacy list, or a byte string holding a typed envelope)
 * and returns the tx and the position after the item. For walking a body's tx list without building
 * an RLP tree.
 */
export function decodeTxAt(input: Uint8Array, pos: number, end: number = input.length): { tx: Tx; end: number } {
  try {
    const h = decodeHeader(input, pos, end);
    const itemEnd = h.start + h.length;
    if (h.list) {
      const tx = decodeLegacyFields(new RlpCursor(input, h.start, itemEnd), { encoded: input.subarray(pos, itemEnd) });
      return { tx, end: itemEnd };
    }
    return { tx: decodeWrappedTyped(input.subarray(h.start, itemEnd)), end: itemEnd };
  } catch (e) {
    throw asTxError(e);
  }
}

/**
 * Decodes a tx given as an item of an RLP tree (rlp/decode.ts): a list is a legacy tx, a byte string
 * a typed envelope. PERF: a legacy item is re-encoded to get its bytes; walking the raw body with
 * decodeTxAt avoids that.
 */
export function decodeTxFromBlockItem(item: RlpItem): Tx {
  if (Array.isArray(item)) return decodeTx(encodeRlp(item));
  try {
    return decodeWrappedTyped(item as Uint8Array);
  } catch (e) {
    throw asTxError(e);
  }
}

/** Size of the list payload (fields) of the full signed encoding. */
function fieldsLength(tx: Tx): number {
  switch (tx.type) {
    case TxType.Legacy:
      return legacyFieldsLength(tx, "full");
    case TxType.AccessList:
      return accessListTxFieldsLength(tx, false);
    case TxType.FeeMarket:
      return feeMarketTxFieldsLength(tx, false);
    case TxType.Blob:
      return blobTxFieldsLength(tx, false);
    case TxType.SetCode:
      return setCodeTxFieldsLength(tx, false);
    case TxType.Deposit:
      return depositTxFieldsLength(tx);
  }
}

function writeFields(out: Uint8Array, pos: number, tx: Tx): number {
  switch (tx.type) {
    case TxType.Legacy:
      return writeLegacyFields(out, pos, tx, "full");
    case TxType.AccessList:
      return writeAccessListTxFields(out, pos, tx, false);
    case TxType.FeeMarket:
      return writeFeeMarketTxFields(out, pos, tx, false);
    case TxType.Blob:
      return writeBlobTxFields(out, pos, tx, false);
    case TxType.SetCode:
      return writeSetCodeTxFields(out, pos, tx, false);
    case TxType.Deposit:
      return writeDepositTxFields(out, pos, tx);
  }
}

/** Length of the EIP-2718 envelope. Throws TxError when a field is out of range for encoding. */
export function encodedTxLength(tx: Tx): number {
  const n = listLength(fieldsLength(tx));
  return tx.type === TxType.Legacy ? n : 1 + n;
}

/** Writes the envelope at `pos`; returns the end position. */
export function encodeTxInto(out: Uint8Array, pos: number, tx: Tx): number {
  const payload = fieldsLength(tx);
  if (tx.type !== TxType.Legacy) out[pos++] = tx.type;
  pos = writeListHeader(out, pos, payload);
  return writeFields(out, pos, tx);
}

/** EIP-2718 envelope in one exactly-sized buffer (always freshly encoded, never the memo's view). */
export function encodeTx(tx: Tx): Uint8Array {
  const payload = fieldsLength(tx);
  const typed = tx.type !== TxType.Legacy;
  const out = new Uint8Array((typed ? 1 : 0) + listLength(payload));
  let pos = 0;
  if (typed) out[pos++] = tx.type;
  pos = writeListHeader(out, pos, payload);
  writeFields(out, pos, tx);
  return out;
}

/** Length of the tx as a block-body item: the legacy list, or a byte string around the envelope. */
export function blockItemLength(tx: Tx): number {
  const n = encodedTxLength(tx);
  return tx.type === TxType.Legacy ? n : headerLength(n) + n;
}

/** Writes the block-body item form at `pos`; returns the end position. */
export function encodeBlockItemInto(out: Uint8Array, pos: number, tx: Tx): number {
  if (tx.type !== TxType.Legacy) pos = writeHeader(out, pos, encodedTxLength(tx), 0x80);
  return encodeTxInto(out, pos, tx);
}

/** The tx as a block-body item in one exactly-sized buffer. */
export function encodeBlockItem(tx: Tx): Uint8Array {
  const out = new Uint8Array(blockItemLength(tx));
  encodeBlockItemInto(out, 0, tx);
  return out;
}

/** keccak256 of the envelope; memoized on `tx.memo`. */
export function txHash(tx: Tx): Uint8Array {
  let memo = tx.memo;
  if (memo === undefined) memo = tx.memo = {};
  if (memo.hash !== undefined) return memo.hash;
  const h = keccak256(memo.encoded ?? encodeTx(tx));
  memo.hash = h;
  return h;
}
