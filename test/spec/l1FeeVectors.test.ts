/**
 * OP Stack L1-fee / operator-fee vectors (../shared/fixtures/op-stack/l1-fee-vectors.json, numbers
 * transcribed from op-geth rollup_cost_test.go and op-revm l1block.rs / fast_lz.rs; SOURCE.md §4).
 * Every fee case (31) and every FastLZ length (7) must pass; the counts are printed.
 *
 * Case shapes: `tx` + fork (fee, l1GasUsed, FastLZ length of the tx), `fastLzSize` + fork (Fjord
 * bounds on a bare FastLZ length), `gas` (operator fee), `tx_gasLimit` (L1 fee + operator fee),
 * `dataGas` (l1GasUsed per fork, no overhead), operator-fee formulas and refund.
 */
import { strict as assert } from "node:assert";
import { daFootprintOfSize, estimatedDaSize } from "../../src/executor/op/daFootprint.js";
import { fastLzCompressedLength } from "../../src/executor/op/fastLz.js";
import { fjordL1Cost, fjordL1GasUsed, l1Cost, l1GasUsed, l1ReceiptFields } from "../../src/executor/op/l1Cost.js";
import { operatorFee, operatorFeeRefund } from "../../src/executor/op/operatorFee.js";
import { hexToBytes } from "../../src/primitives/hex.js";
import { type ForkRules, OpFork, opRules } from "../../src/spec/forks.js";
import { encodeTx } from "../../src/tx/envelope.js";
import { type L1BlockInfo, newL1BlockInfo } from "../../src/tx/l1BlockInfo.js";
import { TxType } from "../../src/tx/tx.js";
import { fixturePath, readJson } from "../utils/fixtures.js";

type Json = any;

interface FeeCase {
  id: string;
  fork?: string;
  tx?: string;
  fastLzSize?: string;
  gas?: string;
  tx_gasLimit?: string;
  gasLimit?: string;
  gasUsed?: string;
  params?: Record<string, string>;
  expected: Record<string, Json>;
}

interface FlzCase {
  name: string;
  input: string;
  expected: string;
}

interface Vectors {
  cases: FeeCase[];
  fastlz_compress_len: FlzCase[];
}

const FORKS: Record<string, OpFork> = {
  bedrock: OpFork.Bedrock,
  regolith: OpFork.Regolith,
  ecotone: OpFork.Ecotone,
  fjord: OpFork.Fjord,
  isthmus: OpFork.Isthmus,
  jovian: OpFork.Jovian,
};

function rulesOf(fork: string): ForkRules {
  const op = FORKS[fork.split(" ")[0]];
  assert.ok(op !== undefined, `unknown fork "${fork}"`);
  return opRules(op);
}

/**
 * The vector's parameters as L1 attributes. A parenthesised fork note ("ecotone (first block …)",
 * "ecotone (scalars unset …)") describes the Ecotone activation block, whose L1Block state has no
 * blob base fee and no Ecotone scalars yet: those are zeroed (op-revm's `empty_ecotone_scalars`).
 */
function infoOf(c: FeeCase, extra: Partial<L1BlockInfo> = {}): L1BlockInfo {
  const p = c.params ?? {};
  const activation = c.fork?.includes("(") === true;
  return newL1BlockInfo({
    baseFee: BigInt(p.l1BaseFee ?? 0),
    blobBaseFee: activation ? 0n : BigInt(p.blobBaseFee ?? 0),
    baseFeeScalar: activation ? 0 : Number(p.baseFeeScalar ?? 0),
    blobBaseFeeScalar: activation ? 0 : Number(p.blobBaseFeeScalar ?? 0),
    l1FeeOverhead: BigInt(p.overhead ?? 0),
    l1FeeScalar: BigInt(p.scalar ?? 0),
    operatorFeeScalar: Number(p.operatorFeeScalar ?? 0),
    operatorFeeConstant: BigInt(p.operatorFeeConstant ?? 0),
    ...extra,
  });
}

function txOf(c: FeeCase): Uint8Array {
  return hexToBytes(c.tx as string);
}

