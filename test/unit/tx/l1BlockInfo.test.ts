/**
 * L1-attributes calldata: selectors are keccak256 of the spec signatures, each format parses from a
 * buffer laid out by hand from the spec tables (specs/protocol/deposits.md, ecotone/isthmus/jovian
 * l1-attributes.md), encode(parse(x)) = x, and bad input yields null.
 */
import { strict as assert } from "node:assert";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { utf8ToBytes } from "../../../src/primitives/bytes.js";
import {
  BEDROCK_L1_INFO_SELECTOR,
  DA_FOOTPRINT_GAS_SCALAR_DEFAULT,
  ECOTONE_L1_INFO_SELECTOR,
  encodeL1BlockInfo,
  ISTHMUS_L1_INFO_SELECTOR,
  JOVIAN_L1_INFO_SELECTOR,
  type L1BlockInfo,
  L1InfoFormat,
  newL1BlockInfo,
  parseL1BlockInfo,
} from "../../../src/tx/l1BlockInfo.js";

function selectorOf(signature: string): number {
  const h = keccak256(utf8ToBytes(signature));
  return ((h[0] << 24) | (h[1] << 16) | (h[2] << 8) | h[3]) >>> 0;
}

/** Writes `v` big-endian into `out[pos..pos+len)`. */
function put(out: Uint8Array, pos: number, len: number, v: bigint): void {
  for (let i = len - 1; i >= 0; i--) {
    out[pos + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

const HASH = Uint8Array.from({ length: 32 }, (_, i) => 0xa0 + i);
const BATCHER = new Uint8Array(32);
BATCHER.set(
  Uint8Array.from({ length: 20 }, (_, i) => i + 1),
  12,
);

/** Distinct, width-filling values so a swapped or shifted field cannot go unnoticed. */
const V = {
  number: 0x0102030405060708n,
  timestamp: 0x1112131415161718n,
  baseFee: (1n << 200n) + 0x21n,
  blobBaseFee: (1n << 190n) + 0x31n,
  sequenceNumber: 0x4142434445464748n,
  overhead: 188n,
  scalar: 684_000n,
  baseFeeScalar: 0xdeadbeef,
  blobBaseFeeScalar: 0x01020304,
  operatorFeeScalar: 0xfedcba98,
  operatorFeeConstant: 0xffffffffffffffffn,
  daFootprintGasScalar: 0xbeef,
};

function bedrockCalldata(): Uint8Array {
  const b = new Uint8Array(260);
  put(b, 0, 4, BigInt(selectorOf("setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)")));
  put(b, 4, 32, V.number);
  put(b, 36, 32, V.timestamp);
  put(b, 68, 32, V.baseFee);
  b.set(HASH, 100);
  put(b, 132, 32, V.sequenceNumber);
  b.set(BATCHER, 164);
  put(b, 196, 32, V.overhead);
  put(b, 228, 32, V.scalar);
  return b;
}

/** Ecotone layout; Isthmus and Jovian append to it. */
function packedCalldata(signature: string, length: number): Uint8Array {
  const b = new Uint8Array(length);
  put(b, 0, 4, BigInt(selectorOf(signature)));
  put(b, 4, 4, BigInt(V.baseFeeScalar));
  put(b, 8, 4, BigInt(V.blobBaseFeeScalar));
  put(b, 12, 8, V.sequenceNumber);
  put(b, 20, 8, V.timestamp);
  put(b, 28, 8, V.number);
  put(b, 36, 32, V.baseFee);
  put(b, 68, 32, V.blobBaseFee);
  b.set(HASH, 100);
  b.set(BATCHER, 132);
  if (length >= 176) {
    put(b, 164, 4, BigInt(V.operatorFeeScalar));
    put(b, 168, 8, V.operatorFeeConstant);
  }
  if (length >= 178) put(b, 176, 2, BigInt(V.daFootprintGasScalar));
  return b;
}

const FORMATS: { format: L1InfoFormat; calldata: () => Uint8Array }[] = [
  { format: L1InfoFormat.Bedrock, calldata: bedrockCalldata },
  { format: L1InfoFormat.Ecotone, calldata: () => packedCalldata("setL1BlockValuesEcotone()", 164) },
  { format: L1InfoFormat.Isthmus, calldata: () => packedCalldata("setL1BlockValuesIsthmus()", 176) },
  { format: L1InfoFormat.Jovian, calldata: () => packedCalldata("setL1BlockValuesJovian()", 178) },
];

describe("tx/l1BlockInfo", () => {
  it("uses the selectors of the spec signatures", () => {
    assert.equal(
      BEDROCK_L1_INFO_SELECTOR,
      selectorOf("setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)"),
    );
    assert.equal(ECOTONE_L1_INFO_SELECTOR, selectorOf("setL1BlockValuesEcotone()"));
    assert.equal(ISTHMUS_L1_INFO_SELECTOR, selectorOf("setL1BlockValuesIsthmus()"));
    assert.equal(JOVIAN_L1_INFO_SELECTOR, selectorOf("setL1BlockValuesJovian()"));
  });

  it("parses the Bedrock ABI layout", () => {
    const info = parseL1BlockInfo(bedrockCalldata()) as L1BlockInfo;
    assert.ok(info);
    assert.equal(info.format, L1InfoFormat.Bedrock);
    assert.equal(info.number, V.number);
    assert.equal(info.timestamp, V.timestamp);
    assert.equal(info.baseFee, V.baseFee);
    assert.deepEqual(info.hash, HASH);
    assert.equal(info.sequenceNumber, V.sequenceNumber);
    assert.deepEqual(info.batcherHash, BATCHER);
    assert.equal(info.l1FeeOverhead, V.overhead);
    assert.equal(info.l1FeeScalar, V.scalar);
    // Not in the Bedrock call.
    assert.equal(info.blobBaseFee, 0n);
    assert.equal(info.baseFeeScalar, 0);
    assert.equal(info.blobBaseFeeScalar, 0);
    assert.equal(info.operatorFeeScalar, 0);
    assert.equal(info.operatorFeeConstant, 0n);
    assert.equal(info.daFootprintGasScalar, 0);
  });

  for (const { format, calldata } of FORMATS.slice(1)) {
    it(`parses the ${L1InfoFormat[format]} packed layout`, () => {
      const info = parseL1BlockInfo(calldata()) as L1BlockInfo;
      assert.ok(info);
      assert.equal(info.format, format);
      assert.equal(info.baseFeeScalar, V.baseFeeScalar);
      assert.equal(info.blobBaseFeeScalar, V.blobBaseFeeScalar);
      assert.equal(info.sequenceNumber, V.sequenceNumber);
      assert.equal(info.timestamp, V.timestamp);
      assert.equal(info.number, V.number);
      assert.equal(info.baseFee, V.baseFee);
      assert.equal(info.blobBaseFee, V.blobBaseFee);
      assert.deepEqual(info.hash, HASH);
      assert.deepEqual(info.batcherHash, BATCHER);
      assert.equal(info.l1FeeOverhead, 0n);
      assert.equal(info.l1FeeScalar, 0n);
      const isthmus = format >= L1InfoFormat.Isthmus;
      assert.equal(info.operatorFeeScalar, isthmus ? V.operatorFeeScalar : 0);
      assert.equal(info.operatorFeeConstant, isthmus ? V.operatorFeeConstant : 0n);
      assert.equal(info.daFootprintGasScalar, format === L1InfoFormat.Jovian ? V.daFootprintGasScalar : 0);
    });
  }

  for (const { format, calldata } of FORMATS) {
    it(`round-trips ${L1InfoFormat[format]} calldata byte for byte`, () => {
      const bytes = calldata();
      const info = parseL1BlockInfo(bytes) as L1BlockInfo;
      assert.deepEqual(encodeL1BlockInfo(info), bytes);
      assert.deepEqual(encodeL1BlockInfo(info, format), bytes);
      assert.deepEqual(parseL1BlockInfo(encodeL1BlockInfo(info)), info);
    });
  }

  it("copies the hashes out of the calldata", () => {
    const bytes = packedCalldata("setL1BlockValuesEcotone()", 164);
    const info = parseL1BlockInfo(bytes) as L1BlockInfo;
    bytes.fill(0);
    assert.deepEqual(info.hash, HASH);
    assert.deepEqual(info.batcherHash, BATCHER);
  });

  it("re-encodes one block's attributes in each later format (the sequencer's path)", () => {
    const ecotone = parseL1BlockInfo(packedCalldata("setL1BlockValuesEcotone()", 164)) as L1BlockInfo;
    const asJovian = parseL1BlockInfo(
      encodeL1BlockInfo({ ...ecotone, daFootprintGasScalar: 400 }, L1InfoFormat.Jovian),
    );
    assert.ok(asJovian);
    assert.equal(asJovian.format, L1InfoFormat.Jovian);
    assert.equal(asJovian.baseFee, ecotone.baseFee);
    assert.equal(asJovian.daFootprintGasScalar, 400);
    assert.equal(asJovian.operatorFeeScalar, 0);
  });

  it("writes op-node's DAFootprintGasScalarDefault, 400, for a SystemConfig scalar of 0", () => {
    // SPEC: jovian/l1-attributes.md; op-node derive.DAFootprintGasScalarDefault.
    assert.equal(DA_FOOTPRINT_GAS_SCALAR_DEFAULT, 400);
  });

  it("returns null for an unknown selector or a wrong length, without throwing", () => {
    for (const { calldata } of FORMATS) {
      const good = calldata();
      assert.equal(parseL1BlockInfo(good.subarray(0, good.length - 1)), null);
      const longer = new Uint8Array(good.length + 1);
      longer.set(good);
      assert.equal(parseL1BlockInfo(longer), null);
      const badSelector = good.slice();
      badSelector[0] ^= 0xff;
      assert.equal(parseL1BlockInfo(badSelector), null);
    }
    // An Isthmus selector with the Ecotone length, a Jovian selector with the Isthmus length.
    const ecotoneLong = packedCalldata("setL1BlockValuesIsthmus()", 164);
    assert.equal(parseL1BlockInfo(ecotoneLong), null);
    const jovianShort = packedCalldata("setL1BlockValuesJovian()", 176);
    assert.equal(parseL1BlockInfo(jovianShort), null);
    assert.equal(parseL1BlockInfo(new Uint8Array(0)), null);
    assert.equal(parseL1BlockInfo(Uint8Array.of(0x44, 0x0a, 0x5e)), null);
  });

  it("rejects values that do not fit their slots when encoding", () => {
    const base = newL1BlockInfo({ format: L1InfoFormat.Jovian });
    assert.throws(() => encodeL1BlockInfo({ ...base, number: 1n << 64n }), RangeError);
    assert.throws(() => encodeL1BlockInfo({ ...base, baseFeeScalar: 2 ** 32 }), RangeError);
    assert.throws(() => encodeL1BlockInfo({ ...base, operatorFeeConstant: -1n }), RangeError);
    assert.throws(() => encodeL1BlockInfo({ ...base, daFootprintGasScalar: 65536 }), RangeError);
    assert.throws(() => encodeL1BlockInfo({ ...base, hash: new Uint8Array(31) }), RangeError);
    // The Bedrock words are whole u256s.
    const wide = encodeL1BlockInfo({ ...base, number: 1n << 64n }, L1InfoFormat.Bedrock);
    assert.equal(parseL1BlockInfo(wide)?.number, 1n << 64n);
  });
});
