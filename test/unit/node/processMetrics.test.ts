/**
 * node/processMetrics: prom-client's default process metrics, with the open descriptors counted at
 * most once per `openFdsMaxAgeMs` (a scrape within it serves the last count, one after it counts
 * again), and counted as prom-client counts them.
 */
import { strict as assert } from "node:assert";
import { closeSync, openSync, readdirSync } from "node:fs";
import client from "prom-client";
import { collectProcessMetrics } from "../../../src/node/processMetrics.js";

async function openFds(r: client.Registry): Promise<number> {
  const m = /^process_open_fds (\d+)$/m.exec(await r.metrics());
  assert.ok(m !== null, "process_open_fds is served");
  return Number(m[1]);
}

describe("node/processMetrics", () => {
  before(function () {
    if (process.platform !== "linux") this.skip(); // no /proc/self/fd, and prom-client has no such gauge
  });

  it("serves the defaults, and the open descriptors counted at most once per max age", async () => {
    const r = new client.Registry();
    let t = 0;
    collectProcessMetrics(r, { openFdsMaxAgeMs: 1000, now: () => t });
    const text = await r.metrics();
    assert.match(text, /^process_resident_memory_bytes \d+/m);
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
    assert.equal((text.match(/^# TYPE process_open_fds gauge$/gm) ?? []).length, 1);
    const first = await openFds(r);
    assert.ok(Math.abs(first - (readdirSync("/proc/self/fd").length - 1)) <= 2, "as prom-client counts");
    const fds = Array.from({ length: 8 }, () => openSync("/dev/null", "r"));
    try {
      t = 999;
      assert.equal(await openFds(r), first, "within the max age: the last count");
      t = 1000;
      assert.ok((await openFds(r)) >= first + 6, "after it: counted again");
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  });
});
