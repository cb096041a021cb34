/**
 * EIP-1559 fee-market transaction, 0x02 ‖ rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas,
 * gasLimit, to, value, data, accessList, yParity, r, s]). The nine-field prefix up to the access list
 * is shared with EIP-4844 and EIP-7702, which append their own fields before the signature.
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
import { type AccessList, type FeeMarketTx, type TxMemo, TxType } from "./tx.js";

/** The fields common to 0x02, 0x03 and 0x04 up to and including the access list. */
export interface FeeMarketPrefix {
  readonly chainId: bigint;
  readonly nonce: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly maxFeePerGas: bigint;
  readonly gasLimit: bigint;
  readonly to: Uint8Array | null;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly accessList: AccessList;
}

export function decodeFeeMarketPrefix(c: RlpCursor): FeeMarketPrefix {
  const chainId = c.u256("chainId");
  const nonce = c.u64("nonce");
  const maxPriorityFeePerGas = c.u256("maxPriorityFeePerGas");
  const maxFeePerGas = c.u256("maxFeePerGas");
  const gasLimit = c.u64("gasLimit");
  const to = c.optionalAddress("to");
  const value = c.u256("value");
  const data = c.bytes("data");
  const accessList = decodeAccessList(c);
  return { chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gasLimit, to, value, data, accessList };
}

export function feeMarketPrefixLength(tx: FeeMarketPrefix): number {
  return (
    uintLength(tx.chainId) +
    uintLength(tx.nonce, 8) +
    uintLength(tx.maxPriorityFeePerGas) +
    uintLength(tx.maxFeePerGas) +
    uintLength(tx.gasLimit, 8) +
    optionalAddressLength(tx.to) +
    uintLength(tx.value) +
    stringLength(tx.data) +
    accessListLength(tx.accessList)
  );
}

export function writeFeeMarketPrefix(out: Uint8Array, pos: number, tx: FeeMarketPrefix): number {
  pos = writeUint(out, pos, tx.chainId);
  pos = writeUint(out, pos, tx.nonce);
  pos = writeUint(out, pos, tx.maxPriorityFeePerGas);
  pos = writeUint(out, pos, tx.maxFeePerGas);
  pos = writeUint(out, pos, tx.gasLimit);
  pos = writeOptionalAddress(out, pos, tx.to);
  pos = writeUint(out, pos, tx.value);
  pos = writeString(out, pos, tx.data);
  return writeAccessList(out, pos, tx.accessList);
}

/** Encoded size of yParity, r, s. */
export function signatureFieldsLength(tx: { yParity: number; r: bigint; s: bigint }): number {
  return smallLength(tx.yParity) + uintLength(tx.r) + uintLength(tx.s);
}

export function writeSignatureFields(
  out: Uint8Array,
  pos: number,
  tx: { yParity: number; r: bigint; s: bigint },
): number {
  pos = writeSmall(out, pos, tx.yParity);
  pos = writeUint(out, pos, tx.r);
  return writeUint(out, pos, tx.s);
}

export function decodeFeeMarketTxFields(c: RlpCursor, memo: TxMemo): FeeMarketTx {
  const p = decodeFeeMarketPrefix(c);
  const yParity = c.u8("yParity");
  const r = c.u256("r");
  const s = c.u256("s");
  c.finish("EIP-1559 tx");
  return {
    type: TxType.FeeMarket,
    chainId: p.chainId,
    nonce: p.nonce,
    maxPriorityFeePerGas: p.maxPriorityFeePerGas,
    maxFeePerGas: p.maxFeePerGas,
    gasLimit: p.gasLimit,
    to: p.to,
    value: p.value,
    data: p.data,
    accessList: p.accessList,
    yParity,
    r,
    s,
    memo,
  };
}

export function feeMarketTxFieldsLength(tx: FeeMarketTx, signing: boolean): number {
  return feeMarketPrefixLength(tx) + (signing ? 0 : signatureFieldsLength(tx));
}

export function writeFeeMarketTxFields(out: Uint8Array, pos: number, tx: FeeMarketTx, signing: boolean): number {
  pos = writeFeeMarketPrefix(out, pos, tx);
  return signing ? pos : writeSignatureFields(out, pos, tx);
}
