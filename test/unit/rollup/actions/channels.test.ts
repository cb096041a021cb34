/**
 * Action tests of channels and frames (op-e2e actions l2_batcher / channel tests): frames split over
 * many batcher txs and L1 blocks, out-of-order frames (bank vs Holocene assembler), channel timeouts
 * (bedrock, Granite, Holocene), interleaved channels, malformed batcher data, and batcher-tx
 * authentication. Every test compares the verifier's safe chain to the sequencer's block by block.
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import type { RollupFork } from "../../../../src/rollup/config/rollupConfig.js";
import { encodeFramesTxData, type Frame } from "../../../../src/rollup/derive/frame.js";
import { BATCH_INBOX } from "../../../utils/actions/l1Miner.js";
import { l2Transfer, Rollup, recordingLog, type Verifier } from "../../../utils/actions/rollup.js";

type Forks = Partial<Record<RollupFork, number | null>>;

const PRE_HOLOCENE: Forks = { holocene: null, isthmus: null, jovian: null };
const PRE_GRANITE: Forks = { granite: null, holocene: null, isthmus: null, jovian: null };
const HOLOCENE: Forks = {};

/**
 * A rollup whose sequencer has built the blocks of epochs 0 and 1 (1..6) and `extra` more, each of
 * those with two user txs (so a channel has enough incompressible data to be split into frames).
 */
async function setup(forks: Forks, extra = 4): Promise<Rollup> {
  const r = new Rollup({ forks });
  await r.miner.mine();
  await r.sequencer.catchUpToL1();
  let nonce = 0n;
  for (let i = 0; i < extra; i++) {
    await r.sequencer.buildBlock([l2Transfer(nonce), l2Transfer(nonce + 1n)]);
    nonce += 2n;
  }
  return r;
}

/** The verifier's safe head is block `upTo` and blocks 1..upTo are the sequencer's, hash for hash. */
async function assertSafeChain(r: Rollup, v: Verifier, upTo: number): Promise<void> {
  assert.equal(v.heads.safe.number, upTo, "verifier safe head number");
  for (let n = 1; n <= upTo; n++) {
    const want = await r.sequencer.engine.l2BlockRefByNumber(n);
    const got = await v.engine.l2BlockRefByNumber(n);
    assert.equal(bytesToHex(got.hash), bytesToHex(want.hash), `L2 block ${n} differs from the sequencer's`);
  }
  if (upTo > 0) {
    const head = await r.sequencer.engine.l2BlockRefByNumber(upTo);
    assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(head.hash), "verifier safe head hash");
  }
}

/** Nothing was derived: the verifier's safe head is still genesis. */
function assertNothingDerived(v: Verifier): void {
  assert.equal(v.heads.safe.number, 0, "verifier safe head should still be genesis");
  assert.equal(v.driver.counters.derived, 0, "no block should have been derived");
}

/** The frames of one channel for blocks submitted+1..upTo (default the unsafe head), split into exactly `n`. */
async function splitChannel(r: Rollup, n: number, last?: number): Promise<Frame[]> {
  const upTo = last ?? r.sequencer.unsafe.number;
  const from = r.batcher.submitted;
  const whole = await r.batcher.channelFrames({ upTo });
  assert.equal(whole.length, 1);
  // The same blocks again (same channel data, fresh channel id), cut into `n` frames.
  r.batcher.submitted = from;
  const frames = await r.batcher.channelFrames({ upTo, maxFrameData: Math.ceil(whole[0]!.data.length / n) });
  assert.equal(frames.length, n, `channel should be split into ${n} frames`);
  return frames;
}

function warned(lines: readonly string[], text: string): number {
  return lines.filter((l) => l.startsWith("warn") && l.includes(text)).length;
}

const FORK_SETS: readonly [string, Forks][] = [
  ["pre-Holocene", PRE_HOLOCENE],
  ["Holocene", HOLOCENE],
];

