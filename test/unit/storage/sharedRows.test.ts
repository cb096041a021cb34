/**
 * Rows handed to a worker (storage/sharedRows.ts): whichever thread claims them writes them, once;
 * the importing thread's `finish` returns only when they are in the store, writes them itself when
 * no worker took them or one failed, and leaves its caches right (a cached "absent" is replaced).
 * A real trieHash worker writes them through its view of the same RocksDB; a stand-in pool drives
 * the fallbacks. The views refuse the tables the workers' trie caches follow.
 */
import { strict as assert } from "node:assert";
import { Worker } from "node:worker_threads";
import { CachedKv, CHAIN_CACHE } from "../../../src/storage/cachedKv.js";
import { WriteBatch } from "../../../src/storage/kv.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import {
  type PackedPuts,
  type SharedRowsTask,
  writeRowsAside,
  writeRowsOnWorker,
} from "../../../src/storage/sharedRows.js";
import { claim, publish, sharedBytes, sharedInts } from "../../../src/util/sharedClaims.js";
import type { TaskPool } from "../../../src/util/taskPool.js";
import { DelegatingKv } from "../../utils/delegatingKv.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";
import { sharedTrieHashPool } from "../../utils/trieHashPool.js";

const ROWS = 300;

/** ROWS puts of 64-byte keys (a contract's prefix, then the row's index) with 1–32-byte values. */
function rows(seed: number): PackedPuts {
  const keys = sharedBytes(64 * ROWS);
  const keyOffsets = sharedInts(ROWS + 1);
  const values = sharedBytes(32 * ROWS);
  const valueOffsets = sharedInts(ROWS + 1);
  const batch = new WriteBatch();
  let v = 0;
  for (let i = 0; i < ROWS; i++) {
    keys.fill(seed, 64 * i, 64 * i + 32);
    keys[64 * i + 62] = i >> 8;
    keys[64 * i + 63] = i & 0xff;
    keyOffsets[i + 1] = 64 * (i + 1);
    const len = 1 + (i % 32);
    values.fill((i * 7 + seed) & 0xff, v, v + len);
    batch.insert("hashedStorage", keys.subarray(64 * i, 64 * i + 64), values.subarray(v, v + len));
    v += len;
    valueOffsets[i + 1] = v;
  }
  return { rows: { keys, keyOffsets, values: values.subarray(0, v), valueOffsets }, batch };
}

/** A pool of one idle thread whose `run` does what `onTask` does with the task, at once or never. */
function standIn(onTask: (task: SharedRowsTask) => void): TaskPool & { tasks: number } {
  const pool = {
    threads: 1,
    queueSize: 0,
    busy: 0,
    tasks: 0,
    canAcceptWork: () => true,
    run<T>(task: unknown): Promise<T> {
      pool.tasks++;
      onTask(task as SharedRowsTask);
      return new Promise<T>(() => undefined);
    },
  };
  return pool;
}

/** The store, its writes counted. */
class CountingKv extends DelegatingKv {
  writes = 0;
  override write(b: WriteBatch, o?: { sync?: boolean }): void {
    this.writes++;
    super.write(b, o);
  }
}

function assertRows(kv: { get(t: "hashedStorage", k: Uint8Array): Uint8Array | undefined }, b: WriteBatch): void {
  for (const op of b.ops) {
    assert.ok(op.type === "put");
    assert.deepEqual(kv.get("hashedStorage", op.key), op.value);
  }
}

