/**
 * Piscina entry: KZG blob-proof checks for blobs fetched from a beacon node. Thin by rule
 * (code-models §10.9): the logic is src/rollup/blobVerifier.ts, tested on the main thread. In: blobs,
 * commitments and proofs (cloned). Out: one boolean per blob. A ping loads the trusted setup, so a
 * warmed pool pays that cost before the first batch.
 */
import { loadKzg } from "../src/crypto/kzg.js";
import { type KzgVerifyTask, verifyKzgProofs } from "../src/rollup/blobVerifier.js";

export default function kzgVerify(task: KzgVerifyTask): unknown {
  if (task.kind === "ping") {
    loadKzg();
    return 0;
  }
  return verifyKzgProofs(task.blobs, task.commitments, task.proofs);
}
