/**
 * The execution-apis rpc-compat suite, replayed the way hive's rpc-compat simulator does it against
 * a real client: `opal-exec init genesis.json`, `opal-exec import chain.rlp`, start the node with
 * HTTP open (every namespace the suite uses, `testing` included), send headfcu.json to the Engine
 * API with a JWT, then POST every `.io` request over HTTP in file order and compare the response
 * (the whole JSON deep-equal; a file marked `speconly` only for result-vs-error kind). One node
 * serves the whole suite, as in hive: transactions sent by one file stay in the pool for the next.
 *
 * Usage: tsx scripts/rpcCompat.ts [DIR] [--verbose] [--full] [--filter SUBSTR]
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseExecArgs } from "../src/cli/execFlags.js";
import { main as opalExec } from "../src/cli/opalExec.js";
import { signJwt } from "../src/engine/jwt.js";
import { ExecNode } from "../src/node/exec/execNode.js";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Namespaces the node serves on its HTTP port for the suite (the Engine API has its own). */
export const SERVED_APIS = ["eth", "net", "web3", "txpool", "debug", "trace", "testing"];

export function defaultSuiteDir(): string {
  const base = process.env.OPAL_FIXTURES ?? resolve(REPO_ROOT, "../shared/fixtures");
  return join(base, "execution-apis-rpc", "tests");
}

export interface Exchange {
  readonly request: string;
  readonly response: string;
}

export interface CaseFile {
  readonly method: string;
  readonly name: string;
  readonly specOnly: boolean;
  readonly exchanges: Exchange[];
}

export interface ExchangeResult {
  readonly file: string;
  readonly method: string;
  readonly ok: boolean;
  readonly got: string;
  readonly want: string;
}

export function parseIo(text: string): { specOnly: boolean; exchanges: Exchange[] } {
  const exchanges: Exchange[] = [];
  let pending: string | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("//")) continue;
    if (line.startsWith(">> ")) pending = line.slice(3);
    else if (line.startsWith("<< ")) {
      if (pending === null) throw new Error("response before request");
      exchanges.push({ request: pending, response: line.slice(3) });
      pending = null;
    }
  }
  return { specOnly: text.includes("speconly"), exchanges };
}

export function loadSuite(dir: string): CaseFile[] {
  const out: CaseFile[] = [];
  for (const method of readdirSync(dir).sort()) {
    const d = join(dir, method);
    if (!statSync(d).isDirectory()) continue;
    for (const f of readdirSync(d).sort()) {
      if (!f.endsWith(".io")) continue;
      const { specOnly, exchanges } = parseIo(readFileSync(join(d, f), "utf8"));
      out.push({ method, name: `${method}/${f.slice(0, -3)}`, specOnly, exchanges });
    }
  }
  return out;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ka = Object.keys(ao);
  if (ka.length !== Object.keys(bo).length) return false;
  return ka.every((k) => k in bo && deepEqual(ao[k], bo[k]));
}

/** hive's rule: the response deep-equal; speconly files only for result-vs-error kind. */
export function compare(got: string, want: string, specOnly: boolean): boolean {
  let g: Record<string, unknown>;
  let w: Record<string, unknown>;
  try {
    g = JSON.parse(got) as Record<string, unknown>;
    w = JSON.parse(want) as Record<string, unknown>;
  } catch {
    return false;
  }
  if (specOnly) return "error" in g === "error" in w && g.id === w.id;
  return deepEqual(withoutTotalDifficulty(g, w), w);
}

/**
 * Opal's one deliberate difference from the suite: block objects carry `totalDifficulty`, which
 * spec.md §2.4 lists and geth wrote until v1.14.9 (the suite's answers come from a later geth). A
 * block result whose reference has no such field is compared without it.
 */
function withoutTotalDifficulty(g: Record<string, unknown>, w: Record<string, unknown>): Record<string, unknown> {
  const gr = g.result;
  const wr = w.result;
  if (gr === null || typeof gr !== "object" || Array.isArray(gr) || !("totalDifficulty" in gr)) return g;
  if (wr === null || typeof wr !== "object" || Array.isArray(wr) || "totalDifficulty" in wr || !("stateRoot" in wr)) {
    return g;
  }
  const { totalDifficulty: _, ...rest } = gr as Record<string, unknown>;
  return { ...g, result: rest };
}

/** A running opal-exec over the suite's chain, at the head of headfcu.json. */
export interface SuiteNode {
  readonly url: string;
  stop(): Promise<void>;
}

