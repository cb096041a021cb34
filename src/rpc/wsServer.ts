/**
 * JSON-RPC over WebSocket on its own port (geth `--ws.port`), on the `ws` package: the same
 * dispatcher as HTTP plus subscriptions. As geth (rpc/websocket.go, node/rpcstack.go):
 * `beforeRequest` hook on the upgrade request (JWT for the Engine API), then the origin check
 * (`--ws.origins`; no Origin header passes; default http://localhost and http://<hostname>) → 403
 * "Forbidden"; a plain HTTP request gets 404; frames above 32 MiB close the connection (1009); a
 * frame that is not JSON is answered -32700 and the connection is closed; a ping goes out after
 * 30 s without writes and a missing pong within 30 s drops the connection; closing a connection
 * cancels its subscriptions (each handler's `onCancel` runs once).
 */
import { createServer, type IncomingMessage, type Server, STATUS_CODES } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { hostname } from "node:os";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { ReplyBacklog } from "./backlog.js";
import {
  type CallProc,
  type CrashReporter,
  type Dispatcher,
  PARSE_ERROR_REPLY,
  type Reply,
  type RpcConnection,
} from "./dispatch.js";
import type { RequestHead } from "./http1.js";
import { type BeforeRequestHook, type HookRejection, pathServed, runHook } from "./httpServer.js";
import type { JsonText } from "./methodTable.js";
import type { Registry } from "./registry.js";
import { ConnectionSubscriptions, type Subscription } from "./subscriptions.js";

export interface WsServerOptions {
  /** Listen address (geth `--ws.addr`, default localhost). */
  readonly addr: string;
  /** Listen port (geth `--ws.port` 8546); 0 picks a free port. */
  readonly port: number;
  /** Namespaces served (geth `--ws.api`). */
  readonly apis: readonly string[];
  /** Allowed Origin values (geth `--ws.origins`); `*` = any; empty = http://localhost and http://<hostname>. */
  readonly origins: readonly string[];
  /** Max frame payload bytes (geth wsDefaultReadLimit, 32 MiB). */
  readonly messageSizeLimit: number;
  readonly batchItemLimit: number;
  readonly batchResponseMaxSize: number;
  /** One call's reply cap (dispatch.ts `replyMaxSize`; 0 = none, the default). */
  readonly replyMaxSize: number;
  /** Served path (geth `--ws.rpcprefix`): "" serves "/" only; other paths get 404 "not found". */
  readonly prefix: string;
  /** Idle time after the last write before a ping (geth wsPingInterval 30 s). */
  readonly pingIntervalMs: number;
  /** Time a pong may take (geth wsPongTimeout 30 s). */
  readonly pongTimeoutMs: number;
  /**
   * Time the peer may take none of the data written to it (geth's per-write deadline,
   * `defaultWriteTimeout` 10 s): then the connection is dropped, so a client that stops reading
   * cannot make the server buffer its notifications without bound.
   */
  readonly writeTimeoutMs: number;
  /**
   * The node's account of unflushed reply bytes, shared by its servers (backlog.ts): a message that
   * would take the connection, or all of them, past its bounds drops the connection; null: the server's own.
   */
  readonly backlog: ReplyBacklog | null;
  readonly beforeRequest: BeforeRequestHook | null;
}

export const DEFAULT_WS_OPTIONS: WsServerOptions = Object.freeze({
  addr: "localhost",
  port: 8546,
  apis: Object.freeze(["eth", "net", "web3"]),
  origins: Object.freeze([]),
  messageSizeLimit: 32 * 1024 * 1024,
  batchItemLimit: 1000,
  batchResponseMaxSize: 25_000_000,
  replyMaxSize: 0,
  prefix: "",
  pingIntervalMs: 30_000,
  pongTimeoutMs: 30_000,
  writeTimeoutMs: 10_000,
  backlog: null,
  beforeRequest: null,
});

type OriginRule = [scheme: string, host: string, port: string];

/**
 * geth parseOriginURL over Go's url.Parse, reduced to what origins look like: with "://" the
 * scheme/host/port of the URL; without, "name:port" (Go reads it as scheme:opaque) or a bare name.
 * Returns null where url.Parse fails (e.g. "127.0.0.1:8080": a colon in the first path segment).
 */
