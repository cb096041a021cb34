/**
 * A lean HTTP/1.1 server on node:net for the JSON-RPC ports: what a JSON-RPC request needs and no
 * more, without node:http's per-request IncomingMessage/ServerResponse streams, header objects and
 * events. One connection serves one request at a time, in order (pipelined requests wait in the
 * connection's buffer); the whole response — status line, headers, body — goes out in one write.
 *
 * Framing as RFC 9112 and Node's llhttp (strict mode) read it: request line `METHOD SP target SP
 * HTTP/1.x`, header lines ending in CRLF (a bare LF is accepted, as Go and llhttp do), no obsolete
 * line folding, no whitespace before the colon, Content-Length (digits; repeated only with the same
 * value) or a Transfer-Encoding whose last coding is `chunked` (both at once are refused: request
 * smuggling), chunk extensions and trailers skipped. A head larger than `maxHeadBytes` is 431; any
 * other malformed head is 400; both close the connection. `Expect: 100-continue` gets its interim
 * 100 when the handler asks for the body; any other expectation is 417. HTTP/1.1 keeps the
 * connection unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
 *
 * Timeouts run from one sweep per server (no timer per request): a request whose head and body
 * have not arrived `requestTimeoutMs` after its first byte is answered 408 and the connection
 * closed; a connection idle for `keepAliveTimeoutMs` between requests is closed.
 *
 * A request with `Connection: upgrade` and an `Upgrade` header goes, with its socket and the bytes
 * after its head, to the upgrade handler when there is one (as node:http's 'upgrade' event); without
 * one it is served as an ordinary request.
 */
import type { IncomingHttpHeaders } from "node:http";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { ReplyBacklog } from "./backlog.js";

/** The parts of a request a handler reads; node:http's IncomingMessage has the same shape. */
export interface RequestHead {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  /** Lower-case names; a repeated header's values joined with ", " (the first kept for single-valued ones, as Node). */
  readonly headers: IncomingHttpHeaders;
  readonly socket: Socket;
}

export interface Http1Request extends RequestHead {
  readonly method: string;
  readonly url: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  readonly minor: number;
  /** The Content-Length, or -1 without one (chunked, or no body). */
  readonly contentLength: number;
  readonly chunked: boolean;
}

/**
 * What the server calls. `request` runs once the head is parsed: it answers at once with
 * `conn.respond` (the body, if any, is then skipped when it is already here, else the connection is
 * closed after the answer), or calls `conn.readBody(limit)` and gets `body` later. Exactly one
 * `respond` per request; the next pipelined request waits for it.
 */
export interface Http1Handler {
  request(req: Http1Request, conn: Http1Connection): void;
  /** The body, up to the limit given to `readBody`; `truncated` when more was sent (the connection closes after the answer). */
  body(req: Http1Request, conn: Http1Connection, body: Buffer, truncated: boolean): void;
}

export type UpgradeHandler = (req: Http1Request, socket: Socket, head: Buffer) => void;

export interface Http1Options {
  /** Time from a request's first byte to its last, ms (node:http requestTimeout); then 408. */
  readonly requestTimeoutMs: number;
  /** Idle time between requests before the connection is closed, ms. */
  readonly keepAliveTimeoutMs: number;
  /** Largest request line + headers (Node's default --max-http-header-size, 16 KiB); beyond it 431. */
  readonly maxHeadBytes: number;
  /**
   * Time the peer may take none of a reply written to it, ms (as the WebSocket server's
   * `writeTimeoutMs`, geth's per-write deadline): then the connection is dropped; 0 = never.
   */
  readonly writeTimeoutMs?: number;
  /** The node's account of unflushed reply bytes (backlog.ts); absent: one of this server's own. */
  readonly backlog?: ReplyBacklog;
}

/** Node's default `--max-http-header-size`. */
export const DEFAULT_MAX_HEAD_BYTES = 16 * 1024;

