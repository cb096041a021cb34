/**
 * The execution-apis rpc-compat suite replayed in process: the chain of genesis.json + chain.rlp is
 * built on a MemoryKv and given the head of headfcu.json, then every `.io` exchange is sent through
 * `Registry.forApis([...]).handleText` and compared the way hive's rpc-compat simulator does (the
 * whole response JSON deep-equal; a file marked `speconly` only for result-vs-error kind). Each file
 * gets a fresh pool and API (sendRawTransaction only changes the pool), the chain is shared.
 *
 * Usage: tsx scripts/rpcCompat.ts [DIR] [--verbose] [--filter SUBSTR]
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Blockchain } from "../src/chain/blockchain.js";
import { parseGenesis } from "../src/chain/genesis.js";
import { hexToBytes } from "../src/primitives/hex.js";
import { decodeHeader } from "../src/rlp/decode.js";
import { debugApi } from "../src/rpc/debug/api.js";
import { traceApi } from "../src/rpc/debug/traceApi.js";
import type { RpcConnection } from "../src/rpc/dispatch.js";
import { ethApi } from "../src/rpc/eth/api.js";
import { ChainReader } from "../src/rpc/eth/chainReader.js";
import { EventHub } from "../src/rpc/events.js";
import { netApi } from "../src/rpc/net.js";
import { Registry } from "../src/rpc/registry.js";
import { txpoolApi } from "../src/rpc/txpoolApi.js";
import { web3Api } from "../src/rpc/web3.js";
import { MemoryKv } from "../src/storage/memory.js";
import { TxPool } from "../src/txpool/txPool.js";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Namespaces whose methods other parts of Opal serve; counted apart, never faked here. */
/** Namespaces the in-process registry does not serve (the Engine API has its own port; testing_* is not implemented). */
export const NOT_OURS = ["engine", "testing"];

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
  readonly ours: boolean;
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

function blocksOf(file: string): Uint8Array[] {
  const all = new Uint8Array(readFileSync(file));
  const out: Uint8Array[] = [];
  for (let pos = 0; pos < all.length; ) {
    const h = decodeHeader(all, pos);
    const end = h.start + h.length;
    out.push(all.subarray(pos, end));
    pos = end;
  }
  return out;
}

/** genesis.json + chain.rlp + headfcu.json → a chain at the suite's head. */
export function buildSuiteChain(dir: string): Blockchain {
  const json = JSON.parse(readFileSync(join(dir, "genesis.json"), "utf8")) as { config: unknown };
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(json), json.config);
  for (const rlp of blocksOf(join(dir, "chain.rlp"))) {
    const r = chain.insertBlock(rlp);
    if (r.status !== "VALID" && r.status !== "KNOWN") throw new Error(`block ${r.header?.number}: ${r.error}`);
  }
  const fcu = JSON.parse(readFileSync(join(dir, "headfcu.json"), "utf8")) as {
    params: [{ headBlockHash: string; safeBlockHash: string; finalizedBlockHash: string }];
  };
  const f = fcu.params[0];
  chain.setHead(hexToBytes(f.headBlockHash));
  chain.setSafeAndFinalized(hexToBytes(f.safeBlockHash), hexToBytes(f.finalizedBlockHash));
  return chain;
}

/** A registry serving what this module owns, over `chain` with a fresh pool. */
export function suiteRegistry(chain: Blockchain, reader: ChainReader): Registry {
  const pool = new TxPool({}, { chain });
  const events = new EventHub();
  pool.onPending((txs) => events.emitPending(txs));
  const deps = {
    chain,
    reader,
    pool,
    gasCap: 50_000_000n,
    txFeeCap: 1,
    evmTimeoutMs: 5000,
    networkId: chain.config.chainId,
    clientVersion: "Opal/v0.1.0/linux-amd64/node20",
    devAccounts: [],
    forwardRawTx: null,
    events,
  };
  return new Registry([
    ...ethApi(deps),
    ...netApi(deps),
    ...web3Api(deps),
    ...txpoolApi({ pool }),
    ...debugApi({ chain, reader, gasCap: deps.gasCap }),
    ...traceApi({ chain, reader, gasCap: deps.gasCap }),
  ]);
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
  return deepEqual(g, w);
}

const CONN: RpcConnection = { ctx: { transport: "http", remoteAddr: "127.0.0.1" }, subs: null };

export async function runSuite(dir: string, filter = ""): Promise<ExchangeResult[]> {
  const chain = buildSuiteChain(dir);
  const reader = new ChainReader(chain);
  const results: ExchangeResult[] = [];
  for (const c of loadSuite(dir)) {
    if (filter !== "" && !c.name.includes(filter)) continue;
    const ours = !NOT_OURS.includes(c.method.slice(0, c.method.indexOf("_")));
    const dispatcher = suiteRegistry(chain, reader).forApis(["eth", "net", "web3", "txpool", "debug", "trace"]);
    for (const ex of c.exchanges) {
      let got: string;
      try {
        got = (await dispatcher.handleText(ex.request, CONN)) ?? "";
      } catch (e) {
        got = `THROWN ${(e as Error).stack}`;
      }
      results.push({
        file: c.name,
        method: c.method,
        ok: compare(got, ex.response, c.specOnly),
        ours,
        got,
        want: ex.response,
      });
    }
  }
  return results;
}

export interface MethodRow {
  readonly method: string;
  readonly pass: number;
  readonly total: number;
  readonly ours: boolean;
}

export function summarize(results: readonly ExchangeResult[]): MethodRow[] {
  const rows = new Map<string, { pass: number; total: number; ours: boolean }>();
  for (const r of results) {
    const row = rows.get(r.method) ?? { pass: 0, total: 0, ours: r.ours };
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
  let op = 0;
  let ot = 0;
  for (const r of rows) {
    const note = r.ours ? "" : "  (not implemented here)";
    lines.push(`${r.method.padEnd(42)} ${String(r.pass).padStart(3)}/${String(r.total).padEnd(3)}${note}`);
    p += r.pass;
    t += r.total;
    if (r.ours) {
      op += r.pass;
      ot += r.total;
    }
  }
  const pct = (a: number, b: number): string => (b === 0 ? "n/a" : `${((100 * a) / b).toFixed(1)}%`);
  lines.push(`owned methods: ${op}/${ot} (${pct(op, ot)})`);
  lines.push(`all exchanges: ${p}/${t} (${pct(p, t)})`);
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
      if (r.ok || !r.ours) continue;
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
