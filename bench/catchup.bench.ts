/**
 * `npm run bench -- catchup`: a verifier catching up from L1 (issue 25). A rollup is run in one
 * process with the action actors (test/utils/actions/rollup.ts — the L1 miner on its own opal-exec,
 * the sequencer's opal-exec and engine controller, the batcher): 2,000 L2 blocks
 * (`OPAL_BENCH_CATCHUP_BLOCKS`, 2 s apart, each the L1-attributes deposit as on an idle devnet)
 * are sequenced and batched to L1 as span batches, a channel every 10 L1 blocks. Then a verifier
 * derives them all: opal-node's `Driver` over the real L1 client (not trusting it: every header,
 * tx list and receipt list is checked), driving a fresh `opal-exec` process (RocksDB) initialised
 * from the L2 genesis through its Engine API over HTTP with a JWT, as opal-node runs. Prints
 * `catch-up: <N> blocks, <X> blocks/s`: safe blocks derived over the wall time of the derivation.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Driver } from "../src/rollup/driver/driver.js";
import { EngineClient } from "../src/rollup/engine/engineClient.js";
import { L1Source } from "../src/rollup/l1/l1Source.js";
import { RpcClient } from "../src/rollup/transport/rpcClient.js";
import { Rollup, SILENT_LOG } from "../test/utils/actions/rollup.js";
import { makeTmpDir, removeDir } from "../test/utils/tmpDir.js";
import { ExecProcess } from "./execProcess.js";
import type { BenchRow } from "./lib.js";

/** L1 blocks between two batcher channels (each L1 block holds 6 L2 blocks at 2 s). */
const BATCH_EVERY_L1 = 10;
const BIN = join(import.meta.dirname, "..", "bin", "opal-exec.mjs");

export async function run(): Promise<BenchRow[]> {
  const n = Number(process.env.OPAL_BENCH_CATCHUP_BLOCKS ?? 2_000);
  const r = new Rollup({ blockTime: 2 });
  const t0 = performance.now();
  for (let l1 = 1; r.sequencer.unsafe.number < n; l1++) {
    await r.miner.mine(l1 % BATCH_EVERY_L1 === 0 ? await r.batcher.batchTxs({ span: true }) : []);
    await r.sequencer.catchUpToL1();
  }
  // The last blocks batched, and one more L1 block after their channel.
  await r.miner.mine(await r.batcher.batchTxs({ span: true }));
  await r.miner.mine();
  const built = r.sequencer.unsafe.number;
  console.log(
    `catch-up: sequenced and batched ${built} L2 blocks on ${r.miner.headRef().number} L1 blocks in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const dir = makeTmpDir();
  try {
    const genesisFile = join(dir, "genesis.json");
    writeFileSync(genesisFile, JSON.stringify(r.l2Genesis));
    const datadir = join(dir, "verifier-el");
    const init = spawnSync(process.execPath, [BIN, "init", "--datadir", datadir, genesisFile], { encoding: "utf8" });
    if (init.status !== 0) throw new Error(`catch-up: opal-exec init: ${init.stderr}`);
    const node = await ExecProcess.start(datadir);
    try {
      const engine = new EngineClient(new RpcClient(node.auth, { jwtSecret: node.secret }), r.cfg);
      const l1 = new L1Source(r.l1Client(false), 0, () => r.miner.headRef());
      const driver = new Driver(
        r.cfg,
        { l1, l2: engine, engine, blobs: null, altDa: null, l1Chain: null, log: SILENT_LOG },
        {},
      );
      const t1 = performance.now();
      const res = await driver.stepUntilIdle();
      const s = (performance.now() - t1) / 1000;
      if (res.kind === "critical" || res.kind === "temporary") throw res.error;
      const safe = driver.controller.state.safe.number;
      if (safe < built) throw new Error(`catch-up: the verifier's safe head is ${safe}, the sequencer built ${built}`);
      console.log(`catch-up: ${safe} blocks, ${(safe / s).toFixed(0)} blocks/s`);
      return [
        {
          section: "catchup",
          name: `derive ${safe} L2 blocks from L1`,
          opsPerSec: safe / s,
          meanMs: (s * 1000) / safe,
          items: 1,
          samples: safe,
        },
      ];
    } finally {
      await node.stop();
    }
  } finally {
    removeDir(dir);
  }
}
