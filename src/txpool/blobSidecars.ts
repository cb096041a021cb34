/**
 * Blob sidecars of a dev L1 (the devnet's `opal-exec --dev`): the blobs, KZG commitments and proofs
 * that EIP-4844 transactions carry in their network form, verified when they arrive (each commitment
 * hashes to its versioned hash, the proofs hold) and kept by versioned hash; once a block is sealed,
 * by block too, with each blob's index among all blobs of the block — what the beacon API serves.
 * Blocks older than `keepBlocks` are pruned (a real beacon node keeps blobs ~18 days), and so are
 * sidecars by versioned hash last added or sealed that long ago (a tx the pool dropped, or one
 * sealed long since): without that the store kept every blob it was ever given.
 *
 * Wrapper versions (geth core/txpool/validation.go `validateBlobTx`, v1.17.0): while the head is
 * before Osaka only version 0 (one blob proof per blob) is taken, from Osaka only version 1 (EIP-7594,
 * CELLS_PER_EXT_BLOB cell proofs per blob). What is not carried is computed when first asked for and
 * kept: a blob's KZG proof for the beacon API and getPayloadV3/V4 (a beacon node computes it itself
 * from Fulu on), its cell proofs for getPayloadV5 when a version-0 sidecar lands in an Osaka block.
 */
import { CELLS_PER_EXT_BLOB, computeCellProofs, loadKzg, verifyCellProofs } from "../crypto/kzg.js";
import { bytesKey } from "../primitives/bytes.js";
import { type ChainConfig, rulesAt } from "../spec/chainConfig.js";
import { Fork } from "../spec/forks.js";
import { type BlobTxNetwork, kzgToVersionedHash } from "../tx/blobNetwork.js";
import { type Tx, TxType } from "../tx/tx.js";

/** A sealed block's blob: its index among the block's blobs, and its blob KZG proof. */
export interface BlobSidecar {
  readonly index: number;
  readonly blob: Uint8Array;
  readonly commitment: Uint8Array;
  /** The blob's KZG proof (computed on first read when the tx carried cell proofs). */
  readonly proof: Uint8Array;
}

/** A kept blob as the Engine API's getBlobs reads it: the proofs in the form they arrived. */
export interface StoredBlob {
  readonly blob: Uint8Array;
  readonly commitment: Uint8Array;
  /** The wrapper version it arrived in: 0 = `proofs` is its blob proof, 1 = its cell proofs. */
  readonly version: 0 | 1;
  readonly proofs: readonly Uint8Array[];
}

/** The chain whose head decides the wrapper version taken (a Blockchain fits). */
export interface SidecarChain {
  readonly config: ChainConfig;
  readonly head: { readonly number: number; readonly timestamp: number };
}

export class BlobSidecarError extends Error {
  override readonly name = "BlobSidecarError";
}

interface Kept {
  readonly blob: Uint8Array;
  readonly commitment: Uint8Array;
  readonly version: 0 | 1;
  /** The blob proof once known (arrived in version 0, or computed). */
  blobProof: Uint8Array | null;
  /** The cell proofs once known (arrived in version 1, or computed). */
  cellProofs: readonly Uint8Array[] | null;
  /** The newest block sealed when the sidecar was added, or the block that sealed it: its age. */
  at: number;
}

function blobProofOf(k: Kept): Uint8Array {
  if (k.blobProof === null) k.blobProof = loadKzg().computeBlobKzgProof(k.blob, k.commitment);
  return k.blobProof;
}

function cellProofsOf(k: Kept): readonly Uint8Array[] {
  if (k.cellProofs === null) k.cellProofs = computeCellProofs(k.blob);
  return k.cellProofs;
}

function sealedSidecar(index: number, k: Kept): BlobSidecar {
  return {
    index,
    blob: k.blob,
    commitment: k.commitment,
    get proof() {
      return blobProofOf(k);
    },
  };
}

export class BlobSidecarStore {
  /** Oldest `at` first (entries are re-inserted when they are sealed), so pruning stops early. */
  private readonly byHash = new Map<string, Kept>();
  private readonly byBlock = new Map<number, { hash: Uint8Array; sidecars: BlobSidecar[] }>();
  /** The newest block number sealed so far. */
  private head = 0;

