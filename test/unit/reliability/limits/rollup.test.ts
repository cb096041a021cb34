/**
 * Limits of opal-node and opal-batcher at their edges (README "Limits"): protocol constants of
 * derivation (frame length, decompressed channel bytes before and from Fjord, channel bank size,
 * span batch element counts), of P2P (gossip message size and minimum, req-resp payload size), the
 * batcher's frame sizing under `--max-l1-tx-size-bytes`, and the L1 client's
 * `--l1.rpc-max-batch-size`. Each is exactly reached (accepted) and passed by one (refused).
 */
import { strict as assert } from "node:assert";
import { FRAME_WIRE_OVERHEAD } from "../../../../src/batcher/batchSubmitter.js";
import { framesOf } from "../../../../src/batcher/channelOut.js";
import { parseBatcherArgs } from "../../../../src/cli/batcherFlags.js";
import { parseNodeArgs } from "../../../../src/cli/nodeFlags.js";
import { BlockGossipValidator, MAX_GOSSIP_SIZE, MIN_GOSSIP_SIZE } from "../../../../src/p2p/gossipBlock.js";
import { MAX_RESPONSE_BYTES } from "../../../../src/p2p/reqResp.js";
import { writeUint32BE } from "../../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import {
  SnappyError,
  snappyCompress,
  snappyFrameDecode,
  snappyFrameEncode,
} from "../../../../src/primitives/snappy.js";
import type { RollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import { BatchDecodeError } from "../../../../src/rollup/derive/batchErrors.js";
import { MAX_BLOB_DATA_SIZE } from "../../../../src/rollup/derive/blobCodec.js";
import { ChannelAssembler } from "../../../../src/rollup/derive/channelAssembler.js";
import {
  ChannelBank,
  MAX_CHANNEL_BANK_SIZE_BEDROCK,
  MAX_CHANNEL_BANK_SIZE_FJORD,
} from "../../../../src/rollup/derive/channelBank.js";
import {
  compressChannel,
  MAX_RLP_BYTES_PER_CHANNEL_BEDROCK,
  MAX_RLP_BYTES_PER_CHANNEL_FJORD,
  readChannelBatches,
} from "../../../../src/rollup/derive/channelReader.js";
import {
  encodeFramesTxData,
  FRAME_OVERHEAD,
  type Frame,
  FrameParseError,
  MAX_FRAME_LEN,
  parseFrames,
} from "../../../../src/rollup/derive/frame.js";
import {
  MAX_SPAN_BATCH_ELEMENT_COUNT,
  readRawSpanBatch,
  writeUvarint,
} from "../../../../src/rollup/derive/rawSpanBatch.js";
import { L1Client } from "../../../../src/rollup/l1/l1Client.js";
import { RateLimiter, Semaphore } from "../../../../src/rollup/l1/limits.js";
import type { RpcTransport } from "../../../../src/rollup/transport/rpcTransport.js";
import { L1Miner, PORTAL } from "../../../utils/actions/l1Miner.js";
import { CFG, l1 } from "../../../utils/batchChain.js";

/** The smallest opal-node command line (the flags without defaults). */
const NODE_ARGS = ["--l1=http://a", "--l2=http://b", "--l2.jwt-secret=/tmp/x", "--network=op-mainnet"];

/** Batcher tx data holding one frame of `n` zero bytes. */
function frameTx(n: number): Uint8Array {
  const out = new Uint8Array(1 + 16 + 2 + 4 + n + 1);
  writeUint32BE(out, 19, n);
  out[out.length - 1] = 1;
  return out;
}

/** One batch string of `content` bytes, compressed fast (the limit counts the RLP-wrapped bytes). */
function channelOf(content: number, algo: "zlib" | "brotli" = "zlib"): Uint8Array {
  return compressChannel([new Uint8Array(content)], algo, 1);
}

/** Bytes of an RLP string header for `n` content bytes (n ≥ 56). */
const rlpHeader = (n: number) => 1 + Math.ceil(n.toString(16).length / 2);

describe("limits: rollup node and batcher", function () {
  this.timeout(30_000);

  describe("frame length (op-node MaxFrameLen, 1,000,000)", () => {
    it("a frame of 1,000,000 data bytes parses; 1,000,001 drops the transaction's frames", () => {
      assert.equal(MAX_FRAME_LEN, 1_000_000);
      const at = parseFrames(frameTx(MAX_FRAME_LEN));
      assert.ok(Array.isArray(at) && at[0]!.data.length === MAX_FRAME_LEN);
      const over = parseFrames(frameTx(MAX_FRAME_LEN + 1));
      assert.ok(over instanceof FrameParseError);
      assert.equal(over.code, "FRAME_TOO_LARGE");
      assert.equal(over.toString(), "parsing frame 0: frame_data_length is too large: 1000001");
    });
  });

  describe("decompressed bytes per channel (op-node MaxRLPBytesPerChannel)", () => {
    for (const [fork, limit] of [
      ["before Fjord", MAX_RLP_BYTES_PER_CHANNEL_BEDROCK],
      ["from Fjord", MAX_RLP_BYTES_PER_CHANNEL_FJORD],
    ] as const) {
      it(`${fork}: a batch filling exactly ${limit.toLocaleString("en")} bytes is read; one byte more is cut`, () => {
        const fjord = limit === MAX_RLP_BYTES_PER_CHANNEL_FJORD;
        // From Fjord the channel is brotli (its over-limit search is faster than zlib's at 100 MB).
        const algo = fjord ? "brotli" : "zlib";
        const content = limit - rlpHeader(limit);
        const at = readChannelBatches(channelOf(content, algo), { fjord });
        assert.equal(at.error, undefined);
        assert.equal(at.batches.length, 1);
        assert.equal(at.batches[0]!.length, content);
        const over = readChannelBatches(channelOf(content + 1, algo), { fjord });
        assert.equal(over.batches.length, 0);
        assert.ok(over.error !== undefined, "the batch cut by the limit is an error");
      });
    }

    it("the values are op-node's", () => {
      assert.equal(MAX_RLP_BYTES_PER_CHANNEL_BEDROCK, 10_000_000);
      assert.equal(MAX_RLP_BYTES_PER_CHANNEL_FJORD, 100_000_000);
    });
  });

  describe("channel bank size (op-node MaxChannelBankSize: 100,000,000, Fjord 1,000,000,000)", () => {
    it("channels summing to exactly the limit stay; one byte of frame more prunes the oldest", () => {
      assert.equal(MAX_CHANNEL_BANK_SIZE_BEDROCK, 100_000_000);
      assert.equal(MAX_CHANNEL_BANK_SIZE_FJORD, 1_000_000_000);
      const bank = new ChannelBank(CFG);
      const origin = l1(10);
      // 100 open channels of one frame each, every frame costing its data + 200 = 1,000,000.
      const data = new Uint8Array(1_000_000 - FRAME_OVERHEAD);
      const id = (n: number) => {
        const b = new Uint8Array(16);
        writeUint32BE(b, 0, n + 1);
        return b;
      };
      const frame = (n: number, d: Uint8Array): Frame => ({ channelId: id(n), frameNumber: 0, data: d, isLast: false });
      for (let n = 0; n < 100; n++) assert.equal(bank.ingestFrame(frame(n, data), origin), "ADDED");
      assert.equal(bank.totalSize(), MAX_CHANNEL_BANK_SIZE_BEDROCK);
      assert.equal(bank.channelCount(), 100);
      assert.equal(bank.ingestFrame(frame(100, new Uint8Array(1)), origin), "ADDED");
      assert.equal(bank.channelCount(), 100);
      assert.equal(bytesToHex(bank.channelIds()[0]!), bytesToHex(id(1)), "the first channel was pruned");
    });
  });

  describe("Holocene staging channel (its frames' size capped by MAX_RLP_BYTES_PER_CHANNEL, 100,000,000)", () => {
    it("frames summing to exactly the limit stay; one byte of frame more drops the channel", () => {
      const cfg: RollupConfig = {
        ...CFG,
        canyonTime: 0,
        deltaTime: 0,
        ecotoneTime: 0,
        fjordTime: 0,
        graniteTime: 0,
        holoceneTime: 0,
      };
      const asm = new ChannelAssembler(cfg);
      const origin = l1(10);
      const id = new Uint8Array(16).fill(9);
      const data = new Uint8Array(1_000_000 - FRAME_OVERHEAD);
      for (let n = 0; n < 100; n++) {
        const r = asm.ingestFrame({ channelId: id, frameNumber: n, data, isLast: false }, origin);
        assert.equal(r.status, "ADDED", `frame ${n}`);
      }
      assert.equal(asm.channel()!.size(), MAX_RLP_BYTES_PER_CHANNEL_FJORD);
      const over = asm.ingestFrame({ channelId: id, frameNumber: 100, data: new Uint8Array(1), isLast: false }, origin);
      assert.equal(over.status, "OVERSIZED");
      assert.equal(asm.channel(), null);
    });
  });

  describe("span batch element count (op-node MaxSpanBatchElementCount, 10,000,000)", () => {
    /** A span batch prefix: rel_timestamp 0, l1_origin_num 0, the checks, then `blocks`. */
    function prefix(blocks: number): Uint8Array {
      const out = new Uint8Array(2 + 40 + 10);
      let pos = writeUvarint(out, 0, 0);
      pos = writeUvarint(out, pos, 0);
      pos += 40;
      pos = writeUvarint(out, pos, blocks);
      return out.subarray(0, pos);
    }

    it("10,000,000 empty blocks decode; 10,000,001 is too big", () => {
      assert.equal(MAX_SPAN_BATCH_ELEMENT_COUNT, 10_000_000);
      const n = MAX_SPAN_BATCH_ELEMENT_COUNT;
      const head = prefix(n);
      // origin bits, then one zero tx count per block, then nothing: no txs at all.
      const bytes = new Uint8Array(head.length + Math.ceil(n / 8) + n);
      bytes.set(head);
      const { raw } = readRawSpanBatch(bytes);
      assert.equal(raw.blockTxCounts.length, n);
      assert.throws(
        () => readRawSpanBatch(prefix(n + 1)),
        (e: unknown) => e instanceof BatchDecodeError && e.reason === "TOO_BIG",
      );
    });

    it("a block of 10,000,000 txs passes the count check (then runs out of data); 10,000,001 is too big", () => {
      const block = (txs: number) => {
        const head = prefix(1);
        const out = new Uint8Array(head.length + 1 + 5);
        out.set(head);
        const end = writeUvarint(out, head.length + 1, txs);
        return out.subarray(0, end);
      };
      const reason = (b: Uint8Array) => {
        try {
          readRawSpanBatch(b);
          return "decoded";
        } catch (e) {
          return e instanceof BatchDecodeError ? e.reason : String(e);
        }
      };
      assert.equal(reason(block(MAX_SPAN_BATCH_ELEMENT_COUNT)), "TRUNCATED");
      assert.equal(reason(block(MAX_SPAN_BATCH_ELEMENT_COUNT + 1)), "TOO_BIG");
    });
  });

  describe("gossip message size (op-node maxGossipSize 10 MiB, minGossipSize 66)", () => {
    const cfg: RollupConfig = { ...CFG, l2ChainId: 901n };
    const validator = new BlockGossipValidator({
      cfg,
      chainId: 901n,
      signer: () => new Uint8Array(20).fill(1),
      timestampThresholdSec: 60,
      now: () => 0,
    });
    const verdict = (n: number) => {
      const v = validator.validate(0, snappyCompress(new Uint8Array(n)));
      return v.result === "accept" ? "accept" : `${v.result}:${v.reason}`;
    };

    it("10 MiB decompressed reaches the signature check; one byte more is rejected for its size", () => {
      assert.equal(MAX_GOSSIP_SIZE, 10 * 1024 * 1024);
      assert.equal(verdict(MAX_GOSSIP_SIZE), "reject:signature");
      assert.equal(verdict(MAX_GOSSIP_SIZE + 1), "reject:size");
    });

    it("66 bytes reach the signature check; 65 are rejected for their size", () => {
      assert.equal(MIN_GOSSIP_SIZE, 66);
      assert.equal(verdict(MIN_GOSSIP_SIZE), "reject:signature");
      assert.equal(verdict(MIN_GOSSIP_SIZE - 1), "reject:size");
    });
  });

  describe("req-resp payload size (payload_by_number, 10 MiB)", () => {
    it("a framed-snappy payload of 10 MiB decodes; one byte more is refused", () => {
      assert.equal(MAX_RESPONSE_BYTES, 10 * 1024 * 1024);
      const at = snappyFrameDecode(snappyFrameEncode(new Uint8Array(MAX_RESPONSE_BYTES)), MAX_RESPONSE_BYTES);
      assert.ok(!(at instanceof SnappyError) && at.length === MAX_RESPONSE_BYTES);
      const over = snappyFrameDecode(snappyFrameEncode(new Uint8Array(MAX_RESPONSE_BYTES + 1)), MAX_RESPONSE_BYTES);
      assert.ok(over instanceof SnappyError);
    });
  });

  describe("batcher tx size (--max-l1-tx-size-bytes 120000; blobs 130,044)", () => {
    it("frames cut for the limit make txs of exactly the limit; one more byte of channel data needs another frame", () => {
      const r = parseBatcherArgs(
        [
          "--l1-eth-rpc=http://a",
          "--l2-eth-rpc=http://b",
          "--rollup-rpc=http://c",
          `--private-key=0x${"11".repeat(32)}`,
        ],
        {},
      );
      assert.ok(r.kind === "run");
      if (r.kind !== "run") return;
      for (const limit of [r.config["max-l1-tx-size-bytes"], MAX_BLOB_DATA_SIZE]) {
        const frameData = limit - FRAME_WIRE_OVERHEAD;
        const at = framesOf(new Uint8Array(2 * frameData), frameData);
        assert.deepEqual(
          at.map((f) => encodeFramesTxData([f]).length),
          [limit, limit],
        );
        const over = framesOf(new Uint8Array(2 * frameData + 1), frameData);
        assert.deepEqual(
          over.map((f) => encodeFramesTxData([f]).length),
          [limit, limit, 1 + 23 + 1],
        );
      }
      assert.equal(r.config["max-l1-tx-size-bytes"], 120_000);
    });
  });

  describe("L1 requests in flight (--l1.max-concurrency 10)", () => {
    it("10 requests run at once; the 11th waits for one of them to finish", async () => {
      const sema = new Semaphore(10);
      const release: (() => void)[] = [];
      let started = 0;
      const job = () =>
        sema.run(
          () =>
            new Promise<void>((r) => {
              started++;
              release.push(r);
            }),
        );
      const all = Array.from({ length: 11 }, job);
      await new Promise((r) => setImmediate(r));
      assert.equal(started, 10);
      assert.equal(sema.inFlight, 10);
      release.shift()!();
      await new Promise((r) => setImmediate(r));
      assert.equal(started, 11);
      for (const r of release) r();
      await Promise.all(all);
      const parsed = parseNodeArgs(NODE_ARGS, {});
      assert.ok(parsed.kind === "run" && parsed.config["l1.max-concurrency"] === 10);
    });
  });

  describe("L1 request rate (--l1.rpc-rate-limit, off by default; burst = --l1.rpc-max-batch-size)", () => {
    it("at 10/s a burst of 20 goes out at once; the 21st request waits 100 ms; 0 never waits", async () => {
      let now = 0;
      const slept: number[] = [];
      const sleep = async (ms: number) => {
        slept.push(ms);
        now += ms;
      };
      const lim = new RateLimiter(10, 20, () => now, sleep);
      await lim.take(20);
      assert.deepEqual(slept, []);
      await lim.take(1);
      assert.equal(slept.length, 1);
      assert.ok(Math.abs(slept[0]! - 100) < 1e-9, `${slept[0]} ms`);
      await assert.rejects(new RateLimiter(10, 20, () => now, sleep).take(21), RangeError, "a batch above the burst");
      const off = new RateLimiter(0, 20, () => now, sleep);
      await off.take(21);
      assert.equal(slept.length, 1);
      const parsed = parseNodeArgs(NODE_ARGS, {});
      assert.ok(parsed.kind === "run" && parsed.config["l1.rpc-rate-limit"] === 0);
    });
  });

  describe("L1 receipts batches (--l1.rpc-max-batch-size 20)", () => {
    it("20 receipts go in one batch; 21 in two (20 + 1)", async () => {
      const miner = new L1Miner();
      const from = miner.accounts[0]!;
      const b20 = await miner.mine(
        Array.from({ length: 20 }, () => miner.tx(from, PORTAL, new Uint8Array(128), 100_000n)),
      );
      const b21 = await miner.mine(
        Array.from({ length: 21 }, () => miner.tx(from, PORTAL, new Uint8Array(128), 100_000n)),
      );
      const batches: number[] = [];
      const transport: RpcTransport = {
        call: (m, p) => miner.exec.rpc.call(m, p),
        callBatch: (calls) => {
          batches.push(calls.length);
          return miner.exec.rpc.callBatch(calls);
        },
      };
      const client = new L1Client({ url: "", transport, rpcKind: "basic" });
      assert.equal(client.maxBatchSize, 20);
      const parsed = parseNodeArgs(NODE_ARGS, {});
      assert.ok(parsed.kind === "run" && parsed.config["l1.rpc-max-batch-size"] === 20);
      assert.equal((await client.fetchReceipts(b20.hash)).receipts.length, 20);
      assert.deepEqual(batches, [20]);
      batches.length = 0;
      assert.equal((await client.fetchReceipts(b21.hash)).receipts.length, 21);
      assert.deepEqual(
        batches.sort((a, b) => b - a),
        [20, 1],
      );
    });
  });
});
