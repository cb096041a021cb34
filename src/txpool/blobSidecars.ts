/**
 * Blob sidecars of a dev L1 (the devnet's `opal-exec --dev`): the blobs, KZG commitments and proofs
 * that EIP-4844 transactions carry in their network form, verified when they arrive (each commitment
 * hashes to its versioned hash, each proof holds) and kept by versioned hash; once a block is sealed,
 * by block too, with each blob's index among all blobs of the block — what the beacon API serves.
 * Blocks older than `keepBlocks` are pruned (a real beacon node keeps blobs ~18 days), and so are
 * sidecars by versioned hash last added or sealed that long ago (a tx the pool dropped, or one
 * sealed long since): without that the store kept every blob it was ever given.
 */
import { loadKzg } from "../crypto/kzg.js";
import { bytesKey } from "../primitives/bytes.js";
import { type BlobTxNetwork, kzgToVersionedHash } from "../tx/blobNetwork.js";
import { type Tx, TxType } from "../tx/tx.js";

export interface BlobSidecar {
  readonly index: number;
  readonly blob: Uint8Array;
  readonly commitment: Uint8Array;
  readonly proof: Uint8Array;
}

export class BlobSidecarError extends Error {
  override readonly name = "BlobSidecarError";
}

interface Kept {
  readonly blob: Uint8Array;
  readonly commitment: Uint8Array;
  readonly proof: Uint8Array;
  /** The newest block sealed when the sidecar was added, or the block that sealed it: its age. */
  readonly at: number;
}

export class BlobSidecarStore {
  /** Oldest `at` first (entries are re-inserted when they are sealed), so pruning stops early. */
  private readonly byHash = new Map<string, Kept>();
  private readonly byBlock = new Map<number, { hash: Uint8Array; sidecars: BlobSidecar[] }>();
  /** The newest block number sealed so far. */
  private head = 0;

  constructor(private readonly keepBlocks = 4096) {}

  /** How many sidecars are kept by versioned hash, and how many blocks by number. */
  stats(): { blobs: number; blocks: number } {
    return { blobs: this.byHash.size, blocks: this.byBlock.size };
  }

  /** Verifies the network form's sidecars (v0 blob proofs) and keeps them; throws BlobSidecarError. */
  add(w: BlobTxNetwork): void {
    if (w.wrapperVersion !== 0) throw new BlobSidecarError("only blob proofs (wrapper version 0) are accepted");
    const n = w.tx.blobVersionedHashes.length;
    for (let i = 0; i < n; i++) {
      const vh = kzgToVersionedHash(w.commitments[i]!);
      if (bytesKey(vh) !== bytesKey(w.tx.blobVersionedHashes[i]!)) {
        throw new BlobSidecarError(`blob ${i}: commitment does not match its versioned hash`);
      }
    }
    let ok = false;
    try {
      ok = loadKzg().verifyBlobKzgProofBatch([...w.blobs], [...w.commitments], [...w.proofs]);
    } catch (e) {
      throw new BlobSidecarError(`invalid blob sidecar: ${(e as Error).message}`);
    }
    if (!ok) throw new BlobSidecarError("invalid blob sidecar: KZG proof does not verify");
    for (let i = 0; i < n; i++) {
      const k = bytesKey(w.tx.blobVersionedHashes[i]!);
      this.byHash.delete(k);
      this.byHash.set(k, { blob: w.blobs[i]!, commitment: w.commitments[i]!, proof: w.proofs[i]!, at: this.head });
    }
  }

  /** A sealed block's txs: records its sidecars by index (txs whose sidecars are unknown count blobs). */
  sealed(number: number, hash: Uint8Array, txs: readonly Tx[]): void {
    const sidecars: BlobSidecar[] = [];
    let index = 0;
    for (const tx of txs) {
      if (tx.type !== TxType.Blob) continue;
      for (const h of tx.blobVersionedHashes) {
        const k = bytesKey(h);
        const s = this.byHash.get(k);
        if (s !== undefined) {
          sidecars.push({ index, blob: s.blob, commitment: s.commitment, proof: s.proof });
          this.byHash.delete(k);
          this.byHash.set(k, { ...s, at: number });
        }
        index++;
      }
    }
    this.byBlock.set(number, { hash, sidecars });
    if (number > this.head) this.head = number;
    const old = number - this.keepBlocks;
    for (const k of this.byBlock.keys()) if (k <= old) this.byBlock.delete(k);
    for (const [k, s] of this.byHash) {
      if (s.at > old) break;
      this.byHash.delete(k);
    }
  }

  /** The sidecars of block `number` (the canonical one with `hash`), or null when unknown. */
  atBlock(number: number, hash: Uint8Array): BlobSidecar[] | null {
    const b = this.byBlock.get(number);
    if (b === undefined || bytesKey(b.hash) !== bytesKey(hash)) return null;
    return b.sidecars;
  }
}
