/**
 * EIP-4844 blob transaction as it appears in blocks, 0x03 ‖ rlp([chainId, nonce, maxPriorityFeePerGas,
 * maxFeePerGas, gasLimit, to, value, data, accessList, maxFeePerBlobGas, blobVersionedHashes, yParity,
 * r, s]). `to` is a required address (the spec's type is Address, not Bytes0 | Address). The network
 * form with blobs is in blobNetwork.ts.
 */

import { writeString } from "../rlp/encode.js";
import {
  decodeFeeMarketPrefix,
  feeMarketPrefixLength,
  signatureFieldsLength,
  writeFeeMarketPrefix,
  writeSignatureFields,
} from "./eip1559.js";
import { TxError } from "./errors.js";
import type { RlpCursor } from "./rlpCursor.js";
import { hash32Length, listLength, uintLength, writeListHeader, writeUint } from "./rlpWriter.js";
import { type BlobTx, type TxMemo, TxType } from "./tx.js";

/** EIP-4844 VERSIONED_HASH_VERSION_KZG. */
export const VERSIONED_HASH_VERSION_KZG = 0x01;

export function decodeBlobTxFields(c: RlpCursor, memo: TxMemo): BlobTx {
  const p = decodeFeeMarketPrefix(c);
  if (p.to === null) throw new TxError("CREATE_NOT_ALLOWED", "blob tx: `to` must be an address");
  const maxFeePerBlobGas = c.u256("maxFeePerBlobGas");
  const hashes = c.list("blobVersionedHashes");
  const blobVersionedHashes: Uint8Array[] = [];
  while (!hashes.done) blobVersionedHashes.push(hashes.hash32("blob versioned hash"));
  const yParity = c.u8("yParity");
  const r = c.u256("r");
  const s = c.u256("s");
  c.finish("EIP-4844 tx");
  return {
    type: TxType.Blob,
    chainId: p.chainId,
    nonce: p.nonce,
    maxPriorityFeePerGas: p.maxPriorityFeePerGas,
    maxFeePerGas: p.maxFeePerGas,
    gasLimit: p.gasLimit,
    to: p.to,
    value: p.value,
    data: p.data,
    accessList: p.accessList,
    maxFeePerBlobGas,
    blobVersionedHashes,
    yParity,
    r,
    s,
    memo,
  };
}

function hashesPayloadLength(hashes: readonly Uint8Array[]): number {
  let n = 0;
  for (const h of hashes) n += hash32Length(h);
  return n;
}

export function blobTxFieldsLength(tx: BlobTx, signing: boolean): number {
  if (tx.to === null) throw new TxError("CREATE_NOT_ALLOWED", "blob tx: `to` must be an address");
  return (
    feeMarketPrefixLength(tx) +
    uintLength(tx.maxFeePerBlobGas) +
    listLength(hashesPayloadLength(tx.blobVersionedHashes)) +
    (signing ? 0 : signatureFieldsLength(tx))
  );
}

export function writeBlobTxFields(out: Uint8Array, pos: number, tx: BlobTx, signing: boolean): number {
  pos = writeFeeMarketPrefix(out, pos, tx);
  pos = writeUint(out, pos, tx.maxFeePerBlobGas);
  pos = writeListHeader(out, pos, 33 * tx.blobVersionedHashes.length);
  for (const h of tx.blobVersionedHashes) pos = writeString(out, pos, h);
  return signing ? pos : writeSignatureFields(out, pos, tx);
}