/** Runs one fee case; returns false if its shape is not recognised. */
function runCase(c: FeeCase): boolean {
  const e = c.expected;
  if (e.dataGas !== undefined) {
    // op-revm's data gas: l1GasUsed without overhead. Fjord's needs a block past the Ecotone
    // activation (non-empty Ecotone parameters), else the Regolith formula would apply.
    for (const [fork, want] of Object.entries(e.dataGas as Record<string, string>)) {
      const info = infoOf(c, { blobBaseFee: fork === "fjord" ? 1n : 0n });
      assert.equal(l1GasUsed(txOf(c), info, rulesOf(fork)), BigInt(want), `${c.id} dataGas ${fork}`);
    }
    return true;
  }
  if (e.operatorFeeRefund !== undefined) {
    const got = operatorFeeRefund(Number(c.gasLimit), Number(c.gasUsed), infoOf(c), rulesOf(c.fork as string));
    assert.equal(got, BigInt(e.operatorFeeRefund), `${c.id} refund`);
    return true;
  }
  if (e.operatorFee !== undefined) {
    const gas = Number(c.gas);
    if (typeof e.operatorFee === "object") {
      for (const [fork, want] of Object.entries(e.operatorFee as Record<string, string>)) {
        assert.equal(operatorFee(gas, infoOf(c), rulesOf(fork)), BigInt(want), `${c.id} ${fork}`);
      }
    } else {
      assert.equal(operatorFee(gas, infoOf(c), rulesOf(c.fork as string)), BigInt(e.operatorFee), c.id);
    }
    return true;
  }
  if (c.tx_gasLimit !== undefined) {
    // op-geth's emptyTx (legacy, unsigned, to 0x095e…2d87, everything else zero) with this gas limit.
    const gasLimit = Number(c.tx_gasLimit);
    const tx = encodeTx({
      type: TxType.Legacy,
      nonce: 0n,
      gasPrice: 0n,
      gasLimit: BigInt(gasLimit),
      to: hexToBytes("0x095e7baea6a6c7c4c2dfeb977efac326af552d87"),
      value: 0n,
      data: new Uint8Array(0),
      v: 0n,
      r: 0n,
      s: 0n,
    });
    for (const [key, want] of Object.entries(e as Record<string, string>)) {
      const rules = rulesOf(key.startsWith("preIsthmus") ? "fjord" : key);
      const total = l1Cost(tx, infoOf(c), rules) + operatorFee(gasLimit, infoOf(c), rules);
      assert.equal(total, BigInt(want), `${c.id} ${key}`);
    }
    return true;
  }
  if (c.fastLzSize !== undefined) {
    const n = Number(c.fastLzSize);
    const info = infoOf(c);
    const fee = fjordL1Cost(n, info);
    const gasUsed = fjordL1GasUsed(n);
    if (e.fee !== undefined) assert.equal(fee, BigInt(e.fee), `${c.id} fee`);
    if (e.l1GasUsed !== undefined) assert.equal(gasUsed, BigInt(e.l1GasUsed), `${c.id} l1GasUsed`);
    if (e.feeGreaterThan !== undefined) assert.ok(fee > BigInt(e.feeGreaterThan), `${c.id} fee ${fee}`);
    if (e.l1GasUsedGreaterThan !== undefined) {
      assert.ok(gasUsed > BigInt(e.l1GasUsedGreaterThan), `${c.id} l1GasUsed ${gasUsed}`);
    }
    return e.fee !== undefined || e.feeGreaterThan !== undefined;
  }
  if (c.tx !== undefined && e.fee !== undefined) {
    const tx = txOf(c);
    const info = infoOf(c);
    const rules = rulesOf(c.fork as string);
    assert.equal(l1Cost(tx, info, rules), BigInt(e.fee), `${c.id} fee`);
    if (e.l1GasUsed !== undefined) assert.equal(l1GasUsed(tx, info, rules), BigInt(e.l1GasUsed), `${c.id} l1GasUsed`);
    if (e.fastLzSize !== undefined) assert.equal(fastLzCompressedLength(tx), Number(e.fastLzSize), `${c.id} flz`);
    // The receipt carries the same fee and gas (deposits carry none).
    const fields = l1ReceiptFields(tx, info, rules);
    if (tx.length > 0 && tx[0] === 0x7e) assert.equal(fields, null, `${c.id} deposit receipt fields`);
    else {
      assert.equal(fields?.l1Fee, BigInt(e.fee), `${c.id} receipt l1Fee`);
      if (e.l1GasUsed !== undefined) assert.equal(fields?.l1GasUsed, BigInt(e.l1GasUsed), `${c.id} receipt gas`);
    }
    return true;
  }
  return false;
}

describe("spec: OP Stack L1-fee vectors", () => {
  const vectors = readJson<Vectors>(fixturePath("op-stack", "l1-fee-vectors.json"));
  let feePassed = 0;
  let flzPassed = 0;
  after(() => {
    console.log(
      `\n  l1-fee vectors: ${feePassed}/${vectors.cases.length} fee cases, ` +
        `${flzPassed}/${vectors.fastlz_compress_len.length} FastLZ lengths`,
    );
  });

  it("has the 31 fee cases and 7 FastLZ lengths SOURCE.md lists", () => {
    assert.equal(vectors.cases.length, 31);
    assert.equal(vectors.fastlz_compress_len.length, 7);
  });

  for (const c of vectors.cases) {
    it(c.id, () => {
      assert.ok(runCase(c), `${c.id}: case shape not recognised`);
      feePassed++;
    });
  }

  for (const f of vectors.fastlz_compress_len) {
    it(`fastlz_compress_len: ${f.name}`, () => {
      const input = hexToBytes(f.input);
      const n = fastLzCompressedLength(input);
      assert.equal(n, Number(f.expected));
      // The Jovian DA estimate is built on the same length.
      assert.equal(daFootprintOfSize(n, 1), estimatedDaSize(n));
      flzPassed++;
    });
  }
});