/** Bytes of pipelined input buffered behind a pending answer before the socket is paused. */
const MAX_QUEUED = 256 * 1024;

/**
 * A body larger than this goes out in pieces of this size, each written once the one before is
 * flushed to the OS (back-pressure: the peer's reading paces the writes, and a string body is turned
 * into bytes a piece at a time, not all at once); replies of at least this size are also counted in
 * the node's reply backlog. Smaller replies go out in one write, uncounted: the OS buffers take them.
 */
const PIECE_BYTES = 1024 * 1024;

const STATUS_TEXT: Readonly<Record<number, string>> = {
  100: "Continue",
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  417: "Expectation Failed",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
  505: "HTTP Version Not Supported",
};

export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? "Unknown";
}

/** Headers of which Node keeps the first occurrence instead of joining them (`_http_incoming.js` matchKnownFields). */
const SINGLE_VALUED = new Set([
  "content-type",
  "content-length",
  "user-agent",
  "referer",
  "host",
  "authorization",
  "proxy-authorization",
  "if-modified-since",
  "if-unmodified-since",
  "from",
  "location",
  "max-forwards",
  "retry-after",
  "etag",
  "last-modified",
  "server",
  "age",
  "expires",
]);

/** RFC 9110 tchar, by char code. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~") TCHAR[c.charCodeAt(0)] = 1;
for (let c = 48; c <= 57; c++) TCHAR[c] = 1;
for (let c = 65; c <= 90; c++) TCHAR[c] = 1;
for (let c = 97; c <= 122; c++) TCHAR[c] = 1;

function isToken(s: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || TCHAR[c] === 0) return false;
  }
  return true;
}

/** A field value may hold HTAB, visible ASCII and obs-text (0x80–0xff), nothing else. */
function isFieldValue(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 9) || c === 0x7f) return false;
  }
  return true;
}

/** Does the comma-separated list `v` hold `token` (case-insensitive)? */
function hasToken(v: string, token: string): boolean {
  const l = v.toLowerCase();
  if (l === token) return true;
  for (const part of l.split(",")) if (part.trim() === token) return true;
  return false;
}

let dateSecond = -1;
let dateLine = "";

/** "Date: <IMF-fixdate>\r\n", rebuilt once a second. */
function dateHeader(): string {
  const now = Date.now();
  const s = Math.floor(now / 1000);
  if (s !== dateSecond) {
    dateSecond = s;
    dateLine = `Date: ${new Date(now).toUTCString()}\r\n`;
  }
  return dateLine;
}

/** A head that could not be parsed: the status to answer (400, 417, 431, 505). */
class HeadError {
  constructor(readonly status: number) {}
}

enum State {
  /** Waiting for (the rest of) a request head. */
  Head = 0,
  /** The handler has the head and has not asked for the body nor answered yet. */
  Decide = 1,
  /** Reading a Content-Length body. */
  Body = 2,
  /** Reading a chunked body (see `chunkState`). */
  Chunked = 3,
  /** The request is with the handler; input waits in `queue`. */
  Busy = 4,
  /** Input is dropped (after a truncated body or an error, before the close). */
  Discard = 5,
  Closed = 6,
  /** A large body is going out piece by piece; input waits in `queue` as in Busy. */
  Writing = 7,
}

enum Chunk {
  Size = 0,
  Data = 1,
  DataEnd = 2,
  Trailer = 3,
}

const EMPTY = Buffer.alloc(0);

