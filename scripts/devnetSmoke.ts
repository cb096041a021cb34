/**
 * `npm run devnet:smoke`: the devnet's acceptance check as a user would run it — `opal-devnet` (the
 * `npm start` command) on a fresh temporary data folder, its status lines read as they are printed,
 * until the verifier's safe head has advanced; prints how long that took and exits 0, or exits 1
 * after the limit (default 90 s, `DEVNET_SMOKE_LIMIT` seconds) with the last lines and log tails.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { printFailureContext } from "./devnetLogs.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LIMIT_S = Number(process.env.DEVNET_SMOKE_LIMIT ?? 90);
const dir = mkdtempSync(join(tmpdir(), "opal-devnet-"));
const started = Date.now();
const child = spawn(
  process.execPath,
  [join(ROOT, "bin", "opal-devnet.mjs"), "--datadir", dir, "--fresh", "--status-every", "2", ...process.argv.slice(2)],
  { stdio: ["ignore", "pipe", "pipe"] },
);
const lines: string[] = [];
let firstSafe: number | null = null;
let done = false;

function finish(ok: boolean, why: string): void {
  if (done) return;
  done = true;
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`${ok ? "PASS" : "FAIL"}: ${why} after ${secs} s`);
  if (!ok) printFailureContext(dir, lines);
  child.once("exit", () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(ok ? 0 : 1);
  });
  child.kill("SIGINT");
}

const onData = (d: Buffer): void => {
  for (const line of String(d).split("\n")) {
    if (line.trim() === "") continue;
    lines.push(line);
    const m = /verifier unsafe \d+ safe (\d+)/.exec(line);
    if (m === null) continue;
    const safe = Number(m[1]);
    if (firstSafe === null) firstSafe = safe;
    else if (safe > firstSafe) finish(true, `verifier safe head ${firstSafe} → ${safe}`);
  }
};
child.stdout.on("data", onData);
child.stderr.on("data", onData);
child.on("exit", (code) => {
  if (!done) {
    done = true;
    console.log(`FAIL: opal-devnet exited (${code}) after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.log(lines.slice(-20).join("\n"));
    rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  }
});
setTimeout(() => finish(false, `the verifier's safe head did not advance within ${LIMIT_S} s`), LIMIT_S * 1000).unref();
