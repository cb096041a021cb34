/**
 * Log queries, polling filters and push subscriptions (geth eth/filters): FilterCriteria decoding
 * with geth's texts, eth_getLogs range rules, installed filters that expire after 5 minutes without
 * a poll, and the newHeads / logs / newPendingTransactions subscriptions fed by the EventHub.
 */

import { headerHash } from "../../block/header.js";
import type { HeadChange } from "../../chain/blockchain.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { JsonValue } from "../../primitives/json.js";
import type { PooledTx } from "../../txpool/pooledTx.js";
import { type SliceJob, Slicer } from "../../util/slicer.js";
import { RpcError } from "../errors.js";
import type { EventHub } from "../events.js";
import { headerJson, logJson, logJsonLength } from "../format.js";
import { JsonText } from "../methodTable.js";
import { type BlockNumberSelector, blockNumber, hash, type ParamDecoder, ParamError } from "../params.js";
import { newSubscriptionId, type Subscription } from "../subscriptions.js";
import { pendingTxJson } from "../txpoolApi.js";
import { BloomQuery, blockMatches, type ChainReader, type LogBlock } from "./chainReader.js";

/** geth `maxTopics`: topic positions in a criteria (LOG0 … LOG4). */
export const MAX_TOPICS = 4;
/** geth `maxSubTopics`: alternatives in one topic position, checked when the criteria is decoded. */
export const MAX_SUB_TOPICS = 1000;
/** geth `filters.Config.Timeout` (no flag): filters not polled for this long are removed. */
export const FILTER_TIMEOUT_MS = 5 * 60 * 1000;

/** The log-query limits of geth's filter system (`filters.Config`). */
export interface LogQueryLimits {
  /** `--rpc.logquerylimit`: addresses, and alternatives per topic position, in a criteria (0 = no cap). */
  readonly logQueryLimit: number;
  /** `--rpc.rangelimit`: the largest `end - begin` of a range query (0 = unlimited). */
  readonly rangeLimit: number;
  /**
   * Characters of one query's reply (eth_getLogs, eth_getFilterLogs) past which it is refused with
   * -32003 "response too large": `--rpc.batch-response-max-size`, the cap geth puts on a batch's
   * replies, held to a single query too (0 = none).
   */
  readonly resultSizeLimit: number;
}

/** geth's defaults (`ethconfig.Defaults`: LogQueryLimit 1000, RangeLimit 0; BatchResponseMaxSize 25,000,000). */
export const DEFAULT_LOG_QUERY_LIMITS: LogQueryLimits = Object.freeze({
  logQueryLimit: 1000,
  rangeLimit: 0,
  resultSizeLimit: 25_000_000,
});

/** geth `errExceedLogQueryLimit` (a plain error: -32000) when a criteria is over `--rpc.logquerylimit`. */
export function checkLogQueryLimit(crit: FilterCriteria, limit: number): void {
  if (limit === 0) return;
  const over = crit.addresses.length > limit || crit.topics.some((t) => t !== null && t.length > limit);
  if (over) throw RpcError.server("exceed max addresses or topics per search position");
}

export interface FilterCriteria {
  readonly blockHash: Uint8Array | null;
  readonly fromBlock: BlockNumberSelector | null;
  readonly toBlock: BlockNumberSelector | null;
  readonly addresses: Uint8Array[];
  readonly topics: (Uint8Array[] | null)[];
}

function decodeAddr(s: string): Uint8Array {
  const raw = s.startsWith("0x") || s.startsWith("0X") ? s.slice(2) : s;
  if (raw.length !== 40 || !/^[0-9a-fA-F]*$/.test(raw)) throw new Error("hex has invalid length");
  return Uint8Array.from(Buffer.from(raw, "hex"));
}

