import { strict as assert } from "node:assert";
import fc from "fast-check";
import type { ReceiptLog } from "../../../src/block/log.js";
import { logsBloom } from "../../../src/block/logsBloom.js";
import {
  CANYON_DEPOSIT_RECEIPT_VERSION,
  decodeReceipt,
  encodeReceipt,
  encodeReceiptForRoot,
  encodeReceiptsForRoot,
  type Receipt,
} from "../../../src/block/receipt.js";
import { concatBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { encodeRlp, type RlpInput } from "../../../src/rlp/encode.js";
import { Fork, l1Rules, OpFork, opRules } from "../../../src/spec/forks.js";
import { TxType } from "../../../src/tx/tx.js";
import { errorCode, isTypedError } from "./helpers.js";

const word = (hex: string): Uint8Array => hexToBytes(`0x${hex.padStart(64, "0")}`);
const addr = (hex: string): Uint8Array => hexToBytes(`0x${hex.padStart(40, "0")}`);

/** The receipt of go-ethereum core/types/receipt_test.go (legacyReceipt): failed, cumulative gas 1, two logs. */
const GETH_LOGS: ReceiptLog[] = [
  { address: addr("11"), topics: [word("dead"), word("beef")], data: Uint8Array.of(0x01, 0x00, 0xff) },
  { address: addr("0111"), topics: [word("dead"), word("beef")], data: Uint8Array.of(0x01, 0x00, 0xff) },
];
/** Its expected consensus encoding (TestReceiptMarshalBinary legacyWant); typed forms prefix the type byte. */
const GETH_LEGACY_WANT =
  "f901c58001b90100000000000000100000000000000000000000000000000000000000000000000000000000000000000000" +
  "0000000000000000000000000000000000000000000000000050000000000000000000000000000000000001400000000000" +
  "0000000000000000000000000000000000000000000000000000000000000000010000080000000000000000000004000000" +
  "0000000000000000000000400000000000000000000000000008000000000000000000000000000000000000000000000000" +
  "0000040000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000" +
  "0000000000000000000000000000f8bef85d940000000000000000000000000000000000000011f842a00000000000000000" +
  "00000000000000000000000000000000000000000000deada000000000000000000000000000000000000000000000000000" +
  "0000000000beef830100fff85d940000000000000000000000000000000000000111f842a000000000000000000000000000" +
  "0000000000000000000000000000000000deada0000000000000000000000000000000000000000000000000000000000000" +
  "beef830100ff";
("");

function receipt(type: number, extra: Partial<Receipt> = {}): Receipt {
  return {
    type,
    status: 0,
    postState: null,
    cumulativeGasUsed: 1,
    logsBloom: logsBloom(GETH_LOGS),
    logs: GETH_LOGS,
    depositNonce: null,
    depositReceiptVersion: null,
    ...extra,
  };
}

const CANYON = opRules(OpFork.Canyon);
const REGOLITH = opRules(OpFork.Regolith);

describe("block/receipt", () => {
  it("matches go-ethereum's legacy, 2930 and 1559 receipt encodings (bloom included)", () => {
    assert.equal(bytesToHex(encodeReceipt(receipt(0))), `0x${GETH_LEGACY_WANT}`);
    assert.equal(bytesToHex(encodeReceipt(receipt(1))), `0x01${GETH_LEGACY_WANT}`);
    assert.equal(bytesToHex(encodeReceipt(receipt(2))), `0x02${GETH_LEGACY_WANT}`);
    for (const t of [0, 1, 2]) {
      const enc = encodeReceipt(receipt(t));
      assert.deepEqual(decodeReceipt(enc), receipt(t));
      assert.deepEqual(encodeReceiptForRoot(receipt(t), l1Rules(Fork.Prague)), enc);
    }
  });

  it("encodes status success as 0x01, failure as empty, and pre-Byzantium post-state roots", () => {
    const ok = encodeReceipt({ ...receipt(2), status: 1, logs: [], logsBloom: new Uint8Array(256) });
    // 0x02 ‖ list(0x01, 0x01, bloom, []): status and cumulative gas are single bytes.
    assert.equal(bytesToHex(ok.subarray(0, 6)), "0x02f901060101");
    const fail = encodeReceipt({ ...receipt(2), status: 0, logs: [], logsBloom: new Uint8Array(256) });
    assert.equal(bytesToHex(fail.subarray(0, 6)), "0x02f901068001");
    const root = new Uint8Array(32).fill(0x9d);
    const legacy = { ...receipt(0), postState: root, status: 1 };
    const enc = encodeReceipt(legacy);
    assert.equal(bytesToHex(enc.subarray(0, 4)), "0xf901e5a0");
    assert.deepEqual(decodeReceipt(enc), legacy);
    assert.equal(
      errorCode(() => encodeReceipt({ ...legacy, postState: new Uint8Array(31) })),
      "FIELD_LENGTH",
    );
  });

  it("rejects invalid status values, unknown types and wrong field counts", () => {
    const bloom = new Uint8Array(256);
    const body = (status: Uint8Array, ...extra: RlpInput[]): Uint8Array =>
      encodeRlp([status, Uint8Array.of(1), bloom, [], ...extra]);
    assert.equal(
      errorCode(() => decodeReceipt(body(Uint8Array.of(2)))),
      "RECEIPT_STATUS",
    );
    assert.equal(
      errorCode(() => decodeReceipt(body(Uint8Array.of(0)))),
      "RECEIPT_STATUS",
    );
    assert.equal(
      errorCode(() => decodeReceipt(body(new Uint8Array(31)))),
      "RECEIPT_STATUS",
    );
    for (const t of [0x00, 0x05, 0x7d, 0x7f, 0x80, 0xb0]) {
      assert.equal(
        errorCode(() => decodeReceipt(concatBytes(Uint8Array.of(t), body(Uint8Array.of(1))))),
        "RECEIPT_TYPE",
      );
    }
    assert.equal(
      errorCode(() => decodeReceipt(new Uint8Array(0))),
      "RECEIPT_TYPE",
    );
    assert.equal(
      errorCode(() => decodeReceipt(Uint8Array.of(0x02))),
      "TRUNCATED",
    );
    // Non-deposit receipts have exactly four fields; deposits at most six.
    assert.equal(
      errorCode(() => decodeReceipt(body(Uint8Array.of(1), Uint8Array.of(5)))),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => decodeReceipt(concatBytes(Uint8Array.of(2), body(Uint8Array.of(1), Uint8Array.of(5))))),
      "FIELD_COUNT",
    );
    const seven = concatBytes(
      Uint8Array.of(0x7e),
      body(Uint8Array.of(1), Uint8Array.of(5), Uint8Array.of(1), Uint8Array.of(1)),
    );
    assert.equal(
      errorCode(() => decodeReceipt(seven)),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => decodeReceipt(encodeRlp([Uint8Array.of(1), Uint8Array.of(1), bloom]))),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => decodeReceipt(encodeRlp([Uint8Array.of(1), Uint8Array.of(0, 1), bloom, []]))),
      "INT_LEADING_ZERO",
    );
    assert.equal(
      errorCode(() => decodeReceipt(encodeRlp([Uint8Array.of(1), Uint8Array.of(1), new Uint8Array(255), []]))),
      "FIELD_LENGTH",
    );
    assert.equal(
      errorCode(() => encodeReceipt(receipt(0x05))),
      "RECEIPT_TYPE",
    );
    const trailing = concatBytes(encodeReceipt(receipt(2)), Uint8Array.of(1, 2, 3, 4));
    assert.equal(
      errorCode(() => decodeReceipt(trailing)),
      "FIELD_COUNT",
    );
  });

  describe("OP deposit receipts", () => {
    const noNonce = receipt(TxType.Deposit);
    const withNonce = receipt(TxType.Deposit, { depositNonce: 1234 });
    const withVersion = receipt(TxType.Deposit, {
      depositNonce: 1234,
      depositReceiptVersion: CANYON_DEPOSIT_RECEIPT_VERSION,
    });
    const fourFields = (r: Receipt): Uint8Array =>
      concatBytes(
        Uint8Array.of(0x7e),
        encodeRlp([new Uint8Array(0), Uint8Array.of(1), r.logsBloom, GETH_LOGS.map(logItem)]),
      );

    it("encode 0x7e ‖ rlp([status, gas, bloom, logs, depositNonce?, depositReceiptVersion?])", () => {
      // Without the deposit fields the payload is the one go-ethereum gives any typed receipt.
      assert.equal(bytesToHex(encodeReceipt(noNonce)), `0x7e${GETH_LEGACY_WANT}`);
      const list = (...extra: Uint8Array[]): Uint8Array =>
        concatBytes(
          Uint8Array.of(0x7e),
          encodeRlp([new Uint8Array(0), Uint8Array.of(1), noNonce.logsBloom, GETH_LOGS.map(logItem), ...extra]),
        );
      assert.deepEqual(encodeReceipt(withNonce), list(Uint8Array.of(0x04, 0xd2)));
      assert.deepEqual(encodeReceipt(withVersion), list(Uint8Array.of(0x04, 0xd2), Uint8Array.of(0x01)));
      for (const r of [noNonce, withNonce, withVersion]) assert.deepEqual(decodeReceipt(encodeReceipt(r)), r);
      // depositNonce 0 is a present field (0x80), distinct from an absent one.
      const zero = receipt(TxType.Deposit, { depositNonce: 0 });
      assert.deepEqual(decodeReceipt(encodeReceipt(zero)), zero);
      assert.notDeepEqual(encodeReceipt(zero), encodeReceipt(noNonce));
    });

    it("hash into the receipts root in the 4-field form before Canyon, even with a nonce", () => {
      // op-geth TestReceiptEncodeIndexBugIsEnshrined: the Regolith root form drops the nonce.
      assert.deepEqual(encodeReceiptForRoot(withNonce, REGOLITH), fourFields(withNonce));
      assert.deepEqual(encodeReceiptForRoot(noNonce, opRules(OpFork.Bedrock)), fourFields(noNonce));
      assert.notDeepEqual(encodeReceiptForRoot(withNonce, REGOLITH), encodeReceipt(withNonce));
      // ... which differs from a 1559 receipt's only in the type byte.
      assert.deepEqual(encodeReceiptForRoot(withNonce, REGOLITH).subarray(1), encodeReceipt(receipt(2)).subarray(1));
    });

    it("hash with nonce and version from Canyon, equal to the consensus encoding", () => {
      assert.deepEqual(encodeReceiptForRoot(withVersion, CANYON), encodeReceipt(withVersion));
      assert.deepEqual(encodeReceiptForRoot(withVersion, opRules(OpFork.Jovian)), encodeReceipt(withVersion));
      const bumped = { ...withVersion, depositNonce: 1235 };
      assert.notDeepEqual(encodeReceiptForRoot(bumped, CANYON), encodeReceiptForRoot(withVersion, CANYON));
      assert.equal(
        errorCode(() => encodeReceiptForRoot(withNonce, CANYON)),
        "RECEIPT_FIELDS",
      );
      assert.equal(
        errorCode(() => encodeReceiptForRoot(noNonce, CANYON)),
        "RECEIPT_FIELDS",
      );
      assert.equal(
        errorCode(() => encodeReceiptForRoot(withVersion, l1Rules(Fork.Cancun))),
        "RECEIPT_TYPE",
      );
      assert.equal(
        errorCode(() => encodeReceipt(receipt(TxType.Deposit, { depositReceiptVersion: 1 }))),
        "RECEIPT_FIELDS",
      );
    });

    it("leave non-deposit receipts of OP blocks unchanged, and list in order", () => {
      const list = encodeReceiptsForRoot([withVersion, receipt(2), receipt(0)], CANYON);
      assert.deepEqual(list, [encodeReceipt(withVersion), encodeReceipt(receipt(2)), encodeReceipt(receipt(0))]);
    });
  });

  it("round-trips random receipts (fast-check)", () => {
    const logArb = fc.record(
      {
        address: fc.uint8Array({ minLength: 20, maxLength: 20 }),
        topics: fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 4 }),
        data: fc.uint8Array({ maxLength: 80 }),
      },
      { noNullPrototype: true },
    );
    const receiptArb = fc
      .tuple(
        fc.constantFrom(0, 1, 2, 3, 4, TxType.Deposit),
        fc.integer({ min: 0, max: 1 }),
        fc.maxSafeNat(),
        fc.array(logArb, { maxLength: 4 }),
        fc.integer({ min: 0, max: 2 }),
        fc.maxSafeNat(),
      )
      .map(
        ([type, status, gas, logs, depositFields, nonce]): Receipt => ({
          type,
          status,
          postState: null,
          cumulativeGasUsed: gas,
          logsBloom: logsBloom(logs),
          logs,
          depositNonce: type === TxType.Deposit && depositFields > 0 ? nonce : null,
          depositReceiptVersion: type === TxType.Deposit && depositFields > 1 ? 1 : null,
        }),
      );
    fc.assert(
      fc.property(receiptArb, (r) => {
        const enc = encodeReceipt(r);
        assert.deepEqual(decodeReceipt(enc), r);
        assert.deepEqual(encodeReceipt(decodeReceipt(enc)), enc);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws an untyped error on random or mutated bytes (fast-check)", () => {
    const valid = encodeReceipt(receipt(TxType.Deposit, { depositNonce: 7, depositReceiptVersion: 1 }));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 400 }),
          fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })).map(([i, v]) => {
            const m = valid.slice();
            m[i] = v;
            return m;
          }),
          fc.nat(valid.length).map((n) => valid.slice(0, n)),
        ),
        (bytes) => {
          try {
            decodeReceipt(bytes);
          } catch (e) {
            assert.ok(isTypedError(e), String(e));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});

function logItem(l: ReceiptLog): RlpInput {
  return [l.address, l.topics, l.data];
}
