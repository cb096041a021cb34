/**
 * The rollup node's metrics (node/metrics.ts) served by node/metricsServer.ts: a scrape of a live
 * server on a free port parses under a strict Prometheus text-format (0.0.4) parser written here
 * (HELP/TYPE lines, sample syntax, every sample in a declared family, families contiguous, histogram
 * buckets cumulative with +Inf = _count), carries op-node's op_node_default_* names with the values
 * recorded, and 404/405, a port in use as one line, and the no-op twin's surface are checked.
 */
import { strict as assert } from "node:assert";
import { createServer, type Server } from "node:net";
import client from "prom-client";
import { MetricsServer } from "../../../../src/node/metricsServer.js";
import {
  METRICS_PREFIX,
  NodeMetrics,
  NoopMetrics,
  refHashValue,
  rpcClientErrorLabel,
} from "../../../../src/node/rollup/metrics.js";
import type { L1BlockRef, L2BlockRef } from "../../../../src/rollup/refs.js";
import { RpcCallError, RpcTransportError } from "../../../../src/rollup/transport/rpcClient.js";

// ---------------------------------------------------------------------------------------------
// A strict parser of the Prometheus text exposition format, version 0.0.4.
// ---------------------------------------------------------------------------------------------

type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped";

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

interface Family {
  readonly name: string;
  type: MetricType | undefined;
  help: string | undefined;
  readonly samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = new Set<string>(["counter", "gauge", "histogram", "summary", "untyped"]);

function parseValue(tok: string, where: string): number {
  if (tok === "+Inf") return Number.POSITIVE_INFINITY;
  if (tok === "-Inf") return Number.NEGATIVE_INFINITY;
  if (tok === "NaN") return Number.NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(tok))
    throw new Error(`${where}: bad value ${JSON.stringify(tok)}`);
  return Number(tok);
}

/** Parses `name{l="v",…} value [timestamp]`. */
function parseSample(line: string, where: string): Sample {
  const m = METRIC_NAME.exec(line);
  if (m === null) throw new Error(`${where}: no metric name`);
  const name = m[0];
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === "{") {
    i++;
    while (line[i] !== "}") {
      const ln = LABEL_NAME.exec(line.slice(i));
      if (ln === null) throw new Error(`${where}: bad label name`);
      if (Object.hasOwn(labels, ln[0])) throw new Error(`${where}: label ${ln[0]} repeated`);
      i += ln[0].length;
      if (line.slice(i, i + 2) !== '="') throw new Error(`${where}: expected =" after ${ln[0]}`);
      i += 2;
      let v = "";
      for (;;) {
        const c = line[i];
        if (c === undefined) throw new Error(`${where}: unterminated label value`);
        i++;
        if (c === '"') break;
        if (c === "\\") {
          const e = line[i++];
          if (e === "\\") v += "\\";
          else if (e === '"') v += '"';
          else if (e === "n") v += "\n";
          else throw new Error(`${where}: bad escape \\${e}`);
        } else v += c;
      }
      labels[ln[0]] = v;
      if (line[i] === ",") i++;
      else if (line[i] !== "}") throw new Error(`${where}: expected , or } after a label`);
    }
    i++;
  }
  const rest = line.slice(i);
  const parts = rest.split(/[ \t]+/);
  if (parts[0] !== "" || parts.length < 2 || parts.length > 3)
    throw new Error(`${where}: expected " value [timestamp]"`);
  const value = parseValue(parts[1]!, where);
  if (parts.length === 3 && !/^-?\d+$/.test(parts[2]!)) throw new Error(`${where}: bad timestamp`);
  return { name, labels, value };
}

function seriesKey(name: string, labels: Readonly<Record<string, string>>, skip = ""): string {
  const ks = Object.keys(labels)
    .filter((k) => k !== skip)
    .sort();
  return `${name}{${ks.map((k) => `${k}=${JSON.stringify(labels[k])}`).join(",")}}`;
}