export class Http1Connection {
  private state = State.Head;
  /** Unparsed input (head bytes, chunk-size lines). */
  private buf: Buffer = EMPTY;
  /** Where the search for the end of the head resumes in `buf`. */
  private scan = 0;
  /** Input that arrived while the request was with the handler. */
  private queue: Buffer[] = [];
  private queued = 0;
  private req: Http1Request | null = null;
  private keepAlive = true;
  private expectContinue = false;
  private bodyParts: Buffer[] = [];
  private bodySize = 0;
  private bodyLimit = 0;
  /** Bytes of the Content-Length body, or of the current chunk, still to come. */
  private remaining = 0;
  private chunkState = Chunk.Size;
  private truncated = false;
  /** The answer to the current request has been written. */
  private answered = false;
  private driving = false;
  private peerEnded = false;
  /** Close after the current answer (server closing). */
  closeWhenDone = false;
  /** ms timestamp of the current request's first byte; 0 when none is being received. */
  requestStart = 0;
  /** ms timestamp since the connection waits for a request; 0 while one is under way. */
  idleSince: number;
  /** Per-connection slot for the handler (e.g. its RPC connection context). */
  data: unknown = null;
  /** Reply bytes counted in the backlog and not yet flushed. */
  private held = 0;
  /** ms timestamp of the last flushed piece of a counted reply still going out; 0 when none is. */
  writeSince = 0;

  private readonly onDataFn = (c: Buffer): void => this.onData(c);
  private readonly onEndFn = (): void => this.onEnd();
  private readonly onErrorFn = (): void => {
    this.socket.destroy();
  };
  private readonly onCloseFn = (): void => this.onClose();
  private readonly onDrainFn = (): void => {
    const st = this.state;
    if (st !== State.Busy && st !== State.Closed && st !== State.Writing) this.socket.resume();
  };

  constructor(
    readonly socket: Socket,
    private readonly server: Http1Server,
  ) {
    this.idleSince = Date.now();
    socket.on("data", this.onDataFn);
    socket.on("end", this.onEndFn);
    socket.on("error", this.onErrorFn);
    socket.on("close", this.onCloseFn);
    socket.on("drain", this.onDrainFn);
  }

  get closed(): boolean {
    return this.state === State.Closed;
  }

  /** No request under way: nothing received of the next one, nothing with the handler. */
  get idle(): boolean {
    return this.state === State.Head && this.buf.length === 0;
  }

  private onData(c: Buffer): void {
    switch (this.state) {
      case State.Closed:
      case State.Discard:
        return;
      case State.Busy:
      case State.Writing:
      case State.Decide:
        this.queue.push(c);
        this.queued += c.length;
        if (this.queued > MAX_QUEUED) this.socket.pause();
        return;
    }
    if (this.requestStart === 0) {
      this.requestStart = Date.now();
      this.idleSince = 0;
    }
    this.buf = this.buf.length === 0 ? c : Buffer.concat([this.buf, c]);
    this.drive();
  }

  private onEnd(): void {
    this.peerEnded = true;
    // A request with the handler is still answered (the socket allows half-open); one that was not
    // complete never will be.
    if (this.state !== State.Busy && this.state !== State.Writing) this.socket.end();
  }

  private onClose(): void {
    this.state = State.Closed;
    this.release(this.held);
    this.writeSince = 0;
    this.buf = EMPTY;
    this.queue = [];
    this.bodyParts = [];
    this.server.forget(this);
  }

  /** Parses and serves what `buf` holds until it runs out or a request waits on its handler. */
  private drive(): void {
    if (this.driving) return;
    this.driving = true;
    try {
      for (;;) {
        const s = this.state;
        if (s === State.Head) {
          if (this.buf.length === 0 || !this.parseHead()) break;
        } else if (s === State.Body) {
          if (!this.readBodyBytes()) break;
        } else if (s === State.Chunked) {
          if (!this.readChunks()) break;
        } else break;
      }
    } finally {
      this.driving = false;
    }
  }

