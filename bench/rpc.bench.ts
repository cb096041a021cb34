/**
 * The `rpc` section: JSON-RPC throughput of `opal-exec --dev` beside anvil (@foundry-rs/anvil, the
 * same npm package everyone installs), each its own process on loopback, measured with autocannon
 * for 10 s per method (OPAL_BENCH_RPC_SECONDS) at 10 connections: eth_blockNumber, eth_getBalance of
 * a dev account, and eth_call to a deployed contract that returns a word. Rows: requests/s.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { REPO_ROOT } from "../test/utils/fixtures.js";
import type { BenchRow } from "./lib.js";

const SECONDS = Number(process.env.OPAL_BENCH_RPC_SECONDS ?? 10);
const CONNECTIONS = 10;
const DEV0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
/** Initcode deploying a 10-byte runtime that returns the word 42. */
const INITCODE = "0x600a600c600039600a6000f3602a60005260206000f3";

async function post(url: string, method: string, params: unknown[]): Promise<unknown> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const j = (await r.json()) as { result?: unknown; error?: { message: string } };
  if (j.error !== undefined) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}

async function waitReady(url: string): Promise<void> {
  const end = Date.now() + 60_000;
  for (;;) {
    try {
      await post(url, "eth_blockNumber", []);
      return;
    } catch {
      if (Date.now() > end) throw new Error(`${url} did not start`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function deploy(url: string): Promise<string> {
  const hash = (await post(url, "eth_sendTransaction", [{ from: DEV0, data: INITCODE, gas: "0x30000" }])) as string;
  for (let i = 0; i < 100; i++) {
    const r = (await post(url, "eth_getTransactionReceipt", [hash])) as { contractAddress: string } | null;
    if (r !== null) return r.contractAddress;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error("deploy not mined");
}

function load(url: string, method: string, params: unknown[]): Promise<number> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: SECONDS,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      },
      (err, res) => {
        if (err !== null && err !== undefined) reject(err);
        else if (res.non2xx > 0 || res.errors > 0)
          reject(new Error(`${method}: ${res.non2xx} non-2xx, ${res.errors} errors`));
        else resolve(res.requests.average);
      },
    );
  });
}

interface Server {
  name: string;
  url: string;
  proc: ChildProcess;
  cleanup(): void;
}

function startOpal(port: number): Server {
  const dir = mkdtempSync(join(tmpdir(), "opal-rpcbench-"));
  const proc = spawn(
    process.execPath,
    [
      join(REPO_ROOT, "bin/opal-exec.mjs"),
      "--dev",
      "--http",
      "--http.port",
      String(port),
      "--datadir",
      dir,
      "--verbosity",
      "0",
      "--authrpc.port",
      "0",
    ],
    { stdio: "ignore" },
  );
  return {
    name: "opal",
    url: `http://127.0.0.1:${port}`,
    proc,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function startAnvil(port: number): Server {
  const bin = join(
    createRequire(import.meta.url).resolve("@foundry-rs/anvil-linux-amd64/package.json"),
    "../bin/anvil",
  );
  const proc = spawn(bin, ["--port", String(port), "--silent"], { stdio: "ignore" });
  return { name: "anvil", url: `http://127.0.0.1:${port}`, proc, cleanup: () => undefined };
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const lines: string[] = [];
  const results = new Map<string, number>();
  for (const start of [startOpal, startAnvil]) {
    const s = start(start === startOpal ? 18545 : 18546);
    try {
      await waitReady(s.url);
      const contract = await deploy(s.url);
      const cases: [string, unknown[]][] = [
        ["eth_blockNumber", []],
        ["eth_getBalance", [DEV0, "latest"]],
        ["eth_call", [{ to: contract, data: "0x" }, "latest"]],
      ];
      for (const [method, params] of cases) {
        const rps = await load(s.url, method, params);
        results.set(`${s.name}/${method}`, rps);
        rows.push({
          section: "rpc",
          name: `${method}, ${s.name}`,
          opsPerSec: rps,
          meanMs: 1000 / rps,
          items: 1,
          samples: SECONDS,
          ...(s.name === "opal" ? { baselineOf: `${method}, anvil` } : {}),
        });
      }
    } finally {
      s.proc.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 500));
      s.cleanup();
    }
  }
  for (const m of ["eth_blockNumber", "eth_getBalance", "eth_call"]) {
    const o = results.get(`opal/${m}`) ?? 0;
    const a = results.get(`anvil/${m}`) ?? 0;
    lines.push(
      `  ${m.padEnd(16)} opal ${o.toFixed(0).padStart(7)} req/s   anvil ${a.toFixed(0).padStart(7)} req/s   opal/anvil ${(o / a).toFixed(2)}x`,
    );
  }
  console.log(`rpc summary (autocannon, ${CONNECTIONS} connections, ${SECONDS} s per method, loopback):`);
  for (const l of lines) console.log(l);
  return rows;
}
