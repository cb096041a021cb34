/**
 * The Isthmus operator fee (SPEC: isthmus/exec-engine.md#operator-fee, jovian/exec-engine.md#operator-fee):
 *
 * - Isthmus: `gas * operatorFeeScalar / 1e6 + operatorFeeConstant`
 * - Jovian+: `gas * operatorFeeScalar * 100 + operatorFeeConstant`
 * - before Isthmus, on non-OP chains and for deposits: 0.
 *
 * How op-geth applies it (core/state_transition.go, Isthmus/Jovian era): `buyGas` adds
 * `operatorFee(gasLimit)` to the up-front charge and to the balance check; after execution,
 * `refundIsthmusOperatorCost` returns `operatorFee(gasLimit) - operatorFee(gasUsed)` to the sender and
 * the OperatorFeeVault (0x4200…001B) receives `operatorFee(gasUsed)`, where `gasUsed` is the tx's
 * final gas used: after the EIP-3529 refund and the EIP-7623 calldata floor, i.e. the receipt's gas.
 * The constant is therefore charged once and never refunded, and no wei is minted or burnt: the
 * refund plus the vault's share equals the up-front charge. Deposits are charged nothing and
 * refunded nothing. Both values fit in u256 (at most 103 bits, Jovian spec "Maximum value").
 */
import { type ForkRules, OpFork } from "../../spec/forks.js";
import type { L1BlockInfo } from "../../tx/l1BlockInfo.js";

/** The operator fee (wei) for `gas` units of gas: `gasLimit` when buying, `gasUsed` when settling. */
export function operatorFee(gas: number, info: L1BlockInfo, rules: ForkRules): bigint {
  const op = rules.op;
  if (op === null || op < OpFork.Isthmus) return 0n;
  const scaled = BigInt(gas) * BigInt(info.operatorFeeScalar);
  return (op >= OpFork.Jovian ? scaled * 100n : scaled / 1_000_000n) + info.operatorFeeConstant;
}

/**
 * What op-geth returns to the sender after execution: `operatorFee(gasLimit) - operatorFee(gasUsed)`
 * (`refundIsthmusOperatorCost`), with `gasUsed` the final (post-refund, post-floor) gas used. Not
 * `operatorFee(gasLimit - gasUsed)`: the two differ by the constant and by the floor rounding of the
 * Isthmus division. The caller skips it for deposits.
 */
export function operatorFeeRefund(gasLimit: number, gasUsed: number, info: L1BlockInfo, rules: ForkRules): bigint {
  return operatorFee(gasLimit, info, rules) - operatorFee(gasUsed, info, rules);
}
