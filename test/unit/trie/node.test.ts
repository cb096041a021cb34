/** Node codec: leaf/extension/branch round trips, refs (embedded below 32 bytes), typed errors. */
import { strict as assert } from "node:assert";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { encodeRlp } from "../../../src/rlp/encode.js";
import { TrieError } from "../../../src/trie/errors.js";
import {
  decodeNode,
  EMPTY_TRIE_ROOT,
  encodeBranch,
  encodeExtension,
  encodeLeaf,
  nodeRef,
} from "../../../src/trie/node.js";

const nib = (s: string): Uint8Array => Uint8Array.from(s, (c) => Number.parseInt(c, 16));
const isBadNode = (e: unknown): boolean => e instanceof TrieError && (e.code === "BAD_NODE" || e.code === "BAD_PATH");

describe("trie/node", () => {
  it("EMPTY_TRIE_ROOT is keccak(0x80)", () => {
    assert.equal(bytesToHex(EMPTY_TRIE_ROOT), "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");
  });

  it("encodes a leaf as [hp(path, leaf), value]", () => {
    const leaf = encodeLeaf(nib("abc"), hexToBytes("0x01"));
    assert.equal(bytesToHex(leaf), bytesToHex(encodeRlp([hexToBytes("0x3abc"), hexToBytes("0x01")])));
    const d = decodeNode(leaf);
    assert.equal(d.type, "leaf");
    if (d.type === "leaf") {
      assert.deepEqual([...d.path], [10, 11, 12]);
      assert.equal(bytesToHex(d.value), "0x01");
    }
    // Sub-range of a longer path.
    assert.deepEqual(encodeLeaf(nib("00abc"), hexToBytes("0x01"), 2), leaf);
  });

  it("refs: embedded below 32 bytes, hashed from 32", () => {
    const small = encodeLeaf(nib("1"), hexToBytes("0x02"));
    assert.ok(small.length < 32);
    assert.equal(nodeRef(small), small);
    const big = encodeLeaf(nib("1"), new Uint8Array(40).fill(7));
    assert.equal(bytesToHex(nodeRef(big)), bytesToHex(keccak256(big)));
  });

  it("round-trips extensions and branches with hashed and embedded children", () => {
    const embedded = encodeLeaf(nib("5"), hexToBytes("0x09"));
    const hash = keccak256(hexToBytes("0x1234"));
    const ext = encodeExtension(nib("12"), hash);
    const de = decodeNode(ext);
    assert.equal(de.type, "extension");
    if (de.type === "extension") assert.equal(bytesToHex(de.child), bytesToHex(hash));

    const children: (Uint8Array | null)[] = new Array(16).fill(null);
    children[0] = hash;
    children[7] = embedded;
    const branch = encodeBranch(children, hexToBytes("0xbeef"));
    const db = decodeNode(branch);
    assert.equal(db.type, "branch");
    if (db.type === "branch") {
      assert.equal(bytesToHex(db.children[0]!), bytesToHex(hash));
      assert.equal(bytesToHex(db.children[7]!), bytesToHex(embedded));
      assert.equal(db.children.filter((c) => c !== null).length, 2);
      assert.equal(bytesToHex(db.value!), "0xbeef");
    }
    const noValue = decodeNode(encodeBranch(children, null));
    assert.equal(noValue.type === "branch" && noValue.value, null);
  });

  it("rejects malformed nodes with TrieError", () => {
    const h32 = new Uint8Array(32).fill(1);
    const bad: Uint8Array[] = [
      new Uint8Array(0),
      hexToBytes("0x80"), // a string, not a list
      encodeRlp([hexToBytes("0x20")]), // one item
      encodeRlp([hexToBytes("0x20"), hexToBytes("0x01"), hexToBytes("0x01")]), // three items
      encodeRlp([hexToBytes("0x00"), h32.subarray(0, 31)]), // extension child of 31 bytes
      encodeRlp([hexToBytes("0x00"), h32]), // extension with empty path
      encodeRlp([hexToBytes("0x4a"), hexToBytes("0x01")]), // bad flag nibble
      encodeRlp([[hexToBytes("0x3a")], hexToBytes("0x01")]), // path is a list
      encodeRlp([hexToBytes("0x3a"), [hexToBytes("0x01")]]), // leaf value is a list
      encodeRlp([...new Array(16).fill(new Uint8Array(0)), [hexToBytes("0x01")]]), // branch value is a list
      encodeRlp([hexToBytes("0x11"), [new Uint8Array(40)]]), // embedded child of 32+ bytes
      Uint8Array.of(...encodeLeaf(nib("1"), hexToBytes("0x02")), 0), // trailing byte
      hexToBytes("0xc3820102"), // truncated
    ];
    for (const b of bad) assert.throws(() => decodeNode(b), isBadNode, bytesToHex(b));
  });
});
