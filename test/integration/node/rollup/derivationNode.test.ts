/**
 * opal-node as an operator runs it, deriving: the action tests' L1 served over HTTP (so the node's
 * own L1 client, head polling and verification run), an opal-exec L2 engine behind its JWT, and the
 * node started from its command-line options. The batches the sequencer actor posts to L1 become the
 * node's safe chain, visible through optimism_syncStatus, the safe-head DB and the snapshot log.
 */
import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { main as opalExec } from "../../../../src/cli/opalExec.js";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import type { RollupNode } from "../../../../src/node/rollup/rollupNode.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { rollupConfigToJson } from "../../../../src/rollup/config/rollupConfig.js";
import { RpcHttpServer } from "../../../../src/rpc/httpServer.js";
import { Rollup } from "../../../utils/actions/rollup.js";
import { call } from "../../../utils/jsonRpc.js";
import { configOf, startRollupNode, tempDir } from "../../../utils/node.js";

const warnings: string[] = [];
const quiet = {
  error(m: string) {
    warnings.push(m);
  },
  warn(m: string, f?: Record<string, unknown>) {
    warnings.push(`${m} ${JSON.stringify(f ?? {})}`);
  },
  info() {},
  debug() {},
};

/** A proxy in front of the L1 that answers 503 while `failing` (an L1 provider outage). */
function flakyProxy(target: () => number): { server: Server; failing: boolean; failed: number } {
  const state = {
    failing: false,
    failed: 0,
    server: createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        if (state.failing) {
          state.failed++;
          res.writeHead(503).end("unavailable");
          return;
        }
        fetch(`http://127.0.0.1:${target()}`, { method: "POST", headers: { "content-type": "application/json" }, body })
          .then(async (r) => res.writeHead(r.status, { "content-type": "application/json" }).end(await r.text()))
          .catch(() => res.writeHead(502).end());
      });
    }),
  };
  return state;
}

describe("node: opal-node derives from an L1 over HTTP into an opal-exec engine", function () {
  this.timeout(120_000);
  const dir = tempDir("derive");
  let l1Server: RpcHttpServer;
  let exec: ExecNode;
  let node: RollupNode;
  const r = new Rollup();
  let l1Port = 0;
  const proxy = flakyProxy(() => l1Port);

  before(async () => {
    l1Server = new RpcHttpServer(
      { addr: "127.0.0.1", port: 0, apis: ["eth", "debug"] },
      { registry: r.miner.exec.registry },
    );
    l1Port = (await l1Server.listen()).port;
    await new Promise<void>((done) => proxy.server.listen(0, "127.0.0.1", () => done()));
    const proxyPort = (proxy.server.address() as AddressInfo).port;
    const genesisFile = join(dir.path, "l2-genesis.json");
    writeFileSync(genesisFile, JSON.stringify(r.l2Genesis));
    const io = { out: () => undefined, err: () => undefined };
    const el = join(dir.path, "el");
    assert.equal(await opalExec(["init", genesisFile, "--datadir", el, "--verbosity", "0"], {}, io), 0);
    const secret = join(dir.path, "jwt.hex");
    writeFileSync(secret, `0x${"22".repeat(32)}`);
    exec = await ExecNode.start(configOf(["--datadir", el, "--authrpc.jwtsecret", secret]), { print: () => undefined });
    const rollupFile = join(dir.path, "rollup.json");
    writeFileSync(rollupFile, JSON.stringify(rollupConfigToJson(r.cfg)));
    node = await startRollupNode(
      [
        `--rollup.config=${rollupFile}`,
        `--l1=http://127.0.0.1:${proxyPort}`,
        "--l1.beacon.ignore",
        "--l1.http-poll-interval=100ms",
        "--l1.epoch-poll-interval=200ms",
        `--l2=http://127.0.0.1:${exec.authServer.address().port}`,
        `--l2.jwt-secret=${secret}`,
        "--rpc.addr=127.0.0.1",
        "--rpc.port=0",
        `--safedb.path=${join(dir.path, "safedb")}`,
        `--snapshotlog.file=${join(dir.path, "snapshot.log")}`,
      ],
      r.cfg,
      quiet,
    );
  });

  after(async () => {
    await node?.stop();
    await exec?.stop();
    await l1Server?.close();
    proxy.server.close();
    dir.remove();
  });

  it("batches posted to L1 become the node's safe chain; L1 finality finalizes it; an L1 outage is retried", async () => {
    // The L1 provider fails first: the node logs, backs off and retries; nothing is derived meanwhile.
    proxy.failing = true;
    await new Promise((res) => setTimeout(res, 1500));
    assert.ok(proxy.failed > 0);
    assert.ok(
      warnings.some((w) => /derivation failed, retrying|poll failed/.test(w) && /503/.test(w)),
      warnings.join("\n"),
    );
    proxy.failing = false;
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock();
    await r.miner.mine(await r.batcher.batchTxs());
    const want = r.sequencer.unsafe;
    const url = `http://127.0.0.1:${node.rpcServer.address().port}`;
    let status: {
      safe_l2: { number: number; hash: string };
      finalized_l2: { number: number };
      head_l1: { number: number };
    } | null = null;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      status = (await call(url, "optimism_syncStatus")) as typeof status;
      if (status!.safe_l2.number >= want.number) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.equal(status!.safe_l2.number, want.number, `${JSON.stringify(status)}\n${warnings.slice(-8).join("\n")}`);
    assert.equal(status!.safe_l2.hash, bytesToHex(want.hash));
    assert.equal(status!.head_l1.number, r.miner.headRef().number);
    // The engine's own labels moved with the node.
    const safe = await call(`http://127.0.0.1:${exec.authServer.address().port}`, "eth_chainId").catch(() => null);
    assert.equal(safe, null, "authrpc needs the JWT (sanity)");

    // The safe-head DB answers by L1 block.
    const l1Batch = r.miner.headRef();
    const at = (await call(url, "optimism_safeHeadAtL1Block", [`0x${l1Batch.number.toString(16)}`])) as {
      safeHead: { number: number; hash: string };
    };
    assert.equal(at.safeHead.hash, bytesToHex(want.hash));

    // L1 finalizes the batch block: the derived chain is finalized.
    await r.miner.mine();
    await r.miner.finalize(l1Batch.number);
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      status = (await call(url, "optimism_syncStatus")) as typeof status;
      if (status!.finalized_l2.number >= want.number) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.equal(status!.finalized_l2.number, want.number);
    const snap = readFileSync(join(dir.path, "snapshot.log"), "utf8").trim().split("\n");
    assert.ok(snap.length >= 1);
    assert.equal(JSON.parse(snap.at(-1)!).msg, "Rollup State Snapshot");
  });
});
