/**
 * Read-only execution off the main thread (design card; issue 9): eth_call, eth_estimateGas,
 * eth_createAccessList, eth_simulateV1, debug_traceCall, trace_call and the replays of stored blocks
 * (issue 26: `TRACE_METHODS`) run in the `evmCall` worker pool while the main thread only parses,
 * dispatches and answers.
 *
 * Main thread (`offloadCalls`): each of those methods keeps its name and arity but takes its
 * arguments raw; the handler posts `{method, params, head}` to the pool — `head` being the chain
 * head at dispatch, which is what "latest" means for the call — and turns the worker's reply back
 * into a result or an RpcError. A full queue is refused at once (-32005), and a call running past
 * `--rpc.evmtimeout` is aborted (its worker is replaced) with geth's "execution aborted" error.
 *
 * Worker (`CallWorker`): the very same method definitions (`ethCallMethods`, `debugApi`,
 * `traceApi`) over a `ChainView` of the worker's own handle on the node's RocksDB. The arguments
 * are decoded there with the methods' real decoders, so errors read exactly as on the main thread.
 * RocksDB has no snapshots that cross threads (storage-bindings.md §3), so consistency is
 * optimistic: the view is the committed state (`committedView`: an import between its writes is
 * undone by its pending record), the DB's sequence number is read before and after the call, and
 * a call that saw a write is run again (at most three times; then the last answer stands, as a
 * call that raced a block may also see in geth). A replay of stored blocks (TRACE_METHODS) notes
 * the keys it reads and runs again only when a block committed meanwhile wrote one of them
 * (`ReadLog`, `CallWorker.readsHeld`). A per-worker read cache is kept while the sequence stands
 * still and dropped when it moves.
 */
import type { Header } from "../block/header.js";
import type { ChainView } from "../chain/blockchain.js";
import { ChainStore, HeaderCache, META_CONFIG, META_STATE, pendingUndo } from "../chain/chainStore.js";
import { committedView, layerUndo } from "../chain/stateAt.js";
import { CallTimeoutError } from "../executor/simulate.js";
import { bytesKey, equalBytes } from "../primitives/bytes.js";
import { bytesToHex } from "../primitives/hex.js";
import { type ChainConfig, parseChainConfig } from "../spec/chainConfig.js";
import { CachedKv, type CachedKvOptions, EXECUTION_CACHE } from "../storage/cachedKv.js";
import {
  getManyShared,
  getShared,
  type KvCursor,
  type KvCursorOptions,
  type KvRange,
  type KvReader,
  type KvStore,
} from "../storage/kv.js";
import type { HiddenPrefixes, Overlay } from "../storage/overlayKv.js";
import type { TableName } from "../storage/tables.js";
import type { TaskPool } from "../util/taskPool.js";
import { debugApi } from "./debug/api.js";
import { traceApi } from "./debug/traceApi.js";
import { RpcError, type RpcErrorJson, toRpcError } from "./errors.js";
import { ethCallMethods } from "./eth/api.js";
import { type CallDeps, EthBackend } from "./eth/backend.js";
import { ChainReader } from "./eth/chainReader.js";
import { JsonText } from "./methodTable.js";
import { decodePositional, type ParamDecoder } from "./params.js";
import { type AnyMethod, type CallContext, defineMethod } from "./registry.js";

/**
 * The re-executions of history (issue 26): a trace of a big block runs for seconds (a 51 M-gas block
 * of 16 txs: 1–2 s), far past a slice of the main thread, and one tx cannot be cut into slices. They
 * run in the pool, bounded per tx by their trace timeout (debug_*) and as a whole by
 * `TRACE_TASK_TIMEOUT_MS`, and answer JSON text already measured against the reply cap.
 */
export const TRACE_METHODS: readonly string[] = [
  "debug_traceTransaction",
  "debug_traceBlockByNumber",
  "debug_traceBlockByHash",
  "debug_traceBlock",
  "debug_intermediateRoots",
  "trace_block",
  "trace_transaction",
  "trace_replayBlockTransactions",
  "trace_filter",
];

/** The methods that run in the pool. */
export const OFFLOADED_METHODS: readonly string[] = [
  "eth_call",
  "eth_estimateGas",
  "eth_createAccessList",
  "eth_simulateV1",
  "debug_traceCall",
  "trace_call",
  ...TRACE_METHODS,
];

