/**
 * `npm run bench -- evm`: block execution throughput on the four shared workloads (eth-transfers,
 * erc20-transfers, storage-writes, compute-keccak), Opal (`runOpal`, evmOpal.ts) against
 * @ethereumjs/vm 10.1.3 (`runEthereumjs`, evmEthereumjs.ts). Both start from the workload's genesis
 * and time only the block executions; each result's gasUsed and state root are checked against the
 * workload's `expect` (recorded by ethereumjs), and a difference or a thrown error is one loud
 * `FAIL` line for that engine and workload, not a crash: the other engine and workloads still report,
 * and the process exit code is set to 1.
 *
 * Per workload: one warm-up run of each engine, then the measured runs, alternating Opal and
 * ethereumjs so that a slow spell of the (noisy) VM hits both. The figure is Mgas/s = gasUsed / median
 * ms. The ethereumjs warm-up runs the first tenth of the txs only (unchecked): a full ethereumjs run
 * takes 10–35 s here, and JIT warm-up needs far less than that.
 *
 * Knobs (environment, bench only):
 * - `OPAL_BENCH_EVM_RUNS=N`: measured runs per engine and workload. Unset: Opal runs 5 times or until
 *   10 s of measured time (at least once), ethereumjs once: ~2 min of ethereumjs on 2 cores plus Opal.
 * - `OPAL_BENCH_EVM_BASELINE=0`: skip ethereumjs (fast loop while working on Opal).
 * - `OPAL_BENCH_EVM_WORKLOADS=eth-transfers,compute-keccak`: run only these workloads.
 */
import { equalBytes } from "../src/primitives/bytes.js";
import { bytesToHex } from "../src/primitives/hex.js";
import { type AnvilRunResult, anvilBinary, runAnvil } from "./evmAnvil.js";
import { type EvmRunResult, runEthereumjs } from "./evmEthereumjs.js";
import { closeOpal, type OpalRunResult, runOpal } from "./evmOpal.js";
import type { BenchRow } from "./lib.js";
import { loadWorkload, WORKLOAD_NAMES, type Workload } from "./workload.js";

const SECTION = "evm";
const OPAL_DEFAULT_RUNS = 5;
const OPAL_BUDGET_MS = 10_000;
const EJS_DEFAULT_RUNS = 1;
const ANVIL_DEFAULT_RUNS = 3;
/** Share of the txs the ethereumjs warm-up executes. */
const EJS_WARMUP_SHARE = 0.1;

type Engine = "opal" | "ethereumjs";

interface EngineState {
  engine: Engine;
  samples: number[];
  /** Opal's split timings of each measured run. */
  details: OpalRunResult[];
  failure: string | undefined;
  /** Measured runs wanted; `budgetMs` (total measured ms) stops Opal earlier when its runs are slow. */
  runs: number;
  budgetMs: number;
}

