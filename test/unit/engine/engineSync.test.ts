/**
 * The Engine API with an execution-layer sync attached (op-node `--syncmode execution-layer`'s
 * view): newPayload on an unknown parent and forkchoice to an unknown head answer SYNCING and start
 * the downloader; once it reaches the target, forkchoice to it answers VALID with head, safe and
 * finalized applied, the next payload is VALID, and eth_syncing's source reports nothing.
 */
import { strict as assert } from "node:assert";
import { Downloader } from "../../../src/devp2p/sync/downloader.js";
import { EngineApi } from "../../../src/engine/engineApi.js";
import { blockToPayload } from "../../../src/engine/payload.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { extendChain, FakePeer, freshChain, sourceChain } from "../devp2p/sync/syncFixtures.js";

function payloadOf(chain: ReturnType<typeof freshChain>, n: number) {
  const hash = chain.store.canonicalHash(n) as Uint8Array;
  const header = chain.store.header(hash)!;
  const body = chain.store.body(hash)!;
  return { hash, header, payload: blockToPayload(header, body, hash, 3, false) };
}

describe("engine/engineApi with execution-layer sync", function () {
  this.timeout(120_000);

  it("newPayload/forkchoice to an unknown head → SYNCING; after the sync → VALID, heads applied", async () => {
    const source = sourceChain(300);
    const chain = freshChain();
    const api = new EngineApi(chain);
    const d = new Downloader({}, { chain });
    api.attachSync(d);
    const heads: number[] = [];
    api.onHead = (c) => heads.push(c.newHead.number);
    for (const id of ["a", "b"]) d.addPeer(new FakePeer(id, source));

    const tip = payloadOf(source, 300);
    const beacon = bytesToHex(tip.header.parentBeaconBlockRoot as Uint8Array);
    const np = await api.newPayload(3, tip.payload, [], beacon, null);
    assert.equal(np.status, "SYNCING");
    assert.equal(d.syncing, false, "newPayload alone starts no sync (geth: only forkchoice does)");

    const safe = bytesToHex(source.store.canonicalHash(250) as Uint8Array);
    const fin = bytesToHex(source.store.canonicalHash(200) as Uint8Array);
    const fcs = { headBlockHash: bytesToHex(tip.hash), safeBlockHash: safe, finalizedBlockHash: fin };
    const r1 = api.forkchoiceUpdated(3, fcs, null);
    assert.equal(r1.payloadStatus.status, "SYNCING");
    assert.equal(r1.payloadId, null);
    assert.equal(d.syncing, true);
    assert.equal(d.progress()?.highestBlock, 300);

    await d.whenIdle();
    assert.equal(chain.head.number, 300);
    assert.equal(bytesToHex(chain.headBlockHash), bytesToHex(tip.hash));
    assert.equal(bytesToHex(chain.head.stateRoot), bytesToHex(source.head.stateRoot));
    assert.equal(heads.at(-1), 300, "head changes reach the engine's listeners");
    assert.equal(bytesToHex(chain.store.meta(new TextEncoder().encode("safe")) as Uint8Array), safe);
    assert.equal(bytesToHex(chain.store.meta(new TextEncoder().encode("finalized")) as Uint8Array), fin);
    assert.equal(d.progress(), null);

    const r2 = api.forkchoiceUpdated(3, fcs, null);
    assert.equal(r2.payloadStatus.status, "VALID");
    assert.equal(r2.payloadStatus.latestValidHash, bytesToHex(tip.hash));

    // The chain goes on: the next payload executes at once.
    extendChain(source, 1);
    const next = payloadOf(source, 301);
    const np2 = await api.newPayload(3, next.payload, [], beacon, null);
    assert.equal(np2.status, "VALID");
    const r3 = api.forkchoiceUpdated(3, { ...fcs, headBlockHash: bytesToHex(next.hash) }, null);
    assert.equal(r3.payloadStatus.status, "VALID");
    assert.equal(chain.head.number, 301);
  });

  it("op-node's EL-sync pattern: payloads arrive one by one, each followed by forkchoice to it with zero safe/finalized", async () => {
    const source = sourceChain(120);
    const chain = freshChain();
    const api = new EngineApi(chain);
    const d = new Downloader({}, { chain });
    api.attachSync(d);
    d.addPeer(new FakePeer("a", source));
    const zero = `0x${"00".repeat(32)}`;
    let last = "";
    for (let n = 100; n <= 120; n++) {
      const p = payloadOf(source, n);
      const beacon = bytesToHex(p.header.parentBeaconBlockRoot as Uint8Array);
      const st = await api.newPayload(3, p.payload, [], beacon, null);
      assert.ok(st.status === "SYNCING" || st.status === "VALID", st.status);
      last = bytesToHex(p.hash);
      const r = api.forkchoiceUpdated(3, { headBlockHash: last, safeBlockHash: zero, finalizedBlockHash: zero }, null);
      assert.ok(r.payloadStatus.status === "SYNCING" || r.payloadStatus.status === "VALID");
    }
    await d.whenIdle();
    const r = api.forkchoiceUpdated(3, { headBlockHash: last, safeBlockHash: last, finalizedBlockHash: last }, null);
    assert.equal(r.payloadStatus.status, "VALID");
    assert.equal(chain.head.number, 120);
    assert.equal(bytesToHex(chain.head.stateRoot), bytesToHex(source.head.stateRoot));
  });

  it("without a sync attached, an unknown head still answers SYNCING and nothing starts", () => {
    const chain = freshChain();
    const api = new EngineApi(chain);
    const z = `0x${"00".repeat(32)}`;
    const r = api.forkchoiceUpdated(
      3,
      { headBlockHash: `0x${"ab".repeat(32)}`, safeBlockHash: z, finalizedBlockHash: z },
      null,
    );
    assert.equal(r.payloadStatus.status, "SYNCING");
  });
});
