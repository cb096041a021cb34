import { strict as assert } from "node:assert";
import fc from "fast-check";
import {
  decodeHeader,
  EMPTY_OMMERS_HASH,
  encodeHeader,
  type Header,
  headerFieldCount,
  headerFieldsPresent,
  headerHash,
  headerRlpFields,
} from "../../../src/block/header.js";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { encodeRlp, type RlpInput } from "../../../src/rlp/encode.js";
import { Fork, OpFork, opRules } from "../../../src/spec/forks.js";
import { errorCode, headerArb, isTypedError, sampleHeader } from "./helpers.js";

/** Encodes the sample header's fields after `mutate` edits the item list. */
function mutated(mutate: (f: RlpInput[]) => void, fields = 21): Uint8Array {
  const f = headerRlpFields(sampleHeader(fields));
  mutate(f);
  return encodeRlp(f);
}

const FIXED_FIELDS: [number, string, number][] = [
  [0, "parentHash", 32],
  [1, "ommersHash", 32],
  [2, "coinbase", 20],
  [3, "stateRoot", 32],
  [4, "transactionsRoot", 32],
  [5, "receiptsRoot", 32],
  [6, "logsBloom", 256],
  [13, "mixHash", 32],
  [14, "nonce", 8],
  [16, "withdrawalsRoot", 32],
  [19, "parentBeaconBlockRoot", 32],
  [20, "requestsHash", 32],
];
const SAFE_INT_FIELDS = [8, 10, 11, 17, 18]; // number, gasUsed, timestamp, blobGasUsed, excessBlobGas