export async function run(): Promise<BenchRow[]> {
  const cfg = config();
  const rows: BenchRow[] = [];
  const lines: string[] = [];
  let failures = 0;
  for (const name of cfg.workloads) {
    let w: Workload;
    try {
      w = loadWorkload(name);
    } catch (e) {
      const l = failLine(name, "load", message(e));
      console.log(l);
      lines.push(l);
      failures++;
      continue;
    }
    const opal: EngineState = {
      engine: "opal",
      samples: [],
      details: [],
      failure: undefined,
      runs: cfg.opalRuns,
      budgetMs: cfg.fixedRuns ? Number.POSITIVE_INFINITY : OPAL_BUDGET_MS,
    };
    const ejs: EngineState = {
      engine: "ethereumjs",
      samples: [],
      details: [],
      failure: undefined,
      runs: cfg.ejsRuns,
      budgetMs: Number.POSITIVE_INFINITY,
    };
    const engines = ejs.runs > 0 ? [opal, ejs] : [opal];
    console.log(`  evm ${w.name}: ${w.expect.txCount} txs, ${(w.expect.gasUsed / 1e6).toFixed(1)} Mgas`);

    // Warm-up (not recorded, but a failure here is reported and ends that engine's runs).
    await attempt(opal, w, () => runOpal(w), false);
    if (ejs.runs > 0) await attempt(ejs, w, () => runEthereumjs(warmupSlice(w), { check: false }), false);
    for (let i = 0; ; i++) {
      let ran = false;
      for (const s of engines) {
        if (s.failure !== undefined || i >= s.runs || sum(s.samples) >= s.budgetMs) continue;
        ran = true;
        await attempt(s, w, () => (s.engine === "opal" ? runOpal(w) : runEthereumjs(w)), true);
      }
      if (!ran) break;
    }

    const mgas: Partial<Record<Engine, number>> = {};
    for (const s of engines) {
      if (s.failure !== undefined) {
        const l = failLine(w.name, s.engine, s.failure);
        console.log(l);
        lines.push(l);
        failures++;
        continue;
      }
      const ms = median(s.samples);
      mgas[s.engine] = w.expect.gasUsed / ms / 1000;
      rows.push(row(w, s, ms));
    }
    const fmtMgas = (e: Engine): string => {
      const v = mgas[e];
      return v === undefined ? "—" : `${v.toFixed(2)} Mgas/s`;
    };
    const ratio =
      mgas.opal !== undefined && mgas.ethereumjs !== undefined ? `${(mgas.opal / mgas.ethereumjs).toFixed(2)}x` : "—";
    const line = (
      `  ${w.name.padEnd(16)} opal ${fmtMgas("opal").padStart(14)} (${runsNote(opal)})   ` +
      (ejs.runs > 0
        ? `ethereumjs ${fmtMgas("ethereumjs").padStart(14)} (${runsNote(ejs)})   opal/ethereumjs ${ratio}`
        : "")
    ).trimEnd();
    console.log(line);
    lines.push(line);
    if (opal.failure === undefined && opal.details.length > 0) {
      const more = await besideAnvil(w, opal.details, cfg.anvilRuns);
      for (const l of more) {
        console.log(l);
        lines.push(l);
      }
    }
  }
  await closeOpal();
  console.log("evm summary: Mgas/s = gasUsed / median ms of the block executions");
  for (const l of lines) console.log(l);
  if (failures > 0) {
    console.log(`evm: ${failures} FAILED (see the FAIL lines above)`);
    process.exitCode = 1;
  }
  return rows;
}

/**
 * One run; records its time if `measured`, and turns a throw or a result that differs from
 * `w.expect` into the engine's failure.
 */
async function attempt(
  s: EngineState,
  w: Workload,
  fn: () => EvmRunResult | Promise<EvmRunResult>,
  measured: boolean,
): Promise<void> {
  if (s.failure !== undefined) return;
  let r: EvmRunResult;
  try {
    r = await fn();
  } catch (e) {
    s.failure = message(e);
    return;
  }
  // The ethereumjs warm-up runs a slice of the block, so it has nothing to compare.
  const sliced = s.engine === "ethereumjs" && !measured;
  if (!sliced) {
    if (r.gasUsed !== w.expect.gasUsed) {
      s.failure = `gasUsed ${r.gasUsed}, want ${w.expect.gasUsed}`;
      return;
    }
    if (!equalBytes(r.stateRoot, w.expect.stateRoot)) {
      s.failure = `stateRoot ${bytesToHex(r.stateRoot)}, want ${bytesToHex(w.expect.stateRoot)}`;
      return;
    }
  }
  if (measured) {
    s.samples.push(r.ms);
    if (s.engine === "opal") s.details.push(r as OpalRunResult);
  }
}

/** The workload with only the first `EJS_WARMUP_SHARE` of each block's txs (its expect no longer holds). */
function warmupSlice(w: Workload): Workload {
  return {
    ...w,
    blocks: w.blocks.map((b) => ({
      header: b.header,
      transactions: b.transactions.slice(0, Math.max(1, Math.ceil(b.transactions.length * EJS_WARMUP_SHARE))),
    })),
  };
}

function row(w: Workload, s: EngineState, ms: number): BenchRow {
  const r: BenchRow = {
    section: SECTION,
    name: `${w.name}, ${s.engine}`,
    opsPerSec: 1000 / ms,
    // The median of the runs (the field is named for tinybench's mean; one run here is a whole workload).
    meanMs: ms,
    // Gas per run, so the table's items/s column is gas/s.
    items: w.expect.gasUsed,
    samples: s.samples.length,
  };
  if (s.engine === "ethereumjs") r.baselineOf = `${w.name}, opal`;
  return r;
}

interface Config {
  workloads: string[];
  /** Runs of anvil per workload (0: skip); OPAL_BENCH_EVM_ANVIL_RUNS, default 3. */
  anvilRuns: number;
  opalRuns: number;
  ejsRuns: number;
  /** True when OPAL_BENCH_EVM_RUNS fixed the number of runs (no time budget). */
  fixedRuns: boolean;
}