  /** Tries to parse a head from `buf`; true when the state moved on. */
  private parseHead(): boolean {
    const b = this.buf;
    // RFC 9112 §2.2: empty lines before the request line are ignored.
    let start = 0;
    while (start < b.length && (b[start] === 0x0d || b[start] === 0x0a)) start++;
    if (start > 0) {
      this.buf = b.subarray(start);
      this.scan = Math.max(0, this.scan - start);
      return this.buf.length > 0;
    }
    let end = -1;
    let i = this.scan;
    for (;;) {
      const lf = b.indexOf(0x0a, i);
      if (lf < 0) {
        this.scan = b.length;
        break;
      }
      if (lf + 1 >= b.length) {
        this.scan = lf;
        break;
      }
      const n = b[lf + 1];
      if (n === 0x0a) {
        end = lf + 2;
        break;
      }
      if (n === 0x0d) {
        if (lf + 2 >= b.length) {
          this.scan = lf;
          break;
        }
        if (b[lf + 2] === 0x0a) {
          end = lf + 3;
          break;
        }
      }
      i = lf + 1;
    }
    const max = this.server.opts.maxHeadBytes;
    if (end < 0) {
      if (b.length > max) this.fail(431);
      return false;
    }
    if (end > max) {
      this.fail(431);
      return false;
    }
    this.scan = 0;
    let req: Http1Request;
    try {
      req = this.readHead(b.toString("latin1", 0, end));
    } catch (e) {
      if (!(e instanceof HeadError)) throw e;
      this.fail(e.status);
      return false;
    }
    this.buf = b.subarray(end);
    this.req = req;
    this.answered = false;
    this.truncated = false;
    if (this.server.upgrade !== null && this.isUpgrade(req)) {
      this.handOff(req);
      return false;
    }
    this.state = State.Decide;
    try {
      this.server.handler.request(req, this);
    } catch {
      this.socket.destroy();
      return false;
    }
    if (this.state === State.Decide) {
      // A handler bug: the request would hang; cut the connection instead.
      this.socket.destroy();
      return false;
    }
    return this.state !== State.Busy;
  }

  private isUpgrade(req: Http1Request): boolean {
    const c = req.headers.connection;
    return req.headers.upgrade !== undefined && c !== undefined && hasToken(c, "upgrade");
  }

  /** Gives the socket, and the bytes after the head, to the upgrade handler (this connection is done). */
  private handOff(req: Http1Request): void {
    const head = this.buf;
    this.state = State.Closed;
    this.buf = EMPTY;
    const s = this.socket;
    s.off("data", this.onDataFn);
    s.off("end", this.onEndFn);
    s.off("error", this.onErrorFn);
    s.off("close", this.onCloseFn);
    s.off("drain", this.onDrainFn);
    // As node:http before its 'upgrade' event: the new owner's 'data' listener starts the flow.
    (s as { readableFlowing: boolean | null }).readableFlowing = null;
    this.server.forget(this);
    this.server.upgrade!(req, s, head);
  }

