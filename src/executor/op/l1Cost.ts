/**
 * The OP Stack L1 data fee ("L1 cost") of a non-deposit tx, per fork, and the L1 fields op-geth
 * adds to its receipts (SPEC: protocol/exec-engine.md#l1-cost-fees-l1-fee-vault,
 * fjord/exec-engine.md#fees; op-geth core/types/rollup_cost.go, receipt_opstack.go). All integer:
 *
 * - Bedrock: `(zeroes*4 + ones*16 + overhead) * l1BaseFee * scalar / 1e6`, with 68 more non-zero
 *   bytes (a signature's worth) counted before Regolith.
 * - Ecotone: `(zeroes*4 + ones*16) * (16*l1BaseFee*baseFeeScalar + blobBaseFee*blobBaseFeeScalar) / 16e6`.
 * - Fjord+: `estimatedSizeScaled * (16*l1BaseFee*baseFeeScalar + blobBaseFee*blobBaseFeeScalar) / 1e12`,
 *   the size estimated from the FastLZ length (daFootprint.ts).
 *
 * The tx bytes are its full EIP-2718 encoding (a legacy tx: its RLP), as signed. Deposits (first
 * byte 0x7E) and empty input pay nothing.
 */
import { type ForkRules, OpFork } from "../../spec/forks.js";
import type { L1BlockInfo } from "../../tx/l1BlockInfo.js";
import { TxType } from "../../tx/tx.js";
import { daFootprintOfSize, estimatedDaSizeScaled } from "./daFootprint.js";
import { fastLzCompressedLength } from "./fastLz.js";

/** Which L1-cost formula a block uses; resolve once per block with `l1CostModel`. */
export enum L1CostModel {
  /** Not an OP chain: no L1 fee. */
  None = 0,
  /** Bedrock before Regolith: overhead plus 68 padding bytes. */
  Bedrock = 1,
  /** Regolith–Delta, and the first Ecotone block: overhead, no padding. */
  Regolith = 2,
  Ecotone = 3,
  /** Fjord and every later fork. */
  Fjord = 4,
}

/**
 * The formula for a block. From Ecotone, a block whose L1 info still has no Ecotone parameters
 * (blob base fee 0 and both scalars 0) is the Ecotone activation block, whose L1-attributes call is
 * the Bedrock one, and uses the Regolith formula. That is op-geth's execution-side test (it reads the
 * L1Block slots after the block's deposits ran); its receipt-side test looks at the Bedrock selector
 * instead. The two agree on every chain op-node derives: op-node never writes a blob base fee of 0
 * (the EIP-4844 fee is at least 1, and 1 is written when L1 has no blobs).
 */
export function l1CostModel(info: L1BlockInfo, rules: ForkRules): L1CostModel {
  const op = rules.op;
  if (op === null) return L1CostModel.None;
  if (op < OpFork.Regolith) return L1CostModel.Bedrock;
  if (op < OpFork.Ecotone) return L1CostModel.Regolith;
  if (info.blobBaseFee === 0n && info.baseFeeScalar === 0 && info.blobBaseFeeScalar === 0) {
    return L1CostModel.Regolith;
  }
  return op < OpFork.Fjord ? L1CostModel.Ecotone : L1CostModel.Fjord;
}

/** Zero and non-zero byte counts and the FastLZ length of a tx (op-geth `RollupCostData`). */
export interface RollupCostData {
  readonly zeroes: number;
  readonly ones: number;
  readonly fastLzSize: number;
}

const EMPTY_COST_DATA: RollupCostData = Object.freeze({ zeroes: 0, ones: 0, fastLzSize: 0 });

/**
 * The cost data of an encoded tx; all zero for a deposit or empty input (op-geth charges nothing
 * for all-zero cost data). Compute it once per tx when a tx's L1 cost is needed more than once.
 */
export function rollupCostData(tx: Uint8Array): RollupCostData {
  return costData(tx, true);
}

/** `rollupCostData`, skipping the FastLZ pass (fastLzSize 0) when the formula does not use it. */
function costData(tx: Uint8Array, withFastLz: boolean): RollupCostData {
  if (tx.length === 0 || tx[0] === TxType.Deposit) return EMPTY_COST_DATA;
  let zeroes = 0;
  for (let i = 0; i < tx.length; i++) if (tx[i] === 0) zeroes++;
  return { zeroes, ones: tx.length - zeroes, fastLzSize: withFastLz ? fastLzCompressedLength(tx) : 0 };
}

function isEmpty(d: RollupCostData): boolean {
  return d.zeroes === 0 && d.ones === 0 && d.fastLzSize === 0;
}

/** Calldata gas of the bytes: 4 per zero byte, 16 per non-zero byte. */
function calldataGas(d: RollupCostData): number {
  return d.zeroes * 4 + d.ones * 16;
}

/** `16*l1BaseFee*baseFeeScalar + blobBaseFee*blobBaseFeeScalar`: the Ecotone/Fjord fee per byte, ×1e6. */
function l1FeeScaled(info: L1BlockInfo): bigint {
  return 16n * info.baseFee * BigInt(info.baseFeeScalar) + info.blobBaseFee * BigInt(info.blobBaseFeeScalar);
}

