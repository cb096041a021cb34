/**
 * opal-exec's block import counters (`opal_chain_import_*`): a chain that imports blocks with txs
 * shows their count and gas, and time in execution, flat-state writes and the state root; blocks
 * that fail, and blocks built rather than imported, are not counted. A scrape reads each pool's
 * figures once.
 */
import { strict as assert } from "node:assert";
import { encodeBlock } from "../../../../src/block/block.js";
import { ExecMetrics } from "../../../../src/node/exec/execMetrics.js";
import type { PoolStats } from "../../../../src/node/pools.js";
import { freshChain, sourceChain } from "../../devp2p/sync/syncFixtures.js";

function value(text: string, name: string): number {
  const m = new RegExp(`^${name} ([\\d.e+-]+)$`, "m").exec(text);
  assert.ok(m !== null, `${name} in\n${text}`);
  return Number(m[1]);
}

describe("node/exec/execMetrics: block import counters", () => {
  it("count imported blocks, their gas, and the time in execution, state writes and root", async () => {
    const source = sourceChain(5);
    assert.equal(source.importTimings.blocks, 0, "built blocks are not imports");
    const chain = freshChain();
    const metrics = new ExecMetrics(
      { pools: () => [], head: () => chain.head.number, importTimings: () => chain.importTimings },
      { processMetrics: false },
    );
    let gas = 0;
    for (let n = 1; n <= 5; n++) {
      const hash = source.store.canonicalHash(n)!;
      const header = source.store.header(hash)!;
      const rlp = encodeBlock({ header, body: source.store.body(hash)! });
      assert.equal(chain.insertBlock(rlp).status, "VALID");
      gas += header.gasUsed;
    }
    assert.ok(gas > 0);
    // A block that fails (its parent's state is fine, its body is not its header's): not counted.
    const bad = source.store.header(source.store.canonicalHash(5)!)!;
    const wrong = encodeBlock({
      header: { ...bad, gasUsed: bad.gasUsed + 1 },
      body: source.store.body(source.store.canonicalHash(5)!)!,
    });
    assert.equal(chain.insertBlock(wrong).status, "INVALID");
    const text = await metrics.registry.metrics();
    assert.equal(value(text, "opal_chain_import_blocks_total"), 5);
    assert.equal(value(text, "opal_chain_import_gas_total"), gas);
    for (const t of ["execution", "state_write", "root"]) {
      assert.ok(value(text, `opal_chain_import_${t}_seconds_total`) > 0, t);
    }
  });

  it("a scrape reads each pool's figures once, and the next scrape reads them again", async () => {
    let reads = 0;
    let busy = 1;
    const pool = {
      stats(): PoolStats {
        reads++;
        return {
          name: "evmCall",
          threads: 2,
          queued: 0,
          busy,
          completed: 7,
          runMs: { p50: 1, p99: 2 },
          waitMs: { p50: 3, p99: 4 },
        };
      },
    };
    const metrics = new ExecMetrics({ pools: () => [pool], head: () => 0 }, { processMetrics: false });
    const first = await metrics.metricsText();
    assert.equal(reads, 1);
    assert.equal(value(first, 'opal_pool_busy_workers\\{pool="evmCall"\\}'), 1);
    assert.equal(value(first, 'opal_pool_task_wait_seconds\\{pool="evmCall",quantile="0.99"\\}'), 0.004);
    busy = 2;
    const second = await metrics.metricsText();
    assert.equal(reads, 2);
    assert.equal(value(second, 'opal_pool_busy_workers\\{pool="evmCall"\\}'), 2);
  });
});
