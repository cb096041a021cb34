/**
 * The execution-layer downloader over in-process peers backed by a 300-block source chain: a fresh
 * chain reaches the same head and state root from one or three peers; peers lying about headers or
 * bodies are dropped and the sync completes from the others; a sync stopped midway and reopened from
 * the same datadir resumes without downloading or executing the first blocks again.
 */
import { strict as assert } from "node:assert";
import type { Blockchain } from "../../../../src/chain/blockchain.js";
import { Downloader } from "../../../../src/devp2p/sync/downloader.js";
import { formatEta } from "../../../../src/devp2p/sync/progressMeter.js";
import { PeerFault } from "../../../../src/devp2p/sync/syncPeer.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import type { Logger } from "../../../../src/util/log.js";
import { sameChain } from "./sameChain.js";
import { FakePeer, freshChain, sourceChain } from "./syncFixtures.js";

const N = 300;
const ZERO = new Uint8Array(32);

function recordingLog(): Logger & { lines: { msg: string; fields: Record<string, unknown> }[] } {
  const lines: { msg: string; fields: Record<string, unknown> }[] = [];
  const rec = (msg: string, fields: Record<string, unknown> = {}) => lines.push({ msg, fields });
  return { lines, error: rec, warn: rec, info: rec, debug: rec };
}

