/**
 * EIP-4844 network (pooled) form of a blob tx, as gossiped and returned by eth/68 GetPooledTransactions:
 * - wrapper v0 (Cancun/Prague): 0x03 ‖ rlp([tx_payload_body, blobs, commitments, proofs]),
 *   one KZG proof per blob;
 * - wrapper v1 (Osaka, EIP-7594): 0x03 ‖ rlp([tx_payload_body, 1, blobs, commitments, cell_proofs]),
 *   CELLS_PER_EXT_BLOB (128) cell proofs per blob.
 * Decoding checks sizes, counts and that each versioned hash is 0x01 ‖ sha256(commitment)[1:]. KZG
 * proof verification needs a KZG library and is not done here. The tx hash is that of the block form.
 */

import { CELLS_PER_EXT_BLOB } from "../crypto/kzg.js";
import { sha256 } from "../crypto/sha256.js";
import { decodeHeader } from "../rlp/decode.js";
import { stringLength, writeString } from "../rlp/encode.js";
import { RlpError } from "../rlp/errors.js";
import { blobTxFieldsLength, decodeBlobTxFields, writeBlobTxFields } from "./eip4844.js";
import { TxError } from "./errors.js";
import { RlpCursor } from "./rlpCursor.js";
import { listLength, writeListHeader } from "./rlpWriter.js";
import { type BlobTx, TxType } from "./tx.js";

export const BYTES_PER_BLOB = 131_072;
export const KZG_COMMITMENT_BYTES = 48;
export const KZG_PROOF_BYTES = 48;
/** EIP-7594 CELLS_PER_EXT_BLOB: cell proofs per blob in wrapper v1 (defined with the KZG code). */
export { CELLS_PER_EXT_BLOB };

export interface BlobTxNetwork {
  readonly tx: BlobTx;
  /** 0 = one blob proof per blob; 1 = EIP-7594 cell proofs. */
  readonly wrapperVersion: 0 | 1;
  readonly blobs: readonly Uint8Array[];
  readonly commitments: readonly Uint8Array[];
  /** Blob proofs (v0) or cell proofs (v1). */
  readonly proofs: readonly Uint8Array[];
}

function fixedList(c: RlpCursor, size: number, what: string): Uint8Array[] {
  const list = c.list(what);
  const out: Uint8Array[] = [];
  while (!list.done) {
    const b = list.bytes(what);
    if (b.length !== size) throw new TxError("BLOB_WRAPPER", `${what}: item has ${b.length} bytes, want ${size}`);
    out.push(b);
  }
  return out;
}

/** 0x01 ‖ sha256(commitment)[1:] (EIP-4844 kzg_to_versioned_hash). */
export function kzgToVersionedHash(commitment: Uint8Array): Uint8Array {
  const h = sha256(commitment);
  h[0] = 0x01;
  return h;
}

function checkConsistency(w: BlobTxNetwork): void {
  const n = w.tx.blobVersionedHashes.length;
  if (w.blobs.length !== n || w.commitments.length !== n) {
    throw new TxError(
      "BLOB_WRAPPER",
      `${n} versioned hashes but ${w.blobs.length} blobs and ${w.commitments.length} commitments`,
    );
  }
  const want = w.wrapperVersion === 0 ? n : n * CELLS_PER_EXT_BLOB;
  if (w.proofs.length !== want) throw new TxError("BLOB_WRAPPER", `${w.proofs.length} proofs, want ${want}`);
  for (let i = 0; i < n; i++) {
    const vh = kzgToVersionedHash(w.commitments[i]);
    const h = w.tx.blobVersionedHashes[i];
    for (let j = 0; j < 32; j++) {
      if (vh[j] !== h[j]) throw new TxError("BLOB_WRAPPER", `commitment ${i} does not match its versioned hash`);
    }
  }
}

/** Decodes the network form (either wrapper version); throws TxError. */
export function decodeBlobTxNetwork(bytes: Uint8Array): BlobTxNetwork {
  if (bytes.length === 0) throw new TxError("EMPTY_INPUT", "empty tx");
  if (bytes[0] !== TxType.Blob) throw new TxError("TYPE_NOT_SUPPORTED", "network blob tx must start with 0x03");
  try {
    if (bytes.length < 2) throw new TxError("RLP", "TRUNCATED: no payload", "TRUNCATED");
    const h = decodeHeader(bytes, 1);
    if (!h.list) throw new TxError("EXPECTED_LIST", "network blob tx payload must be a list");
    const end = h.start + h.length;
    if (end !== bytes.length) throw new TxError("RLP", "TRAILING_BYTES: bytes after the payload", "TRAILING_BYTES");
    const c = new RlpCursor(bytes, h.start, end);
    const tx = decodeBlobTxFields(c.list("tx_payload_body"), {});
    let wrapperVersion: 0 | 1 = 0;
    if (!c.nextIsList()) {
      const v = c.u8("wrapper_version");
      if (v !== 1) throw new TxError("BLOB_WRAPPER", `unknown wrapper version ${v}`);
      wrapperVersion = 1;
    }
    const blobs = fixedList(c, BYTES_PER_BLOB, "blobs");
    const commitments = fixedList(c, KZG_COMMITMENT_BYTES, "commitments");
    const proofs = fixedList(c, KZG_PROOF_BYTES, "proofs");
    c.finish("network blob tx");
    const w: BlobTxNetwork = { tx, wrapperVersion, blobs, commitments, proofs };
    checkConsistency(w);
    return w;
  } catch (e) {
    if (e instanceof RlpError) throw new TxError("RLP", `${e.code}: ${e.message}`, e.code);
    throw e;
  }
}

function bytesListPayload(items: readonly Uint8Array[]): number {
  let n = 0;
  for (const b of items) n += stringLength(b);
  return n;
}

/** Encodes the network form; the counts are checked first. */
export function encodeBlobTxNetwork(w: BlobTxNetwork): Uint8Array {
  checkConsistency(w);
  const body = blobTxFieldsLength(w.tx, false);
  const blobs = bytesListPayload(w.blobs);
  const commitments = bytesListPayload(w.commitments);
  const proofs = bytesListPayload(w.proofs);
  const payload =
    listLength(body) +
    (w.wrapperVersion === 1 ? 1 : 0) +
    listLength(blobs) +
    listLength(commitments) +
    listLength(proofs);
  const out = new Uint8Array(1 + listLength(payload));
  out[0] = TxType.Blob;
  let pos = writeListHeader(out, 1, payload);
  pos = writeListHeader(out, pos, body);
  pos = writeBlobTxFields(out, pos, w.tx, false);
  if (w.wrapperVersion === 1) out[pos++] = 0x01;
  for (const [items, len] of [
    [w.blobs, blobs],
    [w.commitments, commitments],
    [w.proofs, proofs],
  ] as const) {
    pos = writeListHeader(out, pos, len);
    for (const b of items) pos = writeString(out, pos, b);
  }
  return out;
}
