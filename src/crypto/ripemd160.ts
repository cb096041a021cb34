/**
 * RIPEMD-160 (precompile 0x03). OpenSSL 3 moved it to the legacy provider, so Node may lack it;
 * the probe below decides once, and @noble/hashes covers the rest.
 */
import { createHash, getHashes } from "node:crypto";
import { ripemd160 as nobleRipemd160 } from "@noble/hashes/legacy.js";
import { NATIVE_ENABLED } from "../native/load.js";

export function ripemd160Pure(data: Uint8Array): Uint8Array {
  return nobleRipemd160(data);
}

function nodeHasRipemd(): boolean {
  if (!getHashes().includes("ripemd160")) return false;
  try {
    createHash("ripemd160").update("").digest();
    return true;
  } catch {
    return false;
  }
}

export function ripemd160Node(data: Uint8Array): Uint8Array {
  const d = createHash("ripemd160").update(data).digest();
  return new Uint8Array(d.buffer, d.byteOffset, 20);
}

export const ripemd160: (data: Uint8Array) => Uint8Array =
  NATIVE_ENABLED && nodeHasRipemd() ? ripemd160Node : ripemd160Pure;
