/**
 * A keep-alive HTTP/1.1 client for JSON-RPC POSTs over plain TCP (the client twin of
 * rpc/http1.ts): one request line and its headers in one write, the answer read by its
 * Content-Length or its chunks. For `http:` endpoints only; RpcClient sends `https:` through
 * node:https.
 * PERF (issue 25): a deriving node makes four engine calls a block, in series with the engine;
 * node:http's client (a ClientRequest, the agent's bookkeeping, llhttp's callbacks and a Readable
 * per answer) cost the verifier ~1.5 ms of CPU a block in a catch-up profile, for answers of a few
 * hundred bytes.
 *
 * Connections per origin: a call takes an idle one or opens a new one (calls in flight at once
 * each have their own, as an agent without a limit); after a whole answer the connection goes
 * back to the idle list unless either side said `Connection: close`. An idle connection the server
 * closes leaves the list at once, and one idle longer than the server's `Keep-Alive: timeout`
 * hint (less a second, as Node's agent) or `IDLE_MS` is closed by us. Idle sockets are unref'd:
 * they keep no process alive.
 */
import { connect, type Socket } from "node:net";

/** How long an idle connection is kept when the server gives no Keep-Alive hint. */
const IDLE_MS = 30_000;
/** Longest head (status line and headers) taken: geth's and Node's servers send a few hundred bytes. */
const MAX_HEAD = 64 * 1024;
const CRLF2 = Buffer.from("\r\n\r\n");
/** Where a chunked body's parse stands: a size line, chunk data, the CRLF after it, trailers. */
const CHUNK_SIZE = 0;
const CHUNK_DATA = 1;
const CHUNK_DATA_END = 2;
const CHUNK_TRAILERS = 3;

export class Http1Error extends Error {
  override readonly name = "Http1Error";
}

export interface Http1Answer {
  readonly status: number;
  readonly body: Buffer;
}

/** A pending call on one connection: its answer as it arrives. */
interface Pending {
  resolve(a: Http1Answer): void;
  reject(e: Http1Error): void;
}

class Conn {
  readonly socket: Socket;
  /** Bytes of the current answer not yet parsed. */
  private buf: Buffer | null = null;
  private pending: Pending | null = null;
  /** Parsed head of the current answer, once complete. */
  private status = 0;
  private bodyLen = -1;
  private chunked = false;
  private untilClose = false;
  private closeAfter = false;
  private keepAliveMs = IDLE_MS;
  private chunks: Buffer[] = [];
  private received = 0;
  private chunkState = CHUNK_SIZE;
  private chunkLeft = 0;

  constructor(
    readonly pool: Http1Pool,
    host: string,
    port: number,
  ) {
    this.socket = connect({ host, port, noDelay: true });
    this.socket.on("data", (d: Buffer) => this.onData(d));
    this.socket.on("error", (e) => this.fail(e.message));
    this.socket.on("close", () => this.onClose());
    this.socket.on("timeout", () => this.socket.destroy());
  }

  send(head: string, body: string, p: Pending): void {
    this.pending = p;
    this.buf = null;
    this.status = 0;
    this.bodyLen = -1;
    this.chunked = false;
    this.untilClose = false;
    this.closeAfter = false;
    this.chunks = [];
    this.received = 0;
    this.chunkState = CHUNK_SIZE;
    this.chunkLeft = 0;
    this.socket.setTimeout(0);
    this.socket.ref();
    this.socket.write(head + body);
  }

  /** The call gave up (timeout): the connection is in an unknown state and goes. */
  abandon(): void {
    this.pending = null;
    this.socket.destroy();
  }

  private onClose(): void {
    this.pool.forget(this);
    if (this.pending === null) return;
    if (this.untilClose && this.status !== 0) {
      this.finish();
      return;
    }
    this.fail("the connection closed before the answer ended");
  }

  private fail(why: string): void {
    const p = this.pending;
    this.pending = null;
    this.socket.destroy();
    p?.reject(new Http1Error(why));
  }

  private onData(d: Buffer): void {
    if (this.pending === null) {
      // Bytes outside any call: the connection is out of step; it goes.
      this.socket.destroy();
      return;
    }
    const b = this.buf === null ? d : Buffer.concat([this.buf, d]);
    this.buf = null;
    if (this.status === 0) {
      const end = b.indexOf(CRLF2);
      if (end < 0) {
        if (b.length > MAX_HEAD) this.fail("the answer's head is too long");
        else this.buf = b;
        return;
      }
      const why = this.parseHead(b.toString("latin1", 0, end));
      if (why !== null) {
        this.fail(why);
        return;
      }
      const rest = b.subarray(end + 4);
      if (rest.length > 0 || this.bodyLen === 0) this.body(rest);
      return;
    }
    this.body(b);
  }

