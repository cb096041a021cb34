/**
 * Batched sender recovery across a worker pool. Signing hashes are computed on the calling thread
 * (one batched keccak, ~1 µs per tx); the secp256k1 recoveries (~70 µs each, >95% of the work) are
 * split into one contiguous chunk per worker and run in the sigRecover pool, with the packed buffers
 * moved, not copied. Small batches, a missing pool or a full queue take the main-thread path.
 */
import type { TaskPool } from "../util/taskPool.js";
import { applyPackedSenders, packSignatures, recoverSendersPacked } from "./recoverPacked.js";
import { recoverSender } from "./signer.js";
import type { Tx } from "./tx.js";

/**
 * Below this many txs the worker round trip (message, thread wake-up: about 0.1–0.3 ms) costs more
 * than the recoveries it moves away (~70 µs each); see bench/tx/recover.bench.ts.
 */
export const MIN_PARALLEL_RECOVERY = 16;

interface Chunk {
  start: number;
  hashes: Uint8Array;
  sigs: Uint8Array;
}

function splitChunks(hashes: Uint8Array, sigs: Uint8Array, n: number, parts: number): Chunk[] {
  const chunks: Chunk[] = [];
  const size = Math.ceil(n / parts);
  for (let start = 0; start < n; start += size) {
    const end = Math.min(n, start + size);
    // slice(): each chunk owns its buffer, so it can be transferred without detaching the others.
    chunks.push({ start, hashes: hashes.slice(32 * start, 32 * end), sigs: sigs.slice(65 * start, 65 * end) });
  }
  return chunks;
}

/**
 * Recovers and memoizes the sender of every tx (deposits keep `from`); returns the senders, null for
 * an invalid signature. With `pool` null the work runs on the calling thread.
 */
export async function recoverSendersParallel(
  txs: readonly Tx[],
  pool: TaskPool | null,
  minParallel: number = MIN_PARALLEL_RECOVERY,
): Promise<(Uint8Array | null)[]> {
  const n = txs.length;
  const { hashes, sigs } = packSignatures(txs);
  let out: Uint8Array;
  if (pool === null || n < minParallel || !pool.canAcceptWork()) {
    out = recoverSendersPacked(hashes, sigs);
  } else {
    out = new Uint8Array(21 * n);
    const chunks = splitChunks(hashes, sigs, n, pool.threads);
    const results = await Promise.all(
      chunks.map((c) =>
        pool.run<Uint8Array>({ kind: "recover", hashes: c.hashes, sigs: c.sigs }, [c.hashes.buffer, c.sigs.buffer]),
      ),
    );
    for (let i = 0; i < chunks.length; i++) out.set(results[i], 21 * chunks[i].start);
  }
  applyPackedSenders(txs, out);
  return txs.map((tx) => recoverSender(tx));
}
