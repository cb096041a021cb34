/**
 * `opal-node batch-decode` (src/cli/batchDecode.ts) on real OP Mainnet batcher data (kona's test
 * data: one signed batcher transaction, one zlib channel as hex text), and on inputs cut from it:
 * hex vs binary files, bare tx data, frames split over two files, truncated and incomplete channels,
 * a crafted singular batch, `--kind` mismatches, bad options and missing files (one stderr line and a
 * non-zero exit), and `--out`.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BATCH_DECODE_USAGE,
  batchDecodeMain,
  decodeBatcherInput,
  detectKind,
  InputError,
  readInputBytes,
} from "../../../src/cli/batchDecode.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "../../../src/cli/processIo.js";
import { bytesToHexRaw, hexToBytes } from "../../../src/primitives/hex.js";
import { NETWORK_ROLLUP_JSON } from "../../../src/rollup/config/networks.js";
import { encodeSingularBatch } from "../../../src/rollup/derive/batch.js";
import { compressChannel } from "../../../src/rollup/derive/channelReader.js";
import { encodeFramesTxData, type Frame } from "../../../src/rollup/derive/frame.js";
import { decodeTx } from "../../../src/tx/envelope.js";
import { fixturePath } from "../../utils/fixtures.js";

const DIR = (name: string): string => fixturePath("op-stack", "kona-batch-data", name);
const RAW_TX = DIR("raw_batcher_tx.bin");
const BATCH_HEX = DIR("batch.hex");

const CHANNEL_ID = "ac329933f5efdcc35ccd284232a376d3";
const BATCHER = "0x6887246668a3b87F54DeB3b94Ba47a6f63F32985";
const INBOX = "0xFF00000000000000000000000000000000000010";

/** The report's shape, as far as the tests read it (fields a report lacks read as undefined). */
interface TxJson {
  hash: string;
  type: number;
  chain_id: number;
  nonce: number;
  to: string;
  sender: string;
  data_length: number;
}
interface FrameJson {
  channel_id: string;
  frame_number: number;
  data_length: number;
  is_last: boolean;
}
interface InputJson {
  file: string;
  encoding: string;
  kind: string;
  length: number;
  tx: TxJson;
  frames: FrameJson[];
  frames_error: string;
}
interface BlockJson {
  timestamp: number;
  epoch_num: number;
  tx_count: number;
  txs: TxJson[];
}
interface BatchJson {
  type: string;
  error: string;
  note: string;
  parent_hash: string;
  epoch_num: number;
  epoch_hash: string;
  timestamp: number;
  rel_timestamp: number;
  l1_origin_num: number;
  parent_check: string;
  l1_origin_check: string;
  block_count: number;
  tx_count: number;
  block_tx_counts: number[];
  blocks: BlockJson[];
  txs: TxJson[];
}
interface ChannelJson {
  id: string;
  file: string;
  encoding: string;
  complete: boolean;
  closed: boolean;
  frame_numbers: number[];
  missing_frames: number[];
  rejected_frames: { frame_number: number; error: string }[];
  compressed_length: number;
  decompressed_length: number;
  algo: string;
  batches: BatchJson[];
  dropped_batches: number;
  error: string;
}
interface Report {
  inputs: InputJson[];
  channels: ChannelJson[];
}

interface Run {
  code: number;
  out: string;
  err: string[];
}

/** Runs in-process; a leading object is the environment (default: none). */
async function run(...argv: (string | Record<string, string>)[]): Promise<Run> {
  const env = typeof argv[0] === "object" ? argv[0] : {};
  const args = argv.filter((a): a is string => typeof a === "string");
  const out: string[] = [];
  const err: string[] = [];
  const code = await batchDecodeMain(args, { out: (t) => out.push(t), err: (t) => err.push(t) }, env);
  return { code, out: out.join("\n"), err };
}

/** Runs and parses the JSON; asserts exit 0 and a quiet stderr. */
async function decode(...args: string[]): Promise<Report> {
  const r = await run(...args);
  assert.deepEqual(r.err, []);
  assert.equal(r.code, EXIT_OK);
  return JSON.parse(r.out) as Report;
}

