/**
 * The rpcload part of `npm run reliability` (issue 26, acceptance line 1): an opal-exec dev chain
 * holding ~500k logs (124 txs of 4,000 LOG1 each), then 16 clients that send eth_getLogs and never
 * read the reply, while another connection times eth_blockNumber. Two rounds: every client over the
 * whole chain (a reply far past the cap), and every client over 15 blocks (~20 MB each, under the
 * cap). Rows: the node's peak RSS over its RSS before the round (bound: `RSS_BOUND_MB`) and
 * eth_blockNumber's p99 (bound: 50 ms). OPAL_RPCLOAD_BIN runs another build's launcher (A/B runs).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call as rpcCall } from "../utils/jsonRpc.js";
import type { Section, SectionResult } from "./section.js";
import { readRss } from "./soak.js";

const BIN = process.env.OPAL_RPCLOAD_BIN ?? join(import.meta.dirname, "..", "..", "bin", "opal-exec.mjs");
const PORTS = { http: 18745, auth: 18751 };
const CLIENTS = 16;
const TXS = 124;
const LOGS_PER_TX = 4000;
/**
 * What 16 non-reading clients may add to the node's RSS: the 128 MiB reply backlog, two queries being
 * built (their chunks, the joined text and the reply: ~3 x 25 MB each), and the heap's slack.
 */
export const RSS_BOUND_MB = 384;
const P99_BOUND_MS = 50;
/** How long each round keeps its clients (past the 10 s write timeout, so drops are seen). */
const ROUND_MS = 15_000;

/**
 * Runtime: PUSH2 4000; loop: LOG1(0, 0, counter); counter -= 1; jump while non-zero. ~790 gas a log.
 * Init code: copy the 19 runtime bytes to memory and return them.
 */
const RUNTIME = "610fa05b8060006000a16001900380600357" + "00";
const LOGGER_INIT = `0x6013600c60003960136000f3${RUNTIME}`;

const URL = `http://127.0.0.1:${PORTS.http}`;
const call = (method: string, params: unknown[] = []): Promise<unknown> => rpcCall(URL, method, params);

