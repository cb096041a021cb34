/** Ordered roots (keys rlp(index)) agree with the in-memory trie around every key-length boundary. */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { encodeRlp, uintToRlpBytes } from "../../../src/rlp/encode.js";
import { MemoryTrie } from "../../../src/trie/memoryTrie.js";
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from "../../../src/trie/orderedRoot.js";
import { Rng } from "./helpers.js";

describe("trie/orderedRoot", () => {
  it("empty list → EMPTY_TRIE_ROOT", () => {
    assert.equal(bytesToHex(orderedTrieRoot([])), bytesToHex(EMPTY_TRIE_ROOT));
  });

  for (const n of [1, 2, 16, 127, 128, 129, 255, 256, 257, 1000]) {
    it(`${n} items`, () => {
      const rng = new Rng(n);
      const items = Array.from({ length: n }, () => rng.bytes(1 + rng.int(120)));
      const t = new MemoryTrie();
      for (let i = 0; i < n; i++) t.put(encodeRlp(uintToRlpBytes(i)), items[i]);
      assert.equal(bytesToHex(orderedTrieRoot(items)), bytesToHex(t.rootHash()));
    });
  }

  it("items of one byte (embedded leaves)", () => {
    const items = Array.from({ length: 300 }, (_, i) => Uint8Array.of(i & 0x7f));
    const t = new MemoryTrie();
    for (let i = 0; i < items.length; i++) t.put(encodeRlp(uintToRlpBytes(i)), items[i]);
    assert.equal(bytesToHex(orderedTrieRoot(items)), bytesToHex(t.rootHash()));
  });
});
