/**
 * Piscina entry: KZG checks for blobs fetched from a beacon node. Thin by rule (code-models §10.9):
 * the logic is src/rollup/l1/blobVerifier.ts, tested on the main thread. "verify" — in: blobs,
 * commitments and proofs (cloned); out: one boolean per blob. "commit" — in: blobs (cloned); out: each
 * blob's 48-byte KZG commitment, or null for one that is not a blob. A ping loads the trusted setup,
 * so a warmed pool pays that cost before the first batch.
 */
import { loadKzg } from "../src/crypto/kzg.js";
import { type KzgVerifyTask, kzgCommitments, verifyKzgProofs } from "../src/rollup/l1/blobVerifier.js";

export default function kzgVerify(task: KzgVerifyTask): unknown {
  if (task.kind === "ping") {
    loadKzg();
    return 0;
  }
  if (task.kind === "commit") return kzgCommitments(task.blobs);
  return verifyKzgProofs(task.blobs, task.commitments, task.proofs);
}