/** init, import, start and headfcu.json, as a user (or hive) would; the datadir is temporary. */
export async function startSuiteNode(dir: string): Promise<SuiteNode> {
  const datadir = mkdtempSync(join(tmpdir(), "opal-rpc-compat-"));
  const errors: string[] = [];
  const io = { out: () => undefined, err: (t: string) => errors.push(t) };
  const quiet = ["--datadir", datadir, "--verbosity", "0"];
  let node: ExecNode | null = null;
  try {
    if ((await opalExec(["init", join(dir, "genesis.json"), ...quiet], {}, io)) !== 0) {
      throw new Error(`init failed: ${errors.join("; ")}`);
    }
    if ((await opalExec(["import", join(dir, "chain.rlp"), ...quiet], {}, io)) !== 0) {
      throw new Error(`import failed: ${errors.join("; ")}`);
    }
    const parsed = parseExecArgs(
      [
        ...quiet,
        "--http",
        "--http.addr",
        "127.0.0.1",
        "--http.port",
        "0",
        "--http.api",
        SERVED_APIS.join(","),
        "--ws.port",
        "0",
        "--authrpc.addr",
        "127.0.0.1",
        "--authrpc.port",
        "0",
      ],
      {},
    );
    if (parsed.kind !== "run") throw new Error("bad node arguments");
    const started = await ExecNode.start(parsed.config, { print: () => undefined });
    node = started;
    const auth = `http://127.0.0.1:${started.authServer.address().port}`;
    const fcu = readFileSync(join(dir, "headfcu.json"), "utf8");
    const res = await fetch(auth, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${signJwt(started.jwtSecret, Math.floor(Date.now() / 1000))}`,
      },
      body: fcu,
    });
    const reply = (await res.json()) as { result?: { payloadStatus?: { status?: string } }; error?: unknown };
    if (reply.result?.payloadStatus?.status !== "VALID") throw new Error(`headfcu.json: ${JSON.stringify(reply)}`);
    const url = `http://127.0.0.1:${started.httpServer!.address().port}`;
    return {
      url,
      async stop() {
        await started.stop();
        rmSync(datadir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await node?.stop();
    rmSync(datadir, { recursive: true, force: true });
    throw e;
  }
}

async function post(url: string, body: string): Promise<string> {
  try {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    return await res.text();
  } catch (e) {
    return `TRANSPORT ${(e as Error).message}`;
  }
}

export async function runSuite(dir: string, filter = ""): Promise<ExchangeResult[]> {
  const node = await startSuiteNode(dir);
  const results: ExchangeResult[] = [];
  try {
    for (const c of loadSuite(dir)) {
      if (filter !== "" && !c.name.includes(filter)) continue;
      for (const ex of c.exchanges) {
        const got = await post(node.url, ex.request);
        results.push({
          file: c.name,
          method: c.method,
          ok: compare(got, ex.response, c.specOnly),
          got,
          want: ex.response,
        });
      }
    }
  } finally {
    await node.stop();
  }
  return results;
}

export interface MethodRow {
  readonly method: string;
  readonly pass: number;
  readonly total: number;
}

export function summarize(results: readonly ExchangeResult[]): MethodRow[] {
  const rows = new Map<string, { pass: number; total: number }>();
  for (const r of results) {
    const row = rows.get(r.method) ?? { pass: 0, total: 0 };
    row.total++;
    if (r.ok) row.pass++;
    rows.set(r.method, row);
  }
  return [...rows].map(([method, r]) => ({ method, ...r }));
}

export function formatTable(rows: readonly MethodRow[]): string {
  const lines: string[] = [];
  let p = 0;
  let t = 0;
  for (const r of rows) {
    lines.push(`${r.method.padEnd(42)} ${String(r.pass).padStart(3)}/${r.total}`);
    p += r.pass;
    t += r.total;
  }
  lines.push(`all exchanges: ${p}/${t} (${t === 0 ? "n/a" : `${((100 * p) / t).toFixed(1)}%`})`);
  return lines.join("\n");
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const verbose = args.includes("--verbose");
  const fi = args.indexOf("--filter");
  const filter = fi >= 0 ? (args[fi + 1] ?? "") : "";
  const positional = args.filter((a, i) => !a.startsWith("--") && (fi < 0 || i !== fi + 1));
  const dir = positional[0] === undefined ? defaultSuiteDir() : resolve(REPO_ROOT, positional[0]);
  if (!existsSync(dir)) throw new Error(`suite not found at ${dir}`);
  const results = await runSuite(dir, filter);
  if (verbose) {
    for (const r of results) {
      if (r.ok) continue;
      console.log(
        `FAIL ${r.file}\n  got:  ${args.includes("--full") ? r.got : r.got.slice(0, 1500)}\n  want: ${args.includes("--full") ? r.want : r.want.slice(0, 1500)}`,
      );
    }
  }
  console.log(formatTable(summarize(results)));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
