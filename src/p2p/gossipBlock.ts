/**
 * Gossiped blocks (OP specs rollup-node-p2p.md "Block gossip", op-node p2p/gossip.go): the topics,
 * the message id, the message `snappy(sig(65) ‖ [parentBeaconBlockRoot(32)] ‖ SSZ payload)` and
 * the validation rules in op-node's order (BuildBlocksValidator):
 *
 * 1. REJECT bad snappy, a decoded size above 10 MiB or below 66 bytes;
 * 2. IGNORE when no unsafe-block signer is known (zero address); REJECT a signature that does not
 *    recover to it (recovery id 0 or 1 only, as go-ethereum's SigToPub reads it);
 * 3. REJECT bad SSZ;
 * 4. REJECT a timestamp older than now − `--p2p.gossip.timestamp.threshold` or more than 5 s ahead;
 * 5. REJECT a payload whose fork does not match the topic version (Opal's addition: op-node relies on
 *    the hash check, which a payload decoded with the wrong layout fails anyway);
 * 6. REJECT a wrong block hash (recomputed from the header the payload describes);
 * 7. REJECT version-specific fields out of place: withdrawals absent before Canyon, present and
 *    empty after; blobGasUsed and excessBlobGas zero from Ecotone (blobGasUsed carries the DA
 *    footprint from Jovian, so only excessBlobGas must be zero then); parentBeaconBlockRoot from
 *    Ecotone; withdrawalsRoot exactly from Isthmus;
 * 8. REJECT a sixth distinct block at one height (heights kept in an LRU of 1000); IGNORE a block
 *    already seen; then remember it.
 *
 * The validator is synchronous and pure apart from its seen-blocks memory and the injected clock;
 * like op-node's guardGossipValidator, anything unexpected thrown inside is a REJECT ("internal").
 */
import { headerHash } from "../block/header.js";
import { keccak256 } from "../crypto/keccak.js";
import { recoverAddress } from "../crypto/secp256k1.js";
import { sha256 } from "../crypto/sha256.js";
import { payloadToBlock } from "../engine/payload.js";
import { concatBytes, equalBytes } from "../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { SnappyError, snappyCompress, snappyUncompress, snappyUncompressedLength } from "../primitives/snappy.js";
import { isForkActive, type RollupConfig } from "../rollup/config/rollupConfig.js";
import { blockSigningHash, payloadHashOf, signBlockPayloadHash } from "./signingHash.js";
import { type BlockVersion, decodeEnvelope, encodeEnvelope, type PayloadEnvelopeJson, SszError } from "./ssz.js";

export type { BlockVersion } from "./ssz.js";

export const MAX_GOSSIP_SIZE = 10 * 1024 * 1024;
export const MIN_GOSSIP_SIZE = 66;
const FUTURE_SLACK_SEC = 5;
const MAX_BLOCKS_PER_HEIGHT = 5;
const SEEN_HEIGHTS = 1000;

/** `/optimism/<chainId>/<N>/blocks`. */
export function blocksTopic(chainId: bigint, version: BlockVersion): string {
  return `/optimism/${chainId.toString(10)}/${version}/blocks`;
}

/** The gossip version of a block at `timestamp`: Isthmus 3, Ecotone 2, Canyon 1, else 0. */
export function blockVersionAt(cfg: RollupConfig, timestamp: number): BlockVersion {
  if (isForkActive(cfg, "isthmus", timestamp)) return 3;
  if (isForkActive(cfg, "ecotone", timestamp)) return 2;
  if (isForkActive(cfg, "canyon", timestamp)) return 1;
  return 0;
}

/**
 * The gossipsub message id: `sha256(domain ‖ uint64_le(len(topic)) ‖ topic ‖ data)[:20]`, with
 * domain 0x01000000 and the snappy-decoded data when it decodes (within 10 MiB), else 0x00000000 and
 * the raw bytes.
 */
export function gossipMessageId(topic: string, data: Uint8Array): Uint8Array {
  const decoded = snappyUncompress(data, MAX_GOSSIP_SIZE);
  const valid = !(decoded instanceof SnappyError);
  const body = valid ? decoded : data;
  const t = new TextEncoder().encode(topic);
  const buf = new Uint8Array(4 + 8 + t.length + body.length);
  const dv = new DataView(buf.buffer);
  buf[0] = valid ? 1 : 0;
  dv.setBigUint64(4, BigInt(t.length), true);
  buf.set(t, 12);
  buf.set(body, 12 + t.length);
  return sha256(buf).slice(0, 20);
}

/** The gossip message: `snappy(signature ‖ signedBytes)`. */
export function gossipMessage(signedBytes: Uint8Array, signature: Uint8Array): Uint8Array {
  return snappyCompress(concatBytes(signature, signedBytes));
}

/** Signs a payload hash (keccak256 of the signed bytes): 65 bytes r ‖ s ‖ v, v ∈ {0, 1}. */
export type GossipBlockSigner = (payloadHash: Uint8Array) => Uint8Array;

/**
 * The snappy-compressed gossip message for `envelope` in `version`'s layout, signed by `signer`.
 * Throws SszError on a payload that does not fit the version, RangeError on a signature that is not
 * 65 bytes.
 */
export function encodeGossipBlock(
  version: BlockVersion,
  envelope: PayloadEnvelopeJson,
  signer: GossipBlockSigner,
): Uint8Array {
  const signed = encodeEnvelope(version, envelope);
  const sig = signer(payloadHashOf(signed));
  if (sig.length !== 65) throw new RangeError(`gossip block signer returned ${sig.length} bytes, want 65`);
  return gossipMessage(signed, sig);
}

