/**
 * Signing hashes, sender recovery and signing, per type: legacy pre-EIP-155 keccak(rlp([nonce,
 * gasPrice, gas, to, value, data])), EIP-155 keccak(rlp([..., chainId, 0, 0])), typed
 * keccak(type ‖ rlp(fields without yParity, r, s)). Deposits have no signature; their sender is
 * `from`. Recovery is fork-agnostic (any s in [1, n-1]); EIP-2 low-s and chain-id rules are in
 * validateTx.ts. Results are memoized on `tx.memo`.
 */
import { keccak256 } from "../crypto/keccak.js";
import { isValidSignatureValues, recoverAddress, sign, signatureBytes } from "../crypto/secp256k1.js";
import { feeMarketTxFieldsLength, writeFeeMarketTxFields } from "./eip1559.js";
import { accessListTxFieldsLength, writeAccessListTxFields } from "./eip2930.js";
import { blobTxFieldsLength, writeBlobTxFields } from "./eip4844.js";
import { setCodeTxFieldsLength, writeSetCodeTxFields } from "./eip7702.js";
import { TxError } from "./errors.js";
import {
  type LegacyForm,
  legacyChainId,
  legacyFieldsLength,
  legacyRecoveryId,
  legacyV,
  writeLegacyFields,
} from "./legacy.js";
import { listLength, writeListHeader } from "./rlpWriter.js";
import { type SignedTx, type Tx, type TxMemo, TxType } from "./tx.js";

function memoOf(tx: Tx): TxMemo {
  let memo = tx.memo;
  if (memo === undefined) memo = tx.memo = {};
  return memo;
}

/**
 * The legacy signing form: the override when given (null = pre-EIP-155, bigint = EIP-155 chain id),
 * else the form the tx's own `v` commits to; undefined when v is malformed.
 */
function legacySigningForm(v: bigint, override: bigint | null | undefined): LegacyForm | undefined {
  return override !== undefined ? override : legacyChainId(v);
}

function signingFieldsLength(tx: SignedTx, legacyForm: LegacyForm): number {
  switch (tx.type) {
    case TxType.Legacy:
      return legacyFieldsLength(tx, legacyForm);
    case TxType.AccessList:
      return accessListTxFieldsLength(tx, true);
    case TxType.FeeMarket:
      return feeMarketTxFieldsLength(tx, true);
    case TxType.Blob:
      return blobTxFieldsLength(tx, true);
    case TxType.SetCode:
      return setCodeTxFieldsLength(tx, true);
  }
}

function writeSigningFields(out: Uint8Array, pos: number, tx: SignedTx, legacyForm: LegacyForm): number {
  switch (tx.type) {
    case TxType.Legacy:
      return writeLegacyFields(out, pos, tx, legacyForm);
    case TxType.AccessList:
      return writeAccessListTxFields(out, pos, tx, true);
    case TxType.FeeMarket:
      return writeFeeMarketTxFields(out, pos, tx, true);
    case TxType.Blob:
      return writeBlobTxFields(out, pos, tx, true);
    case TxType.SetCode:
      return writeSetCodeTxFields(out, pos, tx, true);
  }
}

/**
 * Length of the signing payload for `tx` as its own signature fields describe it, or -1 when it has
 * none (deposit, or a legacy v that is neither 27/28 nor ≥ 35). For legacy txs `chainIdOverride`
 * overrides the form derived from v: null = pre-EIP-155, a bigint = EIP-155 for that chain.
 */
export function signingPayloadLength(tx: Tx, chainIdOverride?: bigint | null): number {
  if (tx.type === TxType.Deposit) return -1;
  let form: LegacyForm = "full";
  if (tx.type === TxType.Legacy) {
    const f = legacySigningForm(tx.v, chainIdOverride);
    if (f === undefined) return -1;
    form = f;
  }
  const n = listLength(signingFieldsLength(tx, form));
  return tx.type === TxType.Legacy ? n : 1 + n;
}

