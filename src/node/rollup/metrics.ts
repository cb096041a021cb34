/**
 * The rollup node's Prometheus metrics under op-node's names (MONO op-node/metrics/metrics.go,
 * op-service/metrics/{event,ref_metrics,rpc_metrics}.go): every series is `op_node_default_<name>`,
 * kept in a private prom-client `Registry` (never the global one). Callers use the typed recorders
 * of `Metricer`; `NoopMetrics` is the same surface doing nothing (`--metrics.enabled=false`).
 */

import type { Counter, Gauge, Histogram, Registry } from "prom-client";
import client from "prom-client";
import type { P2pMetricsSink } from "../../p2p/host.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { BlockId, L1BlockRef, L2BlockRef } from "../../rollup/refs.js";
import { RpcCallError, RpcTransportError } from "../../rollup/transport/rpcClient.js";
import { collectProcessMetrics } from "../processMetrics.js";

/** op-node's namespace with the default process name (`op_node` + `_default`). */
export const METRICS_PREFIX = "op_node_default_";

/** The `layer` label of `refs_*`. */
export type RefLayer = "l1" | "l2" | "l1_origin";

/** The `type` label of `refs_*`: op-node's reference names. */
export type RefType =
  | "l1_head"
  | "l1_safe"
  | "l1_finalized"
  | "l1_derived"
  | "l2_unsafe"
  | "l2_cross_unsafe"
  | "l2_pending_safe"
  | "l2_local_safe"
  | "l2_safe"
  | "l2_finalized"
  | "l2_backup_unsafe"
  | "received_payload"
  | "l2_buffer_unsafe"
  | "inconsistent_from"
  | "inconsistent_to";

export type L1RefType = "l1_head" | "l1_safe" | "l1_finalized" | "l1_derived";
export type L2RefType =
  | "l2_unsafe"
  | "l2_cross_unsafe"
  | "l2_pending_safe"
  | "l2_local_safe"
  | "l2_safe"
  | "l2_finalized"
  | "l2_backup_unsafe";

/** What `recordRef` reads of a block reference; `timestamp` 0 or absent = unknown (no time, no latency). */
export interface RefLike {
  readonly number: number;
  readonly hash: Uint8Array;
  readonly timestamp?: number;
}

/** The `type` label of `derived_batches` (op-node derive metrics). */
export type BatchType = "singular" | "span";

/** The recorders the node's components call; `NodeMetrics` and `NoopMetrics` both implement it. */
export interface Metricer extends P2pMetricsSink {
  /** The registry's exposition content type (`text/plain; version=0.0.4; charset=utf-8`). */
  readonly contentType: string;
  /** The Prometheus text exposition of every series. */
  metricsText(): Promise<string>;
  /** `info{version}` = 1. */
  recordInfo(version: string): void;
  /** `up` = 1 once the node has started. */
  recordUp(): void;
  /** One served RPC call: `rpc_server_requests_total{method}`, `rpc_server_request_duration_seconds{method}`. */
  recordRpcServerRequest(method: string, seconds: number): void;
  /**
   * One upstream (L1/L2/beacon) call: `rpc_client_requests_total{method}`, its duration, and
   * `rpc_client_responses_total{method,error}` (error null/undefined = success).
   */
  recordRpcClientRequest(method: string, seconds: number, error?: unknown): void;
  /** `derivation_idle` = 1 while the pipeline has nothing to do. */
  setDerivationIdle(idle: boolean): void;
  recordPipelineReset(): void;
  recordDerivationError(): void;
  /** `derived_batches_total{type}` and `last_derived_batches_unix{type}`. */
  recordDerivedBatch(type: BatchType): void;
  /** A gossiped or requested unsafe payload arrived: `unsafe_payloads_*` and ref `received_payload`. */
  recordReceivedUnsafePayload(ref: RefLike): void;
  /** `unsafe_payloads_buffer_len`, `_mem_size` and ref `l2_buffer_unsafe` of the next buffered payload. */
  recordUnsafePayloadsBuffer(length: number, memBytes: number, next: BlockId): void;
  /** `l1_reorg_depth` histogram. */
  recordL1ReorgDepth(depth: number): void;
  /** `refs_number`, `refs_hash`, and with a timestamp `refs_time` and `refs_latency`, for `{layer,type}`. */
  recordRef(layer: RefLayer, type: RefType, ref: RefLike): void;
  /** `recordRef("l1", type, ref)`. */
  recordL1Ref(type: L1RefType, ref: L1BlockRef): void;
  /** `recordRef("l2", …)`, the ref's L1 origin under layer `l1_origin`, and `refs_seqnr{type}`. */
  recordL2Ref(type: L2RefType, ref: L2BlockRef): void;
  /** Opal's own `sequencer_building_started_total` (op-node has no such counter). */
  recordSequencerBuildStarted(): void;
  /** A finished build job: time from start to sealed minus the block time (`sequencer_building_diff_*`). */
  recordSequencerBuild(diffSeconds: number): void;
  /** `sequencer_sealing_seconds` and `sequencer_sealing_total`. */
  recordSequencerSealing(seconds: number): void;
  recordSequencingError(): void;
  recordSequencerReset(): void;
  recordSequencerInconsistentL1Origin(from: BlockId, to: BlockId): void;
  /** `transactions_sequenced_total` += count. */
  countSequencedTxs(count: number): void;
}

