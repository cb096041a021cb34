/**
 * The signing hash and packed signature of a tx read straight from its envelope bytes, without
 * decoding it into a Tx: what a sigRecover worker needs to recover a sender from the raw bytes of a
 * block or a payload, so the importing thread hands over bytes instead of decoding and hashing every
 * tx first.
 *
 * The payload a signer hashes is the tx's own field list minus (typed) yParity, r, s or (legacy)
 * v, r, s, plus, for EIP-155, chainId, 0, 0. The decoder (rlp/decode.ts, tx/rlpCursor.ts) accepts
 * only canonical RLP, so for every envelope decodeTx accepts those field bytes are exactly what
 * signer.ts would re-encode from the decoded fields: the payload is the stored bytes under a new list
 * header. The result equals packSignatures([decodeTx(raw)]) (test/unit/tx/rawSigning.test.ts checks
 * it over the tx corpora). On input decodeTx rejects the answer does not matter (the block is refused
 * by its decode); here it is NO_SIGNATURE, never a throw.
 */
import { keccak256Into } from "../crypto/keccak.js";
import { SECP256K1_N } from "../crypto/secp256k1.js";
import { bytesToBigint } from "../primitives/u256.js";
import { decodeHeader } from "../rlp/decode.js";
import { headerLength } from "../rlp/encode.js";
import { legacyChainId, legacyRecoveryId } from "./legacy.js";
import { NO_SIGNATURE } from "./recoverPacked.js";
import { uintLength, writeListHeader, writeUint } from "./rlpWriter.js";
import { TxType } from "./tx.js";

/** secp256k1's group order, big-endian: r and s must lie in [1, N-1]. */
const N_BYTES = (() => {
  const out = new Uint8Array(32);
  let v = SECP256K1_N;
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
})();

/** The payload is assembled here (per thread; grown to the largest tx seen). */
let scratch = new Uint8Array(4096);

function room(n: number): Uint8Array {
  if (scratch.length < n) scratch = new Uint8Array(Math.max(n, scratch.length * 2));
  return scratch;
}

/**
 * Copies the RLP byte string at `pos` (≤ 32 bytes) right-aligned into `out[at..at+32)`; false when
 * it is a list, wider than 32 bytes, or zero / not below N (r and s must lie in [1, N-1]).
 */
function scalarInto(raw: Uint8Array, pos: number, end: number, out: Uint8Array, at: number): boolean {
  const h = decodeHeader(raw, pos, end);
  if (h.list || h.length > 32) return false;
  const pad = 32 - h.length;
  out.fill(0, at, at + pad);
  out.set(raw.subarray(h.start, h.start + h.length), at + pad);
  let nonZero = false;
  let below = 0; // 1: < N, -1: > N, 0: equal so far
  for (let i = 0; i < 32; i++) {
    const b = out[at + i];
    if (b !== 0) nonZero = true;
    if (below === 0 && b !== N_BYTES[i]) below = b < N_BYTES[i] ? 1 : -1;
  }
  return nonZero && below === 1;
}

/**
 * Positions of the last three items of the RLP list payload `raw[start..end)` (the signature) and
 * the item count; null when fewer than three items.
 */
function signatureItems(raw: Uint8Array, start: number, end: number): [number, number, number, number] | null {
  let a = -1;
  let b = -1;
  let c = -1;
  let count = 0;
  for (let pos = start; pos < end; count++) {
    a = b;
    b = c;
    c = pos;
    const h = decodeHeader(raw, pos, end);
    pos = h.start + h.length;
  }
  return a < 0 ? null : [a, b, c, count];
}

/** Writes a failed item: zero hash, recid NO_SIGNATURE. */
function unsigned(hashes: Uint8Array, sigs: Uint8Array, i: number): void {
  hashes.fill(0, 32 * i, 32 * i + 32);
  sigs.fill(0, 65 * i, 65 * i + 64);
  sigs[65 * i + 64] = NO_SIGNATURE;
}

