import { strict as assert } from "node:assert";
import fc from "fast-check";
import type { ReceiptLog } from "../../../src/block/log.js";
import { blockLogsBloom, logsBloom, logsBlooms, receiptAndBlockBlooms } from "../../../src/block/logsBloom.js";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { BLOOM_BYTES, bloomAddHash, bloomHasHash } from "../../../src/primitives/bloom.js";
import { bytesToHex } from "../../../src/primitives/hex.js";

/** Reference: one keccak per address and topic, no batching. */
function naiveBloom(logs: readonly ReceiptLog[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const l of logs) {
    bloomAddHash(bloom, keccak256(l.address));
    for (const t of l.topics) bloomAddHash(bloom, keccak256(t));
  }
  return bloom;
}

const logArb: fc.Arbitrary<ReceiptLog> = fc.record(
  {
    address: fc.uint8Array({ minLength: 20, maxLength: 20 }),
    topics: fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 4 }),
    data: fc.uint8Array({ maxLength: 16 }),
  },
  { noNullPrototype: true },
);

describe("block/logsBloom", () => {
  it("is all zero without logs", () => {
    assert.deepEqual(logsBloom([]), new Uint8Array(BLOOM_BYTES));
    assert.deepEqual(logsBlooms([[], []]), [new Uint8Array(BLOOM_BYTES), new Uint8Array(BLOOM_BYTES)]);
    assert.deepEqual(logsBlooms([]), []);
  });

  it("sets the bits of the address and every topic (data is not hashed)", () => {
    const log: ReceiptLog = {
      address: new Uint8Array(20).fill(0x11),
      topics: [new Uint8Array(32).fill(0xde)],
      data: Uint8Array.of(1, 2, 3),
    };
    const bloom = logsBloom([log]);
    assert.ok(bloomHasHash(bloom, keccak256(log.address)));
    assert.ok(bloomHasHash(bloom, keccak256(log.topics[0])));
    assert.deepEqual(bloom, logsBloom([{ ...log, data: new Uint8Array(0) }]));
    let bits = 0;
    for (const byte of bloom) for (let v = byte; v; v &= v - 1) bits++;
    assert.ok(bits >= 1 && bits <= 6, `${bits} bits set`);
  });

  it("batches to the same blooms as one hash at a time (fast-check)", () => {
    fc.assert(
      fc.property(fc.array(fc.array(logArb, { maxLength: 4 }), { maxLength: 6 }), (sets) => {
        const batched = logsBlooms(sets);
        assert.equal(batched.length, sets.length);
        sets.forEach((logs, i) => {
          assert.equal(bytesToHex(batched[i]), bytesToHex(naiveBloom(logs)));
        });
        assert.equal(bytesToHex(blockLogsBloom(batched)), bytesToHex(naiveBloom(sets.flat())));
        // The one-pass form: the same receipt blooms, and the block's as the OR of them.
        const both = receiptAndBlockBlooms(sets);
        assert.deepEqual(both.receipts.map(bytesToHex), batched.map(bytesToHex));
        assert.equal(bytesToHex(both.block), bytesToHex(naiveBloom(sets.flat())));
      }),
      { numRuns: 200 },
    );
  });

  it("ORs receipt blooms into the block bloom", () => {
    const a = new Uint8Array(BLOOM_BYTES);
    const b = new Uint8Array(BLOOM_BYTES);
    a[0] = 0x01;
    b[0] = 0x80;
    b[255] = 0x10;
    const out = blockLogsBloom([a, b]);
    assert.equal(out[0], 0x81);
    assert.equal(out[255], 0x10);
    assert.deepEqual(blockLogsBloom([]), new Uint8Array(BLOOM_BYTES));
  });
});
