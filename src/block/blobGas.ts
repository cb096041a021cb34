/**
 * Blob gas accounting in the header (EIP-4844): the blob base fee from `excessBlobGas`, and the next
 * block's `excessBlobGas` under the fork's blob parameters (Cancun; Prague's EIP-7691 numbers and
 * later BPO schedules arrive as `BlobParams`), with Osaka's EIP-7918 reserve-price rule.
 */
import type { BlobParams } from "../spec/chainConfig.js";

/** Blob gas per blob (EIP-4844 `GAS_PER_BLOB` = 2^17). */
export const GAS_PER_BLOB = 131072;
/** Minimum blob base fee in wei (EIP-4844 `MIN_BASE_FEE_PER_BLOB_GAS`). */
export const MIN_BASE_FEE_PER_BLOB_GAS = 1n;
/** EIP-7918 `BLOB_BASE_COST`: execution gas a blob must at least be priced at (2^13). */
export const BLOB_BASE_COST = 8192n;

/**
 * `factor * e^(numerator / denominator)` by the integer Taylor series of EIP-4844
 * (`fake_exponential`). `denominator` must be positive.
 */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let output = 0n;
  let accum = factor * denominator;
  for (let i = 1n; accum > 0n; i++) {
    output += accum;
    accum = (accum * numerator) / denominator / i;
  }
  return output / denominator;
}

/** Blob base fee per blob gas for a header's `excessBlobGas` (EIP-4844 `get_base_fee_per_blob_gas`). */
export function blobBaseFee(excessBlobGas: number, updateFraction: number): bigint {
  return fakeExponential(MIN_BASE_FEE_PER_BLOB_GAS, BigInt(excessBlobGas), BigInt(updateFraction));
}

/**
 * The `excessBlobGas` of the child of a header with `parentExcessBlobGas` and `parentBlobGasUsed`
 * (0 and 0 for a pre-Cancun parent), under the child's blob parameters.
 * - Cancun/Prague (EIP-4844): `max(0, excess + used - target * GAS_PER_BLOB)`.
 * - Osaka on (`osaka`, EIP-7918): when `BLOB_BASE_COST * parentBaseFee` exceeds the price of one blob
 *   at the parent's excess, the excess instead grows by `used * (max - target) / max`.
 * The values stay far below 2^53 on any valid chain (blob gas used ≤ max blobs × 2^17).
 */
export function calcExcessBlobGas(
  parentExcessBlobGas: number,
  parentBlobGasUsed: number,
  parentBaseFee: bigint,
  params: BlobParams,
  osaka: boolean,
): number {
  const excess = parentExcessBlobGas + parentBlobGasUsed;
  const targetGas = params.target * GAS_PER_BLOB;
  if (excess < targetGas) return 0;
  if (osaka) {
    const reservePrice = BLOB_BASE_COST * parentBaseFee;
    const blobPrice = BigInt(GAS_PER_BLOB) * blobBaseFee(parentExcessBlobGas, params.baseFeeUpdateFraction);
    if (reservePrice > blobPrice) {
      const n = parentBlobGasUsed * (params.max - params.target);
      return parentExcessBlobGas + (n - (n % params.max)) / params.max;
    }
  }
  return excess - targetGas;
}

/** Maximum blob gas a block may use under `params`. */
export function maxBlobGasPerBlock(params: BlobParams): number {
  return params.max * GAS_PER_BLOB;
}
