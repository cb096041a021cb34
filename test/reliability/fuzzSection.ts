/**
 * The fuzzing part of `npm run reliability`: every target of fuzzTargets.ts with OPAL_FUZZ_CASES
 * cases (default 100,000; targets with a `maxCases`, the RLPx session ones, run at most that), one
 * row each. OPAL_FUZZ_ONLY=<text> runs only the targets whose name contains it.
 */
import { casesFor, FUZZ_TARGETS, fuzz } from "./fuzzTargets.js";
import type { Section, SectionResult } from "./section.js";

export const fuzzSection: Section = {
  name: "fuzz",
  async run(): Promise<SectionResult> {
    const cases = Number(process.env.OPAL_FUZZ_CASES ?? 100_000);
    const only = process.env.OPAL_FUZZ_ONLY;
    const targets = only === undefined ? FUZZ_TARGETS : FUZZ_TARGETS.filter((t) => t.name.includes(only));
    const rows: Record<string, string | number>[] = [];
    let passed = 0;
    for (const t of targets) {
      const r = await fuzz(t, cases);
      if (r.failure === null) passed++;
      rows.push({
        target: r.target,
        cases: r.cases,
        "cases/s": Math.round((r.cases / r.ms) * 1000),
        result: r.failure === null ? "ok" : `FAIL ${r.failure.slice(0, 120)}`,
      });
      const status = r.failure === null ? "ok  " : "FAIL";
      console.log(`${status} ${r.target}: ${r.cases} cases in ${(r.ms / 1000).toFixed(1)} s`);
    }
    const capped = targets.filter((t) => casesFor(t, cases) < cases);
    const fewer = capped.length === 0 ? "" : ` (${capped.length} session targets at ${casesFor(capped[0]!, cases)})`;
    const summary = `${passed}/${targets.length} targets clean at ${cases} cases each${fewer}`;
    return { section: "fuzz", rows, passed, summary };
  },
};