describe("block/header", () => {
  it("round-trips at every optional-field boundary (15…21 fields)", () => {
    for (let n = 15; n <= 21; n++) {
      const h = sampleHeader(n);
      assert.equal(headerFieldsPresent(h), n);
      const enc = encodeHeader(h);
      const dec = decodeHeader(enc);
      assert.deepEqual(dec, h, `${n} fields`);
      assert.equal(bytesToHex(encodeHeader(dec)), bytesToHex(enc));
      assert.equal(headerRlpFields(h).length, n);
    }
  });

  it("hashes as keccak256 of the RLP", () => {
    const h = sampleHeader(20);
    assert.deepEqual(headerHash(h), keccak256(encodeHeader(h)));
  });

  it("knows the empty ommers hash", () => {
    assert.equal(bytesToHex(EMPTY_OMMERS_HASH), "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347");
  });

  it("maps forks to header field counts", () => {
    assert.equal(headerFieldCount(Fork.Frontier), 15);
    assert.equal(headerFieldCount(Fork.Berlin), 15);
    assert.equal(headerFieldCount(Fork.London), 16);
    assert.equal(headerFieldCount(Fork.Paris), 16);
    assert.equal(headerFieldCount(Fork.Shanghai), 17);
    assert.equal(headerFieldCount(Fork.Cancun), 20);
    assert.equal(headerFieldCount(Fork.Prague), 21);
    assert.equal(headerFieldCount(Fork.Osaka), 21);
    assert.equal(headerFieldCount(opRules(OpFork.Bedrock).fork), 16);
    assert.equal(headerFieldCount(opRules(OpFork.Canyon).fork), 17);
    assert.equal(headerFieldCount(opRules(OpFork.Ecotone).fork), 20);
    assert.equal(headerFieldCount(opRules(OpFork.Isthmus).fork), 21);
  });

  it("refuses to encode an optional field after a missing one", () => {
    const gaps: (keyof Header)[] = [
      "baseFeePerGas",
      "withdrawalsRoot",
      "blobGasUsed",
      "excessBlobGas",
      "parentBeaconBlockRoot",
    ];
    for (const field of gaps) {
      const h = { ...sampleHeader(21), [field]: null } as Header;
      assert.equal(
        errorCode(() => encodeHeader(h)),
        "FIELD_ORDER",
        field,
      );
    }
  });

  it("refuses to encode fixed fields of the wrong size", () => {
    assert.equal(
      errorCode(() => encodeHeader({ ...sampleHeader(), coinbase: new Uint8Array(19) })),
      "FIELD_LENGTH",
    );
    assert.equal(
      errorCode(() => encodeHeader({ ...sampleHeader(), nonce: new Uint8Array(9) })),
      "FIELD_LENGTH",
    );
    assert.equal(
      errorCode(() => encodeHeader({ ...sampleHeader(), requestsHash: new Uint8Array(0) })),
      "FIELD_LENGTH",
    );
  });

  it("rejects too few and too many fields", () => {
    assert.equal(
      errorCode(() => decodeHeader(mutated((f) => f.pop(), 15))),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => decodeHeader(mutated((f) => f.push(new Uint8Array(32)), 21))),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => decodeHeader(encodeRlp([]))),
      "FIELD_COUNT",
    );
  });

  it("rejects fixed fields of the wrong length", () => {
    for (const [i, name, size] of FIXED_FIELDS) {
      for (const len of [size - 1, size + 1, 0]) {
        const enc = mutated((f) => {
          f[i] = new Uint8Array(len).fill(0xaa);
        });
        assert.equal(
          errorCode(() => decodeHeader(enc)),
          "FIELD_LENGTH",
          `${name} with ${len} bytes`,
        );
      }
    }
  });

  it("rejects integers with leading zeros, over 8 bytes, or above 2^53-1", () => {
    for (const i of SAFE_INT_FIELDS) {
      const lz = mutated((f) => {
        f[i] = Uint8Array.of(0, 1);
      });
      assert.equal(
        errorCode(() => decodeHeader(lz)),
        "INT_LEADING_ZERO",
        `field ${i}`,
      );
      const big = mutated((f) => {
        f[i] = hexToBytes("0x20000000000000"); // 2^53
      });
      assert.equal(
        errorCode(() => decodeHeader(big)),
        "INT_TOO_LARGE",
        `field ${i}`,
      );
      const wide = mutated((f) => {
        f[i] = new Uint8Array(9).fill(1);
      });
      assert.equal(
        errorCode(() => decodeHeader(wide)),
        "INT_TOO_LARGE",
        `field ${i}`,
      );
    }
    const maxSafe = mutated((f) => {
      f[10] = hexToBytes("0x1fffffffffffff");
    });
    assert.equal(decodeHeader(maxSafe).gasUsed, Number.MAX_SAFE_INTEGER);
    // gasLimit is a u64 cap: the whole range decodes exactly, a 9th byte does not.
    const maxU64 = mutated((f) => {
      f[9] = hexToBytes("0xffffffffffffffff");
    });
    assert.equal(decodeHeader(maxU64).gasLimit, (1n << 64n) - 1n);
    const wideGas = mutated((f) => {
      f[9] = new Uint8Array(9).fill(1);
    });
    assert.equal(
      errorCode(() => decodeHeader(wideGas)),
      "INT_TOO_LARGE",
    );
    for (const i of [7, 15]) {
      const lz = mutated((f) => {
        f[i] = Uint8Array.of(0, 5);
      });
      assert.equal(
        errorCode(() => decodeHeader(lz)),
        "INT_LEADING_ZERO",
      );
      const wide = mutated((f) => {
        f[i] = new Uint8Array(33).fill(1);
      });
      assert.equal(
        errorCode(() => decodeHeader(wide)),
        "INT_TOO_LARGE",
      );
    }
    const u256 = mutated((f) => {
      f[15] = new Uint8Array(32).fill(0xff);
    });
    assert.equal(decodeHeader(u256).baseFeePerGas, (1n << 256n) - 1n);
  });

  it("rejects a zero integer encoded as 0x00 (non-canonical)", () => {
    const enc = mutated((f) => {
      f[18] = Uint8Array.of(0);
    });
    assert.equal(
      errorCode(() => decodeHeader(enc)),
      "INT_LEADING_ZERO",
    );
  });

  it("rejects lists in byte fields, non-lists, truncation and trailing bytes", () => {
    const listed = mutated((f) => {
      f[12] = [];
    });
    assert.equal(
      errorCode(() => decodeHeader(listed)),
      "EXPECTED_BYTES",
    );
    assert.equal(
      errorCode(() => decodeHeader(encodeRlp(new Uint8Array(10)))),
      "EXPECTED_LIST",
    );
    const enc = encodeHeader(sampleHeader());
    for (const cut of [0, 1, 2, 3, 100, enc.length - 1]) {
      assert.ok(
        isTypedErrorOf(() => decodeHeader(enc.subarray(0, cut))),
        `cut at ${cut}`,
      );
    }
    const trailing = new Uint8Array(enc.length + 1);
    trailing.set(enc);
    assert.equal(
      errorCode(() => decodeHeader(trailing)),
      "FIELD_COUNT",
    );
  });

  it("round-trips random headers (fast-check)", () => {
    fc.assert(
      fc.property(headerArb, (h) => {
        const enc = encodeHeader(h);
        assert.deepEqual(decodeHeader(enc), h);
        assert.deepEqual(encodeHeader(decodeHeader(enc)), enc);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws an untyped error on random bytes (fast-check)", () => {
    const valid = encodeHeader(sampleHeader());
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 600 }),
          // Mutations of a valid header reach deeper than pure noise.
          fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })).map(([i, v]) => {
            const b = valid.slice();
            b[i] = v;
            return b;
          }),
          fc.nat(valid.length).map((n) => valid.slice(0, n)),
        ),
        (bytes) => {
          try {
            decodeHeader(bytes);
          } catch (e) {
            assert.ok(isTypedError(e), String(e));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});

function isTypedErrorOf(fn: () => unknown): boolean {
  try {
    fn();
  } catch (e) {
    return isTypedError(e);
  }
  return false;
}
