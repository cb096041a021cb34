/**
 * The transaction pool with geth's legacypool semantics (core/txpool/legacypool, validation.go):
 * stateless and stateful admission with geth's errors, OP L1 fee and operator fee in the balance
 * check (op-stack.md §3.4, §3.6), pending/queued per sender, price-bump replacement, per-account and
 * global limits with eviction of the cheapest txs, and head resets.
 */
import { type Header, headerHash } from "../block/header.js";
import type { ChainStore } from "../chain/chainStore.js";
import { stateViewAt } from "../chain/stateAt.js";
import { KECCAK256_EMPTY, keccak256 } from "../crypto/keccak.js";
import { l1CostModel, l1CostOfData, rollupCostData } from "../executor/op/l1Cost.js";
import { operatorFee } from "../executor/op/operatorFee.js";
import { toChecksumAddress } from "../primitives/address.js";
import { bytesKey, equalBytes } from "../primitives/bytes.js";
import { type ChainConfig, rulesAt } from "../spec/chainConfig.js";
import { Fork, type ForkRules } from "../spec/forks.js";
import { KvStateReader } from "../state/kvStateReader.js";
import type { AccountRecord, StateReader } from "../state/stateReader.js";
import { recoverAuthority } from "../tx/authorization.js";
import { decodeTx, encodeTx, txHash } from "../tx/envelope.js";
import { MAX_TX_GAS_LIMIT_OSAKA } from "../tx/intrinsicGas.js";
import type { L1BlockInfo } from "../tx/l1BlockInfo.js";
import { parseL1BlockInfo } from "../tx/l1BlockInfo.js";
import { recoverSendersParallel } from "../tx/recoverSendersParallel.js";
import { recoverSender } from "../tx/signer.js";
import { type SignedTx, type Tx, TxType, txMaxFeePerGas, txMaxPriorityFeePerGas } from "../tx/tx.js";
import type { TaskPool } from "../util/taskPool.js";
import { reject, type TxPoolRejection } from "./errors.js";
import { MinerSettings } from "./minerSettings.js";
import { NonceList } from "./nonceList.js";
import { comparePrice, numSlots, type PooledTx } from "./pooledTx.js";
import type { TxConditional } from "./txConditional.js";
import { sanitizeTxPoolOptions, TX_MAX_SIZE, type TxPoolOptions } from "./txPoolOptions.js";
import { type BuilderLimits, TxsByPriceAndNonce } from "./txsByPriceAndNonce.js";
import { forkRejection, subpoolRejection, validatePoolTx } from "./validatePoolTx.js";

/** What the pool reads from the chain; `Blockchain` satisfies it. */
export interface TxPoolChain {
  readonly config: ChainConfig;
  readonly head: Header;
  readonly store: ChainStore;
  /** The block whose post-state the flat tables hold (the head's state is read through `stateViewAt`). */
  readonly stateBlockHash: Uint8Array;
}

export interface TxPoolDeps {
  readonly chain: TxPoolChain;
  /** The sigRecover worker pool for batched sender recovery; null or absent = main thread. */
  readonly recoveryPool?: TaskPool | null;
  /** Clock in ms (heartbeats, lifetime, arrival order); Date.now by default. */
  readonly now?: () => number;
  /**
   * Take blob txs into the ordinary pending lists (the dev L1 of a local devnet, whose sidecars the
   * RPC layer keeps); never on OP chains. Default false: there is no blob pool.
   */
  readonly acceptBlobs?: boolean;
  /**
   * The node's miner settings (miner_* change them): `byPriceAndNonce` applies their tip and DA
   * limits. Absent: the pool keeps its own, with no limits set.
   */
  readonly miner?: MinerSettings;
}

/** The outcome of one submitted tx; `hash` is null only when the bytes did not decode. */
export type AddResult =
  | { readonly hash: Uint8Array; readonly error: null }
  | { readonly hash: Uint8Array | null; readonly error: TxPoolRejection };

export type TxStatus = "pending" | "queued" | "unknown";

/** geth's txpool_content nesting: checksummed address → decimal nonce → value. */
export type ByAddressAndNonce<T> = Record<string, Record<string, T>>;

export type PendingListener = (txs: readonly PooledTx[]) => void;

/** Reorgs deeper than this are not replayed into the pool (legacypool `reset`). */
const MAX_REINJECT_DEPTH = 64;
const TX_GAS_CAP = BigInt(MAX_TX_GAS_LIMIT_OSAKA);

interface Candidate {
  readonly index: number;
  readonly tx: SignedTx;
  readonly hash: Uint8Array;
  readonly encoded: Uint8Array;
  readonly conditional: TxConditional | null;
}

interface HeadView {
  readonly header: Header;
  readonly hash: Uint8Array;
  readonly rules: ForkRules;
  /** L1 attributes of the head (OP chains with an L1-info deposit in the head), else null. */
  readonly l1Info: L1BlockInfo | null;
  readonly baseFee: bigint | null;
}

