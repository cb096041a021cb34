/**
 * The runtime config (op-node node/runtime_config.go): values read from L1 *state* rather than
 * derived — the unsafe-block signer in the SystemConfig and the required/recommended protocol
 * versions in ProtocolVersions — loaded at the L1 head at startup and every
 * `--l1.runtime-config-reload-interval`. Through the L1 client's `readStorageAt`, so without
 * `--l1.trustrpc` each word is proven with eth_getProof against the block's state root.
 */
import { keccak256 } from "../../crypto/keccak.js";
import { isZeroBytes, utf8ToBytes } from "../../primitives/bytes.js";
import { bigintToBytes32, bytesToBigint } from "../../primitives/u256.js";
import type { L1BlockRef } from "../refs.js";
import type { RollupConfig } from "./rollupConfig.js";

/** keccak256("systemconfig.unsafeblocksigner"). */
export const UNSAFE_BLOCK_SIGNER_SLOT: Uint8Array = keccak256(utf8ToBytes("systemconfig.unsafeblocksigner"));

function slotMinusOne(label: string): Uint8Array {
  return bigintToBytes32(bytesToBigint(keccak256(utf8ToBytes(label))) - 1n);
}

/** bytes32(uint256(keccak256("protocolversion.required")) - 1). */
export const REQUIRED_PROTOCOL_VERSION_SLOT: Uint8Array = slotMinusOne("protocolversion.required");
/** bytes32(uint256(keccak256("protocolversion.recommended")) - 1). */
export const RECOMMENDED_PROTOCOL_VERSION_SLOT: Uint8Array = slotMinusOne("protocolversion.recommended");

export interface StorageReader {
  readStorageAt(address: Uint8Array, slot: Uint8Array, blockHash: Uint8Array): Promise<Uint8Array>;
}

export interface RuntimeConfigValues {
  readonly l1Ref: L1BlockRef;
  /** 20 bytes. */
  readonly unsafeBlockSigner: Uint8Array;
  /** 32-byte protocol versions; zero when the chain has no ProtocolVersions contract. */
  readonly required: Uint8Array;
  readonly recommended: Uint8Array;
}

export async function loadRuntimeConfig(
  cfg: RollupConfig,
  l1: StorageReader,
  at: L1BlockRef,
): Promise<RuntimeConfigValues> {
  const signer = await l1.readStorageAt(cfg.l1SystemConfigAddress, UNSAFE_BLOCK_SIGNER_SLOT, at.hash);
  let required: Uint8Array = new Uint8Array(32);
  let recommended: Uint8Array = new Uint8Array(32);
  if (!isZeroBytes(cfg.protocolVersionsAddress)) {
    required = await l1.readStorageAt(cfg.protocolVersionsAddress, REQUIRED_PROTOCOL_VERSION_SLOT, at.hash);
    recommended = await l1.readStorageAt(cfg.protocolVersionsAddress, RECOMMENDED_PROTOCOL_VERSION_SLOT, at.hash);
  }
  return { l1Ref: at, unsafeBlockSigner: signer.slice(12), required, recommended };
}
