/**
 * The driver's safe-head DB writes (op-stack.md §1.6, op-node SyncDeriver): each derived safe block
 * under the L1 block it was derived from, and at a reset op-node's SafeHeadReset followed — when the
 * reset safe head is the rollup genesis — by the genesis entry at L1 block 0, the anchor that keeps
 * a later reset from deleting the DB's first entry for good (issue 26, crash suite node-admin).
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { SafeDb } from "../../../../src/rollup/driver/safeDb.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { Rollup } from "../../../utils/actions/rollup.js";

const hex = (id: { hash: Uint8Array; number: number } | undefined) =>
  id === undefined ? undefined : { number: id.number, hash: bytesToHex(id.hash) };

describe("rollup/driver: safe-head DB", function () {
  this.timeout(60_000);

  it("a restart whose reset safe head is the first derived entry keeps that entry (the genesis entry at L1 0 is the earlier one)", async () => {
    const r = new Rollup({ driver: { syncMode: "consensus-layer" } });
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    for (let i = 0; i < 3; i++) await r.sequencer.buildBlock();
    // Every block in one channel in one L1 block: the DB's only derived entry is L1 `k` → the last block.
    const k = await r.miner.mine(await r.batcher.batchTxs());
    const db = new SafeDb(new MemoryKv());
    const v = r.verifier(undefined, undefined, undefined, db);
    await v.sync();
    const safe = v.heads.safe;
    assert.equal(safe.number, r.sequencer.unsafe.number);
    const l1Genesis = await v.l1.l1BlockRefByNumber(0);
    assert.deepEqual(hex(db.safeHeadAtL1(0)?.l1Block), hex(l1Genesis ?? undefined));
    assert.deepEqual(hex(db.safeHeadAtL1(0)?.safeHead), hex(r.cfg.genesis.l2));
    const entry = db.safeHeadAtL1(k.number);
    assert.deepEqual(hex(entry?.l1Block), hex(k));
    assert.deepEqual(hex(entry?.safeHead), hex(safe));

    // L1 finalizes `k`, so L2 finalizes its blocks; a restart resets to the finalized block (op-node
    // FindL2Heads stops there), as every restart of the crash suite did.
    await r.miner.mine(); // derivation finishes L1 `k` once it moves past it
    await v.sync();
    await r.miner.finalize(k.number);
    await v.driver.onL1Finalized(r.miner.refOf(k.number));
    assert.equal(v.heads.finalized.number, safe.number);

    // The restart resets to that safe head: SafeHeadReset truncates from L1 `k` (its entry is the
    // first at or above it) and, as an earlier entry exists, re-records the safe head there.
    // Re-derivation starts after it, so nothing else would ever write L1 `k` again.
    const restarted = r.verifier(undefined, undefined, v.exec, db);
    const first = await restarted.driver.step();
    assert.equal(first.kind, "reset");
    assert.equal(first.kind === "reset" ? first.heads.safe.number : -1, safe.number);
    await restarted.sync();
    assert.deepEqual(hex(db.safeHeadAtL1(k.number)?.l1Block), hex(k));
    assert.deepEqual(hex(db.safeHeadAtL1(k.number)?.safeHead), hex(safe));
    assert.deepEqual(hex(db.safeHeadAtL1(0)?.safeHead), hex(r.cfg.genesis.l2));
  });
});
