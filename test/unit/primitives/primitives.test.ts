import { strict as assert } from "node:assert";
import fc from "fast-check";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { isValidChecksumAddress, parseAddress, toChecksumAddress } from "../../../src/primitives/address.js";
import { BLOOM_BYTES, bloomAddHash, bloomHasHash, bloomOr } from "../../../src/primitives/bloom.js";
import {
  bytesKey,
  bytesToNumber,
  compareBytes,
  concatBytes,
  equalBytes,
  numberToBytes,
  padLeft,
  stripLeadingZeros,
  writeUint64BE,
} from "../../../src/primitives/bytes.js";
import { PrimitiveError } from "../../../src/primitives/errors.js";
import { bytesToHex, hexToBytes, isHexString, parseData } from "../../../src/primitives/hex.js";
import { decodeQuantity, decodeQuantityNumber, encodeQuantity } from "../../../src/primitives/quantity.js";
import {
  bigintToBytes,
  bigintToBytes32,
  bytesToBigint,
  fromSigned256,
  MAX_U256,
  toSigned256,
  wrap256,
  writeMinimalBytes,
} from "../../../src/primitives/u256.js";

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof PrimitiveError, String(e));
    return e.code;
  }
  assert.fail("expected a throw");
}

describe("primitives", () => {
  describe("hex", () => {
    it("round-trips and validates", () => {
      assert.equal(bytesToHex(new Uint8Array(0)), "0x");
      assert.equal(bytesToHex(Uint8Array.of(0, 15, 255)), "0x000fff");
      assert.deepEqual(hexToBytes("0x000FfF"), Uint8Array.of(0, 15, 255));
      assert.deepEqual(hexToBytes("abcd"), Uint8Array.of(0xab, 0xcd));
      assert.equal(
        code(() => hexToBytes("0xabc")),
        "HEX_ODD_LENGTH",
      );
      assert.equal(
        code(() => hexToBytes("0xzz")),
        "HEX_CHAR",
      );
      assert.equal(
        code(() => hexToBytes("0x\u0100\u0100")),
        "HEX_CHAR",
      );
      assert.equal(
        code(() => parseData("abcd")),
        "HEX_PREFIX",
      );
      assert.equal(
        code(() => parseData("0xabcd", 3)),
        "HEX_LENGTH",
      );
      assert.ok(isHexString("0x"));
      assert.ok(!isHexString("0xg0"));
    });
    it("property: bytes → hex → bytes", () => {
      fc.assert(fc.property(fc.uint8Array(), (b) => assert.deepEqual(hexToBytes(bytesToHex(b)), b)));
    });
  });

  describe("quantity", () => {
    it("encodes without leading zeros, zero as 0x0", () => {
      assert.equal(encodeQuantity(0), "0x0");
      assert.equal(encodeQuantity(0n), "0x0");
      assert.equal(encodeQuantity(1024), "0x400");
      assert.equal(encodeQuantity(MAX_U256), `0x${"f".repeat(64)}`);
      assert.equal(
        code(() => encodeQuantity(-1)),
        "QUANTITY_RANGE",
      );
      assert.equal(
        code(() => encodeQuantity(1.5)),
        "QUANTITY_RANGE",
      );
    });
    it("decodes strictly", () => {
      assert.equal(decodeQuantity("0x0"), 0n);
      assert.equal(decodeQuantity("0x41"), 65n);
      assert.equal(decodeQuantityNumber("0x400"), 1024);
      assert.equal(
        code(() => decodeQuantity("0x")),
        "QUANTITY_EMPTY",
      );
      assert.equal(
        code(() => decodeQuantity("0x0400")),
        "QUANTITY_LEADING_ZERO",
      );
      assert.equal(
        code(() => decodeQuantity("0x00")),
        "QUANTITY_LEADING_ZERO",
      );
      assert.equal(
        code(() => decodeQuantity("400")),
        "HEX_PREFIX",
      );
      assert.equal(
        code(() => decodeQuantity("0xfg")),
        "HEX_CHAR",
      );
      assert.equal(
        code(() => decodeQuantity(`0x1${"0".repeat(64)}`)),
        "QUANTITY_RANGE",
      );
      assert.equal(
        code(() => decodeQuantityNumber("0x20000000000000")),
        "QUANTITY_RANGE",
      );
      assert.equal(decodeQuantityNumber("0x1fffffffffffff"), 2 ** 53 - 1);
    });
  });

  describe("address", () => {
    // EIP-55's own examples.
    const examples = [
      "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
      "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
      "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    ];
    it("checksums as EIP-55 specifies", () => {
      for (const a of examples) {
        assert.equal(toChecksumAddress(hexToBytes(a)), a);
        assert.ok(isValidChecksumAddress(a));
        assert.deepEqual(parseAddress(a), hexToBytes(a));
        assert.deepEqual(parseAddress(a.toLowerCase()), hexToBytes(a));
      }
    });
    it("rejects a bad checksum and bad lengths", () => {
      const bad = examples[0]!.replace("a", "A");
      assert.equal(
        code(() => parseAddress(bad)),
        "ADDRESS_CHECKSUM",
      );
      assert.equal(
        code(() => parseAddress("0x1234")),
        "ADDRESS_LENGTH",
      );
      assert.equal(
        code(() => toChecksumAddress(new Uint8Array(19))),
        "ADDRESS_LENGTH",
      );
    });
  });

  describe("u256", () => {
    it("wraps and converts signedness", () => {
      assert.equal(wrap256(MAX_U256 + 2n), 1n);
      assert.equal(toSigned256(MAX_U256), -1n);
      assert.equal(fromSigned256(-1n), MAX_U256);
      assert.equal(toSigned256(5n), 5n);
    });
    it("property: bytes ↔ bigint", () => {
      fc.assert(
        fc.property(fc.bigInt({ min: 0n, max: MAX_U256 }), (v) => {
          assert.equal(bytesToBigint(bigintToBytes32(v)), v);
          assert.equal(bytesToBigint(bigintToBytes(v)), v);
          const min = bigintToBytes(v);
          assert.ok(min.length === 0 || min[0] !== 0);
        }),
      );
    });

    it("bigintToBytes32 / bigintToBytes against a hex reference, around the 2^48 switch and at an offset", () => {
      const ref = (v: bigint, len: number): string => (len === 0 ? "" : v.toString(16).padStart(2 * len, "0"));
      const minLen = (v: bigint): number => (v === 0n ? 0 : (v.toString(16).length + 1) >> 1);
      const edges = [0n, 1n, 0xffn, 0x100n, MAX_U256, 1n << 255n];
      for (let b = 40; b <= 56; b++) edges.push((1n << BigInt(b)) - 1n, 1n << BigInt(b), (1n << BigInt(b)) + 1n);
      const check = (v: bigint): void => {
        assert.equal(bytesToHex(bigintToBytes32(v)), `0x${ref(v, 32)}`);
        assert.equal(bytesToHex(bigintToBytes(v)), `0x${ref(v, minLen(v))}`);
        const out = new Uint8Array(40).fill(0xee);
        bigintToBytes32(v, out, 5);
        assert.equal(bytesToHex(out), `0x${"ee".repeat(5)}${ref(v, 32)}${"ee".repeat(3)}`);
        // Into zeroed bytes without writing the leading zeros.
        const zeroed = new Uint8Array(40);
        bigintToBytes32(v, zeroed, 4, true);
        assert.equal(bytesToHex(zeroed), `0x${"00".repeat(4)}${ref(v, 32)}${"00".repeat(4)}`);
        // Packed after a value already written: the bytes before pos and the length are kept.
        const packed = new Uint8Array(40).fill(0xdd);
        const len = writeMinimalBytes(v, packed, 7);
        assert.equal(len, minLen(v));
        assert.equal(bytesToHex(packed.subarray(0, 7 + len)), `0x${"dd".repeat(7)}${ref(v, minLen(v))}`);
      };
      for (const v of edges) check(v);
      fc.assert(fc.property(fc.bigInt({ min: 0n, max: MAX_U256 }), check));
      assert.throws(() => bigintToBytes32(MAX_U256 + 1n), RangeError);
      assert.throws(() => bigintToBytes(-1n), RangeError);
    });

    it("bytesToBigint: any length, leading zeros and 0xff runs, against a hex parse", () => {
      const ref = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(bytesToHex(b)));
      assert.equal(bytesToBigint(new Uint8Array(0)), 0n);
      for (let n = 1; n <= 80; n++) {
        assert.equal(bytesToBigint(new Uint8Array(n).fill(0xff)), (1n << BigInt(8 * n)) - 1n, `0xff × ${n}`);
        assert.equal(bytesToBigint(new Uint8Array(n)), 0n, `0x00 × ${n}`);
      }
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 0, maxLength: 80 }), (b) => {
          assert.equal(bytesToBigint(b), ref(b));
        }),
      );
    });
  });

  describe("bytes", () => {
    it("bytesKey: one latin-1 character per byte, views at an offset included, ordered as the bytes", () => {
      const ref = (b: Uint8Array): string => Array.from(b, (x) => String.fromCharCode(x)).join("");
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 80 }), fc.uint8Array({ maxLength: 80 }), fc.nat(8), (a, b, off) => {
          const buf = new Uint8Array(off + a.length + 3).fill(0x5a);
          buf.set(a, off);
          const view = buf.subarray(off, off + a.length);
          assert.equal(bytesKey(view), ref(a));
          assert.equal(bytesKey(view).length, a.length);
          const c = compareBytes(a, b);
          const k = bytesKey(a) < bytesKey(b) ? -1 : bytesKey(a) > bytesKey(b) ? 1 : 0;
          assert.equal(k, Math.sign(c));
        }),
      );
    });

    it("helpers", () => {
      assert.deepEqual(concatBytes(Uint8Array.of(1), new Uint8Array(0), Uint8Array.of(2, 3)), Uint8Array.of(1, 2, 3));
      assert.ok(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2)));
      assert.ok(!equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3)));
      assert.ok(compareBytes(Uint8Array.of(1), Uint8Array.of(1, 0)) < 0);
      assert.ok(compareBytes(Uint8Array.of(2), Uint8Array.of(1, 0)) > 0);
      assert.deepEqual(padLeft(Uint8Array.of(1), 3), Uint8Array.of(0, 0, 1));
      assert.deepEqual(stripLeadingZeros(Uint8Array.of(0, 0, 1, 0)), Uint8Array.of(1, 0));
      assert.equal(bytesToNumber(numberToBytes(2 ** 53 - 1)), 2 ** 53 - 1);
      assert.deepEqual(numberToBytes(0), new Uint8Array(0));
      const out = new Uint8Array(8);
      writeUint64BE(out, 0, 0x0102030405060);
      assert.equal(bytesToHex(out), "0x0000102030405060");
    });

    it("bytesKey: the Latin-1 string of the bytes at every length, so equal keys mean equal bytes", () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 9000 }), (b) => {
          const k = bytesKey(b);
          assert.equal(k, Buffer.from(b).toString("latin1"));
          assert.equal(k.length, b.length);
        }),
        { numRuns: 200 },
      );
      const big = Uint8Array.from({ length: 3 * 4096 + 5 }, (_, i) => (i * 7) & 255);
      assert.equal(bytesKey(big), Buffer.from(big).toString("latin1"));
      assert.notEqual(bytesKey(Uint8Array.of(1, 0)), bytesKey(Uint8Array.of(1)));
    });
  });

  describe("bloom", () => {
    it("sets the three bits of a hash and unions", () => {
      const b = new Uint8Array(BLOOM_BYTES);
      const addr = hexToBytes("0x0000000000000000000000000000000000000001");
      const hash = keccak256(addr);
      assert.ok(!bloomHasHash(b, hash));
      bloomAddHash(b, hash);
      assert.ok(bloomHasHash(b, hash));
      let bits = 0;
      for (const x of b) for (let i = 0; i < 8; i++) bits += (x >> i) & 1;
      assert.ok(bits >= 1 && bits <= 3);
      const c = new Uint8Array(BLOOM_BYTES);
      bloomOr(c, b);
      assert.deepEqual(c, b);
    });
  });
});
