/**
 * Action tests of the engine side and the sequencing rules: EL sync (`--syncmode execution-layer`)
 * from unsafe payloads, then consolidation of the derived chain with them; the max sequencer drift
 * (a batch with transactions past the drift is dropped, its block derived deposit-only instead);
 * and Alt-DA keccak commitments resolved through the DA storage.
 */
import { strict as assert } from "node:assert";
import { devAccounts } from "../../../../src/node/exec/devGenesis.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { AltDaSource } from "../../../../src/rollup/altDa/altDaSource.js";
import { commitmentTxData, keccakCommitment } from "../../../../src/rollup/altDa/commitment.js";
import { AltDaManager } from "../../../../src/rollup/altDa/daState.js";
import type { AltDaResolver } from "../../../../src/rollup/derive/dataSource.js";
import { encodeFramesTxData } from "../../../../src/rollup/derive/frame.js";
import { payloadRef } from "../../../../src/rollup/engine/engineClient.js";
import { L1Client } from "../../../../src/rollup/l1/l1Client.js";
import { BATCH_INBOX } from "../../../utils/actions/l1Miner.js";
import { l2Transfer, Rollup } from "../../../utils/actions/rollup.js";

const alice = devAccounts()[3]!;
let nonce = 0n;
const transfer = (): Uint8Array =>
  l2Transfer(nonce++, { key: alice.privateKey, to: devAccounts()[4]!.address, value: 1n });

