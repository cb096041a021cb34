/**
 * Reliability scenarios of the rollup node against its L1 (issue 10 point 5), on the action harness:
 * L1 reorgs of 1, 5 and 20 blocks under a sequencer node and a verifier, and the batcher stopping for
 * longer than the sequencing window. Each ends with the nodes on the same chain as a reference
 * verifier that derives from the final L1 only.
 */
import { strict as assert } from "node:assert";
import { devAccounts } from "../../../../src/node/exec/devGenesis.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import {
  assertCanonicalOrigins,
  assertSameChain,
  batchTxs,
  hashAt,
  l1NonceAt,
  SequencerNode,
} from "../../../reliability/scenarioHarness.js";
import { l2Transfer, Rollup } from "../../../utils/actions/rollup.js";

/** The L2 nonce of the dev account the user txs come from, at the node's unsafe head. */
async function sentIncluded(seq: SequencerNode): Promise<bigint> {
  const n = await seq.exec.rpc.call<string>("eth_getTransactionCount", [
    bytesToHex(devAccounts()[0]!.address),
    "latest",
  ]);
  return BigInt(n);
}

/** Posts everything the node has past its safe head in a new L1 block, then lets the node catch up to it. */
async function batchAndMine(r: Rollup, seq: SequencerNode, extra: Uint8Array[] = []) {
  const txs = await batchTxs(r, seq, seq.heads.safe.number + 1, seq.heads.unsafe.number);
  const b = await r.miner.mine([...extra, ...txs]);
  await seq.runUntil(b.timestamp);
  return b;
}