/** Writes the signing payload at `pos` (see signingPayloadLength; call only when that is ≥ 0). */
export function writeSigningPayload(
  out: Uint8Array,
  pos: number,
  tx: SignedTx,
  chainIdOverride?: bigint | null,
): number {
  let form: LegacyForm = "full";
  if (tx.type === TxType.Legacy) {
    const f = legacySigningForm(tx.v, chainIdOverride);
    if (f === undefined) throw new TxError("UNSIGNABLE", "legacy v has no signing form");
    form = f;
  } else {
    out[pos++] = tx.type;
  }
  pos = writeListHeader(out, pos, signingFieldsLength(tx, form));
  return writeSigningFields(out, pos, tx, form);
}

/** The exact bytes a signer hashes, or null when the tx has no signing form. */
export function signingPayload(tx: Tx, chainIdOverride?: bigint | null): Uint8Array | null {
  const n = signingPayloadLength(tx, chainIdOverride);
  if (n < 0) return null;
  const out = new Uint8Array(n);
  writeSigningPayload(out, 0, tx as SignedTx, chainIdOverride);
  return out;
}

/** keccak256 of the signing payload (memoized), or null when the tx has no signing form. */
export function txSigningHash(tx: Tx): Uint8Array | null {
  const memo = memoOf(tx);
  if (memo.signingHash !== undefined) return memo.signingHash;
  const payload = signingPayload(tx);
  const h = payload === null ? null : keccak256(payload);
  memo.signingHash = h;
  return h;
}

/** Recovery id (0/1) from v or yParity, or -1 when malformed or the tx is a deposit. */
export function txRecoveryId(tx: Tx): number {
  switch (tx.type) {
    case TxType.Deposit:
      return -1;
    case TxType.Legacy:
      return legacyRecoveryId(tx.v);
    default:
      return tx.yParity === 0 || tx.yParity === 1 ? tx.yParity : -1;
  }
}

function recoverUncached(tx: SignedTx): Uint8Array | null {
  const recid = txRecoveryId(tx);
  if (recid < 0 || !isValidSignatureValues(tx.r, tx.s)) return null;
  const hash = txSigningHash(tx);
  if (hash === null) return null;
  const sig = signatureBytes(tx.r, tx.s);
  if (sig === null) return null;
  return recoverAddress(hash, sig, recid);
}

/**
 * The sender: `from` for deposits, else the address recovered from the signature, or null when
 * v/yParity is malformed, r or s is outside [1, n-1], or no key recovers. Memoized.
 */
export function recoverSender(tx: Tx): Uint8Array | null {
  if (tx.type === TxType.Deposit) return tx.from;
  const memo = memoOf(tx);
  if (memo.sender !== undefined) return memo.sender;
  const sender = recoverUncached(tx);
  memo.sender = sender;
  return sender;
}

/** Installs a sender recovered elsewhere (e.g. recoverSendersPacked in a worker). */
export function setTxSender(tx: Tx, sender: Uint8Array | null): void {
  memoOf(tx).sender = sender;
}

/**
 * Signs `tx` with a private key and returns a new tx with the signature fields set (low-s, RFC 6979).
 * Legacy txs are EIP-155 protected when `chainId` is given, else pre-EIP-155 (v = 27/28); typed txs
 * sign over their own chainId. Deposits cannot be signed.
 */
export function signTx<T extends SignedTx>(tx: T, privateKey: Uint8Array, chainId: bigint | null = null): T {
  if ((tx as Tx).type === TxType.Deposit) throw new TxError("UNSIGNABLE", "deposit txs carry no signature");
  const hash = keccak256(signingPayload(tx, chainId)!);
  let sig: { r: bigint; s: bigint; recid: number };
  try {
    sig = sign(hash, privateKey);
  } catch (e) {
    throw new TxError("UNSIGNABLE", `signing failed: ${(e as Error).message}`);
  }
  const memo: TxMemo = { signingHash: hash };
  if (tx.type === TxType.Legacy) {
    return { ...tx, v: legacyV(sig.recid, chainId), r: sig.r, s: sig.s, memo };
  }
  return { ...tx, yParity: sig.recid, r: sig.r, s: sig.s, memo };
}
