/**
 * rollup/derive/channelReader: real channels (a batcher tx from OP Mainnet, kona's batch.hex), the
 * compression detection and Fjord gate, zlib/brotli round trips, the RLP-bytes limit counted the way
 * go-ethereum's limited RLP stream counts it, decompression bombs, truncated and corrupt streams
 * (bytes decoded before the damage are kept), and garbage between batch strings.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { brotliCompressSync, deflateSync, inflateSync } from "node:zlib";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { encodeRlp } from "../../../../src/rlp/encode.js";
import { networkRollupConfig } from "../../../../src/rollup/config/network.js";
import { ChannelBank } from "../../../../src/rollup/derive/channelBank.js";
import {
  type ChannelBatches,
  compressChannel,
  detectCompression,
  MAX_RLP_BYTES_PER_CHANNEL_BEDROCK,
  MAX_RLP_BYTES_PER_CHANNEL_FJORD,
  maxRlpBytesPerChannel,
  readChannelBatches,
} from "../../../../src/rollup/derive/channelReader.js";
import { encodeFramesTxData, parseFrames } from "../../../../src/rollup/derive/frame.js";
import { decodeTx } from "../../../../src/tx/envelope.js";
import { fixturePath } from "../../../utils/fixtures.js";
import { fullGc } from "../../../utils/gc.js";

function bytes(...parts: (number[] | Uint8Array)[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

function filled(n: number, v: number): Uint8Array {
  return new Uint8Array(n).fill(v);
}

/** A batch-like string: type byte then `n - 1` bytes of `v`. */
function batchString(type: number, n: number, v: number): Uint8Array {
  const b = filled(n, v);
  b[0] = type;
  return b;
}

function hexes(r: ChannelBatches): string[] {
  return r.batches.map((b) => bytesToHex(b));
}

function filledId(v: number): Uint8Array {
  return new Uint8Array(16).fill(v);
}

function zlibOf(raw: Uint8Array): Uint8Array {
  return new Uint8Array(deflateSync(raw));
}