describe("storage/sharedRows", function () {
  this.timeout(60_000);
  let dir = "";
  let rocks: RocksKv;
  let kv: CachedKv;
  beforeEach(async () => {
    dir = makeTmpDir();
    rocks = await RocksKv.open(dir);
    kv = new CachedKv(rocks, CHAIN_CACHE);
  });
  afterEach(async () => {
    await rocks.close();
    removeDir(dir);
  });

  it("a real trieHash worker writes them through its view; the importing thread's cache learns them", async () => {
    const pool = await sharedTrieHashPool(rocks);
    try {
      const r = rows(1);
      // Cached as absent before the block: finish must replace that.
      assert.equal(kv.get("hashedStorage", r.batch.ops[0]!.key), undefined);
      const aside = writeRowsAside(kv, pool, "hashedStorage", r);
      assert.ok(aside !== null);
      // The worker takes the claim (finish would otherwise write the rows here).
      const until = Date.now() + 20_000;
      while (Atomics.load(aside.task.state, 0) === 0 && Date.now() < until) await new Promise((x) => setTimeout(x, 5));
      aside.finish(kv);
      assert.equal(aside.task.results[0], 1, "the worker wrote them");
      assertRows(kv, r.batch);
      assertRows(rocks, r.batch);
    } finally {
      await pool.destroy();
      rocks.releaseHandle();
    }
  });

  it("no worker took them: finish writes them here, and a worker coming late writes nothing", () => {
    let late: SharedRowsTask | null = null;
    const pool = standIn((t) => {
      late = t;
    });
    const r = rows(2);
    const aside = writeRowsAside(kv, pool, "hashedStorage", r);
    assert.ok(aside !== null && pool.tasks === 1);
    aside.finish(kv);
    assertRows(kv, r.batch);
    // The worker's turn after the block: the claim is gone, its store is not touched.
    const writes: string[] = [];
    assert.equal(writeRowsOnWorker({ writeRows: (t) => writes.push(t) }, late!), 0);
    assert.deepEqual(writes, []);
  });

  it("a worker that took them and failed: finish writes them here", () => {
    const pool = standIn((t) => {
      writeRowsOnWorker(
        {
          writeRows: () => {
            throw new Error("disk gone");
          },
        },
        t,
      );
    });
    const r = rows(3);
    assert.equal(kv.get("hashedStorage", r.batch.ops[5]!.key), undefined);
    const aside = writeRowsAside(kv, pool, "hashedStorage", r);
    assert.ok(aside !== null);
    assert.equal(aside.task.results[0], -1);
    aside.finish(kv);
    assertRows(kv, r.batch);
    assertRows(rocks, r.batch);
  });

  it("a worker that wrote them: finish leaves the store as it is and updates the cache", () => {
    const pool = standIn((t) => writeRowsOnWorker(rocks, t));
    const r = rows(4);
    const key = r.batch.ops[7]!.key;
    assert.equal(kv.get("hashedStorage", key), undefined); // a cached miss
    const counting = new CachedKv(new CountingKv(rocks), CHAIN_CACHE);
    assert.equal(counting.get("hashedStorage", key), undefined);
    const aside = writeRowsAside(counting, pool, "hashedStorage", r);
    assert.ok(aside !== null);
    aside.finish(counting);
    assert.equal((counting.inner as CountingKv).writes, 0, "not written again");
    assertRows(counting, r.batch);
    assertRows(rocks, r.batch);
  });

  it("in chunks: those no worker took are written here, from the last on; the workers' are noted and waited for", () => {
    const r = rows(7);
    // The stand-in worker takes chunks 0 and 1 of five (64 rows each), writes 0 and fails 1.
    const pool = standIn((t) => {
      for (const i of [0, 1]) {
        assert.ok(claim(t.state, i));
        const a = t.chunks[i]!;
        const b = t.chunks[i + 1]!;
        if (i === 0) {
          const part = {
            ...t.rows,
            keyOffsets: t.rows.keyOffsets.subarray(a, b + 1),
            valueOffsets: t.rows.valueOffsets.subarray(a, b + 1),
          };
          rocks.writeRows(t.table, part);
        }
        t.results[i] = i === 0 ? 1 : -1;
        publish(t.state, i);
      }
    });
    const counting = new CountingKv(rocks);
    const cached = new CachedKv(counting, CHAIN_CACHE);
    assert.equal(cached.get("hashedStorage", r.batch.ops[3]!.key), undefined); // a cached miss in chunk 0
    const aside = writeRowsAside(cached, pool, "hashedStorage", r, 64);
    assert.ok(aside !== null);
    assert.deepEqual([...aside.task.chunks], [0, 64, 128, 192, 256, 300]);
    aside.finish(cached);
    assert.equal(counting.writes, 4, "chunks 4, 3, 2 here, and 1 again after the worker failed it");
    assertRows(cached, r.batch);
    assertRows(rocks, r.batch);
  });

  it("a write failing here is thrown only once the worker's chunk is done: nothing lands after the caller's rewind", () => {
    const r = rows(8);
    let worker: Worker | null = null;
    // The worker holds chunk 0 and finishes it 300 ms later, from its own thread.
    const pool = standIn((t) => {
      assert.ok(claim(t.state, 0));
      worker = new Worker(
        `const { workerData: w } = require("node:worker_threads");
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
         w.results[0] = 1;
         Atomics.store(w.state, 0, 2);
         Atomics.notify(w.state, 0);`,
        { eval: true, workerData: { state: t.state, results: t.results } },
      );
    });
    class FailingKv extends CountingKv {
      override write(): void {
        this.writes++;
        throw new Error("disk gone");
      }
    }
    const failing = new FailingKv(rocks);
    const aside = writeRowsAside(failing, pool, "hashedStorage", r, 64);
    assert.ok(aside !== null);
    assert.throws(() => aside.finish(failing), /disk gone/);
    assert.equal(Atomics.load(aside.task.state, 0), 2, "the worker's chunk was done before the throw");
    assert.equal(failing.writes, 1, "after the first failed write the chunks left are not written");
    for (let i = 1; i < 5; i++) assert.equal(Atomics.load(aside.task.state, i), 2, `chunk ${i} claimed`);
    return (worker as Worker | null)?.terminate();
  });

  it("is not taken when the store cannot be written from another thread or no thread is free", () => {
    const r = rows(5);
    const pool = standIn(() => undefined);
    const plain = new CachedKv(new CountingKv(rocks, false));
    assert.equal(plain.noteWritten, undefined);
    assert.equal(writeRowsAside(plain, pool, "hashedStorage", r), null);
    const busy = { ...standIn(() => undefined), busy: 1 };
    assert.equal(writeRowsAside(kv, busy, "hashedStorage", r), null);
    assert.equal(pool.tasks + busy.tasks, 0);
  });

  it("refuses the tables the workers' trie caches follow, on the owner and on a view", async () => {
    const r = rows(6);
    assert.throws(
      () =>
        writeRowsAside(
          kv,
          standIn(() => undefined),
          "storageTrie",
          r,
        ),
      /logged/,
    );
    assert.throws(() => rocks.writeRows("accountTrie", r.rows), /logged/);
    const view = await RocksKv.fromHandle(rocks.shareHandle());
    try {
      assert.throws(() => view.writeRows("storageTrie", r.rows), /logged/);
      view.writeRows("hashedStorage", r.rows);
      assertRows(rocks, r.batch);
    } finally {
      await view.close();
      rocks.releaseHandle();
    }
  });
});
