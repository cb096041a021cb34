/**
 * Action tests of batches (op-e2e actions l2_verifier / span batch / Holocene tests): span batches
 * over several epochs, invalid batches, batch ordering before and after Holocene, Holocene steady
 * block derivation, the sequencing window (deposit-only blocks), and consolidation of unsafe blocks
 * with what L1 says. Every test compares the verifier's safe chain to the sequencer's block by block.
 */
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import type { RollupFork } from "../../../../src/rollup/config/rollupConfig.js";
import { preparePayloadAttributes } from "../../../../src/rollup/derive/attributes.js";
import { encodeSingularBatch } from "../../../../src/rollup/derive/batch.js";
import type { SingularBatch } from "../../../../src/rollup/derive/batchTypes.js";
import { compressChannel } from "../../../../src/rollup/derive/channelReader.js";
import { encodeFramesTxData } from "../../../../src/rollup/derive/frame.js";
import type { PayloadEnvelope } from "../../../../src/rollup/engine/engineClient.js";
import type { BlockId, L2BlockRef } from "../../../../src/rollup/refs.js";
import { BATCH_INBOX } from "../../../utils/actions/l1Miner.js";
import { l2Transfer, Rollup, recordingLog, type Verifier } from "../../../utils/actions/rollup.js";

type Forks = Partial<Record<RollupFork, number | null>>;

const PRE_HOLOCENE: Forks = { holocene: null, isthmus: null, jovian: null };
const HOLOCENE: Forks = {};
const FORK_SETS: readonly [string, Forks][] = [
  ["pre-Holocene", PRE_HOLOCENE],
  ["Holocene", HOLOCENE],
];

const DEPOSIT_TX_TYPE = 0x7e;

/** Nonces of the first dev account handed out so far, per rollup. */
class Nonces {
  private n = 0n;
  next(): bigint {
    const v = this.n;
    this.n += 1n;
    return v;
  }
  get value(): bigint {
    return this.n;
  }
}

/**
 * Builds the sequencer's next block like `Sequencer.buildBlock` does, but returns the payload
 * envelope too (to hand the same block to a verifier as an unsafe payload).
 */
async function seqBuild(r: Rollup, txs: readonly Uint8Array[] = []): Promise<PayloadEnvelope> {
  const s = r.sequencer;
  const parent = s.unsafe;
  let origin: BlockId = parent.l1origin;
  const next = await s.l1.l1BlockRefByNumber(origin.number + 1);
  if (next !== null && next.timestamp <= parent.timestamp + r.cfg.blockTime) {
    origin = { hash: next.hash, number: next.number };
  }
  const attrs = await preparePayloadAttributes(r.cfg, { l1: s.l1, l2: s.engine, l1Chain: null }, parent, origin);
  const { envelope } = await s.controller.buildUnsafe({
    ...attrs,
    transactions: [...attrs.transactions, ...txs],
    noTxPool: true,
  });
  return envelope;
}

/** Builds blocks (one user tx each) until the unsafe head's L1 origin is the L1 head; returns their envelopes. */
async function catchUpWithTxs(r: Rollup, nonces: Nonces): Promise<PayloadEnvelope[]> {
  const out: PayloadEnvelope[] = [];
  const head = r.miner.headRef().number;
  while (r.sequencer.unsafe.l1origin.number < head) out.push(await seqBuild(r, [l2Transfer(nonces.next())]));
  return out;
}

async function hashOf(v: { engine: { l2BlockRefByNumber(n: number): Promise<L2BlockRef> } }, n: number) {
  return bytesToHex((await v.engine.l2BlockRefByNumber(n)).hash);
}

/** The verifier's blocks 1..upTo are the sequencer's, hash for hash. */
async function assertSameBlocks(r: Rollup, v: Verifier, upTo: number): Promise<void> {
  for (let n = 1; n <= upTo; n++) {
    assert.equal(await hashOf(v, n), await hashOf(r.sequencer, n), `L2 block ${n} differs from the sequencer's`);
  }
}

