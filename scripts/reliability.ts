/**
 * `npm run reliability`: the reliability suite's figures (issue 10). For now the fuzzing part:
 * every target of test/reliability/fuzzTargets.ts with OPAL_FUZZ_CASES cases (default 100,000),
 * one table row each; exit status 1 when a target fails.
 */
import { FUZZ_TARGETS, fuzz } from "../test/reliability/fuzzTargets.js";

const CASES = Number(process.env.OPAL_FUZZ_CASES ?? 100_000);
const rows: Record<string, string | number>[] = [];
let failed = 0;
for (const t of FUZZ_TARGETS) {
  const r = fuzz(t, CASES);
  if (r.failure !== null) failed++;
  rows.push({
    target: r.target,
    cases: r.cases,
    "cases/s": Math.round((r.cases / r.ms) * 1000),
    result: r.failure === null ? "ok" : `FAIL ${r.failure.slice(0, 120)}`,
  });
  console.log(`${r.failure === null ? "ok  " : "FAIL"} ${r.target}: ${r.cases} cases in ${(r.ms / 1000).toFixed(1)} s`);
}
console.table(rows);
console.log(`fuzzing: ${FUZZ_TARGETS.length - failed}/${FUZZ_TARGETS.length} targets clean at ${CASES} cases each`);
process.exitCode = failed > 0 ? 1 : 0;
