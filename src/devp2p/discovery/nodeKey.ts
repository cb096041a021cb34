/**
 * The node's identity (devp2p): a secp256k1 key kept in `<datadir>/nodekey` as 64 hex characters,
 * as geth keeps `<datadir>/geth/nodekey` (node/config.go `datadirPrivateKey`, crypto.SaveECDSA:
 * hex without 0x or newline, mode 0600). opal-exec's datadir is geth's instance folder — chaindata
 * and jwtsecret sit directly in it — so the key does too. The public key on the wire is 64 bytes
 * (x ‖ y); the node id, the Kademlia coordinate and the ENR "v4" id, is keccak256 of those.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { secp256k1 as noble } from "@noble/curves/secp256k1.js";
import { keccak256 } from "../../crypto/keccak.js";
import { secp256k1Native } from "../../native/load.js";
import { bytesToHexRaw, hexToBytes } from "../../primitives/hex.js";

export const NODEKEY_FILE = "nodekey";

export class NodeKeyError extends Error {
  override readonly name = "NodeKeyError";
}

/** A node's key material, derived once. */
export interface NodeKey {
  /** 32-byte secret. */
  readonly privateKey: Uint8Array;
  /** 64-byte public key x ‖ y (enode id, discv4 node-id). */
  readonly publicKey: Uint8Array;
  /** keccak256(publicKey): the Kademlia and ENR node id. */
  readonly id: Uint8Array;
}

export function isValidPrivateKey(k: Uint8Array): boolean {
  if (k.length !== 32) return false;
  return secp256k1Native !== null ? secp256k1Native.privateKeyVerify(k) : noble.utils.isValidSecretKey(k);
}

/** The 64-byte public key x ‖ y of a secret. */
export function publicKeyOf(privateKey: Uint8Array): Uint8Array {
  const pub =
    secp256k1Native !== null
      ? secp256k1Native.publicKeyCreate(privateKey, false)
      : noble.getPublicKey(privateKey, false);
  return pub.slice(1);
}

/** keccak256 of a 64-byte public key. */
export function nodeIdOf(publicKey: Uint8Array): Uint8Array {
  return keccak256(publicKey);
}

export function nodeKeyOf(privateKey: Uint8Array): NodeKey {
  if (!isValidPrivateKey(privateKey)) throw new NodeKeyError("not a valid secp256k1 private key");
  const publicKey = publicKeyOf(privateKey);
  return { privateKey: privateKey.slice(), publicKey, id: nodeIdOf(publicKey) };
}

export function generateNodeKey(): NodeKey {
  for (;;) {
    const k = new Uint8Array(randomBytes(32));
    if (isValidPrivateKey(k)) return nodeKeyOf(k);
  }
}

/** 33-byte compressed form of a 64-byte public key. */
export function compressPublicKey(pub64: Uint8Array): Uint8Array {
  const out = new Uint8Array(33);
  out[0] = (pub64[63] & 1) === 0 ? 2 : 3;
  out.set(pub64.subarray(0, 32), 1);
  return out;
}

/** The 64-byte x ‖ y of a 33-byte compressed key; null when it is not a curve point. */
export function decompressPublicKey(pub33: Uint8Array): Uint8Array | null {
  if (pub33.length !== 33) return null;
  try {
    return noble.Point.fromBytes(pub33).toBytes(false).slice(1);
  } catch {
    return null;
  }
}

/** True when a 64-byte public key is on the curve. */
export function isValidPublicKey(pub64: Uint8Array): boolean {
  if (pub64.length !== 64) return false;
  const full = new Uint8Array(65);
  full[0] = 4;
  full.set(pub64, 1);
  try {
    noble.Point.fromBytes(full).assertValidity();
    return true;
  } catch {
    return false;
  }
}

/** The key file's path in a datadir. */
export function nodeKeyPath(datadir: string): string {
  return join(datadir, NODEKEY_FILE);
}

/**
 * Reads `<dir>/nodekey`, or creates it (atomically, mode 0600) when absent. A file that exists but
 * does not hold a valid key is an error, never silently replaced: the node's identity would change.
 */
export function loadOrCreateNodeKey(dir: string): NodeKey {
  const path = nodeKeyPath(dir);
  let text: string | null = null;
  try {
    text = readFileSync(path, "latin1");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new NodeKeyError(`cannot read ${path}: ${(e as Error).message}`);
    }
  }
  if (text !== null) {
    // SPEC: geth crypto.LoadECDSA reads 64 hex chars and allows only trailing whitespace.
    const hex = text.trimEnd();
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new NodeKeyError(`${path}: not a 64-character hex key`);
    const k = hexToBytes(hex);
    if (!isValidPrivateKey(k)) throw new NodeKeyError(`${path}: not a valid secp256k1 key`);
    return nodeKeyOf(k);
  }
  const key = generateNodeKey();
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.tmp`;
    writeFileSync(tmp, bytesToHexRaw(key.privateKey), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  } catch (e) {
    throw new NodeKeyError(`cannot write ${path}: ${(e as Error).message}`);
  }
  return key;
}