/** The verifier's safe head is block `upTo` and blocks 1..upTo are the sequencer's, hash for hash. */
async function assertSafeChain(r: Rollup, v: Verifier, upTo: number): Promise<void> {
  assert.equal(v.heads.safe.number, upTo, "verifier safe head number");
  await assertSameBlocks(r, v, upTo);
  assert.equal(bytesToHex(v.heads.safe.hash), await hashOf(r.sequencer, upTo), "verifier safe head hash");
}

/** The verifier's unsafe head is its safe head (nothing was built past the safe chain). */
function assertNothingPastSafe(v: Verifier): void {
  assert.equal(v.heads.unsafe.number, v.heads.safe.number, "verifier unsafe head should be its safe head");
}

/** Rewrites the batch of L2 block `n` (batches start at block `from`). */
function mutateBlock(from: number, n: number, f: (b: SingularBatch) => SingularBatch) {
  return (bs: SingularBatch[]): SingularBatch[] => bs.map((b, i) => (from + i === n ? f(b) : b));
}

/** The reasons of every batch check that did not accept, as the verifier's pipeline reports them. */
function watchBatchChecks(v: Verifier): string[] {
  const reasons: string[] = [];
  v.driver.pipeline.batches.observer = (c) => reasons.push(c.reason);
  return reasons;
}

/** A batcher tx carrying `batches` as singular batches in one channel (for batches built by hand). */
function handBatchTx(r: Rollup, batches: readonly SingularBatch[]): Uint8Array {
  const data = compressChannel(batches.map(encodeSingularBatch), "zlib");
  const txData = encodeFramesTxData([
    { channelId: new Uint8Array(randomBytes(16)), frameNumber: 0, data, isLast: true },
  ]);
  return r.miner.tx(r.batcherAccount, BATCH_INBOX, txData, 21_000n + 16n * BigInt(txData.length) + 100_000n);
}

/**
 * L1 blocks 1 and 2, then the sequencer's blocks up to origin 2 (1..12: block 6 is the first of
 * epoch 1, block 12 the first of epoch 2) and `extra` more in epoch 2, every block after genesis
 * with one user tx.
 */
async function twoEpochs(forks: Forks, extra = 2): Promise<{ r: Rollup; nonces: Nonces }> {
  const r = new Rollup({ forks });
  const nonces = new Nonces();
  await r.miner.mine();
  await r.miner.mine();
  await catchUpWithTxs(r, nonces);
  assert.equal(r.sequencer.unsafe.number, 12);
  for (let i = 0; i < extra; i++) await seqBuild(r, [l2Transfer(nonces.next())]);
  return { r, nonces };
}

