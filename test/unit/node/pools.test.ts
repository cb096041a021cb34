/**
 * Worker pools end to end: real Piscina workers (through workers/boot.cjs, tsx registered under tests), pools of 1
 * and 2, sender recovery results equal to the main-thread path, queue/busy counters and stats, bad options.
 */
import { strict as assert } from "node:assert";
import { createPools, defaultThreads, PiscinaPool, SMALL_TASK_YOUNG_MB } from "../../../src/node/pools.js";
import { decodeTx, encodeTx } from "../../../src/tx/envelope.js";
import { recoverSenders } from "../../../src/tx/recoverPacked.js";
import { recoverSendersParallel } from "../../../src/tx/recoverSendersParallel.js";
import { startSharedRecovery } from "../../../src/tx/sharedRecovery.js";
import { signTx } from "../../../src/tx/signer.js";
import { type FeeMarketTx, type Tx, TxType } from "../../../src/tx/tx.js";

function makeTxs(n: number): Tx[] {
  const txs: Tx[] = [];
  for (let i = 0; i < n; i++) {
    const key = new Uint8Array(32);
    key[31] = (i % 200) + 1;
    key[0] = 1;
    const unsigned: FeeMarketTx = {
      type: TxType.FeeMarket,
      chainId: 10n,
      nonce: BigInt(i),
      maxPriorityFeePerGas: 1n,
      maxFeePerGas: 2_000_000_000n,
      gasLimit: 21_000n,
      to: new Uint8Array(20).fill(0x11),
      value: BigInt(i),
      data: new Uint8Array(0),
      accessList: [],
      yParity: 0,
      r: 0n,
      s: 0n,
    };
    txs.push(signTx(unsigned, key));
  }
  return txs;
}

/** Fresh copies without memoized senders, so every path really recovers. */
function fresh(txs: Tx[]): Tx[] {
  return txs.map((t) => decodeTx(encodeTx(t)));
}

describe("node/pools: worker pools", function () {
  this.timeout(60_000);
  const txs = makeTxs(120);
  const expected = recoverSenders(fresh(txs));

  it("default thread count leaves a core for the main thread, never below 1", () => {
    assert.equal(defaultThreads(1), 1);
    assert.equal(defaultThreads(2), 1);
    assert.equal(defaultThreads(8), 7);
  });

  it("destroy() waits until no worker is still loading its entry (a termination then aborts the process)", async () => {
    const pool = new PiscinaPool("sigRecover", { threads: 1 });
    // Piscina starts the pool's first worker in its constructor; its entry cannot have loaded before
    // this turn of the event loop ends.
    assert.equal(pool.loadingThreads(), 1);
    const inner = (pool as unknown as { pool: { destroy(): Promise<void> } }).pool;
    const terminate = inner.destroy.bind(inner);
    let loadingAtTermination = -1;
    inner.destroy = () => {
      loadingAtTermination = pool.loadingThreads();
      return terminate();
    };
    await pool.destroy();
    assert.equal(loadingAtTermination, 0);
  });

  it("the small-task pools' workers run with the capped young generation; trieHash keeps V8's default", async () => {
    const pools = createPools({ sigRecoverThreads: 1, trieHashThreads: 1 });
    try {
      await Promise.all([pools.sigRecover.warm(), pools.trieHash.warm()]);
      const young = (p: PiscinaPool) => p.workerLimits().map((l) => l.maxYoungGenerationSizeMb);
      assert.deepEqual(young(pools.sigRecover), [SMALL_TASK_YOUNG_MB]);
      const [trie] = young(pools.trieHash);
      assert.ok(trie !== undefined && trie > SMALL_TASK_YOUNG_MB, `trieHash young generation ${trie} MiB`);
    } finally {
      await pools.destroy();
    }
  });

  it("rejects a pool without threads", () => {
    assert.throws(() => new PiscinaPool("sigRecover", { threads: 0 }), RangeError);
    assert.throws(() => new PiscinaPool("sigRecover", { threads: 1.5 }), RangeError);
  });

  for (const threads of [1, 2]) {
    it(`shared recovery alongside the caller, pool of ${threads}: every sender equals the main-thread path`, async () => {
      const pool = new PiscinaPool("sigRecover", { threads });
      try {
        await pool.warm();
        const source = startSharedRecovery(txs.map(encodeTx), pool);
        assert.equal(source.count, txs.length);
        for (let i = 0; i < txs.length; i++) assert.deepEqual(source.sender(i, txs[i]), expected[i], `tx ${i}`);
        const byWorkers = await source.workerItems;
        assert.ok(byWorkers > 0 && byWorkers <= txs.length, `workers recovered ${byWorkers} of ${txs.length}`);
        assert.equal(pool.busy, 0);
      } finally {
        await pool.destroy();
      }
    });

    it(`sender recovery in a pool of ${threads} equals the main-thread path`, async () => {
      const pool = new PiscinaPool("sigRecover", { threads });
      try {
        await pool.warm();
        const got = await recoverSendersParallel(fresh(txs), pool);
        assert.deepEqual(got, expected);
        assert.ok(got.every((a) => a !== null));
        assert.equal(pool.busy, 0);
        assert.equal(pool.queueSize, 0);
      } finally {
        await pool.destroy();
      }
    });
  }

  it("reports busy and queued work while tasks run", async () => {
    const pool = new PiscinaPool("sigRecover", { threads: 1, maxQueue: 16 });
    try {
      const runs = [0, 1, 2].map(() => recoverSendersParallel(fresh(txs), pool, 1));
      // Synchronously after submitting: one task runs, the others wait in the queue.
      assert.equal(pool.busy + pool.queueSize, 3);
      assert.ok(pool.canAcceptWork());
      for (const r of await Promise.all(runs)) assert.deepEqual(r, expected);
      assert.equal(pool.busy, 0);
      // The counts are read live; the quantiles of reads close together are read once.
      const first = pool.stats();
      const again = pool.stats();
      assert.ok(first.completed >= 3);
      assert.ok(first.runMs.p99 > 0);
      assert.equal(again.runMs, first.runMs);
      assert.equal(again.waitMs, first.waitMs);
    } finally {
      await pool.destroy();
    }
  });

  it("a bad signature comes back as null through the pool", async () => {
    const bad = fresh(txs.slice(0, 20));
    // r = 0 is outside [1, n-1]: recovery must fail, not throw.
    const { memo: _memo, ...plain } = bad[3] as FeeMarketTx;
    bad[3] = decodeTx(encodeTx({ ...plain, r: 0n, s: 1n }));
    const pool = new PiscinaPool("sigRecover", { threads: 1 });
    try {
      const got = await recoverSendersParallel(bad, pool, 1);
      assert.equal(got[3], null);
      assert.deepEqual(got[4], expected[4]);
    } finally {
      await pool.destroy();
    }
  });
});