describe("rollup/derive/channelReader", () => {
  it("has op-node's limits", () => {
    assert.equal(MAX_RLP_BYTES_PER_CHANNEL_BEDROCK, 10_000_000);
    assert.equal(MAX_RLP_BYTES_PER_CHANNEL_FJORD, 100_000_000);
    assert.equal(maxRlpBytesPerChannel(false), 10_000_000);
    assert.equal(maxRlpBytesPerChannel(true), 100_000_000);
  });

  describe("real data", () => {
    it("the batcher tx's channel ac3299… holds one span batch", () => {
      const raw = new Uint8Array(readFileSync(fixturePath("op-stack/kona-batch-data/raw_batcher_tx.bin")));
      const frames = parseFrames(decodeTx(raw).data);
      if (!Array.isArray(frames)) assert.fail(frames.toString());
      const cfg = networkRollupConfig("op-mainnet")!;
      const bank = new ChannelBank(cfg);
      const origin = {
        hash: new Uint8Array(32),
        number: 20_000_000,
        parentHash: new Uint8Array(32),
        timestamp: 1_717_000_000,
      };
      assert.equal(bank.ingestFrame(frames[0], origin), "ADDED");
      const ch = bank.read(origin);
      assert.ok(ch !== null);
      assert.equal(bytesToHex(ch.id), "0xac329933f5efdcc35ccd284232a376d3");
      assert.equal(ch.data.length, 119_799);
      for (const fjord of [false, true]) {
        const r = readChannelBatches(ch.data, { fjord });
        assert.equal(r.algo, "zlib");
        assert.equal(r.error, undefined);
        assert.equal(r.batches.length, 1);
        assert.equal(r.batches[0][0], 0x01, "span batch");
      }
    });

    it("kona's batch.hex: 615,361 zlib bytes → 1,409,463 bytes → one span batch, stream consumed", () => {
      const text = readFileSync(fixturePath("op-stack/kona-batch-data/batch.hex"), "utf8").trim();
      const data = hexToBytes(text);
      assert.equal(data.length, 615_361);
      const plain = inflateSync(data);
      assert.equal(plain.length, 1_409_463);
      for (const fjord of [false, true]) {
        const r = readChannelBatches(data, { fjord });
        assert.equal(r.algo, "zlib");
        assert.equal(r.error, undefined);
        assert.equal(r.batches.length, 1);
        const b = r.batches[0];
        assert.equal(b[0], 0x01, "span batch");
        // One RLP string covering the whole stream: 0xb8+3 header (4 bytes) + payload.
        assert.equal(b.length + 4, 1_409_463);
        assert.deepEqual(b, new Uint8Array(plain.subarray(4)));
      }
    });
    it("batch.hex split into frames, sent out of order in two txs, leaves the bank whole (pre-Holocene)", () => {
      const data = hexToBytes(readFileSync(fixturePath("op-stack/kona-batch-data/batch.hex"), "utf8").trim());
      const id = filledId(0x42);
      const frames = [];
      for (let pos = 0; pos < data.length; pos += 100_000) {
        const end = Math.min(pos + 100_000, data.length);
        const frameNumber = pos / 100_000;
        frames.push({ channelId: id, frameNumber, data: data.subarray(pos, end), isLast: end === data.length });
      }
      assert.equal(frames.length, 7);
      const txA = parseFrames(encodeFramesTxData([frames[6], frames[2], frames[0]]));
      const txB = parseFrames(encodeFramesTxData([frames[5], frames[1], frames[4], frames[3]]));
      if (!Array.isArray(txA) || !Array.isArray(txB)) assert.fail("frames did not parse");
      const bank = new ChannelBank(networkRollupConfig("op-mainnet")!);
      const l1 = (number: number) => ({
        hash: new Uint8Array(32),
        number,
        parentHash: new Uint8Array(32),
        timestamp: number * 12,
      });
      for (const f of txA) bank.ingestFrame(f, l1(100));
      assert.equal(bank.read(l1(100)), null);
      for (const f of txB) bank.ingestFrame(f, l1(101));
      const ch = bank.read(l1(101));
      assert.ok(ch !== null);
      assert.deepEqual(ch.data, data);
      assert.equal(ch.completedBlock.number, 101);
      const r = readChannelBatches(ch.data, { fjord: false });
      assert.equal(r.batches.length, 1);
      assert.equal(r.batches[0].length, 1_409_459);
    });
  });

  describe("compression detection", () => {
    it("zlib iff the low nibble is 8 or 15; brotli iff 0x01 and Fjord", () => {
      for (let b = 0; b < 256; b++) {
        const nib = b & 0x0f;
        for (const fjord of [false, true]) {
          const got = detectCompression(b, fjord);
          if (nib === 8 || nib === 15) assert.equal(got, "zlib", `byte ${b}`);
          else if (b === 1 && fjord) assert.equal(got, "brotli");
          else assert.equal(typeof got, "object", `byte ${b} fjord ${fjord}`);
        }
      }
    });

    it("rejects brotli before Fjord and unknown first bytes, with no batches", () => {
      const ch = compressChannel([batchString(0, 40, 1)], "brotli");
      assert.equal(ch[0], 0x01);
      const pre = readChannelBatches(ch, { fjord: false });
      assert.equal(pre.batches.length, 0);
      assert.match(pre.error ?? "", /before Fjord/);
      assert.equal(readChannelBatches(ch, { fjord: true }).batches.length, 1);
      for (const first of [0x00, 0x02, 0x10, 0xff - 0x0f]) {
        const bad = ch.slice();
        bad[0] = first;
        const r = readChannelBatches(bad, { fjord: true });
        assert.equal(r.batches.length, 0);
        assert.match(r.error ?? "", /cannot distinguish/);
      }
      const empty = readChannelBatches(new Uint8Array(0), { fjord: true });
      assert.equal(empty.batches.length, 0);
      assert.ok(empty.error !== undefined);
    });

    it("a zlib-looking byte with a bad zlib header (CM 15, FDICT) yields nothing", () => {
      const cm15 = readChannelBatches(bytes([0x7f, 0x81], zlibOf(encodeRlp(filled(3, 1))).subarray(2)), {
        fjord: true,
      });
      assert.equal(cm15.algo, "zlib");
      assert.equal(cm15.batches.length, 0);
      assert.ok(cm15.error !== undefined);
      // 0x78 0xbb: FDICT set (and a valid FCHECK): no dictionary can be given.
      const dict = readChannelBatches(bytes([0x78, 0xbb, 0, 0, 0, 1]), { fjord: true });
      assert.equal(dict.batches.length, 0);
      assert.ok(dict.error !== undefined);
    });
  });

  describe("round trips", () => {
    const strings = [
      batchString(0, 100, 0xaa),
      batchString(1, 5000, 0xbb),
      new Uint8Array([0x00]), // one byte below 0x80: its own RLP encoding
      new Uint8Array(0), // empty string (the batch decoder rejects it, the reader does not)
      batchString(1, 56, 0xcc), // first long-form length
    ];
    for (const algo of ["zlib", "brotli"] as const) {
      it(`${algo}: every string back, in order`, () => {
        const ch = compressChannel(strings, algo);
        if (algo === "zlib") assert.equal(ch[0] & 0x0f, 8);
        const r = readChannelBatches(ch, { fjord: true });
        assert.equal(r.algo, algo);
        assert.equal(r.error, undefined);
        assert.deepEqual(
          hexes(r),
          strings.map((s) => bytesToHex(s)),
        );
      });
    }

    it("ignores bytes after the end of a zlib stream", () => {
      const ch = bytes(compressChannel(strings.slice(0, 2), "zlib"), [1, 2, 3, 4]);
      const r = readChannelBatches(ch, { fjord: false });
      assert.equal(r.batches.length, 2);
    });
  });

  describe("the RLP-bytes limit", () => {
    it("counts headers: strings that end exactly at the limit are read, one byte less drops the last", () => {
      // Each string: 0xb8 0x64 header + 100 bytes = 102 bytes.
      const strings = [batchString(1, 100, 1), batchString(1, 100, 2), batchString(1, 100, 3)];
      const ch = compressChannel(strings, "zlib");
      const exact = readChannelBatches(ch, { fjord: false, maxRlpBytes: 306 });
      assert.equal(exact.batches.length, 3);
      assert.equal(exact.error, undefined);
      const short = readChannelBatches(ch, { fjord: false, maxRlpBytes: 305 });
      assert.equal(short.batches.length, 2);
      assert.match(short.error ?? "", /limit/);
      // The limit falling between two items is a clean end (go-ethereum reports EOF).
      const between = readChannelBatches(ch, { fjord: false, maxRlpBytes: 204 });
      assert.equal(between.batches.length, 2);
      assert.equal(between.error, undefined);
    });

    it("zlib bomb: 20 MB of strings keeps exactly the strings below 10 MB, memory bounded", async () => {
      // 1000-byte strings with a 3-byte header (0xb9 0x03 0xe8): 1003 bytes each.
      const one = encodeRlp(batchString(0, 1000, 0x5a));
      assert.equal(one.length, 1003);
      const unit = new Uint8Array(1003 * 1000);
      for (let i = 0; i < 1000; i++) unit.set(one, i * 1003);
      // 20 MB decompressed from about 20 kB: twice the limit.
      const big = new Uint8Array(unit.length * 20);
      for (let i = 0; i < 20; i++) big.set(unit, i * unit.length);
      const ch = zlibOf(big);
      assert.ok(ch.length < 100_000);
      // Retained memory, after full collections on both sides (garbage of the search's probes would
      // otherwise count as long as no GC has run, and how long that is depends on the whole suite).
      await fullGc();
      const before = process.memoryUsage().arrayBuffers;
      const r = readChannelBatches(ch, { fjord: false });
      assert.equal(r.batches.length, Math.floor(10_000_000 / 1003));
      for (const b of r.batches) assert.equal(b.length, 1000);
      assert.match(r.error ?? "", /limit/);
      // The output buffer is the limit plus at most one input byte's worth.
      assert.ok(r.batches[0].buffer.byteLength <= 10_000_000 + (1 << 16));
      await fullGc();
      const retained = process.memoryUsage().arrayBuffers - before;
      assert.ok(retained < 10_000_000 + (1 << 20), `${retained} bytes of ArrayBuffers retained`);
    });

    it("zlib bomb: one giant string after small ones keeps the small ones", () => {
      const raw = bytes(
        encodeRlp(batchString(0, 10, 1)),
        encodeRlp(batchString(1, 20, 2)),
        encodeRlp(filled(50_000_000, 0)),
      );
      const r = readChannelBatches(zlibOf(raw), { fjord: false });
      assert.equal(r.batches.length, 2);
      assert.match(r.error ?? "", /limit/);
    });

    it("brotli bomb under a lowered limit keeps the strings below it", () => {
      const one = encodeRlp(batchString(1, 1000, 0x33));
      const raw = new Uint8Array(1003 * 20_000);
      for (let i = 0; i < 20_000; i++) raw.set(one, i * 1003);
      const ch = bytes([0x01], brotliCompressSync(raw));
      const r = readChannelBatches(ch, { fjord: true, maxRlpBytes: 1_000_000 });
      assert.equal(r.algo, "brotli");
      assert.equal(r.batches.length, Math.floor(1_000_000 / 1003));
      assert.match(r.error ?? "", /limit/);
    });
  });

  describe("damaged streams", () => {
    const strings = Array.from({ length: 20 }, (_, i) => batchString(i & 1, 200 + i * 37, i + 1));
    const raw = bytes(...strings.map((s) => encodeRlp(s)));

    for (const algo of ["zlib", "brotli"] as const) {
      it(`${algo}: every truncation yields a prefix of the strings, growing with the input`, () => {
        const ch = compressChannel(strings, algo, algo === "zlib" ? 1 : 5);
        let prev = 0;
        for (let cut = 1; cut <= ch.length; cut++) {
          const r = readChannelBatches(ch.subarray(0, cut), { fjord: true });
          assert.ok(r.batches.length >= prev, `cut ${cut}`);
          for (let i = 0; i < r.batches.length; i++) assert.deepEqual(r.batches[i], strings[i]);
          prev = r.batches.length;
        }
        assert.equal(prev, strings.length);
      });
    }

    it("zlib: strings decoded before a corrupt block are kept", () => {
      // zlib header, one stored (non-final) block with the first 3 strings, then a block of the
      // reserved type 3 (BFINAL=0, BTYPE=11): "invalid block type".
      const good = bytes(...strings.slice(0, 3).map((s) => encodeRlp(s)));
      const n = good.length;
      const stream = bytes([0x78, 0x01, 0x00, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff], good, [0x06, 0xff, 0xff]);
      const r = readChannelBatches(stream, { fjord: false });
      assert.equal(r.batches.length, 3);
      assert.match(r.error ?? "", /invalid block type/);
    });

    it("zlib: a wrong Adler-32 checksum loses nothing (op-node has read every string by then)", () => {
      const ch = zlibOf(raw);
      ch[ch.length - 1] ^= 0xff;
      const r = readChannelBatches(ch, { fjord: false });
      assert.equal(r.batches.length, strings.length);
      assert.match(r.error ?? "", /data check/);
    });

    it("brotli: bytes after the end of the stream lose nothing", () => {
      // op-node's brotli reader reports excessive input only after handing out all the data.
      const ch = bytes(compressChannel(strings, "brotli"), [0x12, 0x34]);
      const r = readChannelBatches(ch, { fjord: true });
      assert.equal(r.batches.length, strings.length);
    });

    it("never throws on corrupted channels and keeps output within the limit", () => {
      // Brotli has no checksum: corruption often decodes to garbage, which the RLP splitter then stops at.
      let seed = 12345;
      const rand = (n: number): number => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % n;
      };
      for (const algo of ["zlib", "brotli"] as const) {
        const ch = compressChannel(strings, algo);
        for (let round = 0; round < 200; round++) {
          const bad = ch.slice();
          const flips = 1 + rand(4);
          for (let k = 0; k < flips; k++) bad[1 + rand(bad.length - 1)] ^= 1 + rand(255);
          const r = readChannelBatches(bad, { fjord: true, maxRlpBytes: 20_000 });
          let total = 0;
          for (const b of r.batches) total += b.length;
          assert.ok(total <= 20_000);
        }
      }
    });
  });

  describe("garbage between batch strings", () => {
    const a = batchString(0, 60, 0xa1);
    const b = batchString(1, 30, 0xb2);
    const cases: [string, number[]][] = [
      ["a non-canonical single byte (0x81 0x05)", [0x81, 0x05]],
      ["a long form for a short string (0xb8 0x10)", [0xb8, 0x10, ...filled(16, 1)]],
      ["a length with a leading zero (0xb9 0x00 0x40)", [0xb9, 0x00, 0x40, ...filled(64, 1)]],
      ["a list", [0xc2, 0x01, 0x02]],
      ["a string longer than the rest of the data", [0xb9, 0xff, 0xff, 1, 2, 3]],
    ];
    for (const [desc, garbage] of cases) {
      it(`${desc} ends the channel after the strings before it`, () => {
        const raw = bytes(encodeRlp(a), garbage, encodeRlp(b));
        const r = readChannelBatches(zlibOf(raw), { fjord: false });
        assert.deepEqual(hexes(r), [bytesToHex(a)]);
        assert.ok(r.error !== undefined);
      });
    }

    it("a single byte below 0x80 is a one-byte string", () => {
      const raw = bytes(encodeRlp(a), [0x05], encodeRlp(b));
      const r = readChannelBatches(zlibOf(raw), { fjord: false });
      assert.deepEqual(hexes(r), [bytesToHex(a), "0x05", bytesToHex(b)]);
      assert.equal(r.error, undefined);
    });
  });
});