function parseOrigin(origin: string): OriginRule | null {
  const lower = origin.toLowerCase();
  const sep = lower.indexOf("://");
  if (sep >= 0) {
    let rest = lower.slice(sep + 3);
    const end = rest.search(/[/?#]/);
    if (end >= 0) rest = rest.slice(0, end);
    const at = rest.lastIndexOf("@");
    if (at >= 0) rest = rest.slice(at + 1);
    let host = rest;
    let port = "";
    const colon = rest.lastIndexOf(":");
    if (colon >= 0 && /^\d*$/.test(rest.slice(colon + 1))) {
      host = rest.slice(0, colon);
      port = rest.slice(colon + 1);
    }
    if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
    return [lower.slice(0, sep), host, port];
  }
  // Go getScheme: letters, then letters/digits/+-. up to ':'; anything else means no scheme.
  const m = /^([a-z][a-z0-9+.-]*):(.*)$/.exec(lower);
  if (m !== null && !m[2]!.startsWith("/")) return ["", m[1]!, m[2]!];
  const firstSegment = lower.split("/")[0]!;
  if (firstSegment.includes(":")) return null;
  return ["", origin, ""];
}

/** geth wsHandshakeValidator. */
export class WsOrigins {
  private readonly all: boolean;
  private readonly rules: (OriginRule | null)[];

  constructor(origins: readonly string[]) {
    let all = false;
    const list: string[] = [];
    for (const o of origins) {
      if (o === "*") all = true;
      if (o !== "") list.push(o);
    }
    if (list.length === 0) list.push("http://localhost", `http://${hostname()}`);
    this.all = all;
    this.rules = list.map(parseOrigin);
  }

  allows(origin: string | undefined): boolean {
    if (origin === undefined) return true;
    if (this.all) return true;
    const b = parseOrigin(origin.toLowerCase());
    if (b === null) return false;
    for (const r of this.rules) {
      if (r === null) continue;
      if (r[0] !== "" && r[0] !== b[0]) continue;
      if (r[1] !== "" && r[1] !== b[1]) continue;
      if (r[2] !== "" && r[2] !== b[2]) continue;
      return true;
    }
    return false;
  }
}

function writeHttpError(socket: Socket, status: number, reason: string, body: string, headers: string[]): void {
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    "Connection: close",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...headers,
    "",
    "",
  ];
  socket.end(lines.join("\r\n") + body);
}

const MORE_FRAGMENTS = Object.freeze({ fin: false });
const LAST_FRAGMENT = Object.freeze({ fin: true });

/** Per-connection state: the subscriptions and the keepalive timers. */
class WsConnection implements RpcConnection {
  readonly ctx;
  readonly subs: ConnectionSubscriptions;
  private pingTimer: NodeJS.Timeout | null = null;
  private pongTimer: NodeJS.Timeout | null = null;
  /** Messages handed to the socket and not yet flushed to the OS, and the timer they run. */
  private unflushed = 0;
  /** Bytes of those messages, counted in the backlog. */
  private held = 0;
  private writeTimer: NodeJS.Timeout | null = null;
  private readonly flushed = (): void => {
    this.unflushed--;
    const n = this.sizes.shift() ?? 0;
    this.held -= n;
    this.backlog.give(n);
    if (this.unflushed > 0)
      this.writeTimer?.refresh(); // progress: the peer took a message
    else if (this.writeTimer !== null) {
      clearTimeout(this.writeTimer);
      this.writeTimer = null;
    }
  };

  /** Sizes of the unflushed messages, oldest first (ws flushes in order). */
  private readonly sizes: number[] = [];

  constructor(
    readonly ws: WebSocket,
    remoteAddr: string,
    private readonly opts: WsServerOptions,
    private readonly backlog: ReplyBacklog,
  ) {
    this.subs = new ConnectionSubscriptions((text) => this.send(text));
    const subs = this.subs;
    this.ctx = {
      transport: "ws" as const,
      remoteAddr,
      notify: (id: string, result: unknown) => subs.notify(id, result),
    };
    this.pingTimer = setTimeout(() => this.ping(), opts.pingIntervalMs);
    this.pingTimer.unref();
    ws.on("pong", () => {
      if (this.pongTimer !== null) {
        clearTimeout(this.pongTimer);
        this.pongTimer = null;
      }
    });
  }

  /** Sends a message; a `JsonText` goes as fragments of one message, a chunk each (no joined copy). */
  send(text: string | JsonText): void {
    if (this.ws.readyState !== 1) return;
    // Over the node's backlog bounds: drop the connection rather than hold the message.
    if (!this.backlog.take(this.held, text.length)) {
      this.ws.terminate();
      return;
    }
    this.held += text.length;
    if (typeof text === "string") this.write(text, null);
    else {
      const cs = text.chunks;
      for (let i = 0; i < cs.length; i++) this.write(cs[i]!, i === cs.length - 1 ? LAST_FRAGMENT : MORE_FRAGMENTS);
    }
    this.pingTimer?.refresh(); // geth resets the ping timer on every write
  }

  private write(data: string, fragment: { fin: boolean } | null): void {
    this.sizes.push(data.length);
    this.unflushed++;
    if (this.writeTimer === null) {
      this.writeTimer = setTimeout(() => this.ws.terminate(), this.opts.writeTimeoutMs);
      this.writeTimer.unref();
    }
    if (fragment === null) this.ws.send(data, this.flushed);
    else this.ws.send(data, fragment, this.flushed);
  }

  private ping(): void {
    if (this.ws.readyState !== 1) return;
    this.ws.ping();
    if (this.pongTimer === null) {
      this.pongTimer = setTimeout(() => this.ws.terminate(), this.opts.pongTimeoutMs);
      this.pongTimer.unref();
    }
    this.pingTimer?.refresh();
  }

  closed(): void {
    if (this.pingTimer !== null) clearTimeout(this.pingTimer);
    if (this.pongTimer !== null) clearTimeout(this.pongTimer);
    if (this.writeTimer !== null) clearTimeout(this.writeTimer);
    this.pingTimer = this.pongTimer = this.writeTimer = null;
    this.backlog.give(this.held);
    this.held = 0;
    this.sizes.length = 0;
    this.subs.closeAll();
  }
}

export class RpcWsServer {
  readonly opts: WsServerOptions;
  readonly dispatcher: Dispatcher;
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly origins: WsOrigins;
  private readonly conns = new Set<WsConnection>();
  private readonly backlog: ReplyBacklog;
  private closing: Promise<void> | null = null;

  constructor(opts: Partial<WsServerOptions>, deps: { registry: Registry; onCrash?: CrashReporter }) {
    this.opts = Object.freeze({ ...DEFAULT_WS_OPTIONS, ...opts });
    this.dispatcher = deps.registry.forApis(this.opts.apis, {
      batchItemLimit: this.opts.batchItemLimit,
      batchResponseMaxSize: this.opts.batchResponseMaxSize,
      ...(deps.onCrash === undefined ? {} : { onCrash: deps.onCrash }),
      replyMaxSize: this.opts.replyMaxSize,
    });
    this.origins = new WsOrigins(this.opts.origins);
    this.backlog = this.opts.backlog ?? new ReplyBacklog();
    this.wss = new WebSocketServer({ noServer: true, maxPayload: this.opts.messageSizeLimit, clientTracking: false });
    this.http = createServer((_req, res) => {
      // geth: a non-WebSocket request on a WS-only endpoint is 404 with no body.
      res.writeHead(404, { "content-length": 0 });
      res.end();
    });
    this.http.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => this.onUpgrade(req, socket, head));
  }

  /** Number of open connections. */
  get connections(): number {
    return this.conns.size;
  }

  listen(): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.http.once("error", reject);
      this.http.listen(this.opts.port, this.opts.addr, () => {
        this.http.off("error", reject);
        resolve(this.address());
      });
    });
  }

  address(): AddressInfo {
    const a = this.http.address();
    if (a === null || typeof a === "string") throw new Error("RPC WebSocket server is not listening");
    return a;
  }

  /** Stops accepting, closes every connection with 1001 (going away), cancels their subscriptions. */
  close(graceMs = 5000): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      for (const c of this.conns) c.ws.close(1001);
      const timer = setTimeout(() => {
        for (const c of this.conns) c.ws.terminate();
      }, graceMs);
      timer.unref();
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      if (!this.http.listening) return done();
      this.http.close(() => {
        const wait = (): void => {
          if (this.conns.size === 0) done();
          else setTimeout(wait, 10).unref();
        };
        wait();
      });
      this.http.closeAllConnections();
    });
    return this.closing;
  }

  /**
   * Takes a WebSocket upgrade that arrived on another server's port (geth serves WebSocket on the
   * HTTP port of the Engine API); the same checks run as on this server's own port.
   */
  upgrade(req: RequestHead, socket: Socket, head: Buffer): void {
    this.onUpgrade(req, socket, head);
  }

  private onUpgrade(req: RequestHead, socket: Socket, head: Buffer): void {
    if (this.closing !== null) {
      socket.destroy();
      return;
    }
    if (!pathServed(req.url, this.opts.prefix)) {
      writeHttpError(socket, 404, "Not Found", "not found\n", [
        "Content-Type: text/plain; charset=utf-8",
        "X-Content-Type-Options: nosniff",
      ]);
      return;
    }
    const hook = this.opts.beforeRequest;
    if (hook !== null) {
      const rej: HookRejection | null = runHook(hook, req);
      if (rej !== null) {
        const extra = Object.entries(rej.headers ?? {}).map(([k, v]) => `${k}: ${v}`);
        if (!rej.headers || !Object.keys(rej.headers).some((k) => k.toLowerCase() === "content-type")) {
          extra.push("Content-Type: text/plain; charset=utf-8");
        }
        writeHttpError(socket, rej.status, STATUS_CODES[rej.status] ?? "Error", rej.body, extra);
        return;
      }
    }
    if (!this.origins.allows(req.headers.origin)) {
      // gorilla Upgrader.returnError: http.Error(StatusText(403)) plus Sec-Websocket-Version.
      writeHttpError(socket, 403, "Forbidden", "Forbidden\n", [
        "Content-Type: text/plain; charset=utf-8",
        "X-Content-Type-Options: nosniff",
        "Sec-Websocket-Version: 13",
      ]);
      return;
    }
    // ws reads the method, url, headers and socket of the request, which every RequestHead has.
    this.wss.handleUpgrade(req as IncomingMessage, socket, head, (ws) => this.onConnection(ws, req));
  }

  private onConnection(ws: WebSocket, req: RequestHead): void {
    const conn = new WsConnection(ws, req.socket.remoteAddress ?? "", this.opts, this.backlog);
    this.conns.add(conn);
    ws.on("message", (data: RawData) => this.onMessage(conn, data));
    ws.on("error", () => ws.terminate());
    ws.on("close", () => {
      this.conns.delete(conn);
      conn.closed();
    });
  }

  private onMessage(conn: WsConnection, data: RawData): void {
    const text = Array.isArray(data)
      ? Buffer.concat(data).toString("utf8")
      : Buffer.isBuffer(data)
        ? data.toString("utf8")
        : Buffer.from(data).toString("utf8");
    const proc: CallProc = { created: [] as Subscription[] };
    let r: Reply | Promise<Reply>;
    try {
      r = this.dispatcher.handleText(text, conn, proc);
    } catch {
      r = null;
    }
    if (!(r instanceof Promise)) this.reply(conn, r, proc);
    else
      r.then(
        (x) => this.reply(conn, x, proc),
        () => this.reply(conn, null, proc),
      );
  }

  private reply(conn: WsConnection, r: Reply, proc: CallProc): void {
    if (r !== null) conn.send(r);
    if (proc.created.length > 0) conn.subs.activate(proc.created);
    // geth: a frame that is not JSON ends the connection after the -32700 answer.
    if (r === PARSE_ERROR_REPLY) conn.ws.close(1000);
  }
}
