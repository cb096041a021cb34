/** Nibble paths and hex-prefix encoding (Yellow Paper appendix C). */
import { strict as assert } from "node:assert";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { TrieError } from "../../../src/trie/errors.js";
import {
  bytesToNibbles,
  commonPrefixLength,
  decodeCompact,
  encodeCompact,
  nibbleAt,
  nibblePrefixLowerBound,
  nibblePrefixUpperBound,
  nibblesToBytes,
} from "../../../src/trie/nibbles.js";

const nib = (s: string): Uint8Array => Uint8Array.from(s, (c) => Number.parseInt(c, 16));

describe("trie/nibbles", () => {
  it("unpacks and packs bytes", () => {
    assert.deepEqual([...bytesToNibbles(hexToBytes("0x12ab"))], [1, 2, 10, 11]);
    assert.equal(bytesToHex(nibblesToBytes(nib("12ab"))), "0x12ab");
    assert.throws(() => nibblesToBytes(nib("123")), TrieError);
    assert.equal(nibbleAt(hexToBytes("0x12ab"), 2), 10);
    assert.equal(commonPrefixLength(nib("12345"), nib("12355")), 3);
    assert.equal(commonPrefixLength(nib("0012"), nib("12"), 2, 0), 2);
  });

  // Yellow Paper appendix C examples (and the flag table: 0 ext even, 1 ext odd, 2 leaf even, 3 leaf odd).
  const vectors: [string, boolean, string][] = [
    ["12345", false, "0x112345"],
    ["012345", false, "0x00012345"],
    ["f1cb8", true, "0x3f1cb8"],
    ["0f1cb8", true, "0x200f1cb8"],
    ["", true, "0x20"],
    ["", false, "0x00"],
  ];
  for (const [path, leaf, enc] of vectors) {
    it(`hex-prefix ${path || "(empty)"} ${leaf ? "leaf" : "ext"} = ${enc}`, () => {
      assert.equal(bytesToHex(encodeCompact(nib(path), leaf)), enc);
      const d = decodeCompact(hexToBytes(enc));
      assert.deepEqual([...d.path], [...nib(path)]);
      assert.equal(d.leaf, leaf);
    });
  }

  it("rejects bad hex-prefix bytes", () => {
    for (const bad of ["0x", "0x40", "0x0f12", "0x2a", "0xff"]) {
      assert.throws(
        () => decodeCompact(hexToBytes(bad)),
        (e: unknown) => e instanceof TrieError && e.code === "BAD_PATH",
      );
    }
  });

  it("turns nibble prefixes into key ranges", () => {
    assert.equal(bytesToHex(nibblePrefixLowerBound(nib("abc"))), "0xabc0");
    assert.equal(bytesToHex(nibblePrefixUpperBound(nib("abc"))!), "0xabd0");
    assert.equal(bytesToHex(nibblePrefixUpperBound(nib("abf"))!), "0xac");
    assert.equal(bytesToHex(nibblePrefixUpperBound(nib("1fff"))!), "0x20");
    assert.equal(nibblePrefixUpperBound(nib("fff")), null);
    assert.equal(bytesToHex(nibblePrefixLowerBound(nib(""))), "0x");
    assert.equal(nibblePrefixUpperBound(nib("")), null);
  });
});
