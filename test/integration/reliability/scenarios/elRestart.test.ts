/**
 * Reliability scenario: the execution client restarts under the rollup node. opal-node (verifier, then
 * sequencer) runs against an opal-exec on a data directory and fixed ports; opal-exec is stopped and
 * started again on the same directory and ports while opal-node keeps running. opal-node keeps
 * serving its RPC, retries, reconnects, and continues from the engine's head: the safe head is never
 * lost (it never goes back), batches posted during the outage are derived, and the sequencer's next
 * block builds on the head the engine had when it stopped.
 */
import { strict as assert } from "node:assert";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { main as opalExec } from "../../../../src/cli/opalExec.js";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import type { RollupNode } from "../../../../src/node/rollup/rollupNode.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { rollupConfigToJson } from "../../../../src/rollup/config/rollupConfig.js";
import { EngineClient } from "../../../../src/rollup/engine/engineClient.js";
import { RpcClient } from "../../../../src/rollup/transport/rpcClient.js";
import { RpcHttpServer } from "../../../../src/rpc/httpServer.js";
import { batchTxs } from "../../../reliability/scenarioHarness.js";
import { Rollup } from "../../../utils/actions/rollup.js";
import { call } from "../../../utils/jsonRpc.js";
import { configOf, startRollupNode, tempDir } from "../../../utils/node.js";

interface Status {
  unsafe_l2: { number: number; hash: string };
  safe_l2: { number: number; hash: string };
}

async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** An L1 over HTTP, an opal-exec that can be restarted on its directory and ports, and opal-node over them. */
class Setup {
  readonly dir = tempDir("scenario-el-restart");
  readonly warnings: string[] = [];
  l1Server!: RpcHttpServer;
  exec: ExecNode | null = null;
  node!: RollupNode;
  private execArgv: string[] = [];
  private ports = { auth: 0, http: 0 };
  /** optimism_syncStatus safe head numbers seen, in order. */
  readonly safeSeen: number[] = [];

  constructor(readonly r: Rollup) {}

  async start(nodeFlags: readonly string[]): Promise<void> {
    this.l1Server = new RpcHttpServer(
      { addr: "127.0.0.1", port: 0, apis: ["eth"] },
      { registry: this.r.miner.exec.registry },
    );
    const l1Port = (await this.l1Server.listen()).port;
    const genesisFile = join(this.dir.path, "l2-genesis.json");
    writeFileSync(genesisFile, JSON.stringify(this.r.l2Genesis));
    const el = join(this.dir.path, "el");
    const io = { out: () => undefined, err: () => undefined };
    assert.equal(await opalExec(["init", genesisFile, "--datadir", el, "--verbosity", "0"], {}, io), 0);
    const secret = join(this.dir.path, "jwt.hex");
    writeFileSync(secret, `0x${"44".repeat(32)}`);
    this.execArgv = ["--datadir", el, "--authrpc.jwtsecret", secret, "--http"];
    await this.startExec();
    const rollupFile = join(this.dir.path, "rollup.json");
    writeFileSync(rollupFile, JSON.stringify(rollupConfigToJson(this.r.cfg)));
    const log = {
      error: (m: string) => this.warnings.push(m),
      warn: (m: string, f?: Record<string, unknown>) => this.warnings.push(`${m} ${JSON.stringify(f ?? {})}`),
      info() {},
      debug() {},
    };
    this.node = await startRollupNode(
      [
        `--rollup.config=${rollupFile}`,
        `--l1=http://127.0.0.1:${l1Port}`,
        "--l1.beacon.ignore",
        "--l1.http-poll-interval=100ms",
        `--l2=http://127.0.0.1:${this.ports.auth}`,
        `--l2.jwt-secret=${secret}`,
        "--rpc.addr=127.0.0.1",
        "--rpc.port=0",
        ...nodeFlags,
      ],
      this.r.cfg,
      log,
    );
  }

  /** opal-exec on the data directory; after the first start, on the same ports. */
  async startExec(): Promise<void> {
    const base = configOf(this.execArgv);
    const cfg =
      this.ports.auth === 0 ? base : { ...base, "authrpc.port": this.ports.auth, "http.port": this.ports.http };
    this.exec = await ExecNode.start(cfg, { print: () => undefined });
    this.ports = { auth: this.exec.authServer.address().port, http: this.exec.httpServer!.address().port };
  }

  async stopExec(): Promise<void> {
    await this.exec!.stop();
    this.exec = null;
  }

  /** The engine's blocks over its public HTTP port. */
  engine(): EngineClient {
    return new EngineClient(new RpcClient(`http://127.0.0.1:${this.ports.http}`), this.r.cfg);
  }

  async status(): Promise<Status> {
    const s = (await call(`http://127.0.0.1:${this.node.rpcServer.address().port}`, "optimism_syncStatus")) as Status;
    this.safeSeen.push(s.safe_l2.number);
    return s;
  }

