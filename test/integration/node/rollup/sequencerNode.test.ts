/**
 * opal-node sequencing, as a process-level setup runs it: an L1 served over HTTP (the action
 * harness's, with its genesis at the current time), an opal-exec L2 engine behind its JWT, and
 * opal-node started from its options with `--sequencer.enabled`: blocks appear every block time on
 * the wall clock, admin_stopSequencer / admin_startSequencer pause and resume it, and a user tx sent
 * to the engine's pool lands in a sequenced block.
 */
import { strict as assert } from "node:assert";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { main as opalExec } from "../../../../src/cli/opalExec.js";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import type { RollupNode } from "../../../../src/node/rollup/rollupNode.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { rollupConfigToJson } from "../../../../src/rollup/config/rollupConfig.js";
import { RpcHttpServer } from "../../../../src/rpc/httpServer.js";
import { l2Transfer, Rollup } from "../../../utils/actions/rollup.js";
import { call } from "../../../utils/jsonRpc.js";
import { configOf, startRollupNode, tempDir } from "../../../utils/node.js";

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("node: opal-node --sequencer.enabled builds blocks on the wall clock", function () {
  this.timeout(120_000);
  const dir = tempDir("sequence");
  let l1Server: RpcHttpServer;
  let exec: ExecNode;
  let node: RollupNode;
  // Genesis now, so the sequencer has no backlog of empty blocks to build first.
  const r = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 1, blockTime: 1 });

  before(async () => {
    l1Server = new RpcHttpServer({ addr: "127.0.0.1", port: 0, apis: ["eth"] }, { registry: r.miner.exec.registry });
    const l1Port = (await l1Server.listen()).port;
    const genesisFile = join(dir.path, "l2-genesis.json");
    writeFileSync(genesisFile, JSON.stringify(r.l2Genesis));
    const io = { out: () => undefined, err: () => undefined };
    const el = join(dir.path, "el");
    assert.equal(await opalExec(["init", genesisFile, "--datadir", el, "--verbosity", "0"], {}, io), 0);
    const secret = join(dir.path, "jwt.hex");
    writeFileSync(secret, `0x${"33".repeat(32)}`);
    exec = await ExecNode.start(configOf(["--datadir", el, "--authrpc.jwtsecret", secret, "--http"]), {
      print: () => undefined,
    });
    const rollupFile = join(dir.path, "rollup.json");
    writeFileSync(rollupFile, JSON.stringify(rollupConfigToJson(r.cfg)));
    node = await startRollupNode(
      [
        `--rollup.config=${rollupFile}`,
        `--l1=http://127.0.0.1:${l1Port}`,
        "--l1.beacon.ignore",
        "--l1.http-poll-interval=200ms",
        `--l2=http://127.0.0.1:${exec.authServer.address().port}`,
        `--l2.jwt-secret=${secret}`,
        "--rpc.addr=127.0.0.1",
        "--rpc.port=0",
        "--rpc.enable-admin",
        "--sequencer.enabled",
        "--sequencer.l1-confs=0",
        "--experimental.sequencer-api",
      ],
      r.cfg,
      quiet,
    );
  });

  after(async () => {
    await node?.stop();
    await exec?.stop();
    await l1Server?.close();
    dir.remove();
  });

  it("sequences, stops and resumes on the admin API, and includes a user tx", async () => {
    const url = `http://127.0.0.1:${node.rpcServer.address().port}`;
    type Status = { unsafe_l2: { number: number; hash: string } };
    const s = await until(
      () => call(url, "optimism_syncStatus") as Promise<Status>,
      (v) => v.unsafe_l2.number >= 2,
    );
    assert.ok(s.unsafe_l2.number >= 2, `sequenced ${s.unsafe_l2.number} blocks`);
    assert.equal(await call(url, "admin_sequencerActive"), true);

    const stoppedAt = (await call(url, "admin_stopSequencer")) as string;
    const held = await until(
      () => call(url, "optimism_syncStatus") as Promise<Status>,
      () => false,
      2500,
    );
    assert.equal(held.unsafe_l2.hash, stoppedAt, "no block while stopped");
    await call(url, "admin_startSequencer", [stoppedAt]);

    const elUrl = `http://127.0.0.1:${exec.httpServer!.address().port}`;
    const txHash = (await call(elUrl, "eth_sendRawTransaction", [bytesToHex(l2Transfer(0n))])) as string;
    const receipt = await until(
      () =>
        call(elUrl, "eth_getTransactionReceipt", [txHash]) as Promise<{ status: string; blockNumber: string } | null>,
      (v) => v !== null,
    );
    assert.ok(receipt !== null, "the tx was sequenced");
    assert.equal(receipt.status, "0x1");
  });

  it("--experimental.sequencer-api: open, seal, commit and publish a block step by step", async () => {
    const url = `http://127.0.0.1:${node.rpcServer.address().port}`;
    type Status = { unsafe_l2: { number: number; hash: string } };
    const head = (await call(url, "admin_stopSequencer")) as string;
    const before = (await call(url, "optimism_syncStatus")) as Status;
    assert.equal(before.unsafe_l2.hash, head);
    const info = (await call(url, "opstack_openBlockV1", [{ hash: head, number: before.unsafe_l2.number }])) as {
      id: string;
      timestamp: string;
    };
    assert.match(info.id, /^0x[0-9a-f]{16}$/);
    const env = (await call(url, "opstack_sealBlockV1", [info])) as {
      executionPayload: { blockHash: string; parentHash: string };
    };
    assert.equal(env.executionPayload.parentHash, head);
    await call(url, "opstack_commitBlockV1", [{ envelope: env }]);
    await call(url, "opstack_publishBlockV1", [{ envelope: env }]);
    const after = await until(
      () => call(url, "optimism_syncStatus") as Promise<Status>,
      (v) => v.unsafe_l2.hash === env.executionPayload.blockHash,
      5000,
    );
    assert.equal(after.unsafe_l2.number, before.unsafe_l2.number + 1);
    await assert.rejects(call(url, "opstack_cancelBlockV1", [info]), /unknown block job/);
  });
});