async function until(f: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("devp2p/sync/downloader", function () {
  this.timeout(120_000);
  let source: Blockchain;

  before(() => {
    source = sourceChain(N);
  });

  it("syncs 300 blocks from one peer: same head and state root, progress and eth_syncing numbers", async () => {
    const chain = freshChain();
    const log = recordingLog();
    const d = new Downloader({ progressIntervalMs: 0, commitBatch: 50 }, { chain, log });
    const peer = new FakePeer("a", source);
    d.addPeer(peer);
    const heads: number[] = [];
    d.onHead = (c) => heads.push(c.newHead.number);
    d.sync(source.headBlockHash, ZERO, ZERO);
    assert.equal(d.syncing, true);
    const p = d.progress();
    assert.ok(p !== null && p.startingBlock === 0);
    await d.whenIdle();
    sameChain(source, chain);
    assert.equal(d.syncing, false);
    assert.equal(d.progress(), null);
    assert.equal(d.counters.executed, N);
    assert.deepEqual(heads, [50, 100, 150, 200, 250, 300]);
    assert.equal(peer.faults.length, 0);
    const progress = log.lines.filter((l) => l.msg === "Sync progress");
    assert.ok(progress.some((l) => l.fields.stage === "headers"));
    const exec = progress.filter((l) => l.fields.stage === "execution");
    assert.ok(exec.length > 0);
    assert.match(String(exec.at(-1)?.fields.block), /^300\/300$/);
    assert.match(String(exec.at(-1)?.fields.speed), /^\d+\.\d blocks\/s$/);
    assert.ok(log.lines.some((l) => l.msg === "Sync complete"));
    // The skeleton is gone once the target is reached.
    assert.equal([...chain.kv.iterate("syncHeaders")].length, 0);
  });

  it("spreads requests over three peers", async () => {
    const chain = freshChain();
    const peers = ["a", "b", "c"].map((id) => new FakePeer(id, source));
    const d = new Downloader({ headerBatch: 32, bodyBatch: 16 }, { chain });
    for (const p of peers) d.addPeer(p);
    d.sync(source.headBlockHash, ZERO, ZERO);
    await d.whenIdle();
    sameChain(source, chain);
    for (const p of peers) assert.ok(p.bodyRequests > 0, `peer ${p.id} was never asked for bodies`);
    for (const p of peers) assert.equal(p.faults.length, 0);
  });

  it("drops a peer whose headers do not link and one whose bodies do not match; completes from the honest one", async () => {
    const chain = freshChain();
    const liarH = new FakePeer("liar-headers", source, "badHeaders");
    const liarB = new FakePeer("liar-bodies", source, "badBodies");
    const honest = new FakePeer("honest", source);
    const log = recordingLog();
    const d = new Downloader({ headerBatch: 40, bodyBatch: 20 }, { chain, log });
    // Liars first: the peer choice takes them before the honest peer.
    d.addPeer(liarH);
    d.addPeer(liarB);
    d.addPeer(honest);
    d.sync(source.headBlockHash, ZERO, ZERO);
    await d.whenIdle();
    sameChain(source, chain);
    assert.ok(liarH.dropped, "the header liar was not dropped");
    assert.ok(liarH.faults.some((f) => /link/.test(f.reason)));
    assert.ok(liarB.dropped, "the body liar was not dropped");
    assert.ok(liarB.faults.some((f) => /transactions root/.test(f.reason)));
    assert.equal(honest.faults.length, 0);
    assert.equal(d.peerCount, 1);
    assert.ok(log.lines.some((l) => l.msg === "Dropping sync peer"));
    // No block was marked invalid by a lie.
    assert.equal(chain.isInvalid(source.headBlockHash), false);
  });

  it("a silent peer times out and rests; the sync completes from another", async () => {
    const chain = freshChain();
    const silent = new FakePeer("silent", source, "silent");
    const honest = new FakePeer("honest", source);
    const d = new Downloader({ requestTimeoutMs: 50 }, { chain });
    d.addPeer(silent);
    d.addPeer(honest);
    d.sync(source.headBlockHash, ZERO, ZERO);
    await d.whenIdle();
    sameChain(source, chain);
    assert.ok(silent.faults.length > 0 && silent.faults.every((f) => f.fault === PeerFault.Slow));
  });

  it("a target named by hash only: its header is asked of peers; safe and finalized apply at the end", async () => {
    const chain = freshChain();
    const d = new Downloader({}, { chain });
    d.addPeer(new FakePeer("a", source));
    const safe = source.store.canonicalHash(250) as Uint8Array;
    const fin = source.store.canonicalHash(200) as Uint8Array;
    d.sync(source.headBlockHash, safe, fin);
    await d.whenIdle();
    sameChain(source, chain);
    assert.equal(bytesToHex(chain.store.meta(new TextEncoder().encode("safe")) as Uint8Array), bytesToHex(safe));
    assert.equal(bytesToHex(chain.store.meta(new TextEncoder().encode("finalized")) as Uint8Array), bytesToHex(fin));
  });

  it("moves to a newer target mid-sync (extension through newPayload headers)", async () => {
    const chain = freshChain();
    const d = new Downloader({ commitBatch: 16 }, { chain });
    d.addPeer(new FakePeer("a", source));
    const mid = source.store.canonicalHash(200) as Uint8Array;
    d.sync(mid, ZERO, ZERO);
    // The next payloads arrive one by one, each extending the target.
    for (let n = 201; n <= N; n++) {
      const h = source.store.canonicalHash(n) as Uint8Array;
      assert.equal(d.extend(source.store.headerRlp(h) as Uint8Array), true);
    }
    d.sync(source.headBlockHash, ZERO, ZERO);
    await d.whenIdle();
    sameChain(source, chain);
  });

  it("a target extended block by block before any peer answers (op-node's EL sync on a live chain) still links", async () => {
    // The devnet's pattern: newPayload + forkchoice for every gossip block while no header has been
    // fetched yet, so each extension makes a one-header subchain on top of the previous one; the
    // merged subchain's tail parent is the one the next chunk must end in (a stale one dropped every
    // honest peer as a liar).
    const chain = freshChain();
    const d = new Downloader({ commitBatch: 16 }, { chain });
    const at = (n: number) => source.store.canonicalHash(n) as Uint8Array;
    const rlp = (n: number) => source.store.headerRlp(at(n)) as Uint8Array;
    d.extend(rlp(7));
    d.sync(at(7), ZERO, ZERO);
    for (let n = 8; n <= 40; n++) {
      d.extend(rlp(n));
      d.sync(at(n), ZERO, ZERO);
      await new Promise((r) => setImmediate(r));
    }
    const peer = new FakePeer("a", source);
    d.addPeer(peer);
    await d.whenIdle();
    assert.equal(peer.faults.length, 0, JSON.stringify(peer.faults));
    assert.equal(chain.head.number, 40);
    assert.equal(bytesToHex(chain.headBlockHash), bytesToHex(at(40)));
  });

  it("with no consensus client, follows the best numbered peer head; the first forkchoice ends that", async () => {
    const chain = freshChain();
    const log = recordingLog();
    const d = new Downloader({}, { chain, log });
    // An eth/68 peer announces only a hash: never followed (its height is unknown).
    const eth68 = new FakePeer("old", source);
    Object.defineProperty(eth68, "head", { get: () => ({ hash: source.headBlockHash, number: null }) });
    d.addPeer(eth68);
    assert.equal(d.followStep(), false);
    assert.equal(d.syncing, false);
    d.addPeer(new FakePeer("a", source));
    assert.deepEqual(d.bestPeerHead()?.number, N);
    d.followPeers(5);
    await until(() => chain.head.number === N, 60_000);
    await d.whenIdle();
    sameChain(source, chain);
    assert.ok(log.lines.some((l) => l.msg === "No consensus client yet, following the best peer's head"));
    // At the peers' height: nothing more to follow.
    assert.equal(d.followStep(), false);
    await d.stop();

    // A consensus client that has spoken rules: a peer above the local head is no longer followed.
    const chain2 = freshChain();
    const d2 = new Downloader({}, { chain: chain2 });
    d2.addPeer(new FakePeer("a", source));
    d2.consensusSpeaks();
    assert.equal(d2.followStep(), false);
    assert.equal(d2.syncing, false);
    // And a forkchoice (sync) is itself the consensus client speaking: its lower head stays.
    const chain3 = freshChain();
    const d3 = new Downloader({}, { chain: chain3 });
    d3.addPeer(new FakePeer("a", source));
    d3.sync(source.store.canonicalHash(100)!, ZERO, ZERO);
    await d3.whenIdle();
    assert.equal(chain3.head.number, 100);
    assert.equal(d3.followStep(), false);
    assert.equal(d3.syncing, false);
  });

  it("formats the eta as geth does", () => {
    assert.equal(formatEta(5), "5s");
    assert.equal(formatEta(65), "1m5s");
    assert.equal(formatEta(3725), "1h2m5s");
    assert.equal(formatEta(Number.NaN), "unknown");
  });
});
