/**
 * rollup/derive/systemConfig: every ConfigUpdate type (specs/protocol/system-config.md and the
 * holocene/isthmus/jovian pages) applied from hand-built logs; the Ecotone scalar versioning; every
 * malformation skipped with a warning and the config left as it was; receipt filtering.
 */
import { strict as assert } from "node:assert";
import type { ReceiptLog } from "../../../../src/block/log.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { utf8ToBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { networkRollupConfig } from "../../../../src/rollup/config/network.js";
import type { RollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import { DeriveError } from "../../../../src/rollup/derive/errors.js";
import {
  applyConfigUpdateLogs,
  CONFIG_UPDATE_TOPIC,
  ecotoneScalars,
  operatorFeeParams,
  type SystemConfig,
} from "../../../../src/rollup/derive/systemConfig.js";

const SYSCFG = hexToBytes("0x229047fed2591dbec1ef1118d64f7af3db9eb290");
const ECOTONE_TIME = 1_000;

const base = networkRollupConfig("op-mainnet");
assert.ok(base !== null);
const CFG: RollupConfig = { ...base, ecotoneTime: ECOTONE_TIME };

function word(v: bigint): Uint8Array {
  return hexToBytes(`0x${v.toString(16).padStart(64, "0")}`);
}

function cat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

const START: SystemConfig = Object.freeze({
  batcherAddr: hexToBytes("0x6887246668a3b87f54deb3b94ba47a6f63f32985"),
  overhead: word(188n),
  scalar: word(684_000n),
  gasLimit: 30_000_000n,
  eip1559Params: new Uint8Array(8),
  operatorFeeParams: new Uint8Array(32),
  minBaseFee: 0n,
  daFootprintGasScalar: 0,
});

/** A ConfigUpdate log; `data` defaults to abi.encode(bytes payload). */
function updateLog(type: number | Uint8Array, payload: Uint8Array, over: Partial<ReceiptLog> = {}): ReceiptLog {
  return {
    address: SYSCFG,
    topics: [CONFIG_UPDATE_TOPIC, new Uint8Array(32), typeof type === "number" ? word(BigInt(type)) : type],
    data: cat(word(32n), word(BigInt(payload.length)), payload),
    ...over,
  };
}

function apply(
  logs: ReceiptLog[],
  l1Time = ECOTONE_TIME,
  sc: SystemConfig = START,
): { sc: SystemConfig; warnings: string[] } {
  const out = applyConfigUpdateLogs(sc, [{ status: 1, logs }], SYSCFG, CFG, l1Time);
  return { sc: out.config, warnings: out.warnings };
}

/** The log is skipped: config unchanged, exactly one warning. */
function assertSkipped(log: ReceiptLog, l1Time = ECOTONE_TIME): string {
  const { sc, warnings } = apply([log], l1Time);
  assert.deepEqual(sc, START);
  assert.equal(warnings.length, 1, "one warning");
  return warnings[0];
}

function addressWord(hex: string): Uint8Array {
  return cat(new Uint8Array(12), hexToBytes(hex));
}

/** OP Mainnet's Ecotone scalar: version 1, blobBaseFeeScalar 810949, baseFeeScalar 1368. */
const OP_SCALAR = hexToBytes("0x010000000000000000000000000000000000000000000000000c5fc500000558");

describe("rollup/derive/systemConfig", () => {
  it("CONFIG_UPDATE_TOPIC is keccak of the event signature (op-stack.md §2.11)", () => {
    assert.equal(bytesToHex(CONFIG_UPDATE_TOPIC), "0x1d2b0bda21d56b8bd12d4f94ebacffdfb35f5e226f84b461103bb8beab6353be");
    assert.deepEqual(CONFIG_UPDATE_TOPIC, keccak256(utf8ToBytes("ConfigUpdate(uint256,uint8,bytes)")));
  });

  describe("type 0: batcher", () => {
    it("sets the batcher address", () => {
      const { sc, warnings } = apply([updateLog(0, addressWord("0x1234567890123456789012345678901234567890"))]);
      assert.equal(bytesToHex(sc.batcherAddr), "0x1234567890123456789012345678901234567890");
      assert.deepEqual(warnings, []);
      assert.deepEqual({ ...sc, batcherAddr: START.batcherAddr }, START);
    });

    it("skips an address word with non-zero padding", () => {
      const w = addressWord("0x1234567890123456789012345678901234567890");
      w[0] = 1;
      assertSkipped(updateLog(0, w));
    });

    it("skips a payload that is not exactly one word", () => {
      assertSkipped(updateLog(0, new Uint8Array(31)));
      assertSkipped(updateLog(0, new Uint8Array(33)));
      assertSkipped(updateLog(0, new Uint8Array(64)));
    });
  });

  describe("type 1: fee scalars", () => {
    const overhead = word(2100n);

    it("before Ecotone (by L1 time) sets overhead and scalar as given", () => {
      const scalar = word(1_000_000n);
      scalar[0] = 0xff; // no version rules before Ecotone
      const { sc, warnings } = apply([updateLog(1, cat(overhead, scalar))], ECOTONE_TIME - 1);
      assert.deepEqual(sc.overhead, overhead);
      assert.deepEqual(sc.scalar, scalar);
      assert.deepEqual(warnings, []);
    });

    it("from Ecotone keeps a version-1 scalar and zeroes the overhead", () => {
      const { sc, warnings } = apply([updateLog(1, cat(overhead, OP_SCALAR))]);
      assert.deepEqual(sc.scalar, OP_SCALAR);
      assert.deepEqual(sc.overhead, new Uint8Array(32));
      assert.deepEqual(warnings, []);
      assert.deepEqual(ecotoneScalars(sc), { baseFeeScalar: 1368, blobBaseFeeScalar: 810_949 });
    });

    it("from Ecotone keeps a version-0 scalar", () => {
      const { sc } = apply([updateLog(1, cat(overhead, word(0xdeadbeefn)))]);
      assert.deepEqual(sc.scalar, word(0xdeadbeefn));
      assert.deepEqual(sc.overhead, new Uint8Array(32));
      assert.deepEqual(ecotoneScalars(sc), { baseFeeScalar: 0xdeadbeef, blobBaseFeeScalar: 0 });
    });

    it("from Ecotone ignores a version-0 scalar with non-zero padding", () => {
      const s = word(5n);
      s[27] = 1;
      assert.match(assertSkipped(updateLog(1, cat(overhead, s))), /version 0 scalar has non-zero padding/);
    });

    it("from Ecotone ignores a version-1 scalar with non-zero padding", () => {
      const s = OP_SCALAR.slice();
      s[23] = 1;
      assert.match(assertSkipped(updateLog(1, cat(overhead, s))), /version 1 scalar has non-zero padding/);
    });

    it("from Ecotone ignores an unknown scalar version", () => {
      const s = OP_SCALAR.slice();
      s[0] = 2;
      assert.match(assertSkipped(updateLog(1, cat(overhead, s))), /unknown scalar version 2/);
    });

    it("skips a payload that is not two words", () => {
      assertSkipped(updateLog(1, overhead));
      assertSkipped(updateLog(1, cat(overhead, OP_SCALAR, word(0n))));
    });
  });

  describe("type 2: gas limit", () => {
    it("sets the gas limit (u64, bigint)", () => {
      assert.equal(apply([updateLog(2, word(60_000_000n))]).sc.gasLimit, 60_000_000n);
      assert.equal(apply([updateLog(2, word((1n << 64n) - 1n))]).sc.gasLimit, (1n << 64n) - 1n);
    });

    it("skips a value above u64", () => {
      assertSkipped(updateLog(2, word(1n << 64n)));
    });
  });

  describe("type 3: unsafe block signer", () => {
    it("is ignored by derivation, without a warning even when malformed", () => {
      assert.deepEqual(apply([updateLog(3, addressWord("0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))]), {
        sc: START,
        warnings: [],
      });
      assert.deepEqual(apply([updateLog(3, new Uint8Array(5), { data: new Uint8Array(7) })]), {
        sc: START,
        warnings: [],
      });
    });
  });

  describe("type 4: EIP-1559 params (Holocene)", () => {
    it("keeps the low 8 bytes: denominator u32 ‖ elasticity u32", () => {
      const { sc } = apply([updateLog(4, word((250n << 32n) | 6n))]);
      assert.equal(bytesToHex(sc.eip1559Params), "0x000000fa00000006");
    });

    it("ignores the high 24 bytes of the word", () => {
      const w = word((50n << 32n) | 4n);
      w[0] = 0xff;
      assert.equal(bytesToHex(apply([updateLog(4, w)]).sc.eip1559Params), "0x0000003200000004");
    });

    it("accepts all zero (back to the Canyon constants)", () => {
      const from: SystemConfig = { ...START, eip1559Params: hexToBytes("0x000000fa00000006") };
      assert.deepEqual(apply([updateLog(4, word(0n))], ECOTONE_TIME, from).sc.eip1559Params, new Uint8Array(8));
    });

    it("skips a zero denominator with a non-zero elasticity", () => {
      assert.match(assertSkipped(updateLog(4, word(6n))), /zero denominator/);
    });
  });

  describe("type 5: operator fee params (Isthmus)", () => {
    it("keeps the whole word; operatorFeeParams reads scalar u32 and constant u64", () => {
      const v = (1_000_000n << 64n) | 0x0123456789abcdefn;
      const { sc } = apply([updateLog(5, word(v))]);
      assert.deepEqual(sc.operatorFeeParams, word(v));
      assert.deepEqual(operatorFeeParams(sc), { scalar: 1_000_000, constant: 0x0123456789abcdefn });
      assert.deepEqual(operatorFeeParams(START), { scalar: 0, constant: 0n });
    });

    it("skips a payload that is not one word", () => {
      assertSkipped(updateLog(5, new Uint8Array(16)));
    });
  });

  describe("type 6: min base fee (Jovian)", () => {
    it("sets the u64 minimum base fee", () => {
      assert.equal(apply([updateLog(6, word(1_000_000_000n))]).sc.minBaseFee, 1_000_000_000n);
    });

    it("skips a value above u64", () => {
      assertSkipped(updateLog(6, word(1n << 64n)));
    });
  });

  describe("type 7: DA footprint gas scalar (Jovian)", () => {
    it("sets the u16 scalar", () => {
      assert.equal(apply([updateLog(7, word(400n))]).sc.daFootprintGasScalar, 400);
      assert.equal(apply([updateLog(7, word(0xffffn))]).sc.daFootprintGasScalar, 0xffff);
    });

    it("skips a value above u16", () => {
      assertSkipped(updateLog(7, word(0x10000n)));
    });
  });

  describe("malformed logs are skipped with a warning", () => {
    const good = updateLog(2, word(60_000_000n));
    const withData = (data: Uint8Array): ReceiptLog => ({ ...good, data });
    const cases: [string, ReceiptLog][] = [
      ["unknown type 8", updateLog(8, word(1n))],
      ["type topic wider than uint8", updateLog(cat(new Uint8Array(30), Uint8Array.of(1, 2)), word(1n))],
      ["version 1", { ...good, topics: [CONFIG_UPDATE_TOPIC, word(1n), good.topics[2]] }],
      ["2 topics", { ...good, topics: good.topics.slice(0, 2) }],
      ["4 topics", { ...good, topics: [...good.topics, word(0n)] }],
      ["pointer 64", withData(cat(word(64n), good.data.subarray(32)))],
      ["pointer with high bytes", withData(cat(word((1n << 200n) + 32n), good.data.subarray(32)))],
      ["length 31", withData(cat(good.data.subarray(0, 32), word(31n), good.data.subarray(64)))],
      [
        "length with high bytes",
        withData(cat(good.data.subarray(0, 32), word((1n << 200n) + 32n), good.data.subarray(64))),
      ],
      ["trailing bytes", withData(cat(good.data, new Uint8Array(32)))],
      ["truncated payload", withData(good.data.subarray(0, 80))],
      ["no payload", withData(good.data.subarray(0, 64))],
      ["empty data", withData(new Uint8Array(0))],
    ];
    for (const [name, log] of cases) {
      it(name, () => {
        assertSkipped(log);
      });
    }

    it("(the unmodified log applies)", () => {
      assert.equal(apply([good]).sc.gasLimit, 60_000_000n);
    });
  });

  describe("applyConfigUpdateLogs", () => {
    it("applies updates in order; a skipped one does not stop the rest", () => {
      const receipts = [
        { status: 1, logs: [updateLog(2, word(40_000_000n)), updateLog(9, word(0n))] },
        { status: 1, logs: [updateLog(6, word(7n)), updateLog(2, word(50_000_000n))] },
      ];
      const { config, warnings } = applyConfigUpdateLogs(START, receipts, SYSCFG, CFG, ECOTONE_TIME);
      assert.equal(config.gasLimit, 50_000_000n);
      assert.equal(config.minBaseFee, 7n);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0], /^malformed ConfigUpdate in receipt 0, log 1: unknown ConfigUpdate type/);
    });

    it("ignores failed receipts, other addresses and other events", () => {
      const other = hexToBytes("0x000000000000000000000000000000000000dead");
      const receipts = [
        { status: 0, logs: [updateLog(2, word(1n))] },
        { status: 1, logs: [{ ...updateLog(2, word(2n)), address: other }] },
        { status: 1, logs: [{ ...updateLog(2, word(3n)), topics: [keccak256(utf8ToBytes("Other()"))] }] },
        { status: 1, logs: [{ ...updateLog(2, word(4n)), topics: [] }] },
      ];
      assert.deepEqual(applyConfigUpdateLogs(START, receipts, SYSCFG, CFG, ECOTONE_TIME), {
        config: START,
        warnings: [],
      });
    });

    it("returns the same config for a block without updates, and never modifies its input", () => {
      assert.equal(applyConfigUpdateLogs(START, [], SYSCFG, CFG, ECOTONE_TIME).config, START);
      const mutable: SystemConfig = { ...START, batcherAddr: START.batcherAddr.slice() };
      const snapshot = (x: SystemConfig): string =>
        JSON.stringify(x, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
      const before = snapshot(mutable);
      const logs = [updateLog(0, addressWord("0x1234567890123456789012345678901234567890"))];
      const { config } = applyConfigUpdateLogs(mutable, [{ status: 1, logs }], SYSCFG, CFG, ECOTONE_TIME);
      assert.notEqual(snapshot(config), before);
      assert.equal(snapshot(mutable), before);
    });
  });

  describe("ecotoneScalars", () => {
    const withScalar = (scalar: Uint8Array): SystemConfig => ({ ...START, scalar });

    it("version 0: baseFeeScalar from [28..32), blobBaseFeeScalar 0", () => {
      assert.deepEqual(ecotoneScalars(withScalar(word(684_000n))), { baseFeeScalar: 684_000, blobBaseFeeScalar: 0 });
      assert.deepEqual(ecotoneScalars(withScalar(word(0n))), { baseFeeScalar: 0, blobBaseFeeScalar: 0 });
    });

    it("version 0 with non-zero padding: baseFeeScalar MaxUint32", () => {
      const s = word(684_000n);
      s[1] = 1;
      assert.deepEqual(ecotoneScalars(withScalar(s)), { baseFeeScalar: 0xffffffff, blobBaseFeeScalar: 0 });
      assert.deepEqual(ecotoneScalars(withScalar(word(1n << 32n))), {
        baseFeeScalar: 0xffffffff,
        blobBaseFeeScalar: 0,
      });
    });

    it("version 1: blobBaseFeeScalar from [24..28), baseFeeScalar from [28..32)", () => {
      assert.deepEqual(ecotoneScalars(withScalar(OP_SCALAR)), { baseFeeScalar: 1368, blobBaseFeeScalar: 810_949 });
    });

    it("version 1 with non-zero padding, or an unknown version, is a critical error", () => {
      const padded = OP_SCALAR.slice();
      padded[1] = 1;
      const v2 = OP_SCALAR.slice();
      v2[0] = 2;
      for (const s of [padded, v2]) {
        assert.throws(
          () => ecotoneScalars(withScalar(s)),
          (e: unknown) => e instanceof DeriveError && e.severity === "critical",
        );
      }
    });
  });
});
