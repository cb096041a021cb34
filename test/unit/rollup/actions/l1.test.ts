/**
 * Action tests of the verifier against its L1: reorgs (a batch moved to another L1 block, and the L1
 * origins of safe blocks reorged away), an untrusted L1 RPC serving receipts that do not match the
 * header's root, and blob data (Ecotone) read through a blob source that first lacks a blob.
 */
import { strict as assert } from "node:assert";
import { loadKzg } from "../../../../src/crypto/kzg.js";
import { equalBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { encodeBlob } from "../../../../src/rollup/derive/blobCodec.js";
import type { BlobSource } from "../../../../src/rollup/derive/dataSource.js";
import { encodeFramesTxData } from "../../../../src/rollup/derive/frame.js";
import type { L1BlockRef } from "../../../../src/rollup/refs.js";
import type { RpcTransport } from "../../../../src/rollup/transport/rpcTransport.js";
import { kzgToVersionedHash } from "../../../../src/tx/blobNetwork.js";
import { BATCH_INBOX } from "../../../utils/actions/l1Miner.js";
import { Rollup, recordingLog, type Verifier } from "../../../utils/actions/rollup.js";

async function sameChain(r: Rollup, v: Verifier, upTo: number): Promise<void> {
  for (let n = 1; n <= upTo; n++) {
    const want = await r.sequencer.engine.mustBlock(n);
    const got = await v.engine.mustBlock(n);
    assert.equal(bytesToHex(got.ref.hash), bytesToHex(want.ref.hash), `L2 block ${n}`);
  }
}

describe("actions: the verifier and its L1", function () {
  this.timeout(60_000);

  it("an L1 reorg that moves the batch to another block: reset, then the same chain again", async () => {
    const r = new Rollup();
    const b1 = await r.miner.mine();
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock();
    const frames = await r.batcher.channelFrames();
    const [batchTx] = r.batcher.txsFor(frames);
    await r.miner.mine([batchTx!]);
    const v = r.verifier();
    await v.sync();
    const safe = v.heads.safe;
    assert.equal(safe.number, r.sequencer.unsafe.number);

    // Reorg: block 2 (with the batch) replaced by an empty block 2', the batch re-sent in 3'.
    r.miner.setNonce(r.batcherAccount, 0n);
    await r.miner.mine([], b1.hash);
    const [again] = r.batcher.txsFor(frames);
    await r.miner.mine([again!]);
    await v.sync();
    assert.ok(v.driver.counters.resets >= 2, "the reorg was detected and the pipeline reset");
    assert.equal(v.heads.safe.number, safe.number);
    assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(safe.hash));
    await sameChain(r, v, safe.number);
  });

  it("safe blocks whose L1 origin is reorged away are dropped and the chain is derived from the new L1", async () => {
    const r = new Rollup({ seqWindowSize: 4 });
    const b1 = await r.miner.mine();
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock();
    await r.miner.mine(await r.batcher.batchTxs());
    const v = r.verifier();
    await v.sync();
    const old = v.heads.safe;
    assert.equal(old.l1origin.number, 1);

    // L1 block 1 is replaced: every L2 block with origin b1 is now invalid.
    const genesis = r.miner.refOf(0);
    const alt: L1BlockRef[] = [
      await r.miner.mine([r.miner.tx(r.miner.accounts[5]!, BATCH_INBOX, Uint8Array.of(9))], genesis.hash),
    ];
    for (let i = 0; i < 6; i++) alt.push(await r.miner.mine());
    assert.ok(!equalBytes(alt[0]!.hash, b1.hash));
    await v.sync();
    const safe = v.heads.safe;
    assert.ok(safe.number >= old.number, "derivation went on past the old safe head");
    for (let n = 1; n <= safe.number; n++) {
      const b = await v.engine.mustBlock(n);
      const origin = b.ref.l1origin;
      assert.equal(bytesToHex(r.miner.refOf(origin.number).hash), bytesToHex(origin.hash), `L2 ${n} origin canonical`);
      // No batch on the new L1: the window expired, so only deposits (the L1-info tx) remain.
      assert.equal(b.txs.length, 1, `L2 ${n} is deposit-only`);
    }
    const oldNow = await v.engine.mustBlock(old.number);
    assert.notEqual(bytesToHex(oldNow.ref.hash), bytesToHex(old.hash), "the old safe block was reorged out");
  });

  it("without --l1.trustrpc, receipts that do not match the receipts root are rejected and nothing is derived from them", async () => {
    let tamper = true;
    const tampering = (inner: RpcTransport): RpcTransport => ({
      async call<T>(method: string, params: readonly unknown[] = []): Promise<T> {
        const out = await inner.call<unknown>(method, params);
        if (tamper && method === "eth_getBlockReceipts" && Array.isArray(out) && out.length > 0) {
          const first = { ...(out[0] as Record<string, string>) };
          first.cumulativeGasUsed = `0x${(BigInt(first.cumulativeGasUsed!) + 1n).toString(16)}`;
          return [first, ...out.slice(1)] as T;
        }
        return out as T;
      },
      callBatch: (calls) => inner.callBatch(calls),
    });
    const r = new Rollup({ verifierL1: tampering });
    await r.miner.mine([r.miner.tx(r.miner.accounts[4]!, BATCH_INBOX, Uint8Array.of(1))]);
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock();
    await r.miner.mine(await r.batcher.batchTxs());
    const log = recordingLog();
    const v = r.verifier(log);
    const step = await v.driver.stepUntilIdle();
    assert.equal(step.kind, "temporary");
    assert.match(log.lines.join("\n"), /receipt/i);
    assert.equal(v.heads.safe.number, 0, "nothing derived from unverifiable receipts");

    tamper = false;
    await v.sync();
    assert.equal(v.heads.safe.number, r.sequencer.unsafe.number);
    await sameChain(r, v, v.heads.safe.number);
  });

  it("with --l1.trustrpc the same receipts are not checked against the root", async () => {
    const r = new Rollup({ trustRpc: true });
    await r.miner.mine([r.miner.tx(r.miner.accounts[4]!, BATCH_INBOX, Uint8Array.of(1))]);
    await r.sequencer.catchUpToL1();
    await r.miner.mine(await r.batcher.batchTxs());
    const v = r.verifier();
    await v.sync();
    assert.equal(v.heads.safe.number, r.sequencer.unsafe.number);
  });

  it("blob batches (Ecotone): derived from the blobs; a missing blob stalls derivation until it can be fetched", async () => {
    const kzg = loadKzg();
    const store = new Map<string, Uint8Array>();
    let withhold = true;
    const asked: number[] = [];
    const blobs: BlobSource = {
      async getBlobs(_ref, hashes) {
        return hashes.map((h) => {
          asked.push(h.index);
          const b = store.get(bytesToHex(h.versionedHash));
          if (b === undefined || withhold) throw new Error(`blob ${h.index} not available`);
          return b;
        });
      },
    };
    const r = new Rollup({ blobs });
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock();
    const frames = await r.batcher.channelFrames();
    const blob = encodeBlob(encodeFramesTxData(frames));
    const hash = kzgToVersionedHash(kzg.blobToKzgCommitment(blob));
    store.set(bytesToHex(hash), blob);
    // A blob tx of someone else first: the batcher's blob is index 1 of the block.
    const otherBlob = encodeBlob(Uint8Array.of(0, 1, 2));
    await r.miner.mine([
      r.miner.blobTxWithSidecars(r.miner.accounts[6]!, BATCH_INBOX, [otherBlob]),
      r.miner.blobTxWithSidecars(r.batcherAccount, BATCH_INBOX, [blob]),
    ]);
    const log = recordingLog();
    const v = r.verifier(log);
    const step = await v.driver.stepUntilIdle();
    assert.equal(step.kind, "temporary", "a missing blob is a temporary error");
    assert.equal(v.heads.safe.number, 0);
    assert.deepEqual([...new Set(asked)], [1], "the blob is asked for by its index among all blobs of the block");
    withhold = false;
    await v.sync();
    assert.equal(v.heads.safe.number, r.sequencer.unsafe.number);
    await sameChain(r, v, v.heads.safe.number);
  });
});

describe("actions: --verifier.l1-confs", function () {
  this.timeout(60_000);
  it("the verifier derives only from L1 blocks with that many blocks on top", async () => {
    const r = new Rollup({ verifierL1Confs: 2 });
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    await r.miner.mine(await r.batcher.batchTxs());
    const v = r.verifier();
    await v.sync();
    assert.equal(v.heads.safe.number, 0, "the batch block has no confirmations yet");
    await r.miner.mine();
    await v.sync();
    assert.equal(v.heads.safe.number, 0, "one confirmation is not enough");
    await r.miner.mine();
    await v.sync();
    assert.equal(v.heads.safe.number, r.sequencer.unsafe.number);
    assert.ok(v.driver.pipeline.origin().number <= r.miner.headRef().number - 2);
  });
});
