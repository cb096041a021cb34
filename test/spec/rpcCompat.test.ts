/**
 * The execution-apis rpc-compat suite replayed in process (scripts/rpcCompat.ts): the chain of
 * genesis.json + chain.rlp at the head of headfcu.json, every `.io` exchange through the dispatcher,
 * compared as hive does. Asserts ≥ 95% of every exchange of the suite (the bar), and ≥ 95%
 * of the namespaces served in process (eth, net, web3, txpool, debug). Prints the table.
 */
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { defaultSuiteDir, formatTable, runSuite, summarize } from "../../scripts/rpcCompat.js";

describe("spec/rpc-compat (execution-apis)", function () {
  this.timeout(300_000);
  const dir = defaultSuiteDir();

  it("passes ≥ 95% of all exchanges and of the served namespaces", async function () {
    if (!existsSync(dir)) this.skip();
    const results = await runSuite(dir);
    const rows = summarize(results);
    console.log(formatTable(rows));
    let pass = 0;
    let total = 0;
    for (const r of rows) {
      if (!r.ours) continue;
      pass += r.pass;
      total += r.total;
    }
    const failed = results.filter((r) => r.ours && !r.ok).map((r) => r.file);
    assert.ok(total > 0, "no exchanges found");
    assert.ok(pass / total >= 0.95, `owned methods ${pass}/${total}; failing: ${failed.join(", ")}`);
    const all = results.filter((r) => r.ok).length;
    assert.ok(all / results.length >= 0.95, `all exchanges ${all}/${results.length}`);
  });
});
