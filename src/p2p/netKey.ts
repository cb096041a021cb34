/**
 * The node's network key (`--p2p.priv.path`): a hex-encoded 32-byte secp256k1 private key, used as
 * both the libp2p peer identity and the discv5 node key. op-node creates the file when it is
 * missing; a file that exists but does not hold a key is an error (never silently replaced, so a
 * node's identity cannot change under it).
 */

import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { bytesToBigint } from "../primitives/u256.js";

export class NetworkKeyError extends Error {
  override readonly name = "NetworkKeyError";
}

/** secp256k1 group order. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function validKey(k: Uint8Array): boolean {
  if (k.length !== 32) return false;
  const v = bytesToBigint(k);
  return v > 0n && v < N;
}

export function parseNetworkKey(text: string): Uint8Array | null {
  const t = text.trim().replace(/^0x/, "");
  if (!/^[0-9a-fA-F]{64}$/.test(t)) return null;
  const k = hexToBytes(`0x${t}`);
  return validKey(k) ? k : null;
}

/** Reads the key at `path`, creating (and persisting, mode 0600) a new one when the file is missing. */
export function loadOrCreateNetworkKey(path: string): { key: Uint8Array; created: boolean } {
  let text: string | null = null;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new NetworkKeyError(`--p2p.priv.path: cannot read ${path}: ${(e as Error).message}`);
    }
  }
  if (text !== null) {
    const key = parseNetworkKey(text);
    if (key === null) throw new NetworkKeyError(`--p2p.priv.path: ${path} does not hold a hex secp256k1 private key`);
    return { key, created: false };
  }
  let key = randomBytes(32) as Uint8Array;
  while (!validKey(key)) key = randomBytes(32);
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytesToHex(key).slice(2), { mode: 0o600 });
  } catch (e) {
    throw new NetworkKeyError(`--p2p.priv.path: cannot write ${path}: ${(e as Error).message}`);
  }
  return { key: new Uint8Array(key), created: true };
}

/** The libp2p peer id (`16Uiu2…`) of a network key, as the host will announce it. */
export async function peerIdOfNetworkKey(key: Uint8Array): Promise<string> {
  await import("./polyfill.js");
  const [{ privateKeyFromRaw }, { peerIdFromPrivateKey }] = await Promise.all([
    import("@libp2p/crypto/keys"),
    import("@libp2p/peer-id"),
  ]);
  return peerIdFromPrivateKey(privateKeyFromRaw(key)).toString();
}