/**
 * The methods whose worker answers JSON text (`{json}`) rather than a value: their results can be
 * large (traces, simulated blocks), and a value crosses to the main thread as a structured clone that
 * the main thread must rebuild and then serialize; text crosses as one string and is sent as it is.
 */
const TEXT_METHODS: ReadonlySet<string> = new Set([
  "eth_simulateV1",
  "debug_traceCall",
  "trace_call",
  ...TRACE_METHODS,
]);

/**
 * How long a trace task may hold its worker: geth's HTTP WriteTimeout (30 s), past which an HTTP
 * client has had its -32002 "request timed out" and no longer waits for the answer. geth bounds
 * each traced tx (TraceConfig.timeout, 5 s) but not a block trace or trace_filter as a whole.
 */
export const TRACE_TASK_TIMEOUT_MS = 30_000;

/** JSON-RPC code for a full call queue (EIP-1474 "limit exceeded"). */
export const QUEUE_FULL_CODE = -32005;

export interface CallTask {
  readonly kind: "rpc";
  readonly method: string;
  readonly params: unknown[];
  /** The chain head when the call was dispatched: the call's "latest". */
  readonly head: Uint8Array;
}

export type CallReply = { readonly result: unknown } | { readonly json: string } | { readonly error: RpcErrorJson };

/** A pool that can abort a task (Piscina replaces the worker). */
export interface AbortablePool extends TaskPool {
  run<T>(task: unknown, transfer?: readonly ArrayBufferLike[], signal?: AbortSignal): Promise<T>;
}

/** Arguments passed through untouched; the worker decodes them with the method's own decoders. */
const raw: ParamDecoder<unknown> = { optional: true, decode: (v) => v };

export interface OffloadOptions {
  readonly pool: AbortablePool;
  /** The chain head to call against ("latest"). */
  readonly head: () => Uint8Array;
  /** --rpc.evmtimeout in ms (0: no limit); trace tasks have TRACE_TASK_TIMEOUT_MS instead. */
  readonly timeoutMs: number;
  /** Answers kept per head (0: no cache); default REPLY_CACHE_ENTRIES. */
  readonly cacheEntries?: number;
  /**
   * Told why a task failed in the pool (a worker that crashed or could not start): the operator's
   * side of the -32603 the client gets, which names no worker, class or stack.
   */
  readonly onWorkerError?: (method: string, e: Error) => void;
  /**
   * eth_call runs on the main thread first, over `deps` (the main thread's chain view), for up to
   * `budgetMs`; one still running then is stopped and sent to the pool. Absent, or a budget of 0:
   * every call goes to the pool.
   */
  readonly inline?: { readonly deps: CallDeps; readonly budgetMs: number } | null;
}

/** The methods tried on the main thread first (under OffloadOptions.inline). */
const INLINE_METHODS: readonly string[] = ["eth_call"];
/** Call shapes (target and selector) remembered as over the inline budget, after how many overruns, for how long. */
const HEAVY_SHAPES = 1024;
export const HEAVY_STRIKES = 3;
const HEAVY_FOR_MS = 1000;

/** Default size of the per-head reply cache. */
export const REPLY_CACHE_ENTRIES = 4096;
/** Replies larger than this (JSON characters) are not kept. */
const REPLY_CACHE_MAX_CHARS = 16 * 1024;

/**
 * The answers of the worker for the current head, by method and arguments. A read-only call is a
 * function of the arguments and the state and context of the block it names; with "latest" and
 * block numbers resolved against one head, the same request under the same head has the same
 * answer, so it is answered from here without execution (dapps and multicall front ends poll the
 * same calls every block). The cache is emptied when the head moves. Requests naming the "safe" or
 * "finalized" block are not cached (those move without the head), nor are timeouts, full queues
 * or worker failures, which say nothing about the call.
 */
class ReplyCache {
  private head = "";
  private readonly map = new Map<string, CallReply>();

  constructor(private readonly limit: number) {}

  /** The cache key of a request under `head` (a new head empties the cache); null: not cacheable. */
  key(method: string, head: string, params: unknown[]): string | null {
    if (this.limit === 0) return null;
    if (head !== this.head) {
      this.map.clear();
      this.head = head;
    }
    const args = JSON.stringify(params);
    if (args.includes('"safe"') || args.includes('"finalized"')) return null;
    return `${method}${args}`;
  }

