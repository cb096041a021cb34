/**
 * SHA-256. Node's OpenSSL binding is the fast path (hardware SHA extensions where present);
 * @noble/hashes is the pure twin, selected by OPAL_NATIVE=0.
 */
import { createHash } from "node:crypto";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { NATIVE_ENABLED } from "../native/load.js";

export function sha256Pure(data: Uint8Array): Uint8Array {
  return nobleSha256(data);
}

export function sha256Node(data: Uint8Array): Uint8Array {
  const d = createHash("sha256").update(data).digest();
  return new Uint8Array(d.buffer, d.byteOffset, 32);
}

export const sha256: (data: Uint8Array) => Uint8Array = NATIVE_ENABLED ? sha256Node : sha256Pure;
