/**
 * The opstack ENR entry of discv5 records (`opstackEnrValue`, `parseOpstackEnrValue`), its codec
 * alone; discovery between real nodes on 127.0.0.1 is test/integration/p2p/discovery.test.ts.
 */
import "../../../src/p2p/polyfill.js";
import assert from "node:assert/strict";
import { opstackEnrValue, parseOpstackEnrValue } from "../../../src/p2p/discovery.js";

describe("p2p/discovery: the opstack ENR entry", () => {
  it("is uvarint(chainId) ‖ uvarint(0) and reads back", () => {
    // OP Mainnet 10 → 0x0a 0x00; Base 8453 = 0x2105 → 0x85 0x42 0x00 (7-bit groups, low first).
    assert.deepEqual([...opstackEnrValue(10n)], [0x0a, 0x00]);
    assert.deepEqual([...opstackEnrValue(8453n)], [0x85, 0x42, 0x00]);
    assert.deepEqual(parseOpstackEnrValue(new Uint8Array([0x85, 0x42, 0x00])), { chainId: 8453n, version: 0 });
    assert.equal(parseOpstackEnrValue(new Uint8Array([0x85])), null, "truncated");
    assert.equal(parseOpstackEnrValue(new Uint8Array([0x0a, 0x00, 0x00])), null, "trailing bytes");
  });
});