function decodeTopic(s: string): Uint8Array {
  const raw = s.startsWith("0x") || s.startsWith("0X") ? s.slice(2) : s;
  if (raw.length !== 64 || !/^[0-9a-fA-F]*$/.test(raw))
    throw new ParamError(`hex string has length ${raw.length}, want 64 for common.Hash`);
  return Uint8Array.from(Buffer.from(raw, "hex"));
}

/** geth `FilterCriteria.UnmarshalJSON`. */
export function decodeFilterCriteria(v: unknown): FilterCriteria {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new ParamError(
      `json: cannot unmarshal ${Array.isArray(v) ? "array" : typeof v} into Go value of type filters.FilterCriteria`,
    );
  }
  const o: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) o[k.toLowerCase()] = val;
  const bh = o.blockhash === null || o.blockhash === undefined ? null : hash.decode(o.blockhash);
  const from = o.fromblock === null || o.fromblock === undefined ? null : blockNumber.decode(o.fromblock);
  const to = o.toblock === null || o.toblock === undefined ? null : blockNumber.decode(o.toblock);
  if (bh !== null && (from !== null || to !== null)) {
    throw new ParamError("cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other");
  }
  const addresses: Uint8Array[] = [];
  const ra = o.address;
  if (ra !== null && ra !== undefined) {
    if (Array.isArray(ra)) {
      ra.forEach((a, i) => {
        if (typeof a !== "string") throw new ParamError(`non-string address at index ${i}`);
        try {
          addresses.push(decodeAddr(a));
        } catch (e) {
          throw new ParamError(`invalid address at index ${i}: ${(e as Error).message}`);
        }
      });
    } else if (typeof ra === "string") {
      try {
        addresses.push(decodeAddr(ra));
      } catch (e) {
        throw new ParamError(`invalid address: ${(e as Error).message}`);
      }
    } else throw new ParamError("invalid addresses in query");
  }
  const topics: (Uint8Array[] | null)[] = [];
  const rt = o.topics;
  if (rt !== null && rt !== undefined) {
    if (!Array.isArray(rt))
      throw new ParamError("json: cannot unmarshal non-array into Go struct field input.topics of type []interface {}");
    if (rt.length > MAX_TOPICS) throw new ParamError("exceed max topics");
    for (const t of rt) {
      if (t === null) topics.push(null);
      else if (typeof t === "string") topics.push([decodeTopic(t)]);
      else if (Array.isArray(t)) {
        if (t.length > MAX_SUB_TOPICS) throw new ParamError("exceed max topics");
        let list: Uint8Array[] | null = [];
        for (const s of t) {
          if (s === null) {
            list = null;
            break;
          }
          if (typeof s !== "string") throw new ParamError("invalid topic(s)");
          list.push(decodeTopic(s));
        }
        topics.push(list === null || list.length === 0 ? null : list);
      } else throw new ParamError("invalid topic(s)");
    }
  }
  return { blockHash: bh, fromBlock: from, toBlock: to, addresses, topics };
}

export const filterCriteria: ParamDecoder<FilterCriteria> = { optional: false, decode: decodeFilterCriteria };
export const optionalFilterCriteria: ParamDecoder<FilterCriteria | undefined> = {
  optional: true,
  decode: (v) => (v === null || v === undefined ? undefined : decodeFilterCriteria(v)),
};

/**
 * "latest" (or an absent end) before it is resolved to the head: larger than any block number, as
 * geth's MaxInt64 stand-in is in the range check, and distinct from every number a client can send
 * (block numbers are at most 2^53-1).
 */
const HEAD_END = Number.POSITIVE_INFINITY;

/** A selector as geth's int64 block number: latest -2 → head, etc.; pending is refused. */
function resolveEnd(reader: ChainReader, sel: BlockNumberSelector | null): number {
  if (sel === null) return HEAD_END;
  if (sel.kind === "number") return sel.number;
  switch (sel.tag) {
    case "latest":
      return HEAD_END;
    case "pending":
      throw RpcError.invalidParams("pending logs are not supported");
    case "earliest":
    case "safe":
    case "finalized": {
      const h = reader.resolve(sel);
      const hd = h === null ? null : reader.chain.store.header(h);
      if (hd === null) throw RpcError.server(`${sel.tag} header not found`);
      return hd.number;
    }
  }
}

