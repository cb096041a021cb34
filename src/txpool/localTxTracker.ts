/**
 * The locals tracker (geth ≥ 1.15 core/txpool/locals `TxTracker`): the txs submitted over RPC, kept
 * apart from the pool so that the pool can treat them like any other tx (no exemption from the
 * price limit, eviction or any limit) while the node still re-submits the ones the pool let go
 * (evicted by better-paying txs, dropped over a limit, lost in a reorg). `recheck` forgets the ones
 * the chain included and hands the pool the rest it no longer holds; the node runs it every minute,
 * geth's `recheckInterval`.
 *
 * Unlike geth's tracker, which takes every local tx, this one is bounded: per account at most
 * `accountslots + accountqueue` txs (what the pool would keep of it), in all at most
 * `globalslots + globalqueue` slots of 32 KiB, so the bytes it holds beyond the pool's are at most
 * the pool's own bound. No journal: the tracked txs do not survive a restart (geth's
 * `--txpool.journal` is not implemented).
 */
import { bytesKey } from "../primitives/bytes.js";
import { numSlots } from "./pooledTx.js";
import type { TxPool } from "./txPool.js";

/** geth locals `recheckInterval`. */
export const LOCALS_RECHECK_MS = 60_000;

/** One tracked tx: what re-submitting it and forgetting it need. */
export interface TrackedTx {
  readonly hash: Uint8Array;
  readonly sender: Uint8Array;
  readonly nonce: bigint;
  /** The EIP-2718 envelope (the pool's own copy when the pool holds the tx). */
  readonly encoded: Uint8Array;
}

interface Entry extends TrackedTx {
  readonly hashKey: string;
  readonly slots: number;
}

export interface LocalTxLimits {
  /** Txs per account (`accountslots + accountqueue`). */
  readonly perAccount: number;
  /** Slots in all (`globalslots + globalqueue`). */
  readonly slots: number;
}

export class LocalTxTracker {
  private readonly byHash = new Map<string, Entry>();
  /** senderKey → nonce → entry (one tx per nonce: a replacement takes its place, as geth's SortedMap). */
  private readonly bySender = new Map<string, Map<bigint, Entry>>();
  private slotCount = 0;
  private byteCount = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: TxPool,
    private readonly limits: LocalTxLimits,
  ) {}

  /**
   * Tracks `tx`; false when the bounds leave no room for it (its account already has `perAccount`
   * txs at other nonces, or the tracker's slots are used up). Already tracked: true.
   */
  track(tx: TrackedTx): boolean {
    const hashKey = bytesKey(tx.hash);
    if (this.byHash.has(hashKey)) return true;
    const senderKey = bytesKey(tx.sender);
    const nonces = this.bySender.get(senderKey);
    const old = nonces?.get(tx.nonce);
    const slots = numSlots(tx.encoded.length);
    if (old === undefined && (nonces?.size ?? 0) >= this.limits.perAccount) return false;
    if (this.slotCount - (old?.slots ?? 0) + slots > this.limits.slots) return false;
    if (old !== undefined) this.forget(senderKey, old);
    const entry: Entry = { ...tx, hashKey, slots };
    this.byHash.set(hashKey, entry);
    let map = nonces;
    if (map === undefined) {
      map = new Map();
      this.bySender.set(senderKey, map);
    }
    map.set(tx.nonce, entry);
    this.slotCount += slots;
    this.byteCount += tx.encoded.length;
    return true;
  }

  has(hash: Uint8Array): boolean {
    return this.byHash.has(bytesKey(hash));
  }

  /** What the tracker holds: txs, slots (≤ `limits.slots`) and encoded bytes. */
  size(): { txs: number; slots: number; bytes: number } {
    return { txs: this.byHash.size, slots: this.slotCount, bytes: this.byteCount };
  }

  /**
   * geth `recheck` then `pool.Add(resubmits)`: forgets the txs below their account's nonce in the
   * head's state (included) and gives the pool back the others it no longer holds. Returns how many
   * were re-submitted.
   */
  async recheck(): Promise<number> {
    const resubmit: Uint8Array[] = [];
    for (const [senderKey, nonces] of [...this.bySender]) {
      let next: bigint | null = null;
      for (const e of [...nonces.values()]) {
        next ??= this.pool.stateNonce(e.sender);
        if (e.nonce < next) this.forget(senderKey, e);
        else if (!this.pool.has(e.hash)) resubmit.push(e.encoded);
      }
    }
    if (resubmit.length > 0) await this.pool.add(resubmit);
    return resubmit.length;
  }

  /** Runs `recheck` every `intervalMs` until `stop` (the timer does not keep the process alive). */
  start(intervalMs: number = LOCALS_RECHECK_MS, onError: (e: unknown) => void = () => {}): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => {
      this.recheck().catch(onError);
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private forget(senderKey: string, e: Entry): void {
    this.byHash.delete(e.hashKey);
    const nonces = this.bySender.get(senderKey);
    nonces?.delete(e.nonce);
    if (nonces?.size === 0) this.bySender.delete(senderKey);
    this.slotCount -= e.slots;
    this.byteCount -= e.encoded.length;
  }
}
