/**
 * JSON-RPC over HTTP (the lean HTTP/1.1 server of http1.ts), behaving as geth's HTTP stack
 * (node/rpcstack.go, rpc/http.go):
 * `beforeRequest` hook (where the Engine API's JWT check goes, outermost as geth's jwtHandler) →
 * virtual hosts (403) → CORS → GET health probe (200, empty) → 405 for PUT/DELETE → 413 when
 * Content-Length exceeds the body limit → 415 unless the media type is JSON → dispatch.
 * A body without Content-Length is read up to the limit only (geth's LimitReader), so an oversized
 * chunked body answers -32700. Replies are JSON.stringify'd (dispatch.ts) and sent with
 * Content-Length on a keep-alive connection, status line, headers and body in one write.
 */
import type { AddressInfo, Socket } from "node:net";
import { createGzip, gzip } from "node:zlib";
import type { ReplyBacklog } from "./backlog.js";
import { CorsPolicy, type HeaderList } from "./cors.js";
import type { CrashReporter, Dispatcher, Reply, RpcConnection } from "./dispatch.js";
import {
  DEFAULT_MAX_HEAD_BYTES,
  type Http1Connection,
  type Http1Request,
  Http1Server,
  type RequestHead,
} from "./http1.js";
import type { Registry } from "./registry.js";
import { VirtualHosts } from "./virtualHosts.js";

