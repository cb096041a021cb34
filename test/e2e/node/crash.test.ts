/**
 * Crash test (end to end): `opal-exec --dev --dev.period 1` runs as a child process while txs are
 * sent to it, is killed with SIGKILL mid-way (twice), and the datadir must open again with a head
 * that is a fully stored block (header, body, receipts, canonical index) whose state can be built
 * on: the restarted node seals a further block with a new tx on top.
 */
import { strict as assert } from "node:assert";
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ExecNode } from "../../../src/node/exec/execNode.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { rpc } from "../../utils/jsonRpc.js";
import { configOf, devTransfer, tempDir, waitFor } from "../../utils/node.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = join(ROOT, "bin/opal-exec.mjs");

interface Child {
  proc: ChildProcess;
  url: Promise<string>;
  exited: Promise<number | null>;
}

function startChild(datadir: string, onLog: (text: string) => void = () => undefined): Child {
  const proc = spawn(
    process.execPath,
    [
      BIN,
      "--dev",
      "--dev.period",
      "1",
      "--datadir",
      datadir,
      "--http",
      "--http.port",
      "0",
      "--http.addr",
      "127.0.0.1",
      "--http.vhosts",
      "*",
      "--authrpc.port",
      "0",
      "--workers.sigrecover",
      "1",
      "--workers.triehash",
      "1",
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env } },
  );
  let log = "";
  const url = new Promise<string>((res, rej) => {
    proc.stderr!.on("data", (c: Buffer) => {
      log += c.toString("utf8");
      onLog(log);
      const m = /HTTP server started\s+endpoint=(\S+) auth=false/.exec(log);
      if (m) res(`http://${m[1]}/`);
    });
    proc.once("exit", (code) => rej(new Error(`opal-exec exited (${code}) before serving: ${log}`)));
  });
  const exited = new Promise<number | null>((res) => proc.once("exit", (code) => res(code)));
  return { proc, url, exited };
}

describe("node: kill -9 of a sealing dev node", function () {
  this.timeout(60_000);

  it("reopens on a fully stored head after SIGKILL, twice, and keeps sealing", async () => {
    const dir = tempDir("crash");
    const children: Child[] = [];
    try {
      let nonce = 0n;
      let lastHead = -1;
      for (let round = 0; round < 2; round++) {
        const c = startChild(dir.path);
        children.push(c);
        const url = await c.url;
        const start = Number.parseInt((await rpc(url, "eth_blockNumber")).json?.result as string, 16);
        assert.ok(start >= lastHead, `head went back from ${lastHead} to ${start}`);
        nonce = BigInt(
          (await rpc(url, "eth_getTransactionCount", [`0x${"f39fd6e51aad88f6f4ce6ab8827279cfffb92266"}`, "pending"]))
            .json?.result as string,
        );
        // Send txs while blocks are sealed, then kill at a time unrelated to the 1 s sealing rhythm.
        const until = Date.now() + 2300 + round * 450;
        while (Date.now() < until) {
          const r = await rpc(url, "eth_sendRawTransaction", [devTransfer(nonce)]);
          if (r.json?.result !== undefined) nonce++;
          await new Promise((res) => setTimeout(res, 40));
        }
        lastHead = Number.parseInt((await rpc(url, "eth_blockNumber")).json?.result as string, 16);
        c.proc.kill("SIGKILL");
        assert.equal(await c.exited, null);
      }

      const node = await ExecNode.start(configOf(["--dev", "--datadir", dir.path, "--http"]), {
        print: () => undefined,
      });
      try {
        const { chain } = node;
        const head = chain.head;
        const hash = chain.headBlockHash;
        assert.ok(head.number >= lastHead && head.number >= 2, `head ${head.number}, last seen ${lastHead}`);
        assert.notEqual(chain.store.body(hash), null, "head body stored");
        assert.notEqual(chain.store.receiptsRlp(hash), undefined, "head receipts stored");
        assert.equal(bytesToHex(chain.store.canonicalHash(head.number)!), bytesToHex(hash));
        let txs = 0;
        for (let n = 1; n <= head.number; n++)
          txs += chain.store.body(chain.store.canonicalHash(n)!)!.transactions.length;
        assert.ok(txs > 0, "some sent txs were sealed before the kills");
        // The state is the head's: a new tx with the next nonce seals on top.
        const url = `http://127.0.0.1:${node.endpoints.http!.port}/`;
        const next = BigInt(
          (await rpc(url, "eth_getTransactionCount", [bytesToHex(node.devKeys[0]!.address), "pending"])).json
            ?.result as string,
        );
        assert.equal(next, BigInt(txs));
        const sent = await rpc(url, "eth_sendRawTransaction", [devTransfer(next)]);
        assert.ok(sent.json?.result, sent.body);
        await waitFor(() => chain.head.number === head.number + 1, 10_000, "a block on the recovered head");
      } finally {
        await node.stop();
      }
    } finally {
      for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
      dir.remove();
    }
  });

  it("SIGTERM stops the node gracefully: exit 0 after the database is closed", async () => {
    const dir = tempDir("sigterm");
    let log = "";
    const c = startChild(dir.path, (l) => {
      log = l;
    });
    try {
      const url = await c.url;
      assert.equal((await rpc(url, "eth_chainId")).json?.result, "0x539");
      c.proc.kill("SIGTERM");
      const code = await Promise.race([c.exited, new Promise((r) => setTimeout(() => r("timeout"), 20_000))]);
      assert.equal(code, 0, `exit ${String(code)}; log:\n${log}`);
      assert.match(log, /Got interrupt, shutting down/);
      assert.match(log, /Database closed/);
    } finally {
      if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
      dir.remove();
    }
  });
});