/** Matching logs serialized per unit of a sliced query before it yields (a few hundred µs of work). */
const LOGS_PER_UNIT = 256;

/**
 * eth_getLogs / eth_getFilterLogs as a sliced job (util/slicer.ts), yielding every `LOGS_PER_UNIT`
 * logs and after each block, so a query over the whole chain never holds the main thread for more
 * than a slice. With a reply cap (`limits.resultSizeLimit`) the reply is first measured without
 * being built (`logJsonLength`); past the cap the query stops there with geth's -32003 "response
 * too large" (what geth answers a batch past `--rpc.batch-response-max-size`), having held no more
 * than one block. Then the reply's JSON text is built one log at a time. `limits.logQueryLimit` is checked by eth_getLogs' caller
 * (`getLogs`); the range limit applies here, to the resolved ends as geth compares them ("latest"
 * is the largest number, so a range open at one end is over any limit, and an inverted range
 * wraps around as geth's uint64 subtraction does).
 */
export function* queryLogs(
  reader: ChainReader,
  crit: FilterCriteria,
  limits: LogQueryLimits = DEFAULT_LOG_QUERY_LIMITS,
): SliceJob<JsonText> {
  const query = new BloomQuery(crit.addresses, crit.topics);
  if (crit.blockHash !== null) {
    const b = reader.logBlock(crit.blockHash, query);
    if (b === null) throw RpcError.server("unknown block");
    return yield* logsJson(() => [b], crit, limits.resultSizeLimit);
  }
  const fromSel = crit.fromBlock;
  const toSel = crit.toBlock;
  // geth: only non-negative (explicit) numbers are compared before resolution.
  if (fromSel?.kind === "number" && toSel?.kind === "number" && fromSel.number > 0 && toSel.number > 0) {
    if (fromSel.number > toSel.number) throw RpcError.invalidParams("invalid block range params");
  }
  if (fromSel?.kind === "tag" && fromSel.tag === "pending")
    throw RpcError.invalidParams("pending logs are not supported");
  let begin = resolveEnd(reader, fromSel);
  let end = resolveEnd(reader, toSel);
  const range = limits.rangeLimit;
  if (range !== 0 && (end < begin || end - begin > range)) {
    throw RpcError.invalidParams(`exceed maximum block range ${range}`);
  }
  const head = reader.chain.head.number;
  if (begin === HEAD_END) begin = head;
  if (end === HEAD_END) end = head;
  if (begin > end) throw RpcError.invalidParams("invalid block range params");
  if (end > head) throw RpcError.invalidParams("block range extends beyond current head block");
  return yield* logsJson(() => canonicalBlocks(reader, begin, end, query), crit, limits.resultSizeLimit);
}

/**
 * The canonical blocks `begin..end`, read one at a time as the query reaches them, as much of each
 * as the query needs (`ChainReader.logBlock`: nothing past the header when its bloom rules it out).
 */
function* canonicalBlocks(
  reader: ChainReader,
  begin: number,
  end: number,
  query: BloomQuery,
): Generator<LogBlock, void, void> {
  for (let n = begin; n <= end; n++) {
    const h = reader.chain.store.canonicalHash(n);
    const b = h === null ? null : reader.logBlock(h, query);
    if (b !== null) yield b;
  }
}

/**
 * The JSON array of the matching logs of the blocks `blocks()` reads (once to measure when there is
 * a cap, once to build); the job yields between units.
 */
