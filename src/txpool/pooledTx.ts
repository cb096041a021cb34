/**
 * One tx as the pool holds it: the decoded tx with what the pool derives from it once (hash, sender,
 * encoding, slots, fee caps) and its cost under the current head, which the pool recomputes on every
 * head change because the OP L1 fee and operator fee follow the head's L1 attributes.
 */
import { estimatedDaSize } from "../executor/op/daFootprint.js";
import { fastLzCompressedLength } from "../executor/op/fastLz.js";
import type { RollupCostData } from "../executor/op/l1Cost.js";
import type { SignedTx } from "../tx/tx.js";
import type { TxConditional } from "./txConditional.js";
import { TX_SLOT_SIZE } from "./txPoolOptions.js";

export interface PooledTx {
  readonly tx: SignedTx;
  readonly hash: Uint8Array;
  /** `bytesKey(hash)` */
  readonly hashKey: string;
  readonly sender: Uint8Array;
  /** `bytesKey(sender)` */
  readonly senderKey: string;
  /** EIP-2718 envelope (what eth_getRawTransactionByHash and the block builder use). */
  readonly encoded: Uint8Array;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  /** gasPrice, or maxFeePerGas. */
  readonly maxFee: bigint;
  /** gasPrice, or maxPriorityFeePerGas. */
  readonly tip: bigint;
  /** legacypool `numSlots`: started 32 KiB pieces of the encoding. */
  readonly slots: number;
  /** gasLimit × maxFee + value: geth `tx.Cost()`. */
  readonly l2Cost: bigint;
  /** OP cost inputs; null on L1 chains. */
  readonly rollup: RollupCostData | null;
  /** `l2Cost` + L1 fee + worst-case operator fee at the current head (= `l2Cost` on L1). */
  cost: bigint;
  /** Arrival time (ms); the builder's tie-break between equal tips. */
  readonly time: number;
  /** The inclusion conditions it came with (eth_sendRawTransactionConditional); null for most txs. */
  readonly conditional: TxConditional | null;
  /** The builder found its conditions failed (op-geth `SetRejected`): it leaves at the next head. */
  rejected: boolean;
}

/**
 * op-geth `RollupCostData().EstimatedDASize()`: the Fjord estimate of the tx's size in a batch
 * (at least 100 bytes), what the sequencer's DA throttling (`miner_setMaxDASize`) counts.
 */
export function daSizeOf(p: PooledTx): bigint {
  return BigInt(estimatedDaSize(p.rollup?.fastLzSize ?? fastLzCompressedLength(p.encoded)));
}

export function numSlots(size: number): number {
  return Math.ceil(size / TX_SLOT_SIZE);
}

/**
 * Whether `next` may replace `old` (same sender and nonce): both caps strictly higher, and each at
 * least `old × (100 + bump) / 100` (legacypool list.go `Add`).
 */
export function replacementAllowed(old: PooledTx, next: PooledTx, priceBump: number): boolean {
  if (old.maxFee >= next.maxFee || old.tip >= next.tip) return false;
  const a = BigInt(100 + priceBump);
  return next.maxFee >= (old.maxFee * a) / 100n && next.tip >= (old.tip * a) / 100n;
}

/** The tip a block with `baseFee` pays the proposer: min(tip, maxFee - baseFee); negative when maxFee < baseFee. */
export function effectiveTip(p: PooledTx, baseFee: bigint | null): bigint {
  if (baseFee === null) return p.tip;
  const room = p.maxFee - baseFee;
  return room < p.tip ? room : p.tip;
}

/**
 * Price order for eviction (legacypool priceHeap `cmp`): effective tip at the base fee first, then
 * the fee cap, then the tip cap. Negative when `a` is cheaper.
 */
export function comparePrice(a: PooledTx, b: PooledTx, baseFee: bigint | null): number {
  const ta = effectiveTip(a, baseFee);
  const tb = effectiveTip(b, baseFee);
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (a.maxFee !== b.maxFee) return a.maxFee < b.maxFee ? -1 : 1;
  if (a.tip !== b.tip) return a.tip < b.tip ? -1 : 1;
  return 0;
}
