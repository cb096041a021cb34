/**
 * `npm run reliability [-- part ...]`: the reliability suite's figures (issue 10). Runs the parts
 * named on the command line, or all of them, prints each part's table and a summary table, and
 * exits 1 when any row failed. Each part lives in test/reliability/ and implements Section.
 */
import { crashSection } from "../test/reliability/crashSection.js";
import { fuzzSection } from "../test/reliability/fuzzSection.js";
import { rpcHeavySection } from "../test/reliability/rpcHeavySection.js";
import { rpcLoadSection } from "../test/reliability/rpcLoadSection.js";
import { scenariosSection } from "../test/reliability/scenariosSection.js";
import type { Section, SectionResult } from "../test/reliability/section.js";
import { soakSection } from "../test/reliability/soakSection.js";

const SECTIONS: readonly Section[] = [
  fuzzSection,
  crashSection,
  soakSection,
  scenariosSection,
  rpcLoadSection,
  rpcHeavySection,
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !SECTIONS.some((s) => s.name === w));
if (unknown.length > 0) {
  console.error(`unknown part ${unknown.join(", ")}; parts: ${SECTIONS.map((s) => s.name).join(", ")}`);
  process.exit(2);
}
const results: SectionResult[] = [];
for (const s of SECTIONS) {
  if (wanted.length > 0 && !wanted.includes(s.name)) continue;
  console.log(`\n== ${s.name} ==`);
  const r = await s.run();
  console.table(r.rows);
  results.push(r);
}
console.log("\n== summary ==");
console.table(results.map((r) => ({ part: r.section, passed: `${r.passed}/${r.rows.length}`, figures: r.summary })));
const failed = results.some((r) => r.passed < r.rows.length);
process.exitCode = failed ? 1 : 0;