/**
 * No deposits, and no blob txs (there is no blob pool; OP has none at all) except on a dev L1
 * (`acceptBlobs`), where they share the ordinary lists. Differences from geth, all
 * deliberate: the reorg work geth schedules on a goroutine (promotion, truncation) runs synchronously
 * at the end of each `add` batch and in `onNewHead`, and a tx that this work drops at once (over
 * `accountqueue`, `globalqueue` or `globalslots`) is answered `txpool is full`, not geth's success;
 * eviction prices by the head's base fee (geth: the next block's) over one price order instead of
 * geth's urgent/floating heaps. As in geth ≥ 1.15 every tx is treated alike, whatever its source:
 * RPC submissions are not exempt from the price limit, eviction or any limit, so the pool holds at
 * most `globalslots + globalqueue` slots (32 KiB of encoding each) whoever sends; the node's
 * LocalTxTracker re-submits the RPC ones the pool let go.
 */
export class TxPool {
  readonly opts: TxPoolOptions;
  readonly chainId: bigint;
  /** The builder's knobs this pool's `byPriceAndNonce` applies (shared with the node's miner_* API). */
  readonly miner: MinerSettings;
  /** The least tip cap of a pooled tx (`--txpool.pricelimit`, then miner_setGasPrice: legacypool `gasTip`). */
  private gasTip: bigint;
  private readonly chain: TxPoolChain;
  private readonly recoveryPool: TaskPool | null;
  private readonly now: () => number;
  private readonly isOp: boolean;
  private readonly acceptBlobs: boolean;

  private headView!: HeadView;
  private stateReader: StateReader | null = null;
  private stateReaderBlock: Uint8Array | null = null;
  private readonly accountCache = new Map<string, AccountRecord | null>();

  private readonly all = new Map<string, PooledTx>();
  private allSlots = 0;
  /** Summed encoded sizes of `all` (≤ allSlots × TX_SLOT_SIZE). */
  private allBytes = 0;
  private readonly pendingLists = new Map<string, NonceList>();
  private readonly queueLists = new Map<string, NonceList>();
  private readonly beats = new Map<string, number>();
  /** Authority → hashes of pooled set-code txs carrying one of its authorizations. */
  private readonly auths = new Map<string, Set<string>>();
  private readonly authoritiesOf = new Map<string, string[]>();
  private readonly pendingListeners = new Set<PendingListener>();
  /** Txs that became pending during the current mutation, announced when it ends. */
  private announce: PooledTx[] = [];

  constructor(opts: Partial<TxPoolOptions>, deps: TxPoolDeps) {
    this.opts = sanitizeTxPoolOptions(opts);
    this.chain = deps.chain;
    this.chainId = deps.chain.config.chainId;
    this.recoveryPool = deps.recoveryPool ?? null;
    this.now = deps.now ?? Date.now;
    this.isOp = deps.chain.config.optimism !== null;
    this.acceptBlobs = deps.acceptBlobs === true && !this.isOp;
    this.miner = deps.miner ?? new MinerSettings({ gasCeil: deps.chain.head.gasLimit });
    this.gasTip = this.opts.priceLimit;
    this.setHead(deps.chain.head);
  }

  /** The least tip cap a tx needs now (legacypool `gasTip`). */
  get priceLimit(): bigint {
    return this.gasTip;
  }

  /**
   * legacypool `SetGasTip` (miner_setGasPrice): the new minimum tip cap; when it rises, pooled txs
   * below it leave (geth `TxsBelowTip`).
   */
  setGasTip(tip: bigint): void {
    const old = this.gasTip;
    this.gasTip = tip;
    if (tip <= old) return;
    for (const p of [...this.all.values()]) {
      if (p.tip < tip && this.all.get(p.hashKey) === p) this.removeTx(p);
    }
    this.flushAnnouncements();
  }

  // ---- submission ------------------------------------------------------------------------------

  /**
   * Validates and pools `inputs` (encoded envelopes or decoded txs); one result per input, in order.
   * A tx the batch's truncation drops at once (an account's queue, the global queue or the pending
   * set over its bound) is answered `txpool is full`: nothing past the bounds is acknowledged.
   */
  async add(
    inputs: readonly (Uint8Array | Tx)[],
    /** Inclusion conditions the inputs came with (eth_sendRawTransactionConditional); checked when a block is built. */
    conditional: TxConditional | null = null,
  ): Promise<AddResult[]> {
    const results: AddResult[] = new Array(inputs.length);
    const candidates: Candidate[] = [];
    for (let i = 0; i < inputs.length; i++) {
      const r = this.prepare(i, inputs[i], conditional);
      if ("error" in r) results[i] = r;
      else candidates.push(r);
    }
    if (candidates.length > 0) {
      // Recover every sender in one batch (worker pool above MIN_PARALLEL_RECOVERY); validateTx then
      // finds them memoized.
      await recoverSendersParallel(
        candidates.map((c) => c.tx),
        this.recoveryPool,
      );
      const dirty = new Set<string>();
      for (const c of candidates) results[c.index] = this.addOne(c, dirty);
      this.promoteExecutables(dirty);
      this.truncatePending();
      this.truncateQueue();
      this.flushAnnouncements();
      for (const c of candidates) {
        if (results[c.index].error === null && !this.all.has(bytesKey(c.hash))) {
          results[c.index] = { hash: c.hash, error: reject("TXPOOL_OVERFLOW") };
        }
      }
    }
    return results;
  }