  get(key: string): CallReply | undefined {
    return this.map.get(key);
  }

  /** Keeps a reply computed under `head`, unless the head has moved on meanwhile. */
  put(key: string, head: string, reply: CallReply): void {
    if (head !== this.head) return;
    if ("result" in reply || "json" in reply) {
      const r = "json" in reply ? reply.json : reply.result;
      const size = typeof r === "string" ? r.length : JSON.stringify(r ?? null).length;
      if (size > REPLY_CACHE_MAX_CHARS) return;
    }
    if (this.map.size >= this.limit) this.map.delete(this.map.keys().next().value as string);
    this.map.set(key, reply);
  }
}

/**
 * The main-thread side of inline calls: the budgeted twins of INLINE_METHODS, and the call shapes
 * (target address and 4-byte selector) that ran past the budget HEAVY_STRIKES times in a row, which
 * go straight to the pool for HEAVY_FOR_MS instead of spending the budget again (the same function
 * of the same contract costs about the same). One overrun alone proves little: a first call runs
 * cold code, and a busy machine may preempt the thread in the middle of any call.
 */
export class InlineRunner {
  private readonly methods = new Map<string, AnyMethod>();
  /** Shape → overruns in a row and when the last one was. */
  private readonly strikes = new Map<string, { n: number; at: number }>();

  constructor(deps: CallDeps, budgetMs: number) {
    for (const m of ethCallMethods(new EthBackend({ ...deps, budgetMs }))) {
      if (INLINE_METHODS.includes(m.name)) this.methods.set(m.name, m);
    }
  }

  /** The twin to try for `method` with these raw arguments, or undefined: the pool's turn. */
  candidate(method: string, args: unknown[]): AnyMethod | undefined {
    const def = this.methods.get(method);
    if (def === undefined || this.strikes.size === 0) return def;
    const s = this.strikes.get(shapeOf(args));
    if (s === undefined || s.n < HEAVY_STRIKES || Date.now() - s.at >= HEAVY_FOR_MS) return def;
    return undefined;
  }

  /** A call of this shape ran within the budget. */
  inBudget(args: unknown[]): void {
    if (this.strikes.size > 0) this.strikes.delete(shapeOf(args));
  }

  overBudget(args: unknown[]): void {
    const k = shapeOf(args);
    const s = this.strikes.get(k);
    if (s !== undefined) {
      s.n++;
      s.at = Date.now();
      return;
    }
    if (this.strikes.size >= HEAVY_SHAPES) this.strikes.delete(this.strikes.keys().next().value as string);
    this.strikes.set(k, { n: 1, at: Date.now() });
  }
}

/** A call's shape: its target and selector, from the raw call object (`to`, `input` or `data`). */
function shapeOf(args: unknown[]): string {
  const a = args[0];
  if (a === null || typeof a !== "object") return "";
  const { to, input, data } = a as { to?: unknown; input?: unknown; data?: unknown };
  const d = typeof input === "string" ? input : typeof data === "string" ? data : "";
  return `${typeof to === "string" ? to.toLowerCase() : ""}${d.slice(0, 10).toLowerCase()}`;
}

/**
 * `methods` with those of OFFLOADED_METHODS replaced by pool-backed twins of the same arity; the
 * others unchanged.
 */
export function offloadCalls<
  M extends { readonly name: string; readonly kind: string; readonly params: readonly unknown[] },
>(methods: readonly M[], opts: OffloadOptions): (M | AnyMethod)[] {
  const cache = new ReplyCache(opts.cacheEntries ?? REPLY_CACHE_ENTRIES);
  const inline = opts.inline ?? null;
  const runner = inline === null || inline.budgetMs <= 0 ? null : new InlineRunner(inline.deps, inline.budgetMs);
  return methods.map((m) => {
    if (m.kind !== "method" || !OFFLOADED_METHODS.includes(m.name)) return m;
    return defineMethod({
      name: m.name,
      params: m.params.map(() => raw),
      handler: (params, ctx) => runCall(opts, cache, runner, m.name, params as unknown[], ctx),
    });
  });
}

function unwrap(reply: CallReply): unknown {
  if ("error" in reply) throw new RpcError(reply.error.code, reply.error.message, reply.error.data);
  return "json" in reply ? new JsonText([reply.json]) : reply.result;
}