describe("actions: channels and frames", function () {
  this.timeout(60_000);

  for (const [name, forks] of FORK_SETS) {
    describe(`(a) one channel in many frames, ${name}`, () => {
      it("one frame per L1 tx, all in one L1 block: derived once the block is read", async () => {
        const r = await setup(forks);
        const frames = await splitChannel(r, 8);
        const txs = r.batcher.txsFor(frames, 1);
        assert.equal(txs.length, 8);
        await r.miner.mine(txs);
        const v = r.verifier();
        await v.sync();
        await assertSafeChain(r, v, r.sequencer.unsafe.number);
      });

      it("frames spread over several L1 blocks: nothing derived until the last frame lands", async () => {
        const r = await setup(forks);
        const frames = await splitChannel(r, 8);
        const txs = r.batcher.txsFor(frames, 1);
        const v = r.verifier();
        // 3 + 3 + 2 frame txs in three consecutive L1 blocks.
        await r.miner.mine(txs.slice(0, 3));
        await v.sync();
        assertNothingDerived(v);
        await r.miner.mine(txs.slice(3, 6));
        await v.sync();
        assertNothingDerived(v);
        await r.miner.mine(txs.slice(6));
        await v.sync();
        await assertSafeChain(r, v, r.sequencer.unsafe.number);
      });

      it("frames with empty L1 blocks in between: derived once the closing frame lands", async () => {
        const r = await setup(forks);
        const frames = await splitChannel(r, 4);
        const txs = r.batcher.txsFor(frames, 1);
        const v = r.verifier();
        for (let i = 0; i < txs.length; i++) {
          await r.miner.mine([txs[i]!]);
          await r.miner.mine();
          await v.sync();
          if (i < txs.length - 1) assertNothingDerived(v);
        }
        await assertSafeChain(r, v, r.sequencer.unsafe.number);
      });
    });
  }

  describe("(b) out-of-order frames", () => {
    it("pre-Holocene: frames arriving last-first (one per tx, one L1 block) are assembled", async () => {
      const r = await setup(PRE_HOLOCENE);
      const frames = await splitChannel(r, 5);
      const txs = r.batcher.txsFor([...frames].reverse(), 1);
      const log = recordingLog();
      const v = r.verifier(log);
      await r.miner.mine(txs);
      await v.sync();
      await assertSafeChain(r, v, r.sequencer.unsafe.number);
      assert.equal(warned(log.lines, "frame dropped"), 0, log.lines.join("\n"));
    });

    it("pre-Holocene: frames arriving last-first over several L1 blocks are assembled", async () => {
      const r = await setup(PRE_HOLOCENE);
      const frames = await splitChannel(r, 4);
      const txs = r.batcher.txsFor([...frames].reverse(), 1);
      const v = r.verifier();
      for (let i = 0; i < txs.length; i++) {
        await r.miner.mine([txs[i]!]);
        await v.sync();
        if (i < txs.length - 1) assertNothingDerived(v);
      }
      await assertSafeChain(r, v, r.sequencer.unsafe.number);
    });

    it("pre-Holocene: frames shuffled inside one tx are assembled", async () => {
      const r = await setup(PRE_HOLOCENE);
      const frames = await splitChannel(r, 4);
      const shuffled = [frames[2]!, frames[0]!, frames[3]!, frames[1]!];
      const v = r.verifier();
      await r.miner.mine(r.batcher.txsFor(shuffled));
      await v.sync();
      await assertSafeChain(r, v, r.sequencer.unsafe.number);
    });

    it("Holocene: frames arriving last-first are dropped, nothing derived; an in-order resend is", async () => {
      const r = await setup(HOLOCENE);
      const frames = await splitChannel(r, 5);
      const log = recordingLog();
      const v = r.verifier(log);
      await r.miner.mine(r.batcher.txsFor([...frames].reverse(), 1));
      await v.sync();
      assertNothingDerived(v);
      // Frames 4..1 arrive without an open channel; frame 0 then opens one that never completes.
      assert.equal(warned(log.lines, "frame dropped by the channel assembler"), 4, log.lines.join("\n"));
      // The same frames reversed inside one tx are pruned by the frame queue: still nothing.
      r.batcher.submitted = 0;
      const again = await splitChannel(r, 5);
      await r.miner.mine(r.batcher.txsFor([...again].reverse()));
      await v.sync();
      assertNothingDerived(v);
      // A fresh channel in order evicts the unfinished one and is derived.
      r.batcher.submitted = 0;
      await r.miner.mine(await r.batcher.batchTxs({ maxFrameData: 200, framesPerTx: 1 }));
      await v.sync();
      await assertSafeChain(r, v, r.sequencer.unsafe.number);
    });
  });

  describe("(c) channel timeout", () => {
    const cases: readonly { name: string; forks: Forks; timeout: number }[] = [
      { name: "pre-Granite (channelTimeout 10)", forks: PRE_GRANITE, timeout: 10 },
      { name: "Granite (graniteChannelTimeout 8)", forks: PRE_HOLOCENE, timeout: 8 },
      { name: "Holocene (graniteChannelTimeout 8)", forks: HOLOCENE, timeout: 8 },
    ];
    for (const c of cases) {
      /**
       * Frame 0 in L1 block `open`, the closing frame `gap` blocks later (empty blocks between).
       * Returns the rollup, its verifier (synced) and the verifier's log.
       */
      const run = async (gap: number) => {
        const r = await setup(c.forks);
        const frames = await splitChannel(r, 2);
        const [first, last] = r.batcher.txsFor(frames, 1);
        const log = recordingLog();
        const v = r.verifier(log);
        const open = await r.miner.mine([first!]);
        for (let i = 1; i < gap; i++) await r.miner.mine();
        const close = await r.miner.mine([last!]);
        assert.equal(close.number - open.number, gap);
        await v.sync();
        return { r, v, log };
      };

      it(`${c.name}: closing frame exactly ${c.timeout} L1 blocks after the first → derived`, async () => {
        const { r, v } = await run(c.timeout);
        await assertSafeChain(r, v, r.sequencer.unsafe.number);
      });

      it(`${c.name}: closing frame ${c.timeout + 1} L1 blocks after the first → dropped; a fresh channel is derived`, async () => {
        const { r, v, log } = await run(c.timeout + 1);
        assertNothingDerived(v);
        // Holocene: the assembler drops the timed-out staging channel, so the closing frame has no
        // channel. Before Holocene the bank prunes the timed-out channel when it reads at that block,
        // before ingesting the closing frame, which then opens a new channel that never completes.
        if (c.forks === HOLOCENE) {
          assert.equal(warned(log.lines, "frame dropped by the channel assembler"), 1, log.lines.join("\n"));
        }
        // Resubmit the same blocks in a fresh channel: derived.
        r.batcher.submitted = 0;
        await r.miner.mine(await r.batcher.batchTxs());
        await v.sync();
        await assertSafeChain(r, v, r.sequencer.unsafe.number);
      });
    }
  });

  describe("(d) interleaved channels", () => {
    /** Channels A (blocks 1..6) and B (7..unsafe), 3 frames each, as txs A0 B0 A1 B1 A2 B2. */
    const interleaved = async (r: Rollup): Promise<Uint8Array[]> => {
      const a = await splitChannel(r, 3, 6);
      const b = await splitChannel(r, 3);
      const order: Frame[] = [];
      for (let i = 0; i < 3; i++) order.push(a[i]!, b[i]!);
      return r.batcher.txsFor(order, 1);
    };

    it("pre-Holocene: frames of A and B alternating → both channels derived", async () => {
      const r = await setup(PRE_HOLOCENE);
      const txs = await interleaved(r);
      const log = recordingLog();
      const v = r.verifier(log);
      await r.miner.mine(txs);
      await v.sync();
      await assertSafeChain(r, v, r.sequencer.unsafe.number);
      assert.equal(warned(log.lines, "frame dropped"), 0, log.lines.join("\n"));
    });

    it("pre-Holocene: interleaved over several L1 blocks → both derived", async () => {
      const r = await setup(PRE_HOLOCENE);
      const txs = await interleaved(r);
      const v = r.verifier();
      for (let i = 0; i < txs.length; i += 2) await r.miner.mine(txs.slice(i, i + 2));
      await v.sync();
      await assertSafeChain(r, v, r.sequencer.unsafe.number);
    });

    it("Holocene: B's first frame evicts the unclosed A → A never derived, B's batches are future", async () => {
      const r = await setup(HOLOCENE);
      const txs = await interleaved(r);
      const log = recordingLog();
      const v = r.verifier(log);
      const checks: string[] = [];
      v.driver.pipeline.batches.observer = (c) => checks.push(c.reason);
      await r.miner.mine(txs);
      await v.sync();
      assertNothingDerived(v);
      // A1 and A2 find B staged (A was evicted by B0).
      assert.equal(warned(log.lines, "frame dropped by the channel assembler"), 2, log.lines.join("\n"));
      assert.ok(
        checks.some((c) => c.includes("future")),
        `B's batches should be dropped as future: ${checks.join("; ")}`,
      );
      // A then B in order, not interleaved: derived.
      r.batcher.submitted = 0;
      const a = await r.batcher.batchTxs({ upTo: 6 });
      const b = await r.batcher.batchTxs();
      await r.miner.mine([...a, ...b]);
      await v.sync();
      await assertSafeChain(r, v, r.sequencer.unsafe.number);
    });

    it("Holocene: A0, A1, then a complete B for the same blocks, then A2 → B derived, A2 dropped", async () => {
      const r = await setup(HOLOCENE);
      const a = await splitChannel(r, 3);
      r.batcher.submitted = 0;
      const b = await splitChannel(r, 2);
      const log = recordingLog();
      const v = r.verifier(log);
      await r.miner.mine(r.batcher.txsFor([a[0]!, a[1]!, b[0]!, b[1]!, a[2]!], 1));
      await v.sync();
      await assertSafeChain(r, v, r.sequencer.unsafe.number);
      assert.equal(warned(log.lines, "frame dropped by the channel assembler"), 1, log.lines.join("\n"));
    });
  });

  for (const [name, forks] of FORK_SETS) {
    describe(`(e) malformed batcher data, ${name}`, () => {
      it("a bad version byte or a corrupted frame drops the whole tx; the next tx is derived", async () => {
        const r = await setup(forks);
        const channel = async (): Promise<Frame[]> => {
          r.batcher.submitted = 0;
          return r.batcher.channelFrames();
        };
        const badVersion = encodeFramesTxData(await channel());
        badVersion[0] = 0x01;
        // A whole valid channel followed by a frame whose is_last byte is 2.
        const good1 = await channel();
        const badIsLast = encodeFramesTxData([...good1, { ...(await channel())[0]!, isLast: true }]);
        badIsLast[badIsLast.length - 1] = 2;
        // A whole valid channel followed by a few stray bytes (a truncated frame header).
        const valid = encodeFramesTxData(await channel());
        const trailing = new Uint8Array(valid.length + 5);
        trailing.set(valid);
        trailing.fill(0xaa, valid.length);
        const miner = r.miner;
        const gas = (d: Uint8Array) => 21_000n + 16n * BigInt(d.length) + 100_000n;
        const badTxs = [badVersion, badIsLast, trailing].map((d) => miner.tx(r.batcherAccount, BATCH_INBOX, d, gas(d)));
        const log = recordingLog();
        const v = r.verifier(log);
        await miner.mine(badTxs);
        await v.sync();
        assertNothingDerived(v);
        assert.equal(warned(log.lines, "failed to parse frames"), 3, log.lines.join("\n"));
        // The same kind of bad tx, then a good one in the same L1 block: the good one is derived.
        const bad2 = encodeFramesTxData(await channel());
        bad2[0] = 0xff;
        const bad2Tx = miner.tx(r.batcherAccount, BATCH_INBOX, bad2, gas(bad2));
        const good = r.batcher.txsFor(await channel());
        await miner.mine([bad2Tx, ...good]);
        await v.sync();
        await assertSafeChain(r, v, r.sequencer.unsafe.number);
        assert.equal(warned(log.lines, "failed to parse frames"), 4, log.lines.join("\n"));
      });
    });

    describe(`(f) batcher tx authentication, ${name}`, () => {
      it("frames to the inbox from another account, or from the batcher to another address, are ignored", async () => {
        const r = await setup(forks);
        const miner = r.miner;
        const other = miner.accounts[2]!;
        const data = encodeFramesTxData(await r.batcher.channelFrames());
        const gas = 21_000n + 16n * BigInt(data.length) + 100_000n;
        const elsewhere = new Uint8Array(20).fill(0x99);
        const v = r.verifier();
        await miner.mine([miner.tx(other, BATCH_INBOX, data, gas), miner.tx(r.batcherAccount, elsewhere, data, gas)]);
        await v.sync();
        assertNothingDerived(v);
        // The very same data from the batcher to the inbox is derived.
        await miner.mine([miner.tx(r.batcherAccount, BATCH_INBOX, data, gas)]);
        await v.sync();
        await assertSafeChain(r, v, r.sequencer.unsafe.number);
      });
    });
  }
});
