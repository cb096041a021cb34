/**
 * The hash a sequencer signs for a gossiped block (OP specs rollup-node-p2p.md, "Block signatures"):
 * `keccak256(domain ‖ uint256_be(chainId) ‖ payloadHash)` where the domain is 32 zero bytes (the
 * block-signing domain) and `payloadHash = keccak256(signedBytes)`; `signedBytes` is the SSZ
 * payload (v1, v2) or `parentBeaconBlockRoot ‖ payload` (v3, v4). The external signer is sent the
 * same three parts (opsigner_signBlockPayload), so both signers start from here.
 */
import { keccak256 } from "../crypto/keccak.js";
import { sign, signatureBytes } from "../crypto/secp256k1.js";

/** The block-signing domain: 32 zero bytes. */
export const BLOCK_SIGNING_DOMAIN: Uint8Array = new Uint8Array(32);

/** keccak256(domain ‖ uint256_be(chainId) ‖ payloadHash). */
export function blockSigningHash(chainId: bigint, payloadHash: Uint8Array, domain = BLOCK_SIGNING_DOMAIN): Uint8Array {
  if (payloadHash.length !== 32) throw new RangeError("blockSigningHash: payload hash must be 32 bytes");
  const buf = new Uint8Array(96);
  buf.set(domain, 0);
  let v = chainId;
  for (let i = 63; i >= 32 && v > 0n; i--) {
    buf[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  buf.set(payloadHash, 64);
  return keccak256(buf);
}

/** keccak256 of the signed bytes of a gossiped block. */
export function payloadHashOf(signedBytes: Uint8Array): Uint8Array {
  return keccak256(signedBytes);
}

/** The 65-byte block signature r ‖ s ‖ v (v ∈ {0, 1}) with a local key. */
export function signBlockPayloadHash(chainId: bigint, payloadHash: Uint8Array, key: Uint8Array): Uint8Array {
  const s = sign(blockSigningHash(chainId, payloadHash), key);
  const out = new Uint8Array(65);
  signatureBytes(s.r, s.s, out);
  out[64] = s.recid;
  return out;
}
