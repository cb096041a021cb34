/**
 * util/http1Client.ts against a raw TCP server that writes its answers byte for byte: framing by
 * Content-Length, by chunks (split at every boundary, with extensions and trailers) and by the end
 * of the connection; keep-alive and its end (Connection: close, HTTP/1.0, a server closing an idle
 * connection, the Keep-Alive timeout hint); calls in flight at once; timeouts; malformed answers.
 */
import { strict as assert } from "node:assert";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { Http1Error, Http1Pool } from "../../../src/util/http1Client.js";

interface Req {
  readonly head: string;
  readonly body: string;
}

/** A server that reads each request (by its Content-Length) and lets `answer` write raw bytes. */
async function rawServer(answer: (req: Req, sock: Socket, n: number) => void): Promise<{
  server: Server;
  pool: Http1Pool;
  connections: () => number;
}> {
  let conns = 0;
  let n = 0;
  const server = createServer((sock) => {
    conns++;
    let buf = Buffer.alloc(0);
    sock.on("data", (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buf.toString("latin1", 0, end);
        const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        const body = buf.toString("utf8", end + 4, end + 4 + len);
        buf = buf.subarray(end + 4 + len);
        answer({ head, body }, sock, n++);
      }
    });
    sock.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const pool = new Http1Pool("127.0.0.1", (server.address() as AddressInfo).port);
  return { server, pool, connections: () => conns };
}

/** Writes `bytes` (latin-1: one char a byte) one small piece at a time, a macrotask apart. */
async function trickle(sock: Socket, bytes: string, piece = 3): Promise<void> {
  for (let i = 0; i < bytes.length; i += piece) {
    sock.write(bytes.slice(i, i + piece), "latin1");
    await new Promise((r) => setTimeout(r, 1));
  }
}

const ok = (body: string, extra = ""): string =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe("util/http1Client", () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
  });

  it("sends one POST with Host and Content-Length, and keeps one connection for calls in series", async () => {
    const seen: Req[] = [];
    const s = await rawServer((req, sock) => {
      seen.push(req);
      sock.write(ok(JSON.stringify({ echo: req.body })));
    });
    servers.push(s.server);
    for (let i = 0; i < 10; i++) {
      const a = await s.pool.post(
        "/x?y=1",
        "Content-Type: application/json\r\nAuthorization: t\r\n",
        `{"i":${i}}`,
        2000,
      );
      assert.equal(a.status, 200);
      assert.deepEqual(JSON.parse(a.body.toString()), { echo: `{"i":${i}}` });
    }
    assert.equal(s.connections(), 1);
    assert.match(seen[0]!.head, /^POST \/x\?y=1 HTTP\/1\.1\r\n/);
    assert.match(seen[0]!.head, /\r\nHost: 127\.0\.0\.1:\d+\r\n/);
    assert.match(seen[0]!.head, /\r\nAuthorization: t(\r\n|$)/);
    assert.match(seen[0]!.head, /\r\nContent-Length: 7(\r\n|$)/);
    s.pool.close();
  });

  it("reads chunked answers split anywhere, with extensions and trailers, and a head in pieces", async () => {
    const body = JSON.stringify({ result: "x".repeat(5000), tail: "é" });
    const bytes = Buffer.from(body);
    const s = await rawServer((_req, sock, n) => {
      const parts = [bytes.subarray(0, 1), bytes.subarray(1, 4000), bytes.subarray(4000)];
      let out = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
      for (const p of parts)
        out += `${p.length.toString(16)}${n % 2 === 1 ? ";ext=1" : ""}\r\n${p.toString("latin1")}\r\n`;
      out += n % 2 === 1 ? "0\r\nX-Trailer: 1\r\n\r\n" : "0\r\n\r\n";
      void trickle(sock, out, n === 0 ? 7 : 1000);
    });
    servers.push(s.server);
    for (let i = 0; i < 3; i++) {
      const a = await s.pool.post("/", "", "{}", 5000);
      assert.equal(a.body.toString("utf8"), body);
    }
    assert.equal(s.connections(), 1, "a chunked answer keeps the connection");
    s.pool.close();
  });

  it("ends keep-alive on Connection: close and HTTP/1.0, and reads a body that runs to the close", async () => {
    const s = await rawServer((_req, sock, n) => {
      if (n === 0) sock.write(ok('"a"', "Connection: close\r\n"));
      else if (n === 1) sock.end('HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\n"b"');
      else if (n === 2) sock.end('HTTP/1.1 200 OK\r\n\r\n"c"');
      else sock.write("HTTP/1.1 204 No Content\r\n\r\n");
    });
    servers.push(s.server);
    const bodies: string[] = [];
    for (let i = 0; i < 4; i++) bodies.push((await s.pool.post("/", "", "{}", 2000)).body.toString());
    assert.deepEqual(bodies, ['"a"', '"b"', '"c"', ""]);
    assert.equal(s.connections(), 4);
    s.pool.close();
  });

  it("runs calls in flight at once on their own connections, each getting its own answer", async () => {
    const s = await rawServer((req, sock) => {
      const { i } = JSON.parse(req.body) as { i: number };
      setTimeout(() => sock.write(ok(String(i * 10))), (5 - i) * 5);
    });
    servers.push(s.server);
    const got = await Promise.all([0, 1, 2, 3, 4].map((i) => s.pool.post("/", "", `{"i":${i}}`, 2000)));
    assert.deepEqual(
      got.map((a) => a.body.toString()),
      ["0", "10", "20", "30", "40"],
    );
    assert.equal(s.connections(), 5);
    assert.equal(s.pool.idleCount, 5);
    s.pool.close();
  });

  it("drops an idle connection the server closed, and honours the Keep-Alive timeout hint", async () => {
    const s = await rawServer((_req, sock, n) => {
      if (n === 0) {
        sock.write(ok("1"));
        setTimeout(() => sock.destroy(), 20);
      } else sock.write(ok(String(n + 1), "Keep-Alive: timeout=1\r\n"));
    });
    servers.push(s.server);
    assert.equal((await s.pool.post("/", "", "{}", 2000)).body.toString(), "1");
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(s.pool.idleCount, 0, "the closed connection left the idle list");
    assert.equal((await s.pool.post("/", "", "{}", 2000)).body.toString(), "2");
    // timeout=1 leaves nothing to keep (one second less than the hint, as Node's agent).
    assert.equal(s.pool.idleCount, 0);
    assert.equal((await s.pool.post("/", "", "{}", 2000)).body.toString(), "3");
    assert.equal(s.connections(), 3);
  });

  it("times out, refuses malformed answers with a clear error, and works again afterwards", async () => {
    const s = await rawServer((req, sock) => {
      const what = JSON.parse(req.body) as string;
      if (what === "silent") return;
      if (what === "status") sock.write("SMTP ready\r\n\r\n");
      else if (what === "size") sock.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
      else if (what === "long") sock.write('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n"ab"');
      else if (what === "cut") sock.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"ab');
      else sock.write(ok('"fine"'));
    });
    servers.push(s.server);
    const fails = async (what: string, re: RegExp): Promise<void> => {
      await assert.rejects(s.pool.post("/", "", JSON.stringify(what), 300), (e: unknown) => {
        assert.ok(e instanceof Http1Error, String(e));
        assert.match(e.message, re);
        return true;
      });
      assert.equal((await s.pool.post("/", "", '"ok"', 2000)).body.toString(), '"fine"');
    };
    await fails("silent", /timed out after 300 ms/);
    await fails("status", /not an HTTP\/1\.x answer/);
    await fails("size", /bad chunk size "zz"/);
    await fails("long", /more bytes than the answer's Content-Length/);
    await fails("cut", /closed before the answer ended/);
    await assert.rejects(new Http1Pool("127.0.0.1", 9).post("/", "", "{}", 2000), Http1Error);
    s.pool.close();
  });
});
