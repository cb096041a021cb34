import { strict as assert } from "node:assert";
import fc from "fast-check";
import {
  type Block,
  type BlockBody,
  blockHashFromRlp,
  blockHeaderRlp,
  decodeBlock,
  decodeBody,
  encodeBlock,
  encodeBody,
} from "../../../src/block/block.js";
import { encodeHeader, headerHash } from "../../../src/block/header.js";
import { encodeWithdrawal } from "../../../src/block/withdrawal.js";
import { concatBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { decodeRlp } from "../../../src/rlp/decode.js";
import { encodeRlp, encodeRlpListOfEncoded, type RlpInput } from "../../../src/rlp/encode.js";
import { errorCode, headerArb, isTypedError, sampleHeader } from "./helpers.js";

const b = (n: number, v: number): Uint8Array => new Uint8Array(n).fill(v);

/** A legacy tx's 2718 bytes are its RLP list; the block layer never looks inside. */
const LEGACY_TX = encodeRlp([
  Uint8Array.of(9),
  Uint8Array.of(1),
  Uint8Array.of(0x52, 0x08),
  b(20, 0x35),
  Uint8Array.of(1),
  new Uint8Array(0),
  Uint8Array.of(27),
  b(32, 1),
  b(32, 2),
]);
/** A typed tx is `type ‖ rlp(payload)`; a long one exercises the long string header. */
const TYPED_TX = concatBytes(Uint8Array.of(0x02), encodeRlp([Uint8Array.of(1), b(100, 0x77)]));
const BLOB_TX = concatBytes(Uint8Array.of(0x03), encodeRlp([Uint8Array.of(1)]));

function sampleBlock(withdrawals: boolean): Block {
  return {
    header: sampleHeader(withdrawals ? 21 : 16),
    body: {
      transactions: [LEGACY_TX, TYPED_TX, BLOB_TX],
      ommers: [sampleHeader(15), sampleHeader(16)],
      withdrawals: withdrawals
        ? [
            { index: 1n, validatorIndex: 2n, address: b(20, 0xaa), amount: 32_000_000_000n },
            { index: 2n, validatorIndex: 3n, address: b(20, 0xbb), amount: 0n },
          ]
        : null,
    },
  };
}

/** Builds block RLP by hand from parts, so the decoder is checked against an independent layout. */
function handBlock(parts: RlpInput[]): Uint8Array {
  return encodeRlp(parts);
}

describe("block/block", () => {
  it("lays out [header, txs, ommers, withdrawals?] with legacy txs as lists and typed txs as strings", () => {
    const blk = sampleBlock(true);
    const expected = encodeRlpListOfEncoded([
      encodeHeader(blk.header),
      encodeRlpListOfEncoded([LEGACY_TX, encodeRlp(TYPED_TX), encodeRlp(BLOB_TX)]),
      encodeRlpListOfEncoded(blk.body.ommers.map(encodeHeader)),
      encodeRlpListOfEncoded(blk.body.withdrawals!.map(encodeWithdrawal)),
    ]);
    assert.equal(bytesToHex(encodeBlock(blk)), bytesToHex(expected));
  });

  it("round-trips with and without withdrawals, and with an empty withdrawals list", () => {
    for (const blk of [
      sampleBlock(true),
      sampleBlock(false),
      { ...sampleBlock(true), body: { ...sampleBlock(true).body, withdrawals: [] } },
    ]) {
      const enc = encodeBlock(blk);
      const dec = decodeBlock(enc);
      assert.deepEqual(dec, blk);
      assert.equal(bytesToHex(encodeBlock(dec)), bytesToHex(enc));
    }
    const empty: Block = { header: sampleHeader(15), body: { transactions: [], ommers: [], withdrawals: null } };
    assert.deepEqual(decodeBlock(encodeBlock(empty)), empty);
  });

  it("normalises txs to their EIP-2718 bytes", () => {
    const dec = decodeBlock(encodeBlock(sampleBlock(false)));
    assert.deepEqual(dec.body.transactions, [LEGACY_TX, TYPED_TX, BLOB_TX]);
  });

  it("codes bodies alone", () => {
    const body: BlockBody = sampleBlock(true).body;
    const enc = encodeBody(body);
    assert.deepEqual(decodeBody(enc), body);
    assert.equal(bytesToHex(encodeBody(decodeBody(enc))), bytesToHex(enc));
    assert.deepEqual(decodeBody(encodeBody({ ...body, withdrawals: null })).withdrawals, null);
  });

  it("finds and hashes the header inside block RLP", () => {
    const blk = sampleBlock(true);
    const enc = encodeBlock(blk);
    assert.deepEqual(blockHeaderRlp(enc), encodeHeader(blk.header));
    assert.deepEqual(blockHashFromRlp(enc), headerHash(blk.header));
  });

  it("rejects wrong part counts, non-lists and trailing bytes", () => {
    const h = encodeHeader(sampleHeader());
    const header = decodeRlpRaw(h);
    assert.equal(
      errorCode(() => decodeBlock(handBlock([header, []]))),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => decodeBlock(handBlock([header, [], [], [], []]))),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => decodeBlock(handBlock([header, new Uint8Array(0), []]))),
      "EXPECTED_LIST",
    );
    assert.equal(
      errorCode(() => decodeBlock(handBlock([header, [], [new Uint8Array(3)]]))),
      "EXPECTED_LIST",
    );
    assert.equal(
      errorCode(() => decodeBlock(handBlock([new Uint8Array(5), [], []]))),
      "EXPECTED_LIST",
    );
    assert.equal(
      errorCode(() => decodeBlock(handBlock([header, [], [], [new Uint8Array(2)]]))),
      "EXPECTED_LIST",
    );
    const enc = encodeBlock(sampleBlock(true));
    assert.equal(
      errorCode(() => decodeBlock(concatBytes(enc, Uint8Array.of(0)))),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => decodeBlock(new Uint8Array(0))),
      "TRUNCATED",
    );
  });

  it("rejects byte-string txs that are not typed envelopes", () => {
    const header = decodeRlpRaw(encodeHeader(sampleHeader()));
    for (const bad of [
      new Uint8Array(0),
      Uint8Array.of(0x02),
      Uint8Array.of(0x00, 0xc0),
      Uint8Array.of(0x80, 0xc0),
      Uint8Array.of(0xc0, 0xc0),
    ]) {
      assert.equal(
        errorCode(() => decodeBlock(handBlock([header, [bad], []]))),
        "TX_ENCODING",
        bytesToHex(bad),
      );
    }
    for (const bad of [new Uint8Array(0), Uint8Array.of(0x02), Uint8Array.of(0x00, 0xc0), Uint8Array.of(0x80, 0xc0)]) {
      const blk: Block = { header: sampleHeader(), body: { transactions: [bad], ommers: [], withdrawals: [] } };
      assert.equal(
        errorCode(() => encodeBlock(blk)),
        "TX_ENCODING",
        bytesToHex(bad),
      );
    }
  });

  it("rejects truncation anywhere with typed errors", () => {
    const enc = encodeBlock(sampleBlock(true));
    for (let cut = 0; cut < enc.length; cut += 7) {
      try {
        decodeBlock(enc.subarray(0, cut));
        assert.fail(`cut at ${cut} decoded`);
      } catch (e) {
        assert.ok(isTypedError(e), `cut at ${cut}: ${String(e)}`);
      }
    }
  });

  it("round-trips random blocks (fast-check)", () => {
    const tx = fc.oneof(
      fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 6 }).map((items) => encodeRlp(items)),
      fc
        .tuple(fc.integer({ min: 1, max: 0x7f }), fc.uint8Array({ minLength: 1, maxLength: 80 }))
        .map(([t, p]) => concatBytes(Uint8Array.of(t), p)),
    );
    const withdrawal = fc.record(
      {
        index: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        validatorIndex: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        address: fc.uint8Array({ minLength: 20, maxLength: 20 }),
        amount: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      },
      { noNullPrototype: true },
    );
    const blockArb = fc.record(
      {
        header: headerArb,
        body: fc.record(
          {
            transactions: fc.array(tx, { maxLength: 5 }),
            ommers: fc.array(headerArb, { maxLength: 2 }),
            withdrawals: fc.option(fc.array(withdrawal, { maxLength: 3 }), { nil: null }),
          },
          { noNullPrototype: true },
        ),
      },
      { noNullPrototype: true },
    );
    fc.assert(
      fc.property(blockArb, (blk) => {
        const enc = encodeBlock(blk);
        const dec = decodeBlock(enc);
        assert.deepEqual(dec, blk);
        assert.deepEqual(encodeBlock(dec), enc);
      }),
      { numRuns: 200 },
    );
  });

  it("never throws an untyped error on random or mutated bytes (fast-check)", () => {
    const valid = encodeBlock(sampleBlock(true));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 400 }),
          fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })).map(([i, v]) => {
            const m = valid.slice();
            m[i] = v;
            return m;
          }),
        ),
        (bytes) => {
          try {
            decodeBlock(bytes);
          } catch (e) {
            assert.ok(isTypedError(e), String(e));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});

/** The header as an RLP item tree, so hand-built blocks can embed it. */
function decodeRlpRaw(enc: Uint8Array): RlpInput {
  return decodeRlp(enc) as RlpInput;
}
