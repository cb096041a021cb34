/**
 * The pool's knobs: geth's legacypool `Config` with its `DefaultConfig` values and its `sanitize`
 * rule (a value below 1 falls back to the default). The values come from the `txpool.*` rows of the
 * flag table (cli/execFlags.ts); this file only owns the defaults the pool needs without a CLI.
 */

export interface TxPoolOptions {
  /** `--txpool.pricelimit`: minimum tip cap (wei) of a pooled tx. */
  readonly priceLimit: bigint;
  /** `--txpool.pricebump`: percent both fee caps must rise by to replace a pooled tx of the same nonce. */
  readonly priceBump: number;
  /** `--txpool.accountslots`: executable txs per account kept when the pending set is over its limit. */
  readonly accountSlots: number;
  /** `--txpool.globalslots`: executable txs in the pool before fairness truncation starts. */
  readonly globalSlots: number;
  /** `--txpool.accountqueue`: non-executable txs per account. */
  readonly accountQueue: number;
  /** `--txpool.globalqueue`: non-executable txs in the pool. */
  readonly globalQueue: number;
  /** `--txpool.lifetime` (ms): how long an account's queued txs survive without a heartbeat. */
  readonly lifetime: number;
}

/** txSlotSize: a tx takes one slot per started 32 KiB (legacypool `numSlots`). */
export const TX_SLOT_SIZE = 32 * 1024;

/** txMaxSize: the largest encoded tx the pool accepts, 4 slots (128 KiB). */
export const TX_MAX_SIZE = 4 * TX_SLOT_SIZE;

const HOUR_MS = 3_600_000;

/** geth `legacypool.DefaultConfig`. */
export const DEFAULT_TX_POOL_OPTIONS: TxPoolOptions = Object.freeze({
  priceLimit: 1n,
  priceBump: 10,
  accountSlots: 16,
  // urgent + floating queue capacity with a 4:1 ratio
  globalSlots: 4096 + 1024,
  accountQueue: 64,
  globalQueue: 1024,
  lifetime: 3 * HOUR_MS,
});

/** Fills omitted fields with the defaults and replaces values below 1 with them (geth `sanitize`). */
export function sanitizeTxPoolOptions(opts: Partial<TxPoolOptions> = {}): TxPoolOptions {
  const d = DEFAULT_TX_POOL_OPTIONS;
  const n = (v: number | undefined, def: number): number => (v === undefined || !(v >= 1) ? def : Math.floor(v));
  return Object.freeze({
    priceLimit: opts.priceLimit === undefined || opts.priceLimit < 1n ? d.priceLimit : opts.priceLimit,
    priceBump: n(opts.priceBump, d.priceBump),
    accountSlots: n(opts.accountSlots, d.accountSlots),
    globalSlots: n(opts.globalSlots, d.globalSlots),
    accountQueue: n(opts.accountQueue, d.accountQueue),
    globalQueue: n(opts.globalQueue, d.globalQueue),
    lifetime: n(opts.lifetime, d.lifetime),
  });
}