  /** Reads the status line and the headers that frame the body; an error text or null. */
  private parseHead(head: string): string | null {
    const lines = head.split("\r\n");
    const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? "");
    if (m === null) return `not an HTTP/1.x answer: ${JSON.stringify((lines[0] ?? "").slice(0, 80))}`;
    const status = Number(m[2]);
    if (status < 200) return `unexpected HTTP ${status}`;
    this.status = status;
    this.closeAfter = m[1] === "0";
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const c = line.indexOf(":");
      // RFC 9112 §5.1: no whitespace between a field name and its colon. Only the four names
      // below frame an answer (lengths 10, 14, 17): any other line costs no slice.
      if (c !== 10 && c !== 14 && c !== 17) continue;
      const name = line.slice(0, c).toLowerCase();
      const value = line.slice(c + 1).trim();
      if (name === "content-length") {
        if (!/^\d+$/.test(value)) return `bad Content-Length ${JSON.stringify(value)}`;
        this.bodyLen = Number(value);
      } else if (name === "transfer-encoding") {
        this.chunked = value.toLowerCase().split(",").pop()?.trim() === "chunked";
      } else if (name === "connection") {
        const v = value.toLowerCase();
        if (v.includes("close")) this.closeAfter = true;
        else if (v.includes("keep-alive")) this.closeAfter = false;
      } else if (name === "keep-alive") {
        const t = /timeout=(\d+)/i.exec(value);
        if (t !== null) this.keepAliveMs = Math.max(0, Number(t[1]) * 1000 - 1000);
      }
    }
    if (status === 204 || status === 304) {
      this.chunked = false;
      this.bodyLen = 0;
    } else if (this.chunked) this.bodyLen = -1;
    else if (this.bodyLen < 0) {
      // Neither framing: the body runs to the end of the connection (RFC 9112 §6.3).
      this.untilClose = true;
      this.closeAfter = true;
    }
    return null;
  }

  private body(b: Buffer): void {
    if (this.untilClose) {
      if (b.length > 0) this.chunks.push(b);
      return;
    }
    if (!this.chunked) {
      const want = this.bodyLen - this.received;
      if (b.length > want) {
        this.fail("more bytes than the answer's Content-Length");
        return;
      }
      if (b.length > 0) this.chunks.push(b);
      this.received += b.length;
      if (this.received === this.bodyLen) this.finish();
      return;
    }
    this.dechunk(b);
  }

  /**
   * Chunked body (RFC 9112 §7.1): a size line, that many bytes and a CRLF, again, until a size of
   * zero; then trailer lines (ignored) up to an empty one. Data is taken as it arrives (no copy of
   * a big chunk per packet); only a partial size line, CRLF or trailer waits in `buf`.
   */
  private dechunk(b: Buffer): void {
    let at = 0;
    while (at < b.length) {
      if (this.chunkState === CHUNK_DATA) {
        const n = Math.min(this.chunkLeft, b.length - at);
        this.chunks.push(b.subarray(at, at + n));
        at += n;
        this.chunkLeft -= n;
        if (this.chunkLeft === 0) this.chunkState = CHUNK_DATA_END;
        continue;
      }
      if (this.chunkState === CHUNK_DATA_END) {
        if (b.length - at < 2) break;
        if (b[at] !== 13 || b[at + 1] !== 10) {
          this.fail("a chunk does not end with CRLF");
          return;
        }
        at += 2;
        this.chunkState = CHUNK_SIZE;
        continue;
      }
      const eol = b.indexOf("\r\n", at, "latin1");
      if (eol < 0) {
        if (b.length - at > MAX_HEAD) {
          this.fail("a chunk size or trailer line is too long");
          return;
        }
        break;
      }
      if (this.chunkState === CHUNK_TRAILERS) {
        if (eol === at) {
          this.finish();
          return;
        }
        at = eol + 2;
        continue;
      }
      const sizeText = b.toString("latin1", at, eol).split(";")[0]!.trim();
      if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) {
        this.fail(`bad chunk size ${JSON.stringify(sizeText.slice(0, 20))}`);
        return;
      }
      const size = Number.parseInt(sizeText, 16);
      at = eol + 2;
      if (size === 0) this.chunkState = CHUNK_TRAILERS;
      else {
        this.chunkLeft = size;
        this.chunkState = CHUNK_DATA;
      }
    }
    if (at < b.length) this.buf = b.subarray(at);
  }

  private finish(): void {
    const p = this.pending;
    if (p === null) return;
    this.pending = null;
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const status = this.status;
    this.chunks = [];
    if (this.closeAfter || this.socket.destroyed) this.socket.destroy();
    else this.pool.release(this, this.keepAliveMs);
    p.resolve({ status, body });
  }
}

/** Keep-alive connections to one `http:` origin. */
export class Http1Pool {
  private readonly idle: Conn[] = [];
  private readonly hostHeader: string;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {
    this.hostHeader = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  }

  /**
   * POSTs `body` to `path` with `headers` (each line `Name: value\r\n`, Host and Content-Length
   * added here); rejects with Http1Error on a transport failure or after `timeoutMs`.
   */
  post(path: string, headers: string, body: string, timeoutMs: number): Promise<Http1Answer> {
    const head = `POST ${path} HTTP/1.1\r\nHost: ${this.hostHeader}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}\r\n`;
    let conn = this.idle.pop();
    while (conn?.socket.destroyed) conn = this.idle.pop();
    const c = conn ?? new Conn(this, this.host, this.port);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        c.abandon();
        reject(new Http1Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      c.send(head, body, {
        resolve: (a) => {
          clearTimeout(timer);
          resolve(a);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
    });
  }

  /** Connections open now (idle ones; tests). */
  get idleCount(): number {
    return this.idle.length;
  }

  /** Closes the idle connections. */
  close(): void {
    for (const c of this.idle.splice(0)) c.socket.destroy();
  }

  /** @internal A connection whose answer is whole and that stays open. */
  release(c: Conn, keepMs: number): void {
    if (keepMs <= 0) {
      c.socket.destroy();
      return;
    }
    c.socket.setTimeout(keepMs);
    c.socket.unref();
    this.idle.push(c);
  }

  /** @internal A connection that closed. */
  forget(c: Conn): void {
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
  }
}
