/**
 * Answers a peer's GetBlockHeaders / GetBlockBodies / GetReceipts / GetPooledTransactions from the
 * chain store and the tx pool, within geth's count and size limits (SPEC: geth
 * eth/protocols/eth/handlers.go `ServiceGetBlockHeadersQuery`, `ServiceGetBlockBodiesQuery`,
 * `ServiceGetReceiptsQuery`, `answerGetPooledTransactions`). Synchronous: every read is a store get.
 */
import { decodeHeader } from "../../block/header.js";
import type { ChainStore } from "../../chain/chainStore.js";
import { keccak256 } from "../../crypto/keccak.js";
import { equalBytes } from "../../primitives/bytes.js";
import { type EthVersion, encodeBlockReceipts, type HeaderOrigin } from "./messages.js";

// Limits: geth eth/protocols/eth/handler.go (same values in op-geth).
/** Target size of a data response (geth softResponseLimit, 2 MiB; eth.md's recommended soft limit). */
export const SOFT_RESPONSE_LIMIT = 2 * 1024 * 1024;
/** Headers served per request (geth maxHeadersServe). */
export const MAX_HEADERS_SERVE = 1024;
/** Bodies served per request (geth maxBodiesServe). */
export const MAX_BODIES_SERVE = 1024;
/** Block receipt lists served per request (geth maxReceiptsServe). */
export const MAX_RECEIPTS_SERVE = 1024;
/** Non-canonical ancestors walked by hash in one skip query (geth serviceNonContiguousBlockHeaderQuery). */
const MAX_NON_CANONICAL = 100;

/** keccak256(rlp("")): the receipts root of a block without txs. */
const EMPTY_ROOT = keccak256(Uint8Array.of(0x80));

/** The part of the tx pool the server reads; `TxPool` satisfies it (`get(hash)?.encoded`). */
export interface PooledTxSource {
  get(hash: Uint8Array): { readonly encoded: Uint8Array } | null;
}

export interface HeadersQuery {
  readonly origin: HeaderOrigin;
  readonly amount: bigint;
  readonly skip: bigint;
  readonly reverse: boolean;
}

export class EthServer {
  constructor(
    private readonly deps: {
      readonly store: ChainStore;
      /** Null: no pool (or `--rollup.disabletxpoolgossip`: op-geth serves a NilPool). */
      readonly pool: PooledTxSource | null;
    },
  ) {}

  /** Header RLPs answering `q`: at most MAX_HEADERS_SERVE, stopping past SOFT_RESPONSE_LIMIT bytes. */
  headers(q: HeadersQuery): Uint8Array[] {
    const store = this.deps.store;
    const out: Uint8Array[] = [];
    const max = q.amount < BigInt(MAX_HEADERS_SERVE) ? Number(q.amount) : MAX_HEADERS_SERVE;
    if (max === 0) return out;
    // Resolve the origin to (hash, number).
    let hash: Uint8Array | null;
    let number: number;
    const byHash = q.origin instanceof Uint8Array;
    if (q.origin instanceof Uint8Array) {
      hash = q.origin;
      const rlp = store.headerRlp(hash);
      if (rlp === undefined) return out;
      number = decodeHeader(rlp).number;
    } else {
      if (q.origin > BigInt(Number.MAX_SAFE_INTEGER)) return out;
      number = Number(q.origin);
      hash = store.canonicalHash(number);
      if (hash === null) return out;
    }
    // A skip past 2^53 ends the walk after the origin (geth's "skip overflow attack" guard for u64).
    const step = q.skip >= BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(q.skip) + 1;
    let bytes = 0;
    let nonCanonical = MAX_NON_CANONICAL;
    for (
      let lookups = 0;
      out.length < max && bytes < SOFT_RESPONSE_LIMIT && lookups < 2 * MAX_HEADERS_SERVE;
      lookups++
    ) {
      const rlp = store.headerRlp(hash);
      if (rlp === undefined) break;
      out.push(rlp);
      bytes += rlp.length;
      if (out.length >= max) break;
      // Advance.
      if (q.reverse) {
        if (number < step) break;
        const target = number - step;
        // Off the canonical chain, walk parents (at most MAX_NON_CANONICAL in all, geth GetAncestor);
        // once on it, jump by number.
        let h: Uint8Array | null = hash;
        let n = number;
        while (n > target && !this.isCanonical(h, n)) {
          const cur: Uint8Array | undefined = nonCanonical-- > 0 ? store.headerRlp(h) : undefined;
          if (cur === undefined) {
            h = null;
            break;
          }
          h = decodeHeader(cur).parentHash;
          n--;
        }
        if (h === null) break;
        if (n > target) h = store.canonicalHash(target);
        if (h === null) break;
        hash = h;
        number = target;
      } else {
        const next = number + step;
        if (!Number.isSafeInteger(next)) break;
        // SPEC: forward walks follow the canonical chain only; a side-chain origin has no descendants
        // to serve (geth serviceContiguousBlockHeaderQuery), and by hash the next header must descend
        // from the current one (geth checks GetAncestor(next, skip+1) == origin).
        if (byHash && !this.isCanonical(hash, number)) break;
        const h = store.canonicalHash(next);
        if (h === null) break;
        hash = h;
        number = next;
      }
    }
    return out;
  }

