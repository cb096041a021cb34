/**
 * rollup/derive/channel, channelBank, channelAssembler: the pre-Holocene frame rules of a channel
 * (kona's frame-validity table among them), the channel bank's FIFO order, timeouts (Granite's
 * constant), size pruning (Bedrock vs Fjord cap), pre-Canyon vs Canyon read order with activation by
 * the L1 origin timestamp, and the Holocene single-channel assembler.
 */
import { strict as assert } from "node:assert";
import { networkRollupConfig } from "../../../../src/rollup/config/network.js";
import {
  OPTIONAL_ROLLUP_FORKS,
  ROLLUP_FORKS,
  type RollupConfig,
  type RollupFork,
} from "../../../../src/rollup/config/rollupConfig.js";
import { Channel } from "../../../../src/rollup/derive/channel.js";
import { ChannelAssembler } from "../../../../src/rollup/derive/channelAssembler.js";
import {
  ChannelBank,
  MAX_CHANNEL_BANK_SIZE_BEDROCK,
  MAX_CHANNEL_BANK_SIZE_FJORD,
  maxChannelBankSize,
} from "../../../../src/rollup/derive/channelBank.js";
import { MAX_RLP_BYTES_PER_CHANNEL_FJORD } from "../../../../src/rollup/derive/channelReader.js";
import type { Frame } from "../../../../src/rollup/derive/frame.js";
import type { L1BlockRef } from "../../../../src/rollup/refs.js";

type ForkTimeOverrides = Partial<Record<`${RollupFork}Time`, number | null>>;

/** op-mainnet's config with every fork unset, then `over` applied. */
function config(over: ForkTimeOverrides = {}, channelTimeout = 10): RollupConfig {
  const base = networkRollupConfig("op-mainnet");
  if (base === null) throw new Error("op-mainnet config missing");
  const none: ForkTimeOverrides = {};
  for (const f of [...ROLLUP_FORKS, ...OPTIONAL_ROLLUP_FORKS]) none[`${f}Time`] = null;
  return { ...base, ...none, ...over, channelTimeout } as RollupConfig;
}

function ref(number: number, timestamp = number * 12): L1BlockRef {
  const hash = new Uint8Array(32);
  hash[0] = number & 0xff;
  hash[1] = (number >>> 8) & 0xff;
  return { hash, number, parentHash: new Uint8Array(32), timestamp };
}

function cid(c: number): Uint8Array {
  return new Uint8Array(16).fill(c);
}

