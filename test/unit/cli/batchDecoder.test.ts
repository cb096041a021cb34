/**
 * `opal-node batch-decode` on real OP Mainnet batcher data (kona's test data): the batcher
 * transaction of March 2024 with its one frame and 27-block span batch, and the June 2024 channel
 * with its 143-block span batch — the values kona's tests and the data's own fields give — plus the
 * input forms and the errors a user can make.
 */
import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../../src/cli/opalNode.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { encodeFramesTxData, type Frame, parseFrames } from "../../../src/rollup/derive/frame.js";
import { decodeTx } from "../../../src/tx/envelope.js";
import { fixturePath } from "../../utils/fixtures.js";
import { tempDir } from "../node/helpers.js";

const DATA = "op-stack/kona-batch-data";

async function run(args: string[]): Promise<{ code: number; out: string; err: string[] }> {
  let out = "";
  const err: string[] = [];
  const code = await main(["batch-decode", ...args], {}, { out: (t) => (out += t), err: (t) => err.push(t) });
  return { code, out, err };
}

interface Span {
  type: string;
  rel_timestamp: number;
  l1_origin_num: number;
  parent_check: string;
  l1_origin_check: string;
  block_count: number;
  tx_count: number;
  block_tx_counts: number[];
  blocks?: { timestamp: number; epoch_num: number; tx_count: number; txs?: { from: string }[] }[];
}

