/**
 * block/baseFee against the vectors of go-ethereum `consensus/misc/eip1559/eip1559_test.go`
 * (TestCalcBaseFee) and op-geth's (TestCalcBaseFeeOptimism, TestCalcBaseFeeOptimismHolocene,
 * TestCalcBaseFeeMinBaseFee). The fixture chains (test/spec/headerRules.test.ts) check it further.
 */
import { strict as assert } from "node:assert";
import {
  type BaseFeeParent,
  calcBaseFee,
  INITIAL_BASE_FEE,
  nextBaseFeeL1,
  nextBaseFeeOp,
  type OpBaseFeeConfig,
} from "../../../src/block/baseFee.js";
import { encodeHoloceneExtraData, encodeJovianExtraData } from "../../../src/block/opExtraData.js";
import { OpFork } from "../../../src/spec/forks.js";

function parent(
  gasLimit: number,
  gasUsed: number,
  baseFee: bigint,
  extraData: Uint8Array = new Uint8Array(0),
): BaseFeeParent {
  return { gasLimit: BigInt(gasLimit), gasUsed, baseFeePerGas: baseFee, extraData, blobGasUsed: null };
}

/** op-geth test `opConfig()`: elasticity 6, denominator 50, Canyon denominator 250. */
const OP: OpBaseFeeConfig = { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 };

