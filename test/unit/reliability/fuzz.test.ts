/**
 * The fuzz targets of test/reliability/fuzzTargets.ts, a short slice per target (OPAL_FUZZ_CASES,
 * default 2,000; `npm run reliability` runs 100,000): every decoder of outside bytes returns a value
 * or its typed error, never an untyped throw or a case slower than CASE_LIMIT_MS.
 */
import { strict as assert } from "node:assert";
import { FUZZ_TARGETS, fuzz } from "../../reliability/fuzzTargets.js";

const CASES = Number(process.env.OPAL_FUZZ_CASES ?? 2000);

describe("reliability: fuzzing every decoder of outside bytes", function () {
  this.timeout(300_000);
  for (const t of FUZZ_TARGETS) {
    it(`${t.name}: ${CASES} cases, typed errors only`, async () => {
      const r = await fuzz(t, CASES);
      assert.equal(r.failure, null, r.failure ?? "");
      assert.equal(r.cases, CASES);
    });
  }
});
