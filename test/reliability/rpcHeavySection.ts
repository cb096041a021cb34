/**
 * The rpcheavy part of `npm run reliability` (issue 26, deliverable 1's audit of the methods whose
 * cost grows with the request): an opal-exec dev chain with one big block (16 txs of 4,000 LOG1
 * each: 64,000 logs, ~51 M gas, ~512k executed opcodes), then each heavy method over it, one at a
 * time, while another connection times eth_blockNumber every 10 ms (a first row without a request
 * measures the machine's own noise). A row per method: how long the
 * answer took, its size (or its error), eth_blockNumber's p99 and max meanwhile, and the node's
 * peak RSS over its RSS before the request. A row passes when eth_blockNumber's p99 stays under
 * 50 ms and the RSS growth under `RSS_BOUND_MB`. OPAL_RPCLOAD_BIN runs another build (A/B runs).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call as rpcCall } from "../utils/jsonRpc.js";
import { deployLogger, probe, sleep, startDevNode } from "./rpcLoadSection.js";
import type { Section, SectionResult } from "./section.js";

const PORTS = { http: 18845, auth: 18851 };
const URL = `http://127.0.0.1:${PORTS.http}`;
const call = (method: string, params: unknown[] = []): Promise<unknown> => rpcCall(URL, method, params);
const TXS = 16;
const P99_BOUND_MS = 50;
/** What one heavy request may add to the node's RSS: a reply at the 25 MB cap, built and sent (~3x), and slack. */
const RSS_BOUND_MB = 256;

/** Deploys the logger and puts `TXS` calls of it in one block; the block's number, a tx and the logger. */
async function fillBlock(): Promise<{ block: number; tx: string; logger: string; from: string }> {
  const { from, logger } = await deployLogger(call);
  for (;;) {
    const hashes: string[] = [];
    for (let i = 0; i < TXS; i++)
      hashes.push((await call("eth_sendTransaction", [{ from, to: logger, gas: "0x325aa0" }])) as string);
    const blocks = new Map<number, number>();
    for (const h of hashes) {
      for (;;) {
        const r = (await call("eth_getTransactionReceipt", [h])) as { blockNumber: string } | null;
        if (r !== null) {
          const n = Number(r.blockNumber);
          blocks.set(n, (blocks.get(n) ?? 0) + 1);
          break;
        }
        await sleep(200);
      }
    }
    // The sends may straddle a block boundary of the dev period; then try again.
    const full = [...blocks].find(([, c]) => c === TXS);
    if (full !== undefined) return { block: full[0], tx: hashes[0]!, logger, from };
  }
}

interface Measured {
  readonly ms: number;
  readonly answer: string;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly growMb: number;
}

/** How long the first row measures eth_blockNumber alone (the machine's own noise). */
const NOISE_MS = 3000;

/** Sends `body` (one request or a batch; null: none, `NOISE_MS` of waiting) and measures it, eth_blockNumber from another connection, and RSS. */
async function measure(pid: number, body: unknown): Promise<Measured> {
  await sleep(500);
  const stop = probe(URL, pid);
  const t0 = performance.now();
  let text = "";
  if (body === null) await sleep(NOISE_MS);
  else {
    const res = await fetch(URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    text = await res.text();
  }
  const ms = performance.now() - t0;
  const p = await stop();
  return { ms, answer: describeReply(text), p99Ms: p.p99Ms, maxMs: p.maxMs, growMb: Math.max(0, p.peakMb - p.baseMb) };
}

/** A reply's size in MB, or its error(s). */
function describeReply(text: string): string {
  const mb = `${(text.length / 1e6).toFixed(1)} MB`;
  const errs = new Set<string>();
  for (const m of text.matchAll(/"error":\{"code":(-?\d+),"message":"([^"]{0,60})/g)) errs.add(`${m[1]} ${m[2]}`);
  return errs.size === 0 ? mb : `${mb}: ${[...errs].join("; ")}`;
}

const req = (method: string, params: unknown[], id = 1) => ({ jsonrpc: "2.0", id, method, params });

export const rpcHeavySection: Section = {
  name: "rpcheavy",
  async run(): Promise<SectionResult> {
    const dir = mkdtempSync(join(tmpdir(), "opal-rpcheavy-"));
    let proc: ChildProcess | null = null;
    try {
      proc = await startDevNode(dir, PORTS, [
        "--http.api=eth,debug,trace",
        "--dev.period=2",
        "--dev.gaslimit=60000000",
      ]);
      const { block, tx, logger, from } = await fillBlock();
      const n = `0x${block.toString(16)}`;
      console.log(`block ${block}: ${TXS} txs of 4,000 logs each`);
      const callTracer = { tracer: "callTracer", tracerConfig: { withLog: true } };
      const msg = { from, to: logger, gas: "0x325aa0" };
      const cases: [string, unknown][] = [
        ["no request (the machine's noise)", null],
        ["eth_getBlockReceipts", req("eth_getBlockReceipts", [n])],
        ["debug_traceBlockByNumber (struct logs)", req("debug_traceBlockByNumber", [n])],
        ["debug_traceBlockByNumber (callTracer, withLog)", req("debug_traceBlockByNumber", [n, callTracer])],
        ["debug_traceTransaction (struct logs)", req("debug_traceTransaction", [tx])],
        ["debug_traceCall (struct logs)", req("debug_traceCall", [msg, "latest"])],
        ["trace_block", req("trace_block", [n])],
        ["trace_transaction", req("trace_transaction", [tx])],
        [
          "trace_replayBlockTransactions (trace, stateDiff)",
          req("trace_replayBlockTransactions", [n, ["trace", "stateDiff"]]),
        ],
        ["trace_filter (the block)", req("trace_filter", [{ fromBlock: n, toBlock: n }])],
        [
          `eth_simulateV1 (${TXS} logger calls)`,
          req("eth_simulateV1", [{ blockStateCalls: [{ calls: Array.from({ length: TXS }, () => msg) }] }, "latest"]),
        ],
        [
          "batch of 4 debug_traceBlockByNumber (callTracer)",
          Array.from({ length: 4 }, (_, i) => req("debug_traceBlockByNumber", [n, callTracer], i + 1)),
        ],
        [
          "batch of 4 eth_getBlockReceipts",
          Array.from({ length: 4 }, (_, i) => req("eth_getBlockReceipts", [n], i + 1)),
        ],
      ];
      const only = process.env.OPAL_RPCHEAVY_ONLY;
      const rows: Record<string, string | number>[] = [];
      let passed = 0;
      for (const [name, body] of cases) {
        if (only !== undefined && !name.includes(only)) continue;
        const m = await measure(proc.pid!, body);
        const ok = m.p99Ms <= P99_BOUND_MS && m.growMb <= RSS_BOUND_MB && proc.exitCode === null;
        if (ok) passed++;
        rows.push({
          method: name,
          result: ok ? "pass" : "FAIL",
          "answer in (ms)": Math.round(m.ms),
          answer: m.answer,
          "eth_blockNumber p99 (ms)": Number(m.p99Ms.toFixed(1)),
          "max (ms)": Number(m.maxMs.toFixed(1)),
          "RSS growth (MB)": Math.round(m.growMb),
        });
        console.log(JSON.stringify(rows[rows.length - 1]));
      }
      return {
        section: "rpcheavy",
        rows,
        passed,
        summary: `${passed}/${rows.length} heavy requests within ${P99_BOUND_MS} ms eth_blockNumber p99 and ${RSS_BOUND_MB} MB RSS growth`,
      };
    } finally {
      proc?.kill("SIGTERM");
      await sleep(500);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