/**
 * One offloaded call: from the reply cache, else on the main thread within the inline budget
 * (answered synchronously), else in the pool (a promise).
 */
function runCall(
  opts: OffloadOptions,
  cache: ReplyCache,
  runner: InlineRunner | null,
  method: string,
  params: unknown[],
  ctx: CallContext,
): unknown {
  // Missing trailing arguments stay missing (the worker's decoders tell optional from required).
  let n = params.length;
  while (n > 0 && params[n - 1] === undefined) n--;
  const args = n === params.length ? params : params.slice(0, n);
  const head = opts.head();
  const headHex = bytesToHex(head);
  const key = cache.key(method, headHex, args);
  const hit = key === null ? undefined : cache.get(key);
  if (hit !== undefined) return unwrap(hit);
  const def = runner?.candidate(method, args);
  if (def !== undefined) {
    const reply = runInline(def, args, ctx);
    if (reply !== null) {
      runner!.inBudget(args);
      if (key !== null) cache.put(key, headHex, reply);
      return unwrap(reply);
    }
    runner!.overBudget(args);
  }
  return runOffloaded(opts, cache, method, args, head, headHex, key);
}

/** Runs a budgeted twin as the worker would (CallWorker.run); null when it ran past its budget. */
function runInline(def: AnyMethod, params: unknown[], ctx: CallContext): CallReply | null {
  try {
    const args = decodePositional(params, def.params);
    if (typeof args === "string") return { error: RpcError.invalidParams(args).toJSON() };
    return { result: (def.handler as (p: unknown[], c: CallContext) => unknown)(args, ctx) };
  } catch (e) {
    if (e instanceof CallTimeoutError) return null;
    return { error: toRpcError(e).toJSON() };
  }
}

async function runOffloaded(
  opts: OffloadOptions,
  cache: ReplyCache,
  method: string,
  args: unknown[],
  head: Uint8Array,
  headHex: string,
  key: string | null,
): Promise<unknown> {
  const { pool } = opts;
  if (!pool.canAcceptWork()) {
    throw new RpcError(QUEUE_FULL_CODE, `too many calls in flight: the ${method} queue is full`);
  }
  const task: CallTask = { kind: "rpc", method, params: args, head };
  const timeoutMs = TRACE_METHODS.includes(method) ? TRACE_TASK_TIMEOUT_MS : opts.timeoutMs;
  const signal = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
  let reply: CallReply;
  try {
    reply = await pool.run<CallReply>(task, [], signal);
  } catch (e) {
    if (signal?.aborted === true) {
      throw RpcError.executionAborted(timeoutMs);
    }
    // The hop itself failed (the worker died, or its task threw past CallWorker.run): geth's answer
    // for a handler that crashed, with the cause logged, not sent (it names threads and files).
    opts.onWorkerError?.(method, e instanceof Error ? e : new Error(String(e)));
    throw RpcError.internal(HANDLER_CRASHED);
  }
  if (key !== null) cache.put(key, headHex, reply);
  return unwrap(reply);
}

/** geth's -32603 text for a recovered handler panic (rpc/service.go `call`: "method handler crashed"). */
const HANDLER_CRASHED = "method handler crashed";

/** A ChainView whose parts are replaced for each call. */
class WorkerChain implements ChainView {
  store: ChainStore;
  head!: Header;
  headBlockHash: Uint8Array = new Uint8Array(32);
  stateBlockHash: Uint8Array = new Uint8Array(32);

  constructor(
    readonly config: ChainConfig,
    kv: KvReader,
  ) {
    this.store = new ChainStore(kv);
  }
}

const CTX: CallContext = { transport: "http", remoteAddr: "worker" };

/**
 * The worker's read cache. It is dropped whenever the DB's sequence moves, so unlike the main
 * thread's (which sees every write) it may hold any table: the chain's metadata, headers and
 * canonical index as well as accounts, slots and code.
 */
const WORKER_CACHE: CachedKvOptions = {
  tables: { ...EXECUTION_CACHE.tables, meta: 64, headers: 1024, canonical: 1024, bodies: 256 },
};
const MAX_ATTEMPTS = 3;
/** Reads of the view's sequence before a run gives up waiting for the DB to stand still (each ~µs). */
const PREPARE_TRIES = 8;
/** Blocks committed during a trace that `CallWorker.readsHeld` follows back before it gives up (and runs it again). */
const MAX_FOLLOWED_BLOCKS = 64;

