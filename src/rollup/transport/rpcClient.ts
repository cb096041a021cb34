/**
 * A JSON-RPC client over HTTP for the rollup node's upstreams (the L2 engine endpoint, later L1 and
 * the beacon node): one POST per call with a timeout, and when a secret is given an HS256 JWT of the
 * current second on every request (op-node signs each engine request anew, so a token never goes
 * stale). A JSON-RPC error answer becomes `RpcCallError` with the server's code and message;
 * transport failures and timeouts become `RpcTransportError`. Never throws anything else.
 */
import * as https from "node:https";
import { signJwt } from "../../engine/jwt.js";
import { Http1Pool } from "../../util/http1Client.js";
import { timerDelay } from "../../util/timers.js";

/** op-service client's call timeout when none is configured. */
export const DEFAULT_CALL_TIMEOUT_MS = 10_000;

export class RpcCallError extends Error {
  override readonly name = "RpcCallError";
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export class RpcTransportError extends Error {
  override readonly name = "RpcTransportError";
}

export interface RpcClientOptions {
  /** Engine endpoints: the 32-byte JWT secret. */
  readonly jwtSecret?: Uint8Array;
  /**
   * Per-call timeout, ms (`--l2.engine-rpc-timeout`, `--conductor.rpc-timeout`). Absent, 0 or less:
   * 10 s, op-service's client default (its `WithCallTimeout(0)` also means the default). Above Node's
   * longest timer it is that timer (24.8 days), never the 1 ms Node would make of it.
   */
  readonly timeoutMs?: number;
}

export class RpcClient {
  private nextId = 1;
  /** `url`, parsed at the first call. */
  private target: URL | null = null;
  /** Keep-alive connections of an `http:` url, from the first call. */
  private pool: Http1Pool | null = null;
  /** The last token signed, and the second it was signed for. */
  private jwt: { sec: number; token: string } | null = null;
  /** The effective per-call timeout, ms. */
  readonly timeoutMs: number;

  constructor(
    readonly url: string,
    private readonly opts: RpcClientOptions = {},
  ) {
    const t = opts.timeoutMs ?? 0;
    this.timeoutMs = t > 0 ? timerDelay(t) : DEFAULT_CALL_TIMEOUT_MS;
  }

  async call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    const id = this.nextId++;
    const reply = await this.post(method, JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return this.resultOf<T>(method, reply);
  }

  /**
   * One JSON-RPC batch: the answers in request order, each the result or the item's RpcCallError.
   * A server that refuses the whole batch (e.g. geth's "batch too large") throws RpcCallError.
   */
  async callBatch(calls: readonly { method: string; params: readonly unknown[] }[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = JSON.stringify(
      calls.map((c, i) => ({ jsonrpc: "2.0", id: first + i, method: c.method, params: c.params })),
    );
    const what = `batch of ${calls.length} (${calls[0]!.method}…)`;
    const reply = await this.post(what, body);
    if (!Array.isArray(reply)) {
      this.resultOf(what, reply);
      throw new RpcTransportError(`${what} to ${this.url}: the answer is not a batch`);
    }
    const out: unknown[] = new Array(calls.length);
    const seen = new Array<boolean>(calls.length).fill(false);
    for (const item of reply as { id?: unknown }[]) {
      const i = typeof item?.id === "number" ? item.id - first : -1;
      if (i < 0 || i >= calls.length || seen[i]) continue;
      seen[i] = true;
      try {
        out[i] = this.resultOf(calls[i]!.method, item);
      } catch (e) {
        out[i] = e;
      }
    }
    const missing = seen.indexOf(false);
    if (missing >= 0) throw new RpcTransportError(`${what} to ${this.url}: no answer for item ${missing}`);
    return out;
  }

  /**
   * The JWT for now: its `iat` is whole seconds, so every request of one second carries the same
   * token, signed once (an HMAC was ~40 µs of each engine call).
   */
  private token(secret: Uint8Array): string {
    const sec = Math.floor(Date.now() / 1000);
    if (this.jwt === null || this.jwt.sec !== sec) this.jwt = { sec, token: signJwt(secret, sec) };
    return this.jwt.token;
  }

  /**
   * One POST: `http:` over this client's own keep-alive connections (util/http1Client.ts), `https:`
   * over node:https with keep-alive (Node's global agent). PERF: `fetch` (undici's WHATWG streams,
   * an AbortSignal and a Request object per call) cost the verifier ~0.5 ms of CPU a call, and
   * node:http's client still ~0.35 ms; a deriving node makes four engine calls a block, all in
   * series with the engine (issue 25).
   */
  private post(what: string, body: string): Promise<unknown> {
    const fail = (why: string): RpcTransportError => new RpcTransportError(`${what} to ${this.url}: ${why}`);
    let target: URL;
    try {
      target = this.target ??= new URL(this.url);
    } catch {
      return Promise.reject(fail("invalid URL"));
    }
    const auth =
      this.opts.jwtSecret !== undefined
        ? `Bearer ${this.token(this.opts.jwtSecret)}`
        : target.username !== ""
          ? `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString("base64")}`
          : null;
    const answer = (status: number, text: string): unknown => {
      if (status !== 200) throw fail(`HTTP ${status} ${text.trim().slice(0, 200)}`);
      try {
        return JSON.parse(text);
      } catch {
        throw fail("the answer is not JSON");
      }
    };
    if (target.protocol === "http:") {
      const pool = (this.pool ??= new Http1Pool(target.hostname.replace(/^\[|\]$/g, ""), Number(target.port || 80)));
      const headers = `Content-Type: application/json\r\n${auth === null ? "" : `Authorization: ${auth}\r\n`}`;
      return pool.post(target.pathname + target.search, headers, body, this.timeoutMs).then(
        (a) => answer(a.status, a.body.toString("utf8")),
        (e: unknown) => {
          throw fail((e as Error).message);
        },
      );
    }
    if (target.protocol !== "https:") return Promise.reject(fail(`unsupported scheme ${target.protocol}`));
    const headers: Record<string, string | number> = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    };
    if (auth !== null) headers.authorization = auth;
    return new Promise((resolve, reject) => {
      let done = false;
      const settle = (e: RpcTransportError | null, v?: unknown): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (e !== null) reject(e);
        else resolve(v);
      };
      const req = https.request(target, { method: "POST", headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (e) => settle(fail(e.message)));
        // After "end" this changes nothing; before it, the answer was cut off.
        res.on("close", () => {
          if (!done) settle(fail("the connection closed before the answer ended"));
        });
        res.on("end", () => {
          try {
            settle(null, answer(res.statusCode ?? 0, Buffer.concat(chunks).toString("utf8")));
          } catch (e) {
            settle(e as RpcTransportError);
          }
        });
      });
      const timer = setTimeout(() => {
        settle(fail(`timed out after ${this.timeoutMs} ms`));
        req.destroy();
      }, this.timeoutMs);
      req.on("error", (e) => settle(fail(e.message)));
      req.end(body);
    });
  }

  private resultOf<T>(method: string, reply: unknown): T {
    const r = reply as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | null;
    if (r === null || typeof r !== "object") throw new RpcTransportError(`${method} to ${this.url}: malformed answer`);
    if (r.error !== undefined && r.error !== null) {
      const code = typeof r.error.code === "number" ? r.error.code : -32603;
      const message = typeof r.error.message === "string" ? r.error.message : "unknown error";
      throw new RpcCallError(method, code, message, r.error.data);
    }
    return r.result as T;
  }
}
