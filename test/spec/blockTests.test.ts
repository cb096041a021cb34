/**
 * Blockchain tests through the node's import path (chain/importBlock.ts via the `opal-evm blocktest`
 * runner): every case of EEST v5.4.0 blockchain_tests and ethereum/tests BlockchainTests. Both
 * corpora take about two seconds, so `npm test` runs them whole. Valid blocks must import with the
 * fixture's state root, `expectException` blocks must be rejected, and the final head and state must
 * match. A tampered copy of a case checks that the runner reports failures.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { runBlockTestFile } from "../../src/cli/evmTool/blockTest.js";
import { fixturePath, listFiles, readJson } from "../utils/fixtures.js";

const CORPORA: [string, string][] = [
  ["eest-v5.4.0/blockchain_tests", fixturePath("eest-v5.4.0", "blockchain_tests")],
  ["ethereum-tests/BlockchainTests", fixturePath("ethereum-tests", "BlockchainTests")],
];

describe("spec: blockchain tests (opal-evm blocktest)", function () {
  this.timeout(600_000);
  for (const [name, dir] of CORPORA) {
    it(`${name}: every case passes`, () => {
      const files = listFiles(dir);
      assert.ok(files.length > 0, `no fixtures under ${dir}`);
      let pass = 0;
      const failures: string[] = [];
      for (const f of files) {
        for (const r of runBlockTestFile(f)) {
          if (r.pass) pass++;
          else failures.push(`${relative(dir, f)} ${r.name} [${r.fork}]: ${r.error}`);
        }
      }
      console.log(`      ${name}: ${pass}/${pass + failures.length} cases pass (${files.length} files)`);
      assert.deepEqual(failures.slice(0, 20), []);
    });
  }

  it("reports a tampered case as failed, without throwing", () => {
    const file = listFiles(CORPORA[0][1])[0];
    const doc = readJson<Record<string, { lastblockhash: string; blocks: { rlp: string }[] }>>(file);
    const [key, test] = Object.entries(doc)[0];
    const dir = mkdtempSync(join(tmpdir(), "opal-bt-"));
    const wrongHead = { [key]: { ...test, lastblockhash: `0x${"11".repeat(32)}` } };
    writeFileSync(join(dir, "head.json"), JSON.stringify(wrongHead));
    const r1 = runBlockTestFile(join(dir, "head.json"));
    assert.equal(r1.length, 1);
    assert.equal(r1[0].pass, false);
    assert.match(r1[0].error ?? "", /head/);
    writeFileSync(join(dir, "broken.json"), "{ not json");
    const r2 = runBlockTestFile(join(dir, "broken.json"));
    assert.equal(r2[0].pass, false);
    assert.match(r2[0].error ?? "", /cannot read test file/);
  });
});
