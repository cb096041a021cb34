/**
 * Opal's devnet L1 contracts (contracts/l1/*.sol, compiled by `npm run compile:l1-contracts` into
 * src/node/devnet/l1Contracts.ts): the committed module matches a fresh solc-js build, run as the
 * script's `--check` in a child process. What the contracts do on an L1 chain:
 * test/unit/node/devnet/l1Contracts.test.ts.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { REPO_ROOT } from "../../../utils/fixtures.js";

describe("rollup/l1Contracts (devnet OptimismPortal and SystemConfig)", function () {
  this.timeout(60_000);

  describe("generated module", () => {
    it("is up to date with contracts/l1/*.sol", () => {
      // --check recompiles and compares byte for byte with the committed file.
      const out = execFileSync(process.execPath, ["scripts/compileL1Contracts.mjs", "--check"], {
        cwd: REPO_ROOT,
        encoding: "utf8",
      });
      assert.match(out, /up to date/);
    });
  });
});