  /** Decoding and the checks that need neither the sender nor the state (geth ValidateTransaction, first half). */
  private prepare(index: number, input: Uint8Array | Tx, conditional: TxConditional | null): Candidate | AddResult {
    let tx: Tx;
    let encoded: Uint8Array;
    if (input instanceof Uint8Array) {
      // The decoded fields are views into their input; the pool keeps txs for hours, so it decodes
      // its own copy rather than a buffer the caller may reuse.
      encoded = input.slice();
      try {
        tx = decodeTx(encoded);
      } catch (e) {
        return { hash: null, error: reject("DECODE", (e as Error).message) };
      }
    } else {
      tx = input;
      encoded = tx.memo?.encoded ?? encodeTx(tx);
    }
    const hash = txHash(tx);
    if (this.all.has(bytesKey(hash))) return { hash, error: reject("ALREADY_KNOWN") };
    const poolErr = subpoolRejection(tx, this.acceptBlobs);
    if (poolErr !== null) return { hash, error: poolErr };
    if (encoded.length > TX_MAX_SIZE) {
      return {
        hash,
        error: reject("OVERSIZED_DATA", `transaction size ${encoded.length}, limit ${TX_MAX_SIZE}`),
      };
    }
    const forkErr = forkRejection(tx as SignedTx, this.headView.rules);
    if (forkErr !== null) return { hash, error: forkErr };
    return { index, tx: tx as SignedTx, hash, encoded, conditional };
  }

  /** Sender-dependent stateless checks, the price limit, then the stateful add (under the current head). */
  private addOne(c: Candidate, dirty: Set<string>): AddResult {
    const { tx, hash } = c;
    if (this.all.has(bytesKey(hash))) return { hash, error: reject("ALREADY_KNOWN") };
    // The head may have moved while senders were recovered: re-check what depends on it.
    const forkErr = forkRejection(tx, this.headView.rules);
    if (forkErr !== null) return { hash, error: forkErr };
    const basic = this.validateBasics(tx);
    if (basic !== null) return { hash, error: basic };
    const sender = recoverSender(tx)!;
    if (txMaxPriorityFeePerGas(tx) < this.gasTip) {
      return {
        hash,
        error: reject("GAS_PRICE_TOO_LOW", `gas tip cap ${txMaxPriorityFeePerGas(tx)}, minimum needed ${this.gasTip}`),
      };
    }
    const entry = this.entryOf(c, sender);
    const err = this.addEntry(entry, dirty);
    return err === null ? { hash, error: null } : { hash, error: err };
  }

  /** validatePoolTx against the head, with the balance for geth's overflow message. */
  private validateBasics(tx: SignedTx): TxPoolRejection | null {
    const { header, rules } = this.headView;
    return validatePoolTx(tx, { rules, chainId: this.chainId, gasLimit: header.gasLimit }, (from) => {
      return this.account(from, bytesKey(from))?.balance ?? 0n;
    });
  }

  private entryOf(c: Candidate, sender: Uint8Array): PooledTx {
    const { tx } = c;
    const maxFee = txMaxFeePerGas(tx);
    const rollup = this.isOp ? rollupCostData(c.encoded) : null;
    const l2Cost = tx.gasLimit * maxFee + tx.value;
    const entry: PooledTx = {
      tx,
      hash: c.hash,
      hashKey: bytesKey(c.hash),
      sender,
      senderKey: bytesKey(sender),
      encoded: c.encoded,
      nonce: tx.nonce,
      gasLimit: tx.gasLimit,
      maxFee,
      tip: txMaxPriorityFeePerGas(tx),
      slots: numSlots(c.encoded.length),
      l2Cost,
      rollup,
      cost: l2Cost,
      time: this.now(),
      conditional: c.conditional,
      rejected: false,
    };
    entry.cost = this.costOf(entry);
    return entry;
  }

  /** geth `tx.Cost()` plus, on OP, the L1 fee and the operator fee of the full gas limit at the head. */
  private costOf(p: PooledTx): bigint {
    const info = this.headView.l1Info;
    if (p.rollup === null || info === null) return p.l2Cost;
    const rules = this.headView.rules;
    const l1 = l1CostOfData(p.rollup, info, l1CostModel(info, rules));
    // gasLimit ≤ the head's gas limit here, far below 2^53.
    return p.l2Cost + l1 + operatorFee(Number(p.gasLimit), info, rules);
  }

  /** legacypool `add`: stateful validation, room in the pool, replacement or queueing. */
  private addEntry(p: PooledTx, dirty: Set<string>): TxPoolRejection | null {
    const stateErr = this.validateWithState(p);
    if (stateErr !== null) return stateErr;
    return this.insert(p, dirty);
  }

