/**
 * Checks blobs fetched from a beacon node before derivation uses them (specs ecotone/derivation.md:
 * "MUST be verified, if the source is untrusted"). Two checks, one per beacon API form:
 * - a blob sidecar (`/eth/v1/beacon/blob_sidecars`; op-node blobsFromSidecars until PR #18780): its KZG
 *   commitment must hash to the versioned hash the batcher tx committed to, and its KZG proof must
 *   show that the blob is the polynomial behind that commitment (`verify`: one boolean per item, in
 *   order; malformed items — wrong sizes, a non-canonical field element, a bad point — are false);
 * - a bare blob (`/eth/v1/beacon/blobs`, beacon-APIs #546, which carries no commitment or proof):
 *   its commitment is recomputed from the blob (`commitments`), and the caller hashes it to compare
 *   with the versioned hash, as op-node's L1BeaconClient does for that endpoint (`ComputeKZGCommitment`
 *   then `KZGToVersionedHash`).
 *
 * Two implementations: in the calling thread, and on a worker pool (workers/kzgVerify.ts), where a
 * batch of blobs costs the main thread nothing. PERF: on this 2-core VM (c-kzg 4.1, setup without
 * precompute) a blob proof check takes ~2–3 ms and a commitment ~40–46 ms, so a 6-blob block read
 * from /eth/v1/beacon/blobs costs ~0.25 s of CPU, which must not sit on the event loop (measured with
 * `npx tsx`, an encodeBlob blob, 10 runs each, machine otherwise idle). The versioned-hash check is a
 * sha256 and always runs in the calling thread; only items that pass it go to KZG.
 *
 * c-kzg's trusted setup is loaded once per thread through `crypto/kzg.ts`, shared with the EVM's
 * point-evaluation precompile.
 */
import { type CKzg, loadKzg } from "../../crypto/kzg.js";
import { kzgToVersionedHash } from "../../tx/blobNetwork.js";
import type { TaskPool } from "../../util/taskPool.js";

/** One blob to check against the versioned hash it is expected to have. */
export interface BlobCheckItem {
  readonly blob: Uint8Array;
  /** 48-byte KZG commitment, as the beacon node sent it. */
  readonly commitment: Uint8Array;
  /** 48-byte KZG blob proof, as the beacon node sent it. */
  readonly proof: Uint8Array;
  /** 32-byte versioned hash from the batcher tx. */
  readonly versionedHash: Uint8Array;
}

export interface BlobVerifier {
  /** One result per item, in order: true when the commitment matches the hash and the proof holds. */
  verify(items: readonly BlobCheckItem[]): Promise<boolean[]>;
  /**
   * The 48-byte KZG commitment of each blob, in order; null for a blob that is not one (not 131072
   * bytes, or a field element not below the BLS modulus).
   */
  commitments(blobs: readonly Uint8Array[]): Promise<(Uint8Array | null)[]>;
}

/** The worker's task (workers/kzgVerify.ts). Plain data: Uint8Arrays are structured-cloned. */
export type KzgVerifyTask =
  | { kind: "ping" }
  | { kind: "verify"; blobs: Uint8Array[]; commitments: Uint8Array[]; proofs: Uint8Array[] }
  | { kind: "commit"; blobs: Uint8Array[] };

const BLOB_BYTES = 131_072;
const POINT_BYTES = 48;

function wellFormed(blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array): boolean {
  return blob.length === BLOB_BYTES && commitment.length === POINT_BYTES && proof.length === POINT_BYTES;
}

function verifyOne(k: CKzg, blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array): boolean {
  if (!wellFormed(blob, commitment, proof)) return false;
  try {
    return k.verifyBlobKzgProof(blob, commitment, proof);
  } catch {
    return false;
  }
}

/**
 * KZG blob proofs, one boolean per index. A batch proof first (cheaper than one by one); only when it
 * fails or throws are the items checked singly to find the bad ones.
 */