function text(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

function fr(c: number, n: number, isLast = false, data: Uint8Array = text(`${String.fromCharCode(c)}${n}`)): Frame {
  return { channelId: cid(c), frameNumber: n, data, isLast };
}

function str(b: Uint8Array | null): string | null {
  return b === null ? null : new TextDecoder().decode(b);
}

const MB = new Uint8Array(1_000_000);

describe("rollup/derive/channel", () => {
  const block = ref(5);

  // kona channel.rs test_frame_validity: frames, whether each is rejected, size after each.
  const table: [string, Frame[], (string | null)[], number[], string | null][] = [
    ["frame of another channel", [{ ...fr(0xee, 0), channelId: cid(0xee) }], ["ID_MISMATCH"], [0], null],
    [
      "second closing frame",
      [fr(0xff, 2, true, text("four")), fr(0xff, 1, true, new Uint8Array(0))],
      [null, "CHANNEL_CLOSED"],
      [204, 204],
      null,
    ],
    [
      "duplicate frame",
      [fr(0xff, 2, false, text("four")), fr(0xff, 2, false, text("seven"))],
      [null, "DUPLICATE_FRAME"],
      [204, 204],
      null,
    ],
    [
      "duplicate closing frame",
      [fr(0xff, 2, true, text("four")), fr(0xff, 2, true, text("seven"))],
      [null, "CHANNEL_CLOSED"],
      [204, 204],
      null,
    ],
    [
      "frame beyond the end",
      [fr(0xff, 2, true, text("four")), fr(0xff, 10, false, text("seven"))],
      [null, "BEYOND_END_FRAME"],
      [204, 204],
      null,
    ],
    [
      "complete channel",
      [fr(0xff, 0, false, text("seven")), fr(0xff, 1, true, text("four"))],
      [null, null],
      [205, 409],
      "sevenfour",
    ],
    [
      "no frame 0",
      [fr(0xff, 1, false, text("seven__")), fr(0xff, 2, false, text("four"))],
      [null, null],
      [207, 411],
      null,
    ],
  ];
  for (const [desc, frames, errs, sizes, data] of table) {
    it(desc, () => {
      const ch = new Channel(cid(0xff), block);
      frames.forEach((f, i) => {
        assert.equal(ch.addFrame(f, block), errs[i], `frame ${i}`);
        assert.equal(ch.size(), sizes[i], `size after frame ${i}`);
      });
      assert.equal(str(ch.assemble()), data);
      assert.equal(ch.isReady(), data !== null);
    });
  }

  it("assembles out-of-order frames; a frame below the end is still accepted after closing", () => {
    const ch = new Channel(cid(1), block);
    assert.equal(ch.addFrame(fr(1, 2, true, text("c")), block), null);
    assert.equal(ch.isReady(), false);
    assert.equal(ch.addFrame(fr(1, 0, false, text("a")), block), null);
    assert.equal(ch.isReady(), false);
    assert.equal(ch.addFrame(fr(1, 1, false, text("b")), block), null);
    assert.equal(ch.isReady(), true);
    assert.equal(str(ch.assemble()), "abc");
    assert.equal(ch.frameCount(), 3);
  });

  it("a closing frame prunes higher buffered frames (and op-node's size quirk)", () => {
    const ch = new Channel(cid(1), block);
    for (const n of [0, 1, 3, 4]) assert.equal(ch.addFrame(fr(1, n, false, text(`f${n}`)), block), null);
    assert.equal(ch.size(), 4 * 202);
    assert.equal(ch.addFrame(fr(1, 2, true, text("end")), block), null);
    assert.equal(ch.frameCount(), 3, "frames 3 and 4 pruned");
    assert.equal(ch.isReady(), true);
    assert.equal(str(ch.assemble()), "f0f1end");
    // op-node subtracts every buffered frame while pruning, kept or not: only the closing frame remains counted.
    assert.equal(ch.size(), 203);
    // A pruned number cannot come back: it is at or above the end.
    assert.equal(ch.addFrame(fr(1, 3, false), block), "BEYOND_END_FRAME");
  });

  it("tracks the highest L1 inclusion block", () => {
    const ch = new Channel(cid(1), ref(10));
    ch.addFrame(fr(1, 1), ref(12));
    ch.addFrame(fr(1, 0), ref(11));
    assert.equal(ch.highestL1InclusionBlock().number, 12);
    ch.addFrame(fr(1, 2, true), ref(13));
    assert.equal(ch.highestL1InclusionBlock().number, 13);
    assert.equal(ch.openBlockNumber(), 10);
  });

  it("requireInOrder (Holocene) rejects frames that do not continue the channel", () => {
    const ch = new Channel(cid(1), block, true);
    assert.equal(ch.addFrame(fr(1, 1), block), "OUT_OF_ORDER");
    assert.equal(ch.addFrame(fr(1, 0), block), null);
    assert.equal(ch.addFrame(fr(1, 2), block), "OUT_OF_ORDER");
    assert.equal(ch.addFrame(fr(1, 1), block), null);
    assert.equal(ch.addFrame(fr(1, 2, true), block), null);
    assert.equal(ch.isReady(), true);
  });
});

describe("rollup/derive/channelBank", () => {
  it("has op-node's size caps, Fjord by L1 timestamp", () => {
    const cfg = config({ fjordTime: 1000 });
    assert.equal(maxChannelBankSize(cfg, 999), MAX_CHANNEL_BANK_SIZE_BEDROCK);
    assert.equal(maxChannelBankSize(cfg, 1000), MAX_CHANNEL_BANK_SIZE_FJORD);
    assert.equal(MAX_CHANNEL_BANK_SIZE_BEDROCK, 100_000_000);
    assert.equal(MAX_CHANNEL_BANK_SIZE_FJORD, 1_000_000_000);
  });

  it("reads a ready channel once, stamped with the origin it is read at", () => {
    const bank = new ChannelBank(config());
    assert.equal(bank.read(ref(1)), null);
    assert.equal(bank.ingestFrame(fr(1, 1, true, text("B")), ref(1)), "ADDED");
    assert.equal(bank.read(ref(1)), null, "frame 0 missing");
    assert.equal(bank.ingestFrame(fr(1, 0, false, text("A")), ref(2)), "ADDED");
    const out = bank.read(ref(3));
    assert.ok(out !== null);
    assert.equal(str(out.data), "AB");
    assert.deepEqual(out.id, cid(1));
    assert.equal(out.inclusionBlock.number, 3);
    assert.equal(out.openBlock.number, 1);
    assert.equal(out.completedBlock.number, 2);
    assert.equal(bank.read(ref(3)), null);
    assert.equal(bank.channelCount(), 0);
  });

  it("drops duplicate frames and second closing frames", () => {
    const bank = new ChannelBank(config());
    assert.equal(bank.ingestFrame(fr(1, 0, false, text("first")), ref(1)), "ADDED");
    assert.equal(bank.ingestFrame(fr(1, 0, false, text("dup")), ref(1)), "DUPLICATE_FRAME");
    assert.equal(bank.ingestFrame(fr(1, 2, true, text("!")), ref(1)), "ADDED");
    assert.equal(bank.ingestFrame(fr(1, 1, true, text("?")), ref(1)), "CHANNEL_CLOSED");
    assert.equal(bank.ingestFrame(fr(1, 1, false, text("-")), ref(1)), "ADDED");
    assert.equal(str(bank.read(ref(1))?.data ?? null), "first-!");
  });

  it("times channels out: frames dropped, the channel removed on read", () => {
    const bank = new ChannelBank(config({}, 10));
    bank.ingestFrame(fr(1, 0), ref(10));
    // open 10 + timeout 10 < origin: timed out only from block 21.
    assert.equal(bank.ingestFrame(fr(1, 1), ref(20)), "ADDED");
    assert.equal(bank.ingestFrame(fr(1, 2, true), ref(21)), "TIMED_OUT");
    assert.equal(bank.channelCount(), 1);
    assert.equal(bank.read(ref(21)), null);
    assert.equal(bank.channelCount(), 0);
  });

  it("does not read a complete channel once it timed out", () => {
    const bank = new ChannelBank(config({}, 10));
    bank.ingestFrame(fr(1, 0, true), ref(10));
    assert.equal(bank.read(ref(21)), null);
    assert.equal(bank.channelCount(), 0);
  });

  it("uses the Granite channel timeout (50) by the origin's timestamp", () => {
    const cfg = config({ graniteTime: 0 }, 300);
    const bank = new ChannelBank(cfg);
    bank.ingestFrame(fr(1, 0), ref(100));
    assert.equal(bank.ingestFrame(fr(1, 1), ref(150)), "ADDED");
    assert.equal(bank.ingestFrame(fr(1, 2, true), ref(151)), "TIMED_OUT");
    const pre = new ChannelBank(config({}, 300));
    pre.ingestFrame(fr(1, 0), ref(100));
    assert.equal(pre.ingestFrame(fr(1, 1, true), ref(151)), "ADDED");
  });

  it("pre-Canyon reads only the first channel; Canyon reads the first ready one", () => {
    const fill = (bank: ChannelBank): void => {
      bank.ingestFrame(fr(1, 0), ref(1)); // channel 1: open, never completed
      bank.ingestFrame(fr(2, 0, true, text("two")), ref(2));
      bank.ingestFrame(fr(3, 0, true, text("three")), ref(3));
    };
    const pre = new ChannelBank(config({}, 10));
    fill(pre);
    assert.equal(pre.read(ref(4)), null, "blocked behind channel 1");
    // Once channel 1 times out, the queue moves on in FIFO order.
    assert.equal(str(pre.read(ref(12))?.data ?? null), "two");
    assert.equal(str(pre.read(ref(12))?.data ?? null), "three");

    const canyon = new ChannelBank(config({ regolithTime: 0, canyonTime: 0 }, 10));
    fill(canyon);
    assert.equal(str(canyon.read(ref(4))?.data ?? null), "two");
    assert.equal(str(canyon.read(ref(4))?.data ?? null), "three");
    assert.equal(canyon.read(ref(4)), null);
    assert.equal(canyon.channelCount(), 1);
  });

  it("activates Canyon's read rule by the L1 origin timestamp", () => {
    const bank = new ChannelBank(config({ regolithTime: 0, canyonTime: 1000 }, 10));
    bank.ingestFrame(fr(1, 0), ref(1, 990));
    bank.ingestFrame(fr(2, 0, true, text("two")), ref(2, 995));
    assert.equal(bank.read(ref(3, 999)), null);
    assert.equal(str(bank.read(ref(3, 1000))?.data ?? null), "two");
  });

  it("prunes the oldest channels above 100M (Bedrock), not below 1G (Fjord)", () => {
    const run = (cfg: RollupConfig): ChannelBank => {
      const bank = new ChannelBank(cfg);
      for (let n = 0; n < 60; n++) assert.equal(bank.ingestFrame(fr(1, n, false, MB), ref(1)), "ADDED");
      for (let n = 0; n < 39; n++) bank.ingestFrame(fr(2, n, false, MB), ref(1));
      assert.equal(bank.channelCount(), 2);
      assert.equal(bank.totalSize(), 99 * 1_000_200);
      bank.ingestFrame(fr(2, 39, false, MB), ref(1));
      return bank;
    };
    const bedrock = run(config());
    assert.deepEqual(bedrock.channelIds(), [cid(2)], "channel 1 pruned");
    assert.equal(bedrock.totalSize(), 40 * 1_000_200);
    const fjord = run(config({ regolithTime: 0, canyonTime: 0, deltaTime: 0, ecotoneTime: 0, fjordTime: 0 }));
    assert.deepEqual(fjord.channelIds(), [cid(1), cid(2)]);
  });

  it("reset drops every channel", () => {
    const bank = new ChannelBank(config());
    bank.ingestFrame(fr(1, 0, true), ref(1));
    bank.ingestFrame(fr(2, 0), ref(1));
    bank.reset();
    assert.equal(bank.channelCount(), 0);
    assert.equal(bank.read(ref(1)), null);
    assert.equal(bank.getChannel(cid(1)), undefined);
  });
});

describe("rollup/derive/channelAssembler (Holocene)", () => {
  const holocene = config(
    {
      regolithTime: 0,
      canyonTime: 0,
      deltaTime: 0,
      ecotoneTime: 0,
      fjordTime: 0,
      graniteTime: 0,
      holoceneTime: 0,
    },
    300,
  );

  it("assembles an in-order channel and hands it out on the closing frame", () => {
    const ca = new ChannelAssembler(holocene);
    assert.equal(ca.ingestFrame(fr(1, 0, false, text("a")), ref(1)).status, "ADDED");
    assert.equal(ca.ingestFrame(fr(1, 1, false, text("b")), ref(2)).status, "ADDED");
    const r = ca.ingestFrame(fr(1, 2, true, text("c")), ref(3));
    assert.equal(r.status, "COMPLETED");
    if (r.status !== "COMPLETED") return;
    assert.equal(str(r.channel.data), "abc");
    assert.equal(r.channel.openBlock.number, 1);
    assert.equal(r.channel.inclusionBlock.number, 3);
    assert.equal(ca.channel(), null);
  });

  it("drops non-first frames without a staging channel", () => {
    const ca = new ChannelAssembler(holocene);
    assert.equal(ca.ingestFrame(fr(1, 1), ref(1)).status, "NO_CHANNEL");
    assert.equal(ca.ingestFrame(fr(1, 1, true), ref(1)).status, "NO_CHANNEL");
  });

  it("drops out-of-order frames and frames of another channel", () => {
    const ca = new ChannelAssembler(holocene);
    ca.ingestFrame(fr(1, 0, false, text("a")), ref(1));
    assert.deepEqual(ca.ingestFrame(fr(1, 2, true), ref(1)), { status: "REJECTED", reason: "OUT_OF_ORDER" });
    assert.deepEqual(ca.ingestFrame(fr(2, 1), ref(1)), { status: "REJECTED", reason: "ID_MISMATCH" });
    assert.equal(ca.ingestFrame(fr(1, 0, false, text("y")), ref(1)).status, "ADDED", "a repeated first frame restarts");
    const r = ca.ingestFrame(fr(1, 1, true, text("z")), ref(1));
    assert.equal(r.status === "COMPLETED" ? str(r.channel.data) : r.status, "yz");
  });

  it("a new first frame evicts the unclosed staging channel", () => {
    const ca = new ChannelAssembler(holocene);
    ca.ingestFrame(fr(1, 0, false, text("a0")), ref(1));
    ca.ingestFrame(fr(1, 1, false, text("a1")), ref(1));
    assert.equal(ca.ingestFrame(fr(2, 0, false, text("b0")), ref(2)).status, "ADDED");
    assert.deepEqual(ca.channel()?.id, cid(2));
    assert.deepEqual(ca.ingestFrame(fr(1, 2, true), ref(2)), { status: "REJECTED", reason: "ID_MISMATCH" });
    const r = ca.ingestFrame(fr(2, 1, true, text("b1")), ref(3));
    assert.equal(r.status === "COMPLETED" ? str(r.channel.data) : r.status, "b0b1");
  });

  it("drops a staging channel above MAX_RLP_BYTES_PER_CHANNEL (100M)", () => {
    const ca = new ChannelAssembler(holocene);
    for (let n = 0; n < 99; n++) assert.equal(ca.ingestFrame(fr(1, n, false, MB), ref(1)).status, "ADDED");
    assert.ok(ca.channel()!.size() <= MAX_RLP_BYTES_PER_CHANNEL_FJORD);
    assert.equal(ca.ingestFrame(fr(1, 99, false, MB), ref(1)).status, "OVERSIZED");
    assert.equal(ca.channel(), null);
    assert.equal(ca.ingestFrame(fr(1, 100, true), ref(1)).status, "NO_CHANNEL");
  });

  it("times the staging channel out (Granite: 50 blocks)", () => {
    const ca = new ChannelAssembler(holocene);
    ca.ingestFrame(fr(1, 0), ref(10));
    assert.equal(ca.checkTimeout(ref(60)), false);
    assert.equal(ca.ingestFrame(fr(1, 1), ref(60)).status, "ADDED");
    assert.equal(ca.ingestFrame(fr(1, 2, true), ref(61)).status, "NO_CHANNEL");
    ca.ingestFrame(fr(2, 0), ref(70));
    assert.equal(ca.checkTimeout(ref(121)), true);
    assert.equal(ca.channel(), null);
  });

  it("reset drops the staging channel", () => {
    const ca = new ChannelAssembler(holocene);
    ca.ingestFrame(fr(1, 0), ref(1));
    ca.reset();
    assert.equal(ca.channel(), null);
  });
});