/** A signer with a local key: secp256k1 over blockSigningHash(chainId, payloadHash). */
export function localBlockSigner(privateKey: Uint8Array, chainId: bigint): GossipBlockSigner {
  return (payloadHash) => signBlockPayloadHash(chainId, payloadHash, privateKey);
}

/**
 * The hash of the header a payload describes (the hash it must claim), or null when the payload does
 * not form a header of its version.
 */
export function blockHashOf(version: BlockVersion, env: PayloadEnvelopeJson): Uint8Array | null {
  try {
    const d = payloadToBlock(
      env.executionPayload,
      version + 1,
      env.parentBeaconBlockRoot === null ? null : hexToBytes(env.parentBeaconBlockRoot),
      version === 3 ? [] : null,
      true,
    );
    return headerHash(d.header);
  } catch {
    return null;
  }
}

export type GossipRejectReason =
  | "snappy"
  | "size"
  | "no_signer"
  | "signature"
  | "ssz"
  | "timestamp_old"
  | "timestamp_future"
  | "version_mismatch"
  | "block_hash"
  | "withdrawals"
  | "blob_fields"
  | "beacon_root"
  | "withdrawals_root"
  | "too_many_at_height"
  | "duplicate"
  | "internal";

export type GossipVerdict =
  | {
      readonly result: "accept";
      readonly envelope: PayloadEnvelopeJson;
      readonly blockHash: Uint8Array;
      readonly number: number;
    }
  | { readonly result: "reject" | "ignore"; readonly reason: GossipRejectReason };

export interface BlockGossipValidatorOptions {
  readonly cfg: RollupConfig;
  readonly chainId: bigint;
  /** The current unsafe-block signer (20 bytes; all zero = unknown). */
  readonly signer: () => Uint8Array;
  /** `--p2p.gossip.timestamp.threshold` in seconds (default 60). */
  readonly timestampThresholdSec: number;
  /** Unix seconds. */
  readonly now?: () => number;
}

const reject = (reason: GossipRejectReason): GossipVerdict => ({ result: "reject", reason });

export class BlockGossipValidator {
  /** Block number → hashes seen at that height; Map order is recency order (oldest first). */
  private readonly seen = new Map<number, string[]>();

  constructor(private readonly opts: BlockGossipValidatorOptions) {}

  validate(version: BlockVersion, data: Uint8Array): GossipVerdict {
    try {
      return this.check(version, data);
    } catch {
      return reject("internal");
    }
  }

  private check(version: BlockVersion, data: Uint8Array): GossipVerdict {
    // 1. Compression and size.
    const declared = snappyUncompressedLength(data);
    if (declared instanceof SnappyError) return reject("snappy");
    if (declared > MAX_GOSSIP_SIZE || declared < MIN_GOSSIP_SIZE) return reject("size");
    const msg = snappyUncompress(data, MAX_GOSSIP_SIZE);
    if (msg instanceof SnappyError) return reject("snappy");
    const sig = msg.subarray(0, 65);
    const signed = msg.subarray(65);
    // 2. Signature against the current unsafe-block signer.
    const expected = this.opts.signer();
    if (expected.every((b) => b === 0)) return { result: "ignore", reason: "no_signer" };
    const recid = sig[64]!;
    if (recid > 1) return reject("signature");
    const from = recoverAddress(blockSigningHash(this.opts.chainId, keccak256(signed)), sig.subarray(0, 64), recid);
    if (from === null || !equalBytes(from, expected)) return reject("signature");
    // 3. SSZ.
    const env = decodeEnvelope(version, signed);
    if (env instanceof SszError) return reject("ssz");
    const p = env.executionPayload;
    const timestamp = Number(BigInt(p.timestamp as string));
    const number = Number(BigInt(p.blockNumber as string));
    // 4. Timestamp window.
    const now = this.opts.now?.() ?? Math.floor(Date.now() / 1000);
    if (timestamp < now - this.opts.timestampThresholdSec) return reject("timestamp_old");
    if (timestamp > now + FUTURE_SLACK_SEC) return reject("timestamp_future");
    // 5. The topic version must be the payload's fork.
    const cfg = this.opts.cfg;
    if (blockVersionAt(cfg, timestamp) !== version) return reject("version_mismatch");
    // 6. Block hash.
    const hash = blockHashOf(version, env);
    if (hash === null || bytesToHex(hash) !== (p.blockHash as string).toLowerCase()) return reject("block_hash");
    // 7. Version-specific fields.
    const w = p.withdrawals as unknown[] | undefined;
    if (version === 0 ? w !== undefined : !Array.isArray(w) || w.length !== 0) return reject("withdrawals");
    if (version >= 2) {
      if (p.excessBlobGas !== "0x0") return reject("blob_fields");
      if (p.blobGasUsed !== "0x0" && !isForkActive(cfg, "jovian", timestamp)) return reject("blob_fields");
      if (env.parentBeaconBlockRoot === null) return reject("beacon_root");
    } else if (p.blobGasUsed !== undefined || p.excessBlobGas !== undefined) {
      return reject("blob_fields");
    }
    if ((version === 3) !== (typeof p.withdrawalsRoot === "string")) return reject("withdrawals_root");
    // 8. Per-height limits and duplicates.
    const hex = bytesToHex(hash);
    let at = this.seen.get(number);
    if (at === undefined) {
      at = [];
      if (this.seen.size >= SEEN_HEIGHTS) this.seen.delete(this.seen.keys().next().value!);
    } else {
      this.seen.delete(number); // re-inserted below as the most recent
    }
    this.seen.set(number, at);
    if (at.includes(hex)) return { result: "ignore", reason: "duplicate" };
    if (at.length >= MAX_BLOCKS_PER_HEIGHT) return reject("too_many_at_height");
    at.push(hex);
    return { result: "accept", envelope: env, blockHash: hash, number };
  }
}
