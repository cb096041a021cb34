/**
 * JSON-RPC over HTTP (node:http), behaving as geth's HTTP stack (node/rpcstack.go, rpc/http.go):
 * `beforeRequest` hook (where the Engine API's JWT check goes, outermost as geth's jwtHandler) →
 * virtual hosts (403) → CORS → GET health probe (200, empty) → 405 for PUT/DELETE → 413 when
 * Content-Length exceeds the body limit → 415 unless the media type is JSON → dispatch.
 * A body without Content-Length is read up to the limit only (geth's LimitReader), so an oversized
 * chunked body answers -32700. Replies are JSON.stringify'd (dispatch.ts) and sent with
 * Content-Length on a keep-alive connection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { gzip } from "node:zlib";
import { closeGracefully } from "../util/httpServe.js";
import { CorsPolicy, type HeaderList } from "./cors.js";
import type { Dispatcher, Reply, RpcConnection } from "./dispatch.js";
import type { Registry } from "./registry.js";
import { VirtualHosts } from "./virtualHosts.js";

/** A rejection from `beforeRequest`, written as is (text/plain unless `headers` say otherwise). */
export interface HookRejection {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Runs first on every request (and WebSocket upgrade); return a rejection to answer it, null to go on. */
export type BeforeRequestHook = (req: IncomingMessage) => HookRejection | null;

export interface HttpServerOptions {
  /** Listen address (geth `--http.addr`, default localhost). */
  readonly addr: string;
  /** Listen port (geth `--http.port` 8545); 0 picks a free port. */
  readonly port: number;
  /** Namespaces served (geth `--http.api`). */
  readonly apis: readonly string[];
  /** Allowed CORS origins (geth `--http.corsdomain`); empty = CORS off (geth default). */
  readonly cors: readonly string[];
  /** Accepted Host names (geth `--http.vhosts`, default localhost; `*` = any). */
  readonly vhosts: readonly string[];
  /** Max request body bytes (geth node.Config.HTTPBodyLimit, 5 MiB). */
  readonly bodyLimit: number;
  /** geth `--rpc.batch-request-limit` (1000). */
  readonly batchItemLimit: number;
  /** geth `--rpc.batch-response-max-size` (25,000,000). */
  readonly batchResponseMaxSize: number;
  /** Whole-request read timeout, ms (geth rpc.DefaultHTTPTimeouts ReadTimeout 30 s). */
  readonly requestTimeoutMs: number;
  /**
   * A call still running after this long is answered -32002 "request timed out" (geth: the HTTP
   * WriteTimeout, 30 s, minus 100 ms); 0 = no limit. The handler is not interrupted.
   */
  readonly callTimeoutMs: number;
  /** Served path (geth `--http.rpcprefix`): "" serves "/" only; other paths are 404. */
  readonly prefix: string;
  /**
   * Gzip replies of at least this many characters when the client accepts gzip; -1 = never (geth's
   * Engine API server). geth gzips every reply when asked; below ~1 KB the CPU is not worth the bytes.
   */
  readonly gzipMinBytes: number;
  /** Idle keep-alive timeout, ms (geth IdleTimeout 120 s). */
  readonly keepAliveTimeoutMs: number;
  readonly beforeRequest: BeforeRequestHook | null;
  /**
   * Plain GET endpoints beside the JSON-RPC path, answered before any other check (op-node's
   * `/healthz`): path → the answer.
   */
  readonly getRoutes: Readonly<Record<string, () => HookRejection>>;
}

export const DEFAULT_HTTP_OPTIONS: HttpServerOptions = Object.freeze({
  addr: "localhost",
  port: 8545,
  apis: Object.freeze(["eth", "net", "web3"]),
  cors: Object.freeze([]),
  vhosts: Object.freeze(["localhost"]),
  bodyLimit: 5 * 1024 * 1024,
  batchItemLimit: 1000,
  batchResponseMaxSize: 25_000_000,
  requestTimeoutMs: 30_000,
  callTimeoutMs: 29_900,
  prefix: "",
  gzipMinBytes: 1024,
  keepAliveTimeoutMs: 120_000,
  beforeRequest: null,
  getRoutes: Object.freeze({}),
});

/** geth rpc/http.go acceptedContentTypes. */
const ACCEPTED_TYPES = new Set(["application/json", "application/json-rpc", "application/jsonrequest"]);

const UNSUPPORTED_MEDIA_TYPE = "invalid content type, only application/json is supported";

/** Media type of a Content-Type value, lower-cased; "" when absent or malformed (mime.ParseMediaType). */
function mediaType(v: string | undefined): string {
  if (v === undefined) return "";
  const semi = v.indexOf(";");
  const t = (semi < 0 ? v : v.slice(0, semi)).trim().toLowerCase();
  return /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(t) ? t : "";
}

const HOOK_FAILED: HookRejection = Object.freeze({ status: 500, body: "internal server error\n" });

/** Runs the hook; a hook that throws rejects the request with 500 instead of taking the process down. */
export function runHook(hook: BeforeRequestHook, req: IncomingMessage): HookRejection | null {
  try {
    return hook(req);
  } catch {
    return HOOK_FAILED;
  }
}

/** geth checkPath: no prefix → the root only; else the path must start with the prefix. */
export function pathServed(url: string | undefined, prefix: string): boolean {
  const u = url ?? "/";
  const q = u.indexOf("?");
  const path = q < 0 ? u : u.slice(0, q);
  return prefix === "" ? path === "/" : path.startsWith(prefix);
}

/** Go http.Error: text/plain, nosniff, message plus newline. */
function textError(res: ServerResponse, status: number, msg: string, extra: HeaderList | null): void {
  const body = `${msg}\n`;
  if (extra !== null) for (const [k, v] of extra) res.appendHeader(k, v);
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "x-content-type-options": "nosniff",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

export class RpcHttpServer {
  readonly opts: HttpServerOptions;
  readonly dispatcher: Dispatcher;
  private readonly server: Server;
  private readonly vhosts: VirtualHosts;
  private readonly cors: CorsPolicy | null;
  private closing: Promise<void> | null = null;

  constructor(opts: Partial<HttpServerOptions>, deps: { registry: Registry }) {
    this.opts = Object.freeze({ ...DEFAULT_HTTP_OPTIONS, ...opts });
    this.dispatcher = deps.registry.forApis(this.opts.apis, {
      batchItemLimit: this.opts.batchItemLimit,
      batchResponseMaxSize: this.opts.batchResponseMaxSize,
    });
    this.vhosts = new VirtualHosts(this.opts.vhosts);
    this.cors = this.opts.cors.length > 0 ? new CorsPolicy(this.opts.cors) : null;
    this.server = createServer(
      {
        requestTimeout: this.opts.requestTimeoutMs,
        headersTimeout: this.opts.requestTimeoutMs,
        // Node looks for late requests every 30 s by default, which lets one take up to twice the
        // timeout; a tenth of it keeps the cut within 10% (a request past it is answered 408).
        connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.floor(this.opts.requestTimeoutMs / 10))),
      },
      (req, res) => this.onRequest(req, res),
    );
    this.server.keepAliveTimeout = this.opts.keepAliveTimeoutMs;
  }

