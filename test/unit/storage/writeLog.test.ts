/**
 * The shared write log (storage/writeLog.ts) and the trie cache it keeps exact in a worker's view
 * (engine.ts `openCachedWorkerStore`): replays in order, the losses a reader must see (lapped, torn,
 * the epoch), and state roots computed through the cached view equal to the store's own across
 * rounds written by the owner in every way a node writes its tries (worker roots, roots computed on
 * the owner, reorg undos and redos).
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { decodeBatch } from "../../../src/storage/batchCodec.js";
import { openCachedWorkerStore } from "../../../src/storage/engine.js";
import { WriteBatch } from "../../../src/storage/kv.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import type { TableName } from "../../../src/storage/tables.js";
import { inverseBatch } from "../../../src/storage/undo.js";
import { WriteLog, WriteLogReader } from "../../../src/storage/writeLog.js";
import { stateRootOnWorker } from "../../../src/trie/remoteStateRoot.js";
import { computeStateRoot, updateStateRoot } from "../../../src/trie/stateRoot.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";
import { Rng, randomAccount, randomChangeset, StateModel } from "../trie/helpers.js";

const hex = bytesToHex;

function collect(r: WriteLogReader): { ok: boolean; rows: string[] } {
  const rows: string[] = [];
  const ok = r.replay((t: TableName, k, v) => rows.push(`${t} ${hex(k)} ${v === undefined ? "-" : hex(v)}`));
  return { ok, rows };
}

const b = (...xs: number[]) => Uint8Array.from(xs);

/**
 * What a batch leaves in the store, row by row (the last op on a key wins). Two walks of the same
 * change may order or repeat their puts differently: the leaf cache (trie/bottomCache.ts) is per
 * thread, and the first walk takes the entries it uses.
 */
function netEffect(batch: WriteBatch): Map<string, string> {
  const m = new Map<string, string>();
  for (const o of batch.ops) m.set(`${o.table} ${hex(o.key)}`, o.type === "put" ? hex(o.value) : "-");
  return new Map([...m].sort(([x], [y]) => (x < y ? -1 : 1)));
}

