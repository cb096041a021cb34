import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { Rollup, recordingLog } from "../../../utils/actions/rollup.js";

describe("actions: basic derivation", function () {
  this.timeout(60_000);
  it("a verifier derives the sequencer's blocks from singular batches", async () => {
    const r = new Rollup();
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock();
    const txs = await r.batcher.batchTxs();
    await r.miner.mine(txs);
    const log = recordingLog();
    const v = r.verifier(log);
    await v.sync();
    assert.ok(
      log.lines.some((l) => l.startsWith("info derived block")),
      "the verifier built blocks",
    );
    const want = r.sequencer.unsafe;
    assert.equal(v.heads.safe.number, want.number);
    assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(want.hash));
  });
});
