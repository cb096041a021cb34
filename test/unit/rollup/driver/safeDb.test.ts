/**
 * The safe-head DB (op-node safedb, op-stack.md §1.6): the lookup returns the latest entry at or
 * below an L1 number; a reset deletes from the first entry at or above the new safe head and, when
 * an earlier entry exists, re-records the new safe head under the first deleted L1 block; entries
 * survive reopening the RocksDB store.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SafeDb } from "../../../../src/rollup/driver/safeDb.js";
import { MemoryKv } from "../../../../src/storage/memory.js";

const h = (b: number) => new Uint8Array(32).fill(b);
const id = (b: number, number: number) => ({ hash: h(b), number });

describe("rollup/safeDb", () => {
  it("lookup: the latest entry at or below the L1 number", () => {
    const db = new SafeDb(new MemoryKv());
    assert.equal(db.safeHeadAtL1(100), null);
    db.safeHeadUpdated(id(0xa1, 50), id(0x11, 10));
    db.safeHeadUpdated(id(0xa2, 60), id(0x12, 20));
    assert.equal(db.safeHeadAtL1(9), null);
    assert.deepEqual(db.safeHeadAtL1(10), { l1Block: id(0x11, 10), safeHead: id(0xa1, 50) });
    assert.deepEqual(db.safeHeadAtL1(19), { l1Block: id(0x11, 10), safeHead: id(0xa1, 50) });
    assert.deepEqual(db.safeHeadAtL1(1000), { l1Block: id(0x12, 20), safeHead: id(0xa2, 60) });
    // A later update for the same L1 block replaces it.
    db.safeHeadUpdated(id(0xa3, 61), id(0x12, 20));
    assert.deepEqual(db.safeHeadAtL1(20)?.safeHead, id(0xa3, 61));
  });

  it("reset: truncates from the first entry at or above the new safe head, re-recording it when earlier entries exist", () => {
    const db = new SafeDb(new MemoryKv());
    db.safeHeadUpdated(id(0xa1, 50), id(0x11, 10));
    db.safeHeadUpdated(id(0xa2, 60), id(0x12, 20));
    db.safeHeadUpdated(id(0xa3, 70), id(0x13, 30));
    // New safe head 65 with L1 origin 15: entry 20 (60) stays, 30 (70) is the first at or above → cut.
    const newSafe = { ...id(0xbb, 65), parentHash: h(0), timestamp: 0, l1origin: id(0x15, 15), sequenceNumber: 0 };
    db.safeHeadReset(newSafe);
    assert.deepEqual(db.safeHeadAtL1(30), { l1Block: id(0x13, 30), safeHead: id(0xbb, 65) });
    assert.deepEqual(db.safeHeadAtL1(29)?.safeHead, id(0xa2, 60));
    // Reset below everything: no earlier entry, so nothing is re-recorded.
    const low = { ...id(0xcc, 1), parentHash: h(0), timestamp: 0, l1origin: id(0x01, 1), sequenceNumber: 0 };
    db.safeHeadReset(low);
    assert.equal(db.safeHeadAtL1(1000), null);
  });

  it("persists in RocksDB", async () => {
    const dir = mkdtempSync(join(tmpdir(), "opal-safedb-"));
    try {
      const a = await SafeDb.open(dir);
      a.safeHeadUpdated(id(0xa1, 50), id(0x11, 10));
      await a.close();
      const b = await SafeDb.open(dir);
      assert.deepEqual(b.safeHeadAtL1(10), { l1Block: id(0x11, 10), safeHead: id(0xa1, 50) });
      await b.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