describe("block/baseFee", () => {
  it("L1: geth TestCalcBaseFee (elasticity 2, denominator 8)", () => {
    const cases: [number, number, bigint][] = [
      [20_000_000, 10_000_000, 1_000_000_000n], // usage == target
      [20_000_000, 9_000_000, 987_500_000n], // below target
      [20_000_000, 11_000_000, 1_012_500_000n], // above target
    ];
    for (const [limit, used, want] of cases) {
      assert.equal(nextBaseFeeL1(parent(limit, used, INITIAL_BASE_FEE), true), want, `${limit}/${used}`);
      assert.equal(calcBaseFee(used, BigInt(limit), INITIAL_BASE_FEE, 2, 8), want);
    }
  });

  it("L1: the London fork block gets the initial 1 gwei whatever its parent", () => {
    assert.equal(INITIAL_BASE_FEE, 1_000_000_000n);
    const pre: BaseFeeParent = { ...parent(10_000_000, 9_000_000, 0n), baseFeePerGas: null };
    assert.equal(nextBaseFeeL1(pre, false), INITIAL_BASE_FEE);
    assert.equal(nextBaseFeeL1(pre, true), null, "a London parent without base fee is malformed");
  });

  it("OP: op-geth TestCalcBaseFeeOptimism (pre-Canyon denominator 50, Canyon 250)", () => {
    const cases: [number, bigint, OpFork][] = [
      [5_000_000, 1_000_000_000n, OpFork.Regolith],
      [4_000_000, 996_000_000n, OpFork.Regolith],
      [10_000_000, 1_020_000_000n, OpFork.Regolith],
      [5_000_000, 1_000_000_000n, OpFork.Canyon],
      [4_000_000, 999_200_000n, OpFork.Canyon],
      [10_000_000, 1_004_000_000n, OpFork.Canyon],
    ];
    for (const [used, want, childOp] of cases) {
      const p = parent(30_000_000, used, INITIAL_BASE_FEE);
      // The Canyon denominator follows the child's fork (op-geth BaseFeeChangeDenominator(time)).
      assert.equal(nextBaseFeeOp(p, true, OpFork.Regolith, childOp, OP), want, `${used} ${OpFork[childOp]}`);
    }
  });

  it("OP: op-geth TestCalcBaseFeeOptimismHolocene (parameters from the parent's extraData)", () => {
    const cases: [number, bigint, number, number][] = [
      [15_000_000, 10_000_000n, 10, 2],
      [10_000_000, 9_666_667n, 10, 2],
      [20_000_000, 10_333_333n, 10, 2],
      [3_000_000, 10_000_000n, 2, 10],
      [1_000_000, 6_666_667n, 2, 10],
      [30_000_000, 55_000_000n, 2, 10],
    ];
    for (const [used, want, denom, elasticity] of cases) {
      const p = parent(30_000_000, used, 10_000_000n, encodeHoloceneExtraData(denom, elasticity));
      assert.equal(nextBaseFeeOp(p, true, OpFork.Holocene, OpFork.Holocene, OP), want, `${used} d=${denom}`);
      // Isthmus keeps the Holocene format.
      assert.equal(nextBaseFeeOp(p, true, OpFork.Isthmus, OpFork.Isthmus, OP), want);
      // The Jovian activation block still reads its Holocene parent's format.
      assert.equal(nextBaseFeeOp(p, true, OpFork.Isthmus, OpFork.Jovian, OP), want);
    }
  });

  it("OP: op-geth TestCalcBaseFeeMinBaseFee (Jovian minimum base fee from the parent's extraData)", () => {
    const limit = 30_000_000;
    const cases: [bigint, number, bigint, bigint][] = [
      [1n, limit / 3, 1_000_000_000n, 1_000_000_000n],
      [1n, limit / 3 + 1_000_000, 1_000_000_000n, 1_000_000_000n],
      [2_000_000_000n, limit / 3 + 10_000_000, 2_040_000_000n, 1_000_000_000n],
      [1n, limit / 3 - 1_000_000, 1_000_000_000n, 1_000_000_000n],
      [2_097_152n, limit / 3 - 1_000_000, 2_092_958n, 2_000_000n],
    ];
    for (const [baseFee, used, want, min] of cases) {
      const p = parent(limit, used, baseFee, encodeJovianExtraData(50, 3, min));
      assert.equal(nextBaseFeeOp(p, true, OpFork.Jovian, OpFork.Jovian, OP), want, `${baseFee} ${used}`);
    }
  });

  it("OP Jovian: the parent's gas is metered as max(gasUsed, blobGasUsed)", () => {
    // Same numbers as the Holocene vector (20M used of 30M, d=10, e=2 → 10_333_333), with the 20M
    // carried by the DA footprint instead of gasUsed (jovian/exec-engine.md#da-footprint-block-limit).
    const extra = encodeJovianExtraData(10, 2, 0n);
    const byGas = parent(30_000_000, 20_000_000, 10_000_000n, extra);
    const byDa: BaseFeeParent = { ...parent(30_000_000, 1_000_000, 10_000_000n, extra), blobGasUsed: 20_000_000 };
    const want = nextBaseFeeOp(
      parent(30_000_000, 20_000_000, 10_000_000n, encodeHoloceneExtraData(10, 2)),
      true,
      OpFork.Holocene,
      OpFork.Holocene,
      OP,
    );
    assert.equal(want, 10_333_333n);
    assert.equal(nextBaseFeeOp(byGas, true, OpFork.Jovian, OpFork.Jovian, OP), want);
    assert.equal(nextBaseFeeOp(byDa, true, OpFork.Jovian, OpFork.Jovian, OP), want);
    // Before Jovian the footprint field is not metered.
    const preJovian: BaseFeeParent = {
      ...parent(30_000_000, 1_000_000, 10_000_000n, encodeHoloceneExtraData(10, 2)),
      blobGasUsed: 20_000_000,
    };
    assert.notEqual(nextBaseFeeOp(preJovian, true, OpFork.Isthmus, OpFork.Isthmus, OP), want);
  });

  it("OP: a Holocene parent with malformed extraData yields null; pre-London parents give 1 gwei", () => {
    const bad = parent(30_000_000, 0, 10n, new Uint8Array(0));
    assert.equal(nextBaseFeeOp(bad, true, OpFork.Holocene, OpFork.Holocene, OP), null);
    assert.equal(nextBaseFeeOp(bad, true, OpFork.Jovian, OpFork.Jovian, OP), null);
    const holoceneFormatUnderJovian = parent(30_000_000, 0, 10n, encodeHoloceneExtraData(10, 2));
    assert.equal(nextBaseFeeOp(holoceneFormatUnderJovian, true, OpFork.Jovian, OpFork.Jovian, OP), null);
    assert.equal(nextBaseFeeOp(bad, false, OpFork.Bedrock, OpFork.Bedrock, OP), INITIAL_BASE_FEE);
  });

  it("moves by at least 1 wei upward and never below 0", () => {
    // A parent base fee of 1 wei above target: the computed delta rounds to 0, EIP-1559 adds 1.
    assert.equal(calcBaseFee(11_000_000, 20_000_000n, 1n, 2, 8), 2n);
    assert.equal(calcBaseFee(0, 20_000_000n, 0n, 2, 8), 0n);
  });
});