export function verifyKzgProofs(
  blobs: readonly Uint8Array[],
  commitments: readonly Uint8Array[],
  proofs: readonly Uint8Array[],
): boolean[] {
  const n = blobs.length;
  if (commitments.length !== n || proofs.length !== n) {
    throw new RangeError(`${n} blobs, ${commitments.length} commitments, ${proofs.length} proofs`);
  }
  if (n === 0) return [];
  const k = loadKzg();
  if (n > 1) {
    let batchOk = false;
    try {
      batchOk =
        blobs.every((b, i) => wellFormed(b, commitments[i], proofs[i])) &&
        k.verifyBlobKzgProofBatch([...blobs], [...commitments], [...proofs]);
    } catch {
      batchOk = false;
    }
    if (batchOk) return new Array<boolean>(n).fill(true);
  }
  return blobs.map((b, i) => verifyOne(k, b, commitments[i], proofs[i]));
}

/** The KZG commitment of each blob (c-kzg `blob_to_kzg_commitment`), null where it is not a blob. */
export function kzgCommitments(blobs: readonly Uint8Array[]): (Uint8Array | null)[] {
  if (blobs.length === 0) return [];
  const k = loadKzg();
  return blobs.map((b) => {
    if (b.length !== BLOB_BYTES) return null;
    try {
      return k.blobToKzgCommitment(b);
    } catch {
      // C_KZG_BADARGS: a field element is not canonical.
      return null;
    }
  });
}

function hashMatches(item: BlobCheckItem): boolean {
  if (item.commitment.length !== POINT_BYTES || item.versionedHash.length !== 32) return false;
  const h = kzgToVersionedHash(item.commitment);
  for (let i = 0; i < 32; i++) if (h[i] !== item.versionedHash[i]) return false;
  return true;
}

/** Splits items into those whose commitment matches their hash (to prove) and the rest (false). */
async function verifyWith(
  items: readonly BlobCheckItem[],
  prove: (blobs: Uint8Array[], commitments: Uint8Array[], proofs: Uint8Array[]) => Promise<boolean[]>,
): Promise<boolean[]> {
  const out = new Array<boolean>(items.length).fill(false);
  const idx: number[] = [];
  for (let i = 0; i < items.length; i++) if (hashMatches(items[i])) idx.push(i);
  if (idx.length === 0) return out;
  const res = await prove(
    idx.map((i) => items[i].blob),
    idx.map((i) => items[i].commitment),
    idx.map((i) => items[i].proof),
  );
  for (let j = 0; j < idx.length; j++) out[idx[j]] = res[j] === true;
  return out;
}

/** Verifies in the calling thread (blocks it for the proof checks). */
export class InThreadBlobVerifier implements BlobVerifier {
  verify(items: readonly BlobCheckItem[]): Promise<boolean[]> {
    return verifyWith(items, async (b, c, p) => verifyKzgProofs(b, c, p));
  }

  async commitments(blobs: readonly Uint8Array[]): Promise<(Uint8Array | null)[]> {
    return kzgCommitments(blobs);
  }
}

/**
 * Verifies and computes commitments on a worker pool running workers/kzgVerify.ts (src/node/pools.ts:
 * `new PiscinaPool("kzgVerify", …)`). The blobs are copied to the worker, not moved: the caller keeps
 * them. When the pool's queue is full the batch runs in the calling thread instead.
 */
export class PoolBlobVerifier implements BlobVerifier {
  constructor(private readonly pool: TaskPool) {}

  verify(items: readonly BlobCheckItem[]): Promise<boolean[]> {
    return verifyWith(items, async (blobs, commitments, proofs) => {
      if (!this.pool.canAcceptWork()) return verifyKzgProofs(blobs, commitments, proofs);
      const task: KzgVerifyTask = { kind: "verify", blobs, commitments, proofs };
      return this.pool.run<boolean[]>(task);
    });
  }

  /**
   * Even one blob goes to the pool: its commitment (~40–46 ms, above) dwarfs the hop (a Piscina round
   * trip is ~57 µs here, ARCHITECTURE.md "Worker pools"). A full queue computes them here instead.
   */
  async commitments(blobs: readonly Uint8Array[]): Promise<(Uint8Array | null)[]> {
    if (blobs.length === 0) return [];
    if (!this.pool.canAcceptWork()) return kzgCommitments(blobs);
    const task: KzgVerifyTask = { kind: "commit", blobs: [...blobs] };
    return this.pool.run<(Uint8Array | null)[]>(task);
  }
}
