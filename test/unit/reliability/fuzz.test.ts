/**
 * The fuzz targets of test/reliability/fuzzTargets.ts, a short slice per target (OPAL_FUZZ_CASES,
 * default 2,000; `npm run reliability` runs 100,000): every decoder of outside bytes returns a value
 * or its typed error, never an untyped throw or a case slower than CASE_LIMIT_MS. Targets with a
 * `maxCases` (a live RLPx session per case) run a tenth of it here.
 */
import { strict as assert } from "node:assert";
import { FUZZ_TARGETS, fuzz } from "../../reliability/fuzzTargets.js";

const CASES = Number(process.env.OPAL_FUZZ_CASES ?? 2000);

describe("reliability: fuzzing every decoder of outside bytes", function () {
  this.timeout(300_000);
  for (const t of FUZZ_TARGETS) {
    const cases = t.maxCases === undefined ? CASES : Math.min(CASES, Math.ceil(t.maxCases / 10));
    it(`${t.name}: ${cases} cases, typed errors only`, async () => {
      const r = await fuzz(t, cases);
      assert.equal(r.failure, null, r.failure ?? "");
      assert.equal(r.cases, cases);
    });
  }
});
