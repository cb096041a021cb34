/**
 * Opal's own predeploys (contracts/*.sol, compiled by `npm run compile:predeploys` into
 * src/executor/op/predeploys.ts): the committed module matches a fresh solc-js build, run as the
 * script's `--check` in a child process. What the contracts do in Opal's EVM:
 * test/unit/executor/op/predeploys.test.ts.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import {
  GAS_PRICE_ORACLE_RUNTIME_HEX,
  L1_BLOCK_RUNTIME_HEX,
  PREDEPLOYS_SOLC_VERSION,
  PREDEPLOYS_SOURCES_SHA256,
} from "../../../../src/executor/op/predeploys.js";
import { REPO_ROOT } from "../../../utils/fixtures.js";

describe("executor/op: predeploys (L1Block, GasPriceOracle)", function () {
  this.timeout(120_000);

  describe("generated module", () => {
    it("matches a fresh solc-js build of contracts/*.sol (deterministic compile)", () => {
      // --check recompiles and compares byte for byte with the committed file.
      const out = execFileSync(process.execPath, ["scripts/compilePredeploys.mjs", "--check"], {
        cwd: REPO_ROOT,
        encoding: "utf8",
      });
      assert.match(out, /up to date/);
      assert.match(PREDEPLOYS_SOLC_VERSION, /^0\.8\.\d+\+commit\./);
      assert.match(PREDEPLOYS_SOURCES_SHA256, /^[0-9a-f]{64}$/);
      assert.match(L1_BLOCK_RUNTIME_HEX, /^0x[0-9a-f]+$/);
      assert.match(GAS_PRICE_ORACLE_RUNTIME_HEX, /^0x[0-9a-f]+$/);
    });
  });
});