export interface NodeMetricsOptions {
  /**
   * prom-client's process and Node runtime collectors (default true). They are registered WITHOUT
   * the op_node_default_ prefix, as op-node registers Go's process collector unprefixed: the
   * `process_*` series (cpu, resident memory, open fds, start time) keep the standard names that
   * dashboards expect, and the runtime series are `nodejs_*` (event-loop lag, heap, GC, handles).
   */
  readonly processMetrics?: boolean;
}

/** Go's prometheus.DefBuckets, which op-node uses for its RPC and sealing histograms. */
const DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** op-node's sequencer_building_diff_seconds buckets (negative = finished before the block time). */
const BUILD_DIFF_BUCKETS = [
  -10, -5, -2.5, -1, -0.5, -0.25, -0.1, -0.05, -0.025, -0.01, -0.005, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
  5, 10,
];
/** op-node's `peer_scores` buckets. */
const PEER_SCORE_BUCKETS = [-100, -40, -20, -10, -5, -2, -1, -0.5, -0.05, 0, 0.05, 0.5, 1, 2, 5, 10, 20, 40];
const REORG_DEPTH_BUCKETS = [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 20.5, 50.5, 100.5];

/** op-service EventMetrics: `<name>_total` plus gauge `last_<name>_unix` (whole seconds). */
interface EventMetric<L extends string> {
  readonly total: Counter<L>;
  readonly last: Gauge<L>;
}

function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * op-node's refs_hash value: the hash's first 8 bytes read as a little-endian uint64, converted (not
 * bit-cast) to a float, so that a change of hash shows on a graph.
 */
export function refHashValue(hash: Uint8Array): number {
  if (hash.length < 8) return 0;
  return Number(new DataView(hash.buffer, hash.byteOffset, 8).getBigUint64(0, true));
}

/**
 * op-node's `error` label of rpc_client_responses_total: `<nil>` on success, `rpc_<code>` for a
 * JSON-RPC error answer, `http_<status>` for a non-200 HTTP answer, `<unknown>` otherwise.
 */
export function rpcClientErrorLabel(error: unknown): string {
  if (error === null || error === undefined) return "<nil>";
  if (error instanceof RpcCallError) return `rpc_${error.code}`;
  if (error instanceof RpcTransportError) {
    // rollup/rpcClient.ts words a non-200 answer as "<method> to <url>: HTTP <status> <body>".
    const m = /: HTTP (\d{3})\b/.exec(error.message);
    if (m !== null) return `http_${m[1]}`;
  }
  return "<unknown>";
}

