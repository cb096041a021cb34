/**
 * rollup/derive/frame: the batcher tx frame format against a real OP Mainnet batcher transaction
 * (kona's test data), encode/parse round trips, every malformed form dropping the whole tx, and the
 * Holocene frame-queue pruning rules (op-node frame_queue_test.go's table).
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import {
  encodeFrame,
  encodeFramesTxData,
  FRAME_OVERHEAD,
  FRAME_V0_OVERHEAD,
  type Frame,
  FrameParseError,
  frameSize,
  MAX_FRAME_LEN,
  parseFrames,
  pruneFramesHolocene,
} from "../../../../src/rollup/derive/frame.js";
import { decodeTx } from "../../../../src/tx/envelope.js";
import { fixturePath } from "../../../utils/fixtures.js";

function id(c: number): Uint8Array {
  return new Uint8Array(16).fill(c);
}

function frame(c: number, n: number, isLast = false, data: Uint8Array = new Uint8Array([n, c])): Frame {
  return { channelId: id(c), frameNumber: n, data, isLast };
}

function expectError(r: Frame[] | FrameParseError, code: FrameParseError["code"]): FrameParseError {
  if (!(r instanceof FrameParseError)) assert.fail(`expected ${code}, got ${r.length} frames`);
  assert.equal(r.code, code, r.toString());
  return r;
}

function expectFrames(r: Frame[] | FrameParseError): Frame[] {
  if (r instanceof FrameParseError) assert.fail(r.toString());
  return r;
}

describe("rollup/derive/frame", () => {
  it("has op-node's constants", () => {
    assert.equal(MAX_FRAME_LEN, 1_000_000);
    assert.equal(FRAME_OVERHEAD, 200);
    assert.equal(FRAME_V0_OVERHEAD, 23);
    assert.equal(frameSize(frame(1, 0, false, new Uint8Array(10))), 210);
  });

  it("parses the real batcher tx: one closing frame of channel ac3299…", () => {
    const raw = new Uint8Array(readFileSync(fixturePath("op-stack/kona-batch-data/raw_batcher_tx.bin")));
    const tx = decodeTx(raw);
    assert.equal(tx.type, 2);
    const frames = expectFrames(parseFrames(tx.data));
    assert.equal(frames.length, 1);
    const f = frames[0];
    assert.equal(bytesToHex(f.channelId), "0xac329933f5efdcc35ccd284232a376d3");
    assert.equal(f.frameNumber, 0);
    assert.equal(f.data.length, 119_799);
    assert.equal(f.isLast, true);
    // Re-encoding gives the tx data back byte for byte.
    assert.deepEqual(encodeFramesTxData(frames), tx.data);
    assert.equal(tx.data.length, 1 + FRAME_V0_OVERHEAD + 119_799);
  });

  it("round-trips several frames, byte layout as specified", () => {
    const fs = [
      frame(1, 0),
      frame(1, 1, true, new Uint8Array(0)),
      frame(2, 0x0102, false, new Uint8Array(300).fill(7)),
    ];
    const enc = encodeFrame(fs[2]);
    assert.equal(enc.length, 23 + 300);
    assert.deepEqual(enc.subarray(0, 16), id(2));
    assert.deepEqual([...enc.subarray(16, 22)], [0x01, 0x02, 0, 0, 0x01, 0x2c]);
    assert.equal(enc[enc.length - 1], 0);
    const data = encodeFramesTxData(fs);
    assert.equal(data[0], 0);
    const back = expectFrames(parseFrames(data));
    assert.equal(back.length, 3);
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(back[i].channelId, fs[i].channelId);
      assert.equal(back[i].frameNumber, fs[i].frameNumber);
      assert.deepEqual(back[i].data, fs[i].data);
      assert.equal(back[i].isLast, fs[i].isLast);
    }
  });

  it("accepts data of exactly MAX_FRAME_LEN", () => {
    const f = frame(3, 0, true, new Uint8Array(MAX_FRAME_LEN));
    const back = expectFrames(parseFrames(encodeFramesTxData([f])));
    assert.equal(back[0].data.length, MAX_FRAME_LEN);
  });

  it("rejects empty data, a non-zero version byte, and a version byte alone", () => {
    expectError(parseFrames(new Uint8Array(0)), "EMPTY_DATA");
    const data = encodeFramesTxData([frame(1, 0)]);
    data[0] = 1;
    expectError(parseFrames(data), "BAD_VERSION");
    expectError(parseFrames(new Uint8Array([0])), "NO_FRAMES");
  });

  it("rejects a frame_data_length above MAX_FRAME_LEN before reading the data", () => {
    const data = encodeFramesTxData([frame(1, 0, true, new Uint8Array(4))]);
    // Overwrite the length with 1_000_001 (0x000F4241); the data is not there.
    data.set([0x00, 0x0f, 0x42, 0x41], 1 + 18);
    const e = expectError(parseFrames(data), "FRAME_TOO_LARGE");
    assert.equal(e.frameIndex, 0);
  });

  it("rejects is_last values other than 0 and 1", () => {
    const data = encodeFramesTxData([frame(1, 0)]);
    data[data.length - 1] = 2;
    expectError(parseFrames(data), "BAD_IS_LAST");
  });

  it("rejects every truncation of a frame", () => {
    const data = encodeFramesTxData([frame(1, 0, true, new Uint8Array(5).fill(9))]);
    for (let cut = 2; cut < data.length; cut++) expectError(parseFrames(data.subarray(0, cut)), "TRUNCATED");
  });

  it("drops the whole tx when a later frame is malformed or bytes trail", () => {
    const good = encodeFramesTxData([frame(1, 0), frame(1, 1, true)]);
    const trailing = new Uint8Array(good.length + 1);
    trailing.set(good);
    trailing[good.length] = 0xaa;
    const e = expectError(parseFrames(trailing), "TRUNCATED");
    assert.equal(e.frameIndex, 2);
    const bad = good.slice();
    bad[bad.length - 1] = 7;
    assert.equal(expectError(parseFrames(bad), "BAD_IS_LAST").frameIndex, 1);
  });

  it("encodeFrame refuses a malformed id or frame number", () => {
    assert.throws(
      () => encodeFrame({ channelId: new Uint8Array(15), frameNumber: 0, data: new Uint8Array(0), isLast: false }),
      RangeError,
    );
    assert.throws(
      () => encodeFrame({ channelId: id(1), frameNumber: 0x10000, data: new Uint8Array(0), isLast: false }),
      RangeError,
    );
  });

  describe("pruneFramesHolocene", () => {
    // "a:2:!" = channel a, frame 2, closing (op-node frame_queue_test.go notation).
    function parse(spec: string): Frame {
      const [c, n, last] = spec.split(":");
      return frame(c.charCodeAt(0), Number(n), last === "!");
    }
    function show(fs: readonly Frame[]): string[] {
      return fs.map((f) => `${String.fromCharCode(f.channelId[0])}:${f.frameNumber}:${f.isLast ? "!" : ""}`);
    }
    const cases: [string, string[], string[]][] = [
      ["empty", [], []],
      ["one", ["a:2:"], ["a:2:"]],
      ["one-last", ["a:2:!"], ["a:2:!"]],
      ["last-new", ["a:2:!", "b:0:"], ["a:2:!", "b:0:"]],
      ["last then non-first of another channel", ["a:2:!", "b:1:"], ["a:2:!"]],
      ["non-first of another channel after an open one", ["b:1:", "a:2:!"], ["b:1:"]],
      ["first frame evicts an open channel", ["b:1:", "a:0:"], ["a:0:"]],
      ["first frame after a closed channel", ["b:1:!", "a:0:"], ["b:1:!", "a:0:"]],
      ["frame after the closing frame", ["b:1:!", "b:2:"], ["b:1:!"]],
      ["gap in the same channel", ["b:1:", "b:3:"], ["b:1:"]],
      ["other channel out of order", ["b:1:", "c:3:"], ["b:1:"]],
      ["other channel dropped, own continues", ["b:1:", "c:3:", "b:2:!"], ["b:1:", "b:2:!"]],
      ["resubmission after a gap", ["b:1:", "b:3:!", "b:2:", "b:3:!"], ["b:1:", "b:2:", "b:3:!"]],
      ["first frame discards several frames back", ["c:0:", "c:1:", "c:2:", "d:0:", "c:3:!"], ["d:0:"]],
      [
        "complex",
        ["b:1:", "b:2:!", "a:0:", "c:1:!", "a:1:", "a:2:!", "c:0:", "c:1:", "d:0:", "c:2:!", "e:0:"],
        ["b:1:", "b:2:!", "a:0:", "a:1:", "a:2:!", "e:0:"],
      ],
    ];
    for (const [desc, input, expected] of cases) {
      it(desc, () => {
        const frames = input.map(parse);
        const before = show(frames);
        assert.deepEqual(show(pruneFramesHolocene(frames)), expected);
        assert.deepEqual(show(frames), before, "input not modified");
      });
    }
  });
});