  /** The safe head never went back. */
  assertSafeNeverLost(): void {
    for (let i = 1; i < this.safeSeen.length; i++) {
      assert.ok(this.safeSeen[i]! >= this.safeSeen[i - 1]!, `safe head went back: ${this.safeSeen.join(",")}`);
    }
  }

  async stop(): Promise<void> {
    await this.node?.stop();
    await this.exec?.stop();
    await this.l1Server?.close();
    this.dir.remove();
  }
}

describe("reliability scenarios: the execution client restarts under opal-node", function () {
  this.timeout(60_000);

  it("[scenario] the execution client restarts under a verifier: opal-node keeps running, reconnects, keeps its safe head and derives what was posted meanwhile", async () => {
    const r = new Rollup();
    const s = new Setup(r);
    try {
      await s.start([]);
      await r.miner.mine();
      await r.sequencer.catchUpToL1();
      await r.miner.mine(await r.batcher.batchTxs());
      const first = r.sequencer.unsafe;
      await until(
        () => s.status(),
        (v) => v.safe_l2.number >= first.number,
        20_000,
        "the first batch",
      );

      await s.stopExec();
      // Batches keep coming while the engine is down.
      await r.sequencer.catchUpToL1();
      await r.sequencer.buildBlock();
      await r.miner.mine(await r.batcher.batchTxs());
      await r.sequencer.catchUpToL1();
      await r.miner.mine(await r.batcher.batchTxs());
      const want = r.sequencer.unsafe;
      await new Promise((res) => setTimeout(res, 1500));
      const down = await s.status();
      assert.equal(down.safe_l2.hash, bytesToHex(first.hash), "opal-node keeps serving, its safe head kept");
      assert.ok(
        s.warnings.some((w) => /derivation failed, retrying/.test(w)),
        `the engine outage is retried: ${s.warnings.slice(-5).join("\n")}`,
      );

      await s.startExec();
      const up = await until(
        () => s.status(),
        (v) => v.safe_l2.number >= want.number,
        30_000,
        "derivation after the restart",
      );
      assert.equal(up.safe_l2.hash, bytesToHex(want.hash));
      const engine = s.engine();
      for (let n = 1; n <= want.number; n++) {
        const got = await engine.l2BlockRefByNumber(n);
        assert.equal(
          bytesToHex(got.hash),
          bytesToHex((await r.sequencer.engine.l2BlockRefByNumber(n)).hash),
          `L2 ${n}`,
        );
      }
      const elSafe = await engine.blockRef("safe");
      assert.equal(bytesToHex(elSafe!.hash), bytesToHex(want.hash), "the engine's safe label follows");
      s.assertSafeNeverLost();
    } finally {
      await s.stop();
    }
  });

  it("[scenario] the execution client restarts under a sequencer: opal-node keeps running, reconnects, continues from the engine's head and keeps its safe head", async () => {
    // Genesis now, so the sequencer has no backlog of empty blocks.
    const r = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 1, blockTime: 1 });
    const s = new Setup(r);
    try {
      await s.start(["--sequencer.enabled", "--sequencer.l1-confs=0"]);
      const built = await until(
        () => s.status(),
        (v) => v.unsafe_l2.number >= 3,
        20_000,
        "sequenced blocks",
      );
      await r.miner.mine(await batchTxs(r, { engine: s.engine() }, 1, built.unsafe_l2.number));
      const safe = await until(
        () => s.status(),
        (v) => v.safe_l2.number >= built.unsafe_l2.number,
        20_000,
        "the batched blocks to become safe",
      );

      await s.stopExec();
      await new Promise((res) => setTimeout(res, 1500));
      const down = await s.status();
      assert.ok(down.safe_l2.number >= safe.safe_l2.number, "opal-node keeps serving, its safe head kept");
      const headAtStop = down.unsafe_l2;
      assert.ok(
        s.warnings.some((w) => /sequencer failed to build a block/.test(w)),
        `the sequencer met the outage: ${s.warnings.slice(-5).join("\n")}`,
      );

      await s.startExec();
      const engine = s.engine();
      const elHead = await engine.blockRef("latest");
      assert.ok(elHead!.number >= headAtStop.number, "the engine reopened at its stored head");
      const after = await until(
        () => s.status(),
        (v) => v.unsafe_l2.number >= elHead!.number + 2,
        20_000,
        "sequencing after the restart",
      );
      // The blocks after the restart extend the chain the engine had: no gap, no fork.
      const next = await engine.l2BlockRefByNumber(headAtStop.number + 1);
      assert.equal(bytesToHex(next.parentHash), headAtStop.hash, "continued from the engine's head");
      assert.ok(after.safe_l2.number >= safe.safe_l2.number);

      // Batching the new blocks: they become safe, so derivation runs again too.
      const from = after.safe_l2.number + 1;
      await r.miner.mine(await batchTxs(r, { engine }, from, after.unsafe_l2.number));
      await until(
        () => s.status(),
        (v) => v.safe_l2.number >= after.unsafe_l2.number,
        20_000,
        "safe after the restart",
      );
      s.assertSafeNeverLost();
    } finally {
      await s.stop();
    }
  });
});
