/**
 * Transport-independent JSON-RPC 2.0 dispatch with go-ethereum's envelope rules (`rpc/json.go`,
 * `rpc/handler.go`): single requests and batches, notifications (no `id`) run but get no answer,
 * `id` may be any JSON value but an object or array, responses and `*_subscription` messages sent
 * to the server are dropped, `*_subscribe`/`*_unsubscribe` are generic, batch limits as
 * `--rpc.batch-request-limit` / `--rpc.batch-response-max-size`. Batch items run in order.
 *
 * Hot path: a handler that returns a plain value is answered synchronously (no promise, no await);
 * only a handler that returns a promise makes the reply a promise. Responses are built by string
 * concatenation around one `JSON.stringify` of the result.
 */

import type { Logger } from "../util/log.js";
import { RpcError, RpcErrorCode, toRpcError } from "./errors.js";
import {
  type AnyMethod,
  type AnySubscription,
  type CallContext,
  JsonText,
  type MethodTable,
  subscriptionKey,
} from "./methodTable.js";
import { decodePositional, goString, type ParamDecoder } from "./params.js";
import type { ConnectionSubscriptions, Subscription } from "./subscriptions.js";

export interface DispatcherOptions {
  /** Max items per batch; 0 = unlimited (geth `--rpc.batch-request-limit`, default 1000). */
  readonly batchItemLimit: number;
  /**
   * Max summed size of a batch's responses, in UTF-16 code units of each response object (geth
   * counts result+error bytes; the envelope and non-ASCII text make ours slightly stricter);
   * 0 = unlimited (geth `--rpc.batch-response-max-size`, default 25,000,000).
   */
  readonly batchResponseMaxSize: number;
  /**
   * Max size of one call's reply, in UTF-16 code units: a longer one is answered -32003 "response
   * too large" instead (geth's error for a batch past its cap); 0 = unlimited (geth, and the Engine
   * API). opal-exec's public servers hold every reply to `--rpc.batch-response-max-size`, so no
   * single call (a trace of a big block, a block's receipts) makes the node build and hold more.
   */
  readonly replyMaxSize: number;
  /**
   * Told of every crash (a programming error a handler threw, answered -32603 "method handler
   * crashed" without its text): geth logs "RPC method X crash" with the stack. `method` is "" for a
   * crash outside any method (the message envelope).
   */
  readonly onCrash: CrashReporter;
}

/** Receives a handler crash: the method and what it threw (its stack is for the log only). */
export type CrashReporter = (method: string, error: unknown) => void;