/** Fjord+ fee from a FastLZ length (no deposit/empty check: the caller has made it). */
export function fjordL1Cost(fastLzSize: number, info: L1BlockInfo): bigint {
  return (BigInt(estimatedDaSizeScaled(fastLzSize)) * l1FeeScaled(info)) / 1_000_000_000_000n;
}

/** Fjord+ receipt `l1GasUsed`: `estimatedSizeScaled * 16 / 1e6` (deprecated from Fjord, still reported). */
export function fjordL1GasUsed(fastLzSize: number): bigint {
  return BigInt(Math.floor((estimatedDaSizeScaled(fastLzSize) * 16) / 1_000_000));
}

/** The receipt `l1GasUsed` of cost data under `model` (0 for empty data or no model). */
export function l1GasUsedOfData(d: RollupCostData, info: L1BlockInfo, model: L1CostModel): bigint {
  if (isEmpty(d)) return 0n;
  switch (model) {
    case L1CostModel.None:
      return 0n;
    case L1CostModel.Bedrock:
      return BigInt(calldataGas(d) + 68 * 16) + info.l1FeeOverhead;
    case L1CostModel.Regolith:
      return BigInt(calldataGas(d)) + info.l1FeeOverhead;
    case L1CostModel.Ecotone:
      return BigInt(calldataGas(d));
    case L1CostModel.Fjord:
      return fjordL1GasUsed(d.fastLzSize);
  }
}

/** The L1 fee (wei) of cost data under `model` (0 for empty data or no model). */
export function l1CostOfData(d: RollupCostData, info: L1BlockInfo, model: L1CostModel): bigint {
  if (isEmpty(d)) return 0n;
  switch (model) {
    case L1CostModel.None:
      return 0n;
    case L1CostModel.Bedrock:
    case L1CostModel.Regolith:
      return (l1GasUsedOfData(d, info, model) * info.baseFee * info.l1FeeScalar) / 1_000_000n;
    case L1CostModel.Ecotone:
      return (BigInt(calldataGas(d)) * l1FeeScaled(info)) / 16_000_000n;
    case L1CostModel.Fjord:
      return fjordL1Cost(d.fastLzSize, info);
  }
}

/**
 * The L1 fee (wei) of an encoded tx in a block with these L1 attributes and rules: what buyGas
 * charges on top of `gasLimit * gasPrice` and what the L1FeeVault (0x4200…001A) receives. `info` is
 * the block's own L1 attributes, i.e. the parse of its first deposit's calldata; the spec calls that
 * interchangeable with reading the L1Block slots after the deposits ran, which is what op-geth does.
 */
export function l1Cost(tx: Uint8Array, info: L1BlockInfo, rules: ForkRules): bigint {
  const model = l1CostModel(info, rules);
  if (model === L1CostModel.None || tx.length === 0 || tx[0] === TxType.Deposit) return 0n;
  if (model === L1CostModel.Fjord) return fjordL1Cost(fastLzCompressedLength(tx), info);
  return l1CostOfData(costData(tx, false), info, model);
}

/** The receipt `l1GasUsed` of an encoded tx (0 for deposits, empty input and non-OP rules). */
export function l1GasUsed(tx: Uint8Array, info: L1BlockInfo, rules: ForkRules): bigint {
  const model = l1CostModel(info, rules);
  if (model === L1CostModel.None) return 0n;
  return l1GasUsedOfData(costData(tx, model === L1CostModel.Fjord), info, model);
}

/**
 * The OP fields of a non-deposit receipt as op-geth derives them (receipt_opstack.go) and prints
 * them in `eth_getTransactionReceipt` (internal/ethapi). Absent fields are absent in op-geth's JSON.
 */
