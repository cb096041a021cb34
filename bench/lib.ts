/**
 * Shared bench plumbing: tinybench runs, one row shape for every section, and the workloads from
 * ../shared/bench (read at run time, never copied).
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Bench } from "tinybench";
import { REPO_ROOT } from "../test/utils/fixtures.js";

export interface BenchRow {
  section: string;
  name: string;
  /** Operations per second (one op = one call of the measured function). */
  opsPerSec: number;
  /** Mean time per op in milliseconds. */
  meanMs: number;
  /** Items processed per op (hashes, txs, accounts), for the items/s column. */
  items: number;
  /** Name of the row in the same section this one is compared against, if any. */
  baselineOf?: string;
  samples: number;
}

export interface BenchTask {
  name: string;
  fn: () => unknown | Promise<unknown>;
  items?: number;
  /** Row name this task is the library baseline for. */
  baselineOf?: string;
}

export interface MeasureOptions {
  /** Time budget per task in ms (default 800). */
  time?: number;
  /** Minimum iterations per task (default 5). */
  iterations?: number;
}

export async function measure(section: string, tasks: BenchTask[], opts: MeasureOptions = {}): Promise<BenchRow[]> {
  const bench = new Bench({ time: opts.time ?? 800, iterations: opts.iterations ?? 5, warmupIterations: 2 });
  for (const t of tasks) bench.add(t.name, t.fn);
  await bench.run();
  return bench.tasks.map((task, i) => {
    const r = task.result as { state: string; period?: number; latency?: { samplesCount?: number }; error?: Error };
    if (r.state !== "completed" || r.period === undefined) {
      throw new Error(`bench ${section}/${task.name} did not complete: ${r.error?.message ?? r.state}`);
    }
    const t = tasks[i]!;
    const row: BenchRow = {
      section,
      name: task.name,
      opsPerSec: 1000 / r.period,
      meanMs: r.period,
      items: t.items ?? 1,
      samples: r.latency?.samplesCount ?? task.runs,
    };
    if (t.baselineOf !== undefined) row.baselineOf = t.baselineOf;
    return row;
  });
}

export const SHARED_BENCH = resolve(REPO_ROOT, "../shared/bench/workloads");

export interface Workload {
  name: string;
  chainId: number;
  hardfork: string;
  blocks: { header: Record<string, string>; transactions: string[] }[];
}

export function loadWorkload(name: string): Workload {
  return JSON.parse(readFileSync(resolve(SHARED_BENCH, `${name}.json`), "utf8")) as Workload;
}

/** Calldata of ERC-20 `transfer(to, value)`. */
export function erc20TransferData(to: Uint8Array, value: bigint): Uint8Array {
  const d = new Uint8Array(68);
  d.set([0xa9, 0x05, 0x9c, 0xbb]);
  d.set(to, 16);
  const hex = value.toString(16).padStart(64, "0");
  for (let i = 0; i < 32; i++) d[36 + i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return d;
}

/**
 * Which code the node processes a bench starts will run (bin/launch.js): the build in dist/ when
 * present (as operators run it), else the TypeScript sources through tsx, whose worker threads
 * compile their modules at start, so a short run pays for that.
 */
export function launcherNote(): string {
  return existsSync(resolve(REPO_ROOT, "dist/src/cli/opalExec.js"))
    ? "opal-exec runs from the build (dist/)"
    : "opal-exec runs from source through tsx (npm run build first for the build operators run)";
}
