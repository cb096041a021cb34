/** Stored branch records: round trip and typed rejection of inconsistent records. */
import { strict as assert } from "node:assert";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { decodeBranchNodeCompact, encodeBranchNodeCompact, hashOffset } from "../../../src/trie/branchNodeCompact.js";

describe("trie/branchNodeCompact", () => {
  it("round-trips", () => {
    const hashes = new Uint8Array(64);
    hashes.fill(1, 0, 32);
    hashes.fill(2, 32);
    const node = {
      stateMask: 0b1000_0000_0010_0101,
      treeMask: 0b0100,
      hashMask: 0b1000_0000_0000_0100,
      leafMask: 0,
      hashes,
    };
    const rec = encodeBranchNodeCompact(node);
    assert.equal(bytesToHex(rec.subarray(0, 6)), "0x802500048004");
    const d = decodeBranchNodeCompact(rec);
    assert.deepEqual({ ...d, hashes: bytesToHex(d.hashes) }, { ...node, hashes: bytesToHex(hashes) });
    assert.equal(hashOffset(d, 2), 0);
    assert.equal(hashOffset(d, 15), 32);
    assert.equal(rec.length, 6 + 64, "no leaf mask, no trailer");
  });

  it("round-trips a record that keeps leaf hashes, with the leaf mask after the hashes", () => {
    const hashes = new Uint8Array(96);
    for (let i = 0; i < 96; i++) hashes[i] = i;
    const node = {
      stateMask: 0b0000_0000_1010_0101,
      treeMask: 0b0100,
      hashMask: 0b0000_0000_1010_0100,
      leafMask: 0b0000_0000_1010_0000,
      hashes,
    };
    const rec = encodeBranchNodeCompact(node);
    assert.equal(rec.length, 6 + 96 + 2);
    assert.equal(bytesToHex(rec.subarray(rec.length - 2)), "0x00a0");
    const d = decodeBranchNodeCompact(rec);
    assert.deepEqual({ ...d, hashes: bytesToHex(d.hashes) }, { ...node, hashes: bytesToHex(hashes) });
    assert.equal(hashOffset(d, 7), 64);
  });

  it("rejects inconsistent records", () => {
    for (const bad of [
      "0x",
      "0x0003000000",
      "0x000300040000", // tree bit outside the state mask
      "0x000300000004", // hash bit outside the state mask
      "0x000100000000", // one child
      "0x000300000001", // hash bit without its hash
      `0x000300000000${"00".repeat(32)}`, // a hash without a bit
      `0x000300000001${"00".repeat(32)}0000`, // a leaf mask trailer that is empty
      `0x000300000001${"00".repeat(32)}0002`, // a leaf bit outside the hash mask
      `0x000300010001${"00".repeat(32)}0001`, // a leaf bit inside the tree mask
      `0x000300000001${"00".repeat(32)}00`, // a trailer of one byte
    ]) {
      assert.throws(() => decodeBranchNodeCompact(hexToBytes(bad)), { code: "BAD_RECORD" }, bad);
    }
  });
});
