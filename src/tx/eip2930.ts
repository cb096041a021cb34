/**
 * EIP-2930 access-list transaction, 0x01 ‖ rlp([chainId, nonce, gasPrice, gasLimit, to, value, data,
 * accessList, yParity, r, s]); the signing payload drops the last three fields.
 */
import { stringLength, writeString } from "../rlp/encode.js";
import { accessListLength, decodeAccessList, writeAccessList } from "./accessList.js";
import type { RlpCursor } from "./rlpCursor.js";
import {
  optionalAddressLength,
  smallLength,
  uintLength,
  writeOptionalAddress,
  writeSmall,
  writeUint,
} from "./rlpWriter.js";
import { type AccessListTx, type TxMemo, TxType } from "./tx.js";

export function decodeAccessListTxFields(c: RlpCursor, memo: TxMemo): AccessListTx {
  const chainId = c.u256("chainId");
  const nonce = c.u64("nonce");
  const gasPrice = c.u256("gasPrice");
  const gasLimit = c.u64("gasLimit");
  const to = c.optionalAddress("to");
  const value = c.u256("value");
  const data = c.bytes("data");
  const accessList = decodeAccessList(c);
  const yParity = c.u8("yParity");
  const r = c.u256("r");
  const s = c.u256("s");
  c.finish("EIP-2930 tx");
  return {
    type: TxType.AccessList,
    chainId,
    nonce,
    gasPrice,
    gasLimit,
    to,
    value,
    data,
    accessList,
    yParity,
    r,
    s,
    memo,
  };
}

export function accessListTxFieldsLength(tx: AccessListTx, signing: boolean): number {
  let n =
    uintLength(tx.chainId) +
    uintLength(tx.nonce, 8) +
    uintLength(tx.gasPrice) +
    uintLength(tx.gasLimit, 8) +
    optionalAddressLength(tx.to) +
    uintLength(tx.value) +
    stringLength(tx.data) +
    accessListLength(tx.accessList);
  if (!signing) n += smallLength(tx.yParity) + uintLength(tx.r) + uintLength(tx.s);
  return n;
}

export function writeAccessListTxFields(out: Uint8Array, pos: number, tx: AccessListTx, signing: boolean): number {
  pos = writeUint(out, pos, tx.chainId);
  pos = writeUint(out, pos, tx.nonce);
  pos = writeUint(out, pos, tx.gasPrice);
  pos = writeUint(out, pos, tx.gasLimit);
  pos = writeOptionalAddress(out, pos, tx.to);
  pos = writeUint(out, pos, tx.value);
  pos = writeString(out, pos, tx.data);
  pos = writeAccessList(out, pos, tx.accessList);
  if (signing) return pos;
  pos = writeSmall(out, pos, tx.yParity);
  pos = writeUint(out, pos, tx.r);
  return writeUint(out, pos, tx.s);
}
