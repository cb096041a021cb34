/**
 * EIP-7702 authorization list: codec for rlp([[chainId, address, nonce, yParity, r, s], ...]) and
 * authority recovery, authority = ecrecover(keccak(0x05 ‖ rlp([chainId, address, nonce])), yParity,
 * r, s). Invalid tuples do not invalidate the tx; the executor skips them (EIP-7702 "Behavior"), so
 * recovery returns null rather than throwing.
 */

import { keccak256 } from "../crypto/keccak.js";
import { recoverAddress, SECP256K1_HALF_N, SECP256K1_N, signatureBytes } from "../crypto/secp256k1.js";
import { writeString } from "../rlp/encode.js";
import type { RlpCursor } from "./rlpCursor.js";
import {
  addressLength,
  listLength,
  smallLength,
  uintLength,
  writeListHeader,
  writeSmall,
  writeUint,
} from "./rlpWriter.js";
import type { Authorization } from "./tx.js";

/** EIP-7702 SET_CODE_TX_MAGIC, the domain byte of the authority signing hash. */
export const SET_CODE_TX_MAGIC = 0x05;

export function decodeAuthorizationList(c: RlpCursor): Authorization[] {
  const list = c.list("authorizationList");
  const out: Authorization[] = [];
  while (!list.done) {
    const t = list.list("authorization");
    const chainId = t.u256("authorization chainId");
    const address = t.address("authorization address");
    const nonce = t.u64("authorization nonce");
    const yParity = t.u8("authorization yParity");
    const r = t.u256("authorization r");
    const s = t.u256("authorization s");
    t.finish("authorization");
    out.push({ chainId, address, nonce, yParity, r, s });
  }
  return out;
}

function tuplePayloadLength(a: Authorization): number {
  return (
    uintLength(a.chainId) +
    addressLength(a.address) +
    uintLength(a.nonce, 8) +
    smallLength(a.yParity) +
    uintLength(a.r) +
    uintLength(a.s)
  );
}

export function authorizationListLength(list: readonly Authorization[]): number {
  let payload = 0;
  for (const a of list) payload += listLength(tuplePayloadLength(a));
  return listLength(payload);
}

export function writeAuthorizationList(out: Uint8Array, pos: number, list: readonly Authorization[]): number {
  let payload = 0;
  for (const a of list) payload += listLength(tuplePayloadLength(a));
  pos = writeListHeader(out, pos, payload);
  for (const a of list) {
    pos = writeListHeader(out, pos, tuplePayloadLength(a));
    pos = writeUint(out, pos, a.chainId);
    pos = writeString(out, pos, a.address);
    pos = writeUint(out, pos, a.nonce);
    pos = writeSmall(out, pos, a.yParity);
    pos = writeUint(out, pos, a.r);
    pos = writeUint(out, pos, a.s);
  }
  return pos;
}

/** keccak256(0x05 ‖ rlp([chainId, address, nonce])), the digest an authority signs. */
export function authoritySigningHash(a: Pick<Authorization, "chainId" | "address" | "nonce">): Uint8Array {
  const payload = uintLength(a.chainId) + addressLength(a.address) + uintLength(a.nonce, 8);
  const out = new Uint8Array(1 + listLength(payload));
  out[0] = SET_CODE_TX_MAGIC;
  let pos = writeListHeader(out, 1, payload);
  pos = writeUint(out, pos, a.chainId);
  pos = writeString(out, pos, a.address);
  writeUint(out, pos, a.nonce);
  return keccak256(out);
}

/**
 * The authority of a tuple, or null when its signature is invalid: yParity ∉ {0, 1}, r ∉ [1, n-1],
 * s ∉ [1, n/2] (EIP-2 low-s is required here), or no key recovers. Chain id and nonce checks need
 * the chain and state and are the executor's.
 */
export function recoverAuthority(a: Authorization): Uint8Array | null {
  if (a.yParity > 1) return null;
  if (a.r <= 0n || a.r >= SECP256K1_N || a.s <= 0n || a.s > SECP256K1_HALF_N) return null;
  const sig = signatureBytes(a.r, a.s);
  if (sig === null) return null;
  return recoverAddress(authoritySigningHash(a), sig, a.yParity);
}
