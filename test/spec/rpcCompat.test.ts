/**
 * The execution-apis rpc-compat suite against a served node (scripts/rpcCompat.ts): `opal-exec
 * init` its genesis.json, `import` its chain.rlp, start the node, headfcu.json through the Engine
 * API with a JWT, then every `.io` exchange over HTTP, compared as hive does. Asserts ≥ 95% of all
 * exchanges (the bar) and prints the per-method table.
 */
import { strict as assert } from "node:assert";
import { defaultSuiteDir, formatTable, runSuite, summarize } from "../../scripts/rpcCompat.js";
import { requireFixture } from "../utils/fixtures.js";

describe("spec/rpc-compat (execution-apis)", function () {
  this.timeout(300_000);
  const dir = defaultSuiteDir();

  it("a served opal-exec passes ≥ 95% of the exchanges", async () => {
    const results = await runSuite(requireFixture(dir));
    console.log(formatTable(summarize(results)));
    assert.ok(results.length > 0, "no exchanges found");
    const pass = results.filter((r) => r.ok).length;
    const failed = results.filter((r) => !r.ok).map((r) => r.file);
    assert.ok(pass / results.length >= 0.95, `${pass}/${results.length}; failing: ${failed.join(", ")}`);
  });
});
