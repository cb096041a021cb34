/**
 * L1 cost per fork, fork boundaries, the Ecotone activation-block fallback, deposits, and the
 * receipt fields op-geth adds per fork. Expected fees are recomputed here from the spec formulas
 * with their own byte counting (the FastLZ length itself is pinned by fastLz.test.ts and the vectors).
 */
import { strict as assert } from "node:assert";
import { estimatedDaSize, txDaFootprint } from "../../../../src/executor/op/daFootprint.js";
import { fastLzCompressedLength } from "../../../../src/executor/op/fastLz.js";
import {
  formatFeeScalar,
  L1CostModel,
  l1Cost,
  l1CostModel,
  l1GasUsed,
  l1ReceiptFields,
  rollupCostData,
} from "../../../../src/executor/op/l1Cost.js";
import { Fork, l1Rules, OpFork, opRules } from "../../../../src/spec/forks.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { type L1BlockInfo, newL1BlockInfo } from "../../../../src/tx/l1BlockInfo.js";
import { depositTx, signedSamples } from "../../tx/builders.js";

const BEDROCK_INFO = newL1BlockInfo({ baseFee: 30_000_000_000n, l1FeeOverhead: 188n, l1FeeScalar: 684_000n });
const ECOTONE_INFO = newL1BlockInfo({
  baseFee: 30_000_000_000n,
  blobBaseFee: 7n,
  baseFeeScalar: 1368,
  blobBaseFeeScalar: 810_949,
});
const OP_FORKS = Object.values(OpFork).filter((v): v is OpFork => typeof v === "number");

const TXS = signedSamples().map((s) => ({ name: s.name, bytes: encodeTx(s.tx) }));
const DEPOSIT = encodeTx(depositTx());

function counts(tx: Uint8Array): { zeroes: bigint; ones: bigint } {
  let zeroes = 0n;
  for (const b of tx) if (b === 0) zeroes++;
  return { zeroes, ones: BigInt(tx.length) - zeroes };
}

function bedrockFee(tx: Uint8Array, info: L1BlockInfo, padding: boolean): bigint {
  const { zeroes, ones } = counts(tx);
  const gas = zeroes * 4n + (ones + (padding ? 68n : 0n)) * 16n + info.l1FeeOverhead;
  return (gas * info.baseFee * info.l1FeeScalar) / 1_000_000n;
}

function perByte(info: L1BlockInfo): bigint {
  return info.baseFee * 16n * BigInt(info.baseFeeScalar) + info.blobBaseFee * BigInt(info.blobBaseFeeScalar);
}

function ecotoneFee(tx: Uint8Array, info: L1BlockInfo): bigint {
  const { zeroes, ones } = counts(tx);
  return ((zeroes * 4n + ones * 16n) * perByte(info)) / 16_000_000n;
}

function fjordSizeScaled(tx: Uint8Array): bigint {
  const est = -42_585_600n + 836_500n * BigInt(fastLzCompressedLength(tx));
  return est < 100_000_000n ? 100_000_000n : est;
}