function* logsJson(blocks: () => Iterable<LogBlock>, crit: FilterCriteria, sizeLimit: number): SliceJob<JsonText> {
  if (sizeLimit > 0) {
    let unit = 0;
    let size = 1; // "[" and "]", less the comma the first log does not have
    for (const b of blocks()) {
      for (const m of blockMatches(b, crit.addresses, crit.topics)) {
        size += logJsonLength(m.log, m.place) + 1;
        if (size > sizeLimit) throw RpcError.responseTooLarge();
        if (++unit === LOGS_PER_UNIT * 8) {
          unit = 0;
          yield;
        }
      }
      yield;
    }
  }
  // Each unit's logs are joined into one chunk as it ends: the final join copies a few hundred
  // chunks, not one string per log, and the job holds fewer objects while it runs.
  const chunks: string[] = [];
  let unitParts: string[] = [];
  for (const b of blocks()) {
    for (const m of blockMatches(b, crit.addresses, crit.topics)) {
      unitParts.push(JSON.stringify(logJson(m.log, m.place)));
      if (unitParts.length === LOGS_PER_UNIT) {
        chunks.push(unitParts.join(","));
        unitParts = [];
        yield;
      }
    }
    yield;
  }
  if (unitParts.length > 0) chunks.push(unitParts.join(","));
  return JsonText.array(chunks);
}

/** eth_getLogs: geth `FilterAPI.GetLogs` (the log query limit, then the query, in slices). */
export function getLogs(
  reader: ChainReader,
  crit: FilterCriteria,
  limits: LogQueryLimits = DEFAULT_LOG_QUERY_LIMITS,
  slicer: Slicer = new Slicer(),
): JsonText | Promise<JsonText> {
  checkLogQueryLimit(crit, limits.logQueryLimit);
  return slicer.run(queryLogs(reader, crit, limits));
}

/** Logs of a head change: removed blocks (flagged) then added ones. */
export function headChangeLogs(
  reader: ChainReader,
  change: HeadChange,
  crit: FilterCriteria,
): Record<string, JsonValue>[] {
  const out: Record<string, JsonValue>[] = [];
  for (const h of change.removed) {
    const b = reader.block(headerHash(h));
    if (b !== null) out.push(...reader.blockLogs(b, crit.addresses, crit.topics, true));
  }
  for (const h of change.added) {
    const b = reader.block(headerHash(h));
    if (b !== null) out.push(...reader.blockLogs(b, crit.addresses, crit.topics));
  }
  return out;
}

/** geth `RPCMarshalHeader` (newHeads): the block fields without size. */
export function newHeadJson(reader: ChainReader, h: HeadChange["added"][number]): Record<string, JsonValue> {
  const hash = headerHash(h);
  const o = headerJson(h, hash, 0);
  delete o.size;
  void reader;
  return o;
}

type FilterKind = "logs" | "blocks" | "pendingTxs";

interface Installed {
  readonly kind: FilterKind;
  readonly crit: FilterCriteria | null;
  deadline: number;
  hashes: string[];
  logs: Record<string, JsonValue>[];
  readonly unsubscribe: () => void;
}

