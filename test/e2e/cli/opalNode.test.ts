/**
 * opal-node as a process (bin/opal-node.mjs): on op-sepolia's bundled config it logs the config at
 * info, brings P2P up on loopback, serves /healthz, metrics and the opp2p namespace, and exits 0 on
 * SIGTERM. The command's in-process checks (help, bad values, startup failures):
 * test/unit/cli/opalNode.test.ts.
 */
import { strict as assert } from "node:assert";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT as ROOT } from "../../utils/fixtures.js";
import { tempDir } from "../../utils/node.js";

describe("cli/opalNode", function () {
  this.timeout(60_000);

  it("opal-node --network=op-sepolia: logs the bundled config at info, serves /healthz, exits 0 on SIGTERM", async () => {
    const dir = tempDir("opalnode-run");
    let child: ChildProcess | null = null;
    try {
      const secret = join(dir.path, "jwt.hex");
      child = spawn(
        process.execPath,
        [
          join(ROOT, "bin", "opal-node.mjs"),
          "--network=op-sepolia",
          "--l1=http://127.0.0.1:9",
          "--l1.beacon.ignore",
          "--l2=http://127.0.0.1:9",
          `--l2.jwt-secret=${secret}`,
          "--rpc.addr=127.0.0.1",
          "--rpc.port=0",
          "--log.format=logfmt",
          "--metrics.enabled",
          "--metrics.addr=127.0.0.1",
          "--metrics.port=0",
          // P2P on, on loopback, with its files in the temp dir.
          "--p2p.listen.ip=127.0.0.1",
          "--p2p.listen.tcp=0",
          "--p2p.no-discovery",
          `--p2p.priv.path=${join(dir.path, "p2p.key")}`,
          `--p2p.peerstore.path=${join(dir.path, "peerstore")}`,
        ],
        { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      let text = "";
      child.stdout?.on("data", (d) => (text += d));
      child.stderr?.on("data", (d) => (text += d));
      const deadline = Date.now() + 30_000;
      while (!/Rollup node started/.test(text) && Date.now() < deadline && child.exitCode === null) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.match(text, /Rollup node started/, text);
      const line = text.split("\n").find((l) => l.includes("Rollup config")) ?? "";
      assert.match(line, /lvl=info/);
      assert.match(line, /l2_chain_id=11155420/);
      assert.match(line, /l1_chain_id=11155111/);
      assert.match(line, /ecotone=1708534800/);
      assert.match(line, /isthmus=1744905600/);
      // P2P came up on loopback with a new network key in the temp dir.
      assert.match(text, /Generated a new P2P network key/);
      assert.match(text, /Started P2P host.*peerId=16Uiu2\w+.*\/ip4\/127\.0\.0\.1\/tcp\/\d+/);
      assert.match(readFileSync(join(dir.path, "p2p.key"), "utf8"), /^[0-9a-f]{64}$/);
      // The secret file did not exist: a new one was written.
      assert.match(readFileSync(secret, "utf8"), /^0x[0-9a-f]{64}$/);
      const rpcLine = text.split("\n").find((l) => l.includes("Started JSON-RPC server")) ?? "";
      const port = /:(\d+)/.exec(rpcLine.slice(rpcLine.indexOf("endpoint")))?.[1];
      const hz = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(await hz.text(), "v0.1.0-opal");
      // Metrics of the running binary: up, the version, and the RPC call just made.
      const mLine = text.split("\n").find((l) => l.includes("Started metrics server")) ?? "";
      const metricsUrl = /endpoint=(\S+)/.exec(mLine)?.[1];
      await fetch(`http://127.0.0.1:${port}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "optimism_version", params: [] }),
      });
      // The opp2p namespace is served with P2P on, for the host that started.
      const self = (await (
        await fetch(`http://127.0.0.1:${port}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "opp2p_self", params: [] }),
        })
      ).json()) as { result: { peerID: string; chainID: number } };
      assert.equal(self.result.peerID, /peerId=(\S+)/.exec(text)?.[1]);
      assert.equal(self.result.chainID, 11155420);
      const scrape = await (await fetch(metricsUrl!)).text();
      assert.match(scrape, /^op_node_default_p2p_peer_count 0$/m);
      assert.match(scrape, /^op_node_default_up 1$/m);
      assert.match(scrape, /^op_node_default_info\{version="v0\.1\.0-opal"\} 1$/m);
      assert.match(scrape, /^op_node_default_rpc_server_requests_total\{method="optimism_version"\} 1$/m);
      const exited = new Promise<number | null>((r) => child!.once("exit", (c) => r(c)));
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
    } finally {
      if (child !== null && child.exitCode === null) child.kill("SIGKILL");
      dir.remove();
    }
  });
});
