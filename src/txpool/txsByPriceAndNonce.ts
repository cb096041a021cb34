/**
 * The block builder's view of the pending set (geth miner/ordering.go `transactionsByPriceAndNonce`):
 * one head tx per sender in a max-heap on the effective tip at the block's base fee, ties broken by
 * arrival time; `shift()` moves to the sender's next nonce, `pop()` drops the sender (its tx failed
 * or did not fit, so nothing after it can run). A sender's txs stop at the first one whose fee cap is
 * below the base fee or whose effective tip is below `minTip`.
 */
import type { TxSource } from "../chain/blockchain.js";
import { effectiveTip, type PooledTx } from "./pooledTx.js";

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

  /**
   * `bySender`: each sender's pending txs in nonce order. `baseFee` null before London (the tip is
   * then the gas price).
   */
  constructor(
    bySender: Iterable<readonly PooledTx[]>,
    private readonly baseFee: bigint | null,
    private readonly minTip: bigint = 0n,
  ) {
    for (const txs of bySender) {
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

/**
 * The builder's `TxSource` over the iterator: each `next()` first moves past the candidate it handed
 * out before (it was included), `reject()` drops the candidate's sender.
 */
export function txSourceOf(it: TxsByPriceAndNonce): TxSource {
  let handedOut = false;
  return {
    next() {
      if (handedOut) it.shift();
      const p = it.peek();
      handedOut = p !== null;
      return p === null ? null : { tx: p.tx, sender: p.sender };
    },
    reject() {
      if (handedOut) it.pop();
      handedOut = false;
    },
  };
}