  /** Room in the pool (evicting cheaper txs), then pending replacement or queueing. */
  private insert(p: PooledTx, dirty: Set<string>): TxPoolRejection | null {
    // A full pool takes the new tx only in place of cheaper ones.
    const limit = this.opts.globalSlots + this.opts.globalQueue;
    if (this.allSlots + p.slots > limit) {
      if (this.underpriced(p)) return reject("UNDERPRICED");
      const drop = this.discard(this.allSlots - limit + p.slots);
      if (drop === null) return reject("TXPOOL_OVERFLOW");
      if (this.isGapped(p)) {
        // A future tx must never churn executable ones.
        for (const d of drop) {
          if (this.pendingLists.get(d.senderKey)?.get(d.nonce) === d) return reject("FUTURE_REPLACE_PENDING");
        }
      }
      for (const d of drop) this.removeTx(d);
    }

    const pending = this.pendingLists.get(p.senderKey);
    if (pending?.has(p.nonce)) {
      const r = pending.add(p, this.opts.priceBump);
      if (!r.inserted) return reject("REPLACE_UNDERPRICED");
      if (r.old !== null) this.dropFromAll(r.old);
      this.addToAll(p);
      this.beats.set(p.senderKey, this.now());
      this.announce.push(p);
      return null;
    }
    let queue = this.queueLists.get(p.senderKey);
    if (queue === undefined) {
      queue = new NonceList();
      this.queueLists.set(p.senderKey, queue);
    }
    const r = queue.add(p, this.opts.priceBump);
    if (!r.inserted) return reject("REPLACE_UNDERPRICED");
    if (r.old !== null) this.dropFromAll(r.old);
    this.addToAll(p);
    if (!this.beats.has(p.senderKey)) this.beats.set(p.senderKey, this.now());
    if (r.old === null) dirty.add(p.senderKey);
    return null;
  }

  /** geth ValidateTransactionWithState + validateAuth. */
  private validateWithState(p: PooledTx): TxPoolRejection | null {
    const acct = this.account(p.sender, p.senderKey);
    const next = acct?.nonce ?? 0n;
    if (next > p.nonce) return reject("NONCE_TOO_LOW", `next nonce ${next}, tx nonce ${p.nonce}`);
    const balance = acct?.balance ?? 0n;
    const cost = p.cost;
    if (balance < cost) {
      return reject("INSUFFICIENT_FUNDS", `balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`);
    }
    // No overdraft across the account's executable txs, replacements included.
    const pending = this.pendingLists.get(p.senderKey);
    const spent = pending?.totalCost() ?? 0n;
    const prev = pending?.get(p.nonce);
    if (prev !== undefined) {
      const bump = cost - prev.cost;
      const need = spent + bump;
      if (balance < need) {
        return reject(
          "INSUFFICIENT_FUNDS",
          `balance ${balance}, queued cost ${spent}, tx bumped ${bump}, overshot ${need - balance}`,
        );
      }
    } else {
      const need = spent + cost;
      if (balance < need) {
        return reject(
          "INSUFFICIENT_FUNDS",
          `balance ${balance}, queued cost ${spent}, tx cost ${cost}, overshot ${need - balance}`,
        );
      }
    }
    return this.validateAuth(p, acct);
  }

  /**
   * EIP-7702 limits (legacypool `validateAuth`): an account with code (a delegation) or with a pooled
   * authorization gets one in-flight executable tx, at the next nonce; an authority named by a new
   * set-code tx may not have more than one pooled tx.
   */
  private validateAuth(p: PooledTx, acct: AccountRecord | null): TxPoolRejection | null {
    const hasCode = acct !== null && !equalBytes(acct.codeHash, KECCAK256_EMPTY);
    if (hasCode || this.auths.has(p.senderKey)) {
      const pending = this.pendingLists.get(p.senderKey);
      if (pending === undefined) {
        if (this.nonceOf(p.sender, p.senderKey) !== p.nonce) return reject("OUT_OF_ORDER_TX_FROM_DELEGATED");
      } else if (!pending.has(p.nonce)) {
        return reject("INFLIGHT_TX_LIMIT_REACHED");
      }
    }
    if (p.tx.type === TxType.SetCode) {
      for (const a of this.authoritiesOfTx(p)) {
        const count = (this.pendingLists.get(a)?.size ?? 0) + (this.queueLists.get(a)?.size ?? 0);
        if (count > 1) return reject("AUTHORITY_RESERVED");
      }
    }
    return null;
  }

  private authoritiesOfTx(p: PooledTx): string[] {
    const cached = this.authoritiesOf.get(p.hashKey);
    if (cached !== undefined) return cached;
    const out: string[] = [];
    if (p.tx.type === TxType.SetCode) {
      for (const a of p.tx.authorizationList) {
        const who = recoverAuthority(a);
        if (who !== null) out.push(bytesKey(who));
      }
    }
    return out;
  }

  // ---- bookkeeping -----------------------------------------------------------------------------

  private addToAll(p: PooledTx): void {
    this.all.set(p.hashKey, p);
    this.allSlots += p.slots;
    this.allBytes += p.encoded.length;
    if (p.tx.type === TxType.SetCode) {
      const list = this.authoritiesOfTx(p);
      this.authoritiesOf.set(p.hashKey, list);
      for (const a of list) {
        let s = this.auths.get(a);
        if (s === undefined) {
          s = new Set();
          this.auths.set(a, s);
        }
        s.add(p.hashKey);
      }
    }
  }

