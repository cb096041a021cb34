/**
 * `npm run devnet:p2p-lag`: how far the verifier's unsafe head trails the sequencer's in the devnet
 * (`npm start`), where only P2P gossip carries unsafe blocks between them. Starts `opal-devnet` on a
 * fresh temporary data folder, waits until the verifier has joined (its unsafe head within one block
 * time of the sequencer's: the blocks built before it connected come over req-resp), then for
 * `DEVNET_LAG_SECONDS` (default 300) reads both rollup nodes' `optimism_syncStatus` at the same
 * moment every 250 ms and records the lag: the sequencer's unsafe timestamp minus the verifier's.
 * Prints the samples, the maximum and the 99th percentile, and exits 0 when the verifier was never
 * more than one block time behind; 1 otherwise (with log tails).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEVNET_PORTS } from "../src/node/devnet/devnet.js";
import { printFailureContext } from "./devnetLogs.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SECONDS = Number(process.env.DEVNET_LAG_SECONDS ?? 300);
const BLOCK_TIME = Number(process.env.DEVNET_BLOCK_TIME ?? 2);
const dir = mkdtempSync(join(tmpdir(), "opal-devnet-lag-"));
const child = spawn(
  process.execPath,
  [join(ROOT, "bin", "opal-devnet.mjs"), "--datadir", dir, "--fresh", "--block-time", String(BLOCK_TIME)],
  { stdio: ["ignore", "pipe", "pipe"] },
);
const lines: string[] = [];
const collect = (d: Buffer): void => {
  for (const l of String(d).split("\n")) if (l.trim() !== "") lines.push(l);
};
child.stdout.on("data", collect);
child.stderr.on("data", collect);

interface Head {
  number: number;
  timestamp: number;
}

async function unsafeHead(port: number): Promise<Head | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "optimism_syncStatus", params: [] }),
      signal: AbortSignal.timeout(2000),
    });
    const j = (await res.json()) as { result?: { unsafe_l2: Head } };
    return j.result?.unsafe_l2 ?? null;
  } catch {
    return null;
  }
}

function stop(code: number, why: string): void {
  console.log(`${code === 0 ? "PASS" : "FAIL"}: ${why}`);
  if (code !== 0) printFailureContext(dir, lines);
  child.once("exit", () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  });
  child.kill("SIGINT");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const startBy = Date.now() + 120_000;
  for (;;) {
    if (Date.now() > startBy) return stop(1, "the verifier did not catch up with the sequencer over P2P within 120 s");
    const [s, v] = await Promise.all([unsafeHead(DEVNET_PORTS.seqNode), unsafeHead(DEVNET_PORTS.verNode)]);
    if (s !== null && v !== null && v.number > 0 && s.timestamp - v.timestamp <= BLOCK_TIME) break;
    await sleep(250);
  }
  console.log(`measuring for ${SECONDS} s (block time ${BLOCK_TIME} s)…`);
  const lags: number[] = [];
  let worst = { lag: 0, seq: 0, ver: 0 };
  const end = Date.now() + SECONDS * 1000;
  while (Date.now() < end) {
    const [s, v] = await Promise.all([unsafeHead(DEVNET_PORTS.seqNode), unsafeHead(DEVNET_PORTS.verNode)]);
    if (s !== null && v !== null) {
      const lag = Math.max(0, s.timestamp - v.timestamp);
      lags.push(lag);
      if (lag > worst.lag) worst = { lag, seq: s.number, ver: v.number };
    }
    await sleep(250);
  }
  if (lags.length === 0) return stop(1, "no samples");
  const sorted = [...lags].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
  const behind = lags.filter((l) => l > 0).length;
  const summary =
    `${lags.length} samples over ${SECONDS} s: max lag ${worst.lag} s (sequencer #${worst.seq}, verifier #${worst.ver}), ` +
    `p99 ${p99} s, behind in ${behind} samples; limit one block time = ${BLOCK_TIME} s`;
  stop(worst.lag <= BLOCK_TIME ? 0 : 1, summary);
}

void main();
