/**
 * Blob sidecars of a dev L1 (the devnet's `opal-exec --dev`): the blobs, KZG commitments and proofs
 * that EIP-4844 transactions carry in their network form, verified when they arrive (each commitment
 * hashes to its versioned hash, the proofs hold) and kept by versioned hash; once a block is sealed,
 * by block too, with each blob's index among all blobs of the block — what the beacon API serves.
 * Blocks older than `keepBlocks` are pruned (a real beacon node keeps blobs ~18 days), and so are
 * sidecars by versioned hash last added or sealed that long ago (a tx the pool dropped, or one
 * sealed long since): without that the store kept every blob it was ever given.
 * With an `archive` store (the dev beacon API's case: 4,096 blocks of blobs, ~550 MB when every block
 * carries one), sealed blocks' sidecars are written there, as a beacon node keeps them on disk, and
 * memory keeps a sealed blob by versioned hash only for ARCHIVED_LIMBO_BLOCKS (the devnet soak saw the
 * L1's RSS grow with every blob the batcher posted).
 *
 * Wrapper versions (geth core/txpool/validation.go `validateBlobTx`, v1.17.0): while the head is
 * before Osaka only version 0 (one blob proof per blob) is taken, from Osaka only version 1 (EIP-7594,
 * CELLS_PER_EXT_BLOB cell proofs per blob). What is not carried is computed when first asked for and
 * kept: a blob's KZG proof for the beacon API and getPayloadV3/V4 (a beacon node computes it itself
 * from Fulu on), its cell proofs for getPayloadV5 when a version-0 sidecar lands in an Osaka block.
 */

import { numberKey } from "../chain/chainStore.js";
import { CELLS_PER_EXT_BLOB, computeCellProofs, loadKzg, verifyCellProofs } from "../crypto/kzg.js";
import { bytesKey, equalBytes } from "../primitives/bytes.js";
import { type ChainConfig, rulesAt } from "../spec/chainConfig.js";
import { Fork } from "../spec/forks.js";
import { type KvStore, WriteBatch } from "../storage/kv.js";
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

export interface Kept {
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

/** Blocks a sealed blob stays in memory by versioned hash when the block's sidecars are archived (geth's limbo). */
export const ARCHIVED_LIMBO_BLOCKS = 64;

const COMMITMENT = 48;
const PROOF = 48;

/**
 * A sealed block's sidecars as stored: per sidecar index (u32 BE) ‖ version (1) ‖ commitment (48) ‖
 * proof count (u16 BE) ‖ proofs (48 each: the blob proof, or the cell proofs, as they arrived, none
 * when not yet known) ‖ blob length (u32 BE) ‖ blob.
 */
export function encodeSealed(hash: Uint8Array, list: readonly { index: number; k: Kept }[]): Uint8Array {
  let size = 32;
  for (const { k } of list) size += 4 + 1 + COMMITMENT + 2 + PROOF * proofsAsArrived(k).length + 4 + k.blob.length;
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  out.set(hash, 0);
  let p = 32;
  for (const { index, k } of list) {
    v.setUint32(p, index);
    out[p + 4] = k.version;
    out.set(k.commitment, p + 5);
    p += 5 + COMMITMENT;
    const proofs = proofsAsArrived(k);
    v.setUint16(p, proofs.length);
    p += 2;
    for (const pr of proofs) {
      out.set(pr, p);
      p += PROOF;
    }
    v.setUint32(p, k.blob.length);
    out.set(k.blob, p + 4);
    p += 4 + k.blob.length;
  }
  return out;
}

function proofsAsArrived(k: Kept): readonly Uint8Array[] {
  if (k.version === 0) return k.blobProof === null ? [] : [k.blobProof];
  return k.cellProofs ?? [];
}

/** Decodes encodeSealed's value; throws RangeError on a malformed one. */
export function decodeSealed(value: Uint8Array): { hash: Uint8Array; sidecars: BlobSidecar[] } {
  const v = new DataView(value.buffer, value.byteOffset, value.byteLength);
  const need = (p: number, n: number): void => {
    if (p + n > value.length) throw new RangeError(`blob sidecar record truncated at ${p}`);
  };
  need(0, 32);
  // Copies (not views): the row may be a Buffer, whose slice() shares memory.
  const copy = (a: number, b: number): Uint8Array => Uint8Array.prototype.slice.call(value, a, b);
  const hash = copy(0, 32);
  const sidecars: BlobSidecar[] = [];
  for (let p = 32; p < value.length; ) {
    need(p, 5 + COMMITMENT + 2);
    const index = v.getUint32(p);
    const version = value[p + 4];
    if (version !== 0 && version !== 1) throw new RangeError(`blob sidecar version ${version}`);
    const commitment = copy(p + 5, p + 5 + COMMITMENT);
    p += 5 + COMMITMENT;
    const n = v.getUint16(p);
    p += 2;
    need(p, PROOF * n + 4);
    const proofs: Uint8Array[] = [];
    for (let i = 0; i < n; i++, p += PROOF) proofs.push(copy(p, p + PROOF));
    const len = v.getUint32(p);
    need(p + 4, len);
    const blob = copy(p + 4, p + 4 + len);
    p += 4 + len;
    const k: Kept = {
      blob,
      commitment,
      version,
      blobProof: version === 0 && n > 0 ? proofs[0]! : null,
      cellProofs: version === 1 && n > 0 ? proofs : null,
      at: 0,
    };
    sidecars.push(sealedSidecar(index, k));
  }
  return { hash, sidecars };
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
    private readonly archive: KvStore | null = null,
    private readonly limboBlocks = ARCHIVED_LIMBO_BLOCKS,
  ) {}

