/**
 * State tests through the `opal-evm statetest` runner (cli/evmTool/stateTest.ts): EEST v5.4.0
 * state_tests and ethereum/tests GeneralStateTests. Every case must match the fixture's post-state
 * root and logs hash (or be rejected when it expects an exception). The whole of both corpora takes
 * about 24 s on this 2-core machine, so by default a deterministic sample runs (every Nth file of the
 * sorted list, about 8 s); `OPAL_SPEC_FULL=1` runs every file. With the native addon the corpora run
 * a second time with the interpreter's native core entered wherever the loop can (NativeCore.Eager;
 * by default it only runs loops), every 6th file or all of them. A tampered copy of a case checks
 * that the runner reports failures.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { runStateTestFile } from "../../src/cli/evmTool/stateTest.js";
import { NativeCore, setNativeCore } from "../../src/evm/evm.js";
import { native } from "../../src/native/load.js";
import { fixturePath, listFiles, readJson } from "../utils/fixtures.js";

const FULL = process.env.OPAL_SPEC_FULL === "1";

/** [name, directory, sampling stride]: EEST takes ~21 s whole (593 files), GeneralStateTests ~3 s (20 files). */
const CORPORA: [string, string, number][] = [
  ["eest-v5.4.0/state_tests", fixturePath("eest-v5.4.0", "state_tests"), 3],
  ["ethereum-tests/GeneralStateTests", fixturePath("ethereum-tests", "GeneralStateTests"), 2],
];

describe("spec: state tests (opal-evm statetest)", function () {
  this.timeout(600_000);
  const passes: [string, number, NativeCore][] = [["", 1, NativeCore.Loops]];
  if (native !== null) passes.push([", native core entered everywhere", 2, NativeCore.Eager]);
  for (const [name, dir, baseStride] of CORPORA) {
    for (const [label, factor, mode] of passes) {
      const stride = baseStride * factor;
      const step = FULL ? 1 : stride;
      it(`${name}${label}: every case passes (${FULL ? "all files" : `every ${stride}th file`})`, () => {
        setNativeCore(mode);
        try {
          runCorpus(name, dir, step);
        } finally {
          setNativeCore(NativeCore.Loops);
        }
      });
    }
  }

  function runCorpus(name: string, dir: string, step: number): void {
    const all = listFiles(dir);
    assert.ok(all.length > 0, `no fixtures under ${dir}`);
    const files = all.filter((_, i) => i % step === 0);
    let pass = 0;
    const failures: string[] = [];
    for (const f of files) {
      const results = runStateTestFile(f);
      assert.ok(results.length > 0, `${relative(dir, f)} yielded no cases`);
      for (const r of results) {
        if (r.pass) pass++;
        else failures.push(`${relative(dir, f)} ${r.name} [${r.fork}]: ${r.error}`);
      }
    }
    console.log(`      ${name}: ${pass}/${pass + failures.length} cases pass (${files.length}/${all.length} files)`);
    assert.deepEqual(failures.slice(0, 20), []);
  }

  it("reports a tampered case as failed, without throwing", () => {
    const file = listFiles(CORPORA[1][1])[0];
    const doc = readJson<Record<string, { post: Record<string, { hash: string }[]> }>>(file);
    const [key, test] = Object.entries(doc)[0];
    const post: Record<string, { hash: string }[]> = {};
    for (const [fork, entries] of Object.entries(test.post)) {
      post[fork] = entries.map((e) => ({ ...e, hash: `0x${"11".repeat(32)}` }));
    }
    const dir = mkdtempSync(join(tmpdir(), "opal-st-"));
    writeFileSync(join(dir, "root.json"), JSON.stringify({ [key]: { ...test, post } }));
    const r1 = runStateTestFile(join(dir, "root.json"));
    assert.ok(r1.length > 0);
    for (const r of r1) assert.equal(r.pass, false, `${r.name} [${r.fork}] passed with a wrong root`);
    writeFileSync(join(dir, "broken.json"), "{ not json");
    const r2 = runStateTestFile(join(dir, "broken.json"));
    assert.equal(r2[0].pass, false);
    assert.match(r2[0].error ?? "", /cannot read test file/);
  });
});