  private dropFromAll(p: PooledTx): void {
    if (this.all.get(p.hashKey) !== p) return;
    this.all.delete(p.hashKey);
    this.allSlots -= p.slots;
    this.allBytes -= p.encoded.length;
    const list = this.authoritiesOf.get(p.hashKey);
    if (list !== undefined) {
      this.authoritiesOf.delete(p.hashKey);
      for (const a of list) {
        const s = this.auths.get(a);
        s?.delete(p.hashKey);
        if (s?.size === 0) this.auths.delete(a);
      }
    }
  }

  /** legacypool `removeTx`: out of the pool; a pending tx takes its higher nonces back to the queue. */
  private removeTx(p: PooledTx): void {
    this.dropFromAll(p);
    const pending = this.pendingLists.get(p.senderKey);
    if (pending?.remove(p)) {
      const invalids = pending.flatten().filter((t) => t.nonce > p.nonce);
      for (const t of invalids) pending.remove(t);
      if (pending.size === 0) this.pendingLists.delete(p.senderKey);
      for (const t of invalids) this.requeue(t);
      return;
    }
    const queue = this.queueLists.get(p.senderKey);
    if (queue?.remove(p) && queue.size === 0) {
      this.queueLists.delete(p.senderKey);
      this.beats.delete(p.senderKey);
    }
  }

  /** Moves a pooled tx (already in `all`) into its sender's queue (legacypool `enqueueTx(…, false)`). */
  private requeue(p: PooledTx): void {
    let queue = this.queueLists.get(p.senderKey);
    if (queue === undefined) {
      queue = new NonceList();
      this.queueLists.set(p.senderKey, queue);
    }
    const r = queue.add(p, this.opts.priceBump);
    if (!r.inserted) this.dropFromAll(p);
    else if (r.old !== null) this.dropFromAll(r.old);
    if (!this.beats.has(p.senderKey)) this.beats.set(p.senderKey, this.now());
  }

  /** legacypool `priced.Underpriced`: not better than the cheapest pooled tx (false when there is none). */
  private underpriced(p: PooledTx): boolean {
    const baseFee = this.headView.baseFee;
    let cheapest: PooledTx | null = null;
    for (const q of this.all.values()) {
      if (cheapest === null || comparePrice(q, cheapest, baseFee) < 0) cheapest = q;
    }
    return cheapest !== null && comparePrice(cheapest, p, baseFee) >= 0;
  }

  /** legacypool `priced.Discard`: the cheapest txs freeing `slots`, or null when the pool cannot free enough. */
  private discard(slots: number): PooledTx[] | null {
    const baseFee = this.headView.baseFee;
    const drop: PooledTx[] = [];
    // PERF: a sort of the pool per overflowing add (≤ 6144 txs, ~1 ms); geth keeps two heaps.
    for (const p of [...this.all.values()].sort((a, b) => comparePrice(a, b, baseFee))) {
      if (slots <= 0) break;
      drop.push(p);
      slots -= p.slots;
    }
    return slots > 0 ? null : drop;
  }

  /** legacypool `isGapped`: the tx cannot become executable with what the pool holds. */
  private isGapped(p: PooledTx): boolean {
    const next = this.nonceOf(p.sender, p.senderKey);
    if (p.nonce <= next) return false;
    const queue = this.queueLists.get(p.senderKey);
    if (queue === undefined) return true;
    for (let n = next; n < p.nonce; n++) if (!queue.has(n)) return true;
    return false;
  }

  /** legacypool `promoteExecutables`: queued txs that became executable move to pending; stale ones go. */
  private promoteExecutables(senders: Iterable<string>): void {
    const gasLimit = this.headView.header.gasLimit;
    for (const key of senders) {
      const queue = this.queueLists.get(key);
      if (queue === undefined) continue;
      const first = queue.first();
      if (first === undefined) continue;
      const acct = this.account(first.sender, key);
      for (const p of queue.forward(acct?.nonce ?? 0n)) this.dropFromAll(p);
      for (const p of queue.filter(acct?.balance ?? 0n, gasLimit, false).drops) this.dropFromAll(p);
      for (const p of queue.ready(this.nonceOf(first.sender, key))) this.promoteTx(p);
      for (const p of queue.cap(this.opts.accountQueue)) this.dropFromAll(p);
      if (queue.size === 0) {
        this.queueLists.delete(key);
        this.beats.delete(key);
      }
    }
  }

  private promoteTx(p: PooledTx): void {
    let pending = this.pendingLists.get(p.senderKey);
    if (pending === undefined) {
      pending = new NonceList();
      this.pendingLists.set(p.senderKey, pending);
    }
    const r = pending.add(p, this.opts.priceBump);
    if (!r.inserted) {
      this.dropFromAll(p);
      return;
    }
    if (r.old !== null) this.dropFromAll(r.old);
    this.beats.set(p.senderKey, this.now());
    this.announce.push(p);
  }