/** The family a sample belongs to (histogram _bucket/_sum/_count, summary _sum/_count), or undefined. */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(name);
  if (direct !== undefined) return direct;
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!name.endsWith(suffix)) continue;
    const f = families.get(name.slice(0, -suffix.length));
    if (f?.type === "histogram") return f;
    if (f?.type === "summary" && suffix !== "_bucket") return f;
  }
  return undefined;
}

function checkHistogram(f: Family): void {
  const groups = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  const group = (s: Sample) => {
    const k = seriesKey(f.name, s.labels, "le");
    let g = groups.get(k);
    if (g === undefined) groups.set(k, (g = { buckets: [] }));
    return g;
  };
  for (const s of f.samples) {
    if (s.name === `${f.name}_bucket`) {
      const le = s.labels["le"];
      if (le === undefined) throw new Error(`${f.name}_bucket without le`);
      group(s).buckets.push([parseValue(le, `${f.name} le`), s.value]);
    } else if (s.name === `${f.name}_sum`) {
      group(s).sum = s.value;
    } else if (s.name === `${f.name}_count`) {
      group(s).count = s.value;
    } else {
      throw new Error(`histogram ${f.name} has a plain sample ${s.name}`);
    }
  }
  for (const [k, g] of groups) {
    if (g.sum === undefined || g.count === undefined) throw new Error(`${k}: missing _sum or _count`);
    if (g.buckets.length === 0) throw new Error(`${k}: no buckets`);
    for (let i = 1; i < g.buckets.length; i++) {
      if (!(g.buckets[i]![0] > g.buckets[i - 1]![0])) throw new Error(`${k}: le not increasing`);
      if (g.buckets[i]![1] < g.buckets[i - 1]![1]) throw new Error(`${k}: bucket counts not cumulative`);
    }
    const last = g.buckets[g.buckets.length - 1]!;
    if (last[0] !== Number.POSITIVE_INFINITY) throw new Error(`${k}: no le="+Inf" bucket`);
    if (last[1] !== g.count) throw new Error(`${k}: +Inf bucket ${last[1]} != _count ${g.count}`);
  }
}

/** Parses and checks a whole exposition; throws on the first violation. */
function parseExposition(text: string): Map<string, Family> {
  if (text.length > 0 && !text.endsWith("\n")) throw new Error("exposition does not end with a newline");
  const families = new Map<string, Family>();
  const declare = (name: string): Family => {
    let f = families.get(name);
    if (f === undefined) families.set(name, (f = { name, type: undefined, help: undefined, samples: [] }));
    return f;
  };
  const closed = new Set<Family>();
  const seen = new Set<string>();
  let current: Family | undefined;
  const lines = text.split("\n");
  lines.pop();
  lines.forEach((line, n) => {
    const where = `line ${n + 1}`;
    if (line === "") return;
    if (line.startsWith("#")) {
      const m = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line);
      if (m === null) return; // a plain comment
      const [, kw, name, rest = ""] = m;
      if (!METRIC_NAME.test(name!) || METRIC_NAME.exec(name!)![0] !== name) throw new Error(`${where}: bad name`);
      const f = declare(name!);
      if (kw === "HELP") {
        if (f.help !== undefined) throw new Error(`${where}: second HELP for ${name}`);
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ""))) throw new Error(`${where}: bad escape in HELP`);
        f.help = rest;
      } else {
        if (f.type !== undefined) throw new Error(`${where}: second TYPE for ${name}`);
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type ${JSON.stringify(rest)}`);
        if (f.samples.length > 0) throw new Error(`${where}: TYPE for ${name} after its samples`);
        f.type = rest as MetricType;
      }
      return;
    }
    const s = parseSample(line, where);
    const f = familyOf(s.name, families);
    if (f === undefined || f.type === undefined) throw new Error(`${where}: ${s.name} has no TYPE line before it`);
    if (f !== current) {
      if (closed.has(f)) throw new Error(`${where}: samples of ${f.name} are not contiguous`);
      if (current !== undefined) closed.add(current);
      current = f;
    }
    const key = seriesKey(s.name, s.labels);
    if (seen.has(key)) throw new Error(`${where}: duplicate series ${key}`);
    seen.add(key);
    if (f.type === "counter" && !(s.value >= 0)) throw new Error(`${where}: counter ${s.name} is ${s.value}`);
    f.samples.push(s);
  });
  for (const f of families.values()) {
    if (f.type === undefined) throw new Error(`${f.name}: HELP without TYPE`);
    if (f.type === "histogram") checkHistogram(f);
  }
  return families;
}

/** The value of one series, or undefined. */
function seriesValue(fams: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const f = familyOf(name, fams);
  const want = seriesKey(name, labels);
  return f?.samples.find((s) => seriesKey(s.name, s.labels) === want)?.value;
}

// ---------------------------------------------------------------------------------------------

const P = METRICS_PREFIX;

function hash(first: number): Uint8Array {
  const h = new Uint8Array(32);
  for (let i = 0; i < 32; i++) h[i] = (first + i) & 0xff;
  return h;
}

const now = Math.floor(Date.now() / 1000);
const l1Head: L1BlockRef = { hash: hash(0x10), number: 20_000_000, parentHash: hash(0x11), timestamp: now - 12 };
const l2Unsafe: L2BlockRef = {
  hash: hash(1),
  number: 1234,
  parentHash: hash(2),
  timestamp: now - 2,
  l1origin: { hash: hash(0x20), number: 19_999_990 },
  sequenceNumber: 5,
};

async function get(base: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${base}${path}`, init);
}

