/**
 * Sender recovery overlapped with execution. The signing hashes and signatures of a block's txs go
 * into SharedArrayBuffers; the sigRecover workers and the executing thread then share the work item
 * by item through one state word per tx (0 pending, 1 claimed, 2 done) and a shared cursor:
 *  - each worker takes the next index from the cursor, claims it (0 → 1), recovers into the shared
 *    output and publishes it (→ 2);
 *  - the executing thread asks for sender i only when tx i is about to run: done → it reads it;
 *    pending → it claims and recovers it itself; claimed by a worker → it recovers pending items
 *    from the far end meanwhile, then waits for that one item.
 * So the block starts executing at once, the workers run ahead of it, every thread stays busy and
 * no recovery is done twice.
 * Atomics give the ordering: the output bytes are written before the state word is stored, and read
 * after it is loaded as 2. With no pool, a small block or a full queue, every item is recovered on
 * the executing thread, on demand.
 */
import { claim, claimState, drainFromCursor, isDone, publish, sharedBytes, waitDone } from "../util/sharedClaims.js";
import { idleThreads, type TaskPool } from "../util/taskPool.js";
import { NO_SIGNATURE, packSignatures, recoverPackedAt } from "./recoverPacked.js";
import { type Tx, TxType } from "./tx.js";

/** Senders by tx index, produced on demand (null: no valid signature). */
export interface SenderSource {
  readonly count: number;
  sender(i: number): Uint8Array | null;
}

/** The shared buffers of one block's recovery (the worker task's payload). */
export interface SharedRecoveryBuffers {
  /** 32·n bytes of signing hashes. */
  readonly hashes: Uint8Array;
  /** 65·n bytes of r ‖ s ‖ recid. */
  readonly sigs: Uint8Array;
  /** 21·n bytes: ok flag ‖ address per tx. */
  readonly out: Uint8Array;
  /** n state words (0 pending, 1 claimed, 2 done), then the cursor at index n. */
  readonly state: Int32Array;
}

/** Waits this long (ms) for a claimed item before recovering it here (a worker that died holds it). */
const CLAIM_WAIT_MS = 2000;

/**
 * Below this many txs the executing thread recovers everything itself: a worker's wake-up (~0.1 ms)
 * is worth more than one or two recoveries (~70 µs each; bench/tx/recover.bench.ts).
 */
export const MIN_SHARED_RECOVERY = 4;

/** The worker side: recovers items from the cursor on until it runs past the end. */
export function recoverShared(b: SharedRecoveryBuffers): number {
  return drainFromCursor(b.state, (i) => recoverPackedAt(b.hashes, b.sigs, b.out, i));
}

/** A SenderSource fed by workers; `workerItems` settles with how many items the workers recovered. */
export interface SharedSenderSource extends SenderSource {
  readonly workerItems: Promise<number>;
}

class SharedSenders implements SharedSenderSource {
  readonly count: number;
  /** The executing thread steals from the end, away from the workers' cursor. */
  private tail: number;
  constructor(
    private readonly txs: readonly Tx[],
    private readonly b: SharedRecoveryBuffers,
    readonly workerItems: Promise<number>,
    private readonly claimWaitMs: number,
  ) {
    this.count = txs.length;
    this.tail = txs.length - 1;
  }

  sender(i: number): Uint8Array | null {
    const tx = this.txs[i];
    if (tx.type === TxType.Deposit) return tx.from;
    const b = this.b;
    if (claim(b.state, i)) {
      recoverPackedAt(b.hashes, b.sigs, b.out, i);
      publish(b.state, i);
    } else if (!isDone(b.state, i)) this.awaitItem(i);
    return b.out[21 * i] === 1 ? b.out.slice(21 * i + 1, 21 * i + 21) : null;
  }

  /** Item i is a worker's: recover items from the end meanwhile, then wait for it (bounded). */
  private awaitItem(i: number): void {
    const b = this.b;
    while (!isDone(b.state, i) && this.tail > i) {
      const j = this.tail--;
      if (!claim(b.state, j)) continue;
      recoverPackedAt(b.hashes, b.sigs, b.out, j);
      publish(b.state, j);
    }
    // The worker holding it is gone: recover it here (the output is only ever written with the result).
    if (!waitDone(b.state, i, this.claimWaitMs)) recoverPackedAt(b.hashes, b.sigs, b.out, i);
  }
}

/**
 * Starts recovering the senders of `txs` on `pool` (one task per worker thread) and returns at once;
 * the source answers sender(i) as described above. A failed task counts 0 items: the items it
 * claimed are recovered by the executing thread after CLAIM_WAIT_MS.
 */
export function startSharedRecovery(
  txs: readonly Tx[],
  pool: TaskPool | null,
  opts: { readonly minShared?: number; readonly claimWaitMs?: number } = {},
): SharedSenderSource {
  const minShared = opts.minShared ?? MIN_SHARED_RECOVERY;
  const n = txs.length;
  const packed = packSignatures(txs);
  const b: SharedRecoveryBuffers = {
    hashes: sharedBytes(32 * n),
    sigs: sharedBytes(65 * n),
    out: sharedBytes(21 * n),
    state: claimState(n),
  };
  b.hashes.set(packed.hashes);
  b.sigs.set(packed.sigs);
  let signed = 0;
  for (let i = 0; i < n; i++) if (packed.sigs[65 * i + 64] !== NO_SIGNATURE) signed++;
  const runs: Promise<number>[] = [];
  if (pool !== null && signed >= minShared && pool.canAcceptWork()) {
    // Only idle workers: a task queued behind a busy one would wait until this thread yields.
    const tasks = Math.min(idleThreads(pool), signed);
    for (let t = 0; t < tasks; t++) {
      runs.push(pool.run<number>({ kind: "recoverShared", buffers: b }).catch(() => 0));
    }
  }
  const workerItems = Promise.all(runs).then((counts) => counts.reduce((a, c) => a + c, 0));
  return new SharedSenders(txs, b, workerItems, opts.claimWaitMs ?? CLAIM_WAIT_MS);
}
