/**
 * Parameter decoders: valid inputs and geth's exact error texts (common/hexutil, encoding/json,
 * rpc/types.go), through `decodePositional` so the "invalid argument N: " prefix is covered too.
 */
import { strict as assert } from "node:assert";
import {
  address,
  bigQuantity,
  blockNumber,
  blockNumberOrHash,
  bool,
  data,
  decodePositional,
  fixedData,
  hash,
  optional,
  type ParamDecoder,
  quantity,
  string,
  uint64,
} from "../../../src/rpc/params.js";

function ok<T>(d: ParamDecoder<T>, v: unknown): T {
  const r = decodePositional([v], [d]);
  assert.ok(Array.isArray(r), `expected success, got ${String(r)}`);
  return r[0] as T;
}

function err(d: ParamDecoder<unknown>, v: unknown): string {
  const r = decodePositional([v], [d]);
  assert.equal(typeof r, "string", `expected an error for ${JSON.stringify(v)}`);
  return r as string;
}

const A = "invalid argument 0: ";
const H32 = `0x${"ab".repeat(32)}`;

describe("rpc/params", () => {
  describe("positional arguments", () => {
    it("absent and null params are []", () => {
      assert.deepEqual(decodePositional(undefined, []), []);
      assert.deepEqual(decodePositional(null, [optional(quantity)]), [undefined]);
    });
    it("non-array params", () => {
      assert.equal(decodePositional({ a: 1 }, [quantity]), "non-array args");
      assert.equal(decodePositional("0x1", [quantity]), "non-array args");
    });
    it("too many arguments", () => {
      assert.equal(decodePositional([1], []), "too many arguments, want at most 0");
      assert.equal(decodePositional(["0x1", true, 3], [quantity, bool]), "too many arguments, want at most 2");
    });
    it("the first bad argument wins, before the count check", () => {
      assert.equal(
        decodePositional(["0x1", 5, 3], [quantity, bool]),
        "invalid argument 1: json: cannot unmarshal number into Go value of type bool",
      );
    });
    it("missing required / optional trailing", () => {
      assert.equal(decodePositional([], [quantity]), "missing value for required argument 0");
      assert.equal(decodePositional(["0x1"], [quantity, bool]), "missing value for required argument 1");
      assert.deepEqual(decodePositional(["0x1"], [quantity, optional(bool)]), [1, undefined]);
      assert.deepEqual(decodePositional(["0x1", null], [quantity, optional(bool)]), [1, undefined]);
      assert.deepEqual(decodePositional(["0x1", true], [quantity, optional(bool)]), [1, true]);
    });
  });

  describe("quantity (hexutil.Uint64 → number)", () => {
    const T = "into Go value of type hexutil.Uint64";
    it("valid", () => {
      assert.equal(ok(quantity, "0x0"), 0);
      assert.equal(ok(quantity, "0x1"), 1);
      assert.equal(ok(quantity, "0xFf"), 255);
      assert.equal(ok(quantity, "0X10"), 16);
      assert.equal(ok(quantity, "0x1fffffffffffff"), Number.MAX_SAFE_INTEGER);
    });
    it("errors", () => {
      assert.equal(err(quantity, "1"), `${A}json: cannot unmarshal hex string without 0x prefix ${T}`);
      // geth reads "" as 0; Opal does not take it for a quantity (issue 26).
      assert.equal(err(quantity, ""), `${A}json: cannot unmarshal empty hex string ${T}`);
      assert.equal(err(quantity, "0x"), `${A}json: cannot unmarshal hex string "0x" ${T}`);
      assert.equal(err(quantity, "0x01"), `${A}json: cannot unmarshal hex number with leading zero digits ${T}`);
      assert.equal(err(quantity, "0x00"), `${A}json: cannot unmarshal hex number with leading zero digits ${T}`);
      assert.equal(err(quantity, "0xg"), `${A}json: cannot unmarshal invalid hex string ${T}`);
      assert.equal(err(quantity, `0x1${"0".repeat(16)}`), `${A}json: cannot unmarshal hex number > 64 bits ${T}`);
      assert.equal(err(quantity, "0x20000000000000"), `${A}json: cannot unmarshal hex number > 53 bits ${T}`);
      assert.equal(err(quantity, 1), `${A}json: cannot unmarshal non-string ${T}`);
      assert.equal(err(quantity, null), `${A}json: cannot unmarshal non-string ${T}`);
      assert.equal(err(quantity, true), `${A}json: cannot unmarshal non-string ${T}`);
    });
  });

  describe("uint64 (bigint) and bigQuantity (*hexutil.Big)", () => {
    it("uint64", () => {
      assert.equal(ok(uint64, "0xffffffffffffffff"), (1n << 64n) - 1n);
      assert.equal(
        err(uint64, "0x10000000000000000"),
        `${A}json: cannot unmarshal hex number > 64 bits into Go value of type hexutil.Uint64`,
      );
    });
    it("bigQuantity", () => {
      const T = "into Go value of type *hexutil.Big";
      assert.equal(ok(bigQuantity, "0xde0b6b3a7640000"), 10n ** 18n);
      assert.equal(ok(bigQuantity, `0x${"f".repeat(64)}`), (1n << 256n) - 1n);
      assert.equal(err(bigQuantity, `0x1${"0".repeat(64)}`), `${A}json: cannot unmarshal hex number > 256 bits ${T}`);
      assert.equal(err(bigQuantity, "0x0001"), `${A}json: cannot unmarshal hex number with leading zero digits ${T}`);
      assert.equal(err(bigQuantity, "12"), `${A}json: cannot unmarshal hex string without 0x prefix ${T}`);
      assert.equal(err(bigQuantity, "0xz"), `${A}json: cannot unmarshal invalid hex string ${T}`);
      assert.equal(err(bigQuantity, 12), `${A}json: cannot unmarshal non-string ${T}`);
    });
  });

  describe("data (hexutil.Bytes)", () => {
    const T = "into Go value of type hexutil.Bytes";
    it("valid", () => {
      assert.deepEqual(ok(data, "0x"), new Uint8Array(0));
      assert.deepEqual(ok(data, ""), new Uint8Array(0));
      assert.deepEqual(ok(data, "0x00Ff"), Uint8Array.of(0, 255));
    });
    it("errors", () => {
      assert.equal(err(data, "00"), `${A}json: cannot unmarshal hex string without 0x prefix ${T}`);
      assert.equal(err(data, "0x0"), `${A}json: cannot unmarshal hex string of odd length ${T}`);
      assert.equal(err(data, "0xzz"), `${A}json: cannot unmarshal invalid hex string ${T}`);
      assert.equal(err(data, 0), `${A}json: cannot unmarshal non-string ${T}`);
    });
  });

  describe("fixed-size data (common.Address, common.Hash)", () => {
    it("valid", () => {
      const a = ok(address, "0x00000000000000000000000000000000000000Aa");
      assert.equal(a.length, 20);
      assert.equal(a[19], 0xaa);
      assert.equal(ok(hash, H32).length, 32);
      assert.equal(ok(fixedData(8, "types.BlockNonce"), "0x0102030405060708")[7], 8);
    });
    it("errors", () => {
      assert.equal(err(address, "0x1234"), `${A}hex string has length 4, want 40 for common.Address`);
      assert.equal(err(address, ""), `${A}hex string has length 0, want 40 for common.Address`);
      assert.equal(err(hash, "0x12"), `${A}hex string has length 2, want 64 for common.Hash`);
      assert.equal(
        err(address, "00000000000000000000000000000000000000aa"),
        `${A}json: cannot unmarshal hex string without 0x prefix into Go value of type common.Address`,
      );
      assert.equal(
        err(address, "0x123"),
        `${A}json: cannot unmarshal hex string of odd length into Go value of type common.Address`,
      );
      assert.equal(
        err(address, `0x${"zz".repeat(20)}`),
        `${A}json: cannot unmarshal invalid hex string into Go value of type common.Address`,
      );
      assert.equal(err(address, 5), `${A}json: cannot unmarshal non-string into Go value of type common.Address`);
      assert.equal(err(hash, null), `${A}json: cannot unmarshal non-string into Go value of type common.Hash`);
    });
  });

  describe("bool and string", () => {
    it("bool", () => {
      assert.equal(ok(bool, true), true);
      assert.equal(ok(bool, false), false);
      assert.equal(ok(bool, null), false); // Go: null leaves a bool unchanged
      assert.equal(err(bool, "true"), `${A}json: cannot unmarshal string into Go value of type bool`);
      assert.equal(err(bool, 1), `${A}json: cannot unmarshal number into Go value of type bool`);
      assert.equal(err(bool, {}), `${A}json: cannot unmarshal object into Go value of type bool`);
      assert.equal(err(bool, []), `${A}json: cannot unmarshal array into Go value of type bool`);
    });
    it("string", () => {
      assert.equal(ok(string, "x"), "x");
      assert.equal(ok(string, null), "");
      assert.equal(err(string, 1), `${A}json: cannot unmarshal number into Go value of type string`);
      assert.equal(err(string, false), `${A}json: cannot unmarshal bool into Go value of type string`);
    });
  });

  describe("blockNumber (rpc.BlockNumber)", () => {
    it("tags and numbers", () => {
      for (const t of ["earliest", "latest", "pending", "safe", "finalized"]) {
        assert.deepEqual(ok(blockNumber, t), { kind: "tag", tag: t });
      }
      assert.deepEqual(ok(blockNumber, "0x0"), { kind: "number", number: 0 });
      assert.deepEqual(ok(blockNumber, "0x1b4"), { kind: "number", number: 436 });
      assert.deepEqual(ok(blockNumber, "0x1fffffffffffff"), { kind: "number", number: Number.MAX_SAFE_INTEGER });
    });
    it("errors are hexutil's bare messages", () => {
      assert.equal(err(blockNumber, "1"), `${A}hex string without 0x prefix`);
      assert.equal(err(blockNumber, 1), `${A}hex string without 0x prefix`);
      assert.equal(err(blockNumber, null), `${A}hex string without 0x prefix`);
      assert.equal(err(blockNumber, "Latest"), `${A}hex string without 0x prefix`);
      assert.equal(err(blockNumber, ""), `${A}empty hex string`);
      assert.equal(err(blockNumber, "0x"), `${A}hex string "0x"`);
      assert.equal(err(blockNumber, "0x01"), `${A}hex number with leading zero digits`);
      assert.equal(err(blockNumber, "0xq"), `${A}invalid hex string`);
      assert.equal(err(blockNumber, "0x10000000000000000"), `${A}hex number > 64 bits`);
      assert.equal(err(blockNumber, "0x8000000000000000"), `${A}block number larger than int64`);
      // Above 2^53-1 there is no exact number: refused, never read as a stand-in (issue 26).
      assert.equal(err(blockNumber, "0x20000000000000"), `${A}block number larger than 2^53-1`);
      assert.equal(err(blockNumber, "0x7fffffffffffffff"), `${A}block number larger than 2^53-1`);
    });
    it("optional", () => {
      assert.deepEqual(decodePositional([], [optional(blockNumber)]), [undefined]);
    });
  });

  describe("blockNumberOrHash (EIP-1898)", () => {
    it("string forms", () => {
      assert.deepEqual(ok(blockNumberOrHash, "latest"), { kind: "tag", tag: "latest" });
      assert.deepEqual(ok(blockNumberOrHash, "0x10"), { kind: "number", number: 16 });
      assert.deepEqual(ok(blockNumberOrHash, H32), {
        kind: "hash",
        hash: new Uint8Array(32).fill(0xab),
        requireCanonical: false,
      });
    });
    it("object forms (field names case-insensitive, as encoding/json)", () => {
      assert.deepEqual(ok(blockNumberOrHash, { blockNumber: "0x5" }), { kind: "number", number: 5 });
      assert.deepEqual(ok(blockNumberOrHash, { blocknumber: "safe" }), { kind: "tag", tag: "safe" });
      assert.deepEqual(ok(blockNumberOrHash, { blockHash: H32, requireCanonical: true }), {
        kind: "hash",
        hash: new Uint8Array(32).fill(0xab),
        requireCanonical: true,
      });
      assert.deepEqual(ok(blockNumberOrHash, { blockNumber: "0x1", extra: 1 }), { kind: "number", number: 1 });
    });
    it("errors", () => {
      assert.equal(
        err(blockNumberOrHash, { blockNumber: "0x1", blockHash: H32 }),
        `${A}cannot specify both BlockHash and BlockNumber, choose one or the other`,
      );
      assert.equal(err(blockNumberOrHash, {}), `${A}must specify either BlockHash or BlockNumber`);
      assert.equal(err(blockNumberOrHash, null), `${A}must specify either BlockHash or BlockNumber`);
      assert.equal(err(blockNumberOrHash, { blockNumber: null }), `${A}must specify either BlockHash or BlockNumber`);
      // Any field error in the object form falls back to the string form's type error (geth quirk).
      assert.equal(
        err(blockNumberOrHash, { blockNumber: "0x01" }),
        `${A}json: cannot unmarshal object into Go value of type string`,
      );
      assert.equal(
        err(blockNumberOrHash, { blockHash: "0x12" }),
        `${A}json: cannot unmarshal object into Go value of type string`,
      );
      assert.equal(err(blockNumberOrHash, 5), `${A}json: cannot unmarshal number into Go value of type string`);
      assert.equal(err(blockNumberOrHash, []), `${A}json: cannot unmarshal array into Go value of type string`);
      assert.equal(err(blockNumberOrHash, "5"), `${A}hex string without 0x prefix`);
      assert.equal(err(blockNumberOrHash, "0x05"), `${A}hex number with leading zero digits`);
      assert.equal(err(blockNumberOrHash, "0x8000000000000000"), `${A}blocknumber too high`);
      assert.equal(err(blockNumberOrHash, `0x${"zz".repeat(32)}`), `${A}invalid hex string`);
      assert.equal(err(blockNumberOrHash, "ab".repeat(33)), `${A}hex string without 0x prefix`);
    });
  });
});

// Compile-time check: decoded selectors feed ChainReader.resolve without conversion.
import type { BlockSelector as ReaderSelector } from "../../../src/rpc/eth/chainReader.js";
import type { BlockSelector } from "../../../src/rpc/params.js";

const _selectorFits = (s: BlockSelector): ReaderSelector => s;
void _selectorFits;
