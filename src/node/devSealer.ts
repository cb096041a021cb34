/**
 * Dev-mode block production, as geth's `--dev` simulated beacon (eth/catalyst/simulated_beacon.go):
 * with period 0 a block is sealed as soon as transactions are pending; with period N one every N
 * seconds, empty or not. Sealing builds on the head with the pool as the tx source
 * (Blockchain.buildBlock), makes the block the head (setHead), then hands the head change to the
 * node's fan-out (pool reset, subscriptions).
 */
import { randomBytes } from "node:crypto";
import type { Header } from "../block/header.js";
import type { Blockchain, HeadChange } from "../chain/blockchain.js";
import { expectedBaseFee } from "../chain/validateHeader.js";
import { rulesAt } from "../spec/chainConfig.js";
import { Fork } from "../spec/forks.js";
import type { TxPool } from "../txpool/txPool.js";
import { txSourceOf } from "../txpool/txsByPriceAndNonce.js";

export interface DevSealerOptions {
  /** Seconds between blocks; 0 = seal when transactions are pending (geth `--dev.period`). */
  readonly period: number;
  /** Fee recipient of sealed blocks (geth: the dev account). */
  readonly feeRecipient: Uint8Array;
}

export interface DevSealerDeps {
  readonly chain: Blockchain;
  readonly pool: TxPool;
  /** Called after each sealed block became the head. */
  readonly onHead: (change: HeadChange) => void;
  /** Reports a failed seal (the sealer keeps running). */
  readonly onError?: (message: string) => void;
  /** Clock in ms (block timestamps). */
  readonly now?: () => number;
}

export interface SealedBlock {
  readonly hash: Uint8Array;
  readonly header: Header;
  readonly txs: number;
}

export class DevSealer {
  private timer: NodeJS.Timeout | null = null;
  private scheduled: NodeJS.Immediate | null = null;
  private unsubscribe: (() => void) | null = null;
  private running = false;

  constructor(
    readonly opts: DevSealerOptions,
    private readonly deps: DevSealerDeps,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    if (this.opts.period === 0) {
      this.unsubscribe = this.deps.pool.onPending(() => this.schedule());
      if (this.deps.pool.status().pending > 0) this.schedule();
    } else {
      this.timer = setInterval(() => this.sealAndReport(), this.opts.period * 1000);
    }
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) clearInterval(this.timer);
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.unsubscribe?.();
    this.timer = null;
    this.scheduled = null;
    this.unsubscribe = null;
  }

  /**
   * Seals on the next turn of the event loop, so a burst of submissions shares one block and the
   * pool is not re-entered from inside its own pending announcement.
   */
  private schedule(): void {
    if (!this.running || this.scheduled !== null) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = null;
      if (!this.running || this.deps.pool.status().pending === 0) return;
      const b = this.sealAndReport();
      // The block was full: more pending txs wait for the next one.
      if (b !== null && b.txs > 0 && this.deps.pool.status().pending > 0) this.schedule();
    });
  }

  private sealAndReport(): SealedBlock | null {
    try {
      return this.seal();
    } catch (e) {
      this.deps.onError?.(e instanceof Error ? e.message : String(e));
      return null;
    }
  }

  /** Builds one block on the head from the pool, makes it the head and reports the change. */
  seal(): SealedBlock {
    const { chain, pool } = this.deps;
    const parent = chain.head;
    const now = Math.floor((this.deps.now ?? Date.now)() / 1000);
    const timestamp = Math.max(now, parent.timestamp + 1);
    const rules = rulesAt(chain.config, parent.number + 1, timestamp);
    const baseFee = rules.fork >= Fork.London ? expectedBaseFee(parent, chain.config, null) : null;
    const built = chain.buildBlock({
      parentHash: chain.headBlockHash,
      timestamp,
      feeRecipient: this.opts.feeRecipient,
      // geth's simulated beacon: a random prevRandao, zero beacon root, no withdrawals.
      prevRandao: new Uint8Array(randomBytes(32)),
      gasLimit: parent.gasLimit,
      extraData: new Uint8Array(0),
      withdrawals: rules.fork >= Fork.Shanghai ? [] : null,
      parentBeaconBlockRoot: rules.fork >= Fork.Cancun ? new Uint8Array(32) : null,
      forced: [],
      pool: txSourceOf(pool.byPriceAndNonce(baseFee)),
    });
    if ("error" in built) throw new Error(`dev block ${parent.number + 1}: ${built.error}`);
    const change = chain.setHead(built.hash);
    this.deps.onHead(change);
    return { hash: built.hash, header: built.header, txs: built.body.transactions.length };
  }
}