/**
 * A reader that notes every key read through it (issue 26). A trace runs for seconds, so on a live
 * chain a block is nearly always committed meanwhile; rather than run it again for that alone, the
 * worker checks the keys the trace read against the keys the committed blocks wrote (their undo
 * records): when none of them was, every read saw the state it started on.
 */
class ReadLog implements KvReader {
  readonly keys = new Map<TableName, Set<string>>();
  /** A range was read (iterate, cursor): the reads cannot be checked key by key. */
  ranged = false;

  constructor(private readonly base: KvReader) {}

  get(table: TableName, key: Uint8Array): Uint8Array | undefined {
    this.note(table, key);
    return this.base.get(table, key);
  }

  getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    for (const k of keys) this.note(table, k);
    return this.base.getMany(table, keys);
  }

  getShared(table: TableName, key: Uint8Array): Uint8Array | undefined {
    this.note(table, key);
    return getShared(this.base, table, key);
  }

  getManyShared(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    for (const k of keys) this.note(table, k);
    return getManyShared(this.base, table, keys);
  }

  iterate(table: TableName, range?: KvRange): Iterable<[Uint8Array, Uint8Array]> {
    this.ranged = true;
    return this.base.iterate(table, range);
  }

  cursor(table: TableName, opts?: KvCursorOptions): KvCursor {
    this.ranged = true;
    return this.base.cursor(table, opts);
  }

  private note(table: TableName, key: Uint8Array): void {
    let set = this.keys.get(table);
    if (set === undefined) {
      set = new Set();
      this.keys.set(table, set);
    }
    set.add(bytesKey(key));
  }
}

/** The worker's side: runs call tasks on its own view of the node's store. */
export class CallWorker {
  private readonly chain: WorkerChain;
  private readonly methods: Map<string, AnyMethod>;
  private cache: CachedKv;
  private cacheSeq = -1;
  /** Decoded headers by hash: immutable, so kept across blocks. */
  private readonly headers = new HeaderCache();
  /** Calls run again because a block was committed while it ran (tests). */
  retries = 0;
  /** Traces kept although a block was committed while they ran: it wrote none of their keys (tests). */
  held = 0;

  /**
   * `replyMaxSize`: the node's reply cap (`--rpc.batch-response-max-size`, 0 = none); a text answer
   * past it is -32003 "response too large" here, and traces stop recording there.
   */
  constructor(
    private readonly kv: KvStore & { readonly sequence: number },
    config: ChainConfig,
    gasCap: bigint,
    private readonly replyMaxSize = 0,
  ) {
    this.cache = new CachedKv(kv, WORKER_CACHE);
    this.chain = new WorkerChain(config, kv);
    const reader = new ChainReader(this.chain);
    const deps = { chain: this.chain, reader, gasCap, resultSizeLimit: replyMaxSize };
    const all = [...ethCallMethods(new EthBackend(deps)), ...debugApi(deps), ...traceApi(deps)];
    this.methods = new Map(all.filter((m) => OFFLOADED_METHODS.includes(m.name)).map((m) => [m.name, m]));
  }

  /** A worker over a store written by `Blockchain.init`: the chain config comes from the store. */
  static open(kv: KvStore & { readonly sequence: number }, gasCap: bigint, replyMaxSize = 0): CallWorker {
    const raw = new ChainStore(kv).meta(META_CONFIG);
    if (raw === null) throw new Error("call worker: the store holds no chain config");
    return new CallWorker(kv, parseChainConfig(JSON.parse(new TextDecoder().decode(raw))), gasCap, replyMaxSize);
  }