describe("cli: opal-node batch-decode on OP Mainnet batcher data", function () {
  this.timeout(60_000);

  it("the raw batcher tx: the tx, its one frame, the channel's 27-block span batch", async () => {
    const r = await run([fixturePath(DATA, "raw_batcher_tx.bin"), "--network", "op-mainnet"]);
    assert.equal(r.code, 0, r.err.join("\n"));
    const j = JSON.parse(r.out);
    const input = j.inputs[0];
    assert.equal(input.kind, "tx");
    assert.equal(input.transaction.type, 2);
    assert.equal(input.transaction.chain_id, 1);
    assert.equal(input.transaction.nonce, 1_104_454);
    assert.equal(input.transaction.to, "0xff00000000000000000000000000000000000010");
    assert.equal(input.transaction.from, "0x6887246668a3b87f54deb3b94ba47a6f63f32985");
    assert.deepEqual(input.frames, [
      { channel_id: "0xac329933f5efdcc35ccd284232a376d3", frame_number: 0, data_length: 119_799, is_last: true },
    ]);
    assert.equal(j.channels.length, 1);
    const ch = j.channels[0];
    assert.equal(ch.complete, true);
    assert.equal(ch.algo, "zlib");
    assert.equal(ch.batches.length, 1);
    const span = ch.batches[0] as Span;
    assert.equal(span.type, "span");
    assert.equal(span.block_count, 27);
    assert.equal(span.l1_origin_num, 19_426_585);
    assert.equal(span.rel_timestamp, 24_269_254);
    assert.equal(span.blocks!.length, 27);
    assert.equal(span.blocks![0]!.timestamp, 1686068903 + 24_269_254);
    assert.equal(span.blocks!.at(-1)!.epoch_num, 19_426_585);
  });

  it("batch.hex: a zlib channel holding one span batch of 143 blocks", async () => {
    const r = await run([fixturePath(DATA, "batch.hex"), "--network=op-mainnet", "--txs"]);
    assert.equal(r.code, 0, r.err.join("\n"));
    const j = JSON.parse(r.out);
    assert.equal(j.inputs[0].kind, "channel");
    assert.equal(j.inputs[0].compressed_length, 615_361);
    const ch = j.channels[0];
    assert.equal(ch.algo, "zlib");
    assert.equal(ch.batches.length, 1);
    const span = ch.batches[0] as Span;
    assert.equal(span.block_count, 143);
    assert.equal(span.rel_timestamp, 32_295_734);
    assert.equal(span.l1_origin_num, 20_089_770);
    assert.equal(span.parent_check, "0xba1be7cfde4724e81290aa5ae3c082731ce44823");
    assert.equal(span.l1_origin_check, "0x4bd8da85bfabf4daa6a3f294d3d51dd927c6cbcb");
    assert.equal(span.tx_count, 1766);
    assert.equal(
      span.block_tx_counts.reduce((a, b) => a + b, 0),
      1766,
    );
    assert.equal(span.blocks!.length, 143);
    assert.equal(span.blocks![0]!.timestamp, 1718364637);
    assert.equal(span.blocks!.at(-1)!.epoch_num, 20_089_770);
    assert.ok(
      span.blocks!.every((b) => (b.txs ?? []).every((t) => /^0x[0-9a-f]{40}$/.test(t.from))),
      "every tx has a sender",
    );
  });

  it("without a rollup config the raw span fields are printed and absolute values are left out", async () => {
    const r = await run([fixturePath(DATA, "batch.hex")]);
    const span = JSON.parse(r.out).channels[0].batches[0] as Span & { note?: string };
    assert.equal(span.block_count, 143);
    assert.equal(span.blocks, undefined);
    assert.match(String(span.note), /rollup config/);
  });

  it("hex and binary inputs, txdata split across files, --kind, --out, and bad input", async () => {
    const dir = tempDir("batchdecode");
    try {
      const rawTx = new Uint8Array(readFileSync(fixturePath(DATA, "raw_batcher_tx.bin")));
      const hexFile = join(dir.path, "tx.hex");
      writeFileSync(hexFile, `${bytesToHex(rawTx)}\n`);
      const a = await run([hexFile, "--kind", "tx"]);
      assert.equal(a.code, 0, a.err.join("\n"));
      assert.equal(JSON.parse(a.out).inputs[0].transaction.nonce, 1_104_454);

      // The frame's data cut into two frames in two txdata files: they form the one channel again.
      const data = decodeTx(rawTx).data;
      const frame = (parseFrames(data) as Frame[])[0]!;
      const half = Math.floor(frame.data.length / 2);
      const parts = [
        { channelId: frame.channelId, frameNumber: 1, data: frame.data.subarray(half), isLast: true },
        { channelId: frame.channelId, frameNumber: 0, data: frame.data.subarray(0, half), isLast: false },
      ];
      const files = parts.map((f, i) => {
        const path = join(dir.path, `part${i}.bin`);
        writeFileSync(path, encodeFramesTxData([f]));
        return path;
      });
      const split = JSON.parse((await run([...files, "--network=op-mainnet"])).out);
      assert.deepEqual(
        split.inputs.map((x: { kind: string }) => x.kind),
        ["txdata", "txdata"],
      );
      assert.equal(split.channels.length, 1);
      assert.equal(split.channels[0].frames, 2);
      assert.equal(split.channels[0].batches[0].block_count, 27);
      const onlyFirst = JSON.parse((await run([files[1]!])).out);
      assert.deepEqual(onlyFirst.channels[0], { id: bytesToHex(frame.channelId), complete: false, frames: [0] });
      const out = join(dir.path, "out.json");
      const b = await run([hexFile, "--out", out]);
      assert.equal(b.out, "");
      assert.equal(JSON.parse(readFileSync(out, "utf8")).channels[0].batches[0].block_count, 27);

      // A truncated channel: the error is in the JSON, the exit is 0.
      const chan = readFileSync(fixturePath(DATA, "batch.hex"), "utf8").trim();
      const cut = join(dir.path, "cut.hex");
      writeFileSync(cut, chan.slice(0, chan.length / 2 - ((chan.length / 2) % 2)));
      const c = await run([cut, "--kind=channel"]);
      assert.equal(c.code, 0);
      const cj = JSON.parse(c.out).channels[0];
      assert.equal(cj.batches.length, 0);
      assert.ok(typeof cj.error === "string");

      const missing = await run([join(dir.path, "nope.bin")]);
      assert.equal(missing.code, 1);
      assert.deepEqual(missing.err, [`opal-node batch-decode: ${join(dir.path, "nope.bin")}: no such file`]);
      const badKind = await run([hexFile, "--kind", "blob"]);
      assert.equal(badKind.code, 1);
      assert.match(badKind.err[0]!, /--kind: want tx, txdata, channel or auto/);
      const notTx = await run([cut, "--kind", "tx"]);
      assert.equal(notTx.code, 1);
      assert.match(notTx.err[0]!, /not a transaction/);
      const badOpt = await run([hexFile, "--bogus"]);
      assert.equal(badOpt.code, 2);
      assert.equal(badOpt.err.length, 1);
      const none = await run([]);
      assert.equal(none.code, 1);
      assert.match(none.err[0]!, /no input files/);
      assert.equal((await run(["--help"])).code, 0);
    } finally {
      dir.remove();
    }
  });
});