/** The live metrics: one private registry with op-node's series. */
export class NodeMetrics implements Metricer {
  readonly registry: Registry;

  private readonly info: Gauge<"version">;
  private readonly up: Gauge;
  private readonly rpcServerRequests: Counter<"method">;
  private readonly rpcServerDuration: Histogram<"method">;
  private readonly rpcClientRequests: Counter<"method">;
  private readonly rpcClientDuration: Histogram<"method">;
  private readonly rpcClientResponses: Counter<"method" | "error">;
  private readonly derivationIdle: Gauge;
  private readonly pipelineResets: EventMetric<string>;
  private readonly unsafePayloads: EventMetric<string>;
  private readonly derivationErrors: EventMetric<string>;
  private readonly sequencingErrors: EventMetric<string>;
  private readonly publishingErrors: EventMetric<string>;
  private readonly sequencerInconsistentL1Origin: EventMetric<string>;
  private readonly sequencerResets: EventMetric<string>;
  private readonly derivedBatches: EventMetric<"type">;
  private readonly unsafePayloadsBufferLen: Gauge;
  private readonly unsafePayloadsBufferMemSize: Gauge;
  private readonly refsNumber: Gauge<"layer" | "type">;
  private readonly refsTime: Gauge<"layer" | "type">;
  private readonly refsHash: Gauge<"layer" | "type">;
  private readonly refsSeqNr: Gauge<"type">;
  private readonly refsLatency: Gauge<"layer" | "type">;
  /** Hash last seen per ref type: latency is metered on a ref's first sighting only (as op-node). */
  private readonly latencySeen = new Map<string, string>();
  private readonly l1ReorgDepth: Histogram;
  private readonly transactionsSequenced: Gauge;
  private readonly sequencerBuildingStarted: Counter;
  private readonly sequencerBuildingDiff: Histogram;
  private readonly sequencerBuildingDiffTotal: Counter;
  private readonly sequencerSealing: Histogram;
  private readonly sequencerSealingTotal: Counter;
  private readonly peerCount: Gauge;
  private readonly streamCount: Gauge;
  private readonly gossipEvents: Counter<"type">;
  private readonly gossipValidations: Counter<"result" | "reason">;
  private readonly reqResp: Counter<"role" | "result">;
  private readonly peerBans: Counter;
  private readonly peerScores: Histogram<"type">;

