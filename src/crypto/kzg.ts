/**
 * The one loader of c-kzg (the reference C KZG library) and its trusted setup. c-kzg keeps the setup
 * per thread and throws when it is loaded twice, so every user in a thread — the EVM's point
 * evaluation precompile, the rollup node's blob checks, tests — goes through here: the first call
 * loads it (~2 s, the setup bundled with c-kzg), later calls return the same binding, and a setup
 * someone else already loaded in this thread is accepted.
 */
import { createRequire } from "node:module";

export interface CKzg {
  loadTrustedSetup(precompute: number, filePath?: string): void;
  verifyKzgProof(commitment: Uint8Array, z: Uint8Array, y: Uint8Array, proof: Uint8Array): boolean;
  verifyBlobKzgProof(blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array): boolean;
  verifyBlobKzgProofBatch(blobs: Uint8Array[], commitments: Uint8Array[], proofs: Uint8Array[]): boolean;
  blobToKzgCommitment(blob: Uint8Array): Uint8Array;
  computeBlobKzgProof(blob: Uint8Array, commitment: Uint8Array): Uint8Array;
}

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
