/**
 * `npm run bench [-- section ...]`: runs the bench sections (all, or those named), prints one table
 * and writes the rows as JSON to bench/results/<timestamp>.json with the machine noted.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { join } from "node:path";
import { nativeStatus } from "../src/native/load.js";
import { REPO_ROOT } from "../test/utils/fixtures.js";
import type { BenchRow } from "./lib.js";

type Section = () => Promise<BenchRow[]>;

const SECTIONS: Record<string, () => Promise<Section>> = {
  keccak: async () => (await import("./crypto/keccak.bench.js")).run,
  rlp: async () => (await import("./rlp/block.bench.js")).run,
  storage: async () => (await import("./storage.bench.js")).run,
  recover: async () => (await import("./tx/recover.bench.js")).run,
  trie: async () => (await import("./trie/root.bench.js")).run,
  evm: async () => (await import("./evm.bench.js")).run,
  rpc: async () => (await import("./rpc.bench.js")).run,
};

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

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const names = wanted.length > 0 ? wanted : Object.keys(SECTIONS);
  for (const n of names)
    if (!(n in SECTIONS)) throw new Error(`unknown bench section ${n}; have ${Object.keys(SECTIONS).join(", ")}`);
  const rows: BenchRow[] = [];
  for (const n of names) {
    const section = await SECTIONS[n]!();
    console.log(`running ${n} …`);
    rows.push(...(await section()));
  }
  printTable(rows);
  const machine = {
    node: process.version,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? "unknown",
    memGiB: Math.round(totalmem() / 2 ** 30),
    native: nativeStatus(),
  };
  const dir = join(REPO_ROOT, "bench/results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, JSON.stringify({ machine, rows }, null, 2));
  writeFileSync(join(dir, "latest.json"), JSON.stringify({ machine, rows }, null, 2));
  console.log(`wrote ${file}`);
}

main().catch((e: unknown) => {
  console.error(`bench failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
