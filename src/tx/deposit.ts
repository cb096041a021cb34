/**
 * OP Stack deposit transaction, 0x7E ‖ rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data])
 * (specs/protocol/deposits.md; op-stack.md §3.1). No signature and no nonce: the sender is `from`.
 * `to` is empty for a creation and `mint` is empty when zero; `gas` is u64, `isSystemTx` a bool.
 */
import { stringLength, writeString } from "../rlp/encode.js";
import type { RlpCursor } from "./rlpCursor.js";
import {
  addressLength,
  hash32Length,
  optionalAddressLength,
  uintLength,
  writeOptionalAddress,
  writeUint,
} from "./rlpWriter.js";
import { type DepositTx, type TxMemo, TxType } from "./tx.js";

export function decodeDepositTxFields(c: RlpCursor, memo: TxMemo): DepositTx {
  const sourceHash = c.hash32("sourceHash");
  const from = c.address("from");
  const to = c.optionalAddress("to");
  const mint = c.u256("mint");
  const value = c.u256("value");
  const gasLimit = c.u64("gas");
  const isSystemTx = c.bool("isSystemTx");
  const data = c.bytes("data");
  c.finish("deposit tx");
  return { type: TxType.Deposit, sourceHash, from, to, mint, value, gasLimit, isSystemTx, data, memo };
}

export function depositTxFieldsLength(tx: DepositTx): number {
  return (
    hash32Length(tx.sourceHash) +
    addressLength(tx.from) +
    optionalAddressLength(tx.to) +
    uintLength(tx.mint) +
    uintLength(tx.value) +
    uintLength(tx.gasLimit, 8) +
    1 +
    stringLength(tx.data)
  );
}

export function writeDepositTxFields(out: Uint8Array, pos: number, tx: DepositTx): number {
  pos = writeString(out, pos, tx.sourceHash);
  pos = writeString(out, pos, tx.from);
  pos = writeOptionalAddress(out, pos, tx.to);
  pos = writeUint(out, pos, tx.mint);
  pos = writeUint(out, pos, tx.value);
  pos = writeUint(out, pos, tx.gasLimit);
  out[pos] = tx.isSystemTx ? 0x01 : 0x80;
  pos += 1;
  return writeString(out, pos, tx.data);
}
