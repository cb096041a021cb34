/**
 * opal-exec's metrics and profiler, as an operator starts them: `--metrics --metrics.addr` serves
 * geth's /debug/metrics/prometheus with the worker pools' figures and the head block;
 * `--pprof.enabled` serves the profiler and, with --metrics and no --metrics.addr, the same series;
 * `--pprof.type=cpu --pprof.path` writes a CPU profile at shutdown.
 */
import { strict as assert } from "node:assert";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { call } from "../../utils/jsonRpc.js";
import { tempDir } from "../../utils/node.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = join(ROOT, "bin/opal-exec.mjs");

interface Child {
  proc: ChildProcess;
  log: () => string;
  exited: Promise<number | null>;
}

function start(datadir: string, extra: string[]): Child {
  const proc = spawn(
    process.execPath,
    [
      BIN,
      "--dev",
      "--datadir",
      datadir,
      "--http",
      "--http.port",
      "0",
      "--http.addr",
      "127.0.0.1",
      "--authrpc.port",
      "0",
      "--verbosity",
      "4",
      ...extra,
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let text = "";
  proc.stdout?.on("data", (d) => (text += d));
  proc.stderr?.on("data", (d) => (text += d));
  const exited = new Promise<number | null>((r) => proc.once("exit", (c) => r(c)));
  return { proc, log: () => text, exited };
}

async function waitLog(c: Child, re: RegExp): Promise<RegExpExecArray> {
  const end = Date.now() + 30_000;
  for (;;) {
    const m = re.exec(c.log());
    if (m !== null) return m;
    if (Date.now() > end || c.proc.exitCode !== null) assert.fail(`no ${re} in:\n${c.log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("opal-exec: --metrics and --pprof.*", function () {
  this.timeout(90_000);

  it("serves pool and head metrics on --metrics.addr, and the profiler with the same series", async () => {
    const dir = tempDir("exec-metrics");
    const c = start(dir.path, [
      "--metrics",
      "--metrics.addr=127.0.0.1",
      "--metrics.port=0",
      "--pprof.enabled",
      "--pprof.addr=127.0.0.1",
      "--pprof.port=0",
      "--workers.evmcall=1",
    ]);
    try {
      const m = await waitLog(c, /Starting metrics server.*addr=(http:\/\/\S+)/);
      const p = await waitLog(c, /Started pprof server.*addr=(\S+)/);
      const http = await waitLog(c, /HTTP server started.*endpoint=(\S+)/);
      // One eth_call through the pool, so its counters move.
      await call(`http://${http[1]}`, "eth_call", [
        { to: "0x0000000000000000000000000000000000000001", data: "0x" },
        "latest",
      ]);
      const text = await (await fetch(m[1]!)).text();
      assert.match(text, /^chain_head_block 0$/m);
      for (const pool of ["sigRecover", "trieHash", "evmCall"]) {
        assert.match(text, new RegExp(`^opal_pool_threads\\{pool="${pool}"\\} \\d+$`, "m"), pool);
        assert.match(text, new RegExp(`^opal_pool_queue_length\\{pool="${pool}"\\} 0$`, "m"), pool);
      }
      assert.match(text, /^opal_pool_tasks_completed_total\{pool="evmCall"\} [1-9]\d*$/m);
      assert.match(text, /^opal_pool_task_run_seconds\{pool="evmCall",quantile="0\.99"\} [\d.e-]+$/m);
      assert.match(text, /^process_resident_memory_bytes \d+/m);
      const viaPprof = await (await fetch(`http://${p[1]}/debug/metrics/prometheus`)).text();
      assert.match(viaPprof, /^opal_pool_threads\{pool="evmCall"\} 1$/m);
      const index = await fetch(`http://${p[1]}/debug/pprof/`);
      assert.equal(index.status, 200);
      c.proc.kill("SIGTERM");
      assert.equal(await c.exited, 0);
    } finally {
      if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
      dir.remove();
    }
  });

  it("--pprof.type=cpu writes the profile at shutdown", async () => {
    const dir = tempDir("exec-pprof");
    const c = start(dir.path, ["--pprof.type=cpu", `--pprof.path=${dir.path}`]);
    try {
      await waitLog(c, /Profiling until shutdown/);
      await waitLog(c, /HTTP server started/);
      c.proc.kill("SIGTERM");
      assert.equal(await c.exited, 0);
      const file = join(dir.path, "cpu.prof");
      assert.ok(existsSync(file), c.log());
      // A gzipped pprof protobuf.
      const b = readFileSync(file);
      assert.deepEqual([b[0], b[1]], [0x1f, 0x8b]);
    } finally {
      if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
      dir.remove();
    }
  });

  it("an unusable metrics address fails with one line and a non-zero exit", async () => {
    const dir = tempDir("exec-metrics-bad");
    const c = start(dir.path, ["--metrics", "--metrics.addr=203.0.113.7", "--metrics.port=1"]);
    try {
      const code = await c.exited;
      assert.notEqual(code, 0);
      assert.match(c.log(), /opal-exec: .*metrics.*203\.0\.113\.7/);
    } finally {
      if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
      dir.remove();
    }
  });
});

describe("opal-exec: --db.engine", function () {
  this.timeout(90_000);

  it("runs the dev chain on LMDB, serves calls, and refuses the data directory to the other engine", async () => {
    const dir = tempDir("exec-lmdb");
    const c = start(dir.path, ["--db.engine=lmdb", "--http.api=eth,debug"]);
    try {
      const http = await waitLog(c, /HTTP server started.*endpoint=(\S+)/);
      const url = `http://${http[1]}`;
      assert.equal(await call(url, "eth_blockNumber"), "0x0");
      // A transfer sealed into block 1, then a call and a balance read on its state.
      const dev0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
      await call(url, "eth_sendTransaction", [
        { from: dev0, to: "0x00000000000000000000000000000000000000aa", value: "0x5" },
      ]);
      const end = Date.now() + 20_000;
      while ((await call(url, "eth_blockNumber")) === "0x0" && Date.now() < end)
        await new Promise((r) => setTimeout(r, 100));
      assert.equal(await call(url, "eth_getBalance", ["0x00000000000000000000000000000000000000aa", "latest"]), "0x5");
      assert.equal(
        await call(url, "eth_call", [{ to: "0x0000000000000000000000000000000000000004", data: "0xabcd" }, "latest"]),
        "0xabcd",
      );
      assert.ok(existsSync(join(dir.path, "chaindata", "data.mdb")), "LMDB files in chaindata");
      c.proc.kill("SIGTERM");
      assert.equal(await c.exited, 0);
      // The same directory with RocksDB: one line, non-zero exit.
      const r = start(dir.path, []);
      assert.notEqual(await r.exited, 0);
      assert.match(r.log(), /opal-exec: .*chaindata holds a lmdb database: start with --db\.engine=lmdb/);
    } finally {
      if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
      dir.remove();
    }
  });
});