/** yParity of a typed tx: 0x80 → 0, 0x01 → 1; anything else -1. */
function yParityAt(raw: Uint8Array, pos: number, end: number): number {
  const h = decodeHeader(raw, pos, end);
  if (h.list || h.length > 1) return -1;
  if (h.length === 0) return 0;
  return raw[h.start] === 1 ? 1 : -1;
}

/** The typed payload: type ‖ rlp(fields before yParity). */
function typedPayload(raw: Uint8Array, fieldsStart: number, fieldsEnd: number): Uint8Array {
  const fields = fieldsEnd - fieldsStart;
  const size = 1 + headerLength(fields) + fields;
  const out = room(size);
  out[0] = raw[0];
  const pos = writeListHeader(out, 1, fields);
  out.set(raw.subarray(fieldsStart, fieldsEnd), pos);
  return out.subarray(0, size);
}

/** The legacy payload: rlp(six fields) before EIP-155, rlp(six fields, chainId, 0, 0) with it. */
function legacyPayload(raw: Uint8Array, fieldsStart: number, fieldsEnd: number, chainId: bigint | null): Uint8Array {
  const six = fieldsEnd - fieldsStart;
  const fields = chainId === null ? six : six + uintLength(chainId) + 2;
  const size = headerLength(fields) + fields;
  const out = room(size);
  let pos = writeListHeader(out, 0, fields);
  out.set(raw.subarray(fieldsStart, fieldsEnd), pos);
  pos += six;
  if (chainId !== null) {
    pos = writeUint(out, pos, chainId);
    out[pos] = 0x80;
    out[pos + 1] = 0x80;
  }
  return out.subarray(0, size);
}

/**
 * Writes item i of packed signing hashes (32·i) and signatures (65·i: r ‖ s ‖ recid) for the
 * envelope `raw`, as packSignatures does for the decoded tx: deposits, malformed v/yParity and r or
 * s outside [1, N-1] give NO_SIGNATURE.
 */
export function packRawSignature(raw: Uint8Array, hashes: Uint8Array, sigs: Uint8Array, i: number): void {
  try {
    if (packChecked(raw, hashes, sigs, i)) return;
  } catch {
    // malformed RLP: the decode of the same bytes refuses the tx
  }
  unsigned(hashes, sigs, i);
}

function packChecked(raw: Uint8Array, hashes: Uint8Array, sigs: Uint8Array, i: number): boolean {
  if (raw.length === 0) return false;
  const b0 = raw[0];
  const legacy = b0 >= 0xc0;
  if (!legacy && b0 !== TxType.AccessList && b0 !== TxType.FeeMarket && b0 !== TxType.Blob && b0 !== TxType.SetCode) {
    return false; // deposits (no signature), string headers, unknown types
  }
  const list = decodeHeader(raw, legacy ? 0 : 1);
  const end = list.start + list.length;
  if (!list.list || end !== raw.length) return false;
  const items = signatureItems(raw, list.start, end);
  if (items === null) return false;
  const [vAt, rAt, sAt, count] = items;
  const s0 = 65 * i;
  if (!scalarInto(raw, rAt, end, sigs, s0) || !scalarInto(raw, sAt, end, sigs, s0 + 32)) return false;
  let payload: Uint8Array;
  let recid: number;
  if (legacy) {
    if (count !== 9) return false;
    const vh = decodeHeader(raw, vAt, end);
    if (vh.list || vh.length > 32) return false;
    const v = bytesToBigint(raw.subarray(vh.start, vh.start + vh.length));
    recid = legacyRecoveryId(v);
    const chainId = legacyChainId(v);
    if (recid < 0 || chainId === undefined) return false;
    payload = legacyPayload(raw, list.start, vAt, chainId);
  } else {
    recid = yParityAt(raw, vAt, end);
    if (recid < 0) return false;
    payload = typedPayload(raw, list.start, vAt);
  }
  sigs[s0 + 64] = recid;
  keccak256Into(payload, hashes.subarray(32 * i, 32 * i + 32));
  return true;
}
