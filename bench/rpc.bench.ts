/**
 * The `rpc` section: JSON-RPC throughput of `opal-exec --dev` beside anvil (@foundry-rs/anvil, the
 * same npm package everyone installs), each its own process on loopback, measured with autocannon
 * for 10 s per method (OPAL_BENCH_RPC_SECONDS) at 10 connections: eth_blockNumber, eth_getBalance of
 * a dev account, and eth_call to a deployed contract that returns a word. Rows: requests/s. Every
 * server first gets OPAL_BENCH_RPC_WARMUP seconds (default 2) of each case, not counted: the first
 * seconds of a fresh Node process compile and optimise its code, which is not what the rows measure.
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
const WARMUP_SECONDS = Number(process.env.OPAL_BENCH_RPC_WARMUP ?? 2);
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

interface LoadResult {
  /** Mean requests per second. */
  readonly rps: number;
  /** 99th percentile latency, ms. */
  readonly p99: number;
}

/** The counter `vary` gets: never reset, so no request repeats one of an earlier load (warm-up included). */
let varied = 0;

/**
 * autocannon on `method`; with `vary`, every request carries different params (a counter through
 * `vary`), so no server can answer from a cache of earlier replies.
 */
function load(
  url: string,
  method: string,
  params: unknown[],
  connections = CONNECTIONS,
  vary?: (i: number) => unknown[],
  seconds = SECONDS,
): Promise<LoadResult> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections,
        duration: seconds,
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        ...(vary === undefined
          ? {}
          : {
              requests: [
                {
                  setupRequest: (req: autocannon.Request) => ({
                    ...req,
                    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: vary(varied++) }),
                  }),
                } as autocannon.Request,
              ],
            }),
      },
      (err, res) => {
        if (err !== null && err !== undefined) reject(err);
        else if (res.non2xx > 0 || res.errors > 0)
          reject(new Error(`${method}: ${res.non2xx} non-2xx, ${res.errors} errors`));
        else resolve({ rps: res.requests.average, p99: res.latency.p99 });
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

function startOpal(port: number, evmCallThreads: number): Server {
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
      `--workers.evmcall=${evmCallThreads}`,
    ],
    { stdio: "ignore" },
  );
  return {
    name: `opal pool ${evmCallThreads}`,
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
  const results = new Map<string, number>();
  const underLoad = new Map<string, LoadResult>();
  const starts: (() => Server)[] = [() => startOpal(18545, 1), () => startOpal(18547, 2), () => startAnvil(18546)];
  const names: string[] = [];
  for (const start of starts) {
    const s = start();
    names.push(s.name);
    try {
      await waitReady(s.url);
      const contract = await deploy(s.url);
      const call: unknown[] = [{ to: contract, data: "0x" }, "latest"];
      // The contract ignores its calldata: a counter in it makes every call a new request.
      const distinct = (i: number): unknown[] => [
        { to: contract, data: `0x${i.toString(16).padStart(16, "0")}` },
        "latest",
      ];
      const cases: [string, string, unknown[], ((i: number) => unknown[]) | undefined][] = [
        ["eth_blockNumber", "eth_blockNumber", [], undefined],
        ["eth_getBalance", "eth_getBalance", [DEV0, "latest"], undefined],
        ["eth_call", "eth_call", call, undefined],
        ["eth_call distinct", "eth_call", call, distinct],
      ];
      if (WARMUP_SECONDS > 0) {
        for (const [, method, params, vary] of cases)
          await load(s.url, method, params, CONNECTIONS, vary, WARMUP_SECONDS);
      }
      for (const [label, method, params, vary] of cases) {
        const { rps } = await load(s.url, method, params, CONNECTIONS, vary, SECONDS);
        results.set(`${s.name}/${label}`, rps);
        rows.push({
          section: "rpc",
          name: `${label}, ${s.name}`,
          opsPerSec: rps,
          meanMs: 1000 / rps,
          items: 1,
          samples: SECONDS,
          ...(s.name === "anvil" ? {} : { baselineOf: `${label}, anvil` }),
        });
      }
      // The main thread stays free: eth_blockNumber from one connection while ten others make
      // distinct calls (none answered from a cache).
      const [bn] = await Promise.all([
        load(s.url, "eth_blockNumber", [], 1),
        load(s.url, "eth_call", call, CONNECTIONS, distinct),
      ]);
      underLoad.set(s.name, bn);
      rows.push({
        section: "rpc",
        name: `eth_blockNumber p99 ms under eth_call load, ${s.name}`,
        opsPerSec: bn.rps,
        meanMs: bn.p99,
        items: 1,
        samples: SECONDS,
      });
    } finally {
      s.proc.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 500));
      s.cleanup();
    }
  }
  console.log(`rpc summary (autocannon, ${CONNECTIONS} connections, ${SECONDS} s per method, loopback):`);
  for (const m of ["eth_blockNumber", "eth_getBalance", "eth_call", "eth_call distinct"]) {
    const a = results.get(`anvil/${m}`) ?? 0;
    const cols = names
      .filter((n) => n !== "anvil")
      .map((n) => {
        const o = results.get(`${n}/${m}`) ?? 0;
        return `${n} ${o.toFixed(0).padStart(7)} req/s (${(o / a).toFixed(2)}x)`;
      });
    console.log(`  ${m.padEnd(18)} ${cols.join("   ")}   anvil ${a.toFixed(0).padStart(7)} req/s`);
  }
  for (const [n, r] of underLoad) {
    console.log(
      `  eth_blockNumber under eth_call load, ${n}: p99 ${r.p99} ms (${r.rps.toFixed(0)} req/s on 1 connection)`,
    );
  }
  return rows;
}
