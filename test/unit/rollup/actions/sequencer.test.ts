/**
 * The sequencer of opal-node (rollup/sequencer.ts) on the action harness, with a test clock: a
 * block per block time on the unsafe head, L1 origins chosen by time and visibility, the drift rule,
 * `--sequencer.max-safe-lag`, admin stop/start and recover mode, the conductor's leadership and
 * commit; and a verifier that derives exactly the chain it built once the batches are on L1.
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import type { PayloadEnvelope } from "../../../../src/rollup/engine/engineClient.js";
import { Semaphore } from "../../../../src/rollup/l1/limits.js";
import { type Conductor, Sequencer, type SequencerStep } from "../../../../src/rollup/sequencer/sequencer.js";
import { SequencerControl } from "../../../../src/rollup/sequencer/sequencerControl.js";
import { Rollup, type RollupOptions } from "../../../utils/actions/rollup.js";

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

async function setup(opts: RollupOptions = {}, extra: { maxSafeLag?: number; conductor?: Conductor } = {}) {
  const r = new Rollup(opts);
  const clock = { now: r.cfg.genesis.l2Time };
  const controller = r.sequencer.controller;
  await controller.forkchoice();
  const control = new SequencerControl(
    { enabled: true, stopped: false, adminStatePath: null, conductorEnabled: extra.conductor !== undefined },
    () => controller.state.unsafe.hash,
  );
  const built: PayloadEnvelope[] = [];
  const seq = new Sequencer({
    cfg: r.cfg,
    controller,
    l1: r.sequencer.l1,
    l2: r.sequencer.engine,
    l1Chain: null,
    control,
    lock: new Semaphore(1),
    log: quiet,
    conductor: extra.conductor ?? null,
    maxSafeLag: extra.maxSafeLag ?? 0,
    now: () => clock.now,
    onBlock: (_ref, env) => built.push(env),
  });
  return { r, clock, seq, control, built };
}

/** Advances the clock to `t` and builds every block due by then. */
async function runUntil(seq: Sequencer, clock: { now: number }, t: number): Promise<SequencerStep[]> {
  clock.now = t;
  const out: SequencerStep[] = [];
  for (;;) {
    const s = await seq.step();
    out.push(s);
    if (s.kind !== "built") return out;
  }
}

describe("actions: the sequencer", function () {
  this.timeout(60_000);

  it("builds a block per block time, moves to the next L1 origin by time, and a verifier derives the same chain", async () => {
    const { r, clock, seq } = await setup();
    const g = r.cfg.genesis.l2Time;
    const steps = await runUntil(seq, clock, g + 1);
    assert.equal(steps[0]!.kind, "early", "nothing before the first block time");
    await runUntil(seq, clock, g + 6);
    assert.equal(r.sequencer.unsafe.number, 3);
    assert.equal(r.sequencer.unsafe.l1origin.number, 0);
    const l1b1 = await r.miner.mine(); // L1 block 1 at g + 12
    await runUntil(seq, clock, g + 20);
    const head = r.sequencer.unsafe;
    assert.equal(head.number, 10);
    const b6 = await r.sequencer.engine.mustBlock(6);
    assert.equal(b6.ref.l1origin.number, 1, "block 6 (g+12) is the first with L1 origin 1");
    assert.equal(bytesToHex(b6.ref.l1origin.hash), bytesToHex(l1b1.hash));
    assert.equal((await r.sequencer.engine.mustBlock(5)).ref.l1origin.number, 0);
    // The batcher posts; a verifier derives the same chain.
    await r.miner.mine(await r.batcher.batchTxs());
    const v = r.verifier();
    await v.sync();
    assert.equal(v.heads.safe.number, head.number);
    assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(head.hash));
  });

  it("past the max sequencer drift it needs the next L1 origin and waits without it", async () => {
    const { r, clock, seq } = await setup({
      maxSequencerDrift: 6,
      forks: { fjord: null, granite: null, holocene: null, isthmus: null, jovian: null },
    });
    const g = r.cfg.genesis.l2Time;
    await runUntil(seq, clock, g + 6);
    assert.equal(r.sequencer.unsafe.number, 3, "up to the drift on origin 0");
    const steps = await runUntil(seq, clock, g + 8);
    assert.equal(steps[0]!.kind, "failed");
    assert.match((steps[0] as { error: string }).error, /past the sequencer drift/);
    await r.miner.mine(); // L1 block 1 at g + 12: still newer than the next L2 block (g + 8)
    const more = await runUntil(seq, clock, g + 8);
    assert.equal(more[0]!.kind, "built", "past the drift with a newer next origin: keep the origin, deposit-only");
    const b4 = await r.sequencer.engine.mustBlock(4);
    assert.equal(b4.ref.l1origin.number, 0);
    assert.equal(b4.txs.length, 1);
  });

  it("--sequencer.max-safe-lag pauses while unsafe is that far ahead of safe; stop/start and recover mode", async () => {
    const { r, clock, seq, control } = await setup({}, { maxSafeLag: 3 });
    const g = r.cfg.genesis.l2Time;
    const steps = await runUntil(seq, clock, g + 20);
    assert.equal(r.sequencer.unsafe.number, 3);
    assert.equal(steps.at(-1)!.kind, "lagging");
    const hash = control.stop();
    assert.equal(bytesToHex(hash), bytesToHex(r.sequencer.unsafe.hash));
    assert.equal((await seq.step()).kind, "inactive");
    control.start(hash);
    control.recoverMode = true;
    assert.equal((await seq.step()).kind, "lagging");
  });

  it("with a conductor: no block without leadership; a failed commit publishes nothing", async () => {
    let leader = false;
    let commitFails = false;
    const committed: string[] = [];
    const conductor: Conductor = {
      leader: async () => leader,
      commitUnsafePayload: async (env) => {
        if (commitFails) throw new Error("conductor: commit timed out");
        committed.push(bytesToHex(env.blockHash));
      },
    };
    const { r, clock, seq } = await setup({}, { conductor });
    const g = r.cfg.genesis.l2Time;
    assert.equal((await runUntil(seq, clock, g + 2))[0]!.kind, "notLeader");
    assert.equal(r.sequencer.unsafe.number, 0);
    leader = true;
    await runUntil(seq, clock, g + 4);
    assert.equal(r.sequencer.unsafe.number, 2);
    assert.deepEqual(committed, [
      bytesToHex((await r.sequencer.engine.mustBlock(1)).ref.hash),
      bytesToHex((await r.sequencer.engine.mustBlock(2)).ref.hash),
    ]);
    commitFails = true;
    const s = await runUntil(seq, clock, g + 6);
    assert.equal(s[0]!.kind, "failed");
    assert.equal(r.sequencer.unsafe.number, 2, "the uncommitted block is not the unsafe head");
  });
});
