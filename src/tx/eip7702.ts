/**
 * EIP-7702 set-code transaction, 0x04 ‖ rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas,
 * gasLimit, destination, value, data, accessList, authorizationList, yParity, r, s]). `destination`
 * is a required address. Authorization tuples are in authorization.ts.
 */
import { authorizationListLength, decodeAuthorizationList, writeAuthorizationList } from "./authorization.js";
import {
  decodeFeeMarketPrefix,
  feeMarketPrefixLength,
  signatureFieldsLength,
  writeFeeMarketPrefix,
  writeSignatureFields,
} from "./eip1559.js";
import { TxError } from "./errors.js";
import type { RlpCursor } from "./rlpCursor.js";
import { type SetCodeTx, type TxMemo, TxType } from "./tx.js";

export function decodeSetCodeTxFields(c: RlpCursor, memo: TxMemo): SetCodeTx {
  const p = decodeFeeMarketPrefix(c);
  if (p.to === null) throw new TxError("CREATE_NOT_ALLOWED", "set-code tx: `to` must be an address");
  const authorizationList = decodeAuthorizationList(c);
  const yParity = c.u8("yParity");
  const r = c.u256("r");
  const s = c.u256("s");
  c.finish("EIP-7702 tx");
  return {
    type: TxType.SetCode,
    chainId: p.chainId,
    nonce: p.nonce,
    maxPriorityFeePerGas: p.maxPriorityFeePerGas,
    maxFeePerGas: p.maxFeePerGas,
    gasLimit: p.gasLimit,
    to: p.to,
    value: p.value,
    data: p.data,
    accessList: p.accessList,
    authorizationList,
    yParity,
    r,
    s,
    memo,
  };
}

export function setCodeTxFieldsLength(tx: SetCodeTx, signing: boolean): number {
  if (tx.to === null) throw new TxError("CREATE_NOT_ALLOWED", "set-code tx: `to` must be an address");
  return (
    feeMarketPrefixLength(tx) +
    authorizationListLength(tx.authorizationList) +
    (signing ? 0 : signatureFieldsLength(tx))
  );
}

export function writeSetCodeTxFields(out: Uint8Array, pos: number, tx: SetCodeTx, signing: boolean): number {
  pos = writeFeeMarketPrefix(out, pos, tx);
  pos = writeAuthorizationList(out, pos, tx.authorizationList);
  return signing ? pos : writeSignatureFields(out, pos, tx);
}
