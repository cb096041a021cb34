/**
 * The Fjord estimate of a tx's compressed size in the batch (SPEC: fjord/exec-engine.md#fees, a
 * linear model over the FastLZ length) and the Jovian DA footprint built on it (SPEC:
 * jovian/exec-engine.md#da-footprint-block-limit): per non-deposit tx
 * `max(100, (-42_585_600 + 836_500 * fastLzSize) / 1e6) * daFootprintGasScalar`, summed over the
 * block into the header's `blobGasUsed`, which must not exceed the gas limit; the base-fee update
 * then uses `max(gasUsed, blobGasUsed)`. Each receipt's `blobGasUsed` is its tx's footprint.
 */
import { type L1BlockInfo, L1InfoFormat } from "../../tx/l1BlockInfo.js";
import { TxType } from "../../tx/tx.js";
import { fastLzCompressedLength } from "./fastLz.js";

/** Fjord regression intercept, scaled by 1e6. */
export const L1_COST_INTERCEPT = -42_585_600;
/** Fjord regression coefficient on the FastLZ length, scaled by 1e6. */
export const L1_COST_FASTLZ_COEF = 836_500;
/** Floor of the size estimate, in bytes. */
export const MIN_TRANSACTION_SIZE = 100;
const MIN_TRANSACTION_SIZE_SCALED = MIN_TRANSACTION_SIZE * 1_000_000;

/**
 * `max(100e6, -42_585_600 + 836_500 * fastLzSize)`: the estimated batch size scaled by 1e6 (op-geth
 * `estimatedDASizeScaled`). Exact in a `number`: a FastLZ length below 2^32 keeps it under 2^52.
 */
export function estimatedDaSizeScaled(fastLzSize: number): number {
  const scaled = L1_COST_INTERCEPT + L1_COST_FASTLZ_COEF * fastLzSize;
  return scaled < MIN_TRANSACTION_SIZE_SCALED ? MIN_TRANSACTION_SIZE_SCALED : scaled;
}

/** The estimated batch size in whole bytes (floor of the scaled estimate / 1e6), at least 100. */
export function estimatedDaSize(fastLzSize: number): number {
  return Math.floor(estimatedDaSizeScaled(fastLzSize) / 1_000_000);
}

/** One tx's DA footprint from its FastLZ length (the caller has excluded deposits). */
export function daFootprintOfSize(fastLzSize: number, daFootprintGasScalar: number): number {
  return estimatedDaSize(fastLzSize) * daFootprintGasScalar;
}

/**
 * One tx's DA footprint: 0 for a deposit (first byte 0x7E), else the estimate of its full EIP-2718
 * encoding (legacy: its RLP) times the scalar. This is the receipt's `blobGasUsed` from Jovian.
 */
export function txDaFootprint(tx: Uint8Array, daFootprintGasScalar: number): number {
  if (tx.length > 0 && tx[0] === TxType.Deposit) return 0;
  return daFootprintOfSize(fastLzCompressedLength(tx), daFootprintGasScalar);
}

/** Sum of `txDaFootprint` over a block's txs (deposits count 0). */
export function blockDaFootprint(txs: readonly Uint8Array[], daFootprintGasScalar: number): number {
  let total = 0;
  for (let i = 0; i < txs.length; i++) total += txDaFootprint(txs[i], daFootprintGasScalar);
  return total;
}

/**
 * The header `blobGasUsed` of a Jovian block (op-geth `CalcDAFootprint`), or null when the block is
 * invalid for it. `l1Info` is the parse of the first tx's calldata (null if unparseable); `txs` are
 * all the block's txs, encoded, the L1-attributes deposit first.
 *
 * - No txs, or a first tx that is not a deposit: null.
 * - Isthmus-format L1 info: the Jovian activation block, which carries no scalar yet and must hold
 *   deposits only (deposits come first, so checking the last tx suffices): 0, or null if it has a
 *   user tx.
 * - Any other non-Jovian format: null. Jovian: the block's DA footprint with the calldata scalar.
 */
export function jovianBlobGasUsed(l1Info: L1BlockInfo | null, txs: readonly Uint8Array[]): number | null {
  if (txs.length === 0 || txs[0].length === 0 || txs[0][0] !== TxType.Deposit || l1Info === null) return null;
  if (l1Info.format === L1InfoFormat.Isthmus) {
    const last = txs[txs.length - 1];
    return last.length > 0 && last[0] === TxType.Deposit ? 0 : null;
  }
  if (l1Info.format !== L1InfoFormat.Jovian) return null;
  return blockDaFootprint(txs, l1Info.daFootprintGasScalar);
}
