/**
 * `npm run bench [-- section ...]`: runs the bench sections (all, or those named), prints one table
 * and writes the rows as JSON to bench/results/<timestamp>.json with the machine noted and the peak
 * RSS. Sections that use native code then run again in a child with OPAL_NATIVE=0 and both modes
 * are printed side by side (`OPAL_BENCH_MODES=native` skips that).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NATIVE_ENABLED, nativeStatus } from "../src/native/load.js";
import { REPO_ROOT } from "../test/utils/fixtures.js";
import type { BenchRow } from "./lib.js";

type Section = () => Promise<BenchRow[]>;

const SECTIONS: Record<string, () => Promise<Section>> = {
  keccak: async () => (await import("./crypto/keccak.bench.js")).run,
  rlp: async () => (await import("./rlp/block.bench.js")).run,
  storage: async () => (await import("./storage.bench.js")).run,
  engines: async () => (await import("./engines.bench.js")).run,
  recover: async () => (await import("./tx/recover.bench.js")).run,
  trie: async () => (await import("./trie/root.bench.js")).run,
  evm: async () => (await import("./evm.bench.js")).run,
  rpc: async () => (await import("./rpc.bench.js")).run,
  derive: async () => (await import("./derive.bench.js")).run,
  scale: async () => (await import("./scale.bench.js")).run,
  sync: async () => (await import("./sync.bench.js")).run,
  catchup: async () => (await import("./catchup.bench.js")).run,
  import: async () => (await import("./import.bench.js")).run,
};

/** Sections run only when named (`npm run bench -- scale sync catchup import`): minutes each, GBs of disk for scale. */
const NAMED_ONLY = new Set(["scale", "sync", "catchup", "import"]);

function fmt(n: number): string {
  if (n >= 100) return Math.round(n).toLocaleString("en-US");
  if (n >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}

function printTable(rows: BenchRow[]): void {
  const byName = new Map(rows.map((r) => [`${r.section}/${r.name}`, r]));
  const lines = rows.map((r) => {
    const base = r.baselineOf === undefined ? undefined : byName.get(`${r.section}/${r.baselineOf}`);
    return {
      section: r.section,
      name: r.name,
      "ops/s": fmt(r.opsPerSec),
      "mean ms": fmt(r.meanMs),
      "items/s": r.items > 1 ? fmt(r.opsPerSec * r.items) : "",
      // Baseline time over Opal's time, per item (so baselines measured on fewer items still
      // compare): above 1x Opal is faster.
      "opal speedup": base === undefined ? "" : `${(base.meanMs / base.items / (r.meanMs / r.items)).toFixed(2)}x`,
    };
  });
  console.table(lines);
}

/** Sections whose figures depend on the native addon: run again with OPAL_NATIVE=0. */
const NATIVE_SENSITIVE = ["keccak", "recover", "trie", "evm", "derive"];

/**
 * The same sections in a child process with OPAL_NATIVE=0 (every pure-TS twin), Opal only (no
 * ethereumjs or anvil), its output indented under this run's; returns its rows.
 */
function pureRun(sections: string[], dir: string): BenchRow[] {
  const out = join(dir, "pure-child.json");
  console.log(`running ${sections.join(" ")} again with OPAL_NATIVE=0 (pure-TS twins) …`);
  const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...sections], {
    env: {
      ...process.env,
      OPAL_NATIVE: "0",
      OPAL_BENCH_CHILD: out,
      OPAL_BENCH_EVM_BASELINE: "0",
      OPAL_BENCH_EVM_ANVIL_RUNS: "0",
    },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const l of `${r.stdout}${r.stderr}`.split("\n")) if (l.trim() !== "") console.log(`  [OPAL_NATIVE=0] ${l}`);
  if (r.status !== 0) {
    console.log(`  [OPAL_NATIVE=0] run failed (status ${r.status})`);
    process.exitCode = 1;
    return [];
  }
  return (JSON.parse(readFileSync(out, "utf8")) as { rows: BenchRow[] }).rows;
}

/** A row's name without the mode Opal ran in ("(opal native)" and "(opal pure)" are one row). */
function modeless(r: BenchRow): string {
  return `${r.section}/${r.name.replace(/opal (native|pure)/, "opal")}`;
}

function printModes(native: BenchRow[], pure: BenchRow[]): void {
  const byKey = new Map(pure.map((r) => [modeless(r), r]));
  const lines = native.flatMap((r) => {
    if (/@noble|ethereumjs|anvil/.test(r.name)) return [];
    const p = byKey.get(modeless(r));
    if (p === undefined) return [];
    const rate = (x: BenchRow) => x.opsPerSec * Math.max(1, x.items);
    return [
      {
        section: r.section,
        name: r.name,
        native: fmt(rate(r)),
        "OPAL_NATIVE=0": fmt(rate(p)),
        "native / pure": `${(rate(r) / rate(p)).toFixed(2)}x`,
      },
    ];
  });
  console.log("both modes (items/s, or ops/s where a run is one item):");
  console.table(lines);
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const names = wanted.length > 0 ? wanted : Object.keys(SECTIONS).filter((n) => !NAMED_ONLY.has(n));
  for (const n of names)
    if (!(n in SECTIONS)) throw new Error(`unknown bench section ${n}; have ${Object.keys(SECTIONS).join(", ")}`);
  const child = process.env.OPAL_BENCH_CHILD;
  const rows: BenchRow[] = [];
  for (const n of names) {
    const section = await SECTIONS[n]!();
    console.log(`running ${n} …`);
    rows.push(...(await section()));
  }
  printTable(rows);
  // Peak resident memory of this process (the in-process sections: EVM, trie, derivation…).
  const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(`peak RSS of the bench process: ${peakRssMiB} MiB`);
  const machine = {
    node: process.version,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? "unknown",
    memGiB: Math.round(totalmem() / 2 ** 30),
    native: nativeStatus(),
    peakRssMiB,
  };
  if (child !== undefined) {
    writeFileSync(child, JSON.stringify({ machine, rows }));
    return;
  }
  const dir = join(REPO_ROOT, "bench/results");
  mkdirSync(dir, { recursive: true });
  let pure: BenchRow[] = [];
  const again = names.filter((n) => NATIVE_SENSITIVE.includes(n));
  if (again.length > 0 && NATIVE_ENABLED && process.env.OPAL_BENCH_MODES !== "native") {
    pure = pureRun(again, dir);
    if (pure.length > 0) printModes(rows, pure);
  }
  const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  const result = { machine, rows, pureRows: pure };
  writeFileSync(file, JSON.stringify(result, null, 2));
  writeFileSync(join(dir, "latest.json"), JSON.stringify(result, null, 2));
  console.log(`wrote ${file}`);
}

main().catch((e: unknown) => {
  console.error(`bench failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