  /** Parses a head (request line and header lines, ending with the empty line). */
  private readHead(h: string): Http1Request {
    let eol = h.indexOf("\n");
    const line = h.slice(0, eol > 0 && h.charCodeAt(eol - 1) === 13 ? eol - 1 : eol);
    const sp1 = line.indexOf(" ");
    const sp2 = line.indexOf(" ", sp1 + 1);
    if (sp1 <= 0 || sp2 < 0 || line.indexOf(" ", sp2 + 1) >= 0) throw new HeadError(400);
    if (!isToken(line, 0, sp1)) throw new HeadError(400);
    const method = line.slice(0, sp1);
    const url = line.slice(sp1 + 1, sp2);
    if (url.length === 0) throw new HeadError(400);
    for (let i = 0; i < url.length; i++) {
      const c = url.charCodeAt(i);
      if (c <= 0x20 || c === 0x7f) throw new HeadError(400);
    }
    const version = line.slice(sp2 + 1);
    let minor: number;
    if (version === "HTTP/1.1") minor = 1;
    else if (version === "HTTP/1.0") minor = 0;
    else if (/^HTTP\/\d\.\d$/.test(version)) throw new HeadError(505);
    else throw new HeadError(400);

    const headers: Record<string, string> = Object.create(null);
    let cl: string | undefined;
    let te: string | undefined;
    for (;;) {
      const from = eol + 1;
      eol = h.indexOf("\n", from);
      const to = eol > from && h.charCodeAt(eol - 1) === 13 ? eol - 1 : eol;
      if (to === from) break; // the empty line
      const c0 = h.charCodeAt(from);
      if (c0 === 32 || c0 === 9) throw new HeadError(400); // obsolete line folding
      const colon = h.indexOf(":", from);
      if (colon < 0 || colon > to || !isToken(h, from, colon)) throw new HeadError(400);
      let vs = colon + 1;
      let ve = to;
      while (vs < ve && (h.charCodeAt(vs) === 32 || h.charCodeAt(vs) === 9)) vs++;
      while (ve > vs && (h.charCodeAt(ve - 1) === 32 || h.charCodeAt(ve - 1) === 9)) ve--;
      if (!isFieldValue(h, vs, ve)) throw new HeadError(400);
      const name = h.slice(from, colon).toLowerCase();
      const value = h.slice(vs, ve);
      if (name === "content-length") {
        if (!/^\d+$/.test(value) || (cl !== undefined && cl !== value)) throw new HeadError(400);
        cl = value;
      } else if (name === "transfer-encoding") {
        te = te === undefined ? value : `${te}, ${value}`;
      }
      const prev = headers[name];
      if (prev === undefined) headers[name] = value;
      else if (!SINGLE_VALUED.has(name)) headers[name] = `${prev}, ${value}`;
    }

    let chunked = false;
    let contentLength = -1;
    if (te !== undefined) {
      // The last coding must be chunked, else the length is unknowable; with Content-Length too, refuse.
      const codings = te.toLowerCase().split(",");
      if (codings[codings.length - 1]!.trim() !== "chunked" || cl !== undefined) throw new HeadError(400);
      chunked = true;
    } else if (cl !== undefined) {
      contentLength = Number(cl);
    }

    const conn = headers.connection;
    this.keepAlive =
      minor === 1 ? conn === undefined || !hasToken(conn, "close") : conn !== undefined && hasToken(conn, "keep-alive");
    const expect = headers.expect;
    this.expectContinue = false;
    if (expect !== undefined && minor === 1) {
      if (expect.toLowerCase() !== "100-continue") throw new HeadError(417);
      this.expectContinue = true;
    }
    return { method, url, minor, headers, socket: this.socket, contentLength, chunked };
  }

