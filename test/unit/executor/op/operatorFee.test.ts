/**
 * Operator fee (Isthmus, Jovian) and op-geth's settlement: buy at the gas limit, refund
 * fee(limit) - fee(used), pay fee(used) to the vault. Expected values are recomputed from the spec
 * formulas here; the vectors in test/spec/l1FeeVectors.test.ts pin upstream numbers.
 */
import { strict as assert } from "node:assert";
import { operatorFee, operatorFeeRefund } from "../../../../src/executor/op/operatorFee.js";
import { Fork, l1Rules, OpFork, opRules } from "../../../../src/spec/forks.js";
import { newL1BlockInfo } from "../../../../src/tx/l1BlockInfo.js";

const INFO = newL1BlockInfo({ operatorFeeScalar: 1_439_103_868, operatorFeeConstant: 1_000_000_007n });
const OP_FORKS = Object.values(OpFork).filter((v): v is OpFork => typeof v === "number");

describe("executor/op/operatorFee", () => {
  it("is zero before Isthmus and on non-OP chains", () => {
    for (const op of OP_FORKS.filter((f) => f < OpFork.Isthmus)) {
      assert.equal(operatorFee(21_000, INFO, opRules(op)), 0n, OpFork[op]);
      assert.equal(operatorFeeRefund(50_000, 21_000, INFO, opRules(op)), 0n, OpFork[op]);
    }
    assert.equal(operatorFee(21_000, INFO, l1Rules(Fork.Prague)), 0n);
  });

  it("divides by 1e6 at Isthmus and multiplies by 100 from Jovian", () => {
    for (const gas of [0, 1, 694, 695, 21_000, 30_000_000]) {
      const scaled = BigInt(gas) * BigInt(INFO.operatorFeeScalar);
      assert.equal(operatorFee(gas, INFO, opRules(OpFork.Isthmus)), scaled / 1_000_000n + INFO.operatorFeeConstant);
      for (const op of [OpFork.Jovian, OpFork.Interop]) {
        assert.equal(operatorFee(gas, INFO, opRules(op)), scaled * 100n + INFO.operatorFeeConstant);
      }
    }
  });

  it("reaches the spec maxima exactly (77 bits at Isthmus, 103 at Jovian)", () => {
    const u64 = 2n ** 64n - 1n;
    const u32 = 2n ** 32n - 1n;
    const max = newL1BlockInfo({ operatorFeeScalar: Number(u32), operatorFeeConstant: u64 });
    const gas = Number.MAX_SAFE_INTEGER;
    const isthmus = operatorFee(gas, max, opRules(OpFork.Isthmus));
    assert.equal(isthmus, (BigInt(gas) * u32) / 1_000_000n + u64);
    const jovian = operatorFee(gas, max, opRules(OpFork.Jovian));
    assert.equal(jovian, BigInt(gas) * u32 * 100n + u64);
    assert.ok(jovian < 2n ** 103n);
  });

  it("refunds fee(limit) - fee(used), so refund + vault share = up-front charge", () => {
    for (const op of [OpFork.Isthmus, OpFork.Jovian]) {
      const rules = opRules(op);
      for (const [limit, used] of [
        [50_000, 0],
        [50_000, 21_000],
        [50_000, 50_000],
        [1_000_001, 999_999],
      ]) {
        const charged = operatorFee(limit, INFO, rules);
        const vault = operatorFee(used, INFO, rules);
        const refund = operatorFeeRefund(limit, used, INFO, rules);
        assert.equal(refund + vault, charged, `${OpFork[op]} ${limit}/${used}`);
        assert.ok(refund >= 0n);
      }
    }
    // The constant is charged once: fully used gas refunds nothing, unused gas never refunds it.
    assert.equal(operatorFeeRefund(50_000, 50_000, INFO, opRules(OpFork.Isthmus)), 0n);
    assert.equal(
      operatorFeeRefund(50_000, 0, INFO, opRules(OpFork.Jovian)),
      50_000n * BigInt(INFO.operatorFeeScalar) * 100n,
    );
  });

  it("differs from fee(limit - used) at Isthmus by the constant and the floor rounding", () => {
    const rules = opRules(OpFork.Isthmus);
    const info = newL1BlockInfo({ operatorFeeScalar: 1_500_000, operatorFeeConstant: 0n });
    // Scalar 1.5 per gas, limit 2, used 1: floor(3) - floor(1.5) = 2, whereas floor(1 * 1.5) = 1.
    assert.equal(operatorFeeRefund(2, 1, info, rules), 2n);
    assert.equal(operatorFee(1, info, rules), 1n);
  });
});
