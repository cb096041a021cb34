/**
 * One account's txs in the pending or the queued set, by nonce (legacypool list.go `list` over a
 * `SortedMap`). Sizes are bounded by the pool limits (16–64 per account by default), so the sorted
 * nonce array is rebuilt lazily after a change instead of keeping a heap.
 */
import type { PooledTx } from "./pooledTx.js";
import { replacementAllowed } from "./pooledTx.js";

export type NonceListAdd =
  | { readonly inserted: true; readonly old: PooledTx | null }
  | { readonly inserted: false; readonly old: PooledTx };

export class NonceList {
  private readonly items = new Map<bigint, PooledTx>();
  private sorted: PooledTx[] | null = [];

  get size(): number {
    return this.items.size;
  }

  get(nonce: bigint): PooledTx | undefined {
    return this.items.get(nonce);
  }

  has(nonce: bigint): boolean {
    return this.items.has(nonce);
  }

  /** The txs by ascending nonce (a shared array: do not mutate; it is replaced after any change). */
  flatten(): readonly PooledTx[] {
    if (this.sorted === null) {
      this.sorted = [...this.items.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
    }
    return this.sorted;
  }

  first(): PooledTx | undefined {
    return this.flatten()[0];
  }

  last(): PooledTx | undefined {
    const f = this.flatten();
    return f[f.length - 1];
  }

  /** Inserts `tx`, replacing a tx of the same nonce only when `replacementAllowed`. */
  add(tx: PooledTx, priceBump: number): NonceListAdd {
    const old = this.items.get(tx.nonce);
    if (old !== undefined && !replacementAllowed(old, tx, priceBump)) return { inserted: false, old };
    this.items.set(tx.nonce, tx);
    this.sorted = null;
    return { inserted: true, old: old ?? null };
  }

  /** Removes the tx of `nonce` if it is `tx` itself; true when removed. */
  remove(tx: PooledTx): boolean {
    if (this.items.get(tx.nonce) !== tx) return false;
    this.items.delete(tx.nonce);
    this.sorted = null;
    return true;
  }

  /** Removes and returns every tx with a nonce below `threshold` (list `Forward`). */
  forward(threshold: bigint): PooledTx[] {
    const out: PooledTx[] = [];
    for (const tx of this.flatten()) {
      if (tx.nonce >= threshold) break;
      out.push(tx);
    }
    for (const tx of out) this.items.delete(tx.nonce);
    if (out.length > 0) this.sorted = null;
    return out;
  }

  /**
   * Removes txs whose cost exceeds `costLimit` or whose gas exceeds `gasLimit` (`drops`); when `strict`
   * (a pending list), every tx above the lowest dropped nonce is removed too and returned as
   * `invalids`, to be queued again (list `Filter`).
   */
  filter(costLimit: bigint, gasLimit: bigint, strict: boolean): { drops: PooledTx[]; invalids: PooledTx[] } {
    const drops: PooledTx[] = [];
    const invalids: PooledTx[] = [];
    let lowest: bigint | null = null;
    for (const tx of this.flatten()) {
      if (tx.cost > costLimit || tx.gasLimit > gasLimit) {
        drops.push(tx);
        if (lowest === null) lowest = tx.nonce;
      } else if (strict && lowest !== null) {
        invalids.push(tx);
      }
    }
    for (const tx of drops) this.items.delete(tx.nonce);
    for (const tx of invalids) this.items.delete(tx.nonce);
    if (drops.length + invalids.length > 0) this.sorted = null;
    return { drops, invalids };
  }

  /** Removes and returns the run of consecutive nonces starting at the first one, if it is ≤ `start` (list `Ready`). */
  ready(start: bigint): PooledTx[] {
    const f = this.flatten();
    if (f.length === 0 || f[0].nonce > start) return [];
    const out: PooledTx[] = [f[0]];
    for (let i = 1; i < f.length && f[i].nonce === f[i - 1].nonce + 1n; i++) out.push(f[i]);
    for (const tx of out) this.items.delete(tx.nonce);
    this.sorted = null;
    return out;
  }

  /** Removes and returns the highest-nonce txs beyond `threshold` items (list `Cap`). */
  cap(threshold: number): PooledTx[] {
    const f = this.flatten();
    if (f.length <= threshold) return [];
    const out = f.slice(Math.max(0, threshold));
    for (const tx of out) this.items.delete(tx.nonce);
    this.sorted = null;
    return out;
  }

  /** Sum of `cost` over the list (geth list `totalcost`, the overdraft check's existing expenditure). */
  totalCost(): bigint {
    let s = 0n;
    for (const tx of this.items.values()) s += tx.cost;
    return s;
  }
}
