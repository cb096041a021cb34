/**
 * Ordered roots (keys rlp(index)) agree with the in-memory trie around every key-length boundary,
 * through HashBuilder (the pure twin) and through the addon (native/src/trie.c) when it is loaded;
 * with OPAL_NATIVE=0 the pure side alone is checked.
 */
import { strict as assert } from "node:assert";
import { native } from "../../../src/native/load.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { encodeRlp, uintToRlpBytes } from "../../../src/rlp/encode.js";
import { MemoryTrie } from "../../../src/trie/memoryTrie.js";
import {
  EMPTY_TRIE_ROOT,
  orderedTrieRoot,
  orderedTrieRootNative,
  orderedTrieRootPure,
} from "../../../src/trie/orderedRoot.js";
import { Rng } from "./helpers.js";

/** A non-empty item of one of the shapes RLP treats apart: a byte below/above 0x80, short, 32, long. */
function randomItem(rng: Rng): Uint8Array {
  switch (rng.int(5)) {
    case 0:
      return new Uint8Array([rng.int(0x80)]);
    case 1:
      return new Uint8Array([0x80 + rng.int(0x80)]);
    case 2:
      return rng.bytes(32);
    case 3:
      return rng.bytes(56 + rng.int(400));
    default:
      return rng.bytes(1 + rng.int(120));
  }
}

function memoryRoot(items: readonly Uint8Array[]): string {
  const t = new MemoryTrie();
  for (let i = 0; i < items.length; i++) t.put(encodeRlp(uintToRlpBytes(i)), items[i]!);
  return bytesToHex(t.rootHash());
}

const impls: [string, (items: readonly Uint8Array[]) => Uint8Array][] = [["pure", orderedTrieRootPure]];
if (native !== null) impls.push(["native", orderedTrieRootNative]);

describe("trie/orderedRoot", () => {
  it("the exported root is the native one when the addon is loaded", () => {
    assert.equal(orderedTrieRoot, native === null ? orderedTrieRootPure : orderedTrieRootNative);
  });

  for (const [name, root] of impls) {
    describe(name, () => {
      it("empty list → EMPTY_TRIE_ROOT", () => {
        assert.equal(bytesToHex(root([])), bytesToHex(EMPTY_TRIE_ROOT));
      });

      for (const n of [1, 2, 3, 16, 127, 128, 129, 255, 256, 257, 1000]) {
        it(`${n} items`, () => {
          const rng = new Rng(n);
          const items = Array.from({ length: n }, () => randomItem(rng));
          assert.equal(bytesToHex(root(items)), memoryRoot(items));
        });
      }

      it("items of one byte (embedded leaves)", () => {
        const items = Array.from({ length: 300 }, (_, i) => Uint8Array.of(i & 0x7f));
        assert.equal(bytesToHex(root(items)), memoryRoot(items));
      });

      it("items that are views into a larger buffer", () => {
        const rng = new Rng(7);
        const buf = rng.bytes(4000);
        const items = Array.from({ length: 200 }, (_, i) => buf.subarray(i * 13, i * 13 + 1 + (i % 40)));
        assert.equal(bytesToHex(root(items)), memoryRoot(items));
      });
    });
  }

  if (native !== null) {
    it("native and pure agree past the three-byte keys (65,537 items)", () => {
      const rng = new Rng(65_537);
      const items = Array.from({ length: 65_537 }, () => rng.bytes(1 + rng.int(3)));
      assert.equal(bytesToHex(orderedTrieRootNative(items)), bytesToHex(orderedTrieRootPure(items)));
    });

    it("the addon refuses offsets past the values", () => {
      assert.throws(
        () => native!.orderedTrieRoot(new Uint8Array(4), Uint32Array.of(0, 2, 9), new Uint8Array(32)),
        TypeError,
      );
    });
  }
});
