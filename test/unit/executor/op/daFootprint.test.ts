/**
 * Jovian DA footprint: the Fjord size estimate (floor at 100 bytes), per-tx footprints, and the
 * block's `blobGasUsed` with op-geth `CalcDAFootprint`'s validity rules. Expected values are
 * recomputed here from the spec formula.
 */
import { strict as assert } from "node:assert";
import {
  blockDaFootprint,
  estimatedDaSize,
  estimatedDaSizeScaled,
  jovianBlobGasUsed,
  txDaFootprint,
} from "../../../../src/executor/op/daFootprint.js";
import { fastLzCompressedLength } from "../../../../src/executor/op/fastLz.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { L1InfoFormat, newL1BlockInfo } from "../../../../src/tx/l1BlockInfo.js";
import { depositTx, feeMarketTx, signedSamples } from "../../tx/builders.js";

/** The spec's `max(minTransactionSize, (intercept + fastlzCoef * fastlzSize) // 1e6)`, floor division. */
function specEstimate(flz: number): number {
  const v = -42_585_600n + 836_500n * BigInt(flz);
  const floor = v >= 0n ? v / 1_000_000n : -((-v + 999_999n) / 1_000_000n);
  return Number(floor > 100n ? floor : 100n);
}

const USER = signedSamples().map((s) => encodeTx(s.tx));
const DEPOSIT = encodeTx(depositTx());
const JOVIAN = newL1BlockInfo({ format: L1InfoFormat.Jovian, daFootprintGasScalar: 400 });
const ISTHMUS = newL1BlockInfo({ format: L1InfoFormat.Isthmus });

describe("executor/op/daFootprint", () => {
  it("estimates the batch size with the Fjord model, at least 100 bytes", () => {
    for (let flz = 0; flz < 5000; flz++) {
      assert.equal(estimatedDaSize(flz), specEstimate(flz), `flz ${flz}`);
      const scaled = -42_585_600 + 836_500 * flz;
      assert.equal(estimatedDaSizeScaled(flz), Math.max(100_000_000, scaled));
    }
    // The floor holds up to a FastLZ length of 170; 171 is the first above it.
    assert.equal(estimatedDaSizeScaled(170), 100_000_000);
    assert.ok(estimatedDaSizeScaled(171) > 100_000_000);
  });

  it("gives deposits no footprint and user txs estimate × scalar", () => {
    assert.equal(txDaFootprint(DEPOSIT, 400), 0);
    for (const tx of USER) {
      assert.equal(txDaFootprint(tx, 400), specEstimate(fastLzCompressedLength(tx)) * 400);
      assert.equal(txDaFootprint(tx, 0), 0);
    }
    const big = encodeTx(feeMarketTx({ data: Uint8Array.from({ length: 4000 }, (_, i) => (i * 131) % 251) }));
    assert.ok(txDaFootprint(big, 1) > 100);
  });

  it("sums a block's footprints", () => {
    const txs = [DEPOSIT, ...USER];
    const want = USER.reduce((s, tx) => s + specEstimate(fastLzCompressedLength(tx)) * 800, 0);
    assert.equal(blockDaFootprint(txs, 800), want);
    assert.equal(blockDaFootprint([DEPOSIT, DEPOSIT], 800), 0);
  });

  it("computes a Jovian header's blobGasUsed with CalcDAFootprint's checks", () => {
    const txs = [DEPOSIT, ...USER];
    assert.equal(jovianBlobGasUsed(JOVIAN, txs), blockDaFootprint(txs, 400));
    assert.equal(jovianBlobGasUsed(JOVIAN, [DEPOSIT]), 0);
    // The activation block (Isthmus-format L1 info) holds deposits only and has footprint 0.
    assert.equal(jovianBlobGasUsed(ISTHMUS, [DEPOSIT, DEPOSIT]), 0);
    assert.equal(jovianBlobGasUsed(ISTHMUS, txs), null);
    // Invalid: no txs, a first tx that is not a deposit, no parseable L1 info, an older format.
    assert.equal(jovianBlobGasUsed(JOVIAN, []), null);
    assert.equal(jovianBlobGasUsed(JOVIAN, [USER[0], DEPOSIT]), null);
    assert.equal(jovianBlobGasUsed(null, txs), null);
    assert.equal(jovianBlobGasUsed(newL1BlockInfo({ format: L1InfoFormat.Ecotone }), txs), null);
  });
});