describe("actions: engine sync modes, sequencer drift, Alt-DA", function () {
  this.timeout(60_000);
  beforeEach(() => {
    nonce = 0n;
  });

  it("--syncmode execution-layer: the engine syncs from unsafe payloads, then derivation consolidates", async () => {
    const r = new Rollup({ driver: { syncMode: "execution-layer", engineKind: "geth" } });
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock([transfer()]);
    await r.sequencer.buildBlock();
    await r.miner.mine(await r.batcher.batchTxs());
    const v = r.verifier();
    assert.equal((await v.driver.step()).kind, "idle", "EL sync waits for payloads instead of deriving");
    assert.equal(v.driver.controller.elSyncing, true);
    for (const env of r.sequencer.envelopes) assert.equal(await v.driver.controller.insertUnsafePayload(env), true);
    assert.equal(v.driver.controller.elSyncing, false);
    const h = v.heads;
    assert.equal(h.finalized.number, 1, "the first synced block is trusted as finalized");
    assert.equal(h.unsafe.number, r.sequencer.unsafe.number);
    await v.sync();
    assert.equal(v.heads.safe.number, r.sequencer.unsafe.number);
    assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(r.sequencer.unsafe.hash));
    assert.ok(v.driver.counters.consolidated > 0, "derived attributes matched the synced blocks");
    assert.equal(v.driver.counters.derived, 0, "no block had to be built");
  });

  it("payloadRef: a built payload's ref is the ref of the block the engine then serves (op-node PayloadToBlockRef)", async () => {
    const r = new Rollup();
    for (let l1 = 0; l1 < 3; l1++) {
      await r.miner.mine();
      await r.sequencer.catchUpToL1();
      await r.sequencer.buildBlock([transfer()]);
    }
    assert.ok(r.sequencer.envelopes.length >= 3);
    const origins = new Set<number>();
    for (const env of r.sequencer.envelopes) {
      const ref = payloadRef(r.cfg, env);
      assert.deepEqual(ref, await r.sequencer.engine.blockRef(env.blockHash));
      origins.add(ref.l1origin.number);
    }
    assert.ok(origins.size > 1, "the payloads span several L1 origins");
    const env = r.sequencer.envelopes[0]!;
    const noDeposit = { ...env, executionPayload: { ...env.executionPayload, transactions: [] } };
    assert.throws(() => payloadRef(r.cfg, noDeposit), /does not start with an L1-attributes deposit/);
  });

  it("--l2.enginekind=geth skips EL sync once the engine has a finalized block; consensus-layer never waits", async () => {
    const r = new Rollup({ driver: { syncMode: "consensus-layer" } });
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    await r.miner.mine(await r.batcher.batchTxs());
    const v = r.verifier();
    await v.sync();
    assert.equal(v.driver.controller.elSyncing, false);
    assert.equal(v.heads.safe.number, r.sequencer.unsafe.number);
  });

  it("a restart over an engine rewound below its safe and finalized labels starts from genesis and derives again (op-node currentHeads)", async () => {
    const r = new Rollup({ driver: { syncMode: "consensus-layer" } });
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock([transfer()]);
    await r.miner.mine(await r.batcher.batchTxs());
    const v = r.verifier();
    await v.sync();
    const derived = v.heads.safe;
    assert.ok(derived.number > 0);
    // debug_setHead to genesis: the labels above it are cleared, so "safe" and "finalized" are not found.
    v.exec.chain.rewindHead(0);
    const restarted = r.verifier(undefined, undefined, v.exec);
    await restarted.sync();
    assert.equal(restarted.heads.safe.number, derived.number);
    assert.equal(bytesToHex(restarted.heads.safe.hash), bytesToHex(derived.hash));
  });

  it("max sequencer drift: a batch with transactions past the drift is dropped; the block is derived deposit-only", async () => {
    // Pre-Fjord so the rollup config's drift (here 4 s) applies instead of Fjord's 1800 s constant.
    const r = new Rollup({
      maxSequencerDrift: 4,
      seqWindowSize: 4,
      forks: { fjord: null, granite: null, holocene: null, isthmus: null, jovian: null },
    });
    // The sequencer keeps L1 origin 0 (time t0) while L2 runs past t0 + 4: block 3 (t0 + 6) has a tx.
    await r.sequencer.buildBlock([], { keepOrigin: true });
    await r.sequencer.buildBlock([], { keepOrigin: true });
    const late = await r.sequencer.buildBlock([transfer()], { keepOrigin: true });
    assert.equal(late.l1origin.number, 0);
    assert.ok(late.timestamp > r.cfg.genesis.l2Time + 4);
    const txs = await r.batcher.batchTxs();
    await r.miner.mine(txs);
    for (let i = 0; i < 5; i++) await r.miner.mine();
    const v = r.verifier();
    await v.sync();
    const derived = await v.engine.mustBlock(late.number);
    assert.notEqual(bytesToHex(derived.ref.hash), bytesToHex(late.hash), "the drifting batch was not used");
    assert.equal(derived.txs.length, 1, "only the L1-info deposit");
    // The blocks before it were within the drift and are the sequencer's.
    const ok = await v.engine.mustBlock(late.number - 1);
    const want = await r.sequencer.engine.mustBlock(late.number - 1);
    assert.equal(bytesToHex(ok.ref.hash), bytesToHex(want.ref.hash));
  });

  it("Alt-DA: keccak commitments on L1 resolve to channel data in the DA storage", async () => {
    const store = new Map<string, Uint8Array>();
    let resolver: AltDaResolver | null = null;
    const lazy: AltDaResolver = {
      advance: (l1) => resolver!.advance(l1),
      resolve: (l1, payload) => resolver!.resolve(l1, payload),
    };
    const r = new Rollup({
      altDaJson: {
        da_commitment_type: "KeccakCommitment",
        da_challenge_contract_address: "0x00000000000000000000000000000000000da0da",
        da_challenge_window: 6,
        da_resolve_window: 6,
      },
      altDa: lazy,
    });
    const l1 = new L1Client({ url: "in-process://l1", transport: r.miner.exec.rpc });
    const manager = new AltDaManager(
      r.cfg.altDa!,
      {
        async getInput(c) {
          const v = store.get(bytesToHex(c.data));
          if (v === undefined) throw new Error("not found");
          return v;
        },
      },
      {
        fetchReceipts: async (h) => (await l1.fetchReceipts(h)).receipts,
        txsByHash: async (h) => (await l1.infoAndTxsByHash(h)).txs,
        l1BlockRefByNumber: (n) => l1.l1BlockRefByNumber(n),
      },
    );
    resolver = new AltDaSource(manager);
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock([transfer()]);
    const data = encodeFramesTxData(await r.batcher.channelFrames());
    const c = keccakCommitment(data);
    store.set(bytesToHex(c.data), data);
    await r.miner.mine([r.miner.tx(r.batcherAccount, BATCH_INBOX, commitmentTxData(c))]);
    // A commitment to data the DA server never had: skipped only after its challenge window.
    const v = r.verifier();
    await v.sync();
    assert.equal(v.heads.safe.number, r.sequencer.unsafe.number);
    assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(r.sequencer.unsafe.hash));
  });
});