function config(): Config {
  const env = process.env;
  const runsEnv = env.OPAL_BENCH_EVM_RUNS;
  let runs: number | undefined;
  if (runsEnv !== undefined && runsEnv !== "") {
    runs = Number(runsEnv);
    if (!Number.isInteger(runs) || runs < 1) throw new Error(`OPAL_BENCH_EVM_RUNS=${runsEnv}: want an integer ≥ 1`);
  }
  const baseline = env.OPAL_BENCH_EVM_BASELINE !== "0";
  const listEnv = env.OPAL_BENCH_EVM_WORKLOADS;
  const workloads =
    listEnv === undefined || listEnv === ""
      ? [...WORKLOAD_NAMES]
      : listEnv
          .split(",")
          .map((x) => x.trim())
          .filter((x) => x !== "");
  for (const n of workloads) {
    if (!(WORKLOAD_NAMES as readonly string[]).includes(n)) {
      throw new Error(`OPAL_BENCH_EVM_WORKLOADS: unknown workload ${n}; have ${WORKLOAD_NAMES.join(", ")}`);
    }
  }
  const anvilEnv = env.OPAL_BENCH_EVM_ANVIL_RUNS;
  const anvilRuns = anvilEnv === undefined || anvilEnv === "" ? ANVIL_DEFAULT_RUNS : Number(anvilEnv);
  if (!Number.isInteger(anvilRuns) || anvilRuns < 0) {
    throw new Error(`OPAL_BENCH_EVM_ANVIL_RUNS=${anvilEnv}: want an integer ≥ 0`);
  }
  return {
    workloads,
    anvilRuns,
    opalRuns: runs ?? OPAL_DEFAULT_RUNS,
    ejsRuns: baseline ? (runs ?? EJS_DEFAULT_RUNS) : 0,
    fixedRuns: runs !== undefined,
  };
}

/**
 * Opal's split figures beside anvil's: execution + state root (senders already recovered, as anvil's
 * `evm_mine` has them from its pool: runs with senders recovered before the timer's execution part)
 * and intake + execution (decode, recovery overlapped with execution, root — the main runs; for
 * anvil from the first raw tx sent to the block mined, JSON-RPC included). Medians over the runs.
 */
async function besideAnvil(w: Workload, details: OpalRunResult[], runs: number): Promise<string[]> {
  const gas = w.expect.gasUsed;
  const mgas = (ms: number): number => gas / ms / 1000;
  const known: OpalRunResult[] = [];
  for (let i = 0; i < details.length; i++) known.push(await runOpal(w, { senders: "before" }));
  const execRoot = median(known.map((d) => d.execMs + d.rootMs));
  const exec = median(known.map((d) => d.execMs));
  const intake = median(details.map((d) => d.decodeMs + d.ms));
  const out = [
    `  ${" ".repeat(16)} opal execution ${mgas(exec).toFixed(1)}, execution + root ${mgas(execRoot).toFixed(1)}, intake + execution ${mgas(intake).toFixed(1)} Mgas/s`,
  ];
  const bin = anvilBinary();
  if (runs === 0) return out;
  if (bin === null) {
    out.push(`  ${" ".repeat(16)} anvil: skipped (@foundry-rs/anvil-linux-amd64 is not installed)`);
    return out;
  }
  const results: AnvilRunResult[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const r = await runAnvil(bin, w);
      if (r.gasUsed !== gas) throw new Error(`gasUsed ${r.gasUsed}, want ${gas}`);
      results.push(r);
    }
  } catch (e) {
    out.push(failLine(w.name, "anvil", message(e)));
    process.exitCode = 1;
    return out;
  }
  const aMine = median(results.map((r) => r.mineMs));
  const aIntake = median(results.map((r) => r.intakeMs));
  out.push(
    `  ${" ".repeat(16)} anvil execution + root ${mgas(aMine).toFixed(1)}, intake + execution ${mgas(aIntake).toFixed(1)} Mgas/s (${runs} runs)   ` +
      `opal/anvil: execution + root ${(aMine / execRoot).toFixed(2)}x, intake ${(aIntake / intake).toFixed(2)}x`,
  );
  return out;
}

function runsNote(s: EngineState): string {
  if (s.failure !== undefined) return "failed";
  const n = s.samples.length;
  if (n === 1) return `1 run, ${Math.round(s.samples[0]!)} ms`;
  const sorted = [...s.samples].sort((a, b) => a - b);
  return `${n} runs, ${Math.round(sorted[0]!)}–${Math.round(sorted[n - 1]!)} ms`;
}

function failLine(workload: string, engine: string, why: string): string {
  return `  FAIL evm ${workload} ${engine}: ${why}`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function sum(xs: number[]): number {
  let t = 0;
  for (const x of xs) t += x;
  return t;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
