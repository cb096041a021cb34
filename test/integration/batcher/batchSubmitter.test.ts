/**
 * opal-batcher's channel building and submission against the action harness: the sequencer's L2
 * chain served over HTTP, the L1 miner's chain served over HTTP (a mining loop seals whatever the
 * batcher sent), and a stand-in rollup node answering optimism_syncStatus from the sequencer and
 * a verifier. What the batcher posts must derive, on a verifier, into exactly the sequencer's
 * chain; a restart from the state file repeats nothing; the channel helpers round-trip through
 * Opal's own channel reader.
 */
import { strict as assert } from "node:assert";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { BatchSubmitter, type SubmitterOptions } from "../../../src/batcher/batchSubmitter.js";
import {
  type BlockBatch,
  channelData,
  compressedBound,
  fillChannel,
  framesOf,
} from "../../../src/batcher/channelOut.js";
import { TxSender } from "../../../src/batcher/txSender.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { decodeBatch, encodeSingularBatch } from "../../../src/rollup/derive/batch.js";
import { BatchType } from "../../../src/rollup/derive/batchTypes.js";
import { readChannelBatches } from "../../../src/rollup/derive/channelReader.js";
import type { BlobSource } from "../../../src/rollup/derive/dataSource.js";
import { parseFrames } from "../../../src/rollup/derive/frame.js";
import { EngineClient } from "../../../src/rollup/engine/engineClient.js";
import { l2RefJson } from "../../../src/rollup/refs.js";
import { parseRpcTx } from "../../../src/rollup/transport/ethJson.js";
import { RpcClient } from "../../../src/rollup/transport/rpcClient.js";
import { RpcHttpServer } from "../../../src/rpc/httpServer.js";
import { encodeTx } from "../../../src/tx/envelope.js";
import { BATCH_INBOX } from "../../utils/actions/l1Miner.js";
import { l2Transfer, Rollup, type Verifier } from "../../utils/actions/rollup.js";
import { tempDir } from "../../utils/node.js";

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

async function serve(server: RpcHttpServer): Promise<string> {
  return `http://127.0.0.1:${(await server.listen()).port}`;
}

