import { strict as assert } from "node:assert";
import fc from "fast-check";
import { decodeLog, encodeLog, type ReceiptLog } from "../../../src/block/log.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { encodeRlp } from "../../../src/rlp/encode.js";
import { errorCode, isTypedError } from "./helpers.js";

const ADDR = new Uint8Array(20).fill(0x11);
const TOPIC = new Uint8Array(32).fill(0xde);

describe("block/log", () => {
  it("encodes rlp([address, [topics], data]) like the generic encoder", () => {
    for (const data of [new Uint8Array(0), Uint8Array.of(0x01), Uint8Array.of(0x80), new Uint8Array(100).fill(7)]) {
      for (const topics of [[], [TOPIC], [TOPIC, TOPIC, TOPIC, TOPIC]]) {
        const log: ReceiptLog = { address: ADDR, topics, data };
        const enc = encodeLog(log);
        assert.equal(bytesToHex(enc), bytesToHex(encodeRlp([ADDR, topics, data])));
        assert.deepEqual(decodeLog(enc), log);
      }
    }
  });

  it("rejects malformed logs with typed errors", () => {
    assert.equal(
      errorCode(() => decodeLog(encodeRlp([new Uint8Array(19), [], new Uint8Array(0)]))),
      "FIELD_LENGTH",
    );
    assert.equal(
      errorCode(() => decodeLog(encodeRlp([ADDR, [new Uint8Array(31)], new Uint8Array(0)]))),
      "FIELD_LENGTH",
    );
    assert.equal(
      errorCode(() => decodeLog(encodeRlp([ADDR, new Uint8Array(0), new Uint8Array(0)]))),
      "EXPECTED_LIST",
    );
    assert.equal(
      errorCode(() => decodeLog(encodeRlp([ADDR, [], []]))),
      "EXPECTED_BYTES",
    );
    assert.equal(
      errorCode(() => decodeLog(encodeRlp([ADDR, []]))),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => decodeLog(encodeRlp([ADDR, [], new Uint8Array(0), new Uint8Array(0)]))),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => encodeLog({ address: ADDR, topics: [new Uint8Array(33)], data: new Uint8Array(0) })),
      "FIELD_LENGTH",
    );
    assert.equal(
      errorCode(() => encodeLog({ address: new Uint8Array(0), topics: [], data: new Uint8Array(0) })),
      "FIELD_LENGTH",
    );
  });

  it("never throws an untyped error on random bytes (fast-check)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), (b) => {
        try {
          decodeLog(b);
        } catch (e) {
          assert.ok(isTypedError(e), String(e));
        }
      }),
      { numRuns: 2000 },
    );
  });
});
