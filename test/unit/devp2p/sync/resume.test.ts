/**
 * The downloader's resumption over a real RocksDB datadir, closed and reopened in one process.
 */
import { strict as assert } from "node:assert";
import { Blockchain as Chain } from "../../../../src/chain/blockchain.js";
import { Downloader } from "../../../../src/devp2p/sync/downloader.js";
import { openStore } from "../../../../src/storage/engine.js";
import { makeTmpDir, removeDir } from "../../../utils/tmpDir.js";
import { sameChain } from "./sameChain.js";
import { FakePeer, freshChain, sourceChain } from "./syncFixtures.js";

const N = 300;
const ZERO = new Uint8Array(32);

describe("devp2p/sync/downloader: resumption across a reopen", function () {
  this.timeout(120_000);
  const source = sourceChain(N);

  it("stopped midway and reopened from the same datadir, resumes: no block re-downloaded or re-executed", async () => {
    const dir = makeTmpDir("opal-sync-");
    try {
      let store = await openStore(dir, "rocksdb");
      let chain = freshChain(store.kv);
      const first = new FakePeer("a", source);
      let d = new Downloader({ commitBatch: 25, bodyBatch: 10, maxBlocksAhead: 40 }, { chain });
      d.addPeer(first);
      d.onHead = (c) => {
        if (c.newHead.number >= 100) void d.stop();
      };
      d.sync(source.headBlockHash, ZERO, ZERO);
      await d.whenIdle();
      const stoppedAt = chain.head.number;
      assert.ok(stoppedAt >= 100 && stoppedAt < N, `stopped at ${stoppedAt}`);
      assert.ok(d.syncing, "the sync should still be pending");
      const headerRequestsBefore = first.headerRequests;
      assert.ok(headerRequestsBefore > 0);
      await store.close();

      // "Restart": the same datadir, a new chain and downloader.
      store = await openStore(dir, "rocksdb");
      chain = Chain.open(store.kv);
      assert.equal(chain.head.number, stoppedAt);
      const second = new FakePeer("b", source);
      d = new Downloader({}, { chain });
      d.addPeer(second);
      const progress = d.progress();
      assert.ok(progress !== null);
      assert.equal(progress.highestBlock, N);
      assert.equal(progress.currentBlock, stoppedAt);
      assert.equal(d.resume(), true);
      await d.whenIdle();
      sameChain(source, chain);
      // The skeleton survived: no header asked again; bodies only above the restart point.
      assert.equal(second.headerRequests, 0);
      assert.ok(Math.min(...second.bodiesAsked) > stoppedAt, `re-asked body ${Math.min(...second.bodiesAsked)}`);
      assert.equal(d.counters.executed, N - stoppedAt);
      await store.close();
    } finally {
      removeDir(dir);
    }
  });

  it("stopped during the header stage, resumes the headers from its tail", async () => {
    const dir = makeTmpDir("opal-sync-");
    try {
      let store = await openStore(dir, "rocksdb");
      let chain = freshChain(store.kv);
      const first = new FakePeer("a", source);
      let d = new Downloader({ headerBatch: 20, maxHeaderChunksAhead: 1 }, { chain });
      d.addPeer(first);
      d.sync(source.headBlockHash, ZERO, ZERO);
      while (d.counters.headers < 100) await new Promise((r) => setTimeout(r, 1));
      await d.stop();
      const linked = d.progress()?.headersDownloaded ?? 0;
      assert.ok(linked >= 100 && linked < N, `linked ${linked}`);
      await store.close();

      store = await openStore(dir, "rocksdb");
      chain = Chain.open(store.kv);
      const second = new FakePeer("b", source);
      d = new Downloader({ headerBatch: 20 }, { chain });
      d.addPeer(second);
      d.resume();
      await d.whenIdle();
      sameChain(source, chain);
      // Headers were asked only below the old tail.
      assert.ok(second.headerRequests > 0);
      assert.ok(second.headerRequests <= Math.ceil((N - linked) / 20) + 1, `${second.headerRequests} header requests`);
      await store.close();
    } finally {
      removeDir(dir);
    }
  });
});
