/** Stored branch records: round trip and typed rejection of inconsistent records. */
import { strict as assert } from "node:assert";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { decodeBranchNodeCompact, encodeBranchNodeCompact, hashOffset } from "../../../src/trie/branchNodeCompact.js";

describe("trie/branchNodeCompact", () => {
  it("round-trips", () => {
    const hashes = new Uint8Array(64);
    hashes.fill(1, 0, 32);
    hashes.fill(2, 32);
    const node = { stateMask: 0b1000_0000_0010_0101, treeMask: 0b0100, hashMask: 0b1000_0000_0000_0100, hashes };
    const rec = encodeBranchNodeCompact(node);
    assert.equal(bytesToHex(rec.subarray(0, 6)), "0x802500048004");
    const d = decodeBranchNodeCompact(rec);
    assert.deepEqual({ ...d, hashes: bytesToHex(d.hashes) }, { ...node, hashes: bytesToHex(hashes) });
    assert.equal(hashOffset(d, 2), 0);
    assert.equal(hashOffset(d, 15), 32);
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
    ]) {
      assert.throws(() => decodeBranchNodeCompact(hexToBytes(bad)), { code: "BAD_RECORD" }, bad);
    }
  });
});