  async run(task: CallTask): Promise<CallReply> {
    const def = this.methods.get(task.method);
    if (def === undefined) return { error: RpcError.methodNotFound(task.method).toJSON() };
    // Whatever a decoder throws is answered here as the dispatcher answers it on the main thread:
    // nothing may escape `run`, or the caller could only report the hop as failed.
    let args: unknown[] | string;
    try {
      args = decodePositional(task.params, def.params);
    } catch (e) {
      return { error: toRpcError(e).toJSON() };
    }
    if (typeof args === "string") return { error: RpcError.invalidParams(args).toJSON() };
    let reply: CallReply | null = null;
    const trace = TRACE_METHODS.includes(task.method);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      let seq = -1;
      let log: ReadLog | null = null;
      try {
        // The view is fixed at one sequence: its pending undo and state block are read with no write
        // between them (a commit in between pairs the new state block with the old undo, and
        // `readsHeld`, which follows the blocks from the view's state block, could not see it).
        for (let i = 0; i < PREPARE_TRIES && seq !== this.kv.sequence; i++) {
          seq = this.kv.sequence;
          log = trace ? new ReadLog(this.cacheAt(seq)) : null;
          this.prepare(seq, task.head, log);
        }
        const result = await (def.handler as (p: unknown[], c: CallContext) => unknown)(args, CTX);
        reply = TEXT_METHODS.has(task.method) ? this.text(result) : { result };
      } catch (e) {
        reply = { error: toRpcError(e).toJSON() };
      }
      if (this.kv.sequence === seq) return reply;
      if (log !== null && this.readsHeld(log)) {
        this.held++;
        return reply;
      }
      this.retries++;
    }
    return reply as CallReply;
  }

  /** A result as JSON text, held to the reply cap. */
  private text(result: unknown): CallReply {
    const json = result instanceof JsonText ? result.toString() : JSON.stringify(result ?? null);
    const max = this.replyMaxSize;
    return max > 0 && json.length > max ? { error: RpcError.responseTooLarge().toJSON() } : { json };
  }

  /**
   * Whether every key `log` read still holds the value it had when the run began, though the DB has
   * moved on: the blocks committed since (from the state block now back to the one the run began
   * on, and an import between its writes) wrote none of them. A rewind, a reorg, more than
   * MAX_FOLLOWED_BLOCKS blocks or a range read: no (the run goes again).
   */
  private readsHeld(log: ReadLog): boolean {
    if (log.ranged) return false;
    const store = new ChainStore(this.kv);
    const written: Overlay = new Map();
    // Range deletes (a new contract's rows undone as one prefix): every key under them was written.
    const ranges: HiddenPrefixes = new Map();
    const pending = pendingUndo(this.kv);
    if (pending !== undefined) layerUndo(written, pending, ranges);
    let cursor = store.meta(META_STATE);
    for (let n = 0; cursor !== null && !equalBytes(cursor, this.chain.stateBlockHash); n++) {
      const rec = n < MAX_FOLLOWED_BLOCKS ? this.kv.get("history", cursor) : undefined;
      const h = rec === undefined ? null : store.header(cursor);
      if (rec === undefined || h === null) return false;
      layerUndo(written, rec, ranges);
      cursor = h.parentHash;
    }
    if (cursor === null) return false;
    for (const [table, keys] of written) {
      const read = log.keys.get(table);
      if (read !== undefined) for (const k of keys.keys()) if (read.has(k)) return false;
    }
    for (const [table, prefixes] of ranges) {
      const read = log.keys.get(table);
      if (read === undefined) continue;
      const starts = prefixes.map(bytesKey);
      for (const k of read) for (const p of starts) if (k.startsWith(p)) return false;
    }
    return true;
  }

  /** Points the chain view at the committed state as of now (read through `log` when there is one). */
  /**
   * The read cache for the DB at sequence `seq`, a fresh one when the DB has moved on. A trace's
   * `ReadLog` must wrap this one: over the cache of an earlier sequence it read rows from before the
   * last commit next to rows after it (soak: NONCE_TOO_LOW replaying the head block).
   */
  private cacheAt(seq: number): CachedKv {
    if (seq !== this.cacheSeq) {
      this.cache = new CachedKv(this.kv, WORKER_CACHE);
      this.cacheSeq = seq;
    }
    return this.cache;
  }

  private prepare(seq: number, head: Uint8Array, log: ReadLog | null = null): void {
    const store = new ChainStore(committedView(log ?? this.cacheAt(seq)), this.headers);
    const c = this.chain;
    c.store = store;
    c.stateBlockHash = store.meta(META_STATE) ?? new Uint8Array(32);
    const h = store.header(head);
    // The head the call was dispatched under is not in this view (a rewind removed it): geth's text
    // for a block it has no header for.
    if (h === null) throw RpcError.server("header not found");
    c.head = h;
    c.headBlockHash = head;
  }
}