describe("executor/op/l1Cost", () => {
  it("picks the formula per fork, with the Ecotone activation block on Regolith's", () => {
    const empty = newL1BlockInfo({ baseFee: 1n });
    for (const op of OP_FORKS) {
      const rules = opRules(op);
      const populated =
        op < OpFork.Regolith
          ? L1CostModel.Bedrock
          : op < OpFork.Ecotone
            ? L1CostModel.Regolith
            : op < OpFork.Fjord
              ? L1CostModel.Ecotone
              : L1CostModel.Fjord;
      assert.equal(l1CostModel(ECOTONE_INFO, rules), populated, OpFork[op]);
      const activation = op < OpFork.Regolith ? L1CostModel.Bedrock : L1CostModel.Regolith;
      assert.equal(l1CostModel(empty, rules), activation, `${OpFork[op]} without Ecotone parameters`);
    }
    // Any one Ecotone parameter set means the block is past the activation block.
    for (const one of [{ blobBaseFee: 1n }, { baseFeeScalar: 1 }, { blobBaseFeeScalar: 1 }]) {
      assert.equal(l1CostModel(newL1BlockInfo(one), opRules(OpFork.Ecotone)), L1CostModel.Ecotone);
    }
    assert.equal(l1CostModel(ECOTONE_INFO, l1Rules(Fork.Prague)), L1CostModel.None);
  });

  it("charges Bedrock with 68 padding bytes and Regolith–Delta without", () => {
    for (const { name, bytes } of TXS) {
      assert.equal(l1Cost(bytes, BEDROCK_INFO, opRules(OpFork.Bedrock)), bedrockFee(bytes, BEDROCK_INFO, true), name);
      for (const op of [OpFork.Regolith, OpFork.Canyon, OpFork.Delta]) {
        assert.equal(l1Cost(bytes, BEDROCK_INFO, opRules(op)), bedrockFee(bytes, BEDROCK_INFO, false), name);
      }
      const { zeroes, ones } = counts(bytes);
      assert.equal(
        l1GasUsed(bytes, BEDROCK_INFO, opRules(OpFork.Bedrock)),
        zeroes * 4n + (ones + 68n) * 16n + BEDROCK_INFO.l1FeeOverhead,
      );
    }
  });

  it("charges Ecotone on calldata gas and Fjord+ on the FastLZ estimate", () => {
    for (const { name, bytes } of TXS) {
      assert.equal(l1Cost(bytes, ECOTONE_INFO, opRules(OpFork.Ecotone)), ecotoneFee(bytes, ECOTONE_INFO), name);
      const { zeroes, ones } = counts(bytes);
      assert.equal(l1GasUsed(bytes, ECOTONE_INFO, opRules(OpFork.Ecotone)), zeroes * 4n + ones * 16n, name);
      for (const op of [OpFork.Fjord, OpFork.Granite, OpFork.Holocene, OpFork.Isthmus, OpFork.Jovian]) {
        const want = (fjordSizeScaled(bytes) * perByte(ECOTONE_INFO)) / 1_000_000_000_000n;
        assert.equal(l1Cost(bytes, ECOTONE_INFO, opRules(op)), want, `${name} ${OpFork[op]}`);
        assert.equal(l1GasUsed(bytes, ECOTONE_INFO, opRules(op)), (fjordSizeScaled(bytes) * 16n) / 1_000_000n);
      }
    }
  });

  it("charges the Ecotone and Fjord activation blocks with the Regolith formula", () => {
    // First Ecotone block: the L1Block still holds only Bedrock values.
    for (const op of [OpFork.Ecotone, OpFork.Fjord]) {
      for (const { bytes } of TXS) {
        assert.equal(l1Cost(bytes, BEDROCK_INFO, opRules(op)), bedrockFee(bytes, BEDROCK_INFO, false));
      }
    }
  });

  it("charges nothing for deposits, empty input or non-OP rules", () => {
    for (const op of OP_FORKS) {
      for (const info of [BEDROCK_INFO, ECOTONE_INFO]) {
        assert.equal(l1Cost(DEPOSIT, info, opRules(op)), 0n);
        assert.equal(l1GasUsed(DEPOSIT, info, opRules(op)), 0n);
        assert.equal(l1Cost(new Uint8Array(0), info, opRules(op)), 0n);
      }
    }
    assert.equal(l1Cost(TXS[0].bytes, ECOTONE_INFO, l1Rules(Fork.Cancun)), 0n);
    assert.deepEqual(rollupCostData(DEPOSIT), { zeroes: 0, ones: 0, fastLzSize: 0 });
    const d = rollupCostData(TXS[0].bytes);
    assert.equal(d.zeroes + d.ones, TXS[0].bytes.length);
    assert.equal(d.fastLzSize, fastLzCompressedLength(TXS[0].bytes));
  });

  describe("receipt fields", () => {
    const tx = TXS[4].bytes; // EIP-1559
    const keys = (o: object | null): string[] => Object.keys(o ?? {}).sort();
    const common = ["l1Fee", "l1GasPrice", "l1GasUsed"];
    const ecotoneKeys = [...common, "l1BaseFeeScalar", "l1BlobBaseFee", "l1BlobBaseFeeScalar"].sort();

    it("carries l1FeeScalar before Ecotone and in its activation block only", () => {
      for (const op of [OpFork.Bedrock, OpFork.Regolith, OpFork.Delta, OpFork.Ecotone]) {
        const f = l1ReceiptFields(tx, BEDROCK_INFO, opRules(op));
        assert.deepEqual(keys(f), [...common, "l1FeeScalar"].sort(), OpFork[op]);
        assert.equal(f?.l1FeeScalar, "0.684");
        assert.equal(f?.l1GasPrice, BEDROCK_INFO.baseFee);
        assert.equal(f?.l1Fee, l1Cost(tx, BEDROCK_INFO, opRules(op)));
        assert.equal(f?.l1GasUsed, l1GasUsed(tx, BEDROCK_INFO, opRules(op)));
      }
    });

    it("carries the Ecotone scalars and blob base fee from Ecotone", () => {
      for (const op of [OpFork.Ecotone, OpFork.Fjord, OpFork.Holocene]) {
        const f = l1ReceiptFields(tx, ECOTONE_INFO, opRules(op));
        assert.deepEqual(keys(f), ecotoneKeys, OpFork[op]);
        assert.equal(f?.l1BaseFeeScalar, ECOTONE_INFO.baseFeeScalar);
        assert.equal(f?.l1BlobBaseFeeScalar, ECOTONE_INFO.blobBaseFeeScalar);
        assert.equal(f?.l1BlobBaseFee, ECOTONE_INFO.blobBaseFee);
        assert.equal(f?.l1Fee, l1Cost(tx, ECOTONE_INFO, opRules(op)));
      }
    });

    it("carries the operator fee parameters from Isthmus when either is non-zero", () => {
      assert.deepEqual(keys(l1ReceiptFields(tx, ECOTONE_INFO, opRules(OpFork.Isthmus))), ecotoneKeys);
      for (const op of [{ operatorFeeScalar: 5 }, { operatorFeeConstant: 9n }]) {
        const info = { ...ECOTONE_INFO, ...op };
        assert.deepEqual(keys(l1ReceiptFields(tx, info, opRules(OpFork.Holocene))), ecotoneKeys);
        const f = l1ReceiptFields(tx, info, opRules(OpFork.Isthmus));
        assert.deepEqual(keys(f), [...ecotoneKeys, "operatorFeeConstant", "operatorFeeScalar"].sort());
        assert.equal(f?.operatorFeeScalar, info.operatorFeeScalar);
        assert.equal(f?.operatorFeeConstant, info.operatorFeeConstant);
      }
    });

    it("carries the DA footprint scalar and the tx's footprint as blobGasUsed from Jovian", () => {
      const info = { ...ECOTONE_INFO, daFootprintGasScalar: 400 };
      assert.deepEqual(keys(l1ReceiptFields(tx, info, opRules(OpFork.Isthmus))), ecotoneKeys);
      const f = l1ReceiptFields(tx, info, opRules(OpFork.Jovian));
      assert.deepEqual(keys(f), [...ecotoneKeys, "blobGasUsed", "daFootprintGasScalar"].sort());
      assert.equal(f?.daFootprintGasScalar, 400);
      assert.equal(f?.blobGasUsed, estimatedDaSize(fastLzCompressedLength(tx)) * 400);
      assert.equal(f?.blobGasUsed, txDaFootprint(tx, 400));
    });

    it("is null for deposits and on non-OP chains", () => {
      assert.equal(l1ReceiptFields(DEPOSIT, ECOTONE_INFO, opRules(OpFork.Jovian)), null);
      assert.equal(l1ReceiptFields(tx, ECOTONE_INFO, l1Rules(Fork.Prague)), null);
    });
  });

  describe("formatFeeScalar (Go big.Float String: %g, 10 significant digits)", () => {
    it("prints plain decimals between 1e-4 and 1e10 without trailing zeros", () => {
      // For values with at most 10 significant digits in that range, JS's shortest round-trip
      // string of the (correctly rounded) double quotient is the same decimal.
      let seed = 99;
      for (let t = 0; t < 2000; t++) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        const digits = 1 + (seed % 10);
        const mant = BigInt(1 + ((Math.imul(seed, 2654435761) >>> 0) % 10 ** digits));
        let scalar = mant;
        const shift = (seed >>> 8) % 17;
        for (let i = 0; i < shift; i++) scalar *= 10n;
        if (scalar < 100n || scalar >= 10n ** 16n) continue;
        assert.equal(formatFeeScalar(scalar), String(Number(scalar) / 1e6), `scalar ${scalar}`);
      }
      assert.equal(formatFeeScalar(684_000n), "0.684");
      assert.equal(formatFeeScalar(1_000_000n), "1");
      assert.equal(formatFeeScalar(100n), "0.0001");
    });

    it("uses the exponent form below 1e-4 and from 1e10, with two exponent digits at least", () => {
      assert.equal(formatFeeScalar(0n), "0");
      assert.equal(formatFeeScalar(1n), "1e-06");
      assert.equal(formatFeeScalar(15n), "1.5e-05");
      assert.equal(formatFeeScalar(10n ** 16n), "1e+10");
      assert.equal(formatFeeScalar(12_345n * 10n ** 12n), "1.2345e+10");
      assert.equal(formatFeeScalar(10n ** 106n), "1e+100");
    });

    it("rounds to 10 significant digits", () => {
      // 12345678.901234 → 12345678.90 → trailing zero dropped.
      assert.equal(formatFeeScalar(12_345_678_901_234n), "12345678.9");
      // 99999.999999 → carries into 100000.
      assert.equal(formatFeeScalar(99_999_999_999n), "100000");
      // 123456.789016 → 123456.7890 (next digit 1) → trailing zero dropped.
      assert.equal(formatFeeScalar(123_456_789_016n), "123456.789");
    });
  });
});