  /**
   * legacypool `demoteUnexecutables`: after a head change, pending txs below the account nonce go,
   * unaffordable ones go and take their higher nonces back to the queue, and a list that no longer
   * starts at the account nonce is queued whole.
   */
  private demoteUnexecutables(): void {
    const gasLimit = this.headView.header.gasLimit;
    // op-geth: "Drop all transactions that were rejected by the miner" (a failed inclusion condition).
    for (const p of [...this.all.values()]) if (p.rejected && this.all.get(p.hashKey) === p) this.removeTx(p);
    for (const [key, list] of [...this.pendingLists]) {
      const first = list.first();
      if (first === undefined) {
        this.pendingLists.delete(key);
        continue;
      }
      const acct = this.account(first.sender, key);
      const nonce = acct?.nonce ?? 0n;
      for (const p of list.forward(nonce)) this.dropFromAll(p);
      const { drops, invalids } = list.filter(acct?.balance ?? 0n, gasLimit, true);
      for (const p of drops) this.dropFromAll(p);
      for (const p of invalids) this.requeue(p);
      if (list.size > 0 && !list.has(nonce)) for (const p of list.cap(0)) this.requeue(p);
      if (list.size === 0) this.pendingLists.delete(key);
    }
  }

  /**
   * legacypool `truncatePending`: above `globalSlots` executable txs, accounts over `accountSlots`
   * lose their highest nonces, the largest first, evening out towards `accountSlots`.
   */
  private truncatePending(): void {
    let pending = 0;
    const spammers: [string, number][] = [];
    for (const [key, list] of this.pendingLists) {
      pending += list.size;
      if (list.size > this.opts.accountSlots) spammers.push([key, list.size]);
    }
    const limit = this.opts.globalSlots;
    if (pending <= limit) return;
    spammers.sort((a, b) => b[1] - a[1]);
    const sizeOf = (key: string): number => this.pendingLists.get(key)?.size ?? 0;
    const dropLast = (key: string): void => {
      const list = this.pendingLists.get(key);
      if (list === undefined) return;
      for (const p of list.cap(list.size - 1)) this.dropFromAll(p);
      if (list.size === 0) this.pendingLists.delete(key);
    };
    const offenders: string[] = [];
    for (let s = 0; pending > limit && s < spammers.length; s++) {
      const offender = spammers[s][0];
      offenders.push(offender);
      if (offenders.length > 1) {
        const threshold = sizeOf(offender);
        while (pending > limit && sizeOf(offenders[offenders.length - 2]) > threshold) {
          for (let i = 0; i < offenders.length - 1; i++) {
            dropLast(offenders[i]);
            pending--;
          }
        }
      }
    }
    if (pending > limit && offenders.length > 0) {
      while (pending > limit && sizeOf(offenders[offenders.length - 1]) > this.opts.accountSlots) {
        for (const key of offenders) {
          dropLast(key);
          pending--;
        }
      }
    }
  }

  /** legacypool `truncateQueue`: above `globalQueue` queued txs, the accounts heard from longest ago lose theirs first. */
  private truncateQueue(): void {
    let queued = 0;
    for (const list of this.queueLists.values()) queued += list.size;
    if (queued <= this.opts.globalQueue) return;
    const keys = [...this.queueLists.keys()];
    keys.sort((a, b) => (this.beats.get(a) ?? 0) - (this.beats.get(b) ?? 0));
    let drop = queued - this.opts.globalQueue;
    for (const key of keys) {
      if (drop <= 0) break;
      const txs = this.queueLists.get(key)?.flatten() ?? [];
      if (txs.length <= drop) {
        for (const p of [...txs]) this.removeTx(p);
        drop -= txs.length;
        continue;
      }
      for (let i = txs.length - 1; i >= 0 && drop > 0; i--, drop--) this.removeTx(txs[i]);
    }
  }

  /**
   * Drops the queued txs of accounts not heard from for `lifetime` (geth's eviction ticker;
   * the node calls this periodically, `onNewHead` calls it too). Returns how many went.
   */
  evictExpired(now: number = this.now()): number {
    let n = 0;
    for (const [key, queue] of [...this.queueLists]) {
      if (now - (this.beats.get(key) ?? now) <= this.opts.lifetime) continue;
      for (const p of [...queue.flatten()]) {
        this.removeTx(p);
        n++;
      }
    }
    return n;
  }

  private flushAnnouncements(): void {
    if (this.announce.length === 0) return;
    // Only what is still pending at the end of the mutation is announced.
    const txs = this.announce.filter((p) => this.pendingLists.get(p.senderKey)?.get(p.nonce) === p);
    this.announce = [];
    if (txs.length === 0) return;
    for (const l of this.pendingListeners) l(txs);
  }

  // ---- head changes ----------------------------------------------------------------------------