export interface L1ReceiptFields {
  readonly l1GasUsed: bigint;
  /** The L1 base fee. */
  readonly l1GasPrice: bigint;
  readonly l1Fee: bigint;
  /** Bedrock formula only (pre-Ecotone and the Ecotone activation block): scalar/1e6 as op-geth prints it. */
  readonly l1FeeScalar?: string;
  /** Ecotone formula and later. */
  readonly l1BaseFeeScalar?: number;
  readonly l1BlobBaseFee?: bigint;
  readonly l1BlobBaseFeeScalar?: number;
  /** Isthmus+, and only when the scalar or the constant is non-zero. */
  readonly operatorFeeScalar?: number;
  readonly operatorFeeConstant?: bigint;
  /** Jovian+: the block's DA footprint gas scalar. */
  readonly daFootprintGasScalar?: number;
  /** Jovian+: this tx's DA footprint (the receipt's `blobGasUsed`). */
  readonly blobGasUsed?: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The OP receipt fields of an encoded tx, or null for a deposit or non-OP rules (op-geth adds none). */
export function l1ReceiptFields(tx: Uint8Array, info: L1BlockInfo, rules: ForkRules): L1ReceiptFields | null {
  const model = l1CostModel(info, rules);
  if (model === L1CostModel.None || (tx.length > 0 && tx[0] === TxType.Deposit)) return null;
  const op = rules.op as OpFork;
  const data = costData(tx, model === L1CostModel.Fjord || op >= OpFork.Jovian);
  const out: Mutable<L1ReceiptFields> = {
    l1GasUsed: l1GasUsedOfData(data, info, model),
    l1GasPrice: info.baseFee,
    l1Fee: l1CostOfData(data, info, model),
  };
  if (model === L1CostModel.Bedrock || model === L1CostModel.Regolith) {
    out.l1FeeScalar = formatFeeScalar(info.l1FeeScalar);
  } else {
    out.l1BaseFeeScalar = info.baseFeeScalar;
    out.l1BlobBaseFee = info.blobBaseFee;
    out.l1BlobBaseFeeScalar = info.blobBaseFeeScalar;
  }
  if (op >= OpFork.Isthmus && (info.operatorFeeScalar !== 0 || info.operatorFeeConstant !== 0n)) {
    out.operatorFeeScalar = info.operatorFeeScalar;
    out.operatorFeeConstant = info.operatorFeeConstant;
  }
  if (op >= OpFork.Jovian) {
    out.daFootprintGasScalar = info.daFootprintGasScalar;
    out.blobGasUsed = daFootprintOfSize(data.fastLzSize, info.daFootprintGasScalar);
  }
  return out;
}

const SIGNIFICANT_DIGITS = 10;

function bitLength(v: bigint): number {
  return v === 0n ? 0 : v.toString(2).length;
}

/**
 * `scalar / 1e6` as op-geth prints the Bedrock `l1FeeScalar` (e.g. 684000 → "0.684"): Go's
 * `big.Float.String()`, i.e. `Text('g', 10)`, of the quotient rounded to nearest-even at
 * max(64, bitlen(scalar)) bits (`intToScaledFloat`). So: 10 significant digits, trailing zeros
 * dropped, `%e` form ("1e-06", "1.5e+10") when the decimal exponent is below -4 or at least 10.
 */
export function formatFeeScalar(scalar: bigint): string {
  if (scalar <= 0n) return "0";
  // 1) The binary float: q / 2^k with q of exactly `prec` bits, rounded half to even.
  const prec = Math.max(64, bitLength(scalar));
  let k = prec - bitLength(scalar) + 20;
  let q = (scalar << BigInt(k)) / 1_000_000n;
  while (bitLength(q) > prec) q = (scalar << BigInt(--k)) / 1_000_000n;
  while (bitLength(q) < prec) q = (scalar << BigInt(++k)) / 1_000_000n;
  const twiceRem = 2n * ((scalar << BigInt(k)) - q * 1_000_000n);
  if (twiceRem > 1_000_000n || (twiceRem === 1_000_000n && (q & 1n) === 1n)) q++;
  // 2) Its exact decimal: q * 5^k / 10^k, as digits `mant` and exponent `exp` (value = 0.mant × 10^exp).
  const digits = (q * 5n ** BigInt(k)).toString();
  let exp = digits.length - k;
  let mant = digits.replace(/0+$/, "");
  // 3) Round to 10 significant digits; an exact tie rounds to even.
  if (mant.length > SIGNIFICANT_DIGITS) {
    const next = mant.charCodeAt(SIGNIFICANT_DIGITS) - 48;
    const last = mant.charCodeAt(SIGNIFICANT_DIGITS - 1) - 48;
    const up = next > 5 || (next === 5 && (mant.length > SIGNIFICANT_DIGITS + 1 || (last & 1) === 1));
    mant = mant.slice(0, SIGNIFICANT_DIGITS);
    if (up) {
      let i = mant.length - 1;
      while (i >= 0 && mant[i] === "9") i--;
      if (i < 0) {
        mant = "1";
        exp++;
      } else {
        mant = mant.slice(0, i) + String.fromCharCode(mant.charCodeAt(i) + 1);
      }
    }
    mant = mant.replace(/0+$/, "");
  }
  // 4) %g: exponent form below 1e-4 or at/above 1e10, else plain decimal with no trailing zeros.
  let eprec = SIGNIFICANT_DIGITS;
  if (eprec > mant.length && mant.length >= exp) eprec = mant.length;
  const e = exp - 1;
  if (e < -4 || e >= eprec) {
    const frac = mant.slice(1);
    const ae = Math.abs(e);
    return `${mant[0]}${frac.length > 0 ? `.${frac}` : ""}e${e < 0 ? "-" : "+"}${ae < 10 ? "0" : ""}${ae}`;
  }
  const intPart = exp > 0 ? mant.slice(0, exp).padEnd(exp, "0") : "0";
  const fracDigits = Math.max(mant.length - exp, 0);
  let frac = "";
  for (let i = 0; i < fracDigits; i++) {
    const j = exp + i;
    frac += j >= 0 && j < mant.length ? mant[j] : "0";
  }
  return frac.length > 0 ? `${intPart}.${frac}` : intPart;
}
