/**
 * ECIES as RLPx uses it (SPEC: devp2p rlpx.md#ecies-encryption): secp256k1 ECDH, the NIST SP 800-56
 * concatenation KDF over SHA-256, AES-128-CTR and HMAC-SHA256 over `iv ‖ c ‖ authData`. The wire
 * form is `R (65, uncompressed) ‖ iv (16) ‖ c ‖ d (32)`. Only the handshake uses it, so clarity
 * wins over allocation here; decryption of outside bytes returns null, never throws.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { secp256k1 as noble } from "@noble/curves/secp256k1.js";

/** Bytes ECIES adds to a plaintext: R, iv and the HMAC tag. */
export const ECIES_OVERHEAD = 65 + 16 + 32;

/** x coordinate of `privateKey · publicKey` (32 bytes), or null for an invalid point or key. */
export function ecdhX(privateKey: Uint8Array, publicKey: Uint8Array): Uint8Array | null {
  try {
    return noble.getSharedSecret(privateKey, publicKey, true).subarray(1);
  } catch {
    return null;
  }
}

/** 65-byte uncompressed public key of a private key. */
export function publicKeyOf(privateKey: Uint8Array): Uint8Array {
  return noble.getPublicKey(privateKey, false);
}

/** A fresh random secp256k1 private key. */
export function randomPrivateKey(): Uint8Array {
  return noble.utils.randomSecretKey();
}

/** 64-byte node id (x ‖ y) → 65-byte uncompressed key; null when not a point on the curve. */
export function nodeIdToPublicKey(id: Uint8Array): Uint8Array | null {
  if (id.length !== 64) return null;
  const pub = new Uint8Array(65);
  pub[0] = 4;
  pub.set(id, 1);
  try {
    noble.Point.fromBytes(pub).assertValidity();
  } catch {
    return null;
  }
  return pub;
}

/** NIST SP 800-56 concatenation KDF with SHA-256 and empty other-info: `length` bytes. */
export function concatKdf(z: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(Math.ceil(length / 32) * 32);
  const counter = new Uint8Array(4);
  for (let i = 0, c = 1; i < out.length; i += 32, c++) {
    counter[0] = c >>> 24;
    counter[1] = (c >>> 16) & 0xff;
    counter[2] = (c >>> 8) & 0xff;
    counter[3] = c & 0xff;
    out.set(createHash("sha256").update(counter).update(z).digest(), i);
  }
  return out.subarray(0, length);
}

function keys(shared: Uint8Array): { ke: Uint8Array; km: Uint8Array } {
  const k = concatKdf(shared, 32);
  return { ke: k.subarray(0, 16), km: createHash("sha256").update(k.subarray(16, 32)).digest() };
}

/**
 * Encrypts `plaintext` to `remotePublicKey` (65 bytes, uncompressed). `authData` is MACed but not
 * sent (EIP-8: the 2-byte size prefix). `ephemeralKey` and `iv` are for test vectors only.
 */
export function eciesEncrypt(
  remotePublicKey: Uint8Array,
  plaintext: Uint8Array,
  authData: Uint8Array,
  ephemeralKey: Uint8Array = randomPrivateKey(),
  iv: Uint8Array = randomBytes(16),
): Uint8Array {
  const shared = ecdhX(ephemeralKey, remotePublicKey);
  if (shared === null) throw new RangeError("ecies: invalid remote public key");
  const { ke, km } = keys(shared);
  const out = new Uint8Array(ECIES_OVERHEAD + plaintext.length);
  out.set(publicKeyOf(ephemeralKey), 0);
  out.set(iv, 65);
  const c = createCipheriv("aes-128-ctr", ke, iv).update(plaintext);
  out.set(c, 81);
  const tag = createHmac("sha256", km)
    .update(out.subarray(65, 81 + c.length))
    .update(authData)
    .digest();
  out.set(tag, 81 + c.length);
  return out;
}

/** Decrypts an ECIES message with `privateKey`; null when it is malformed or its tag does not verify. */
export function eciesDecrypt(privateKey: Uint8Array, data: Uint8Array, authData: Uint8Array): Uint8Array | null {
  if (data.length < ECIES_OVERHEAD || data[0] !== 4) return null;
  const shared = ecdhX(privateKey, data.subarray(0, 65));
  if (shared === null) return null;
  const { ke, km } = keys(shared);
  const end = data.length - 32;
  const want = createHmac("sha256", km).update(data.subarray(65, end)).update(authData).digest();
  if (!timingSafeEqual(want, data.subarray(end))) return null;
  const iv = data.subarray(65, 81);
  return new Uint8Array(createDecipheriv("aes-128-ctr", ke, iv).update(data.subarray(81, end)));
}
