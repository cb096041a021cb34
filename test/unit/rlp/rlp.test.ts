import { strict as assert } from "node:assert";
import { RLP } from "@ethereumjs/rlp";
import fc from "fast-check";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import {
  decodeHeader,
  decodeRlp,
  decodeRlpAt,
  expectBigint,
  expectFixed,
  expectList,
  expectSafeInt,
  type RlpItem,
} from "../../../src/rlp/decode.js";
import {
  encodedLength,
  encodeRlp,
  encodeRlpListOfEncoded,
  type RlpInput,
  uintToRlpBytes,
} from "../../../src/rlp/encode.js";
import { RlpError } from "../../../src/rlp/errors.js";

const h = hexToBytes;

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof RlpError, `expected RlpError, got ${String(e)}`);
    return e.code;
  }
  assert.fail("expected a throw");
}

const itemArb: fc.Arbitrary<RlpInput> = fc.letrec<{ item: RlpInput }>((tie) => ({
  item: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.uint8Array({ maxLength: 80 }),
    fc.array(tie("item"), { maxLength: 5 }),
  ),
})).item;

describe("rlp", () => {
  it("encodes the canonical small forms", () => {
    assert.equal(bytesToHex(encodeRlp(new Uint8Array(0))), "0x80");
    assert.equal(bytesToHex(encodeRlp(Uint8Array.of(0))), "0x00");
    assert.equal(bytesToHex(encodeRlp(Uint8Array.of(0x80))), "0x8180");
    assert.equal(bytesToHex(encodeRlp([])), "0xc0");
    assert.equal(encodedLength(new Uint8Array(55)), 56);
    assert.equal(encodedLength(new Uint8Array(56)), 58);
    assert.equal(bytesToHex(encodeRlp(new Uint8Array(1024)).subarray(0, 3)), "0xb90400");
  });

  it("encodes integers minimally", () => {
    assert.deepEqual(uintToRlpBytes(0), new Uint8Array(0));
    assert.deepEqual(uintToRlpBytes(0n), new Uint8Array(0));
    assert.deepEqual(uintToRlpBytes(127), Uint8Array.of(127));
    assert.deepEqual(uintToRlpBytes(256), Uint8Array.of(1, 0));
    assert.deepEqual(uintToRlpBytes(2 ** 53 - 1), h("1fffffffffffff"));
    assert.deepEqual(uintToRlpBytes((1n << 256n) - 1n), new Uint8Array(32).fill(255));
    assert.throws(() => uintToRlpBytes(-1), RangeError);
  });

  it("rejects non-canonical and truncated input with typed codes", () => {
    assert.equal(
      code(() => decodeRlp(new Uint8Array(0))),
      "EMPTY_INPUT",
    );
    assert.equal(
      code(() => decodeRlp(h("8100"))),
      "NON_CANONICAL_SINGLE_BYTE",
    );
    assert.equal(
      code(() => decodeRlp(h("b800"))),
      "LEADING_ZERO_SIZE",
    );
    assert.equal(
      code(() => decodeRlp(h(`b801${"00"}`))),
      "NON_CANONICAL_SIZE",
    );
    assert.equal(
      code(() => decodeRlp(h("f80100"))),
      "NON_CANONICAL_SIZE",
    );
    assert.equal(
      code(() => decodeRlp(h("83aabb"))),
      "TRUNCATED",
    );
    assert.equal(
      code(() => decodeRlp(h("c2c1"))),
      "TRUNCATED",
    );
    assert.equal(
      code(() => decodeRlp(h("8001"))),
      "TRAILING_BYTES",
    );
    assert.equal(
      code(() => decodeRlp(h("bf0f000000000000021111"))),
      "SIZE_TOO_LARGE",
    );
    assert.equal(
      code(() => decodeRlp(h("b9ffff"))),
      "TRUNCATED",
    );
    // a list whose item claims more than the list holds
    assert.equal(
      code(() => decodeRlp(h("c283aabb"))),
      "TRUNCATED",
    );
  });

  it("bounds nesting depth", () => {
    let nested: RlpInput = [];
    for (let i = 0; i < 100; i++) nested = [nested];
    const enc = encodeRlp(nested);
    assert.equal(
      code(() => decodeRlp(enc)),
      "DEPTH_EXCEEDED",
    );
    assert.ok(Array.isArray(decodeRlp(enc, 200)));
  });

  it("decodes views and streams", () => {
    const a = encodeRlp(Uint8Array.of(1, 2, 3));
    const b = encodeRlp([Uint8Array.of(9)]);
    const s = new Uint8Array([...a, ...b]);
    const first = decodeRlpAt(s, 0);
    assert.deepEqual(first.item, Uint8Array.of(1, 2, 3));
    assert.equal((first.item as Uint8Array).buffer, s.buffer);
    const second = decodeRlpAt(s, first.end);
    assert.equal(second.end, s.length);
    const hd = decodeHeader(s, first.end);
    assert.equal(hd.list, true);
  });

  it("typed field accessors check width and canonical integers", () => {
    assert.equal(expectSafeInt(Uint8Array.of(1, 0), "x"), 256);
    assert.equal(
      code(() => expectSafeInt(Uint8Array.of(0, 1), "x")),
      "INT_LEADING_ZERO",
    );
    assert.equal(
      code(() => expectSafeInt(new Uint8Array(9).fill(1), "x")),
      "INT_TOO_LARGE",
    );
    assert.equal(
      code(() => expectSafeInt(h("20000000000000"), "x")),
      "INT_TOO_LARGE",
    );
    assert.equal(expectBigint(h("0102030405060708090a0b0c0d"), "x"), 0x0102030405060708090a0b0c0dn);
    assert.equal(expectBigint(new Uint8Array(32).fill(255), "x"), (1n << 256n) - 1n);
    assert.equal(
      code(() => expectBigint(new Uint8Array(33).fill(1), "x")),
      "INT_TOO_LARGE",
    );
    assert.equal(
      code(() => expectFixed(new Uint8Array(19), 20, "addr")),
      "WRONG_FIELD_COUNT",
    );
    assert.equal(
      code(() => expectList(new Uint8Array(1), "l")),
      "EXPECTED_LIST",
    );
  });

  it("list of already-encoded items equals encoding the list", () => {
    const items: RlpInput[] = [Uint8Array.of(1), new Uint8Array(60).fill(7), [Uint8Array.of(0x80)]];
    assert.deepEqual(encodeRlpListOfEncoded(items.map((i) => encodeRlp(i))), encodeRlp(items));
  });

  it("property: round-trips and matches @ethereumjs/rlp", () => {
    fc.assert(
      fc.property(itemArb, (item) => {
        const enc = encodeRlp(item);
        assert.equal(enc.length, encodedLength(item));
        assert.deepEqual(enc, RLP.encode(item as Uint8Array));
        const back = decodeRlp(enc, 1000) as RlpItem;
        assert.deepEqual(encodeRlp(back), enc);
      }),
      { numRuns: 2000 },
    );
  });

  it("property: random bytes decode or fail with RlpError, never anything else", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          const item = decodeRlp(bytes);
          assert.deepEqual(encodeRlp(item), bytes); // canonical-only: whatever decodes re-encodes exactly
        } catch (e) {
          assert.ok(e instanceof RlpError, String(e));
        }
      }),
      { numRuns: 20000 },
    );
  });
});