/** Installed polling filters (eth_newFilter & co.). */
export class FilterManager {
  private readonly filters = new Map<string, Installed>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly reader: ChainReader,
    private readonly events: EventHub,
    private readonly now: () => number = Date.now,
    private readonly limits: LogQueryLimits = DEFAULT_LOG_QUERY_LIMITS,
    private readonly slicer: Slicer = new Slicer(),
  ) {}

  get size(): number {
    return this.filters.size;
  }

  private install(kind: FilterKind, crit: FilterCriteria | null): string {
    const id = newSubscriptionId();
    let unsubscribe: () => void;
    if (kind === "pendingTxs") {
      unsubscribe = this.events.onPending((txs) => {
        const f = this.filters.get(id);
        if (f !== undefined) for (const p of txs) f.hashes.push(bytesToHex(p.hash));
      });
    } else {
      unsubscribe = this.events.onHeadChange((change) => {
        const f = this.filters.get(id);
        if (f === undefined) return;
        if (kind === "blocks") for (const h of change.added) f.hashes.push(bytesToHex(headerHash(h)));
        else if (crit !== null) f.logs.push(...headChangeLogs(this.reader, change, crit));
      });
    }
    this.filters.set(id, { kind, crit, deadline: this.now() + FILTER_TIMEOUT_MS, hashes: [], logs: [], unsubscribe });
    this.ensureTimer();
    return id;
  }

  private ensureTimer(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.expire(), Math.min(FILTER_TIMEOUT_MS, 60_000));
    this.timer.unref?.();
  }

  /** Removes filters whose deadline passed (geth's timeoutLoop); returns how many. */
  expire(now: number = this.now()): number {
    let n = 0;
    for (const [id, f] of this.filters) {
      if (f.deadline <= now) {
        f.unsubscribe();
        this.filters.delete(id);
        n++;
      }
    }
    if (this.filters.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
    return n;
  }

  newLogFilter(crit: FilterCriteria): string {
    checkLogQueryLimit(crit, this.limits.logQueryLimit);
    if (crit.fromBlock?.kind === "tag" && crit.fromBlock.tag === "pending") {
      throw RpcError.invalidParams("pending logs are not supported");
    }
    if (crit.toBlock?.kind === "tag" && crit.toBlock.tag === "pending") {
      throw RpcError.invalidParams("pending logs are not supported");
    }
    return this.install("logs", crit);
  }

  newBlockFilter(): string {
    return this.install("blocks", null);
  }

  newPendingTxFilter(): string {
    return this.install("pendingTxs", null);
  }

  uninstall(id: string): boolean {
    const f = this.filters.get(id);
    if (f === undefined) return false;
    f.unsubscribe();
    this.filters.delete(id);
    return true;
  }

  changes(id: string): JsonValue[] {
    this.expire();
    const f = this.filters.get(id);
    if (f === undefined) throw RpcError.server("filter not found");
    f.deadline = this.now() + FILTER_TIMEOUT_MS;
    if (f.kind === "logs") {
      const l = f.logs;
      f.logs = [];
      return l;
    }
    const h = f.hashes;
    f.hashes = [];
    return h;
  }

  filterLogs(id: string): JsonText | Promise<JsonText> {
    this.expire();
    const f = this.filters.get(id);
    if (f === undefined || f.kind !== "logs" || f.crit === null) throw RpcError.server("filter not found");
    return this.slicer.run(queryLogs(this.reader, f.crit, this.limits));
  }

  /** Drops every filter (node shutdown). */
  close(): void {
    for (const f of this.filters.values()) f.unsubscribe();
    this.filters.clear();
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}

/** newHeads subscription setup. */
export function subscribeNewHeads(reader: ChainReader, events: EventHub, sub: Subscription): void {
  const off = events.onHeadChange((change) => {
    for (const h of change.added) sub.notify(newHeadJson(reader, h));
  });
  sub.onCancel(off);
}

/** logs subscription setup (removed logs flagged on reorgs); `logQueryLimit` as geth `SubscribeLogs`. */
export function subscribeLogs(
  reader: ChainReader,
  events: EventHub,
  sub: Subscription,
  crit: FilterCriteria,
  logQueryLimit: number = DEFAULT_LOG_QUERY_LIMITS.logQueryLimit,
): void {
  checkLogQueryLimit(crit, logQueryLimit);
  if (crit.blockHash !== null) throw RpcError.invalidParams("can't specify fromBlock/toBlock with blockHash");
  const off = events.onHeadChange((change) => {
    for (const l of headChangeLogs(reader, change, crit)) sub.notify(l);
  });
  sub.onCancel(off);
}

/** newPendingTransactions subscription setup: hashes, or full txs with `fullTx`. */
export function subscribePendingTxs(events: EventHub, sub: Subscription, fullTx: boolean): void {
  const off = events.onPending((txs: readonly PooledTx[]) => {
    for (const p of txs) sub.notify(fullTx ? pendingTxJson(p) : bytesToHex(p.hash));
  });
  sub.onCancel(off);
}