/** A rollup-node stand-in: syncStatus from the sequencer's unsafe head and a verifier's safe head. */
function fakeRollupNode(r: Rollup, v: Verifier): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const m = JSON.parse(body) as { id: number; method: string };
      const head = r.miner.headRef();
      const result =
        m.method === "optimism_syncStatus"
          ? {
              head_l1: { hash: bytesToHex(head.hash), number: head.number },
              safe_l2: l2RefJson(v.heads.safe),
              unsafe_l2: l2RefJson(r.sequencer.unsafe),
            }
          : null;
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }));
    });
  });
  return new Promise((done) =>
    server.listen(0, "127.0.0.1", () =>
      done({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

/** Seals the L1 pool's pending txs (in nonce order per sender) into a block, if there are any. */
async function mineSent(r: Rollup): Promise<number> {
  const content = await r.miner.exec.rpc.call<{ pending: Record<string, Record<string, unknown>> }>("txpool_content");
  const raws: Uint8Array[] = [];
  for (const byNonce of Object.values(content.pending)) {
    for (const n of Object.keys(byNonce).sort((x, y) => Number(x) - Number(y))) {
      raws.push(encodeTx(parseRpcTx(byNonce[n])));
    }
  }
  if (raws.length === 0) return 0;
  await r.miner.mine(raws);
  return raws.length;
}

describe("batcher: channels and the submitter", function () {
  this.timeout(60_000);

  it("channel data and frames read back through Opal's channel reader (singular and span)", async () => {
    const r = new Rollup();
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock([l2Transfer(0n)]);
    const blocks: BlockBatch[] = [];
    for (let n = 1; n <= r.sequencer.unsafe.number; n++) {
      const b = await r.sequencer.engine.mustBlock(n);
      const txs = (await r.sequencer.engine.transactionsByNumber(n)).filter((t) => t[0] !== 0x7e);
      blocks.push({
        number: n,
        hash: b.ref.hash,
        sequenceNumber: b.ref.sequenceNumber,
        batch: {
          parentHash: b.ref.parentHash,
          epochNum: b.ref.l1origin.number,
          epochHash: b.ref.l1origin.hash,
          timestamp: b.ref.timestamp,
          transactions: txs,
        },
      });
    }
    const ctx = { genesisL2Time: r.cfg.genesis.l2Time, blockTime: r.cfg.blockTime, l2ChainId: r.cfg.l2ChainId };
    for (const span of [false, true]) {
      const o = {
        span,
        algo: "zlib" as const,
        maxFrameData: 40,
        genesisL2Time: ctx.genesisL2Time,
        l2ChainId: ctx.l2ChainId,
      };
      const data = channelData(blocks, o);
      const frames = framesOf(data, 40);
      assert.ok(frames.length > 1);
      assert.ok(frames.every((f) => f.data.length <= 40));
      assert.equal(frames.filter((f) => f.isLast).length, 1);
      const read = readChannelBatches(data, { fjord: true });
      const batches = read.batches.map((b) => decodeBatch(b, ctx));
      if (span) {
        assert.equal(batches.length, 1);
        assert.equal(batches[0]!.type, BatchType.Span);
      } else {
        assert.equal(batches.length, blocks.length);
      }
      const filled = fillChannel(blocks, data.length - 1, o);
      assert.equal(filled.full, true);
      assert.ok(filled.blocks.length < blocks.length && filled.data !== null && filled.data.length <= data.length - 1);
      // Not due: a channel that fits even uncompressed is left alone (nothing compressed, not full);
      // one over that bound is compressed to decide; due, it is always compressed.
      let raw = 0;
      for (const b of blocks) raw += encodeSingularBatch(b.batch).length + 3;
      const idle = fillChannel(blocks, compressedBound(raw) + 1024, o, false);
      assert.deepEqual([idle.data, idle.full, idle.blocks.length], [null, false, blocks.length]);
      assert.deepEqual(fillChannel(blocks, compressedBound(raw) + 1024, o, true).data, data);
      const tight = fillChannel(blocks, data.length - 1, o, false);
      assert.ok(tight.full && tight.data !== null);
    }
  });

  for (const da of ["calldata", "blobs"] as const) {
    it(`posts the sequencer's blocks (${da}); a verifier derives them; a restart from the state file repeats nothing`, async () => {
      const dir = tempDir("batcher");
      // The verifier reads blobs from the L1 miner's own sidecar store, by index in the block.
      let miner: Rollup | null = null;
      const blobs: BlobSource = {
        async getBlobs(ref, hashes) {
          const all = miner!.miner.exec.blobSidecars!.atBlock(ref.number, ref.hash) ?? [];
          return hashes.map((h) => {
            const s = all.find((x) => x.index === h.index);
            if (s === undefined) throw new Error(`no blob ${h.index} in L1 block ${ref.number}`);
            return s.blob;
          });
        },
      };
      const r = new Rollup({ blobs });
      miner = r;
      const v = r.verifier();
      const l1Server = new RpcHttpServer(
        { addr: "127.0.0.1", port: 0, apis: ["eth", "txpool"] },
        { registry: r.miner.exec.registry },
      );
      const l2Server = new RpcHttpServer(
        { addr: "127.0.0.1", port: 0, apis: ["eth"] },
        { registry: r.sequencer.exec.registry },
      );
      const l1Url = await serve(l1Server);
      const l2Url = await serve(l2Server);
      const node = await fakeRollupNode(r, v);
      const stateFile = join(dir.path, "batcher-state.json");
      const opts: SubmitterOptions = {
        maxChannelDuration: 1,
        subSafetyMargin: 4,
        targetNumFrames: 1,
        maxL1TxSize: 120_000,
        algo: "zlib",
        span: true,
        da,
        pollMs: 50,
        stateFile,
      };
      const make = (): BatchSubmitter =>
        new BatchSubmitter(r.cfg, opts, {
          rollup: new RpcClient(node.url),
          l2: new EngineClient(new RpcClient(l2Url), r.cfg),
          sender: new TxSender(new RpcClient(l1Url), {
            privateKey: r.batcherAccount.privateKey,
            chainId: r.miner.chainId,
            numConfirmations: 1,
            resubmissionTimeoutMs: 20_000,
            feeBumpPercent: 10,
            maxAttempts: 3,
            pollMs: 20,
          }),
          log: quiet,
        });
      try {
        await r.miner.mine();
        await r.sequencer.catchUpToL1();
        await r.sequencer.buildBlock([l2Transfer(0n)]);
        // Run the submitter while a loop mines whatever it sends.
        const run = async (s: BatchSubmitter, until: () => boolean): Promise<void> => {
          for (let i = 0; i < 200 && !until(); i++) {
            const step = s.step();
            let settled = false;
            void step.finally(() => {
              settled = true;
            });
            while (!settled) {
              await mineSent(r);
              await new Promise((res) => setTimeout(res, 20));
            }
            await step;
            await r.miner.mine();
            await v.sync();
          }
        };
        const first = make();
        await run(first, () => v.heads.safe.number >= r.sequencer.unsafe.number);
        assert.equal(v.heads.safe.number, r.sequencer.unsafe.number);
        assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(r.sequencer.unsafe.hash));
        const postedBlocks = first.counters.blocks;
        assert.equal(postedBlocks, r.sequencer.unsafe.number, "every block posted exactly once");

        // More blocks, a new batcher process: it resumes after the last block it posted.
        const before = r.sequencer.unsafe.number;
        await r.sequencer.buildBlock([l2Transfer(1n)]);
        await r.sequencer.buildBlock();
        const second = make();
        await run(second, () => v.heads.safe.number >= r.sequencer.unsafe.number);
        assert.equal(second.counters.blocks, r.sequencer.unsafe.number - before, "only the new blocks");
        assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(r.sequencer.unsafe.hash));
        // Every batcher tx on L1 went to the inbox: version-0 frame data, or blobs and no calldata.
        let batcherTxs = 0;
        for (let n = 1; n <= r.miner.headRef().number; n++) {
          const b = await r.miner.exec.rpc.call<{
            transactions: { to: string; input: string; type: string; blobVersionedHashes?: string[] }[];
          }>("eth_getBlockByNumber", [`0x${n.toString(16)}`, true]);
          for (const t of b.transactions) {
            if (t.to !== bytesToHex(BATCH_INBOX)) continue;
            batcherTxs++;
            if (da === "blobs") {
              assert.equal(t.type, "0x3");
              assert.equal(t.input, "0x");
              assert.ok((t.blobVersionedHashes ?? []).length >= 1);
              // The L1 miner's chain is Osaka (l1DevGenesis): the batcher sent cell proofs (wrapper 1).
              for (const h of t.blobVersionedHashes ?? []) {
                assert.equal(r.miner.exec.blobSidecars!.get(hexToBytes(h))?.version, 1);
              }
            } else {
              assert.ok(Array.isArray(parseFrames(Uint8Array.from(Buffer.from(t.input.slice(2), "hex")))));
            }
          }
        }
        assert.ok(batcherTxs >= 2);
      } finally {
        await l1Server.close();
        await l2Server.close();
        node.server.close();
        dir.remove();
      }
    });
  }
});
