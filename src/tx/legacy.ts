/**
 * Legacy transaction rlp([nonce, gasPrice, gasLimit, to, value, data, v, r, s]) (Yellow Paper §4.2),
 * with the two signing payloads: pre-EIP-155 rlp([nonce, gasPrice, gasLimit, to, value, data]) and
 * EIP-155 rlp([..., chainId, 0, 0]).
 */
import { stringLength, writeString } from "../rlp/encode.js";
import type { RlpCursor } from "./rlpCursor.js";
import { optionalAddressLength, uintLength, writeOptionalAddress, writeUint } from "./rlpWriter.js";
import { type LegacyTx, type TxMemo, TxType } from "./tx.js";

/**
 * Which list to encode: "full" = the signed tx; null = the pre-EIP-155 signing payload; a bigint =
 * the EIP-155 signing payload for that chain id.
 */
export type LegacyForm = "full" | null | bigint;

export function decodeLegacyFields(c: RlpCursor, memo: TxMemo): LegacyTx {
  const nonce = c.u64("nonce");
  const gasPrice = c.u256("gasPrice");
  const gasLimit = c.u64("gasLimit");
  const to = c.optionalAddress("to");
  const value = c.u256("value");
  const data = c.bytes("data");
  const v = c.u256("v");
  const r = c.u256("r");
  const s = c.u256("s");
  c.finish("legacy tx");
  return { type: TxType.Legacy, nonce, gasPrice, gasLimit, to, value, data, v, r, s, memo };
}

export function legacyFieldsLength(tx: LegacyTx, form: LegacyForm): number {
  let n =
    uintLength(tx.nonce, 8) +
    uintLength(tx.gasPrice) +
    uintLength(tx.gasLimit, 8) +
    optionalAddressLength(tx.to) +
    uintLength(tx.value) +
    stringLength(tx.data);
  if (form === "full") n += uintLength(tx.v) + uintLength(tx.r) + uintLength(tx.s);
  else if (form !== null) n += uintLength(form) + 2;
  return n;
}

export function writeLegacyFields(out: Uint8Array, pos: number, tx: LegacyTx, form: LegacyForm): number {
  pos = writeUint(out, pos, tx.nonce);
  pos = writeUint(out, pos, tx.gasPrice);
  pos = writeUint(out, pos, tx.gasLimit);
  pos = writeOptionalAddress(out, pos, tx.to);
  pos = writeUint(out, pos, tx.value);
  pos = writeString(out, pos, tx.data);
  if (form === "full") {
    pos = writeUint(out, pos, tx.v);
    pos = writeUint(out, pos, tx.r);
    return writeUint(out, pos, tx.s);
  }
  if (form !== null) {
    pos = writeUint(out, pos, form);
    out[pos] = 0x80;
    out[pos + 1] = 0x80;
    return pos + 2;
  }
  return pos;
}

/**
 * The chain id a legacy `v` commits to: null for pre-EIP-155 v = 27/28, (v - 35) >> 1 for v ≥ 35,
 * undefined when v is neither (no signature can be valid).
 */
export function legacyChainId(v: bigint): bigint | null | undefined {
  if (v === 27n || v === 28n) return null;
  if (v >= 35n) return (v - 35n) >> 1n;
  return undefined;
}

/** Recovery id (0/1) of a legacy `v`, or -1 when v is malformed. */
export function legacyRecoveryId(v: bigint): number {
  if (v === 27n || v === 28n) return Number(v - 27n);
  if (v >= 35n) return Number((v - 35n) & 1n);
  return -1;
}

/** The v for a recovery id: 27/28 without a chain id, chainId*2 + 35/36 with one (EIP-155). */
export function legacyV(recid: number, chainId: bigint | null): bigint {
  return chainId === null ? 27n + BigInt(recid) : chainId * 2n + 35n + BigInt(recid);
}