  /** How many sidecars are kept by versioned hash, and how many blocks by number. */
  stats(): { blobs: number; blocks: number } {
    let blocks = this.byBlock.size;
    if (this.archive !== null) for (const _ of this.archive.iterate("blobSidecars")) blocks++;
    return { blobs: this.byHash.size, blocks };
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
    const found: { index: number; k: Kept }[] = [];
    let index = 0;
    for (const tx of txs) {
      if (tx.type !== TxType.Blob) continue;
      for (const h of tx.blobVersionedHashes) {
        const k = bytesKey(h);
        const s = this.byHash.get(k);
        if (s !== undefined) {
          found.push({ index, k: s });
          this.byHash.delete(k);
          s.at = number;
          this.byHash.set(k, s);
        }
        index++;
      }
    }
    if (number > this.head) this.head = number;
    const old = number - this.keepBlocks;
    if (this.archive !== null) {
      const b = new WriteBatch().put("blobSidecars", numberKey(number), encodeSealed(hash, found));
      // Rows of blocks now past the retention (one per sealed block; more after a gap or a restart).
      for (const [key] of this.archive.iterate("blobSidecars", { lt: numberKey(Math.max(old + 1, 0)) })) {
        b.del("blobSidecars", key);
      }
      this.archive.write(b);
    } else {
      this.byBlock.set(number, { hash, sidecars: found.map((f) => sealedSidecar(f.index, f.k)) });
      for (const k of this.byBlock.keys()) if (k <= old) this.byBlock.delete(k);
    }
    const forgetBefore = this.archive === null ? old : number - Math.min(this.limboBlocks, this.keepBlocks);
    for (const [k, s] of this.byHash) {
      if (s.at > forgetBefore) break;
      this.byHash.delete(k);
    }
  }

  /** The sidecars of block `number` (the canonical one with `hash`), or null when unknown. */
  atBlock(number: number, hash: Uint8Array): BlobSidecar[] | null {
    if (this.archive !== null) {
      const row = this.archive.get("blobSidecars", numberKey(number));
      if (row === undefined) return null;
      const b = decodeSealed(row);
      return equalBytes(b.hash, hash) ? b.sidecars : null;
    }
    const b = this.byBlock.get(number);
    if (b === undefined || bytesKey(b.hash) !== bytesKey(hash)) return null;
    return b.sidecars;
  }
}