  /**
   * legacypool `reset`: moves the pool onto `head` (the chain's new canonical head, whose state must be
   * readable through the chain). On a reorg of ≤ 64 blocks the txs of the dropped blocks that the new
   * branch does not include come back. Then costs are recomputed for the head's L1
   * attributes, included and now-invalid txs leave, queued txs that became executable are promoted,
   * limits are applied and expired queued txs are evicted.
   */
  onNewHead(head: Header): void {
    const oldHead = this.headView.header;
    const oldHash = this.headView.hash;
    const newHash = headerHash(head);
    const reinject =
      equalBytes(oldHash, newHash) || equalBytes(oldHash, head.parentHash) ? [] : this.lostTxs(oldHead, head);
    const wasOsaka = this.headView.rules.fork >= Fork.Osaka;
    this.setHead(head);
    if (!wasOsaka && this.headView.rules.fork >= Fork.Osaka) {
      // EIP-7825 from here on (L1 Osaka; OP Karst, which runs Osaka's EVM): a tx above the cap can
      // never be included, so it leaves; a pending one takes its sender's later nonces back to the
      // queue (geth legacypool `runReorg`: "Discard the transactions with the gas limit higher than
      // the cap" when the new head is Osaka and the old one was not).
      for (const p of [...this.all.values()]) if (p.gasLimit > TX_GAS_CAP) this.removeTx(p);
    }
    for (const p of this.all.values()) p.cost = this.costOf(p);
    if (reinject.length > 0) {
      const dirty = new Set<string>();
      for (const tx of reinject) {
        const hash = txHash(tx);
        const sender = recoverSender(tx);
        if (sender === null || this.all.has(bytesKey(hash))) continue;
        const encoded = tx.memo?.encoded ?? encodeTx(tx);
        if (forkRejection(tx, this.headView.rules) !== null || this.validateBasics(tx) !== null) continue;
        this.addEntry(this.entryOf({ index: 0, tx, hash, encoded, conditional: null }, sender), dirty);
      }
    }
    this.demoteUnexecutables();
    this.promoteExecutables([...this.queueLists.keys()]);
    this.truncatePending();
    this.truncateQueue();
    this.evictExpired();
    this.flushAnnouncements();
  }

  /** Txs of the blocks leaving the canonical chain that the new branch does not include (geth TxDifference). */
  private lostTxs(oldHead: Header, newHead: Header): SignedTx[] {
    if (Math.abs(oldHead.number - newHead.number) > MAX_REINJECT_DEPTH) return [];
    const store = this.chain.store;
    let rem: Header | null = oldHead;
    let remHash = this.headView.hash;
    let add: Header | null = newHead;
    let addHash = headerHash(newHead);
    const discarded: Uint8Array[][] = [];
    const included = new Set<string>();
    const bodyOf = (hash: Uint8Array): Uint8Array[] => [...(store.body(hash)?.transactions ?? [])];
    const stepRem = (): boolean => {
      discarded.push(bodyOf(remHash));
      remHash = rem!.parentHash;
      rem = store.header(remHash);
      return rem !== null;
    };
    const stepAdd = (): boolean => {
      for (const raw of bodyOf(addHash)) included.add(bytesKey(keccak256(raw)));
      addHash = add!.parentHash;
      add = store.header(addHash);
      return add !== null;
    };
    while (rem.number > add.number) if (!stepRem()) return [];
    while (add.number > rem.number) if (!stepAdd()) return [];
    while (!equalBytes(remHash, addHash)) {
      if (!stepRem() || !stepAdd()) return [];
    }
    const out: SignedTx[] = [];
    for (const raws of discarded) {
      for (const raw of raws) {
        if (included.has(bytesKey(keccak256(raw)))) continue;
        let tx: Tx;
        try {
          tx = decodeTx(raw);
        } catch {
          continue;
        }
        if (tx.type === TxType.Deposit || (tx.type === TxType.Blob && !this.acceptBlobs)) continue;
        out.push(tx);
      }
    }
    return out;
  }

  private setHead(header: Header): void {
    const hash = headerHash(header);
    const rules = rulesAt(this.chain.config, header.number, header.timestamp);
    let l1Info: L1BlockInfo | null = null;
    if (this.isOp) {
      // SPEC: the L1 attributes are the head block's first tx, the L1-info deposit (op-stack.md §3.3).
      const first = this.chain.store.body(hash)?.transactions[0];
      if (first !== undefined) {
        try {
          const tx = decodeTx(first);
          if (tx.type === TxType.Deposit) l1Info = parseL1BlockInfo(tx.data);
        } catch {
          l1Info = null;
        }
      }
    }
    this.headView = { header, hash, rules, l1Info, baseFee: header.baseFeePerGas };
    this.stateReader = null;
    this.stateReaderBlock = null;
    this.accountCache.clear();
  }

  // ---- state -----------------------------------------------------------------------------------

  /** The head's state; rebuilt when the flat tables moved to another block since it was made. */
  private state(): StateReader {
    const stateBlock = this.chain.stateBlockHash;
    if (this.stateReader === null || this.stateReaderBlock === null || !equalBytes(this.stateReaderBlock, stateBlock)) {
      // Without a state view for the head (it is not an ancestor of the state block), fall back to
      // the flat state rather than to an empty one: nothing valid is dropped for lack of a view.
      const view = stateViewAt(this.chain.store, stateBlock, this.headView.hash) ?? this.chain.store.kv;
      this.stateReader = new KvStateReader(view);
      this.stateReaderBlock = stateBlock;
    }
    return this.stateReader;
  }

  private account(address: Uint8Array, key: string): AccountRecord | null {
    const cached = this.accountCache.get(key);
    if (cached !== undefined) return cached;
    const acct = this.state().account(keccak256(address));
    this.accountCache.set(key, acct);
    return acct;
  }

  /** The next nonce of an account with the pool's executable txs applied (legacypool `noncer`). */
  private nonceOf(address: Uint8Array, key: string): bigint {
    const last = this.pendingLists.get(key)?.last();
    if (last !== undefined) return last.nonce + 1n;
    return this.account(address, key)?.nonce ?? 0n;
  }

