import { strict as assert } from "node:assert";
import fc from "fast-check";
import {
  decodeHoloceneExtraData,
  decodeJovianExtraData,
  decodeOpExtraData,
  encodeHoloceneExtraData,
  encodeJovianExtraData,
} from "../../../src/block/opExtraData.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { OpFork } from "../../../src/spec/forks.js";
import { errorCode } from "./helpers.js";

describe("block/opExtraData", () => {
  it("builds and parses Holocene extraData (0x00 ‖ denominator ‖ elasticity)", () => {
    // OP Mainnet's Canyon constants: denominator 250, elasticity 6 (op-stack.md §3.5).
    const extra = encodeHoloceneExtraData(250, 6);
    assert.equal(bytesToHex(extra), "0x00000000fa00000006");
    assert.deepEqual(decodeHoloceneExtraData(extra), { denominator: 250, elasticity: 6, minBaseFee: null });
    assert.deepEqual(decodeOpExtraData(extra, OpFork.Holocene), decodeHoloceneExtraData(extra));
    assert.deepEqual(decodeOpExtraData(extra, OpFork.Isthmus), decodeHoloceneExtraData(extra));
  });

  it("builds and parses Jovian extraData (0x01 ‖ denominator ‖ elasticity ‖ minBaseFee)", () => {
    const extra = encodeJovianExtraData(250, 6, 0x0102030405060708n);
    assert.equal(bytesToHex(extra), "0x01000000fa000000060102030405060708");
    assert.deepEqual(decodeJovianExtraData(extra), {
      denominator: 250,
      elasticity: 6,
      minBaseFee: 0x0102030405060708n,
    });
    assert.deepEqual(decodeOpExtraData(extra, OpFork.Jovian), decodeJovianExtraData(extra));
    // minBaseFee 0 (no floor) and the u64 maximum are both valid.
    assert.equal(decodeJovianExtraData(encodeJovianExtraData(1, 1, 0n)).minBaseFee, 0n);
    const max = (1n << 64n) - 1n;
    assert.equal(decodeJovianExtraData(encodeJovianExtraData(0xffffffff, 0xffffffff, max)).minBaseFee, max);
  });

  it("rejects wrong lengths", () => {
    for (const len of [0, 8, 10, 17, 32]) {
      assert.equal(
        errorCode(() => decodeHoloceneExtraData(new Uint8Array(len))),
        "EXTRA_DATA_LENGTH",
        `${len}`,
      );
    }
    for (const len of [0, 9, 16, 18]) {
      const b = new Uint8Array(len);
      if (len > 0) b[0] = 1;
      assert.equal(
        errorCode(() => decodeJovianExtraData(b)),
        "EXTRA_DATA_LENGTH",
        `${len}`,
      );
    }
  });

  it("rejects wrong versions, including each fork reading the other's format", () => {
    const holocene = encodeHoloceneExtraData(50, 6);
    const jovian = encodeJovianExtraData(50, 6, 1n);
    assert.equal(
      errorCode(() => decodeOpExtraData(holocene, OpFork.Jovian)),
      "EXTRA_DATA_LENGTH",
    );
    assert.equal(
      errorCode(() => decodeOpExtraData(jovian, OpFork.Holocene)),
      "EXTRA_DATA_LENGTH",
    );
    const h1 = holocene.slice();
    h1[0] = 1;
    assert.equal(
      errorCode(() => decodeHoloceneExtraData(h1)),
      "EXTRA_DATA_VERSION",
    );
    const j0 = jovian.slice();
    j0[0] = 0;
    assert.equal(
      errorCode(() => decodeJovianExtraData(j0)),
      "EXTRA_DATA_VERSION",
    );
    assert.equal(
      errorCode(() => decodeOpExtraData(holocene, OpFork.Granite)),
      "EXTRA_DATA_VERSION",
    );
  });

  it("rejects zero parameters", () => {
    assert.equal(
      errorCode(() => decodeHoloceneExtraData(hexToBytes("0x000000000000000006"))),
      "EXTRA_DATA_ZERO_PARAM",
    );
    assert.equal(
      errorCode(() => decodeHoloceneExtraData(hexToBytes("0x000000003200000000"))),
      "EXTRA_DATA_ZERO_PARAM",
    );
    assert.equal(
      errorCode(() => decodeJovianExtraData(hexToBytes("0x01000000000000000600000000000000ff"))),
      "EXTRA_DATA_ZERO_PARAM",
    );
    assert.equal(
      errorCode(() => encodeHoloceneExtraData(0, 6)),
      "EXTRA_DATA_ZERO_PARAM",
    );
    assert.equal(
      errorCode(() => encodeJovianExtraData(50, 0, 0n)),
      "EXTRA_DATA_ZERO_PARAM",
    );
  });

  it("refuses out-of-range parameters when building", () => {
    assert.throws(() => encodeHoloceneExtraData(2 ** 32, 1), RangeError);
    assert.throws(() => encodeHoloceneExtraData(1, -1), RangeError);
    assert.throws(() => encodeJovianExtraData(1, 1, 1n << 64n), RangeError);
    assert.throws(() => encodeJovianExtraData(1, 1, -1n), RangeError);
  });

  it("round-trips random parameters (fast-check)", () => {
    const u32 = fc.integer({ min: 1, max: 0xffffffff });
    fc.assert(
      fc.property(u32, u32, fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (d, e, m) => {
        assert.deepEqual(decodeHoloceneExtraData(encodeHoloceneExtraData(d, e)), {
          denominator: d,
          elasticity: e,
          minBaseFee: null,
        });
        assert.deepEqual(decodeJovianExtraData(encodeJovianExtraData(d, e, m)), {
          denominator: d,
          elasticity: e,
          minBaseFee: m,
        });
      }),
    );
  });
});