/** geth's "RPC method X crash: <error>" at error level, with the stack. */
export function logCrashes(log: Logger): CrashReporter {
  return (method, error) => {
    const what = method === "" ? "RPC request crash" : `RPC method ${method} crash`;
    log.error(what, { err: String(error), stack: error instanceof Error ? (error.stack ?? "") : "" });
  };
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = Object.freeze({
  batchItemLimit: 1000,
  batchResponseMaxSize: 25_000_000,
  onCrash: () => {},
  replyMaxSize: 0,
});

/** One client connection as the dispatcher sees it. `subs` is null on transports without push (HTTP). */
export interface RpcConnection {
  readonly ctx: CallContext;
  readonly subs: ConnectionSubscriptions | null;
}

/**
 * A serialized reply (object or batch array), or null when nothing is to be sent. A long read's
 * reply stays in chunks (`JsonText`) for the transport to write as they are.
 */
export type Reply = string | JsonText | null;

/**
 * Per-message scratch a push transport passes in: subscriptions created while handling the message
 * land in `created`, to be activated once the reply is written.
 */
export interface CallProc {
  readonly created: Subscription[];
}

/**
 * Main-thread time a batch's synchronous calls may take before the rest waits for the event loop's
 * next turn: the same 2 ms a turn as the long reads' slicer (util/slicer.ts).
 */
const BATCH_SLICE_MS = 2;

/** geth `maxMethodNameLength`. */
const MAX_METHOD_NAME_LENGTH = 2048;

/** The reply to a body that is not JSON (geth: invalidMessageError "parse error", id null). */
export const PARSE_ERROR_REPLY = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`;
/** The answer to a crash outside any method's handler. */
const CRASH_REPLY = `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"method handler crashed"}}`;

const EMPTY_BATCH_REPLY = errorReply("null", RpcError.emptyBatch());
const TIMEOUT = new RpcError(RpcErrorCode.Timeout, "request timed out");
const RPC_ID: ParamDecoder<string> = goString("rpc.ID");
const SUBSCRIPTION_NAME: ParamDecoder<string> = goString();

/** Envelope fields of one message, read the way geth's `jsonrpcMessage` unmarshals them. */
interface Msg {
  validVersion: boolean;
  /** JSON text of `id`; undefined when absent. */
  idJson: string | undefined;
  validId: boolean;
  method: string;
  params: unknown;
  hasParams: boolean;
  hasResultOrError: boolean;
}

function readMsg(v: unknown): Msg {
  const m: Msg = {
    validVersion: false,
    idJson: undefined,
    validId: false,
    method: "",
    params: undefined,
    hasParams: false,
    hasResultOrError: false,
  };
  if (v === null || typeof v !== "object" || Array.isArray(v)) return m;
  const o = v as Record<string, unknown>;
  if ("jsonrpc" in o && "method" in o) {
    setField(m, "jsonrpc", o.jsonrpc);
    setField(m, "method", o.method);
    if ("id" in o) setField(m, "id", o.id);
    if ("params" in o) setField(m, "params", o.params);
    if ("result" in o || "error" in o) m.hasResultOrError = true;
  } else {
    // encoding/json matches keys case-insensitively; the last occurrence wins.
    for (const k of Object.keys(o)) setField(m, k.toLowerCase(), o[k]);
  }
  return m;
}

function setField(m: Msg, key: string, val: unknown): void {
  switch (key) {
    case "jsonrpc":
      m.validVersion = val === "2.0";
      return;
    case "method":
      m.method = typeof val === "string" ? val : "";
      return;
    case "id":
      // An object or array id is invalid and answered with id null: it is never serialized (a
      // deeply nested one would overflow JSON.stringify's stack).
      m.validId = val === null || typeof val !== "object";
      m.idJson = m.validId ? JSON.stringify(val) : "null";
      return;
    case "params":
      m.params = val;
      m.hasParams = true;
      return;
    case "result":
    case "error":
      m.hasResultOrError = true;
      return;
  }
}

function isNotification(m: Msg): boolean {
  return m.validVersion && m.idJson === undefined && m.method !== "";
}

/** Dropped without an answer: responses sent to us, and subscription notifications (geth handleResponses). */
function isIgnored(m: Msg): boolean {
  if (m.validVersion && m.validId && m.method === "" && !m.hasParams && m.hasResultOrError) return true;
  return isNotification(m) && m.method.endsWith("_subscription");
}

function errorReply(idJson: string | undefined, e: RpcError): string {
  const err = JSON.stringify(e.toJSON());
  return idJson === undefined ? `{"jsonrpc":"2.0","error":${err}}` : `{"jsonrpc":"2.0","id":${idJson},"error":${err}}`;
}

function resultReply(idJson: string, result: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch (e) {
    // geth errcodeMarshalError (-32603) with the marshaller's message.
    return errorReply(idJson, RpcError.internal((e as Error).message));
  }
  return `{"jsonrpc":"2.0","id":${idJson},"result":${json ?? "null"}}`;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && typeof v === "object" && typeof (v as { then?: unknown }).then === "function";
}

function namespaceOf(method: string): string {
  const i = method.indexOf("_");
  return i < 0 ? method : method.slice(0, i);
}

export class Dispatcher {
  readonly opts: DispatcherOptions;
  private readonly methods: ReadonlyMap<string, AnyMethod>;
  private readonly subscriptions: ReadonlyMap<string, AnySubscription>;

  constructor(
    readonly table: MethodTable,
    opts: Partial<DispatcherOptions> = {},
  ) {
    this.opts = Object.freeze({ ...DEFAULT_DISPATCHER_OPTIONS, ...opts });
    this.methods = table.methods;
    this.subscriptions = table.subscriptions;
  }

  get apis(): readonly string[] {
    return this.table.apis;
  }

  /**
   * Handles one body or frame. Whitespace only → null (geth reads EOF and answers nothing); not
   * JSON → `PARSE_ERROR_REPLY`. With `timeoutMs` > 0, a reply still pending after that long is
   * answered -32002 "request timed out" (geth over HTTP: the server's WriteTimeout − 100 ms); in a
   * batch, answered items are kept and the unanswered ones get the error.
   */
  handleText(text: string, conn: RpcConnection, proc: CallProc | null = null, timeoutMs = 0): Reply | Promise<Reply> {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return text.trim() === "" ? null : PARSE_ERROR_REPLY;
    }
    // Nothing a message can hold makes the envelope code throw; should it, the crash is reported
    // and answered rather than left to the transport (an empty HTTP 200, no WebSocket reply).
    try {
      const r = this.handleParsed(v, conn, proc, timeoutMs);
      return isThenable(r) ? Promise.resolve(r).catch((e: unknown) => this.envelopeCrash(e)) : r;
    } catch (e) {
      return this.envelopeCrash(e);
    }
  }

  private envelopeCrash(e: unknown): Reply {
    this.opts.onCrash("", e);
    return CRASH_REPLY;
  }

  /** toRpcError, with a crash (a programming error) reported to `onCrash`. */
  private errorOf(method: string, e: unknown): RpcError {
    const err = toRpcError(e);
    if (err.code === RpcErrorCode.Internal && !(e instanceof RpcError)) this.opts.onCrash(method, e);
    return err;
  }

  /** Handles an already parsed single message or batch. */
  handleParsed(v: unknown, conn: RpcConnection, proc: CallProc | null = null, timeoutMs = 0): Reply | Promise<Reply> {
    if (Array.isArray(v)) return this.handleBatch(v, conn, proc, timeoutMs);
    const m = readMsg(v);
    if (isIgnored(m)) return null;
    const r = this.handleMsg(m, conn, proc);
    if (timeoutMs <= 0 || !(r instanceof Promise)) return r;
    // geth's timer answers even a notification (without an id).
    return raceTimeout(r, timeoutMs, () => errorReply(m.validId ? m.idJson : undefined, TIMEOUT));
  }

  private handleBatch(
    items: unknown[],
    conn: RpcConnection,
    proc: CallProc | null,
    timeoutMs: number,
  ): Reply | Promise<Reply> {
    if (items.length === 0) return EMPTY_BATCH_REPLY;
    const limit = this.opts.batchItemLimit;
    if (limit > 0 && items.length > limit) {
      // geth respondWithBatchTooLarge: one error, carrying the id of the first call, in a batch.
      let id = "null";
      for (const it of items) {
        const m = readMsg(it);
        if (m.validVersion && m.validId && m.method !== "") {
          id = m.idJson!;
          break;
        }
      }
      return `[${errorReply(id, RpcError.batchTooLarge())}]`;
    }
    const msgs: Msg[] = [];
    for (const it of items) {
      const m = readMsg(it);
      if (!isIgnored(m)) msgs.push(m);
    }
    if (msgs.length === 0) return null;
    const st: BatchState = { msgs, out: [], bytes: 0, i: 0, done: false };
    const r = this.runBatch(st, conn, proc);
    if (timeoutMs <= 0 || !(r instanceof Promise)) return r;
    return raceTimeout(r, timeoutMs, () => {
      st.done = true;
      answerRest(st, st.i, TIMEOUT);
      return finishBatch(st.out);
    });
  }

  /**
   * Runs items in order from `st.i`; synchronous until an item returns a promise or the batch has
   * held the main thread for `BATCH_SLICE_MS`: then it goes on after the event loop's next turn, so
   * a batch of heavy calls (block traces, receipts of big blocks) does not stall other connections.
   */
  private runBatch(st: BatchState, conn: RpcConnection, proc: CallProc | null): Reply | Promise<Reply> {
    const end = performance.now() + BATCH_SLICE_MS;
    for (; st.i < st.msgs.length; st.i++) {
      const r = this.handleMsg(st.msgs[st.i]!, conn, proc);
      if (r instanceof Promise) {
        return r.then((x) => {
          if (st.done) return null; // already answered (timeout)
          if (this.pushBatch(st, x)) return finishBatch(st.out);
          st.i++;
          return this.runBatch(st, conn, proc);
        });
      }
      if (this.pushBatch(st, r)) break;
      if (st.i + 1 < st.msgs.length && performance.now() >= end) {
        st.i++;
        return new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
          st.done ? null : this.runBatch(st, conn, proc),
        );
      }
    }
    st.done = true;
    return finishBatch(st.out);
  }

  /** Adds item `st.i`'s reply; past the response size limit, answers the rest with -32003 and returns true. */
  private pushBatch(st: BatchState, r: Reply): boolean {
    if (r === null) return false;
    st.out.push(r);
    const max = this.opts.batchResponseMaxSize;
    if (max === 0) return false;
    st.bytes += r.length;
    if (st.bytes <= max) return false;
    st.done = true;
    answerRest(st, st.i + 1, RpcError.responseTooLarge());
    return true;
  }

  /** One message (not ignored): a call, a notification, or an invalid request. */
  private handleMsg(m: Msg, conn: RpcConnection, proc: CallProc | null): Reply | Promise<Reply> {
    if (m.validVersion && m.method !== "") {
      if (m.validId) return this.call(m, m.idJson!, conn, proc);
      if (m.idJson === undefined) {
        // Notification: run it, answer nothing.
        const r = this.call(m, "null", conn, proc);
        return r instanceof Promise ? r.then(() => null) : null;
      }
    }
    return errorReply(m.validId ? m.idJson : "null", RpcError.invalidRequest());
  }

  private call(
    m: Msg,
    id: string,
    conn: RpcConnection,
    proc: CallProc | null,
  ): string | JsonText | Promise<string | JsonText> {
    const method = m.method;
    if (method.length > MAX_METHOD_NAME_LENGTH) {
      return errorReply(
        id,
        RpcError.invalidRequest(`method name too long: ${method.length} > ${MAX_METHOD_NAME_LENGTH}`),
      );
    }
    const def = this.methods.get(method);
    if (def === undefined) {
      if (method.endsWith("_subscribe")) return this.subscribe(m, id, conn, proc);
      if (method.endsWith("_unsubscribe")) return this.unsubscribe(m, id, conn);
      return errorReply(id, RpcError.methodNotFound(method));
    }
    let p: unknown[] | string;
    try {
      // A decoder may throw the error geth's method would return (e.g. call args whose data and
      // input differ are a -32000 there): answered like a handler's throw.
      p = decodePositional(m.params, def.params);
    } catch (e) {
      return errorReply(id, this.errorOf(method, e));
    }
    if (typeof p === "string") return errorReply(id, RpcError.invalidParams(p));
    let r: unknown;
    try {
      r = (def.handler as (p: unknown[], ctx: CallContext) => unknown)(p, conn.ctx);
    } catch (e) {
      return errorReply(id, this.errorOf(method, e));
    }
    if (isThenable(r)) {
      return Promise.resolve(r).then(
        (v) => this.cappedReply(id, v),
        (e: unknown) => errorReply(id, this.errorOf(method, e)),
      );
    }
    return this.cappedReply(id, r);
  }

  /** `resultReply` (a `JsonText` result stays in chunks), or -32003 when longer than `replyMaxSize`. */
  private cappedReply(id: string, result: unknown): string | JsonText {
    const reply =
      result instanceof JsonText ? result.wrap(`{"jsonrpc":"2.0","id":${id},"result":`, "}") : resultReply(id, result);
    const max = this.opts.replyMaxSize;
    return max > 0 && reply.length > max ? errorReply(id, RpcError.responseTooLarge()) : reply;
  }

  private subscribe(m: Msg, id: string, conn: RpcConnection, proc: CallProc | null): string | Promise<string> {
    const subs = conn.subs;
    if (subs === null) return errorReply(id, RpcError.notificationsUnsupported());
    if (subs.full) return errorReply(id, RpcError.tooManySubscriptions(subs.limit));
    const params = m.params;
    if (!Array.isArray(params)) return errorReply(id, RpcError.invalidParams("non-array args"));
    const name = params[0];
    if (typeof name !== "string") {
      return errorReply(id, RpcError.invalidParams("expected subscription name as first argument"));
    }
    const ns = namespaceOf(m.method);
    const def = this.subscriptions.get(subscriptionKey(ns, name));
    if (def === undefined) return errorReply(id, RpcError.subscriptionNotFound(ns, name));
    let p: unknown[] | string;
    try {
      p = decodePositional(params, [SUBSCRIPTION_NAME, ...def.params]);
    } catch (e) {
      return errorReply(id, this.errorOf(m.method, e));
    }
    if (typeof p === "string") return errorReply(id, RpcError.invalidParams(p));
    const sub = subs.create(ns);
    if (proc !== null) proc.created.push(sub);
    else subs.activate([sub]); // no transport hook: deliver at once (may precede the reply)
    let r: unknown;
    try {
      r = (def.handler as (p: unknown[], s: typeof sub, ctx: CallContext) => unknown)(p.slice(1), sub, conn.ctx);
    } catch (e) {
      subs.discard(sub);
      return errorReply(id, this.errorOf(m.method, e));
    }
    if (isThenable(r)) {
      return Promise.resolve(r).then(
        () => resultReply(id, sub.id),
        (e: unknown) => {
          subs.discard(sub);
          return errorReply(id, this.errorOf(m.method, e));
        },
      );
    }
    return resultReply(id, sub.id);
  }

  private unsubscribe(m: Msg, id: string, conn: RpcConnection): string {
    const p = decodePositional(m.params, [RPC_ID]);
    if (typeof p === "string") return errorReply(id, RpcError.invalidParams(p));
    const ok = conn.subs?.unsubscribe(p[0] as string) ?? false;
    return ok ? resultReply(id, true) : errorReply(id, RpcError.subscriptionIdNotFound());
  }
}

interface BatchState {
  readonly msgs: Msg[];
  /** Replies so far; a `JsonText` joins when the batch's array is (join calls its toString). */
  readonly out: (string | JsonText)[];
  /** Summed reply length so far. */
  bytes: number;
  /** Index of the item running now. */
  i: number;
  /** The batch reply is settled (complete, too large, or timed out); late results are dropped. */
  done: boolean;
}

/** geth batchCallBuffer.respondWithError: every unanswered call from `from` on gets `err`. */
function answerRest(st: BatchState, from: number, err: RpcError): void {
  for (let j = from; j < st.msgs.length; j++) {
    const m = st.msgs[j]!;
    if (!isNotification(m)) st.out.push(errorReply(m.validId ? m.idJson : undefined, err));
  }
}

function raceTimeout(p: Promise<Reply>, ms: number, onTimeout: () => Reply): Promise<Reply> {
  return new Promise<Reply>((resolve) => {
    const t = setTimeout(() => resolve(onTimeout()), ms);
    p.then(
      (x) => {
        clearTimeout(t);
        resolve(x);
      },
      () => {
        clearTimeout(t);
        resolve(null);
      },
    );
  });
}

/**
 * The batch's array. A batch holding a chunked reply (a log query, a trace from the pool) stays in
 * chunks: joining them would copy up to the batch cap (25 MB) on the main thread (issue 26).
 */
function finishBatch(out: (string | JsonText)[]): Reply {
  if (out.length === 0) return null;
  if (!out.some((r) => r instanceof JsonText)) return `[${out.join(",")}]`;
  const chunks: string[] = [];
  out.forEach((r, i) => {
    const sep = i === 0 ? "[" : ",";
    if (r instanceof JsonText) {
      chunks.push(sep);
      for (const c of r.chunks) chunks.push(c);
    } else chunks.push(`${sep}${r}`);
  });
  chunks.push("]");
  return new JsonText(chunks);
}
