/**
 * The soak of test/reliability/soak.ts: its figures and verdicts on made-up runs. The short soak of
 * the real devnet: test/e2e/reliability/soak.test.ts.
 */
import { strict as assert } from "node:assert";
import {
  judgeSoak,
  type ProcessFigures,
  percentile,
  promValue,
  RSS_GROWTH_LIMIT,
  rssGrowth,
  rssTrend,
  SOAK_DEFAULTS,
  type SoakReport,
} from "../../reliability/soak.js";

/** A process whose RSS is `base` kB until `stepAt` (ms) and `base * (1 + step)` from then on. */
function proc(name: string, loadMs: number, base: number, step: number, stepAt: number, lagP99 = 0.01): ProcessFigures {
  const rss: ProcessFigures["rss"] = [];
  for (let t = 0; t <= loadMs; t += 1000) {
    const v = t >= stepAt ? base * (1 + step) : base;
    rss.push({ t, rssKb: v, anonKb: v / 2 });
  }
  return {
    name,
    pid: 1,
    rss,
    lag: { p99: lagP99, max: lagP99 * 2 },
    heapStart: 2 ** 25,
    heapEnd: 2 ** 25,
    memStart: { heapCommitted: 2 ** 26, newSpace: 2 ** 24, external: 2 ** 22 },
    memEnd: { heapCommitted: 2 ** 26, newSpace: 2 ** 24, external: 2 ** 22 },
    hasMetrics: true,
    exited: false,
  };
}

function report(seconds: number, processes: ProcessFigures[], over: Partial<SoakReport> = {}): SoakReport {
  return {
    options: { ...SOAK_DEFAULTS, seconds },
    processes,
    load: {
      transfersSent: 100,
      callsSent: 10,
      receiptsOk: 110,
      inclusionMs: [1000, 2000],
      reads: 500,
      readsByMethod: {},
      readMaxMsByMethod: {},
      sendsSkipped: 0,
      readsLate: 0,
    },
    safeStart: { seqSafe: 1, verSafe: 1, seqUnsafe: 3, seqSafeLagSeconds: 4 },
    safeEnd: { seqSafe: 50, verSafe: 49, seqUnsafe: 55, seqSafeLagSeconds: 10 },
    errors: [],
    counter: { value: 10, logs: 10, increments: 10 },
    loadMs: seconds * 1000,
    ...over,
  };
}

describe("reliability: soak figures", () => {
  it("reads a gauge from a Prometheus exposition, with or without labels", () => {
    const text = [
      "# HELP nodejs_eventloop_lag_p99_seconds The 99th percentile of the recorded event loop delays.",
      "# TYPE nodejs_eventloop_lag_p99_seconds gauge",
      "nodejs_eventloop_lag_p99_seconds 0.012345",
      'nodejs_heap_size_used_bytes{instance="a"} 123456',
      "nodejs_eventloop_lag_p99_seconds_other 9",
    ].join("\n");
    assert.equal(promValue(text, "nodejs_eventloop_lag_p99_seconds"), 0.012345);
    assert.equal(promValue(text, "nodejs_heap_size_used_bytes"), 123456);
    assert.equal(promValue(text, "nodejs_eventloop_lag_max_seconds"), null);
  });

  it("measures growth as the last tenth over the tenth after the warm-up fifth", () => {
    // 600 s: base window 120–180 s, end window 540–600 s. A step at 100 s is inside the warm-up.
    assert.equal(rssGrowth(proc("a", 600_000, 1000, 0.5, 100_000).rss, 600_000).growth, 0);
    // A step at 300 s lies between the windows: the whole step shows.
    const g = rssGrowth(proc("a", 600_000, 1000, 0.25, 300_000).rss, 600_000);
    assert.equal(g.base, 1000);
    assert.equal(g.end, 1250);
    assert.ok(Math.abs(g.growth - 0.25) < 1e-12);
  });

  it("fits the RSS trend: a ramp's rise, and about none for heap breathing without a trend", () => {
    const ramp = Array.from({ length: 601 }, (_, i) => ({ t: i * 1000, rssKb: 1000 + i, anonKb: 0 }));
    assert.ok(Math.abs(rssTrend(ramp, 120_000, 600_000) - 480) < 1e-6);
    // A sawtooth of ±50 kB with a 90 s period, no drift.
    const saw = ramp.map((s, i) => ({ ...s, rssKb: 1000 + ((i % 90) - 45) * (100 / 90) }));
    assert.ok(Math.abs(rssTrend(saw, 120_000, 600_000)) < 15, String(rssTrend(saw, 120_000, 600_000)));
    assert.ok(Number.isNaN(rssTrend(ramp.slice(0, 1), 0, 1000)));
  });

  it("takes percentiles by rank", () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i);
    assert.equal(percentile(xs, 99), 99);
    assert.equal(percentile(xs, 50), 50);
    assert.ok(Number.isNaN(percentile([], 99)));
  });

  it("fails a process whose RSS grows 10% or more over a full soak, and passes one under it", () => {
    const ok = proc("sequencer-el", 600_000, 200_000, RSS_GROWTH_LIMIT / 2, 300_000);
    const leaky = proc("verifier-node", 600_000, 200_000, 0.2, 300_000);
    const v = judgeSoak(report(600, [ok, leaky]));
    const row = (name: string) => v.rows.find((r) => r.row === name)!;
    assert.match(String(row("sequencer-el").result), /^ok/);
    assert.match(String(row("verifier-node").result), /^FAIL RSS growth/);
    assert.equal(row("verifier-node")["RSS growth"], "20.0%");
    assert.equal(v.passed, v.rows.length - 1);
  });

  it("reports but does not judge the growth of a run too short to show a trend", () => {
    const v = judgeSoak(report(20, [proc("l1", 20_000, 1000, 0.3, 10_000)]));
    assert.match(String(v.rows[0]!.result), /^ok; growth not judged/);
    assert.equal(v.rows[0]!["RSS growth"], "30.0%");
    assert.equal(v.passed, v.rows.length);
  });

  it("flags an event-loop p99 over 100 ms without failing it; fails a node process without figures", () => {
    const slow = proc("sequencer-node", 600_000, 1000, 0, 0, 0.25);
    const blind = { ...proc("verifier-el", 600_000, 1000, 0, 0), lag: null };
    const v = judgeSoak(report(600, [slow, blind]));
    assert.match(String(v.rows[0]!.result), /^ok; lag p99 > 100\.0 ms flagged/);
    assert.equal(v.rows[0]!["lag p99 ms"], "250.0");
    assert.match(String(v.rows[1]!.result), /^FAIL no event-loop figures/);
  });

  it("fails the load row on any error or missing receipt, and the safe-head row when it stood still", () => {
    const p = [proc("l1", 600_000, 1000, 0, 0)];
    const base = report(600, p);
    const errs = judgeSoak(report(600, p, { errors: ["read eth_call: execution reverted"] }));
    assert.match(String(errs.rows.find((r) => r.row === "load")!.result), /^FAIL 1 errors: read eth_call/);
    const missing = judgeSoak(report(600, p, { load: { ...base.load, receiptsOk: 109 } }));
    assert.match(String(missing.rows.find((r) => r.row === "load")!.result), /^FAIL/);
    const still = judgeSoak(report(600, p, { safeEnd: { ...base.safeEnd, verSafe: 1 } }));
    assert.match(String(still.rows.find((r) => r.row === "safe head")!.result), /^FAIL/);
    assert.equal(judgeSoak(base).passed, 3);
  });
});