/** The process's VmRSS in MB (soak.ts `readRss`); 0 once it is gone. */
export function rssMb(pid: number): number {
  return (readRss(pid)?.rssKb ?? 0) / 1024;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `opal-exec --dev` (OPAL_RPCLOAD_BIN's) on `ports`, with `extra` flags; resolves once it answers. */
export async function startDevNode(
  dir: string,
  ports: { readonly http: number; readonly auth: number },
  extra: readonly string[] = ["--http.api=eth"],
): Promise<ChildProcess> {
  const proc = spawn(
    process.execPath,
    [
      BIN,
      "--dev",
      `--datadir=${dir}`,
      "--http",
      "--http.addr=127.0.0.1",
      `--http.port=${ports.http}`,
      "--authrpc.addr=127.0.0.1",
      `--authrpc.port=${ports.auth}`,
      "--verbosity=2",
      ...extra,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error("opal-exec exited");
    try {
      await rpcCall(`http://127.0.0.1:${ports.http}`, "eth_blockNumber");
      return proc;
    } catch {
      if (i > 600) throw new Error("opal-exec did not start");
      await sleep(100);
    }
  }
}

/** Deploys the logger from the first dev account over `rpc`: that account and the logger's address. */
export async function deployLogger(
  rpc: (method: string, params?: unknown[]) => Promise<unknown>,
): Promise<{ from: string; logger: string }> {
  const [from] = (await rpc("eth_accounts")) as string[];
  const deployHash = await rpc("eth_sendTransaction", [{ from, data: LOGGER_INIT, gas: "0x30000" }]);
  for (;;) {
    const r = (await rpc("eth_getTransactionReceipt", [deployHash])) as { contractAddress: string } | null;
    if (r !== null) return { from: from!, logger: r.contractAddress };
    await sleep(100);
  }
}

/** Deploys the logger and sends `TXS` calls to it; resolves with the number of logs stored. */
async function fill(): Promise<number> {
  const { from, logger: to } = await deployLogger(call);
  let logs = 0;
  // One at a time: dev mode seals a block per pending tx, so the chain has a block of 4,000 logs per tx.
  for (let i = 0; i < TXS; i++) {
    const h = await call("eth_sendTransaction", [{ from, to, gas: "0x325aa0" }]);
    for (;;) {
      const r = (await call("eth_getTransactionReceipt", [h])) as { logs: unknown[]; status: string } | null;
      if (r !== null) {
        logs += r.logs.length;
        break;
      }
      await sleep(100);
    }
  }
  return logs;
}

/** A client that sends eth_getLogs over `from..to` and reads nothing. */
async function nonReader(from: string, to: string): Promise<Socket> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "eth_getLogs",
    params: [{ fromBlock: from, toBlock: to }],
  });
  const s = connect(PORTS.http, "127.0.0.1");
  s.on("error", () => undefined);
  await new Promise((r) => s.once("connect", r));
  s.pause();
  s.write(
    `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  );
  return s;
}

/** What `probe` measured: eth_blockNumber's latencies and the node's RSS before and at its peak. */
export interface Probed {
  readonly baseMb: number;
  readonly peakMb: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly probes: number;
}

/**
 * Times eth_blockNumber over `url` every 10 ms, from its own connection, and samples the RSS of
 * process `pid` every 50 ms, until the returned `stop` is called.
 */
export function probe(url: string, pid: number): () => Promise<Probed> {
  const baseMb = rssMb(pid);
  let peakMb = baseMb;
  let running = true;
  const sampler = (async () => {
    while (running) {
      peakMb = Math.max(peakMb, rssMb(pid));
      await sleep(50);
    }
  })();
  const lat: number[] = [];
  const prober = (async () => {
    while (running) {
      const t0 = performance.now();
      await rpcCall(url, "eth_blockNumber");
      lat.push(performance.now() - t0);
      await sleep(10);
    }
  })();
  return async () => {
    running = false;
    await Promise.all([sampler, prober]);
    lat.sort((a, b) => a - b);
    const p99Ms = lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.99))] ?? Number.POSITIVE_INFINITY;
    return { baseMb, peakMb, p99Ms, maxMs: lat[lat.length - 1] ?? 0, probes: lat.length };
  };
}

async function round(pid: number, ranges: readonly [string, string][]): Promise<Probed> {
  await sleep(1000);
  const stop = probe(URL, pid);
  const socks = await Promise.all(ranges.map(([a, b]) => nonReader(a, b)));
  await sleep(ROUND_MS);
  const r = await stop();
  for (const s of socks) s.destroy();
  return r;
}

export const rpcLoadSection: Section = {
  name: "rpcload",
  async run(): Promise<SectionResult> {
    const dir = mkdtempSync(join(tmpdir(), "opal-rpcload-"));
    let proc: ChildProcess | null = null;
    try {
      proc = await startDevNode(dir, PORTS);
      const t0 = performance.now();
      const logs = await fill();
      const head = Number((await call("eth_blockNumber")) as string);
      if (logs !== TXS * LOGS_PER_TX) throw new Error(`stored ${logs} logs, want ${TXS * LOGS_PER_TX}`);
      console.log(`${logs} logs in blocks 1..${head}, stored in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      const whole: [string, string][] = Array.from({ length: CLIENTS }, () => ["earliest", "latest"]);
      // 15 blocks of 4,000 logs each: ~20 MB of reply, under the 25,000,000-character cap.
      const span = 15;
      const parts: [string, string][] = Array.from({ length: CLIENTS }, (_, i) => {
        const a = 1 + ((i * span) % Math.max(1, head - span));
        return [`0x${a.toString(16)}`, `0x${(a + span - 1).toString(16)}`];
      });
      const rows: Record<string, string | number>[] = [];
      let passed = 0;
      for (const [name, ranges] of [
        ["no clients (the machine's noise)", []],
        ["16 x earliest..latest", whole],
        [`16 x ${span}-block ranges`, parts],
      ] as const) {
        const r = await round(proc.pid!, ranges);
        const grew = r.peakMb - r.baseMb;
        const ok = grew <= RSS_BOUND_MB && r.p99Ms <= P99_BOUND_MS && proc.exitCode === null;
        if (ok) passed++;
        rows.push({
          round: name,
          result: ok ? "pass" : "FAIL",
          "RSS before (MB)": Math.round(r.baseMb),
          "peak RSS (MB)": Math.round(r.peakMb),
          "growth (MB)": Math.round(grew),
          [`bound (MB)`]: RSS_BOUND_MB,
          "eth_blockNumber p99 (ms)": Number(r.p99Ms.toFixed(1)),
          "max (ms)": Number(r.maxMs.toFixed(1)),
          probes: r.probes,
        });
      }
      return {
        section: "rpcload",
        rows,
        passed,
        summary: `${passed}/${rows.length} rounds within ${RSS_BOUND_MB} MB RSS growth and ${P99_BOUND_MS} ms p99 (${logs} logs)`,
      };
    } finally {
      proc?.kill("SIGTERM");
      await sleep(500);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
