/**
 * block/blobGas against go-ethereum `consensus/misc/eip4844/eip4844_test.go` vectors
 * (TestFakeExponential, TestCalcBlobFee, TestCalcExcessBlobGas, TestCalcBlobFeePostOsaka,
 * TestCalcExcessBlobGasEIP7918). The fixture chains (test/spec/headerRules.test.ts) check it further.
 */
import { strict as assert } from "node:assert";
import {
  BLOB_BASE_COST,
  blobBaseFee,
  calcExcessBlobGas,
  fakeExponential,
  GAS_PER_BLOB,
  maxBlobGasPerBlock,
} from "../../../src/block/blobGas.js";
import { DEFAULT_CANCUN_BLOB_PARAMS, DEFAULT_PRAGUE_BLOB_PARAMS } from "../../../src/spec/chainConfig.js";

describe("block/blobGas", () => {
  it("constants (EIP-4844, EIP-7918)", () => {
    assert.equal(GAS_PER_BLOB, 2 ** 17);
    assert.equal(BLOB_BASE_COST, 2n ** 13n);
    assert.equal(maxBlobGasPerBlock(DEFAULT_CANCUN_BLOB_PARAMS), 6 * 131072);
  });

  it("fakeExponential: geth TestFakeExponential", () => {
    const cases: [bigint, bigint, bigint, bigint][] = [
      [1n, 0n, 1n, 1n],
      [38493n, 0n, 1000n, 38493n],
      [0n, 1234n, 2345n, 0n],
      [1n, 2n, 1n, 6n],
      [1n, 4n, 2n, 6n],
      [1n, 3n, 1n, 16n],
      [1n, 6n, 2n, 18n],
      [1n, 4n, 1n, 49n],
      [1n, 8n, 2n, 50n],
      [10n, 8n, 2n, 542n],
      [11n, 8n, 2n, 596n],
      [1n, 5n, 1n, 136n],
      [1n, 5n, 2n, 11n],
      [2n, 5n, 2n, 23n],
      [1n, 50000000n, 2225652n, 5709098764n],
    ];
    for (const [f, n, d, want] of cases) assert.equal(fakeExponential(f, n, d), want, `${f} ${n} ${d}`);
  });

  it("blobBaseFee: geth TestCalcBlobFee (Cancun update fraction)", () => {
    const cases: [number, bigint][] = [
      [0, 1n],
      [2314057, 1n],
      [2314058, 2n],
      [10 * 1024 * 1024, 23n],
    ];
    for (const [excess, want] of cases) {
      assert.equal(blobBaseFee(excess, DEFAULT_CANCUN_BLOB_PARAMS.baseFeeUpdateFraction), want, `${excess}`);
    }
  });

  it("calcExcessBlobGas: geth TestCalcExcessBlobGas (Cancun)", () => {
    const target = DEFAULT_CANCUN_BLOB_PARAMS.target;
    const targetGas = target * GAS_PER_BLOB;
    const cases: [number, number, number][] = [
      [0, 0, 0],
      [0, 1, 0],
      [0, target, 0],
      [0, target + 1, GAS_PER_BLOB],
      [1, target + 1, GAS_PER_BLOB + 1],
      [1, target + 2, 2 * GAS_PER_BLOB + 1],
      [targetGas, target, targetGas],
      [targetGas, target - 1, targetGas - GAS_PER_BLOB],
      [targetGas, target - 2, targetGas - 2 * GAS_PER_BLOB],
      [GAS_PER_BLOB - 1, target - 1, 0],
    ];
    for (const [excess, blobs, want] of cases) {
      const got = calcExcessBlobGas(excess, blobs * GAS_PER_BLOB, 0n, DEFAULT_CANCUN_BLOB_PARAMS, false);
      assert.equal(got, want, `${excess} ${blobs}`);
    }
  });

  it("calcExcessBlobGas: geth TestCalcBlobFeePostOsaka (BPO schedules, EIP-7918)", () => {
    const bpo1 = { target: 9, max: 14, baseFeeUpdateFraction: 8832827 };
    const bpo3 = { target: 21, max: 32, baseFeeUpdateFraction: 20609697 };
    assert.equal(calcExcessBlobGas(5149252, 1310720, 30n, bpo1, true), 5617366);
    assert.equal(calcExcessBlobGas(19251039, 2490368, 50n, bpo3, true), 20107103);
  });

  it("calcExcessBlobGas: geth TestCalcExcessBlobGasEIP7918 (reserve price, Prague parameters)", () => {
    const p = DEFAULT_PRAGUE_BLOB_PARAMS;
    const targetGas = p.target * GAS_PER_BLOB;
    // Below the reserve price the excess grows by used * (max - target) / max.
    assert.equal(calcExcessBlobGas(0, targetGas, 1_000_000_000n, p, true), (targetGas * 3) / 9);
    // Above it, the EIP-4844 rule applies.
    assert.equal(calcExcessBlobGas(0, targetGas, 1n, p, true), 0);
    // Without Osaka the reserve price never applies.
    assert.equal(calcExcessBlobGas(0, targetGas, 1_000_000_000n, p, false), 0);
  });
});
