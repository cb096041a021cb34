/**
 * The block builder's view of the pending set (geth miner/ordering.go `transactionsByPriceAndNonce`):
 * one head tx per sender in a max-heap on the effective tip at the block's base fee, ties broken by
 * arrival time; `shift()` moves to the sender's next nonce, `pop()` drops the sender (its tx failed
 * or did not fit, so nothing after it can run). A sender's txs stop at the first one whose fee cap is
 * below the base fee, whose effective tip is below `minTip`, or whose estimated DA size is above
 * `maxDATxSize` (op-geth legacypool `Pending` with the miner's filter).
 */
import type { BuildView, TxCandidate, TxSource } from "../chain/blockchain.js";
import { daSizeOf, effectiveTip, type PooledTx } from "./pooledTx.js";
import { checkConditionalHeader, checkConditionalState } from "./txConditional.js";

/** The miner's limits on what the builder takes (minerSettings.ts holds the node's). */
export interface BuilderLimits {
  /** Least effective tip (miner.Config.GasPrice); 0 = any. */
  readonly minTip?: bigint;
  /** op-geth MaxDATxSize: a sender's txs stop at the first one estimated above it; null = none. */
  readonly maxDATxSize?: bigint | null;
  /** op-geth MaxDABlockSize: the estimated DA bytes of pool txs one block takes; null = none. */
  readonly maxDABlockSize?: bigint | null;
}

interface Head {
  readonly tx: PooledTx;
  readonly fee: bigint;
  /** Index of `tx` in `txs`. */
  readonly index: number;
  readonly txs: readonly PooledTx[];
}

function better(a: Head, b: Head): boolean {
  if (a.fee !== b.fee) return a.fee > b.fee;
  return a.tx.time < b.tx.time;
}

export class TxsByPriceAndNonce {
  private readonly heap: Head[] = [];
  private readonly minTip: bigint;
  /** The block's DA budget for the tx source (txSourceOf); null = none. */
  readonly maxDABlockSize: bigint | null;

  /**
   * `bySender`: each sender's pending txs in nonce order. `baseFee` null before London (the tip is
   * then the gas price).
   */
  constructor(
    bySender: Iterable<readonly PooledTx[]>,
    private readonly baseFee: bigint | null,
    limits: BuilderLimits = {},
  ) {
    this.minTip = limits.minTip ?? 0n;
    this.maxDABlockSize = limits.maxDABlockSize ?? null;
    const maxTx = limits.maxDATxSize ?? null;
    for (const all of bySender) {
      const txs = maxTx === null ? all : truncateAtDaSize(all, maxTx);
      const h = this.headAt(txs, 0);
      if (h !== null) this.heap.push(h);
    }
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** The best tx, or null when nothing is left. */
  peek(): PooledTx | null {
    return this.heap.length === 0 ? null : this.heap[0].tx;
  }

  /** The effective tip of `peek()` at this base fee (0n when empty). */
  peekFee(): bigint {
    return this.heap.length === 0 ? 0n : this.heap[0].fee;
  }

  /** Replaces the best tx with the next nonce of the same sender (or drops the sender when none is left). */
  shift(): void {
    if (this.heap.length === 0) return;
    const top = this.heap[0];
    const next = this.headAt(top.txs, top.index + 1);
    if (next === null) {
      this.pop();
      return;
    }
    this.heap[0] = next;
    this.down(0);
  }

  /** Drops the best tx and every later tx of its sender. */
  pop(): void {
    const last = this.heap.pop();
    if (last === undefined || this.heap.length === 0) return;
    this.heap[0] = last;
    this.down(0);
  }

  /** Senders with txs left. */
  get size(): number {
    return this.heap.length;
  }

  private headAt(txs: readonly PooledTx[], index: number): Head | null {
    if (index >= txs.length) return null;
    const tx = txs[index];
    if (this.baseFee !== null && tx.maxFee < this.baseFee) return null;
    const fee = effectiveTip(tx, this.baseFee);
    if (fee < this.minTip) return null;
    return { tx, fee, index, txs };
  }

  private down(i: number): void {
    const h = this.heap;
    const n = h.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < n && better(h[l], h[best])) best = l;
      if (r < n && better(h[r], h[best])) best = r;
      if (best === i) return;
      const t = h[i];
      h[i] = h[best];
      h[best] = t;
      i = best;
    }
  }
}

/** A sender's txs up to (without) the first whose estimated DA size is above `max` (op-geth legacypool `Pending`). */
function truncateAtDaSize(txs: readonly PooledTx[], max: bigint): readonly PooledTx[] {
  for (let i = 0; i < txs.length; i++) if (daSizeOf(txs[i]) > max) return txs.slice(0, i);
  return txs;
}

/**
 * The builder's `TxSource` over the iterator: each `next()` first moves past the candidate it handed
 * out before (it was included, and its estimated DA size counts against the block's budget),
 * `reject()` drops the candidate's sender. A conditional tx is handed out with its conditions as the
 * candidate's `admit`: failing them at its turn marks it rejected, and the pool drops it at the next
 * head (op-geth miner `commitTransaction`, `SetRejected`).
 *
 * With a block DA budget (op-geth miner `commitTransactions`, "sequencer throttling"), a candidate
 * that would take the pool txs' estimated DA bytes above it ends the block's pool txs: op-geth pops
 * its sender and stops once the room left is below the smallest possible tx (100 bytes), and the room
 * it measures, the budget minus the bytes with this tx, is negative whenever a tx did not fit.
 */
export function txSourceOf(it: TxsByPriceAndNonce): TxSource {
  let handedOut: PooledTx | null = null;
  let daBytes = 0n;
  return {
    next() {
      if (handedOut !== null) {
        if (it.maxDABlockSize !== null) daBytes += daSizeOf(handedOut);
        it.shift();
      }
      handedOut = null;
      const p = it.peek();
      if (p === null) return null;
      if (it.maxDABlockSize !== null && daBytes + daSizeOf(p) > it.maxDABlockSize) {
        it.pop();
        return null;
      }
      handedOut = p;
      return candidateOf(p);
    },
    reject() {
      if (handedOut !== null) it.pop();
      handedOut = null;
    },
  };
}

function candidateOf(p: PooledTx): TxCandidate {
  const cond = p.conditional;
  if (cond === null) return { tx: p.tx, sender: p.sender };
  return {
    tx: p.tx,
    sender: p.sender,
    admit: (at: BuildView) => {
      if (checkConditionalHeader(cond, at.number, at.timestamp) !== null || checkConditionalState(cond, at) !== null) {
        p.rejected = true;
        return false;
      }
      return true;
    },
  };
}
