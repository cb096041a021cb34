/**
 * Action tests of L1 SystemConfig updates (op-e2e actions system-config tests): `ConfigUpdate` logs
 * in an L1 block change the batcher that authenticates batch data (from that L1 block on), the gas
 * limit of the L2 blocks of the next epoch, and the fee scalars of its L1-info deposit; a malformed
 * update is skipped. The sequencer and a verifier must agree block by block.
 */
import { strict as assert } from "node:assert";
import type { DevAccount } from "../../../../src/node/exec/devGenesis.js";
import { concatBytes, padLeft } from "../../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { bigintToBytes32 } from "../../../../src/primitives/u256.js";
import { encodeFramesTxData, type Frame } from "../../../../src/rollup/derive/frame.js";
import { CONFIG_UPDATE_TOPIC, ConfigUpdateType } from "../../../../src/rollup/derive/systemConfig.js";
import { L1InfoFormat, parseL1BlockInfo } from "../../../../src/tx/l1BlockInfo.js";
import { BATCH_INBOX, L1Miner, SYSTEM_CONFIG } from "../../../utils/actions/l1Miner.js";
import { Rollup, recordingLog, type Verifier } from "../../../utils/actions/rollup.js";

const hex = (b: Uint8Array): string => bytesToHex(b);

/** The genesis scalars of the harness (version 1: blob 810949, base 1368). */
const GENESIS_BASE_SCALAR = 1368;
const GENESIS_BLOB_SCALAR = 810_949;

type Log = { lines: string[] };

function configUpdateTx(r: Rollup, type: number, payload: Uint8Array): Uint8Array {
  return r.miner.tx(r.miner.accounts[0]!, SYSTEM_CONFIG, L1Miner.configUpdateCall(type, payload, CONFIG_UPDATE_TOPIC));
}

/** A batcher tx carrying `frames`, signed by `from` (whoever that is). */
function batchTxFrom(r: Rollup, from: DevAccount, frames: readonly Frame[]): Uint8Array {
  const data = encodeFramesTxData(frames);
  return r.miner.tx(from, BATCH_INBOX, data, 21_000n + 40n * BigInt(data.length) + 100_000n);
}

/** Version-1 Ecotone scalar word: blobBaseFeeScalar at [24..28), baseFeeScalar at [28..32). */
function scalarV1(base: number, blob: number): Uint8Array {
  const s = new Uint8Array(32);
  s[0] = 1;
  const dv = new DataView(s.buffer);
  dv.setUint32(24, blob);
  dv.setUint32(28, base);
  return s;
}

async function sync(v: Verifier, log: Log): Promise<void> {
  try {
    await v.sync();
  } catch (e) {
    console.log(log.lines.join("\n"));
    throw e;
  }
}

/** The verifier's safe chain equals the sequencer's up to `upTo`, block by block. */
async function assertSameChain(r: Rollup, v: Verifier, upTo: number): Promise<void> {
  assert.equal(v.heads.safe.number, upTo, "verifier safe head");
  for (let n = 1; n <= upTo; n++) {
    const want = await r.sequencer.engine.mustBlock(n);
    const got = await v.engine.mustBlock(n);
    assert.equal(hex(got.ref.hash), hex(want.ref.hash), `block ${n} hash`);
    assert.equal(got.gasLimit, want.gasLimit, `block ${n} gas limit`);
    assert.deepEqual(
      (await v.engine.transactionsByNumber(n)).map(hex),
      (await r.sequencer.engine.transactionsByNumber(n)).map(hex),
      `block ${n} txs`,
    );
  }
}

/** The first L2 block of the sequencer whose L1 origin is `l1Number`. */
async function firstOfEpoch(r: Rollup, l1Number: number): Promise<number> {
  for (let n = 1; n <= r.sequencer.unsafe.number; n++) {
    if ((await r.sequencer.engine.mustBlock(n)).ref.l1origin.number === l1Number) return n;
  }
  throw new Error(`no L2 block with L1 origin ${l1Number}`);
}

async function l1InfoOf(v: Verifier, n: number) {
  const b = await v.engine.mustBlock(n);
  assert.ok(b.firstTxInput !== null);
  const info = parseL1BlockInfo(b.firstTxInput);
  assert.ok(info !== null, `block ${n} L1 info parses`);
  return info;
}