  /** Starts listening; resolves with the bound address (the real port when `port` is 0). */
  listen(): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.opts.port, this.opts.addr, () => {
        this.server.off("error", reject);
        resolve(this.address());
      });
    });
  }

  /** Hands WebSocket upgrade requests on this port to `handler` (without one they are refused). */
  onUpgrade(handler: (req: IncomingMessage, socket: Duplex, head: Buffer) => void): void {
    this.server.on("upgrade", handler);
  }

  address(): AddressInfo {
    const a = this.server.address();
    if (a === null || typeof a === "string") throw new Error("RPC HTTP server is not listening");
    return a;
  }

  /**
   * Stops accepting connections, closes idle keep-alive ones, lets in-flight requests finish, and
   * destroys whatever is still open after `graceMs`.
   */
  close(graceMs = 5000): Promise<void> {
    this.closing ??= closeGracefully(this.server, graceMs);
    return this.closing;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === "GET") {
      const url = req.url ?? "/";
      const q = url.indexOf("?");
      const route = Object.hasOwn(this.opts.getRoutes, q < 0 ? url : url.slice(0, q))
        ? this.opts.getRoutes[q < 0 ? url : url.slice(0, q)]
        : undefined;
      if (route !== undefined) {
        this.reject(req, res, route());
        return;
      }
    }
    if (!pathServed(req.url, this.opts.prefix)) {
      // geth httpServer.ServeHTTP: unknown paths are 404 before any other check.
      res.writeHead(404, { "content-length": 0 });
      res.end();
      req.resume();
      return;
    }
    const hook = this.opts.beforeRequest;
    if (hook !== null) {
      const rej = runHook(hook, req);
      if (rej !== null) {
        this.reject(req, res, rej);
        return;
      }
    }
    if (!this.vhosts.allows(req.headers.host)) {
      this.drain(req, res, 403, "invalid host specified", null);
      return;
    }
    let extra: HeaderList | null = null;
    if (this.cors !== null) {
      extra = [];
      if (CorsPolicy.isPreflight(req.method, req.headers)) {
        this.cors.preflight(req.headers, extra);
        for (const [k, v] of extra) res.appendHeader(k, v);
        res.writeHead(200, { "content-length": 0 });
        res.end();
        req.resume();
        return;
      }
      this.cors.actual(req.method, req.headers, extra);
    }
    const method = req.method;
    const cl = req.headers["content-length"];
    const chunked = req.headers["transfer-encoding"] !== undefined;
    if (method === "GET" && !chunked && (cl === undefined || cl === "0") && !req.url?.includes("?")) {
      // geth: a bare GET is a health probe.
      if (extra !== null) for (const [k, v] of extra) res.appendHeader(k, v);
      res.writeHead(200, { "content-length": 0 });
      res.end();
      return;
    }
    if (method === "PUT" || method === "DELETE") {
      this.drain(req, res, 405, "method not allowed", extra);
      return;
    }
    const length = cl === undefined ? -1 : Number(cl);
    if (length > this.opts.bodyLimit) {
      this.drain(req, res, 413, `content length too large (${length}>${this.opts.bodyLimit})`, extra);
      return;
    }
    if (method !== "OPTIONS" && !ACCEPTED_TYPES.has(mediaType(req.headers["content-type"]))) {
      this.drain(req, res, 415, UNSUPPORTED_MEDIA_TYPE, extra);
      return;
    }
    this.readBody(req, res, extra);
  }

  /** Answers an error without reading the body; the connection is closed if a body is still coming. */
  private drain(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    msg: string,
    extra: HeaderList | null,
  ): void {
    if (!req.complete) res.setHeader("connection", "close");
    textError(res, status, msg, extra);
    req.resume();
  }

  private reject(req: IncomingMessage, res: ServerResponse, rej: HookRejection): void {
    if (!req.complete) res.setHeader("connection", "close");
    const headers: Record<string, string | number> = {
      "content-type": "text/plain; charset=utf-8",
      "content-length": Buffer.byteLength(rej.body),
    };
    if (rej.headers !== undefined) for (const k of Object.keys(rej.headers)) headers[k.toLowerCase()] = rej.headers[k]!;
    res.writeHead(rej.status, headers);
    res.end(rej.body);
    req.resume();
  }

  private readBody(req: IncomingMessage, res: ServerResponse, extra: HeaderList | null): void {
    const limit = this.opts.bodyLimit;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (truncated: boolean): void => {
      if (done) return;
      done = true;
      const body = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, size).toString("utf8");
      if (truncated) {
        // geth's LimitReader stops at the limit; the rest of the body is never read, so drop the connection after answering.
        res.setHeader("connection", "close");
        req.removeAllListeners("data");
        req.resume();
      }
      this.dispatch(body, req, res, extra);
    };
    req.on("data", (c: Buffer) => {
      if (done) return;
      if (size + c.length > limit) {
        chunks.push(c.subarray(0, limit - size));
        size = limit;
        finish(true);
        return;
      }
      chunks.push(c);
      size += c.length;
    });
    req.on("end", () => finish(false));
    req.on("error", () => {
      done = true;
    });
  }

  private dispatch(body: string, req: IncomingMessage, res: ServerResponse, extra: HeaderList | null): void {
    const conn: RpcConnection = {
      ctx: { transport: "http", remoteAddr: req.socket.remoteAddress ?? "" },
      subs: null,
    };
    const gz = this.opts.gzipMinBytes >= 0 && (req.headers["accept-encoding"] ?? "").includes("gzip");
    let r: Reply | Promise<Reply>;
    try {
      r = this.dispatcher.handleText(body, conn, null, this.opts.callTimeoutMs);
    } catch {
      r = null;
    }
    if (r === null || typeof r === "string") this.write(res, r, extra, gz);
    else
      r.then(
        (x) => this.write(res, x, extra, gz),
        () => this.write(res, null, extra, gz),
      );
  }

  private write(res: ServerResponse, reply: Reply, extra: HeaderList | null, gz: boolean): void {
    if (res.destroyed) return;
    if (extra !== null) for (const [k, v] of extra) res.appendHeader(k, v);
    if (reply === null) {
      res.writeHead(200, { "content-type": "application/json", "content-length": 0 });
      res.end();
      return;
    }
    if (gz && reply.length >= this.opts.gzipMinBytes) {
      // Off the event loop (libuv pool); geth's gzip writer uses the default level too.
      gzip(reply, (err, buf) => {
        if (res.destroyed) return;
        if (err !== null) {
          res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(reply) });
          res.end(reply);
          return;
        }
        res.writeHead(200, {
          "content-type": "application/json",
          "content-encoding": "gzip",
          vary: "Accept-Encoding",
          "content-length": buf.length,
        });
        res.end(buf);
      });
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(reply) });
    res.end(reply);
  }
}