describe("reliability scenarios: L1", function () {
  this.timeout(90_000);

  for (const depth of [1, 5, 20]) {
    it(`[scenario] L1 reorg of ${depth} block(s) under a sequencer and a verifier: unsafe chain rebuilt on the new L1, safe head re-derived, both equal to a reference derivation`, async () => {
      // The window is longer than the reorg, so the rebuilt blocks can still be batched on the new L1.
      const r = new Rollup({ seqWindowSize: depth + 10, blockTime: 4 });
      const seq = new SequencerNode(r);
      const v = r.verifier();
      seq.onBlock = (env) => v.driver.addUnsafePayload(env);
      let nonce = 0n;
      const userTx = () => seq.exec.rpc.call("eth_sendRawTransaction", [bytesToHex(l2Transfer(nonce++))]);

      const K = depth + 2;
      for (let i = 1; i <= K; i++) {
        await userTx();
        await batchAndMine(r, seq);
      }
      await v.sync();
      const F = K - depth;
      const oldSafe = v.heads.safe;
      const oldUnsafe = seq.heads.unsafe;
      assert.ok(oldSafe.l1origin.number >= F, "safe blocks were derived from L1 blocks the reorg removes");
      assert.equal(v.heads.unsafe.number, oldUnsafe.number, "the verifier had the sequencer's blocks by gossip");
      // Heights whose block has an L1 origin above the fork point (they must all be rebuilt).
      const doomed: [number, string][] = [];
      for (let n = 1; n <= oldUnsafe.number; n++) {
        const ref = await seq.engine.l2BlockRefByNumber(n);
        if (ref.l1origin.number > F) doomed.push([n, bytesToHex(ref.hash)]);
      }
      assert.ok(doomed.length > 0);

      // The reorg: L1 blocks F+1..K replaced by depth+1 other blocks (a heavier fork), without the batches.
      r.miner.setNonce(r.batcherAccount, await l1NonceAt(r, F));
      const marker = r.miner.tx(r.miner.accounts[5]!, new Uint8Array(20).fill(0x77), Uint8Array.of(depth));
      const fork = await r.miner.mine([marker], r.miner.refOf(F).hash);
      for (let i = 0; i < depth; i++) await r.miner.mine();
      assert.equal(r.miner.headRef().number, K + 1);
      assert.notEqual(bytesToHex(fork.hash), bytesToHex(seq.heads.unsafe.l1origin.hash));

      // The sequencer's loop sees the new L1 before the driver's does: it may extend its chain on the
      // old origin for the rest of that epoch, but cannot move to an origin of the new chain.
      const resetsBefore = seq.driver.counters.resets;
      seq.now = r.miner.headRef().timestamp;
      let step = await seq.sequencer.step();
      while (step.kind === "built") step = await seq.sequencer.step();
      assert.equal(step.kind, "failed", "no block on an origin whose parent is not the current origin");
      // As op-node's sequencer, it asks the driver for a reset at once (a ResetEvent).
      assert.match(step.kind === "failed" ? step.error : "", /cannot build new L2 block with L1 origin/);
      assert.equal(seq.resetRequests, 1, "the sequencer asked for the reset");
      // The driver resets, the sequencer rebuilds on the new origins; the batcher posts again.
      await seq.runUntil(r.miner.headRef().timestamp);
      assert.ok(seq.driver.counters.resets > resetsBefore, "the sequencer node reset on the L1 reorg");
      await userTx();
      await batchAndMine(r, seq);
      await batchAndMine(r, seq);
      await batchAndMine(r, seq);
      assert.equal(await sentIncluded(seq), nonce, "every user tx is in the rebuilt chain (none lost, none twice)");

      // Sequencer: every block on a canonical origin; the blocks on removed origins were replaced.
      const unsafe = seq.heads.unsafe;
      assert.ok(unsafe.number > oldUnsafe.number);
      await assertCanonicalOrigins(r, seq, unsafe.number, "sequencer");
      for (const [n, old] of doomed) assert.notEqual(await hashAt(seq, n), old, `L2 ${n} was rebuilt`);

      // Verifier: re-derived from the new L1; the same chain as a fresh derivation of it.
      await v.sync();
      const ref = r.verifier();
      await ref.sync();
      const safe = ref.heads.safe;
      assert.ok(safe.number > oldSafe.number, "the reference derived past the old safe head");
      assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(safe.hash), "verifier safe head = reference");
      assert.equal(bytesToHex(seq.heads.safe.hash), bytesToHex(safe.hash), "sequencer safe head = reference");
      await assertSameChain(v, ref, safe.number, "verifier vs reference");
      await assertSameChain(seq, ref, safe.number, "sequencer vs reference");
      await assertCanonicalOrigins(r, v, v.heads.unsafe.number, "verifier");
      assert.ok(v.driver.counters.resets >= 2, "the verifier reset on the L1 reorg");
    });
  }

  it("[scenario] the batcher stops for longer than the sequencing window: deposit-only blocks are forced, the unbatched unsafe blocks replaced, then batching resumes and every node converges", async () => {
    const W = 6;
    const r = new Rollup({ seqWindowSize: W, blockTime: 4 });
    const seq = new SequencerNode(r);
    const v = r.verifier();
    seq.onBlock = (env) => v.driver.addUnsafePayload(env);
    let nonce = 0n;
    const userTx = async () => {
      await seq.exec.rpc.call("eth_sendRawTransaction", [bytesToHex(l2Transfer(nonce++))]);
    };

    // Healthy: user txs, batches every L1 block.
    for (let i = 1; i <= 3; i++) {
      await userTx();
      await batchAndMine(r, seq);
    }
    await v.sync();
    const before = seq.heads.safe;
    assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(before.hash));
    assert.ok(before.number > 0);

    // The batcher stops for W + 4 L1 blocks; the sequencer keeps sequencing user txs.
    const outage = W + 4;
    const builtBefore = seq.sequencer.counters.built;
    for (let i = 0; i < outage; i++) {
      await userTx();
      const b = await r.miner.mine();
      await seq.runUntil(b.timestamp);
    }
    assert.ok(seq.sequencer.counters.built > builtBefore, "the sequencer went on");
    const forcedSafe = seq.heads.safe;
    assert.ok(forcedSafe.number > before.number, "the window passed: the safe head moved without batches");
    const lastForcedEpoch = forcedSafe.l1origin.number;
    assert.ok(lastForcedEpoch >= r.miner.headRef().number - W - 1);
    for (let n = before.number + 1; n <= forcedSafe.number; n++) {
      const txs = await seq.engine.transactionsByNumber(n);
      assert.equal(txs.length, 1, `L2 ${n} is deposit-only (L1-info tx only)`);
      assert.equal(txs[0]![0], 0x7e);
    }
    assert.ok(seq.driver.counters.reorgs >= 1, "unbatched unsafe blocks with user txs were replaced");
    await v.sync();
    assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(forcedSafe.hash), "the verifier forced the same blocks");
    await assertSameChain(v, seq, forcedSafe.number, "verifier vs sequencer (deposit-only)");
    assert.ok(v.driver.counters.reorgs >= 1, "the verifier's gossiped unsafe blocks were replaced too");

    // The batcher comes back: it posts from the safe head on, and batches derive again.
    await userTx();
    await batchAndMine(r, seq);
    await userTx();
    await batchAndMine(r, seq);
    await batchAndMine(r, seq);
    const safe = seq.heads.safe;
    assert.ok(safe.number > forcedSafe.number);
    let userTxs = 0;
    for (let n = forcedSafe.number + 1; n <= safe.number; n++) {
      userTxs += (await seq.engine.transactionsByNumber(n)).filter((t) => t[0] !== 0x7e).length;
    }
    assert.ok(userTxs > 0, "blocks with user txs became safe again from batches");
    await v.sync();
    const ref = r.verifier();
    await ref.sync();
    assert.equal(bytesToHex(ref.heads.safe.hash), bytesToHex(safe.hash), "reference safe head = sequencer");
    assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(safe.hash), "verifier safe head = sequencer");
    await assertSameChain(v, ref, safe.number, "verifier vs reference");
    await assertSameChain(seq, ref, safe.number, "sequencer vs reference");
    // Every user tx sent made it into the chain once (the replaced blocks' txs went back to the pool).
    assert.equal(await sentIncluded(seq), nonce);
  });
});