describe("node/metrics and node/metricsServer", () => {
  const metrics = new NodeMetrics();
  const server = new MetricsServer({ addr: "127.0.0.1", port: 0 }, { metrics });
  let base = "";

  before(async () => {
    const a = await server.listen();
    assert.notEqual(a.port, 0);
    base = `http://127.0.0.1:${a.port}`;
    metrics.recordInfo('v1.2.3-"opal"');
    metrics.recordUp();
    metrics.recordRpcServerRequest("optimism_syncStatus", 0.003);
    metrics.recordRpcServerRequest("optimism_syncStatus", 0.2);
    metrics.recordRpcServerRequest("optimism_outputAtBlock", 42);
    metrics.recordRpcClientRequest("eth_getBlockByNumber", 0.01);
    metrics.recordRpcClientRequest("eth_getBlockByNumber", 0.02, new RpcCallError("eth_getBlockByNumber", -32000, "x"));
    metrics.recordRpcClientRequest("engine_forkchoiceUpdatedV3", 1, new RpcTransportError("m to u: HTTP 401 bad"));
    metrics.recordL1Ref("l1_head", l1Head);
    metrics.recordL2Ref("l2_unsafe", l2Unsafe);
    metrics.recordPipelineReset();
    metrics.recordPipelineReset();
    metrics.recordDerivationError();
    metrics.recordDerivedBatch("span");
    metrics.setDerivationIdle(true);
    metrics.recordReceivedUnsafePayload(l2Unsafe);
    metrics.recordL1ReorgDepth(2);
    metrics.recordSequencerBuildStarted();
    metrics.recordSequencerBuild(-0.4);
    metrics.recordSequencerSealing(0.05);
    metrics.recordSequencingError();
    metrics.countSequencedTxs(7);
    metrics.setPeerCount(3);
    metrics.setStreamCount(4);
    metrics.recordGossipEvent("DELIVER_MESSAGE");
    metrics.recordGossipValidation("reject", "bad_signature");
    metrics.recordReqResp("server", "ok");
    metrics.recordPeerBan();
    metrics.recordPeerScores([-30, 0.2]);
    metrics.recordPeerScores([-3, 1, 1]);
  });

  after(() => server.close());

  it("serves GET /metrics as valid Prometheus text with op-node's names and the recorded values", async () => {
    const res = await get(base, "/metrics");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    const fams = parseExposition(await res.text());

    const expected: [string, MetricType][] = [
      ["info", "gauge"],
      ["up", "gauge"],
      ["rpc_server_requests_total", "counter"],
      ["rpc_server_request_duration_seconds", "histogram"],
      ["rpc_client_requests_total", "counter"],
      ["rpc_client_request_duration_seconds", "histogram"],
      ["rpc_client_responses_total", "counter"],
      ["derivation_idle", "gauge"],
      ["pipeline_resets_total", "counter"],
      ["last_pipeline_resets_unix", "gauge"],
      ["derivation_errors_total", "counter"],
      ["derived_batches_total", "counter"],
      ["unsafe_payloads_total", "counter"],
      ["sequencing_errors_total", "counter"],
      ["sequencer_resets_total", "counter"],
      ["refs_number", "gauge"],
      ["refs_time", "gauge"],
      ["refs_hash", "gauge"],
      ["refs_seqnr", "gauge"],
      ["refs_latency", "gauge"],
      ["l1_reorg_depth", "histogram"],
      ["transactions_sequenced_total", "gauge"],
      ["sequencer_building_diff_seconds", "histogram"],
      ["sequencer_building_diff_total", "counter"],
      ["sequencer_sealing_seconds", "histogram"],
      ["sequencer_sealing_total", "counter"],
      ["p2p_peer_count", "gauge"],
      ["p2p_stream_count", "gauge"],
      ["p2p_gossip_events_total", "counter"],
      ["p2p_gossip_validations_total", "counter"],
      ["p2p_req_resp_total", "counter"],
      ["p2p_peer_bans_total", "counter"],
      ["peer_scores", "histogram"],
    ];
    for (const [name, type] of expected) assert.equal(fams.get(P + name)?.type, type, P + name);
    // Process and runtime collectors are unprefixed, as op-node's Go process collector.
    assert.equal(fams.get("process_cpu_seconds_total")?.type, "counter");
    assert.equal(fams.get("process_resident_memory_bytes")?.type, "gauge");
    assert.ok(fams.has("nodejs_eventloop_lag_seconds"));

    assert.equal(seriesValue(fams, `${P}up`), 1);
    assert.equal(seriesValue(fams, `${P}info`, { version: 'v1.2.3-"opal"' }), 1);
    const m = { method: "optimism_syncStatus" };
    assert.equal(seriesValue(fams, `${P}rpc_server_requests_total`, m), 2);
    assert.equal(seriesValue(fams, `${P}rpc_server_request_duration_seconds_count`, m), 2);
    assert.equal(seriesValue(fams, `${P}rpc_server_request_duration_seconds_bucket`, { ...m, le: "0.005" }), 1);
    assert.equal(seriesValue(fams, `${P}rpc_server_request_duration_seconds_bucket`, { ...m, le: "0.25" }), 2);
    assert.ok(Math.abs(seriesValue(fams, `${P}rpc_server_request_duration_seconds_sum`, m)! - 0.203) < 1e-9);
    const slow = { method: "optimism_outputAtBlock", le: "10" };
    assert.equal(seriesValue(fams, `${P}rpc_server_request_duration_seconds_bucket`, slow), 0);

    const c = "eth_getBlockByNumber";
    assert.equal(seriesValue(fams, `${P}rpc_client_requests_total`, { method: c }), 2);
    assert.equal(seriesValue(fams, `${P}rpc_client_responses_total`, { method: c, error: "<nil>" }), 1);
    assert.equal(seriesValue(fams, `${P}rpc_client_responses_total`, { method: c, error: "rpc_-32000" }), 1);
    const fcu = { method: "engine_forkchoiceUpdatedV3", error: "http_401" };
    assert.equal(seriesValue(fams, `${P}rpc_client_responses_total`, fcu), 1);

    const l1 = { layer: "l1", type: "l1_head" };
    assert.equal(seriesValue(fams, `${P}refs_number`, l1), l1Head.number);
    assert.equal(seriesValue(fams, `${P}refs_time`, l1), l1Head.timestamp);
    assert.equal(seriesValue(fams, `${P}refs_hash`, l1), refHashValue(l1Head.hash));
    // The refs were made when this file loaded (possibly long before this test ran in a full suite):
    // the latency is their age at recording, at least the 12 s they were made old.
    const lat = seriesValue(fams, `${P}refs_latency`, l1)!;
    const age = Date.now() / 1000 - l1Head.timestamp;
    assert.ok(lat <= -11 && lat >= -age - 1, `latency ${lat}, age ${age}`);
    const l2 = { layer: "l2", type: "l2_unsafe" };
    assert.equal(seriesValue(fams, `${P}refs_number`, l2), 1234);
    assert.equal(seriesValue(fams, `${P}refs_seqnr`, { type: "l2_unsafe" }), 5);
    const origin = { layer: "l1_origin", type: "l2_unsafe" };
    assert.equal(seriesValue(fams, `${P}refs_number`, origin), 19_999_990);
    assert.equal(seriesValue(fams, `${P}refs_time`, origin), undefined, "an L1 origin has no timestamp");
    assert.equal(seriesValue(fams, `${P}refs_number`, { layer: "l2", type: "received_payload" }), 1234);

    assert.equal(seriesValue(fams, `${P}pipeline_resets_total`), 2);
    const last = seriesValue(fams, `${P}last_pipeline_resets_unix`)!;
    assert.ok(Math.abs(last - Date.now() / 1000) < 60 && Number.isInteger(last));
    assert.equal(seriesValue(fams, `${P}derivation_errors_total`), 1);
    assert.equal(seriesValue(fams, `${P}derived_batches_total`, { type: "span" }), 1);
    assert.equal(seriesValue(fams, `${P}derivation_idle`), 1);
    assert.equal(seriesValue(fams, `${P}unsafe_payloads_total`), 1);
    assert.equal(seriesValue(fams, `${P}l1_reorg_depth_bucket`, { le: "1.5" }), 0);
    assert.equal(seriesValue(fams, `${P}l1_reorg_depth_bucket`, { le: "2.5" }), 1);
    assert.equal(seriesValue(fams, `${P}sequencer_building_started_total`), 1);
    assert.equal(seriesValue(fams, `${P}sequencer_building_diff_total`), 1);
    assert.equal(seriesValue(fams, `${P}sequencer_building_diff_seconds_bucket`, { le: "-0.25" }), 1);
    assert.equal(seriesValue(fams, `${P}sequencer_building_diff_seconds_bucket`, { le: "-0.5" }), 0);
    assert.equal(seriesValue(fams, `${P}sequencer_sealing_total`), 1);
    assert.equal(seriesValue(fams, `${P}sequencing_errors_total`), 1);
    assert.equal(seriesValue(fams, `${P}transactions_sequenced_total`), 7);
    assert.equal(seriesValue(fams, `${P}p2p_peer_count`), 3);
    assert.equal(seriesValue(fams, `${P}p2p_stream_count`), 4);
    assert.equal(seriesValue(fams, `${P}p2p_gossip_events_total`, { type: "DELIVER_MESSAGE" }), 1);
    assert.equal(
      seriesValue(fams, `${P}p2p_gossip_validations_total`, { result: "reject", reason: "bad_signature" }),
      1,
    );
    assert.equal(seriesValue(fams, `${P}p2p_req_resp_total`, { role: "server", result: "ok" }), 1);
    assert.equal(seriesValue(fams, `${P}p2p_peer_bans_total`), 1);
    // The score histogram is the last snapshot only: three peers, one below -2.
    assert.equal(seriesValue(fams, `${P}peer_scores_count`, { type: "total" }), 3);
    assert.equal(seriesValue(fams, `${P}peer_scores_bucket`, { type: "total", le: "-2" }), 1);
  });

  it("keeps its series in a private registry", async () => {
    const other = new NodeMetrics({ processMetrics: false });
    other.setPeerCount(9);
    other.setStreamCount(Number.NaN);
    const fams = parseExposition(await other.metricsText());
    assert.equal(seriesValue(fams, `${P}p2p_peer_count`), 9);
    assert.ok(Number.isNaN(seriesValue(fams, `${P}p2p_stream_count`)), "NaN is written NaN, not prom-client's Nan");
    assert.equal(fams.has("process_cpu_seconds_total"), false);
    const mine = parseExposition(await metrics.metricsText());
    assert.equal(seriesValue(mine, `${P}p2p_peer_count`), 3);
    assert.equal(client.register.getSingleMetric(`${P}up`), undefined, "nothing in prom-client's global registry");
  });

  it("answers 404 for other paths and 405 for other methods", async () => {
    for (const path of ["/", "/metric", "/metrics/", "/debug/metrics"]) {
      const res = await get(base, path);
      assert.equal(res.status, 404, path);
      await res.text();
    }
    const q = await get(base, "/metrics?x=1");
    assert.equal(q.status, 200);
    await q.text();
    for (const method of ["POST", "PUT", "DELETE"]) {
      const res = await get(base, "/metrics", { method, body: method === "DELETE" ? null : "x" });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get("allow"), "GET");
      await res.text();
    }
  });

  it("rejects a port in use with one line naming the address", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const s = new MetricsServer({ addr: "127.0.0.1", port }, { metrics });
      await assert.rejects(s.listen(), (e: Error) => {
        assert.equal(e.message, `metrics server: 127.0.0.1:${port} is already in use`);
        return true;
      });
      await s.close();
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it("closes idempotently, after which nothing is served", async () => {
    const s = new MetricsServer({ addr: "127.0.0.1", port: 0 }, { metrics: new NoopMetrics() });
    const { port } = await s.listen();
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "");
    await Promise.all([s.close(), s.close()]);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/metrics`));
  });

  it("NoopMetrics has exactly NodeMetrics' methods, and they do nothing", async () => {
    const names = (proto: object) =>
      Object.getOwnPropertyNames(proto)
        .filter((n) => n !== "constructor")
        .sort();
    assert.deepEqual(names(NoopMetrics.prototype), names(NodeMetrics.prototype));
    const noop = new NoopMetrics();
    noop.recordL2Ref("l2_safe", l2Unsafe);
    noop.recordRpcClientRequest("x", 1, new Error("e"));
    assert.equal(await noop.metricsText(), "");
    assert.equal(noop.contentType, metrics.contentType);
  });

  it("labels RPC client errors as op-node does, and maps hashes to op-node's float", () => {
    assert.equal(rpcClientErrorLabel(undefined), "<nil>");
    assert.equal(rpcClientErrorLabel(new RpcCallError("m", 3, "reverted")), "rpc_3");
    assert.equal(rpcClientErrorLabel(new RpcTransportError("m to u: HTTP 503 busy")), "http_503");
    assert.equal(rpcClientErrorLabel(new RpcTransportError("m to u: timed out")), "<unknown>");
    assert.equal(rpcClientErrorLabel(new Error("boom")), "<unknown>");
    const h = new Uint8Array(32);
    h[0] = 1;
    h[7] = 2;
    assert.equal(refHashValue(h), 2 * 2 ** 56 + 1);
  });

  it("the test parser rejects malformed expositions", () => {
    const bad = [
      "x 1\n", // no TYPE
      '# TYPE x gauge\nx{a="1" 1\n', // unterminated labels
      "# TYPE x gauge\nx 1", // no final newline
      "# TYPE x gauge\nx one\n", // bad value
      "# TYPE x gauge\n# TYPE x gauge\nx 1\n", // two TYPEs
      '# TYPE x gauge\n# TYPE y gauge\nx 1\ny 1\nx{a="b"} 2\n', // not contiguous
      "# TYPE x gauge\nx 1\nx 2\n", // duplicate series
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n', // not cumulative
      '# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n', // count mismatch
      '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n', // no +Inf
      "# TYPE c counter\nc -1\n", // negative counter
      '# TYPE x gauge\nx{a="\\q"} 1\n', // bad escape
    ];
    for (const text of bad) assert.throws(() => parseExposition(text), JSON.stringify(text));
    const ok = parseExposition('# HELP x a \\\\ b\n# TYPE x gauge\nx{a="q\\"\\n",} 1.5e3 1700000000\n\n');
    assert.equal(seriesValue(ok, "x", { a: 'q"\n' }), 1500);
  });
});
