/**
 * The driver's unsafe-payload queue (what P2P gossip and req-resp feed): payloads go into the
 * engine in order once they extend the unsafe head, out-of-order arrivals wait, a gap is reported
 * for req-resp, duplicates and stale payloads are dropped, a payload of another fork is dropped,
 * an engine-refused payload is dropped without stopping the driver, and derivation later
 * consolidates with the blocks gossip brought.
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { Rollup } from "../../../utils/actions/rollup.js";

describe("rollup/actions: unsafe payload queue", function () {
  this.timeout(60_000);

  it("in-order insertion, waiting out-of-order payloads, gap reports, stale and duplicate drops", async () => {
    const r = new Rollup();
    for (let i = 0; i < 5; i++) await r.sequencer.buildBlock();
    const envs = r.sequencer.envelopes;
    const v = r.verifier();
    await v.sync();
    const gaps: [number, number][] = [];
    v.driver.onUnsafeGap = (from, to) => gaps.push([from, to]);
    // Block 3 first: nothing can go in, and the gap 1..2 is reported.
    v.driver.addUnsafePayload(envs[2]!);
    assert.equal((await v.driver.step()).kind, "idle");
    assert.deepEqual(gaps, [[1, 2]]);
    assert.equal(v.heads.unsafe.number, 0);
    // 1 and 2 arrive (2 twice): 1, 2, 3 go in, in order.
    v.driver.addUnsafePayload(envs[1]!);
    v.driver.addUnsafePayload(envs[1]!);
    v.driver.addUnsafePayload(envs[0]!);
    assert.equal(v.driver.unsafeQueued, 3);
    for (let i = 1; i <= 3; i++) {
      const s = await v.driver.step();
      assert.equal(s.kind, "unsafe");
      assert.equal(v.heads.unsafe.number, i);
    }
    assert.equal(bytesToHex(v.heads.unsafe.hash), bytesToHex(envs[2]!.blockHash));
    // A stale payload is not even queued.
    v.driver.addUnsafePayload(envs[0]!);
    assert.equal(v.driver.unsafeQueued, 0);
    assert.equal(v.driver.counters.unsafeInserted, 3);
  });

  it("a payload of another fork at the next height is dropped; the right one still goes in", async () => {
    const a = new Rollup();
    for (let i = 0; i < 2; i++) await a.sequencer.buildBlock();
    const v = a.verifier();
    await v.sync();
    v.driver.addUnsafePayload(a.sequencer.envelopes[0]!);
    await v.driver.step();
    // Block 2 of another chain (its parent is not our block 1): same height, different parent.
    const env2 = a.sequencer.envelopes[1]!;
    const forked = {
      ...env2,
      blockHash: new Uint8Array(32).fill(7),
      executionPayload: { ...env2.executionPayload, parentHash: `0x${"11".repeat(32)}` },
    };
    v.driver.addUnsafePayload(forked);
    assert.equal((await v.driver.step()).kind, "idle");
    assert.equal(v.driver.counters.unsafeDropped, 1);
    v.driver.addUnsafePayload(env2);
    assert.equal((await v.driver.step()).kind, "unsafe");
    assert.equal(v.heads.unsafe.number, 2);
  });

  it("a payload the engine refuses is dropped and the driver goes on", async () => {
    const r = new Rollup();
    await r.sequencer.buildBlock();
    const v = r.verifier();
    await v.sync();
    const env = r.sequencer.envelopes[0]!;
    // Same parent, a state root the engine cannot reproduce: newPayload answers INVALID.
    const bad = {
      ...env,
      executionPayload: { ...env.executionPayload, stateRoot: `0x${"ab".repeat(32)}` },
    };
    v.driver.addUnsafePayload(bad);
    const s = await v.driver.step();
    assert.notEqual(s.kind, "critical");
    assert.equal(v.heads.unsafe.number, 0);
    assert.ok(v.driver.counters.unsafeDropped >= 1);
    v.driver.addUnsafePayload(env);
    await v.driver.step();
    assert.equal(v.heads.unsafe.number, 1);
  });

  it("derivation consolidates with the blocks gossip brought", async () => {
    const r = new Rollup();
    await r.sequencer.catchUpToL1();
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    const v = r.verifier();
    await v.sync();
    for (const e of r.sequencer.envelopes) v.driver.addUnsafePayload(e);
    await v.sync();
    assert.equal(v.heads.unsafe.number, r.sequencer.unsafe.number);
    await r.miner.mine(await r.batcher.batchTxs());
    await v.sync();
    assert.equal(v.heads.safe.number, r.sequencer.unsafe.number);
    assert.ok(v.driver.counters.consolidated > 0);
    assert.equal(v.driver.counters.derived, 0);
  });
});
