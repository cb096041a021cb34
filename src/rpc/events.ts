/**
 * The node's event fan-out for the RPC layer: head changes (from `Blockchain.setHead`, reported by
 * the node through `emitHeadChange`) and txs that became pending (the pool's `onPending`). Filters
 * and subscriptions register listeners here; a listener that throws is dropped from nothing and
 * does not stop the others (geth's event.Feed delivers to every subscriber).
 */
import type { HeadChange } from "../chain/blockchain.js";
import type { PooledTx } from "../txpool/pooledTx.js";

export type HeadListener = (change: HeadChange) => void;
export type PendingTxListener = (txs: readonly PooledTx[]) => void;

export class EventHub {
  private readonly heads = new Set<HeadListener>();
  private readonly pending = new Set<PendingTxListener>();

  /** Called by the node after every canonical head move (including reorgs). */
  emitHeadChange(change: HeadChange): void {
    if (change.added.length === 0 && change.removed.length === 0) return;
    for (const l of [...this.heads]) safely(() => l(change));
  }

  /** Fed by `TxPool.onPending`. */
  emitPending(txs: readonly PooledTx[]): void {
    if (txs.length === 0) return;
    for (const l of [...this.pending]) safely(() => l(txs));
  }

  /** Returns the unsubscribe. */
  onHeadChange(l: HeadListener): () => void {
    this.heads.add(l);
    return () => {
      this.heads.delete(l);
    };
  }

  /** Returns the unsubscribe. */
  onPending(l: PendingTxListener): () => void {
    this.pending.add(l);
    return () => {
      this.pending.delete(l);
    };
  }

  get listenerCount(): number {
    return this.heads.size + this.pending.size;
  }
}

function safely(f: () => void): void {
  try {
    f();
  } catch {
    // A failing listener must not starve the others.
  }
}