  constructor(opts: NodeMetricsOptions = {}) {
    this.registry = new client.Registry();
    const registers = [this.registry];
    const p = METRICS_PREFIX;
    const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> =>
      new client.Gauge<L>({ name: p + name, help, labelNames, registers });
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> =>
      new client.Counter<L>({ name: p + name, help, labelNames, registers });
    const histogram = <L extends string>(
      name: string,
      help: string,
      buckets: number[],
      labelNames: readonly L[] = [],
    ): Histogram<L> => new client.Histogram<L>({ name: p + name, help, buckets, labelNames, registers });
    const event = <L extends string>(name: string, display: string, labelNames: readonly L[] = []): EventMetric<L> => ({
      total: counter(`${name}_total`, `Count of ${display} events`, labelNames),
      last: gauge(`last_${name}_unix`, `Timestamp of last ${display} event`, labelNames),
    });

    this.info = gauge("info", "Pseudo-metric tracking version and config info", ["version"]);
    this.up = gauge("up", "1 if the op node has finished starting up");

    this.rpcServerRequests = counter("rpc_server_requests_total", "Total requests to the RPC server", ["method"]);
    this.rpcServerDuration = histogram(
      "rpc_server_request_duration_seconds",
      "Histogram of RPC server request durations",
      DEF_BUCKETS,
      ["method"],
    );
    this.rpcClientRequests = counter(
      "rpc_client_requests_total",
      "Total RPC requests initiated by the opnode's RPC client",
      ["method"],
    );
    this.rpcClientDuration = histogram(
      "rpc_client_request_duration_seconds",
      "Histogram of RPC client request durations",
      DEF_BUCKETS,
      ["method"],
    );
    this.rpcClientResponses = counter(
      "rpc_client_responses_total",
      "Total RPC request responses received by the opnode's RPC client",
      ["method", "error"],
    );

    this.derivationIdle = gauge("derivation_idle", "1 if the derivation pipeline is idle");
    this.pipelineResets = event("pipeline_resets", "derivation pipeline resets");
    this.unsafePayloads = event("unsafe_payloads", "unsafe payloads");
    this.derivationErrors = event("derivation_errors", "derivation errors");
    this.sequencingErrors = event("sequencing_errors", "sequencing errors");
    this.publishingErrors = event("publishing_errors", "p2p publishing errors");
    this.sequencerInconsistentL1Origin = event(
      "sequencer_inconsistent_l1_origin",
      "events when the sequencer selects an inconsistent L1 origin",
    );
    this.sequencerResets = event("sequencer_resets", "sequencer resets");
    this.derivedBatches = event("derived_batches", "derived batches", ["type"]);

    this.unsafePayloadsBufferLen = gauge("unsafe_payloads_buffer_len", "Number of buffered L2 unsafe payloads");
    this.unsafePayloadsBufferMemSize = gauge(
      "unsafe_payloads_buffer_mem_size",
      "Total estimated memory size of buffered L2 unsafe payloads",
    );

    const refLabels = ["layer", "type"] as const;
    this.refsNumber = gauge("refs_number", "Gauge representing the different L1/L2 reference block numbers", refLabels);
    this.refsTime = gauge("refs_time", "Gauge representing the different L1/L2 reference block timestamps", refLabels);
    this.refsHash = gauge(
      "refs_hash",
      "Gauge representing the different L1/L2 reference block hashes truncated to float values",
      refLabels,
    );
    this.refsSeqNr = gauge("refs_seqnr", "Gauge representing the different L2 reference sequence numbers", ["type"]);
    this.refsLatency = gauge(
      "refs_latency",
      "Gauge representing the different L1/L2 reference block timestamps minus current time, in seconds",
      refLabels,
    );

    this.l1ReorgDepth = histogram("l1_reorg_depth", "Histogram of L1 Reorg Depths", REORG_DEPTH_BUCKETS);
    // op-node declares this one a gauge despite its _total name; kept so that queries match.
    this.transactionsSequenced = gauge("transactions_sequenced_total", "Count of total transactions sequenced");

    this.sequencerBuildingStarted = counter(
      "sequencer_building_started_total",
      "Number of sequencer block building jobs started (Opal; not in op-node)",
    );
    this.sequencerBuildingDiff = histogram(
      "sequencer_building_diff_seconds",
      "Histogram of Sequencer building time, minus block time",
      BUILD_DIFF_BUCKETS,
    );
    this.sequencerBuildingDiffTotal = counter(
      "sequencer_building_diff_total",
      "Number of sequencer block building jobs",
    );
    this.sequencerSealing = histogram(
      "sequencer_sealing_seconds",
      "Histogram of Sequencer block sealing time",
      DEF_BUCKETS,
    );
    this.sequencerSealingTotal = counter("sequencer_sealing_total", "Number of sequencer block sealing jobs");

    this.peerCount = gauge("p2p_peer_count", "Count of currently connected p2p peers");
    this.streamCount = gauge("p2p_stream_count", "Count of currently connected p2p streams");
    this.gossipEvents = counter("p2p_gossip_events_total", "Count of gossip events by type", ["type"]);
    // Opal's own P2P series (op-node has no per-reason gossip counts, req-resp results or ban counts).
    this.gossipValidations = counter(
      "p2p_gossip_validations_total",
      "Block gossip verdicts by result and reason (Opal; not in op-node)",
      ["result", "reason"],
    );
    this.reqResp = counter(
      "p2p_req_resp_total",
      "payload_by_number exchanges by role and result (Opal; not in op-node)",
      ["role", "result"],
    );
    this.peerBans = counter("p2p_peer_bans_total", "Peers banned for a score below the threshold (Opal)");
    this.peerScores = histogram(
      "peer_scores",
      "Histogram of currently connected peer scores (type: total)",
      PEER_SCORE_BUCKETS,
      ["type"],
    );

    if (opts.processMetrics ?? true) collectProcessMetrics(this.registry);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  async metricsText(): Promise<string> {
    // prom-client 15 writes NaN as "Nan" (lib/util.js), e.g. the event-loop lag gauges when no delay
    // was sampled since the last scrape. The text format spells it "NaN"; Prometheus reads either (Go
    // ParseFloat ignores case), stricter parsers do not.
    return (await this.registry.metrics()).replace(/^([^#\n][^\n]*) Nan$/gm, "$1 NaN");
  }

  recordInfo(version: string): void {
    this.info.set({ version }, 1);
  }

  recordUp(): void {
    this.up.set(1);
  }

  recordRpcServerRequest(method: string, seconds: number): void {
    this.rpcServerRequests.inc({ method });
    this.rpcServerDuration.observe({ method }, seconds);
  }

  recordRpcClientRequest(method: string, seconds: number, error?: unknown): void {
    this.rpcClientRequests.inc({ method });
    this.rpcClientDuration.observe({ method }, seconds);
    this.rpcClientResponses.inc({ method, error: rpcClientErrorLabel(error) });
  }

  setDerivationIdle(idle: boolean): void {
    this.derivationIdle.set(idle ? 1 : 0);
  }

  recordPipelineReset(): void {
    recordEvent(this.pipelineResets);
  }

  recordDerivationError(): void {
    recordEvent(this.derivationErrors);
  }

  recordDerivedBatch(type: BatchType): void {
    this.derivedBatches.total.inc({ type });
    this.derivedBatches.last.set({ type }, unixNow());
  }

  recordReceivedUnsafePayload(ref: RefLike): void {
    recordEvent(this.unsafePayloads);
    this.recordRef("l2", "received_payload", ref);
  }

  recordUnsafePayloadsBuffer(length: number, memBytes: number, next: BlockId): void {
    this.recordRef("l2", "l2_buffer_unsafe", next);
    this.unsafePayloadsBufferLen.set(length);
    this.unsafePayloadsBufferMemSize.set(memBytes);
  }

  recordL1ReorgDepth(depth: number): void {
    this.l1ReorgDepth.observe(depth);
  }

  recordRef(layer: RefLayer, type: RefType, ref: RefLike): void {
    const labels = { layer, type };
    this.refsNumber.set(labels, ref.number);
    const ts = ref.timestamp ?? 0;
    if (ts !== 0) {
      this.refsTime.set(labels, ts);
      const key = bytesToHex(ref.hash);
      if (this.latencySeen.get(type) !== key) {
        this.latencySeen.set(type, key);
        this.refsLatency.set(labels, ts - Date.now() / 1000);
      }
    }
    this.refsHash.set(labels, refHashValue(ref.hash));
  }

  recordL1Ref(type: L1RefType, ref: L1BlockRef): void {
    this.recordRef("l1", type, ref);
  }

  recordL2Ref(type: L2RefType, ref: L2BlockRef): void {
    this.recordRef("l2", type, ref);
    this.recordRef("l1_origin", type, ref.l1origin);
    this.refsSeqNr.set({ type }, ref.sequenceNumber);
  }

  recordSequencerBuildStarted(): void {
    this.sequencerBuildingStarted.inc();
  }

  recordSequencerBuild(diffSeconds: number): void {
    this.sequencerBuildingDiffTotal.inc();
    this.sequencerBuildingDiff.observe(diffSeconds);
  }

  recordSequencerSealing(seconds: number): void {
    this.sequencerSealingTotal.inc();
    this.sequencerSealing.observe(seconds);
  }

  recordSequencingError(): void {
    recordEvent(this.sequencingErrors);
  }

  recordSequencerReset(): void {
    recordEvent(this.sequencerResets);
  }

  recordSequencerInconsistentL1Origin(from: BlockId, to: BlockId): void {
    recordEvent(this.sequencerInconsistentL1Origin);
    this.recordRef("l1_origin", "inconsistent_from", from);
    this.recordRef("l1_origin", "inconsistent_to", to);
  }

  countSequencedTxs(count: number): void {
    this.transactionsSequenced.inc(count);
  }

  recordPublishingError(): void {
    recordEvent(this.publishingErrors);
  }

  setPeerCount(count: number): void {
    this.peerCount.set(count);
  }

  setStreamCount(count: number): void {
    this.streamCount.set(count);
  }

  recordGossipEvent(type: string): void {
    this.gossipEvents.inc({ type });
  }

  recordGossipValidation(result: "accept" | "reject" | "ignore", reason: string): void {
    this.gossipValidations.inc({ result, reason });
  }

  recordReqResp(role: "client" | "server", result: string): void {
    this.reqResp.inc({ role, result });
  }

  recordPeerBan(): void {
    this.peerBans.inc();
  }

  recordPeerScores(scores: readonly number[]): void {
    // A snapshot: the histogram holds the current peers only.
    this.peerScores.reset();
    for (const v of scores) this.peerScores.observe({ type: "total" }, v);
  }
}

function recordEvent(e: EventMetric<string>): void {
  e.total.inc();
  e.last.set(unixNow());
}

/** Metrics disabled: every recorder does nothing; the exposition is empty. */
export class NoopMetrics implements Metricer {
  get contentType(): string {
    return client.Registry.PROMETHEUS_CONTENT_TYPE;
  }
  metricsText(): Promise<string> {
    return Promise.resolve("");
  }
  recordInfo(_version: string): void {}
  recordUp(): void {}
  recordRpcServerRequest(_method: string, _seconds: number): void {}
  recordRpcClientRequest(_method: string, _seconds: number, _error?: unknown): void {}
  setDerivationIdle(_idle: boolean): void {}
  recordPipelineReset(): void {}
  recordDerivationError(): void {}
  recordDerivedBatch(_type: BatchType): void {}
  recordReceivedUnsafePayload(_ref: RefLike): void {}
  recordUnsafePayloadsBuffer(_length: number, _memBytes: number, _next: BlockId): void {}
  recordL1ReorgDepth(_depth: number): void {}
  recordRef(_layer: RefLayer, _type: RefType, _ref: RefLike): void {}
  recordL1Ref(_type: L1RefType, _ref: L1BlockRef): void {}
  recordL2Ref(_type: L2RefType, _ref: L2BlockRef): void {}
  recordSequencerBuildStarted(): void {}
  recordSequencerBuild(_diffSeconds: number): void {}
  recordSequencerSealing(_seconds: number): void {}
  recordSequencingError(): void {}
  recordSequencerReset(): void {}
  recordSequencerInconsistentL1Origin(_from: BlockId, _to: BlockId): void {}
  countSequencedTxs(_count: number): void {}
  recordPublishingError(): void {}
  setPeerCount(_count: number): void {}
  setStreamCount(_count: number): void {}
  recordGossipEvent(_type: string): void {}
  recordGossipValidation(_result: "accept" | "reject" | "ignore", _reason: string): void {}
  recordReqResp(_role: "client" | "server", _result: string): void {}
  recordPeerBan(): void {}
  recordPeerScores(_scores: readonly number[]): void {}
}
