/**
 * Blob sidecars of a dev L1 (the devnet's `opal-exec --dev`): the blobs, KZG commitments and proofs
 * that EIP-4844 transactions carry in their network form, verified when they arrive (each commitment
 * hashes to its versioned hash, each proof holds) and kept by versioned hash; once a block is sealed,
 * by block too, with each blob's index among all blobs of the block — what the beacon API serves.
 * Blocks older than `keepBlocks` are pruned (a real beacon node keeps blobs ~18 days).
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

export class BlobSidecarStore {
  private readonly byHash = new Map<string, Omit<BlobSidecar, "index">>();
  private readonly byBlock = new Map<number, { hash: Uint8Array; sidecars: BlobSidecar[] }>();

  constructor(private readonly keepBlocks = 4096) {}

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
      this.byHash.set(bytesKey(w.tx.blobVersionedHashes[i]!), {
        blob: w.blobs[i]!,
        commitment: w.commitments[i]!,
        proof: w.proofs[i]!,
      });
    }
  }

  /** A sealed block's txs: records its sidecars by index (txs whose sidecars are unknown count blobs). */
  sealed(number: number, hash: Uint8Array, txs: readonly Tx[]): void {
    const sidecars: BlobSidecar[] = [];
    let index = 0;
    for (const tx of txs) {
      if (tx.type !== TxType.Blob) continue;
      for (const h of tx.blobVersionedHashes) {
        const s = this.byHash.get(bytesKey(h));
        if (s !== undefined) sidecars.push({ index, ...s });
        index++;
      }
    }
    this.byBlock.set(number, { hash, sidecars });
    const old = number - this.keepBlocks;
    for (const k of this.byBlock.keys()) if (k <= old) this.byBlock.delete(k);
  }

  /** The sidecars of block `number` (the canonical one with `hash`), or null when unknown. */
  atBlock(number: number, hash: Uint8Array): BlobSidecar[] | null {
    const b = this.byBlock.get(number);
    if (b === undefined || bytesKey(b.hash) !== bytesKey(hash)) return null;
    return b.sidecars;
  }
}
