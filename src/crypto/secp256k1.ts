/**
 * secp256k1 for Ethereum: public-key recovery from (r ‖ s, recid) over a 32-byte digest, and
 * deterministic RFC 6979 signing for dev keys. libsecp256k1 (the `secp256k1` package) is the fast
 * path, about 28x @noble/curves here (dependencies-probe.md); noble is the pure twin.
 *
 * Recovery returns `null` on an invalid signature instead of throwing: callers recover thousands of
 * senders in loops (code-models §10.2).
 */
import { secp256k1 as noble } from "@noble/curves/secp256k1.js";
import { secp256k1Native } from "../native/load.js";
import { bytesToBigint } from "../primitives/u256.js";
import { keccak256 } from "./keccak.js";

/** Curve order n. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
export const SECP256K1_HALF_N = SECP256K1_N >> 1n;

export interface Signature {
  r: bigint;
  s: bigint;
  /** Recovery id, 0 or 1 (y parity of R). */
  recid: number;
}

/** True when 0 < r,s < n (the range every ECDSA signature must satisfy). */
export function isValidSignatureValues(r: bigint, s: bigint): boolean {
  return r > 0n && r < SECP256K1_N && s > 0n && s < SECP256K1_N;
}

export function recoverPublicKeyPure(hash: Uint8Array, sig64: Uint8Array, recid: number): Uint8Array | null {
  try {
    const sig = noble.Signature.fromBytes(sig64, "compact").addRecoveryBit(recid);
    return sig.recoverPublicKey(hash).toBytes(false);
  } catch {
    return null;
  }
}

export function recoverPublicKeyNative(hash: Uint8Array, sig64: Uint8Array, recid: number): Uint8Array | null {
  try {
    return secp256k1Native!.ecdsaRecover(sig64, recid, hash, false);
  } catch {
    return null;
  }
}

function recoverChecked(
  impl: (h: Uint8Array, s: Uint8Array, r: number) => Uint8Array | null,
): (hash: Uint8Array, sig64: Uint8Array, recid: number) => Uint8Array | null {
  return (hash, sig64, recid) => {
    if (hash.length !== 32 || sig64.length !== 64 || (recid !== 0 && recid !== 1)) return null;
    return impl(hash, sig64, recid);
  };
}

/** 65-byte uncompressed public key (0x04 ‖ x ‖ y), or null when the signature is invalid. */
export const recoverPublicKey: (hash: Uint8Array, sig64: Uint8Array, recid: number) => Uint8Array | null =
  recoverChecked(secp256k1Native === null ? recoverPublicKeyPure : recoverPublicKeyNative);

export const recoverPublicKeyPureChecked = recoverChecked(recoverPublicKeyPure);

/** Ethereum address of an uncompressed public key: the last 20 bytes of keccak(x ‖ y). */
export function publicKeyToAddress(pub65: Uint8Array): Uint8Array {
  return keccak256(pub65.subarray(1)).subarray(12);
}

/** Recovers the signer's address, or null. */
export function recoverAddress(hash: Uint8Array, sig64: Uint8Array, recid: number): Uint8Array | null {
  const pub = recoverPublicKey(hash, sig64, recid);
  return pub === null ? null : publicKeyToAddress(pub);
}

/** Compact r ‖ s from bigints; null when either does not fit 32 bytes. */
export function signatureBytes(r: bigint, s: bigint, out: Uint8Array = new Uint8Array(64)): Uint8Array | null {
  if (r < 0n || s < 0n || r >= 1n << 256n || s >= 1n << 256n) return null;
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(r & 0xffn);
    out[32 + i] = Number(s & 0xffn);
    r >>= 8n;
    s >>= 8n;
  }
  return out;
}

/** Deterministic (RFC 6979) low-s signature of a 32-byte digest. Throws on an invalid private key. */
export function sign(hash: Uint8Array, privateKey: Uint8Array): Signature {
  if (hash.length !== 32) throw new RangeError("sign: digest must be 32 bytes");
  if (secp256k1Native !== null) {
    const { signature, recid } = secp256k1Native.ecdsaSign(hash, privateKey);
    return { r: bytesToBigint(signature.subarray(0, 32)), s: bytesToBigint(signature.subarray(32)), recid };
  }
  return signPure(hash, privateKey);
}

export function signPure(hash: Uint8Array, privateKey: Uint8Array): Signature {
  const rec = noble.sign(hash, privateKey, { prehash: false, format: "recovered", lowS: true });
  // "recovered" format: recovery byte first, then r ‖ s.
  return { recid: rec[0], r: bytesToBigint(rec.subarray(1, 33)), s: bytesToBigint(rec.subarray(33, 65)) };
}

/** Ethereum address of a private key. */
export function privateKeyToAddress(privateKey: Uint8Array): Uint8Array {
  const pub =
    secp256k1Native !== null
      ? secp256k1Native.publicKeyCreate(privateKey, false)
      : noble.getPublicKey(privateKey, false);
  return publicKeyToAddress(pub);
}