describe("actions: system config updates", function () {
  this.timeout(60_000);

  it("(a) batcher rotation: after the update only the new batcher's data is derived", async () => {
    const r = new Rollup();
    const oldBatcher = r.batcherAccount;
    const newBatcher = r.miner.accounts[2]!;
    const log = recordingLog();
    const v = r.verifier(log);
    // L1 1: blocks 1–5 from the genesis batcher are derived.
    while (r.sequencer.unsafe.number < 5) await r.sequencer.buildBlock();
    await r.miner.mine(await r.batcher.batchTxs());
    await sync(v, log);
    await assertSameChain(r, v, 5);
    // L1 2: the rotation, then old-batcher data in the same block: ignored.
    await r.sequencer.catchUpToL1();
    while (r.sequencer.unsafe.number < 11) await r.sequencer.buildBlock();
    const rotate = configUpdateTx(r, ConfigUpdateType.Batcher, padLeft(newBatcher.address, 32));
    const l1Rotate = await r.miner.mine([rotate, batchTxFrom(r, oldBatcher, await r.batcher.channelFrames())]);
    await sync(v, log);
    assert.equal(v.driver.syncStatus().currentL1.number, l1Rotate.number);
    assert.equal(v.heads.safe.number, 5, "old batcher's data in the rotation block is ignored");
    // L1 3: old batcher again: ignored.
    r.batcher.submitted = 5;
    await r.miner.mine([batchTxFrom(r, oldBatcher, await r.batcher.channelFrames())]);
    await sync(v, log);
    assert.equal(v.driver.syncStatus().currentL1.number, l1Rotate.number + 1);
    assert.equal(v.heads.safe.number, 5, "old batcher's data after the rotation is ignored");
    // L1 4: the same blocks from the new batcher: derived.
    r.batcher.submitted = 5;
    await r.miner.mine([batchTxFrom(r, newBatcher, await r.batcher.channelFrames())]);
    await sync(v, log);
    await assertSameChain(r, v, 11);
    // The next epochs' L1-info deposits name the new batcher; blocks continue from it.
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock();
    await r.miner.mine([batchTxFrom(r, newBatcher, await r.batcher.channelFrames({ span: true }))]);
    await sync(v, log);
    const upTo = r.sequencer.unsafe.number;
    await assertSameChain(r, v, upTo);
    const first = await firstOfEpoch(r, l1Rotate.number);
    assert.equal(hex((await l1InfoOf(v, first - 1)).batcherHash), hex(padLeft(oldBatcher.address, 32)));
    assert.equal(hex((await l1InfoOf(v, first)).batcherHash), hex(padLeft(newBatcher.address, 32)));
    assert.equal(hex((await l1InfoOf(v, upTo)).batcherHash), hex(padLeft(newBatcher.address, 32)));
  });

  describe("gas limit, fee scalars and a malformed update", () => {
    const GAS_LIMIT = 40_000_000n;
    const GAS_LIMIT_2 = 35_000_000n;
    let r: Rollup;
    let v: Verifier;
    let log: ReturnType<typeof recordingLog>;
    /** L1 numbers of the gas-limit, scalar and malformed-update blocks. */
    let l1Gas: number;
    let l1Scalar: number;
    let l1Bad: number;

    before(async () => {
      r = new Rollup();
      log = recordingLog();
      v = r.verifier(log);
      while (r.sequencer.unsafe.number < 3) await r.sequencer.buildBlock();
      // L1 1: gas limit update.
      l1Gas = (
        await r.miner.mine([
          configUpdateTx(r, ConfigUpdateType.GasLimit, bigintToBytes32(GAS_LIMIT)),
          ...(await r.batcher.batchTxs()),
        ])
      ).number;
      await r.sequencer.catchUpToL1();
      await r.sequencer.buildBlock();
      // L1 2: fee scalars, with a non-zero overhead that Ecotone zeroes.
      const payload = concatBytes(bigintToBytes32(2100n), scalarV1(4242, 7777));
      l1Scalar = (
        await r.miner.mine([
          configUpdateTx(r, ConfigUpdateType.FeeScalars, payload),
          ...(await r.batcher.batchTxs({ span: true })),
        ])
      ).number;
      await r.sequencer.catchUpToL1();
      await r.sequencer.buildBlock();
      // L1 3: malformed updates (each would change something if applied), then a valid one.
      const badBatcher = new Uint8Array(32);
      badBatcher.fill(0xee);
      const badScalar = scalarV1(1, 1);
      badScalar[5] = 1;
      const bad = [
        configUpdateTx(r, ConfigUpdateType.Batcher, badBatcher),
        configUpdateTx(r, ConfigUpdateType.GasLimit, bigintToBytes32(20_000_000n).subarray(1)),
        configUpdateTx(r, ConfigUpdateType.FeeScalars, concatBytes(new Uint8Array(32), badScalar)),
        configUpdateTx(r, 9, bigintToBytes32(1n)),
        configUpdateTx(r, ConfigUpdateType.GasLimit, bigintToBytes32(GAS_LIMIT_2)),
      ];
      l1Bad = (await r.miner.mine([...bad, ...(await r.batcher.batchTxs())])).number;
      await r.sequencer.catchUpToL1();
      await r.sequencer.buildBlock();
      await r.sequencer.buildBlock();
      await r.miner.mine(await r.batcher.batchTxs());
      await sync(v, log);
    });

    it("the verifier derives the sequencer's chain through all updates", async () => {
      assert.equal(l1Bad, 3);
      assert.ok(r.sequencer.unsafe.number > (await firstOfEpoch(r, l1Bad)));
      await assertSameChain(r, v, r.sequencer.unsafe.number);
    });

    it("(b) the gas limit changes at the first L2 block of the next epoch, on sequencer and verifier", async () => {
      const first = await firstOfEpoch(r, l1Gas);
      assert.ok(first > 1);
      for (const engine of [r.sequencer.engine, v.engine]) {
        for (let n = 1; n < first; n++) assert.equal((await engine.mustBlock(n)).gasLimit, 30_000_000n, `block ${n}`);
        const until = await firstOfEpoch(r, l1Bad);
        for (let n = first; n < until; n++) assert.equal((await engine.mustBlock(n)).gasLimit, GAS_LIMIT, `block ${n}`);
      }
    });

    it("(c) the fee scalars appear in the next epoch's L1-info deposit", async () => {
      const first = await firstOfEpoch(r, l1Scalar);
      const before = await l1InfoOf(v, first - 1);
      assert.equal(before.format, L1InfoFormat.Jovian);
      assert.equal(before.baseFeeScalar, GENESIS_BASE_SCALAR);
      assert.equal(before.blobBaseFeeScalar, GENESIS_BLOB_SCALAR);
      const after = await l1InfoOf(v, first);
      assert.equal(after.baseFeeScalar, 4242);
      assert.equal(after.blobBaseFeeScalar, 7777);
      assert.equal(after.l1FeeOverhead, 0n);
      const last = await l1InfoOf(v, r.sequencer.unsafe.number);
      assert.equal(last.baseFeeScalar, 4242, "the malformed scalar update was skipped");
      assert.equal(last.blobBaseFeeScalar, 7777);
    });

    it("(d) malformed updates are skipped with a warning; the valid update after them applies", async () => {
      const first = await firstOfEpoch(r, l1Bad);
      const last = r.sequencer.unsafe.number;
      assert.ok(last > first);
      for (const engine of [r.sequencer.engine, v.engine]) {
        assert.equal((await engine.mustBlock(first - 1)).gasLimit, GAS_LIMIT);
        assert.equal((await engine.mustBlock(first)).gasLimit, GAS_LIMIT_2);
        assert.equal((await engine.mustBlock(last)).gasLimit, GAS_LIMIT_2);
      }
      const info = await l1InfoOf(v, last);
      assert.equal(hex(info.batcherHash), hex(padLeft(r.batcherAccount.address, 32)), "batcher unchanged");
      const warnings = log.lines.filter((l) => l.startsWith("warn") && l.includes("malformed ConfigUpdate"));
      for (const what of ["batcher", "gas limit", "fee scalars", "unknown ConfigUpdate type"]) {
        assert.ok(
          warnings.some((l) => l.includes(what)),
          `a warning for the ${what} update:\n${log.lines.join("\n")}`,
        );
      }
    });
  });
});
