/**
 * `npm run bench -- import`: `opal-exec import` of each shared workload's block, as an operator runs
 * it, against anvil taking in the same block's raw transactions over JSON-RPC and mining them (issue
 * 25's first acceptance line). Per workload the block is built once by the node's builder and checked
 * against the workload's `expect` (engines.bench.ts `buildBlocks`), written as a geth export file,
 * and then, in each of `OPAL_BENCH_IMPORT_RUNS` (3) rounds: `opal-exec init` of the workload's
 * genesis into a fresh RocksDB datadir and `opal-exec import` of the file as a process (decode,
 * sender recovery, execution, roots, the RocksDB write and the canonical head), timed by the import's
 * own log line (from the first block read to the head written: not process start or the database
 * open); then anvil (evmAnvil.ts: every raw tx sent, one evm_mine). Prints per workload
 * `import <name>: opal-exec import <X> Mgas/s, anvil intake + execution <Y> Mgas/s: <r>x` (medians).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTmpDir, removeDir } from "../test/utils/tmpDir.js";
import { buildBlocks, genesisJson } from "./engines.bench.js";
import { anvilBinary, runAnvil } from "./evmAnvil.js";
import { type BenchRow, launcherNote } from "./lib.js";
import { loadWorkload, WORKLOAD_NAMES } from "./workload.js";

const BIN = join(import.meta.dirname, "..", "bin", "opal-exec.mjs");

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function exec(args: readonly string[]): string {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`opal-exec ${args[0]}: ${r.stderr.trim() || r.stdout.trim()}`);
  return `${r.stdout}${r.stderr}`;
}

/** One `opal-exec import` of `file` into a fresh datadir; returns the import's own elapsed ms. */
function importOnce(dir: string, genesisFile: string, file: string, gas: number): number {
  const datadir = join(dir, `node-${Date.now()}`);
  exec(["init", "--datadir", datadir, genesisFile]);
  const out = exec(["import", "--datadir", datadir, "--verbosity=3", file]);
  const line = out.split("\n").find((l) => l.includes("Imported new chain segment"));
  const m = line === undefined ? null : /elapsed="?(\d+)ms/.exec(line);
  if (m === null) throw new Error(`opal-exec import printed no segment line:\n${out}`);
  // The line's mgas has three decimals: the workload's gas must be what was imported.
  const mgas = /mgas="?([\d.]+)/.exec(line!);
  if (mgas === null || Math.abs(Number(mgas[1]) * 1e6 - gas) > 1000) {
    throw new Error(`opal-exec import reported ${mgas?.[1]} Mgas, want ${gas / 1e6}`);
  }
  removeDir(datadir);
  return Math.max(Number(m[1]), 1);
}

export async function run(): Promise<BenchRow[]> {
  const runs = Number(process.env.OPAL_BENCH_IMPORT_RUNS ?? 3);
  const names = (process.env.OPAL_BENCH_IMPORT_WORKLOADS ?? WORKLOAD_NAMES.join(",")).split(",");
  const anvil = anvilBinary();
  if (anvil === null) console.log("import: anvil is not installed (optional devDependency): Opal only");
  const rows: BenchRow[] = [];
  console.log(`import: ${launcherNote()}`);
  const dir = makeTmpDir();
  try {
    for (const name of names) {
      const w = loadWorkload(name);
      const built = buildBlocks(w);
      const genesisFile = join(dir, `${name}.genesis.json`);
      writeFileSync(genesisFile, JSON.stringify(genesisJson(w)));
      const file = join(dir, `${name}.rlp`);
      writeFileSync(file, Buffer.concat(built.blocks));
      const opal: number[] = [];
      const peer: number[] = [];
      for (let r = 0; r < runs; r++) {
        opal.push(importOnce(dir, genesisFile, file, built.gasUsed));
        if (anvil !== null) {
          const a = await runAnvil(anvil, w);
          if (a.gasUsed !== built.gasUsed)
            throw new Error(`import ${name}: anvil used ${a.gasUsed} gas, want ${built.gasUsed}`);
          peer.push(a.intakeMs);
        }
      }
      const ms = median(opal);
      const mgas = built.gasUsed / 1e3 / ms;
      let line = `import ${name}: opal-exec import ${mgas.toFixed(0)} Mgas/s (${ms} ms)`;
      if (peer.length > 0) {
        const pm = median(peer);
        const pmgas = built.gasUsed / 1e3 / pm;
        line += `, anvil intake + execution ${pmgas.toFixed(0)} Mgas/s (${pm.toFixed(0)} ms): ${(mgas / pmgas).toFixed(2)}x`;
        rows.push({
          section: "import",
          name: `${name} anvil`,
          opsPerSec: 1000 / pm,
          meanMs: pm,
          items: built.gasUsed,
          samples: peer.length,
        });
      }
      console.log(line);
      rows.push({
        section: "import",
        name: `${name} opal-exec import`,
        opsPerSec: 1000 / ms,
        meanMs: ms,
        items: built.gasUsed,
        samples: opal.length,
        ...(peer.length > 0 ? { baselineOf: `${name} anvil` } : {}),
      });
    }
  } finally {
    removeDir(dir);
  }
  return rows;
}
