/**
 * tx/sharedRecovery: the claim protocol between the executing thread and the workers, driven here
 * by a stand-in pool that hands the shared buffers to the test (real workers: node/pools.test.ts).
 */
import { strict as assert } from "node:assert";
import { decodeTx, encodeTx } from "../../../src/tx/envelope.js";
import { recoverSenders } from "../../../src/tx/recoverPacked.js";
import { recoverShared, type SharedRecoveryBuffers, startSharedRecovery } from "../../../src/tx/sharedRecovery.js";
import { signTx } from "../../../src/tx/signer.js";
import type { Tx } from "../../../src/tx/tx.js";
import type { TaskPool } from "../../../src/util/taskPool.js";
import { DEV_KEY, DEV_KEY_2, depositTx, feeMarketTx, legacy } from "./builders.js";

function txs(): Tx[] {
  const good = signTx(legacy(), DEV_KEY);
  const list: Tx[] = [depositTx(), { ...good, r: 0n, memo: {} }];
  for (let i = 0; i < 10; i++) list.push(signTx(feeMarketTx({ nonce: BigInt(i) }), i % 2 === 0 ? DEV_KEY : DEV_KEY_2));
  return list.map((t) => decodeTx(encodeTx(t)));
}

/** A pool whose run() gives the task to `onTask` and settles with what it returns. */
function standIn(onTask: (b: SharedRecoveryBuffers) => Promise<number>, threads = 1): TaskPool {
  return {
    threads,
    queueSize: 0,
    busy: 0,
    canAcceptWork: () => true,
    run: <T>(task: unknown) => onTask((task as { buffers: SharedRecoveryBuffers }).buffers) as Promise<T>,
  };
}

describe("tx/sharedRecovery", () => {
  const want = recoverSenders(txs());
  // The decoded txs (what the executing thread passes) and their envelopes (what the workers read).
  const T = txs();
  const raws = T.map(encodeTx);

  it("without a pool every sender is recovered on demand: deposits give `from`, a bad signature null", async () => {
    const src = startSharedRecovery(raws, null);
    assert.equal(src.count, want.length);
    for (let i = want.length - 1; i >= 0; i--) assert.deepEqual(src.sender(i, T[i]!), want[i], `tx ${i}`);
    assert.equal(src.sender(1, T[1]!), null);
    assert.equal(await src.workerItems, 0);
  });

  it("a worker that ran first leaves only reads: every item done once, none left for the caller", async () => {
    let buffers: SharedRecoveryBuffers | null = null;
    const src = startSharedRecovery(
      raws,
      standIn(async (b) => {
        buffers = b;
        return recoverShared(b);
      }),
    );
    const byWorker = await src.workerItems;
    assert.equal(byWorker, want.length);
    const b = buffers as SharedRecoveryBuffers | null;
    assert.ok(b !== null);
    assert.ok(Array.from(b.state.subarray(0, want.length)).every((s) => s === 2));
    for (let i = 0; i < want.length; i++) assert.deepEqual(src.sender(i, T[i]!), want[i]);
  });

  it("items the caller took first are skipped by the worker (no recovery twice)", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const src = startSharedRecovery(
      raws,
      standIn(async (b) => {
        await gate;
        return recoverShared(b);
      }),
    );
    for (let i = 0; i < 5; i++) assert.deepEqual(src.sender(i, T[i]!), want[i]);
    release();
    // The caller recovered txs 1–4; a deposit (tx 0) needs nothing from the caller, so it stays pending.
    assert.equal(await src.workerItems, want.length - 4);
    for (let i = 5; i < want.length; i++) assert.deepEqual(src.sender(i, T[i]!), want[i]);
  });

  it("an item held by a worker: the caller recovers others from the end, then takes it over after the wait", async () => {
    let buffers: SharedRecoveryBuffers | null = null;
    const src = startSharedRecovery(
      raws,
      standIn(async (b) => {
        buffers = b;
        Atomics.store(b.state, 2, 1); // claimed, and the worker never finishes it
        return 0;
      }),
      { claimWaitMs: 50 },
    );
    await src.workerItems;
    const b = buffers as SharedRecoveryBuffers | null;
    assert.ok(b !== null);
    assert.deepEqual(src.sender(0, T[0]!), want[0]);
    assert.deepEqual(src.sender(1, T[1]!), want[1]);
    const t0 = Date.now();
    assert.deepEqual(src.sender(2, T[2]!), want[2]);
    assert.ok(Date.now() - t0 >= 40, "waited for the worker first");
    // Meanwhile everything after it was recovered from the end.
    assert.ok(Array.from(b.state.subarray(3, want.length)).every((s) => s === 2));
    for (let i = 3; i < want.length; i++) assert.deepEqual(src.sender(i, T[i]!), want[i]);
  });

  it("a failed task counts 0 and the caller still gets every sender", async () => {
    const src = startSharedRecovery(
      raws,
      standIn(() => Promise.reject(new Error("worker died")), 2),
    );
    assert.equal(await src.workerItems, 0);
    for (let i = 0; i < want.length; i++) assert.deepEqual(src.sender(i, T[i]!), want[i]);
  });
});
