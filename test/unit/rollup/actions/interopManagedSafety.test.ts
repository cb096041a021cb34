/**
 * Action test of interop managed mode's safety heads (op-node engine controller: LocalSafeUpdateEvent
 * promotes pre-Interop blocks only, PromoteSafe / promoteFinalized from the supervisor; finalizer
 * onDerivedSafeBlock stops at Interop). Interop 12 s after genesis with block time 2: blocks 1–5
 * are pre-Interop, 6 on are Interop blocks. A managed verifier and a plain one derive the same
 * batches: the plain one's safe head follows derivation; the managed one's stops at block 5 while its
 * local-safe head follows derivation, and moves only with the supervisor's cross-safe promotions —
 * in the engine's own "safe" label too; L1 finality finalizes only its pre-Interop blocks; the
 * supervisor's finalized block becomes the engine's "finalized" label.
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import type { L2BlockRef } from "../../../../src/rollup/refs.js";
import { Rollup, recordingLog, type Verifier } from "../../../utils/actions/rollup.js";

const FORKS = { karst: 0, interop: 12 } as const;
const LAST_PRE_INTEROP = 5;

const hex = bytesToHex;

/** The engine's block at a label, as number and hash. */
async function label(v: Verifier, at: "safe" | "finalized"): Promise<{ number: number; hash: string }> {
  const b = await v.engine.blockRef(at);
  assert.ok(b !== null, `the engine has a ${at} block`);
  return { number: b.number, hash: hex(b.hash) };
}

const id = (r: L2BlockRef) => ({ number: r.number, hash: hex(r.hash) });

describe("actions: interop managed mode — local-safe from derivation, safe and finalized from the supervisor", function () {
  this.timeout(60_000);

  it("derivation moves local-safe; cross-safe and finalized move the engine's forkchoice; L1 finality stops at Interop", async () => {
    const r = new Rollup({ forks: FORKS });
    const log = recordingLog();
    const managed = r.verifier(log, { managed: true });
    const plain = r.verifier();
    await r.miner.mine();
    while (r.sequencer.unsafe.number < 9) await r.sequencer.buildBlock();
    // Pre-Interop blocks in one channel, Interop blocks in the next: each block concludes a batch.
    await r.miner.mine(await r.batcher.batchTxs({ upTo: LAST_PRE_INTEROP }));
    const l1Pre = r.miner.headRef();
    await r.miner.mine(await r.batcher.batchTxs());
    const l1Batch = r.miner.headRef();
    await managed.sync();
    await plain.sync();
    const seq = (n: number) => r.sequencer.engine.blockRef(n) as Promise<L2BlockRef>;
    const b5 = await seq(LAST_PRE_INTEROP);
    const b7 = await seq(7);
    const b9 = await seq(9);

    // Without a supervisor the safe head follows derivation.
    assert.deepEqual(id(plain.heads.safe), id(b9));
    assert.deepEqual(await label(plain, "safe"), id(b9));
    // Managed: the same blocks, local-safe at the tip, safe only through the pre-Interop blocks.
    assert.deepEqual(id(managed.heads.unsafe), id(b9));
    assert.deepEqual(id(managed.heads.localSafe), id(b9));
    assert.deepEqual(id(managed.heads.safe), id(b5), "Interop blocks wait for the supervisor");
    assert.deepEqual(await label(managed, "safe"), id(b5), "the engine's safe label too");
    const st = managed.driver.syncStatus();
    assert.equal(st.localSafeL2?.number, 9);
    assert.equal(st.safeL2.number, LAST_PRE_INTEROP);
    assert.equal(plain.driver.syncStatus().localSafeL2, undefined, "no local-safe head apart without a supervisor");

    // L1 finalizes the batches: the plain verifier finalizes all, the managed one the pre-Interop blocks.
    await r.miner.mine();
    await plain.sync();
    await managed.sync();
    await r.miner.finalize(l1Batch.number);
    await plain.driver.onL1Finalized(r.miner.refOf(l1Batch.number));
    await managed.driver.onL1Finalized(r.miner.refOf(l1Batch.number));
    assert.equal(plain.heads.finalized.number, 9);
    assert.deepEqual(id(managed.heads.finalized), id(b5));
    assert.deepEqual(await label(managed, "finalized"), id(b5));

    // The supervisor promotes block 7 to cross-safe and finalizes block 6.
    const c = managed.driver.controller;
    assert.equal(await c.promoteCrossSafe(b7, l1Batch), true);
    assert.deepEqual(id(c.state.safe), id(b7));
    assert.deepEqual(await label(managed, "safe"), id(b7));
    assert.deepEqual(id(c.state.localSafe), id(b9), "local-safe stays");
    // L1 finality does not finalize the cross-safe Interop block: that is the supervisor's call.
    await r.miner.mine();
    await managed.sync();
    await r.miner.finalize(r.miner.headRef().number);
    await managed.driver.onL1Finalized(r.miner.headRef());
    assert.deepEqual(await label(managed, "finalized"), id(b5));
    const b6 = await seq(6);
    assert.equal(await c.promoteFinalized(b6), true);
    assert.deepEqual(await label(managed, "finalized"), id(b6));
    // Finality never goes back; a block that is not canonical is dropped with a warning.
    assert.equal(await c.promoteFinalized(b5), false);
    assert.deepEqual(await label(managed, "finalized"), id(b6));
    const stranger: L2BlockRef = { ...(await seq(8)), hash: new Uint8Array(32).fill(0xee) };
    assert.equal(await c.promoteCrossSafe(stranger, l1Batch), false);
    assert.deepEqual(await label(managed, "safe"), id(b7));
    assert.ok(
      log.lines.some((l) => l.includes("no longer canonical")),
      log.lines.join("\n"),
    );

    // A promotion above the local-safe head: safe goes to local-safe, then follows derivation up to it.
    while (r.sequencer.unsafe.number < 13) await r.sequencer.buildBlock();
    for (const env of r.sequencer.envelopes.slice(9)) assert.equal(await c.insertUnsafePayload(env), true);
    const b12 = await seq(12);
    assert.equal(await c.promoteCrossSafe(b12, l1Batch), true);
    assert.deepEqual(await label(managed, "safe"), id(b9), "capped at the local-safe head");
    assert.equal(await c.promoteFinalized(b12), true);
    assert.deepEqual(await label(managed, "finalized"), id(b9), "finalized capped at safe");
    await r.miner.mine(await r.batcher.batchTxs());
    await managed.sync();
    assert.deepEqual(id(c.state.localSafe), id(r.sequencer.unsafe));
    assert.deepEqual(await label(managed, "safe"), id(b12), "the promotion applied as derivation reached it");
    assert.deepEqual(await label(managed, "finalized"), id(b12));
    assert.equal(c.state.safe.number, 12, "and no further: block 13 is local-safe only");
    assert.equal(l1Pre.number < l1Batch.number, true);

    // Outside managed mode the supervisor's promotions do not exist.
    await assert.rejects(plain.driver.controller.promoteCrossSafe(b7, l1Batch), /managed mode/);
  });
});