/** Runs and expects one stderr line, no stdout, and `code`. */
async function fails(code: number, ...args: string[]): Promise<string> {
  const r = await run(...args);
  assert.equal(r.code, code, r.err.join("\n"));
  assert.equal(r.out, "");
  assert.equal(r.err.length, 1);
  assert.ok(!r.err[0].includes("\n"), r.err[0]);
  assert.ok(r.err[0].startsWith("opal-node batch-decode: "), r.err[0]);
  return r.err[0];
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

describe("cli/batchDecode", function () {
  this.timeout(60_000);
  let tmp: string;
  const at = (name: string): string => join(tmp, name);
  /** The batcher tx's calldata (version byte + one frame). */
  let txData: Uint8Array;
  /** The channel of that frame. */
  let frameData: Uint8Array;

  before(() => {
    tmp = mkdtempSync(join(tmpdir(), "opal-batch-decode-"));
    txData = decodeTx(new Uint8Array(readFileSync(RAW_TX))).data;
    frameData = txData.subarray(23, txData.length - 1);
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  describe("OP Mainnet batcher transaction (raw_batcher_tx.bin)", () => {
    it("prints the tx, its one frame and the span batch of 27 blocks", async () => {
      const j = await decode(RAW_TX);
      assert.equal(j.inputs.length, 1);
      const input = j.inputs[0];
      assert.equal(input.kind, "tx");
      assert.equal(input.encoding, "binary");
      assert.equal(input.tx.type, 2);
      assert.equal(input.tx.chain_id, 1);
      assert.equal(input.tx.nonce, 1_104_454);
      assert.equal(input.tx.to, INBOX);
      assert.equal(input.tx.sender, BATCHER);
      assert.match(input.tx.hash, /^0x[0-9a-f]{64}$/);
      assert.equal(input.tx.data_length, 119_799 + 24);
      assert.deepEqual(input.frames, [
        { channel_id: CHANNEL_ID, frame_number: 0, data_length: 119_799, is_last: true },
      ]);
      assert.equal(j.channels.length, 1);
      const ch = j.channels[0];
      assert.equal(ch.id, CHANNEL_ID);
      assert.equal(ch.complete, true);
      assert.equal(ch.compressed_length, 119_799);
      assert.equal(ch.algo, "zlib");
      assert.equal(ch.error, undefined);
      assert.equal(ch.batches.length, 1);
      const b = ch.batches[0];
      assert.equal(b.type, "span");
      assert.equal(b.block_count, 27);
      assert.equal(b.l1_origin_num, 19_426_585);
      assert.equal(b.rel_timestamp, 24_269_254);
      assert.equal(b.block_tx_counts.length, 27);
      assert.equal(sum(b.block_tx_counts), b.tx_count);
      assert.match(b.note, /rollup config/);
      assert.equal(b.blocks, undefined);
    });

    it("reads the same tx from hex text (0x, line breaks) and from its bare tx data", async () => {
      const bin = await decode(RAW_TX);
      const hex = bytesToHexRaw(new Uint8Array(readFileSync(RAW_TX)));
      const wrapped = `0x${hex.replace(/(.{64})/g, "$1\n")}\n`;
      writeFileSync(at("tx.hex"), wrapped);
      const fromHex = await decode(at("tx.hex"));
      assert.equal(fromHex.inputs[0].encoding, "hex");
      assert.deepEqual(fromHex.inputs[0].tx, bin.inputs[0].tx);
      assert.deepEqual(fromHex.channels, bin.channels);

      writeFileSync(at("txdata.bin"), txData);
      for (const kind of ["auto", "txdata"]) {
        const j = await decode("--kind", kind, at("txdata.bin"));
        assert.equal(j.inputs[0].kind, "txdata");
        assert.equal(j.inputs[0].tx, undefined);
        assert.deepEqual(j.inputs[0].frames, bin.inputs[0].frames);
        assert.deepEqual(j.channels, bin.channels);
      }
    });

    it("derives the blocks with --network op-mainnet, and lists txs with --txs", async () => {
      const j = await decode("--network", "op-mainnet", "--txs", RAW_TX);
      const b = j.channels[0].batches[0];
      assert.equal(b.blocks.length, 27);
      assert.equal(b.blocks[0].timestamp, NETWORK_ROLLUP_JSON["op-mainnet"].genesis.l2_time + 24_269_254);
      assert.equal(b.blocks[26].timestamp - b.blocks[0].timestamp, 26 * 2);
      assert.equal(b.blocks[26].epoch_num, 19_426_585);
      const txs = b.blocks.flatMap((blk) => blk.txs);
      assert.equal(txs.length, b.tx_count);
      for (const tx of txs) {
        assert.match(tx.hash, /^0x[0-9a-f]{64}$/);
        assert.match(tx.sender, /^0x[0-9a-fA-F]{40}$/);
      }
    });

    it("takes the options from $OP_NODE_BATCH_DECODE_* too; a flag wins over its env var", async () => {
      const env = { OP_NODE_BATCH_DECODE_NETWORK: "op-mainnet", OP_NODE_BATCH_DECODE_TXS: "true" };
      const viaEnv = await run(env, RAW_TX);
      assert.deepEqual(viaEnv.err, []);
      assert.deepEqual(JSON.parse(viaEnv.out), await decode("--network", "op-mainnet", "--txs", RAW_TX));
      const flagWins = await run(env, "--txs=false", RAW_TX);
      assert.deepEqual(JSON.parse(flagWins.out), await decode("--network", "op-mainnet", RAW_TX));
    });
  });

  describe("zlib channel as hex text (batch.hex)", () => {
    it("prints the raw span batch without a rollup config", async () => {
      const j = await decode(BATCH_HEX);
      assert.equal(j.inputs[0].kind, "channel");
      assert.equal(j.inputs[0].encoding, "hex");
      const ch = j.channels[0];
      assert.equal(ch.compressed_length, 615_361);
      assert.equal(ch.decompressed_length, 1_409_463);
      assert.equal(ch.algo, "zlib");
      assert.equal(ch.batches.length, 1);
      const b = ch.batches[0];
      assert.equal(b.type, "span");
      assert.equal(b.block_count, 143);
      assert.equal(b.rel_timestamp, 32_295_734);
      assert.equal(b.l1_origin_num, 20_089_770);
      assert.equal(b.parent_check, "0xba1be7cfde4724e81290aa5ae3c082731ce44823");
      assert.equal(b.l1_origin_check, "0x4bd8da85bfabf4daa6a3f294d3d51dd927c6cbcb");
      assert.equal(b.tx_count, 1766);
      assert.equal(sum(b.block_tx_counts), 1766);
      assert.equal(b.blocks, undefined);
    });

    it("derives 143 blocks from 1718364637 with --network op-mainnet or the same --rollup.config", async () => {
      writeFileSync(at("rollup.json"), JSON.stringify(NETWORK_ROLLUP_JSON["op-mainnet"]));
      for (const flags of [
        ["--network", "op-mainnet"],
        ["--rollup.config", at("rollup.json")],
      ]) {
        const j = await decode(...flags, BATCH_HEX);
        const b = j.channels[0].batches[0];
        assert.equal(b.blocks.length, 143);
        assert.equal(b.blocks[0].timestamp, 1_718_364_637);
        assert.equal(b.blocks[142].timestamp, 1_718_364_637 + 142 * 2);
        assert.equal(b.blocks[142].epoch_num, 20_089_770);
        assert.equal(sum(b.blocks.map((x) => x.tx_count)), 1766);
        assert.equal(b.blocks[0].txs, undefined);
        assert.equal(b.note, undefined);
      }
    });

    it("with --l2-chain-id alone: origins and txs, no timestamps", async () => {
      const j = await decode("--l2-chain-id", "10", "--txs", BATCH_HEX);
      const b = j.channels[0].batches[0];
      assert.equal(b.blocks.length, 143);
      assert.equal(b.blocks[0].timestamp, undefined);
      assert.equal(b.blocks[142].epoch_num, 20_089_770);
      assert.equal(sum(b.blocks.map((x) => x.txs.length)), 1766);
      assert.match(b.note, /timestamps need a rollup config/);
    });

    it("reads the same channel as binary", async () => {
      const bytes = hexToBytes(readFileSync(BATCH_HEX, "utf8").trim());
      writeFileSync(at("channel.bin"), bytes);
      const j = await decode(at("channel.bin"));
      assert.equal(j.inputs[0].encoding, "binary");
      const fromHex = await decode(BATCH_HEX);
      const { file: _a, encoding: _b, ...binCh } = j.channels[0];
      const { file: _c, encoding: _d, ...hexCh } = fromHex.channels[0];
      assert.deepEqual(binCh, hexCh);
    });

    it("reports a truncated channel in the JSON, exit 0", async () => {
      const text = readFileSync(BATCH_HEX, "utf8").trim();
      writeFileSync(at("half.hex"), text.slice(0, 2 * 300_000));
      const j = await decode(at("half.hex"));
      const ch = j.channels[0];
      assert.equal(ch.compressed_length, 300_000);
      assert.equal(ch.algo, "zlib");
      assert.deepEqual(ch.batches, []);
      assert.match(ch.error, /^batch 0: /);
    });

    it("reports corrupt compressed data in the JSON", async () => {
      const bytes = hexToBytes(readFileSync(BATCH_HEX, "utf8").trim());
      bytes[2] ^= 0xff;
      bytes[3] ^= 0xff;
      writeFileSync(at("corrupt.bin"), bytes);
      const j = await decode("--kind", "channel", at("corrupt.bin"));
      const ch = j.channels[0];
      assert.match(ch.error, /^zlib: invalid distance too far back/);
      // What inflated before the damage is still read (as op-node does); here it is no batch.
      assert.equal(ch.batches.length, 1);
      assert.match(ch.batches[0].error, /unrecognized batch type/);
    });
  });

  describe("frames and channels", () => {
    it("reassembles a channel split over two files, in any order", async () => {
      const id = hexToBytes(CHANNEL_ID);
      const cut = 50_000;
      const f0: Frame = { channelId: id, frameNumber: 0, data: frameData.subarray(0, cut), isLast: false };
      const f1: Frame = { channelId: id, frameNumber: 1, data: frameData.subarray(cut), isLast: true };
      writeFileSync(at("part0.bin"), encodeFramesTxData([f0]));
      writeFileSync(at("part1.hex"), bytesToHexRaw(encodeFramesTxData([f1])));
      const j = await decode(at("part1.hex"), at("part0.bin"));
      assert.equal(j.inputs.length, 2);
      assert.equal(j.inputs[0].frames[0].frame_number, 1);
      assert.equal(j.channels.length, 1);
      const ch = j.channels[0];
      assert.equal(ch.complete, true);
      assert.deepEqual(ch.frame_numbers, [0, 1]);
      assert.equal(ch.compressed_length, 119_799);
      assert.equal(ch.batches[0].block_count, 27);

      const only1 = await decode(at("part1.hex"));
      assert.equal(only1.channels[0].complete, false);
      assert.equal(only1.channels[0].closed, true);
      assert.deepEqual(only1.channels[0].missing_frames, [0]);
      assert.match(only1.channels[0].error, /missing frame\(s\) 0/);
      assert.equal(only1.channels[0].batches, undefined);

      const only0 = await decode(at("part0.bin"));
      assert.equal(only0.channels[0].complete, false);
      assert.match(only0.channels[0].error, /no closing frame/);

      const dup = await decode(at("part0.bin"), at("part0.bin"), at("part1.hex"));
      assert.equal(dup.channels[0].complete, true);
      assert.deepEqual(dup.channels[0].rejected_frames, [{ frame_number: 0, error: "DUPLICATE_FRAME" }]);
    });

    it("reports a malformed frame in the JSON (the tx's frames are dropped)", async () => {
      writeFileSync(at("cut-txdata.bin"), txData.subarray(0, 1000));
      const j = await decode(at("cut-txdata.bin"));
      assert.equal(j.inputs[0].kind, "txdata");
      assert.deepEqual(j.inputs[0].frames, []);
      assert.match(j.inputs[0].frames_error, /frame 0: frame_data needs 119799 bytes/);
      assert.deepEqual(j.channels, []);
    });

    it("decodes a singular batch, with its txs under --txs", async () => {
      const l1Tx = new Uint8Array(readFileSync(RAW_TX));
      const batch = encodeSingularBatch({
        parentHash: new Uint8Array(32).fill(0x11),
        epochNum: 123,
        epochHash: new Uint8Array(32).fill(0x22),
        timestamp: 1_700_000_000,
        transactions: [l1Tx],
      });
      const channel = compressChannel([batch, batch], "brotli");
      const frame: Frame = { channelId: new Uint8Array(16).fill(7), frameNumber: 0, data: channel, isLast: true };
      writeFileSync(at("singular.bin"), encodeFramesTxData([frame]));
      const j = await decode("--txs", at("singular.bin"));
      const ch = j.channels[0];
      assert.equal(ch.id, "07".repeat(16));
      assert.equal(ch.algo, "brotli");
      assert.equal(ch.batches.length, 2);
      const b = ch.batches[0];
      assert.equal(b.type, "singular");
      assert.equal(b.parent_hash, `0x${"11".repeat(32)}`);
      assert.equal(b.epoch_num, 123);
      assert.equal(b.epoch_hash, `0x${"22".repeat(32)}`);
      assert.equal(b.timestamp, 1_700_000_000);
      assert.equal(b.tx_count, 1);
      assert.equal(b.txs[0].sender, BATCHER);
      assert.equal(b.txs[0].nonce, 1_104_454);

      writeFileSync(at("channel.brotli"), channel);
      const raw = await decode(at("channel.brotli"));
      assert.equal(raw.inputs[0].kind, "channel");
      assert.equal(raw.channels[0].batches[1].tx_count, 1);
      assert.equal(raw.channels[0].batches[1].txs, undefined);
    });

    it("stops a channel at a batch that does not decode", async () => {
      const bad = new Uint8Array([0x07, 1, 2, 3]);
      const good = encodeSingularBatch({
        parentHash: new Uint8Array(32),
        epochNum: 1,
        epochHash: new Uint8Array(32),
        timestamp: 2,
        transactions: [],
      });
      const j = decodeBatcherInput(compressChannel([good, bad, good], "zlib"), "channel");
      const ch = (j as unknown as Report).channels[0];
      assert.equal(ch.batches.length, 2);
      assert.equal(ch.batches[1].type, "unknown");
      assert.match(ch.batches[1].error, /unrecognized batch type 7/);
      assert.equal(ch.dropped_batches, 1);
    });
  });

  describe("input detection", () => {
    it("auto-detects each kind and rejects what fits none", () => {
      const tx = new Uint8Array(readFileSync(RAW_TX));
      assert.equal(detectKind(tx), "tx");
      assert.equal(detectKind(txData), "txdata");
      assert.equal(detectKind(frameData), "channel");
      assert.equal(detectKind(new Uint8Array(readFileSync(DIR("raw_span_batch.bin")))), null);
      assert.equal(detectKind(new Uint8Array(0)), null);
      assert.throws(() => decodeBatcherInput(new Uint8Array([0x8d, 1, 2])), InputError);
    });

    it("tells hex text from binary", () => {
      const enc = (s: string) => new TextEncoder().encode(s);
      assert.deepEqual(readInputBytes(enc(" 0xAbCd \n")), { bytes: new Uint8Array([0xab, 0xcd]), encoding: "hex" });
      assert.deepEqual(readInputBytes(enc("ab cd\nef")).bytes, new Uint8Array([0xab, 0xcd, 0xef]));
      assert.equal(readInputBytes(new Uint8Array([0x00, 0x61])).encoding, "binary");
      assert.throws(() => readInputBytes(enc("abc")), /odd number of digits/);
      assert.throws(() => readInputBytes(new Uint8Array(0)), /empty file/);
    });
  });

  describe("errors: one stderr line, non-zero exit", () => {
    it("a --kind that does not match the file", async () => {
      assert.match(await fails(EXIT_FAILED, "--kind", "tx", BATCH_HEX), /batch\.hex: not a signed transaction/);
      assert.match(await fails(EXIT_FAILED, "--kind", "channel", RAW_TX), /not channel data .*first byte 0x02/);
      assert.match(await fails(EXIT_FAILED, "--kind=txdata", BATCH_HEX), /not batcher tx data .*version byte 0x78/);
      assert.match(
        await fails(EXIT_FAILED, DIR("raw_span_batch.bin")),
        /raw_span_batch\.bin: cannot tell what the data is \(first byte 0x8d\)/,
      );
    });

    it("a missing or unreadable file", async () => {
      const missing = at("nope.bin");
      assert.equal(await fails(EXIT_FAILED, RAW_TX, missing), `opal-node batch-decode: ${missing}: no such file`);
      assert.match(await fails(EXIT_FAILED, tmp), /is a directory/);
      writeFileSync(at("empty.bin"), "");
      assert.match(await fails(EXIT_FAILED, at("empty.bin")), /empty file/);
      writeFileSync(at("odd.hex"), "0xabc");
      assert.match(await fails(EXIT_FAILED, at("odd.hex")), /odd number of digits/);
    });

    it("bad options", async () => {
      // The shared flag machinery's wording (cli/parseArgs.ts), as opal-node's own options have it.
      const cmd = "opal-node batch-decode: ";
      assert.equal(await fails(EXIT_USAGE), `${cmd}missing argument <FILE>`);
      assert.equal(
        await fails(EXIT_USAGE, "--kind", "blob", RAW_TX),
        `${cmd}invalid value "blob" for flag --kind: expected one of tx, txdata, channel, auto`,
      );
      assert.equal(
        await fails(EXIT_USAGE, "--network", "nowhere", RAW_TX),
        `${cmd}invalid value "nowhere" for flag --network: expected a known network name (list them with: opal-node networks)`,
      );
      assert.match(await fails(EXIT_USAGE, "--network", "op-mainnet", "--rollup.config", "x", RAW_TX), /exclusive/);
      assert.match(await fails(EXIT_USAGE, "--rollup.config", at("none.json"), RAW_TX), /none\.json: no such file/);
      for (const id of ["ten", "0", `${1n << 256n}`]) {
        assert.equal(
          await fails(EXIT_USAGE, "--l2-chain-id", id, RAW_TX),
          `${cmd}invalid value "${id}" for flag --l2-chain-id: expected a positive integer below 2^256`,
        );
      }
      assert.match(await fails(EXIT_USAGE, "--bogus", RAW_TX), /^opal-node batch-decode: unknown flag --bogus\b/);
      assert.equal(await fails(EXIT_USAGE, RAW_TX, "--out"), `${cmd}flag --out needs a value (a non-empty path)`);
      assert.equal(await fails(EXIT_USAGE, "--txs", "--txs", RAW_TX), `${cmd}flag --txs given more than once`);
    });
  });

  it("--help and --out", async () => {
    const help = await run("--help");
    assert.equal(help.code, EXIT_OK);
    assert.equal(help.out, BATCH_DECODE_USAGE);
    assert.match(help.out, /auto decides per file/);
    assert.match(help.out, /^NAME:\n {3}opal-node batch-decode - /);
    assert.match(help.out, /\nUSAGE:\n {3}opal-node batch-decode \[global options\] <FILE>\.\.\.\n/);
    assert.match(help.out, /--kind value +\(default: "auto"\) +\(\$OP_NODE_BATCH_DECODE_KIND\)/);

    const out = at("out.json");
    const r = await run("--out", out, RAW_TX);
    assert.equal(r.code, EXIT_OK);
    assert.equal(r.out, "");
    assert.deepEqual(JSON.parse(readFileSync(out, "utf8")), await decode(RAW_TX));
    assert.match(await fails(EXIT_FAILED, "--out", join(tmp, "no", "dir.json"), RAW_TX), /--out: .*no such file/);
  });
});