/** A rejection from `beforeRequest`, written as is (text/plain unless `headers` say otherwise). */
export interface HookRejection {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Runs first on every request (and WebSocket upgrade); return a rejection to answer it, null to go on. */
export type BeforeRequestHook = (req: RequestHead) => HookRejection | null;

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
  /** One call's reply cap (dispatch.ts `replyMaxSize`; 0 = none, the default). */
  readonly replyMaxSize: number;
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
  /**
   * Time the peer may take none of a large reply (1 MiB or more) before the connection is dropped,
   * ms (the WebSocket server's 10 s, geth's `defaultWriteTimeout`); 0 = never.
   */
  readonly writeTimeoutMs: number;
  /** The node's account of unflushed reply bytes, shared by its servers (backlog.ts); null: the server's own. */
  readonly backlog: ReplyBacklog | null;
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
  replyMaxSize: 0,
  requestTimeoutMs: 30_000,
  callTimeoutMs: 29_900,
  prefix: "",
  gzipMinBytes: 1024,
  keepAliveTimeoutMs: 120_000,
  writeTimeoutMs: 10_000,
  backlog: null,
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
export function runHook(hook: BeforeRequestHook, req: RequestHead): HookRejection | null {
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

const JSON_HEAD = "Content-Type: application/json\r\n";
const GZIP_HEAD = `${JSON_HEAD}Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n`;
const TEXT_HEAD = "Content-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n";

/** Header lines of a list (CORS), each ending in CRLF. */
function headerLines(list: HeaderList | null): string {
  if (list === null) return "";
  let out = "";
  for (const [k, v] of list) out += `${k}: ${v}\r\n`;
  return out;
}

/** Go http.Error: text/plain, nosniff, message plus newline. */
function textError(conn: Http1Connection, status: number, msg: string, extra: HeaderList | null): void {
  conn.respond(status, headerLines(extra) + TEXT_HEAD, `${msg}\n`);
}

export class RpcHttpServer {
  readonly opts: HttpServerOptions;
  readonly dispatcher: Dispatcher;
  private readonly server: Http1Server;
  private readonly vhosts: VirtualHosts;
  private readonly cors: CorsPolicy | null;
  private readonly hasRoutes: boolean;
  private closing: Promise<void> | null = null;

  constructor(opts: Partial<HttpServerOptions>, deps: { registry: Registry; onCrash?: CrashReporter }) {
    this.opts = Object.freeze({ ...DEFAULT_HTTP_OPTIONS, ...opts });
    this.dispatcher = deps.registry.forApis(this.opts.apis, {
      batchItemLimit: this.opts.batchItemLimit,
      batchResponseMaxSize: this.opts.batchResponseMaxSize,
      ...(deps.onCrash === undefined ? {} : { onCrash: deps.onCrash }),
      replyMaxSize: this.opts.replyMaxSize,
    });
    this.vhosts = new VirtualHosts(this.opts.vhosts);
    this.cors = this.opts.cors.length > 0 ? new CorsPolicy(this.opts.cors) : null;
    this.hasRoutes = Object.keys(this.opts.getRoutes).length > 0;
    this.server = new Http1Server(
      {
        requestTimeoutMs: this.opts.requestTimeoutMs,
        keepAliveTimeoutMs: this.opts.keepAliveTimeoutMs,
        maxHeadBytes: DEFAULT_MAX_HEAD_BYTES,
        writeTimeoutMs: this.opts.writeTimeoutMs,
        ...(this.opts.backlog === null ? {} : { backlog: this.opts.backlog }),
      },
      {
        request: (req, conn) => this.onRequest(req, conn),
        body: (req, conn, body, truncated) => this.onBody(req, conn, body, truncated),
      },
    );
  }

  /** Starts listening; resolves with the bound address (the real port when `port` is 0). */
  listen(): Promise<AddressInfo> {
    return this.server.listen(this.opts.port, this.opts.addr);
  }

  /** Hands WebSocket upgrade requests on this port to `handler` (without one they are served as plain requests). */
  onUpgrade(handler: (req: RequestHead, socket: Socket, head: Buffer) => void): void {
    this.server.upgrade = handler;
  }

  address(): AddressInfo {
    return this.server.address();
  }

  /**
   * Stops accepting connections, closes idle keep-alive ones, lets in-flight requests finish, and
   * destroys whatever is still open after `graceMs`.
   */
  close(graceMs = 5000): Promise<void> {
    this.closing ??= this.server.close(graceMs);
    return this.closing;
  }

  private onRequest(req: Http1Request, conn: Http1Connection): void {
    const method = req.method;
    const url = req.url;
    if (method === "GET" && this.hasRoutes) {
      const q = url.indexOf("?");
      const path = q < 0 ? url : url.slice(0, q);
      if (Object.hasOwn(this.opts.getRoutes, path)) {
        this.reject(conn, this.opts.getRoutes[path]!());
        return;
      }
    }
    if (!pathServed(url, this.opts.prefix)) {
      // geth httpServer.ServeHTTP: unknown paths are 404 before any other check.
      conn.respond(404, "", "");
      return;
    }
    const hook = this.opts.beforeRequest;
    if (hook !== null) {
      const rej = runHook(hook, req);
      if (rej !== null) {
        this.reject(conn, rej);
        return;
      }
    }
    const headers = req.headers;
    if (!this.vhosts.allows(headers.host)) {
      textError(conn, 403, "invalid host specified", null);
      return;
    }
    let extra: HeaderList | null = null;
    if (this.cors !== null) {
      extra = [];
      if (CorsPolicy.isPreflight(method, headers)) {
        this.cors.preflight(headers, extra);
        conn.respond(200, headerLines(extra), "");
        return;
      }
      this.cors.actual(method, headers, extra);
    }
    const length = req.contentLength;
    if (method === "GET" && !req.chunked && length <= 0 && !url.includes("?")) {
      // geth: a bare GET is a health probe.
      conn.respond(200, headerLines(extra), "");
      return;
    }
    if (method === "PUT" || method === "DELETE") {
      textError(conn, 405, "method not allowed", extra);
      return;
    }
    if (length > this.opts.bodyLimit) {
      textError(conn, 413, `content length too large (${length}>${this.opts.bodyLimit})`, extra);
      return;
    }
    if (method !== "OPTIONS" && !ACCEPTED_TYPES.has(mediaType(headers["content-type"]))) {
      textError(conn, 415, UNSUPPORTED_MEDIA_TYPE, extra);
      return;
    }
    // geth's LimitReader: a body without length is read up to the limit only; the rest is dropped
    // (and the connection closed after the answer).
    conn.data = extra;
    conn.readBody(this.opts.bodyLimit);
  }

  private reject(conn: Http1Connection, rej: HookRejection): void {
    let head = "";
    let typed = false;
    if (rej.headers !== undefined) {
      for (const k of Object.keys(rej.headers)) {
        head += `${k}: ${rej.headers[k]}\r\n`;
        if (k.toLowerCase() === "content-type") typed = true;
      }
    }
    if (!typed) head += "Content-Type: text/plain; charset=utf-8\r\n";
    conn.respond(rej.status, head, rej.body);
  }

  private onBody(req: Http1Request, conn: Http1Connection, body: Buffer, _truncated: boolean): void {
    const extra = conn.data as HeaderList | null;
    conn.data = null;
    const rpc: RpcConnection = {
      ctx: { transport: "http", remoteAddr: conn.socket.remoteAddress ?? "" },
      subs: null,
    };
    const gz = this.opts.gzipMinBytes >= 0 && (req.headers["accept-encoding"] ?? "").includes("gzip");
    let r: Reply | Promise<Reply>;
    try {
      r = this.dispatcher.handleText(body.toString("utf8"), rpc, null, this.opts.callTimeoutMs);
    } catch {
      r = null;
    }
    if (!(r instanceof Promise)) this.write(conn, r, extra, gz);
    else
      r.then(
        (x) => this.write(conn, x, extra, gz),
        () => this.write(conn, null, extra, gz),
      );
  }

  private write(conn: Http1Connection, reply: Reply, extra: HeaderList | null, gz: boolean): void {
    if (conn.closed) return;
    const pre = headerLines(extra);
    if (reply === null) {
      conn.respond(200, pre + JSON_HEAD, "");
      return;
    }
    const body = typeof reply === "string" ? reply : reply.chunks;
    if (gz && reply.length >= this.opts.gzipMinBytes) {
      // Off the event loop (libuv pool); geth's gzip writer uses the default level too.
      const done = (err: Error | null, buf: Buffer | null): void => {
        if (err !== null || buf === null) conn.respond(200, pre + JSON_HEAD, body);
        else conn.respond(200, pre + GZIP_HEAD, buf);
      };
      if (typeof reply === "string") gzip(reply, done);
      else gzipChunks(reply.chunks, done);
      return;
    }
    conn.respond(200, pre + JSON_HEAD, body);
  }
}

/** Gzips text given in chunks through one stream, a chunk at a time (no joined copy of the text). */
function gzipChunks(chunks: readonly string[], done: (err: Error | null, buf: Buffer | null) => void): void {
  const z = createGzip();
  const out: Buffer[] = [];
  z.on("data", (b: Buffer) => out.push(b));
  z.once("end", () => done(null, Buffer.concat(out)));
  z.once("error", (e) => done(e, null));
  for (const c of chunks) z.write(c);
  z.end();
}
