/**
 * Batch sender recovery over packed typed arrays, for the sigRecover worker (code-models §9.3, §10.9):
 * plain Uint8Arrays in and out, no tx objects cross the thread boundary.
 * - hashes: 32·n bytes of signing hashes;
 * - sigs: 65·n bytes of r(32) ‖ s(32) ‖ recid(1); recid 0xff marks "no valid signature";
 * - out: 21·n bytes, out[21i] = 1 when recovery succeeded (then out[21i+1 .. 21i+21] is the address),
 *   else 0 and the address bytes are zero.
 * Recovery here is fork-agnostic (like recoverSender): validateTx still applies EIP-2 low-s.
 */
import { keccak256Batch } from "../crypto/keccak.js";
import { isValidSignatureValues, recoverAddress, signatureBytes } from "../crypto/secp256k1.js";
import { recoverSender, setTxSender, signingPayloadLength, txRecoveryId, writeSigningPayload } from "./signer.js";
import { type SignedTx, type Tx, TxType } from "./tx.js";

/** recid byte meaning "do not attempt recovery". */
export const NO_SIGNATURE = 0xff;

export function recoverSendersPacked(
  hashes: Uint8Array,
  sigs: Uint8Array,
  out: Uint8Array = new Uint8Array((hashes.length / 32) * 21),
): Uint8Array {
  const n = hashes.length / 32;
  if (!Number.isInteger(n) || sigs.length !== n * 65 || out.length < n * 21) {
    throw new RangeError(
      `recoverSendersPacked: ${hashes.length} hash bytes, ${sigs.length} sig bytes, ${out.length} out`,
    );
  }
  for (let i = 0; i < n; i++) recoverPackedAt(hashes, sigs, out, i);
  return out;
}

/** Recovers item i of packed hashes and signatures into `out[21i .. 21i+21)` (flag ‖ address). */
export function recoverPackedAt(hashes: Uint8Array, sigs: Uint8Array, out: Uint8Array, i: number): void {
  const o = 21 * i;
  const recid = sigs[65 * i + 64];
  const addr =
    recid > 1 ? null : recoverAddress(hashes.subarray(32 * i, 32 * i + 32), sigs.subarray(65 * i, 65 * i + 64), recid);
  if (addr === null) {
    out.fill(0, o, o + 21);
  } else {
    out[o] = 1;
    out.set(addr, o + 1);
  }
}

/**
 * Signing hashes and packed signatures of `txs`, the input of recoverSendersPacked. Deposits and txs
 * whose v/yParity, r or s are out of range get recid NO_SIGNATURE (their hash bytes are zero). The
 * signing payloads are written into one buffer and hashed in one keccak256Batch call.
 */
export function packSignatures(txs: readonly Tx[]): { hashes: Uint8Array; sigs: Uint8Array } {
  const n = txs.length;
  const recids = new Int16Array(n);
  const offsets = new Uint32Array(n + 1);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const tx = txs[i];
    let recid = txRecoveryId(tx);
    let len = 0;
    if (recid >= 0) {
      const t = tx as SignedTx;
      len = isValidSignatureValues(t.r, t.s) ? signingPayloadLength(tx) : -1;
      if (len < 0) {
        recid = -1;
        len = 0;
      }
    }
    recids[i] = recid;
    size += len;
    offsets[i + 1] = size;
  }
  const packed = new Uint8Array(size);
  for (let i = 0; i < n; i++) if (recids[i] >= 0) writeSigningPayload(packed, offsets[i], txs[i] as SignedTx);
  const hashes = keccak256Batch(packed, offsets);
  const sigs = new Uint8Array(65 * n);
  for (let i = 0; i < n; i++) {
    if (recids[i] < 0) {
      hashes.fill(0, 32 * i, 32 * i + 32);
      sigs[65 * i + 64] = NO_SIGNATURE;
      continue;
    }
    const t = txs[i] as SignedTx;
    signatureBytes(t.r, t.s, sigs.subarray(65 * i, 65 * i + 64));
    sigs[65 * i + 64] = recids[i];
  }
  return { hashes, sigs };
}

/**
 * Installs the results of recoverSendersPacked as each tx's memoized sender (deposits keep `from`).
 * `out` views are copied so the result buffer can be reused.
 */
export function applyPackedSenders(txs: readonly Tx[], out: Uint8Array): void {
  for (let i = 0; i < txs.length; i++) {
    const tx = txs[i];
    if (tx.type === TxType.Deposit) continue;
    setTxSender(tx, out[21 * i] === 1 ? out.slice(21 * i + 1, 21 * i + 21) : null);
  }
}

/** Main-thread convenience: pack, recover and install senders; returns them (null = failed). */
export function recoverSenders(txs: readonly Tx[]): (Uint8Array | null)[] {
  const { hashes, sigs } = packSignatures(txs);
  applyPackedSenders(txs, recoverSendersPacked(hashes, sigs));
  return txs.map((tx) => recoverSender(tx));
}