  // ---- queries ---------------------------------------------------------------------------------

  /** The header the pool validates against. */
  get head(): Header {
    return this.headView.header;
  }

  /** The account's nonce in the head's state (the pool's txs not applied). */
  stateNonce(address: Uint8Array): bigint {
    return this.account(address, bytesKey(address))?.nonce ?? 0n;
  }

  /** eth_getTransactionCount(address, "pending"). */
  nonceAt(address: Uint8Array): bigint {
    return this.nonceOf(address, bytesKey(address));
  }

  get(hash: Uint8Array): PooledTx | null {
    return this.all.get(bytesKey(hash)) ?? null;
  }

  has(hash: Uint8Array): boolean {
    return this.all.has(bytesKey(hash));
  }

  txStatus(hash: Uint8Array): TxStatus {
    const p = this.all.get(bytesKey(hash));
    if (p === undefined) return "unknown";
    if (this.pendingLists.get(p.senderKey)?.get(p.nonce) === p) return "pending";
    return this.queueLists.get(p.senderKey)?.get(p.nonce) === p ? "queued" : "unknown";
  }

  /** What the pool holds: txs, slots (bounded by `globalslots + globalqueue`) and encoded bytes. */
  size(): { txs: number; slots: number; bytes: number } {
    return { txs: this.all.size, slots: this.allSlots, bytes: this.allBytes };
  }

  /** txpool_status. */
  status(): { pending: number; queued: number } {
    let pending = 0;
    let queued = 0;
    for (const l of this.pendingLists.values()) pending += l.size;
    for (const l of this.queueLists.values()) queued += l.size;
    return { pending, queued };
  }

  /** Executable txs, one nonce-ordered array per sender (`sender` = element 0's). */
  pending(): (readonly PooledTx[])[] {
    return [...this.pendingLists.values()].map((l) => l.flatten());
  }

  /** Non-executable txs, one nonce-ordered array per sender. */
  queued(): (readonly PooledTx[])[] {
    return [...this.queueLists.values()].map((l) => l.flatten());
  }

  /** txpool_content: pending and queued, checksummed address → decimal nonce → tx. */
  content(): { pending: ByAddressAndNonce<PooledTx>; queued: ByAddressAndNonce<PooledTx> } {
    return { pending: nest(this.pendingLists, (p) => p), queued: nest(this.queueLists, (p) => p) };
  }

  /** txpool_contentFrom: one account's pending and queued txs, decimal nonce → tx. */
  contentFrom(address: Uint8Array): { pending: Record<string, PooledTx>; queued: Record<string, PooledTx> } {
    const key = bytesKey(address);
    return {
      pending: byNonce(this.pendingLists.get(key), (p) => p),
      queued: byNonce(this.queueLists.get(key), (p) => p),
    };
  }

  /** txpool_inspect: "to: value wei + gas gas × price wei" (geth `format` in internal/ethapi). */
  inspect(): { pending: ByAddressAndNonce<string>; queued: ByAddressAndNonce<string> } {
    return { pending: nest(this.pendingLists, inspectLine), queued: nest(this.queueLists, inspectLine) };
  }

  /**
   * The block builder's iterator over executable txs at `baseFee` (see TxsByPriceAndNonce), with the
   * miner settings' tip and DA limits unless `limits` are given.
   */
  byPriceAndNonce(baseFee: bigint | null, limits?: BuilderLimits): TxsByPriceAndNonce {
    const m = this.miner;
    return new TxsByPriceAndNonce(
      [...this.pendingLists.values()].map((l) => l.flatten()),
      baseFee,
      limits ?? { minTip: m.gasTip, maxDATxSize: m.maxDATxSize, maxDABlockSize: m.maxDABlockSize },
    );
  }

  /** Calls `listener` with the txs that became pending (new executable txs, promotions, pending replacements). Returns the unsubscribe. */
  onPending(listener: PendingListener): () => void {
    this.pendingListeners.add(listener);
    return () => {
      this.pendingListeners.delete(listener);
    };
  }
}

/** geth `tx.GasPrice()` in txpool_inspect is the fee cap for 1559-style txs. */
function inspectLine(p: PooledTx): string {
  const { tx } = p;
  const tail = `${tx.value} wei + ${tx.gasLimit} gas × ${p.maxFee} wei`;
  return tx.to === null ? `contract creation: ${tail}` : `${toChecksumAddress(tx.to)}: ${tail}`;
}

function byNonce<T>(list: NonceList | undefined, f: (p: PooledTx) => T): Record<string, T> {
  const out: Record<string, T> = {};
  if (list !== undefined) for (const p of list.flatten()) out[p.nonce.toString()] = f(p);
  return out;
}

function nest<T>(lists: ReadonlyMap<string, NonceList>, f: (p: PooledTx) => T): ByAddressAndNonce<T> {
  const out: ByAddressAndNonce<T> = {};
  for (const list of lists.values()) {
    const first = list.first();
    if (first !== undefined) out[toChecksumAddress(first.sender)] = byNonce(list, f);
  }
  return out;
}