describe("storage/writeLog: the workers' view of the owner's trie writes", () => {
  it("replays the logged tables' puts and deletes in write order, and skips other tables", () => {
    const log = new WriteLog(1024);
    const r = new WriteLogReader(log.ref);
    log.append(
      new WriteBatch()
        .put("accountTrie", b(1, 2), b(9))
        .put("hashedAccounts", b(1), b(1))
        .del("storageTrie", b(3))
        .put("accountTrie", b(), b(7, 7)),
    );
    log.append(new WriteBatch().put("accountTrie", b(1, 2), b(8)));
    assert.deepEqual(collect(r), {
      ok: true,
      rows: ["accountTrie 0x0102 0x09", "storageTrie 0x03 -", "accountTrie 0x 0x0707", "accountTrie 0x0102 0x08"],
    });
    assert.deepEqual(collect(r), { ok: true, rows: [] }, "nothing twice");
    const late = new WriteLogReader(log.ref);
    assert.deepEqual(collect(late), { ok: true, rows: [] }, "a new reader starts at the current position");
  });

  it("records that would cross the ring's end start the next lap", () => {
    const log = new WriteLog(64);
    const r = new WriteLogReader(log.ref);
    const want: string[] = [];
    for (let i = 0; i < 30; i++) {
      const v = new Uint8Array(5 + (i % 7)).fill(i);
      log.append(new WriteBatch().put("storageTrie", b(i, i, i), v));
      want.push(`storageTrie ${hex(b(i, i, i))} ${hex(v)}`);
      // Read each lap's records before the writer comes round again.
      assert.deepEqual(collect(r), { ok: true, rows: want.slice(-1) }, `record ${i}`);
    }
  });

  it("a reader a whole ring behind has lost rows", () => {
    const log = new WriteLog(64);
    const r = new WriteLogReader(log.ref);
    for (let i = 0; i < 10; i++) log.append(new WriteBatch().put("accountTrie", b(i), new Uint8Array(8)));
    assert.equal(collect(r).ok, false);
    log.append(new WriteBatch().put("accountTrie", b(1), b(1)));
    assert.deepEqual(
      collect(r),
      { ok: true, rows: ["accountTrie 0x01 0x01"] },
      "and goes on from the current position",
    );
  });

  it("a replay the writer laps while it runs is refused (what it read may be torn)", () => {
    const log = new WriteLog(64);
    const r = new WriteLogReader(log.ref);
    log.append(new WriteBatch().put("accountTrie", b(1), b(1)));
    let lapped = false;
    const ok = r.replay(() => {
      if (lapped) return;
      lapped = true;
      for (let i = 0; i < 10; i++) log.append(new WriteBatch().put("accountTrie", b(i), new Uint8Array(8)));
    });
    assert.equal(ok, false);
  });

  it("dropAll and an oversized value make every reader drop its cache", () => {
    const log = new WriteLog(1 << 20);
    const r = new WriteLogReader(log.ref);
    log.dropAll();
    assert.equal(collect(r).ok, false);
    assert.equal(collect(r).ok, true);
    log.append(new WriteBatch().put("accountTrie", b(1), new Uint8Array(70_000)));
    assert.equal(collect(r).ok, false);
  });

  /**
   * The owner writes trie rows in every way a node does; the worker's cached view computes roots
   * between them. Each worker root must equal the model's and write exactly what the uncached store
   * would. With the log switched off (the owner's RocksKv writing no entries) this fails: tried.
   */
  for (const seed of [11, 12, 13]) {
    it(`state roots through a worker's cached view equal the store's own (seed ${seed})`, async () => {
      const dir = makeTmpDir();
      const owner = await RocksKv.open(dir, { cacheBytes: 1 << 20 });
      const worker = await openCachedWorkerStore({
        engine: "rocksdb",
        handle: owner.shareHandle(),
        writeLog: owner.writeLog(),
      });
      try {
        const rng = new Rng(seed * 104_729);
        const model = new StateModel();
        const init = new WriteBatch();
        for (let i = 0; i < 60 + rng.int(40); i++) randomAccount(rng, model, owner, init);
        owner.write(init);
        owner.write(computeStateRoot(owner).batch);
        let trieReads = 0;
        let storeReads = 0;
        for (let round = 0; round < 40; round++) {
          const changes = randomChangeset(rng, model, owner);
          const want = hex(model.root());
          const onOwner = updateStateRoot(owner, changes);
          assert.equal(hex(onOwner.root), want, `round ${round}: the owner's root`);
          const kind = rng.int(4);
          if (kind === 0) {
            // A root computed on the owner's thread (a small block): the worker did not see it.
            owner.write(onOwner.batch);
            continue;
          }
          // As the trieHash worker runs it: the reply counts the trie rows read, and those from the store.
          const reply = stateRootOnWorker(worker.fresh(), { kind: "stateRoot", changes }, worker.readCounts);
          assert.equal(hex(reply.root), want, `round ${round}: the worker's root`);
          assert.ok(reply.trieStoreReads <= reply.trieReads, `round ${round}: store reads ≤ reads`);
          trieReads += reply.trieReads;
          storeReads += reply.trieStoreReads;
          const r = { root: reply.root, batch: decodeBatch(reply.batch) };
          assert.deepEqual(netEffect(r.batch), netEffect(onOwner.batch), `round ${round}: the worker's trie writes`);
          const undo = inverseBatch(owner, r.batch);
          owner.write(r.batch);
          if (kind === 1) {
            // A reorg: the block's trie rows undone, the worker computes over the parent, then redone.
            owner.write(undo);
            const back = updateStateRoot(worker.fresh(), { accounts: [] });
            assert.equal(hex(back.root), hex(updateStateRoot(owner, { accounts: [] }).root), `round ${round}: undone`);
            owner.write(r.batch);
          }
        }
        const c = worker.readCounts();
        assert.ok(c.hits > 0, "the worker's cache served reads");
        assert.ok(storeReads > 0 && storeReads < trieReads, `${storeReads} of ${trieReads} trie reads from the store`);
      } finally {
        owner.releaseHandle();
        await owner.close();
        removeDir(dir);
      }
    });
  }
});
