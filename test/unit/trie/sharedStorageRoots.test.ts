/**
 * Storage tries updated in parallel during import (trie/sharedStorageRoots.ts): with real trieHash
 * workers reading the same RocksDB through a shared handle, updateStateRoot gives the same root and
 * the same writes, byte for byte, as the single-threaded walk; and the claim protocol's fallbacks
 * (a result that did not fit, a failed job, a job held by a worker that never finishes) are redone
 * by the importing thread, driven by a stand-in pool.
 */
import { strict as assert } from "node:assert";
import { PiscinaPool } from "../../../src/node/pools.js";
import { encodeBatch } from "../../../src/storage/batchCodec.js";
import { type KvStore, WriteBatch } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import { encodeAccount } from "../../../src/trie/account.js";
import { EMPTY_TRIE_ROOT } from "../../../src/trie/node.js";
import {
  runStorageJobs,
  type StorageJob,
  type StorageJobBuffers,
  type TrieWalkStats,
} from "../../../src/trie/sharedStorageRoots.js";
import {
  computeStateRoot,
  type StateChangeset,
  storageJobOnWorker,
  updateStateRoot,
} from "../../../src/trie/stateRoot.js";
import type { TaskPool } from "../../../src/util/taskPool.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";
import { Rng, randomWord } from "./helpers.js";

const CONTRACTS = 24;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** CONTRACTS accounts with 40 slots each, fully built. Returns their hashed addresses. */
function seed(kv: KvStore, rng: Rng): Uint8Array[] {
  const b = new WriteBatch();
  const addrs: Uint8Array[] = [];
  for (let i = 0; i < CONTRACTS; i++) {
    const a = rng.bytes(32);
    addrs.push(a);
    b.put("hashedAccounts", a, encodeAccount(1n, 10n, EMPTY_TRIE_ROOT));
    for (let j = 0; j < 40; j++) b.put("hashedStorage", concat(a, rng.bytes(32)), randomWord(rng));
  }
  kv.write(b);
  kv.write(computeStateRoot(kv).batch);
  return addrs;
}

/** Slot writes and deletes in `touch` of the contracts, applied to the flat rows. */
function change(kv: KvStore, rng: Rng, addrs: Uint8Array[], touch: number): StateChangeset {
  const b = new WriteBatch();
  const storage: { hashedAddress: Uint8Array; slots: Uint8Array[] }[] = [];
  for (let t = 0; t < touch; t++) {
    const a = addrs[rng.int(addrs.length)]!;
    const slots: Uint8Array[] = [];
    const end = a.slice();
    end[31]++;
    const existing = [...kv.iterate("hashedStorage", { gte: a, lt: end })].map(([k]) => k.slice(32));
    for (let j = 0; j < 1 + rng.int(8); j++) {
      if (existing.length > 0 && rng.int(3) === 0) {
        const s = existing[rng.int(existing.length)]!;
        b.del("hashedStorage", concat(a, s));
        slots.push(s);
      } else {
        const s = rng.int(2) === 0 && existing.length > 0 ? existing[rng.int(existing.length)]! : rng.bytes(32);
        b.put("hashedStorage", concat(a, s), randomWord(rng));
        slots.push(s);
      }
    }
    storage.push({ hashedAddress: a, slots });
  }
  kv.write(b);
  return { accounts: [], storage };
}

describe("trie/sharedStorageRoots", function () {
  this.timeout(120_000);

  it("with trieHash workers on a shared RocksDB handle: same root and same writes as one thread", async () => {
    const dir = makeTmpDir();
    const kv = await RocksKv.open(dir);
    const pool = new PiscinaPool(
      "trieHash",
      { threads: 2 },
      { store: { engine: "rocksdb", handle: kv.shareHandle() } },
    );
    try {
      await pool.warm();
      const rng = new Rng(4242);
      const addrs = seed(kv, rng);
      let byWorkers = 0;
      for (let round = 0; round < 12; round++) {
        const changes = change(kv, rng, addrs, 6 + rng.int(10));
        const one = updateStateRoot(kv, changes);
        const par = updateStateRoot(kv, changes, { storagePool: pool });
        assert.deepEqual(par.root, one.root, `round ${round}`);
        assert.deepEqual(encodeBatch(par.batch), encodeBatch(one.batch), `round ${round}: writes`);
        byWorkers += par.storageByWorkers ?? 0;
        kv.write(par.batch);
        assert.deepEqual(computeStateRoot(kv).root, par.root, `round ${round}: full rebuild`);
        // Yield as the node does between Engine API calls, so the pool sees its workers free again.
        await new Promise((r) => setImmediate(r));
      }
      assert.ok(byWorkers > 0, "the workers updated some of the tries");
    } finally {
      await pool.destroy();
      kv.releaseHandle();
      await kv.close();
      removeDir(dir);
    }
  });

  /** A pool whose run() gives the buffers to `onTask`. */
  function standIn(onTask: (b: StorageJobBuffers) => Promise<number>): TaskPool {
    return {
      threads: 1,
      queueSize: 0,
      busy: 0,
      canAcceptWork: () => true,
      run: <T>(task: unknown) => onTask((task as { buffers: StorageJobBuffers }).buffers) as Promise<T>,
    };
  }

  function jobsOf(kv: KvStore, rng: Rng, addrs: Uint8Array[]): StorageJob[] {
    const c = change(kv, rng, addrs, 8);
    const seen = new Map<string, StorageJob>();
    for (const s of c.storage ?? []) seen.set(Buffer.from(s.hashedAddress).toString("hex"), s);
    return [...seen.values()].map((j) => ({
      hashedAddress: j.hashedAddress,
      slots: [...new Map(j.slots.map((s) => [Buffer.from(s).toString("hex"), s])).values()].sort((x, y) =>
        Buffer.compare(x, y),
      ),
    }));
  }

  const stats = (): TrieWalkStats => ({
    nodesRead: 0,
    leavesRead: 0,
    refsAdded: 0,
    nodePuts: 0,
    nodeDels: 0,
    rebuilds: 0,
  });

  for (const [name, worker] of [
    [
      "a result marked as not fitting or failed is redone here",
      async (b: StorageJobBuffers) => {
        // Claim job 0 and report it failed.
        Atomics.store(b.state, 0, 1);
        b.results[0] = -1;
        Atomics.store(b.state, 0, 2);
        return 1;
      },
    ],
    [
      "a job held by a worker that never finishes is redone after the bounded wait",
      async (b: StorageJobBuffers) => {
        Atomics.store(b.state, 0, 1);
        return 0;
      },
    ],
  ] as const) {
    it(name, () => {
      const kv = new MemoryKv();
      const rng = new Rng(77);
      const addrs = seed(kv, rng);
      const jobs = jobsOf(kv, rng, addrs);
      assert.ok(jobs.length >= 2);
      const want = new WriteBatch();
      const wantRoots = jobs.map((j) => storageJobOnWorker(kv, j, want, stats()));
      const got = new WriteBatch();
      const out = runStorageJobs(kv, jobs, got, stats(), storageJobOnWorker, standIn(worker), {
        minSlots: 0,
        claimWaitMs: 30,
      });
      assert.equal(out.byWorkers, 0);
      assert.deepEqual(out.roots, wantRoots);
      assert.deepEqual(encodeBatch(got), encodeBatch(want));
    });
  }
});
