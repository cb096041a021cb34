import { strict as assert } from "node:assert";
import fc from "fast-check";
import { encodeRlp, type RlpInput } from "../../../src/rlp/encode.js";
import { decodeBlobTxNetwork } from "../../../src/tx/blobNetwork.js";
import { decodeTx, decodeTxAt, decodeTxFromBlockItem, encodeTx } from "../../../src/tx/envelope.js";
import { TxError, type TxErrorCode } from "../../../src/tx/errors.js";
import { signedSamples, TO } from "./builders.js";

const E = new Uint8Array(0);
const b = (...xs: number[]) => Uint8Array.from(xs);
const KEY = new Uint8Array(32).fill(1);
const HASH = new Uint8Array(32).fill(1);

function throwsCode(fn: () => unknown, code: TxErrorCode): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof TxError, `expected TxError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return true;
  });
}

/** Valid legacy fields: [nonce, gasPrice, gas, to, value, data, v, r, s]. */
const legacyFields = (): RlpInput[] => [E, b(1), b(0x52, 0x08), TO, b(1), E, b(27), b(1), b(1)];
/** Valid 1559 fields. */
const feeFields = (): RlpInput[] => [b(1), E, b(1), b(2), b(0x52, 0x08), TO, E, E, [], E, b(1), b(1)];
const typed = (type: number, fields: RlpInput[]): Uint8Array => Uint8Array.of(type, ...encodeRlp(fields));
const withField = (fields: RlpInput[], i: number, v: RlpInput): RlpInput[] => fields.map((f, j) => (j === i ? v : f));

describe("tx/decode errors", () => {
  it("the valid baselines decode", () => {
    decodeTx(encodeRlp(legacyFields()));
    decodeTx(typed(2, feeFields()));
  });

  it("empty input", () => {
    throwsCode(() => decodeTx(E), "EMPTY_INPUT");
  });

  it("unknown type bytes and string-headed input", () => {
    for (const t of [0x00, 0x05, 0x06, 0x7d, 0x7f])
      throwsCode(() => decodeTx(typed(t, feeFields())), "TYPE_NOT_SUPPORTED");
    throwsCode(() => decodeTx(encodeRlp(encodeRlp(legacyFields()))), "TYPE_NOT_SUPPORTED");
    throwsCode(() => decodeTx(b(0x80)), "TYPE_NOT_SUPPORTED");
  });

  it("every truncation of every type is a typed error", () => {
    for (const { tx } of signedSamples()) {
      const bytes = encodeTx(tx);
      for (let n = 0; n < bytes.length; n++) {
        assert.throws(() => decodeTx(bytes.subarray(0, n)), TxError, `prefix ${n}/${bytes.length} of type ${tx.type}`);
      }
    }
  });

  it("oversized and non-canonical lengths, trailing bytes", () => {
    throwsCode(() => decodeTx(b(0xff, 0x0f, 0, 0, 0, 0, 0, 0, 0)), "RLP");
    throwsCode(() => decodeTx(b(0xf9, 0xff, 0xff, 0x80)), "RLP");
    throwsCode(() => decodeTx(b(0x02, 0xf9, 0xff, 0xff)), "RLP");
    const good = encodeRlp(legacyFields());
    throwsCode(() => decodeTx(Uint8Array.of(...good, 0)), "RLP");
    throwsCode(() => decodeTx(Uint8Array.of(...typed(2, feeFields()), 0x80)), "RLP");
    // Length of length with leading zeros.
    const long = encodeRlp([...legacyFields().slice(0, 5), new Uint8Array(60), b(27), b(1), b(1)]);
    const padded = Uint8Array.of(0xf9, 0x00, long[1], ...long.subarray(2));
    assert.throws(
      () => decodeTx(padded),
      (e: unknown) => e instanceof TxError && e.code === "RLP" && e.rlpCode === "LEADING_ZERO_SIZE",
    );
    // Single byte wrapped in a header (0x81 0x05) is non-canonical.
    const canon = encodeRlp(legacyFields());
    assert.equal(canon[0], 0xc0 + canon.length - 1);
    assert.equal(canon[1], 0x80);
    const wrapped = Uint8Array.of(canon[0] + 1, 0x81, 0x05, ...canon.subarray(2));
    throwsCode(() => decodeTx(wrapped), "RLP");
  });

  it("integers: leading zeros and too-wide fields", () => {
    throwsCode(() => decodeTx(encodeRlp(withField(legacyFields(), 0, b(0, 1)))), "INT_LEADING_ZERO");
    throwsCode(() => decodeTx(encodeRlp(withField(legacyFields(), 0, b(0)))), "INT_LEADING_ZERO");
    throwsCode(() => decodeTx(encodeRlp(withField(legacyFields(), 2, b(0, 0x52, 0x08)))), "INT_LEADING_ZERO");
    throwsCode(() => decodeTx(encodeRlp(withField(legacyFields(), 0, new Uint8Array(9).fill(1)))), "INT_OVERFLOW");
    throwsCode(() => decodeTx(encodeRlp(withField(legacyFields(), 2, new Uint8Array(9).fill(1)))), "INT_OVERFLOW");
    throwsCode(() => decodeTx(encodeRlp(withField(legacyFields(), 4, new Uint8Array(33).fill(1)))), "INT_OVERFLOW");
    throwsCode(() => decodeTx(encodeRlp(withField(legacyFields(), 7, new Uint8Array(33).fill(1)))), "INT_OVERFLOW");
    throwsCode(() => decodeTx(typed(2, withField(feeFields(), 9, b(1, 0)))), "INT_OVERFLOW");
    throwsCode(() => decodeTx(typed(2, withField(feeFields(), 3, b(0, 2)))), "INT_LEADING_ZERO");
  });

  it("addresses of the wrong length", () => {
    for (const n of [1, 19, 21]) {
      throwsCode(() => decodeTx(encodeRlp(withField(legacyFields(), 3, new Uint8Array(n).fill(1)))), "ADDRESS_LENGTH");
    }
    throwsCode(() => decodeTx(typed(2, withField(feeFields(), 8, [[new Uint8Array(19), []]]))), "ADDRESS_LENGTH");
  });

  it("field counts and kinds", () => {
    throwsCode(() => decodeTx(encodeRlp(legacyFields().slice(0, 8))), "TOO_FEW_FIELDS");
    throwsCode(() => decodeTx(encodeRlp([...legacyFields(), E])), "TOO_MANY_FIELDS");
    throwsCode(() => decodeTx(typed(2, feeFields().slice(0, 11))), "TOO_FEW_FIELDS");
    throwsCode(() => decodeTx(typed(2, [...feeFields(), E])), "TOO_MANY_FIELDS");
    throwsCode(() => decodeTx(encodeRlp(withField(legacyFields(), 5, [E]))), "EXPECTED_BYTES");
    throwsCode(() => decodeTx(encodeRlp(withField(legacyFields(), 2, [b(1)]))), "EXPECTED_BYTES");
    throwsCode(() => decodeTx(typed(2, withField(feeFields(), 8, E))), "EXPECTED_LIST");
    throwsCode(() => decodeTx(Uint8Array.of(2, 0x83, 1, 2, 3)), "EXPECTED_LIST");
  });

  it("access list and blob hash shapes", () => {
    throwsCode(() => decodeTx(typed(2, withField(feeFields(), 8, [[TO, [new Uint8Array(31)]]]))), "HASH_LENGTH");
    throwsCode(() => decodeTx(typed(2, withField(feeFields(), 8, [[TO, [new Uint8Array(33)]]]))), "HASH_LENGTH");
    throwsCode(() => decodeTx(typed(2, withField(feeFields(), 8, [[TO, [KEY], E]]))), "TOO_MANY_FIELDS");
    throwsCode(() => decodeTx(typed(2, withField(feeFields(), 8, [[TO]]))), "TOO_FEW_FIELDS");
    const blob = [...feeFields().slice(0, 9), b(1), [new Uint8Array(31)], E, b(1), b(1)];
    throwsCode(() => decodeTx(typed(3, blob)), "HASH_LENGTH");
  });

  it("blob and set-code txs cannot create (empty `to`)", () => {
    const blob = [...feeFields().slice(0, 9), b(1), [HASH], E, b(1), b(1)];
    decodeTx(typed(3, blob));
    throwsCode(() => decodeTx(typed(3, withField(blob, 5, E))), "CREATE_NOT_ALLOWED");
    const auth = [b(1), TO, E, E, b(1), b(1)];
    const setCode = [...feeFields().slice(0, 9), [auth], E, b(1), b(1)];
    decodeTx(typed(4, setCode));
    throwsCode(() => decodeTx(typed(4, withField(setCode, 5, E))), "CREATE_NOT_ALLOWED");
    throwsCode(() => decodeTx(typed(4, withField(setCode, 9, [[...auth, E]]))), "TOO_MANY_FIELDS");
    throwsCode(
      () => decodeTx(typed(4, withField(setCode, 9, [withField(auth, 2, new Uint8Array(9).fill(1))]))),
      "INT_OVERFLOW",
    );
  });

  it("deposit: bool must be 0x80 or 0x01, sourceHash 32 bytes, from required", () => {
    const dep = (): RlpInput[] => [HASH, TO, TO, E, E, b(1), E, E];
    decodeTx(typed(0x7e, dep()));
    decodeTx(typed(0x7e, withField(dep(), 6, b(1))));
    throwsCode(() => decodeTx(typed(0x7e, withField(dep(), 6, b(2)))), "BOOL_INVALID");
    throwsCode(() => decodeTx(typed(0x7e, withField(dep(), 6, b(1, 1)))), "BOOL_INVALID");
    throwsCode(() => decodeTx(typed(0x7e, withField(dep(), 0, new Uint8Array(31)))), "HASH_LENGTH");
    throwsCode(() => decodeTx(typed(0x7e, withField(dep(), 1, E))), "ADDRESS_LENGTH");
  });

  it("block items: a byte string must hold a typed tx", () => {
    const legacyBytes = encodeRlp(legacyFields());
    throwsCode(() => decodeTxFromBlockItem(legacyBytes), "TYPE_NOT_SUPPORTED");
    throwsCode(() => decodeTxFromBlockItem(E), "EMPTY_INPUT");
    throwsCode(() => decodeTxAt(encodeRlp(legacyBytes), 0), "TYPE_NOT_SUPPORTED");
    throwsCode(() => decodeTxAt(b(0xb8), 0), "RLP");
  });

  it("property: random bytes never raise anything but TxError", () => {
    const onlyTxErrors = (fn: () => unknown): boolean => {
      try {
        fn();
      } catch (e) {
        if (!(e instanceof TxError)) throw e;
      }
      return true;
    };
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        onlyTxErrors(() => decodeTx(bytes));
        onlyTxErrors(() => decodeTxAt(bytes, 0));
        onlyTxErrors(() => decodeBlobTxNetwork(bytes));
        return true;
      }),
      { numRuns: 3000 },
    );
    // Typed prefixes with random bodies, and random single-byte mutations of valid encodings.
    const valid = signedSamples().map((s) => encodeTx(s.tx));
    fc.assert(
      fc.property(
        fc.constantFrom(0x01, 0x02, 0x03, 0x04, 0x7e),
        fc.uint8Array({ maxLength: 200 }),
        fc.nat(valid.length - 1),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        (type, body, which, at, byte) => {
          onlyTxErrors(() => decodeTx(Uint8Array.of(type, 0xf8, body.length, ...body)));
          const m = valid[which].slice();
          m[at % m.length] = byte;
          onlyTxErrors(() => decodeTx(m));
          return true;
        },
      ),
      { numRuns: 3000 },
    );
  });
});
