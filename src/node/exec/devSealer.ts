/**
 * Dev-mode block production, as geth's `--dev` simulated beacon (eth/catalyst/simulated_beacon.go):
 * with period 0 a block is sealed as soon as transactions are pending; with period N one every N
 * seconds, empty or not. Sealing builds on the head with the pool as the tx source
 * (Blockchain.buildBlock), makes the block the head (setHead), then hands the head change to the
 * node's fan-out (pool reset, subscriptions).
 *
 * On an OP chain each block opens with the L1-attributes deposit of a synthetic L1 origin
 * (devGenesis.ts `devL1Info`: one L1 block per L2 block, fixed fee parameters), so the L1Block predeploy,
 * the GasPriceOracle and the receipts' L1 fee fields all work as on a real rollup. The dev sealer
 * does not insert fork upgrade transactions: an OP dev chain has its forks active from genesis
 * (`opal-exec genesis`). A real rollup is sequenced by opal-node through the Engine API.
 */
import { randomBytes } from "node:crypto";
import type { Header } from "../../block/header.js";
import { encodeHoloceneExtraData, encodeJovianExtraData } from "../../block/opExtraData.js";
import type { Blockchain, HeadChange } from "../../chain/blockchain.js";
import { calcGasLimit, expectedBaseFee } from "../../chain/validateHeader.js";
import { type ChainConfig, rulesAt } from "../../spec/chainConfig.js";
import { Fork, OpFork } from "../../spec/forks.js";
import { encodeTx } from "../../tx/envelope.js";
import { l1InfoDepositTx, l1InfoFormatAt } from "../../tx/l1InfoDeposit.js";
import type { TxPool } from "../../txpool/txPool.js";
import { txSourceOf } from "../../txpool/txsByPriceAndNonce.js";
import { timerDelay } from "../../util/timers.js";
import { devL1Info } from "./devGenesis.js";

export interface DevSealerOptions {
  /** Seconds between blocks; 0 = seal when transactions are pending (geth `--dev.period`). */
  readonly period: number;
  /** Fee recipient of sealed blocks (geth: the dev account). */
  readonly feeRecipient: Uint8Array;
  /** Gas limit L1 dev blocks move towards (`--dev.gaslimit`); OP dev blocks keep their parent's. */
  readonly gasCeil: bigint;
  /**
   * Blocks behind the head that are marked safe and finalized after each seal (`--dev.safe-lag`,
   * `--dev.finalized-lag`), as a real L1's lag behind its head; null leaves them alone.
   */
  readonly safeLag?: number | null;
  readonly finalizedLag?: number | null;
}

/**
 * What an OP dev block adds to a build request: the L1-attributes deposit of the synthetic L1
 * origin numbered like the block (`devL1Info`), and the Holocene/Jovian EIP-1559 parameters of the
 * chain config in extraData.
 */
export function opDevBlockParts(
  cfg: ChainConfig,
  parent: Header,
  number: number,
  timestamp: number,
): { forced: Uint8Array[]; extraData: Uint8Array } {
  const op = rulesAt(cfg, number, timestamp).op ?? OpFork.Bedrock;
  const format = l1InfoFormatAt(cfg, timestamp, parent.timestamp);
  const info = devL1Info(format, BigInt(number), BigInt(timestamp));
  const forced = [encodeTx(l1InfoDepositTx(info, op >= OpFork.Regolith))];
  let extraData: Uint8Array = new Uint8Array(0);
  const o = cfg.optimism;
  if (o !== null && op >= OpFork.Holocene) {
    const denominator = o.eip1559DenominatorCanyon ?? o.eip1559Denominator;
    extraData =
      op >= OpFork.Jovian
        ? encodeJovianExtraData(denominator, o.eip1559Elasticity, 0n)
        : encodeHoloceneExtraData(denominator, o.eip1559Elasticity);
  }
  return { forced, extraData };
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
      // A period beyond Node's longest timer (24.8 days) seals at that pace, not every millisecond.
      this.timer = setInterval(() => void this.sealAndReport(), timerDelay(this.opts.period * 1000));
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
      void this.sealAndReport().then((b) => {
        // The block was full: more pending txs wait for the next one.
        if (b !== null && b.txs > 0 && this.deps.pool.status().pending > 0) this.schedule();
      });
    });
  }

  /** Seals after any chain mutation under way (an Engine API import, a sync batch). */
  private sealAndReport(): Promise<SealedBlock | null> {
    return Promise.resolve(
      this.deps.chain.exclusive(() => {
        if (!this.running) return null; // stopped while it waited
        try {
          return this.seal();
        } catch (e) {
          this.deps.onError?.(e instanceof Error ? e.message : String(e));
          return null;
        }
      }),
    );
  }

  /** Builds one block on the head from the pool, makes it the head and reports the change. */
  seal(): SealedBlock {
    const { chain, pool } = this.deps;
    const parent = chain.head;
    const now = Math.floor((this.deps.now ?? Date.now)() / 1000);
    const timestamp = Math.max(now, parent.timestamp + 1);
    const number = parent.number + 1;
    const rules = rulesAt(chain.config, number, timestamp);
    const baseFee = rules.fork >= Fork.London ? expectedBaseFee(parent, chain.config, rules.op) : null;
    const op = chain.config.optimism !== null ? opDevBlockParts(chain.config, parent, number, timestamp) : null;
    const built = chain.buildBlock({
      parentHash: chain.headBlockHash,
      timestamp,
      feeRecipient: this.opts.feeRecipient,
      // geth's simulated beacon: a random prevRandao, zero beacon root, no withdrawals.
      prevRandao: new Uint8Array(randomBytes(32)),
      gasLimit: op === null ? calcGasLimit(parent.gasLimit, this.opts.gasCeil) : parent.gasLimit,
      extraData: op?.extraData ?? new Uint8Array(0),
      withdrawals: rules.fork >= Fork.Shanghai ? [] : null,
      parentBeaconBlockRoot: rules.fork >= Fork.Cancun ? new Uint8Array(32) : null,
      forced: op?.forced ?? [],
      pool: txSourceOf(pool.byPriceAndNonce(baseFee)),
    });
    if ("error" in built) throw new Error(`dev block ${parent.number + 1}: ${built.error}`);
    const change = chain.setHead(built.hash);
    const lagged = (lag: number | null | undefined): Uint8Array | null =>
      lag === null || lag === undefined ? null : chain.store.canonicalHash(Math.max(0, number - lag));
    const safe = lagged(this.opts.safeLag);
    const finalized = lagged(this.opts.finalizedLag);
    if (safe !== null || finalized !== null) chain.setSafeAndFinalized(safe, finalized);
    this.deps.onHead(change);
    return { hash: built.hash, header: built.header, txs: built.body.transactions.length };
  }
}