describe("actions: batches", function () {
  this.timeout(60_000);

  for (const [name, forks] of FORK_SETS) {
    describe(`(a) span batches, ${name}`, () => {
      it("a span batch over several epochs derives the same chain as singular batches", async () => {
        // Two identical rollups (empty L1 blocks only, so the same L2 blocks); one batches spans.
        const build = async (): Promise<Rollup> => {
          const r = new Rollup({ forks });
          const nonces = new Nonces();
          for (let i = 0; i < 3; i++) await r.miner.mine();
          await catchUpWithTxs(r, nonces);
          for (let i = 0; i < 3; i++) await seqBuild(r, [l2Transfer(nonces.next()), l2Transfer(nonces.next())]);
          return r;
        };
        const rs = await build();
        const rp = await build();
        const top = rs.sequencer.unsafe.number;
        assert.equal(rp.sequencer.unsafe.number, top);
        const epochs = new Set<number>();
        for (let n = 1; n <= top; n++) {
          assert.equal(await hashOf(rs.sequencer, n), await hashOf(rp.sequencer, n), "sequencers should agree");
          epochs.add((await rs.sequencer.engine.l2BlockRefByNumber(n)).l1origin.number);
        }
        assert.ok(epochs.size >= 4, `blocks should span several epochs, got ${[...epochs].join(",")}`);

        const spanTxs = await rs.batcher.batchTxs({ span: true });
        assert.equal(spanTxs.length, 1);
        await rs.miner.mine(spanTxs);
        const vs = rs.verifier();
        await vs.sync();
        await assertSafeChain(rs, vs, top);

        await rp.miner.mine(await rp.batcher.batchTxs());
        const vp = rp.verifier();
        await vp.sync();
        await assertSafeChain(rp, vp, top);
        for (let n = 1; n <= top; n++) assert.equal(await hashOf(vs, n), await hashOf(vp, n), `block ${n}`);
      });

      it("a brotli span batch split into frames over two L1 blocks is derived once complete", async () => {
        const { r } = await twoEpochs(forks, 4);
        const top = r.sequencer.unsafe.number;
        const frames = await r.batcher.channelFrames({ span: true, algo: "brotli", maxFrameData: 200 });
        assert.ok(frames.length >= 2, `expected several frames, got ${frames.length}`);
        const half = Math.ceil(frames.length / 2);
        const v = r.verifier();
        await r.miner.mine(r.batcher.txsFor(frames.slice(0, half)));
        await v.sync();
        assert.equal(v.heads.safe.number, 0);
        await r.miner.mine(r.batcher.txsFor(frames.slice(half)));
        await v.sync();
        await assertSafeChain(r, v, top);
      });
    });
  }

  for (const [name, forks] of FORK_SETS) {
    describe(`(b) invalid batches, ${name}`, () => {
      const holocene = forks === HOLOCENE;
      const cases: readonly { what: string; f: (b: SingularBatch, r: Rollup) => SingularBatch; reason: RegExp }[] = [
        {
          what: "wrong parent hash",
          f: (b) => ({ ...b, parentHash: new Uint8Array(randomBytes(32)) }),
          reason: /parent hash does not match/,
        },
        {
          what: "wrong epoch hash",
          f: (b) => ({ ...b, epochHash: new Uint8Array(randomBytes(32)) }),
          reason: /epoch hash does not match/,
        },
        {
          what: "timestamp parent+blockTime+1",
          f: (b) => ({ ...b, timestamp: b.timestamp + 1 }),
          reason: holocene ? /future batch/ : /after next/,
        },
        {
          what: "timestamp parent+blockTime-1",
          f: (b) => ({ ...b, timestamp: b.timestamp - 1 }),
          reason: holocene ? /before next/ : /old batch/,
        },
        {
          what: "epoch older than the safe head's",
          f: (b, r) => ({ ...b, epochNum: 1, epochHash: r.miner.refOf(1).hash }),
          reason: /epoch 1 older than the safe head's 2/,
        },
      ];
      for (const c of cases) {
        it(`${c.what} → dropped, the safe head stops before it; a correct resubmission is derived`, async () => {
          // Blocks 1..14; block 13 is the second of epoch 2 (its parent 12 already has origin 2).
          const { r } = await twoEpochs(forks);
          const v = r.verifier();
          const reasons = watchBatchChecks(v);
          await r.miner.mine(await r.batcher.batchTxs({ mutate: mutateBlock(1, 13, (b) => c.f(b, r)) }));
          await v.sync();
          await assertSafeChain(r, v, 12);
          assertNothingPastSafe(v);
          assert.ok(
            reasons.some((x) => c.reason.test(x)),
            `expected a batch check matching ${c.reason}: ${reasons.join("; ")}`,
          );
          // Blocks 13 and 14 again, correct, in a fresh channel.
          r.batcher.submitted = 12;
          await r.miner.mine(await r.batcher.batchTxs());
          await v.sync();
          await assertSafeChain(r, v, 14);
        });
      }
    });
  }

  describe("(c) batch ordering across channels", () => {
    /** Blocks 1..12 derived; blocks 13 and 14 built; channel for 14 first, the one for 13 next. */
    const reversed = async (forks: Forks) => {
      const { r } = await twoEpochs(forks, 0);
      const v = r.verifier();
      const reasons = watchBatchChecks(v);
      await r.miner.mine(await r.batcher.batchTxs());
      await v.sync();
      await assertSafeChain(r, v, 12);
      await seqBuild(r, [l2Transfer(12n)]);
      await seqBuild(r, [l2Transfer(13n)]);
      const frames13 = await r.batcher.channelFrames({ upTo: 13 });
      const frames14 = await r.batcher.channelFrames({ upTo: 14 });
      // Signed in submission order (batcher nonces): 14 first.
      const for14 = r.batcher.txsFor(frames14);
      const for13 = r.batcher.txsFor(frames13);
      return { r, v, reasons, for13, for14 };
    };

    it("pre-Holocene: N+2 in one L1 block and N+1 in the next → the future batch waits, both derived", async () => {
      const { r, v, for13, for14 } = await reversed(PRE_HOLOCENE);
      await r.miner.mine(for14);
      await v.sync();
      await assertSafeChain(r, v, 12);
      await r.miner.mine(for13);
      await v.sync();
      await assertSafeChain(r, v, 14);
    });

    it("pre-Holocene: N+2 and N+1 in one L1 block (N+2 first) → both derived", async () => {
      const { r, v, for13, for14 } = await reversed(PRE_HOLOCENE);
      await r.miner.mine([...for14, ...for13]);
      await v.sync();
      await assertSafeChain(r, v, 14);
    });

    it("Holocene: N+2 first is dropped as future; N+1 is derived; a re-sent N+2 then is", async () => {
      const { r, v, reasons, for13, for14 } = await reversed(HOLOCENE);
      await r.miner.mine(for14);
      await v.sync();
      await assertSafeChain(r, v, 12);
      assert.ok(
        reasons.some((x) => /future batch/.test(x)),
        `N+2 should be dropped as future: ${reasons.join("; ")}`,
      );
      await r.miner.mine(for13);
      await v.sync();
      // N+2 was dropped, not buffered: only N+1 is derived.
      await assertSafeChain(r, v, 13);
      assertNothingPastSafe(v);
      r.batcher.submitted = 13;
      await r.miner.mine(await r.batcher.batchTxs());
      await v.sync();
      await assertSafeChain(r, v, 14);
    });

    it("Holocene: N+2 and N+1 in one L1 block (N+2 first) → only N+1 derived", async () => {
      const { r, v, for13, for14 } = await reversed(HOLOCENE);
      await r.miner.mine([...for14, ...for13]);
      await v.sync();
      await assertSafeChain(r, v, 13);
      assertNothingPastSafe(v);
    });
  });

  describe("(d) a batch whose transaction the engine refuses", () => {
    const refusals: readonly { what: string; tx: () => Uint8Array }[] = [
      { what: "nonce gap", tx: () => l2Transfer(100n) },
      { what: "unfunded sender", tx: () => l2Transfer(0n, { key: new Uint8Array(randomBytes(32)) }) },
    ];
    for (const refusal of refusals) {
      /** Blocks 1..9 (7, 8, 9 with user txs); block 8's batch carries the refused tx instead of its own. */
      const run = async (forks: Forks) => {
        const r = new Rollup({ forks });
        await r.miner.mine();
        await r.sequencer.catchUpToL1();
        for (let i = 0n; i < 3n; i++) await r.sequencer.buildBlock([l2Transfer(i)]);
        assert.equal(r.sequencer.unsafe.number, 9);
        const bad = refusal.tx();
        const log = recordingLog();
        const v = r.verifier(log);
        const reasons = watchBatchChecks(v);
        await r.miner.mine(
          await r.batcher.batchTxs({ mutate: mutateBlock(1, 8, (b) => ({ ...b, transactions: [bad] })) }),
        );
        await v.sync();
        return { r, v, log, reasons };
      };

      // Skipped: bug in src/rollup/engine/engineController.ts `build` — the engine's -38003 (invalid payload attributes) answer to forkchoiceUpdated is thrown as a temporary error and retried forever instead of being an invalid payload.
      it(`Holocene (${refusal.what}): a deposit-only block at that height, the rest of the channel dropped`, async () => {
        const { r, v, log, reasons } = await run(HOLOCENE);
        assert.equal(v.heads.safe.number, 8, "the deposit-only block 8 is safe");
        await assertSameBlocks(r, v, 7);
        assertNothingPastSafe(v);
        const txs = await v.engine.transactionsByNumber(8);
        assert.equal(txs.length, 1, "block 8 should hold only the L1-info deposit");
        assert.equal(txs[0]![0], DEPOSIT_TX_TYPE);
        assert.notEqual(await hashOf(v, 8), await hashOf(r.sequencer, 8));
        assert.ok(
          log.lines.some((l) => l.includes("deposit-only")),
          log.lines.join("\n"),
        );
        // Block 9's batch was flushed with the channel: never checked (it would fail its parent check).
        assert.ok(!reasons.some((x) => /parent hash/.test(x)), `block 9's batch was checked: ${reasons.join("; ")}`);
      });

      // Skipped: same bug as above (engineController.ts `build` does not map -38003 to an invalid payload).
      it(`pre-Holocene (${refusal.what}): the batch is dropped, no block at that height`, async () => {
        const { r, v, log } = await run(PRE_HOLOCENE);
        await assertSafeChain(r, v, 7);
        assertNothingPastSafe(v);
        assert.equal((await v.engine.blockRef("latest"))?.number, 7, "the verifier's engine has no block 8");
        assert.ok(
          log.lines.some((l) => l.includes("dropping invalid derived attributes")),
          log.lines.join("\n"),
        );
      });
    }
  });

  describe("(e) sequencing window", () => {
    const W = 10;

    it("no batches for longer than the window → deposit-only blocks replace the unsafe ones; batches then derive again", async () => {
      const r = new Rollup({ seqWindowSize: W });
      const nonces = new Nonces();
      await r.miner.mine();
      const envs = await catchUpWithTxs(r, nonces);
      envs.push(await seqBuild(r, [l2Transfer(nonces.next())]));
      const batched = r.sequencer.unsafe.number;
      const prefixNonce = nonces.value;
      await r.miner.mine(await r.batcher.batchTxs());
      // The sequencer keeps building blocks with txs; the batcher posts nothing.
      const H = 16;
      while (r.miner.headRef().number < H) {
        await r.miner.mine();
        envs.push(...(await catchUpWithTxs(r, nonces)));
      }
      const top = r.sequencer.unsafe.number;
      assert.equal(envs.length, top);

      // The verifier has every unsafe block first.
      const log = recordingLog();
      const v = r.verifier(log);
      for (const env of envs) assert.ok(await v.driver.controller.insertUnsafePayload(env));
      assert.equal(v.heads.unsafe.number, top);
      await v.sync();

      // The batched blocks are consolidated as they are.
      await assertSameBlocks(r, v, batched);
      assert.equal(v.driver.counters.consolidated, batched);
      // Every epoch whose window has passed (origin ≤ H − W) is filled with deposit-only blocks, which
      // replace the sequencer's unsafe blocks (one reorg); the next epoch's window is still open.
      const safe = v.heads.safe;
      assert.equal(safe.l1origin.number, H - W, "safe head should end with the last epoch whose window passed");
      assert.ok(safe.timestamp + r.cfg.blockTime >= r.miner.refOf(H - W + 1).timestamp);
      assert.ok(safe.number > batched);
      for (let n = batched + 1; n <= safe.number; n++) {
        const txs = await v.engine.transactionsByNumber(n);
        assert.equal(txs.length, 1, `block ${n} should hold only the L1-info deposit`);
        assert.equal(txs[0]![0], DEPOSIT_TX_TYPE);
        assert.equal((await r.sequencer.engine.transactionsByNumber(n)).length, 2, `sequencer block ${n}`);
        assert.notEqual(await hashOf(v, n), await hashOf(r.sequencer, n), `block ${n} should differ`);
      }
      assert.equal(v.driver.counters.reorgs, 1);
      assert.equal(bytesToHex(v.heads.unsafe.hash), bytesToHex(safe.hash), "the unsafe blocks were reorged out");

      // One more L1 block: one more epoch of deposit-only blocks.
      await r.miner.mine();
      await v.sync();
      const safe2 = v.heads.safe;
      assert.equal(safe2.l1origin.number, H + 1 - W);
      assert.ok(safe2.number > safe.number);

      // A batch on the verifier's chain (first block of the next epoch, with a user tx) is derived.
      const epoch = r.miner.refOf(H + 2 - W);
      const tx = l2Transfer(prefixNonce);
      const batch: SingularBatch = {
        parentHash: safe2.hash,
        epochNum: epoch.number,
        epochHash: epoch.hash,
        timestamp: safe2.timestamp + r.cfg.blockTime,
        transactions: [tx],
      };
      await r.miner.mine([handBatchTx(r, [batch])]);
      await v.sync();
      assert.ok(v.heads.safe.number > safe2.number);
      const derived = await v.engine.l2BlockRefByNumber(safe2.number + 1);
      assert.equal(derived.l1origin.number, epoch.number);
      const txs = await v.engine.transactionsByNumber(safe2.number + 1);
      assert.equal(txs.length, 2);
      assert.equal(bytesToHex(txs[1]!), bytesToHex(tx), "the batch's user tx is in the derived block");
    });
  });

  describe("(f) consolidation of unsafe blocks", () => {
    it("unsafe blocks equal to what L1 says are consolidated (not rebuilt) and become safe", async () => {
      const r = new Rollup();
      const nonces = new Nonces();
      await r.miner.mine();
      const envs = await catchUpWithTxs(r, nonces);
      for (let i = 0; i < 3; i++) envs.push(await seqBuild(r, [l2Transfer(nonces.next())]));
      const top = r.sequencer.unsafe.number;
      const v = r.verifier();
      for (const env of envs) assert.ok(await v.driver.controller.insertUnsafePayload(env));
      await r.miner.mine(await r.batcher.batchTxs());
      await v.sync();
      await assertSafeChain(r, v, top);
      assert.equal(v.driver.counters.consolidated, top);
      assert.equal(v.driver.counters.derived, 0, "nothing should be built");
      assert.equal(v.driver.counters.reorgs, 0);
      assert.equal(bytesToHex(v.heads.unsafe.hash), await hashOf(r.sequencer, top));
    });

    it("an unsafe block that differs from L1 is reorged out and replaced by the derived one", async () => {
      const r = new Rollup();
      const nonces = new Nonces();
      await r.miner.mine();
      const envs = await catchUpWithTxs(r, nonces);
      const k = r.sequencer.unsafe.number + 1;
      const nonceK = nonces.value;
      for (let i = 0; i < 3; i++) envs.push(await seqBuild(r, [l2Transfer(nonces.next())]));
      const top = r.sequencer.unsafe.number;
      const v = r.verifier();
      for (const env of envs) assert.ok(await v.driver.controller.insertUnsafePayload(env));
      assert.equal(v.heads.unsafe.number, top);
      // L1 says block k holds another (valid) tx with the same nonce.
      const replaced = (await r.sequencer.engine.transactionsByNumber(k)).filter((t) => t[0] !== DEPOSIT_TX_TYPE);
      assert.equal(replaced.length, 1);
      const other = l2Transfer(nonceK, { value: 7n });
      await r.miner.mine(
        await r.batcher.batchTxs({ upTo: k, mutate: mutateBlock(1, k, (b) => ({ ...b, transactions: [other] })) }),
      );
      await v.sync();
      assert.equal(v.heads.safe.number, k);
      await assertSameBlocks(r, v, k - 1);
      assert.notEqual(bytesToHex(v.heads.safe.hash), await hashOf(r.sequencer, k));
      const txs = await v.engine.transactionsByNumber(k);
      assert.equal(bytesToHex(txs[1]!), bytesToHex(other));
      assert.equal(v.driver.counters.consolidated, k - 1);
      assert.equal(v.driver.counters.derived, 1);
      assert.equal(v.driver.counters.reorgs, 1);
      // The sequencer's blocks after k were built on the replaced block: no longer the verifier's chain.
      assert.equal(bytesToHex(v.heads.unsafe.hash), bytesToHex(v.heads.safe.hash));
    });
  });
});
