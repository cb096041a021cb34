/**
 * The one loader of c-kzg (the reference C KZG library) and its trusted setup. c-kzg keeps the setup
 * per thread and throws when it is loaded twice, so every user in a thread — the EVM's point
 * evaluation precompile, the rollup node's blob checks, the dev L1's blob sidecars, the batcher,
 * tests — goes through here: the first call loads it (~2 s, the setup bundled with c-kzg), later calls
 * return the same binding, and a setup someone else already loaded in this thread is accepted.
 *
 * Also the EIP-7594 (PeerDAS, Osaka) cell proofs over whole blobs: the CELLS_PER_EXT_BLOB (128)
 * proofs of a blob's extension and their batch check as execution-apis osaka.md states it for
 * getPayloadV5 (`verify_cell_kzg_proof_batch` with each commitment repeated 128 times, cell indices
 * 0..127 per blob, the cells of `compute_cells(blob)`).
 */
import { createRequire } from "node:module";

export interface CKzg {
  loadTrustedSetup(precompute: number, filePath?: string): void;
  verifyKzgProof(commitment: Uint8Array, z: Uint8Array, y: Uint8Array, proof: Uint8Array): boolean;
  verifyBlobKzgProof(blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array): boolean;
  verifyBlobKzgProofBatch(blobs: Uint8Array[], commitments: Uint8Array[], proofs: Uint8Array[]): boolean;
  blobToKzgCommitment(blob: Uint8Array): Uint8Array;
  computeBlobKzgProof(blob: Uint8Array, commitment: Uint8Array): Uint8Array;
  /** The CELLS_PER_EXT_BLOB cells of the blob's extension (c-kzg 4.1 `computeCells`). */
  computeCells(blob: Uint8Array): Uint8Array[];
  /** The cells and their KZG proofs (c-kzg 4.1 `computeCellsAndKzgProofs`). */
  computeCellsAndKzgProofs(blob: Uint8Array): [Uint8Array[], Uint8Array[]];
  /** One commitment, cell index, cell and proof per item (c-kzg 4.1 `verifyCellKzgProofBatch`). */
  verifyCellKzgProofBatch(
    commitments: Uint8Array[],
    cellIndices: number[],
    cells: Uint8Array[],
    proofs: Uint8Array[],
  ): boolean;
}

/** EIP-7594 CELLS_PER_EXT_BLOB: cells, and so cell proofs, per blob. */
export const CELLS_PER_EXT_BLOB = 128;

/** This thread's binding with its setup loaded (each worker thread has its own). */
let kzg: CKzg | null = null;

export function loadKzg(): CKzg {
  if (kzg !== null) return kzg;
  const k = createRequire(import.meta.url)("c-kzg") as CKzg;
  try {
    k.loadTrustedSetup(0);
  } catch (e) {
    if (!(e instanceof Error && /already loaded/i.test(e.message))) throw e;
  }
  kzg = k;
  return k;
}

/**
 * The CELLS_PER_EXT_BLOB cell proofs of `blob`, in cell order (what an EIP-7594 wrapper and
 * BlobsBundleV2 carry per blob). PERF: ~0.3–0.4 s per blob on this 2-core VM (c-kzg 4.1, setup
 * loaded with precompute 0; precompute 8 measured no faster here and took ~100 MiB more).
 */
export function computeCellProofs(blob: Uint8Array): Uint8Array[] {
  return loadKzg().computeCellsAndKzgProofs(blob)[1];
}

/**
 * Whether `proofs` (CELLS_PER_EXT_BLOB per blob, blob by blob) are the cell proofs of `blobs` under
 * `commitments`: one `verify_cell_kzg_proof_batch` over every cell, as execution-apis osaka.md
 * (engine_getPayloadV5, 3.3) spells the check. False for wrong counts or malformed inputs.
 */
export function verifyCellProofs(
  blobs: readonly Uint8Array[],
  commitments: readonly Uint8Array[],
  proofs: readonly Uint8Array[],
): boolean {
  const n = blobs.length;
  if (commitments.length !== n || proofs.length !== n * CELLS_PER_EXT_BLOB) return false;
  if (n === 0) return true;
  const k = loadKzg();
  const allCommitments: Uint8Array[] = [];
  const indices: number[] = [];
  const cells: Uint8Array[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const blobCells = k.computeCells(blobs[i]!);
      for (let c = 0; c < CELLS_PER_EXT_BLOB; c++) {
        allCommitments.push(commitments[i]!);
        indices.push(c);
        cells.push(blobCells[c]!);
      }
    }
    return k.verifyCellKzgProofBatch(allCommitments, indices, cells, [...proofs]);
  } catch {
    return false;
  }
}
