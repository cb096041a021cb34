/**
 * The data of one L1 block for derivation (SPEC: protocol/derivation.md#l1-retrieval, ecotone/
 * derivation.md#blob-retrieval; op-stack.md §2.2; op-node derive/calldata_source.go,
 * blob_data_source.go): the payloads of batcher transactions in block order.
 *
 * A batcher transaction goes to the batch inbox, is signed by the batcher address of the system
 * config as of this L1 block, and has type 0, 1, 2, 3 (or 0x7E on a nested chain). Before Ecotone
 * (on L1 time) its calldata is the payload. From Ecotone a blob transaction contributes its blobs
 * instead (its calldata is ignored), fetched from the beacon node by their index among *all* blobs
 * of the block and decoded; a blob that does not decode is skipped, but a blob that cannot be
 * fetched stops derivation with a temporary error — the block is never read partially.
 *
 * With Alt-DA, a payload starting with version byte 0x01 is a commitment resolved through the DA
 * server (`AltDaResolver`); other payloads pass through.
 */
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { recoverSender } from "../../tx/signer.js";
import { type Tx, TxType } from "../../tx/tx.js";
import { isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { L1BlockRef } from "../refs.js";
import { decodeBlob } from "./blobCodec.js";
import { temporaryError } from "./errors.js";

/** One L1 block's transactions (the L1 client verifies them against the header unless trusted). */
export interface L1TxSource {
  txsByHash(hash: Uint8Array): Promise<readonly Tx[]>;
}

/** Blobs by their index in the block; throws unless all were found and verified. */
export interface BlobSource {
  getBlobs(
    ref: Pick<L1BlockRef, "timestamp" | "hash" | "number">,
    hashes: readonly { index: number; versionedHash: Uint8Array }[],
  ): Promise<Uint8Array[]>;
}

/** Turns an Alt-DA commitment payload (version byte 0x01 first) into the data it commits to. */
export interface AltDaResolver {
  /** Called once for every L1 block before its data is read (challenge tracking). */
  advance(l1: L1BlockRef): Promise<void>;
  resolve(l1: L1BlockRef, payload: Uint8Array): Promise<Uint8Array | null>;
}

export interface DataSourceDeps {
  readonly l1: L1TxSource;
  /** Null when no beacon endpoint is configured: a blob batch then is a temporary error. */
  readonly blobs: BlobSource | null;
  readonly altDa: AltDaResolver | null;
  readonly warn?: (msg: string, ctx?: Record<string, unknown>) => void;
}

const ALLOWED_TYPES = new Set<number>([
  TxType.Legacy,
  TxType.AccessList,
  TxType.FeeMarket,
  TxType.Blob,
  TxType.Deposit,
]);

/** Is `tx` a batcher transaction for `batcher` (SPEC derivation.md#batcher-transaction-authentication)? */
export function isBatcherTx(cfg: RollupConfig, tx: Tx, batcher: Uint8Array): boolean {
  if (!ALLOWED_TYPES.has(tx.type)) return false;
  if (tx.to === null || !equalBytes(tx.to, cfg.batchInboxAddress)) return false;
  const sender = tx.type === TxType.Deposit ? tx.from : recoverSender(tx);
  return sender !== null && equalBytes(sender, batcher);
}

/**
 * All batcher payloads of L1 block `ref`, in order (version byte included; frames parse them).
 * Throws a temporary DeriveError when the block's data cannot be read completely.
 */
export async function openData(
  cfg: RollupConfig,
  deps: DataSourceDeps,
  ref: L1BlockRef,
  batcher: Uint8Array,
): Promise<Uint8Array[]> {
  if (deps.altDa !== null) await deps.altDa.advance(ref);
  let txs: readonly Tx[];
  try {
    txs = await deps.l1.txsByHash(ref.hash);
  } catch (e) {
    throw temporaryError(`failed to fetch transactions of L1 block ${ref.number}: ${(e as Error).message}`, e);
  }
  const blobsActive = isForkActive(cfg, "ecotone", ref.timestamp);
  // Payload slots in block order: calldata directly, blobs by their position in `wanted`.
  const slots: ({ data: Uint8Array } | { blob: number })[] = [];
  const wanted: { index: number; versionedHash: Uint8Array }[] = [];
  let blobIndex = 0;
  for (const tx of txs) {
    const hashes = tx.type === TxType.Blob ? tx.blobVersionedHashes : [];
    if (!isBatcherTx(cfg, tx, batcher)) {
      blobIndex += hashes.length;
      continue;
    }
    if (tx.type !== TxType.Blob || !blobsActive) {
      slots.push({ data: tx.data });
      continue;
    }
    if (tx.data.length > 0) deps.warn?.("blob tx has calldata, which will be ignored", { l1: ref.number });
    for (const h of hashes) {
      slots.push({ blob: wanted.length });
      wanted.push({ index: blobIndex++, versionedHash: h });
    }
  }
  let blobs: Uint8Array[] = [];
  if (wanted.length > 0) {
    if (deps.blobs === null) {
      throw temporaryError(`L1 block ${ref.number} carries batcher blobs but no --l1.beacon endpoint is set`);
    }
    try {
      blobs = await deps.blobs.getBlobs(ref, wanted);
    } catch (e) {
      throw temporaryError(`failed to fetch blobs of L1 block ${ref.number}: ${(e as Error).message}`, e);
    }
  }
  const out: Uint8Array[] = [];
  for (const s of slots) {
    let data: Uint8Array;
    if ("data" in s) {
      data = s.data;
    } else {
      const decoded = decodeBlob(blobs[s.blob]!);
      if (!(decoded instanceof Uint8Array)) {
        deps.warn?.("ignoring blob due to parse failure", {
          l1: ref.number,
          index: wanted[s.blob]!.index,
          hash: bytesToHex(wanted[s.blob]!.versionedHash),
          reason: decoded.message,
        });
        continue;
      }
      data = decoded;
    }
    if (deps.altDa !== null && data.length > 0 && data[0] === 0x01) {
      const resolved = await deps.altDa.resolve(ref, data);
      if (resolved === null) continue;
      data = resolved;
    }
    out.push(data);
  }
  return out;
}