  private isCanonical(hash: Uint8Array, number: number): boolean {
    const c = this.deps.store.canonicalHash(number);
    return c !== null && equalBytes(c, hash);
  }

  /** Body RLPs of the known hashes, in request order (unknown ones skipped), within the limits. */
  bodies(hashes: readonly Uint8Array[]): Uint8Array[] {
    const out: Uint8Array[] = [];
    let bytes = 0;
    for (let lookups = 0; lookups < hashes.length; lookups++) {
      if (bytes >= SOFT_RESPONSE_LIMIT || out.length >= MAX_BODIES_SERVE || lookups >= 2 * MAX_BODIES_SERVE) break;
      const rlp = this.deps.store.bodyRlp(hashes[lookups]);
      if (rlp === undefined || rlp.length === 0) continue;
      out.push(rlp);
      bytes += rlp.length;
    }
    return out;
  }

  /**
   * Each known block's receipt list in `version`'s wire form. A block without stored receipts is
   * skipped unless its header says it has none (geth: empty receipts root → empty list).
   * PERF: receipts are decoded and re-encoded per request (storage holds the consensus form).
   */
  receipts(version: EthVersion, hashes: readonly Uint8Array[]): Uint8Array[] {
    const store = this.deps.store;
    const out: Uint8Array[] = [];
    let bytes = 0;
    for (let lookups = 0; lookups < hashes.length; lookups++) {
      if (bytes >= SOFT_RESPONSE_LIMIT || out.length >= MAX_RECEIPTS_SERVE || lookups >= 2 * MAX_RECEIPTS_SERVE) break;
      const hash = hashes[lookups];
      let receipts = store.receipts(hash);
      if (receipts === null) {
        const h = store.header(hash);
        if (h === null || !equalBytes(h.receiptsRoot, EMPTY_ROOT)) continue;
        receipts = [];
      }
      const enc = encodeBlockReceipts(version, receipts);
      out.push(enc);
      bytes += enc.length;
    }
    return out;
  }

  /** Pooled tx envelopes for the hashes the pool holds, in request order, within SOFT_RESPONSE_LIMIT. */
  pooledTxs(hashes: readonly Uint8Array[]): { hashes: Uint8Array[]; txs: Uint8Array[] } {
    const pool = this.deps.pool;
    const out = { hashes: [] as Uint8Array[], txs: [] as Uint8Array[] };
    if (pool === null) return out;
    let bytes = 0;
    for (const h of hashes) {
      if (bytes >= SOFT_RESPONSE_LIMIT) break;
      const p = pool.get(h);
      if (p === null) continue;
      out.hashes.push(h);
      out.txs.push(p.encoded);
      bytes += p.encoded.length;
    }
    return out;
  }
}