  /**
   * `chain`: the chain whose head's fork decides the wrapper version `add` takes (the node passes its
   * own); without one, as in tests of the store alone, both versions are taken.
   */
  constructor(
    private readonly keepBlocks = 4096,
    private readonly chain: SidecarChain | null = null,
  ) {}

  /** How many sidecars are kept by versioned hash, and how many blocks by number. */
  stats(): { blobs: number; blocks: number } {
    return { blobs: this.byHash.size, blocks: this.byBlock.size };
  }

  /** Verifies the network form's sidecars and keeps them; throws BlobSidecarError. */
  add(w: BlobTxNetwork): void {
    if (this.chain !== null) {
      // SPEC: geth v1.17.0 validateBlobTx: "unexpected sidecar version, want: %d, got: %d", version 1
      // once the head is Osaka, else 0.
      const h = this.chain.head;
      const want = rulesAt(this.chain.config, h.number, h.timestamp).fork >= Fork.Osaka ? 1 : 0;
      if (w.wrapperVersion !== want) {
        throw new BlobSidecarError(`unexpected sidecar version, want: ${want}, got: ${w.wrapperVersion}`);
      }
    }
    const n = w.tx.blobVersionedHashes.length;
    for (let i = 0; i < n; i++) {
      const vh = kzgToVersionedHash(w.commitments[i]!);
      if (bytesKey(vh) !== bytesKey(w.tx.blobVersionedHashes[i]!)) {
        throw new BlobSidecarError(`blob ${i}: commitment does not match its versioned hash`);
      }
    }
    if (w.wrapperVersion === 0) {
      let ok = false;
      try {
        ok = loadKzg().verifyBlobKzgProofBatch([...w.blobs], [...w.commitments], [...w.proofs]);
      } catch (e) {
        throw new BlobSidecarError(`invalid blob sidecar: ${(e as Error).message}`);
      }
      if (!ok) throw new BlobSidecarError("invalid blob sidecar: KZG proof does not verify");
    } else if (!verifyCellProofs(w.blobs, w.commitments, w.proofs)) {
      throw new BlobSidecarError("invalid blob sidecar: KZG cell proofs do not verify");
    }
    for (let i = 0; i < n; i++) {
      const k = bytesKey(w.tx.blobVersionedHashes[i]!);
      const cells =
        w.wrapperVersion === 1 ? w.proofs.slice(CELLS_PER_EXT_BLOB * i, CELLS_PER_EXT_BLOB * (i + 1)) : null;
      this.byHash.delete(k);
      this.byHash.set(k, {
        blob: w.blobs[i]!,
        commitment: w.commitments[i]!,
        version: w.wrapperVersion,
        blobProof: w.wrapperVersion === 0 ? w.proofs[i]! : null,
        cellProofs: cells,
        at: this.head,
      });
    }
  }

  /** The blob kept under `versionedHash`, with the proofs it arrived with; null when unknown. */
  get(versionedHash: Uint8Array): StoredBlob | null {
    const k = this.byHash.get(bytesKey(versionedHash));
    if (k === undefined) return null;
    return {
      blob: k.blob,
      commitment: k.commitment,
      version: k.version,
      proofs: k.version === 0 ? [blobProofOf(k)] : cellProofsOf(k),
    };
  }

  /** The blob, commitment and blob KZG proof of `versionedHash` (the proof computed if need be). */
  withBlobProof(versionedHash: Uint8Array): { blob: Uint8Array; commitment: Uint8Array; proof: Uint8Array } | null {
    const k = this.byHash.get(bytesKey(versionedHash));
    return k === undefined ? null : { blob: k.blob, commitment: k.commitment, proof: blobProofOf(k) };
  }

  /** The blob, commitment and cell proofs of `versionedHash` (the proofs computed if need be). */
  withCellProofs(
    versionedHash: Uint8Array,
  ): { blob: Uint8Array; commitment: Uint8Array; proofs: readonly Uint8Array[] } | null {
    const k = this.byHash.get(bytesKey(versionedHash));
    return k === undefined ? null : { blob: k.blob, commitment: k.commitment, proofs: cellProofsOf(k) };
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
          sidecars.push(sealedSidecar(index, s));
          this.byHash.delete(k);
          s.at = number;
          this.byHash.set(k, s);
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
