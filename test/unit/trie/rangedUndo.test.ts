/**
 * The trie batch's undo as the crash marker and history keep it (remoteStateRoot.ts `rangedUndo`):
 * a new contract's storage-trie records undone by one range delete, every other op kept.
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { decodeUndo } from "../../../src/storage/batchCodec.js";
import { WriteBatch } from "../../../src/storage/kv.js";
import { rangedUndo } from "../../../src/trie/remoteStateRoot.js";

const NEW = new Uint8Array(32).fill(0xaa);
const OLD = new Uint8Array(32).fill(0xbb);
const packed = { keys: new Uint8Array(0), values: new Uint8Array(0), offsets: new Uint32Array(1) };

function key(owner: Uint8Array, ...path: number[]): Uint8Array {
  return Uint8Array.of(...owner, ...path);
}

describe("trie/remoteStateRoot rangedUndo", () => {
  it("replaces a packed contract's storage-trie deletes by one range and keeps the rest", () => {
    const inverse = new WriteBatch()
      .del("storageTrie", key(NEW))
      .del("storageTrie", key(NEW, 3))
      .put("storageTrie", key(OLD, 1), Uint8Array.of(9))
      .del("accountTrie", Uint8Array.of(1, 2))
      .del("storageTrie", key(NEW, 3, 4));
    const changes = {
      accounts: [],
      storage: [
        { hashedAddress: NEW, slots: [], packed },
        { hashedAddress: OLD, slots: [] },
      ],
    };
    const bytes = rangedUndo(changes, inverse);
    assert.ok(bytes !== null);
    const ops = decodeUndo(bytes).ops.map((o) =>
      o.type === "range" ? `range ${o.table} ${bytesToHex(o.prefix)}` : `${o.type} ${o.table} ${bytesToHex(o.key)}`,
    );
    assert.deepEqual(ops, [
      `range storageTrie ${bytesToHex(NEW)}`,
      `put storageTrie ${bytesToHex(key(OLD, 1))}`,
      `del accountTrie 0x0102`,
    ]);
  });

  it("none without a packed contract, and none when an op under one restores a record", () => {
    const dels = new WriteBatch().del("storageTrie", key(NEW, 1));
    assert.equal(rangedUndo({ accounts: [], storage: [{ hashedAddress: NEW, slots: [] }] }, dels), null);
    const restores = new WriteBatch().del("storageTrie", key(NEW, 1)).put("storageTrie", key(NEW, 2), Uint8Array.of(1));
    const changes = { accounts: [], storage: [{ hashedAddress: NEW, slots: [], packed }] };
    assert.equal(rangedUndo(changes, restores), null);
  });
});
