/**
 * Sender recovery overlapped with execution. The block's raw tx bytes go into SharedArrayBuffers (one
 * copy, no decoding: the signing hash and signature are read from the envelope, tx/rawSigning.ts);
 * the sigRecover workers and the executing thread then share the work item by item through one state
 * word per tx (0 pending, 1 claimed, 2 done) and a shared cursor:
 *  - each worker takes the next index from the cursor, claims it (0 → 1), recovers into the shared
 *    output and publishes it (→ 2);
 *  - the executing thread asks for sender i only when tx i is about to run: done → it reads it;
 *    pending → it claims and recovers it itself; claimed by a worker → it recovers pending items
 *    from the far end meanwhile, then waits for that one item.
 * So the block starts executing at once, the workers run ahead of it, every thread stays busy and
 * no recovery is done twice. Both sides recover through the same raw-bytes path, so which thread took
 * an item never changes its answer.
 * Atomics give the ordering: the output bytes are written before the state word is stored, and read
 * after it is loaded as 2. With no pool, a small block or a full queue, every item is recovered on
 * the executing thread, on demand.
 */
import {
  claim,
  claimState,
  drainFromCursor,
  isDone,
  publish,
  sharedBytes,
  sharedInts,
  waitDone,
} from "../util/sharedClaims.js";
import { idleThreads, type TaskPool } from "../util/taskPool.js";
import { packRawSignature } from "./rawSigning.js";
import { recoverPackedAt } from "./recoverPacked.js";
import { type Tx, TxType } from "./tx.js";

/**
 * Senders by tx index, produced on demand (null: no valid signature). `tx` is the decoded tx i (a
 * deposit's sender is its `from`).
 */
export interface SenderSource {
  readonly count: number;
  sender(i: number, tx: Tx): Uint8Array | null;
}

/** The shared buffers of one block's recovery (the worker task's payload). */
export interface SharedRecoveryBuffers {
  /** The txs' envelopes, back to back. */
  readonly raw: Uint8Array;
  /** n + 1 offsets into `raw`: tx i is raw[offsets[i] .. offsets[i+1]). */
  readonly offsets: Int32Array;
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

/** One item's signing hash and signature (per thread). */
const itemHash = new Uint8Array(32);
const itemSig = new Uint8Array(65);

/** Recovers item i of `b` from its raw bytes into `b.out` (flag ‖ address). */
function recoverRawAt(b: SharedRecoveryBuffers, i: number): void {
  packRawSignature(b.raw.subarray(b.offsets[i], b.offsets[i + 1]), itemHash, itemSig, 0);
  recoverPackedAt(itemHash, itemSig, b.out.subarray(21 * i, 21 * i + 21), 0);
}

/** The worker side: recovers items from the cursor on until it runs past the end. */
export function recoverShared(b: SharedRecoveryBuffers): number {
  return drainFromCursor(b.state, (i) => recoverRawAt(b, i));
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
    private readonly b: SharedRecoveryBuffers,
    readonly workerItems: Promise<number>,
    private readonly claimWaitMs: number,
  ) {
    this.count = b.offsets.length - 1;
    this.tail = this.count - 1;
  }

  sender(i: number, tx: Tx): Uint8Array | null {
    if (tx.type === TxType.Deposit) return tx.from;
    const b = this.b;
    if (claim(b.state, i)) {
      recoverRawAt(b, i);
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
      recoverRawAt(b, j);
      publish(b.state, j);
    }
    // The worker holding it is gone: recover it here (the output is only ever written with the result).
    if (!waitDone(b.state, i, this.claimWaitMs)) recoverRawAt(b, i);
  }
}

/**
 * Starts recovering the senders of the envelopes `raw` on `pool` (one task per idle worker thread)
 * and returns at once; the source answers sender(i, tx) as described above. A failed task counts 0
 * items: the items it claimed are recovered by the executing thread after CLAIM_WAIT_MS.
 */
export function startSharedRecovery(
  raw: readonly Uint8Array[],
  pool: TaskPool | null,
  opts: { readonly minShared?: number; readonly claimWaitMs?: number } = {},
): SharedSenderSource {
  const minShared = opts.minShared ?? MIN_SHARED_RECOVERY;
  const n = raw.length;
  const offsets = sharedInts(n + 1);
  let size = 0;
  let signed = 0;
  for (let i = 0; i < n; i++) {
    const t = raw[i];
    size += t.length;
    offsets[i + 1] = size;
    if (t.length > 0 && t[0] !== TxType.Deposit) signed++;
  }
  const bytes = sharedBytes(size);
  for (let i = 0; i < n; i++) bytes.set(raw[i], offsets[i]);
  const b: SharedRecoveryBuffers = { raw: bytes, offsets, out: sharedBytes(21 * n), state: claimState(n) };
  const runs: Promise<number>[] = [];
  if (pool !== null && signed >= minShared && pool.canAcceptWork()) {
    // Only idle workers: a task queued behind a busy one would wait until this thread yields.
    const tasks = Math.min(idleThreads(pool), signed);
    for (let t = 0; t < tasks; t++) {
      runs.push(pool.run<number>({ kind: "recoverShared", buffers: b }).catch(() => 0));
    }
  }
  const workerItems = Promise.all(runs).then((counts) => counts.reduce((a, c) => a + c, 0));
  return new SharedSenders(b, workerItems, opts.claimWaitMs ?? CLAIM_WAIT_MS);
}