  /** Answers a head that could not be parsed, and closes. */
  private fail(status: number): void {
    this.state = State.Discard;
    this.buf = EMPTY;
    this.socket.end(`HTTP/1.1 ${status} ${statusText(status)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  }

  /**
   * The handler wants the body, up to `limit` bytes (more is cut, and the connection closed after the
   * answer); `handler.body` gets it, now or when it has arrived.
   */
  readBody(limit: number): void {
    if (this.state !== State.Decide) throw new Error("readBody: not deciding on a request");
    const req = this.req!;
    this.bodyParts = [];
    this.bodySize = 0;
    this.bodyLimit = limit;
    if (req.chunked) {
      this.state = State.Chunked;
      this.chunkState = Chunk.Size;
    } else {
      this.state = State.Body;
      this.remaining = req.contentLength < 0 ? 0 : req.contentLength;
    }
    if (this.expectContinue && this.buf.length === 0 && (req.chunked || this.remaining > 0)) {
      this.socket.write("HTTP/1.1 100 Continue\r\n\r\n");
    }
    this.expectContinue = false;
    // Called from within `request` (inside drive): drive's loop reads on. Else read what is here.
    if (!this.driving) this.drive();
  }

  /** Takes Content-Length body bytes from `buf`; true when the body is complete and handed over. */
  private readBodyBytes(): boolean {
    const b = this.buf;
    const n = Math.min(this.remaining, b.length);
    if (n > 0) {
      this.take(b.subarray(0, n));
      this.buf = b.subarray(n);
      this.remaining -= n;
    }
    if (this.remaining > 0 && !this.truncated) return false;
    this.deliver();
    return true;
  }

  /** Adds body bytes, cutting at the limit. */
  private take(part: Buffer): void {
    if (this.truncated) return;
    const room = this.bodyLimit - this.bodySize;
    if (part.length > room) {
      if (room > 0) this.bodyParts.push(part.subarray(0, room));
      this.bodySize = this.bodyLimit;
      this.truncated = true;
      return;
    }
    this.bodyParts.push(part);
    this.bodySize += part.length;
  }

  /** Reads chunked framing from `buf`; true when the body is complete (or cut) and handed over. */
  private readChunks(): boolean {
    for (;;) {
      const b = this.buf;
      if (this.chunkState === Chunk.Data) {
        const n = Math.min(this.remaining, b.length);
        if (n > 0) {
          this.take(b.subarray(0, n));
          this.buf = b.subarray(n);
          this.remaining -= n;
        }
        if (this.truncated) {
          // geth reads a body without length only up to the limit: answer what we have, drop the rest.
          this.deliver();
          return true;
        }
        if (this.remaining > 0) return false;
        this.chunkState = Chunk.DataEnd;
        continue;
      }
      const lf = b.indexOf(0x0a);
      if (lf < 0) {
        if (b.length > this.server.opts.maxHeadBytes) this.fail(400);
        return false;
      }
      const line = b.toString("latin1", 0, lf > 0 && b[lf - 1] === 0x0d ? lf - 1 : lf);
      this.buf = b.subarray(lf + 1);
      if (this.chunkState === Chunk.DataEnd) {
        if (line !== "") return this.badChunk();
        this.chunkState = Chunk.Size;
      } else if (this.chunkState === Chunk.Size) {
        const semi = line.indexOf(";");
        const hex = (semi < 0 ? line : line.slice(0, semi)).trim();
        if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) return this.badChunk();
        const size = Number.parseInt(hex, 16);
        if (size === 0) this.chunkState = Chunk.Trailer;
        else {
          this.remaining = size;
          this.chunkState = Chunk.Data;
        }
      } else {
        // Trailer section: header lines until the empty one, ignored.
        if (line === "") {
          this.deliver();
          return true;
        }
      }
    }
  }

  private badChunk(): boolean {
    this.fail(400);
    return false;
  }

  /** The body is complete (or cut): hand it to the handler. */
  private deliver(): void {
    const req = this.req!;
    const parts = this.bodyParts;
    const body = parts.length === 1 ? parts[0]! : parts.length === 0 ? EMPTY : Buffer.concat(parts, this.bodySize);
    this.bodyParts = [];
    this.requestStart = 0;
    const truncated = this.truncated;
    if (truncated) {
      this.keepAlive = false;
      this.state = State.Discard;
      this.buf = EMPTY;
    } else {
      this.state = State.Busy;
    }
    try {
      this.server.handler.body(req, this, body, truncated);
    } catch {
      this.socket.destroy();
    }
  }

  /**
   * Writes the answer to the current request: `head` holds the header lines after the status line
   * (each ending in CRLF, without Content-Length, Date and Connection, which are added here), then
   * `body`. A HEAD request's answer carries the length but not the body.
   */
  respond(status: number, head: string, body: string | Buffer | readonly string[]): void {
    if (this.state === State.Closed || this.answered) return;
    this.answered = true;
    const req = this.req!;
    // A body not read (an answer before readBody, or before all of it came) that is not already
    // here in full: close after answering.
    const st = this.state;
    if ((st === State.Decide && !this.skipUnreadBody(req)) || st === State.Body || st === State.Chunked) {
      this.keepAlive = false;
      this.state = State.Discard;
      this.buf = EMPTY;
    }
    if (this.closeWhenDone || this.peerEnded) this.keepAlive = false;
    let len = 0;
    if (typeof body === "string") len = Buffer.byteLength(body);
    else if (Buffer.isBuffer(body)) len = body.length;
    else for (const c of body) len += Buffer.byteLength(c);
    const conn = this.keepAlive ? this.server.keepAliveLine : "Connection: close\r\n";
    const top = `HTTP/1.1 ${status} ${statusText(status)}\r\n${head}Content-Length: ${len}\r\n${dateHeader()}${conn}\r\n`;
    const s = this.socket;
    this.req = null;
    if (req.method === "HEAD" || len === 0) s.write(top);
    else if (len < PIECE_BYTES) {
      if (typeof body === "string") s.write(top + body);
      else if (!Buffer.isBuffer(body)) s.write(top + body.join(""));
      else {
        s.cork();
        s.write(top);
        s.write(body);
        s.uncork();
      }
    } else {
      // Over the node's backlog bounds: drop the connection rather than hold the reply (backlog.ts).
      if (!this.server.backlog.take(this.held, len)) {
        this.state = State.Discard;
        s.destroy();
        return;
      }
      this.held += len;
      s.write(top);
      this.state = State.Writing;
      this.writePiece(typeof body === "string" || Buffer.isBuffer(body) ? [body] : body, 0, 0, len);
      return;
    }
    this.afterResponse();
  }

  /** Gives `n` held bytes back to the backlog. */
  private release(n: number): void {
    if (n <= 0) return;
    this.held -= n;
    this.server.backlog.give(n);
  }

  /**
   * Writes the piece of `body` from `off`; the next one goes when this one is flushed. Once the last
   * piece is with the socket the connection moves on to the next request; its `len` held bytes are
   * given back when that piece is flushed (or the connection closes).
   */
  private writePiece(body: readonly (string | Buffer)[], ci: number, off: number, len: number): void {
    // Up to PIECE_BYTES from chunk `ci` at `off` on: the rest of a chunk and whole chunks after it
    // (a Buffer body is a list of one), a string cut between UTF-16 units, never in a surrogate pair.
    const parts: (string | Buffer)[] = [];
    let size = 0;
    while (ci < body.length && size < PIECE_BYTES) {
      const c = body[ci]!;
      let end = Math.min(c.length, off + PIECE_BYTES - size);
      if (typeof c === "string" && end < c.length && (c.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
      if (end > off) {
        parts.push(
          off === 0 && end === c.length ? c : typeof c === "string" ? c.slice(off, end) : c.subarray(off, end),
        );
        size += end - off;
      }
      if (end < c.length) {
        off = end;
        break;
      }
      ci++;
      off = 0;
    }
    const piece = parts.length === 1 ? parts[0]! : (parts as string[]).join("");
    const last = ci >= body.length;
    this.writeSince = Date.now();
    this.socket.write(piece, (err) => {
      if (err !== undefined && err !== null) return;
      if (this.state === State.Closed) return;
      if (last) {
        this.writeSince = 0;
        this.release(len);
      } else this.writePiece(body, ci, off, len);
    });
    if (last) this.afterResponse();
  }

  /** After the answer is with the socket: close, or take up the next request. */
  private afterResponse(): void {
    const s = this.socket;
    if (!this.keepAlive) {
      this.state = State.Discard;
      this.queue = [];
      this.buf = EMPTY;
      s.end();
      return;
    }
    this.state = State.Head;
    this.requestStart = 0;
    this.unqueue();
    if (this.buf.length > 0) this.requestStart = Date.now();
    else this.idleSince = Date.now();
    if (s.isPaused() && !s.writableNeedDrain) s.resume();
    else if (s.writableNeedDrain) s.pause(); // the peer is not reading: wait for 'drain'
    this.drive();
  }

  /** Appends the input that waited while the request was with the handler to `buf`. */
  private unqueue(): void {
    if (this.queue.length === 0) return;
    const q = this.queue;
    this.queue = [];
    this.queued = 0;
    if (this.buf.length > 0) q.unshift(this.buf);
    this.buf = q.length === 1 ? q[0]! : Buffer.concat(q);
  }

  /** Drops a body the handler did not read; false when it is not all here (the connection then closes). */
  private skipUnreadBody(req: Http1Request): boolean {
    if (req.chunked) return false;
    const n = req.contentLength < 0 ? 0 : req.contentLength;
    if (this.buf.length < n) return false;
    this.buf = this.buf.subarray(n);
    return true;
  }

  /** The request took too long to arrive: 408, close. */
  timedOut(): void {
    if (this.state === State.Closed || this.state === State.Discard) return;
    this.state = State.Discard;
    this.buf = EMPTY;
    this.socket.end(`HTTP/1.1 408 ${statusText(408)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  }
}

export class Http1Server {
  readonly opts: Http1Options;
  readonly keepAliveLine: string;
  readonly backlog: ReplyBacklog;
  upgrade: UpgradeHandler | null = null;
  private readonly net: Server;
  private readonly conns = new Set<Http1Connection>();
  private sweeper: NodeJS.Timeout | null = null;
  private closing = false;

  constructor(
    opts: Http1Options,
    readonly handler: Http1Handler,
  ) {
    this.opts = opts;
    this.backlog = opts.backlog ?? new ReplyBacklog();
    this.keepAliveLine = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(opts.keepAliveTimeoutMs / 1000)}\r\n`;
    this.net = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
      if (this.closing) {
        socket.destroy();
        return;
      }
      this.conns.add(new Http1Connection(socket, this));
    });
  }

  /** Listens; resolves with the bound address. */
  listen(port: number, addr: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.net.once("error", reject);
      this.net.listen(port, addr, () => {
        this.net.off("error", reject);
        this.startSweeper();
        resolve(this.address());
      });
    });
  }

  get listening(): boolean {
    return this.net.listening;
  }

  address(): AddressInfo {
    const a = this.net.address();
    if (a === null || typeof a === "string") throw new Error("HTTP server is not listening");
    return a;
  }

  /** Open connections (for tests and metrics). */
  get connections(): number {
    return this.conns.size;
  }

  forget(c: Http1Connection): void {
    this.conns.delete(c);
  }

  private startSweeper(): void {
    const { requestTimeoutMs, keepAliveTimeoutMs } = this.opts;
    const writeTimeoutMs = this.opts.writeTimeoutMs ?? 0;
    // As node:http's connectionsCheckingInterval: a tenth of a timeout keeps its cut within 10%.
    let every = 30_000;
    if (requestTimeoutMs > 0) every = Math.min(every, requestTimeoutMs / 10);
    if (keepAliveTimeoutMs > 0) every = Math.min(every, keepAliveTimeoutMs / 10);
    if (writeTimeoutMs > 0) every = Math.min(every, writeTimeoutMs / 10);
    every = Math.max(10, Math.floor(every));
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const c of this.conns) {
        if (writeTimeoutMs > 0 && c.writeSince !== 0 && now - c.writeSince > writeTimeoutMs) c.socket.destroy();
        else if (requestTimeoutMs > 0 && c.requestStart !== 0 && now - c.requestStart > requestTimeoutMs) c.timedOut();
        else if (keepAliveTimeoutMs > 0 && c.idleSince !== 0 && c.idle && now - c.idleSince > keepAliveTimeoutMs) {
          c.socket.destroy();
        }
      }
    }, every);
    this.sweeper.unref();
  }

  /**
   * Stops accepting connections, closes idle ones, lets requests under way be answered (then closes
   * their connections), and destroys what is still open after `graceMs`.
   */
  close(graceMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.closing = true;
      if (!this.net.listening) {
        this.stopSweeper();
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        for (const c of this.conns) c.socket.destroy();
      }, graceMs);
      timer.unref();
      this.net.close(() => {
        clearTimeout(timer);
        this.stopSweeper();
        resolve();
      });
      for (const c of this.conns) {
        c.closeWhenDone = true;
        if (c.idle) c.socket.end();
      }
    });
  }

  private stopSweeper(): void {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }
}
