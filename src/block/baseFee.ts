/**
 * EIP-1559 base fee of the next block, from its parent's header values. L1: elasticity 2,
 * denominator 8, 1 gwei in the London fork block (EIP-1559 "INITIAL_BASE_FEE"). OP Stack: the chain
 * config's elasticity and denominator (the Canyon denominator from Canyon on), the parent's extraData
 * parameters once the parent is Holocene, and Jovian's minimum base fee and DA-footprint metering
 * (SPEC: specs/protocol/holocene/exec-engine.md#base-fee-computation, jovian/exec-engine.md).
 */
import { OpFork } from "../spec/forks.js";
import { BlockError } from "./errors.js";
import { decodeOpExtraData } from "./opExtraData.js";

/** Base fee of the London fork block (EIP-1559 `INITIAL_BASE_FEE`). */
export const INITIAL_BASE_FEE = 1_000_000_000n;
/** EIP-1559 `ELASTICITY_MULTIPLIER` on L1. */
export const L1_ELASTICITY = 2;
/** EIP-1559 `BASE_FEE_MAX_CHANGE_DENOMINATOR` on L1. */
export const L1_BASE_FEE_DENOMINATOR = 8;

/**
 * The EIP-1559 update: `parentBaseFee` moved toward the gas target `parentGasLimit / elasticity` by
 * at most `1/denominator`, by at least 1 wei upward, never below 0. `parentGasUsed` is the metered
 * gas (on Jovian parents, max(gasUsed, blobGasUsed)).
 */
export function calcBaseFee(
  parentGasUsed: number,
  parentGasLimit: bigint,
  parentBaseFee: bigint,
  elasticity: number,
  denominator: number,
): bigint {
  const target = parentGasLimit / BigInt(elasticity);
  const used = BigInt(parentGasUsed);
  if (used === target) return parentBaseFee;
  // A zero target (gas limit below the elasticity) would divide by zero; the fee then stays put, as
  // nothing can be metered against it. Valid chains never reach this (gas limit ≥ 5000 on L1).
  if (target === 0n) return parentBaseFee;
  const d = BigInt(denominator);
  if (used > target) {
    const delta = (parentBaseFee * (used - target)) / target / d;
    return parentBaseFee + (delta < 1n ? 1n : delta);
  }
  const delta = (parentBaseFee * (target - used)) / target / d;
  const fee = parentBaseFee - delta;
  return fee < 0n ? 0n : fee;
}

/** The parent header values the base fee depends on. */
export interface BaseFeeParent {
  gasUsed: number;
  gasLimit: bigint;
  /** Null before London. */
  baseFeePerGas: bigint | null;
  extraData: Uint8Array;
  /** Jovian: the block's DA footprint; null before Cancun/Ecotone. */
  blobGasUsed: number | null;
}

/**
 * L1 next base fee. `parentIsLondon` = London active at the parent's number; when false the child is
 * the London fork block and gets `INITIAL_BASE_FEE` (geth `CalcBaseFee`). Returns null when the
 * parent is London but has no base fee (a malformed parent).
 */
export function nextBaseFeeL1(parent: BaseFeeParent, parentIsLondon: boolean): bigint | null {
  if (!parentIsLondon) return INITIAL_BASE_FEE;
  if (parent.baseFeePerGas === null) return null;
  return calcBaseFee(parent.gasUsed, parent.gasLimit, parent.baseFeePerGas, L1_ELASTICITY, L1_BASE_FEE_DENOMINATOR);
}

/** The chain config's OP EIP-1559 constants (`optimism` section). */
export interface OpBaseFeeConfig {
  eip1559Elasticity: number;
  eip1559Denominator: number;
  eip1559DenominatorCanyon: number | null;
}

/**
 * OP Stack next base fee (op-geth `CalcBaseFee`):
 * - child not past London at the parent's number → `INITIAL_BASE_FEE`;
 * - parent Holocene or later → denominator and elasticity from the parent's extraData (Jovian
 *   parents: also the minimum base fee, and gas metered as max(gasUsed, blobGasUsed));
 * - otherwise the config constants, with the Canyon denominator when the *child* is Canyon.
 * `parentOp` is the OP fork at the parent's timestamp, `childOp` at the child's. Returns null when
 * the parent has no base fee or its extraData does not hold the parameters its fork requires.
 */
export function nextBaseFeeOp(
  parent: BaseFeeParent,
  parentIsLondon: boolean,
  parentOp: OpFork,
  childOp: OpFork,
  cfg: OpBaseFeeConfig,
): bigint | null {
  if (!parentIsLondon) return INITIAL_BASE_FEE;
  if (parent.baseFeePerGas === null) return null;
  let elasticity = cfg.eip1559Elasticity;
  let denominator =
    childOp >= OpFork.Canyon && cfg.eip1559DenominatorCanyon !== null
      ? cfg.eip1559DenominatorCanyon
      : cfg.eip1559Denominator;
  let minBaseFee = 0n;
  let gasUsed = parent.gasUsed;
  if (parentOp >= OpFork.Holocene) {
    let p: ReturnType<typeof decodeOpExtraData>;
    try {
      p = decodeOpExtraData(parent.extraData, parentOp);
    } catch (e) {
      if (e instanceof BlockError) return null;
      throw e;
    }
    elasticity = p.elasticity;
    denominator = p.denominator;
    if (p.minBaseFee !== null) minBaseFee = p.minBaseFee;
    // SPEC: jovian/exec-engine.md#da-footprint-block-limit: gasMetered = max(gasUsed, blobGasUsed).
    if (parentOp >= OpFork.Jovian && parent.blobGasUsed !== null && parent.blobGasUsed > gasUsed) {
      gasUsed = parent.blobGasUsed;
    }
  }
  const fee = calcBaseFee(gasUsed, parent.gasLimit, parent.baseFeePerGas, elasticity, denominator);
  return fee < minBaseFee ? minBaseFee : fee;
}
