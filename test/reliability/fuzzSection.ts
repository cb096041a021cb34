/**
 * The fuzzing part of `npm run reliability`: every target of fuzzTargets.ts with OPAL_FUZZ_CASES
 * cases (default 100,000), one row each.
 */
import { FUZZ_TARGETS, fuzz } from "./fuzzTargets.js";
import type { Section, SectionResult } from "./section.js";

export const fuzzSection: Section = {
  name: "fuzz",
  async run(): Promise<SectionResult> {
    const cases = Number(process.env.OPAL_FUZZ_CASES ?? 100_000);
    const rows: Record<string, string | number>[] = [];
    let passed = 0;
    for (const t of FUZZ_TARGETS) {
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
    const summary = `${passed}/${FUZZ_TARGETS.length} targets clean at ${cases} cases each`;
    return { section: "fuzz", rows, passed, summary };
  },
};
