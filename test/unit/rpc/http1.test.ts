/**
 * The lean HTTP/1.1 server (rpc/http1.ts) on raw sockets: a request split at every byte, pipelined
 * requests answered in order, Content-Length and chunked bodies (extensions, trailers, split reads),
 * the body limit, 100-continue and 417, keep-alive by version and Connection, HEAD, malformed heads
 * (400) and oversized ones (431) closing the connection, the upgrade hand-off with the bytes after
 * the head, the request and idle timeouts, and a seeded fuzz: random splits of a pipelined stream
 * give the same answers, random garbage never takes the server down.
 */
import { strict as assert } from "node:assert";
import { connect } from "node:net";
import {
  type Http1Connection,
  type Http1Options,
  type Http1Request,
  Http1Server,
  statusText,
} from "../../../src/rpc/http1.js";
import { mulberry32 } from "../../utils/prng.js";

const LIMIT = 64;

/** Answers "<method> <url> <body length>:<body>[ truncated]"; "/now" answers before reading the body. */
function echoHandler() {
  return {
    request(req: Http1Request, conn: Http1Connection): void {
      if (req.url === "/now") conn.respond(202, "", "now");
      else conn.readBody(LIMIT);
    },
    body(req: Http1Request, conn: Http1Connection, body: Buffer, truncated: boolean): void {
      const text = `${req.method} ${req.url} ${body.length}:${body.toString("latin1")}${truncated ? " truncated" : ""}`;
      if (req.url === "/later") setTimeout(() => conn.respond(200, "X-Later: 1\r\n", text), 5);
      else conn.respond(200, "", text);
    },
  };
}

async function withServer(
  opts: Partial<Http1Options>,
  f: (port: number, s: Http1Server) => Promise<void>,
  upgrade?: Http1Server["upgrade"],
): Promise<void> {
  const s = new Http1Server(
    { requestTimeoutMs: 10_000, keepAliveTimeoutMs: 10_000, maxHeadBytes: 1024, ...opts },
    echoHandler(),
  );
  if (upgrade !== undefined) s.upgrade = upgrade;
  const { port } = await s.listen(0, "127.0.0.1");
  try {
    await f(port, s);
  } finally {
    await s.close(100);
  }
}

interface Res {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses the answers in `raw` (Content-Length framed; 1xx without body). */
function parseResponses(raw: string): { res: Res[]; rest: string } {
  const res: Res[] = [];
  let s = raw;
  for (;;) {
    const end = s.indexOf("\r\n\r\n");
    if (end < 0) break;
    const lines = s.slice(0, end).split("\r\n");
    const status = Number(lines[0]!.split(" ")[1]);
    const headers: Record<string, string> = {};
    for (const l of lines.slice(1)) {
      const c = l.indexOf(":");
      headers[l.slice(0, c).toLowerCase()] = l.slice(c + 1).trim();
    }
    const len = status < 200 ? 0 : Number(headers["content-length"] ?? 0);
    if (s.length < end + 4 + len) break;
    res.push({ status, headers, body: s.slice(end + 4, end + 4 + len) });
    s = s.slice(end + 4 + len);
  }
  return { res, rest: s };
}

interface Exchange {
  res: Res[];
  /** The server closed the connection. */
  closed: boolean;
  raw: string;
}

/**
 * Writes `parts` one by one (a macrotask apart), then waits until `want` final answers came (or
 * `want` says the bytes so far suffice) or the server closed; `end` half-closes after the last part.
 */
function exchange(
  port: number,
  parts: (string | Buffer)[],
  want: number | ((raw: string) => boolean),
  end = false,
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, "127.0.0.1");
    let raw = "";
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      sock.destroy();
      resolve({ res: parseResponses(raw).res, closed, raw });
    };
    sock.on("data", (d: Buffer) => {
      raw += d.toString("latin1");
      const enough =
        typeof want === "function"
          ? want(raw)
          : want > 0 && parseResponses(raw).res.filter((r) => r.status >= 200).length >= want;
      if (enough) {
        // Give a Connection: close a moment to arrive as the close it announces.
        setTimeout(() => finish(sock.readableEnded), 20);
      }
    });
    sock.on("end", () => finish(true));
    sock.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" ? finish(true) : reject(e)));
    sock.on("connect", async () => {
      for (const p of parts) {
        if (sock.destroyed) return;
        sock.write(p);
        await new Promise((r) => setImmediate(r));
      }
      if (end) sock.end();
    });
  });
}

function post(body: string, url = "/", extra = ""): string {
  return `POST ${url} HTTP/1.1\r\nHost: x\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

function splitAt(s: string, cuts: number[]): string[] {
  const out: string[] = [];
  let from = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    if (c > from && c < s.length) {
      out.push(s.slice(from, c));
      from = c;
    }
  }
  out.push(s.slice(from));
  return out;
}

describe("rpc/http1", () => {
  it("answers a request whose bytes come one at a time, and keeps the connection", async () => {
    await withServer({}, async (port) => {
      const req = post('{"a":1}', "/x", "X-Extra:  padded value \r\n");
      const ex = await exchange(port, [...req], 1);
      assert.equal(ex.res.length, 1);
      assert.equal(ex.res[0]!.status, 200);
      assert.equal(ex.res[0]!.body, 'POST /x 7:{"a":1}');
      assert.equal(ex.res[0]!.headers.connection, "keep-alive");
      assert.equal(ex.res[0]!.headers["keep-alive"], "timeout=10");
      assert.ok(ex.res[0]!.headers.date !== undefined);
      assert.equal(ex.closed, false);
    });
  });

  it("answers pipelined requests in order, also when an answer is late", async () => {
    await withServer({}, async (port) => {
      const stream = post("one") + post("two", "/later") + post("three") + post("", "/now");
      const ex = await exchange(port, [stream], 4);
      assert.deepEqual(
        ex.res.map((r) => [r.status, r.body]),
        [
          [200, "POST / 3:one"],
          [200, "POST /later 3:two"],
          [200, "POST / 5:three"],
          [202, "now"],
        ],
      );
      assert.equal(ex.res[1]!.headers["x-later"], "1");
    });
  });

  it("reads chunked bodies: extensions, trailers, reads split anywhere", async () => {
    await withServer({}, async (port) => {
      const req =
        "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" +
        "3;name=value\r\nabc\r\n" +
        "A\r\n0123456789\r\n" +
        "0\r\nX-Trailer: t\r\n\r\n";
      const whole = await exchange(port, [req + post("next")], 2);
      assert.deepEqual(
        whole.res.map((r) => r.body),
        ["POST /c 13:abc0123456789", "POST / 4:next"],
      );
      const bytes = await exchange(port, [...req], 1);
      assert.equal(bytes.res[0]!.body, "POST /c 13:abc0123456789");
    });
  });

  it("a chunked body past the limit is cut there and the connection closed after the answer", async () => {
    await withServer({}, async (port) => {
      const big = "x".repeat(100);
      const req = `POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${(100).toString(16)}\r\n${big}\r\n0\r\n\r\n`;
      const ex = await exchange(port, [req], 1);
      assert.equal(ex.res[0]!.body, `POST / 64:${"x".repeat(64)} truncated`);
      assert.equal(ex.res[0]!.headers.connection, "close");
      assert.equal(ex.closed, true);
    });
  });

  it("an answer before the body: kept when the body is already here, else the connection closes", async () => {
    await withServer({}, async (port) => {
      const here = await exchange(port, [post("ignored", "/now") + post("after")], 2);
      assert.deepEqual(
        here.res.map((r) => r.body),
        ["now", "POST / 5:after"],
      );
      const head = "POST /now HTTP/1.1\r\nContent-Length: 10\r\n\r\n";
      const coming = await exchange(port, [head], 1);
      assert.equal(coming.res[0]!.status, 202);
      assert.equal(coming.res[0]!.headers.connection, "close");
      assert.equal(coming.closed, true);
    });
  });

  it("Expect: 100-continue gets the interim answer before the body; another expectation is 417", async () => {
    await withServer({}, async (port) => {
      const head = "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
      const sock = connect(port, "127.0.0.1");
      let raw = "";
      sock.on("data", (d: Buffer) => {
        raw += d.toString("latin1");
      });
      await new Promise<void>((r) => sock.on("connect", () => r()));
      sock.write(head);
      while (!raw.includes("\r\n\r\n")) await new Promise((r) => setTimeout(r, 5));
      assert.equal(raw, "HTTP/1.1 100 Continue\r\n\r\n");
      sock.write("ok");
      while (parseResponses(raw).res.length < 2) await new Promise((r) => setTimeout(r, 5));
      assert.equal(parseResponses(raw).res[1]!.body, "POST / 2:ok");
      sock.destroy();

      const ex = await exchange(port, ["POST / HTTP/1.1\r\nExpect: something\r\nContent-Length: 0\r\n\r\n"], 1);
      assert.equal(ex.res[0]!.status, 417);
      assert.equal(ex.closed, true);
    });
  });

  it("keep-alive: HTTP/1.1 unless Connection: close; HTTP/1.0 only with keep-alive", async () => {
    await withServer({}, async (port) => {
      const close = await exchange(port, [post("a", "/", "Connection: close\r\n") + post("b")], 1);
      assert.equal(close.res.length, 1);
      assert.equal(close.res[0]!.headers.connection, "close");
      assert.equal(close.closed, true);
      const old = await exchange(port, ["POST / HTTP/1.0\r\nContent-Length: 1\r\n\r\nz"], 1);
      assert.equal(old.res[0]!.body, "POST / 1:z");
      assert.equal(old.closed, true);
      const oldKept = await exchange(
        port,
        [`POST / HTTP/1.0\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\nz${post("y")}`],
        2,
      );
      assert.equal(oldKept.res.length, 2);
      assert.equal(oldKept.res[0]!.headers.connection, "keep-alive");
    });
  });

  it("HEAD gets the length of the answer but no body", async () => {
    await withServer({}, async (port) => {
      const ex = await exchange(port, [`HEAD /h HTTP/1.1\r\n\r\n${post("after")}`], (raw) =>
        raw.endsWith("POST / 5:after"),
      );
      const [headAnswer, next] = ex.raw.split("\r\n\r\n");
      assert.ok(headAnswer!.includes(`Content-Length: ${"HEAD /h 0:".length}`), headAnswer);
      // The HEAD answer carries no body: the next answer starts right after its headers.
      assert.ok(next!.startsWith("HTTP/1.1 200 OK"), next);
    });
  });

  it("a malformed head is 400 and closes; one past the head limit is 431", async () => {
    const bad = [
      "GARBAGE\r\n\r\n",
      "POST  / HTTP/1.1\r\n\r\n",
      "POST / HTTP/1.1 extra\r\n\r\n",
      "PO(ST / HTTP/1.1\r\n\r\n",
      "POST / HTTX/1.1\r\n\r\n",
      "POST / HTTP/1.1\r\nBad Name: x\r\n\r\n",
      "POST / HTTP/1.1\r\nName : x\r\n\r\n",
      "POST / HTTP/1.1\r\nNo-Colon\r\n\r\n",
      "POST / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
      "POST / HTTP/1.1\r\nA: b\u0001c\r\n\r\n",
      "POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n",
      "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
      "POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\naXX\r\n",
    ];
    await withServer({}, async (port) => {
      for (const b of bad) {
        const ex = await exchange(port, [b + post("never")], 1);
        assert.equal(ex.res.length, 1, JSON.stringify(b));
        assert.equal(ex.res[0]!.status, 400, JSON.stringify(b));
        assert.equal(ex.closed, true, JSON.stringify(b));
      }
      const v2 = await exchange(port, ["POST / HTTP/2.0\r\n\r\n"], 1);
      assert.equal(v2.res[0]!.status, 505);
      const huge = `POST / HTTP/1.1\r\nX-Big: ${"a".repeat(2000)}\r\n\r\n`;
      const big = await exchange(port, [huge], 1);
      assert.equal(big.res[0]!.status, 431);
      assert.equal(big.closed, true);
      const unended = await exchange(port, [`POST / HTTP/1.1\r\nX-Big: ${"a".repeat(2000)}`], 1);
      assert.equal(unended.res[0]!.status, 431);
      // Same values repeated are one Content-Length; empty lines before a request are skipped.
      const same = await exchange(
        port,
        ["\r\n\r\nPOST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab"],
        1,
      );
      assert.equal(same.res[0]!.body, "POST / 2:ab");
      assert.equal(statusText(431), "Request Header Fields Too Large");
    });
  });

  it("headers: lower-case names, repeats joined, single-valued ones keep the first, bare LF lines", async () => {
    let seen: Http1Request | null = null;
    const s = new Http1Server(
      { requestTimeoutMs: 10_000, keepAliveTimeoutMs: 10_000, maxHeadBytes: 1024 },
      {
        request: (req, conn) => {
          seen = req;
          conn.respond(200, "", "");
        },
        body: () => undefined,
      },
    );
    const { port } = await s.listen(0, "127.0.0.1");
    try {
      await exchange(
        port,
        ["GET /p?q=1 HTTP/1.1\nHost: a\nhost: b\nX-A: 1\nx-a: 2\nAuthorization: t1\nAuthorization: t2\n\n"],
        1,
      );
      const r = seen as Http1Request | null;
      assert.ok(r !== null);
      assert.equal(r.method, "GET");
      assert.equal(r.url, "/p?q=1");
      assert.equal(r.minor, 1);
      assert.equal(r.headers.host, "a");
      assert.equal(r.headers["x-a"], "1, 2");
      assert.equal(r.headers.authorization, "t1");
      assert.equal(r.contentLength, -1);
    } finally {
      await s.close(100);
    }
  });

  it("an upgrade goes to the upgrade handler with the bytes after the head; without one it is a request", async () => {
    const got: { url: string | undefined; head: string; all: string }[] = [];
    await withServer(
      {},
      async (port) => {
        const req = "GET /ws HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nEXTRA";
        const ex = await exchange(port, [req, "MORE"], 1);
        assert.equal(ex.res[0]!.body, "upgraded");
        assert.equal(got.length, 1);
        assert.equal(got[0]!.url, "/ws");
        // The bytes after the head come as `head`; the rest (the two writes may arrive as one) as data.
        assert.ok(got[0]!.head.startsWith("EXTRA"), got[0]!.head);
        assert.equal(got[0]!.all, "EXTRAMORE");
      },
      (req, socket, head) => {
        const entry = { url: req.url, head: head.toString(), all: head.toString() };
        got.push(entry);
        const check = (): void => {
          if (entry.all === "EXTRAMORE") socket.end("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nupgraded");
        };
        socket.on("data", (d: Buffer) => {
          entry.all += d.toString();
          check();
        });
        socket.on("end", () => socket.end());
        check();
      },
    );
    await withServer({}, async (port) => {
      const ex = await exchange(port, ["GET /ws HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n"], 1);
      assert.equal(ex.res[0]!.body, "GET /ws 0:");
    });
  });

  it("a request not all here within the request timeout is 408; an idle connection is closed", async () => {
    await withServer({ requestTimeoutMs: 100, keepAliveTimeoutMs: 100 }, async (port) => {
      const late = await exchange(port, ["POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab"], 1);
      assert.equal(late.res[0]!.status, 408);
      assert.equal(late.closed, true);
      const idle = await exchange(port, [post("a")], 0);
      assert.equal(idle.res.length, 1);
      assert.equal(idle.closed, true);
    });
  });

  it("close() ends idle connections, lets an answer under way finish, then refuses", async () => {
    // close() must run while the answer is under way: the handler says when the body has arrived
    // (waiting for the connection count alone raced the request's bytes on a loaded machine).
    const echo = echoHandler();
    let arrived!: () => void;
    const underWay = new Promise<void>((r) => {
      arrived = r;
    });
    const s = new Http1Server(
      { requestTimeoutMs: 10_000, keepAliveTimeoutMs: 10_000, maxHeadBytes: 1024 },
      {
        request: echo.request,
        body(req, conn, body, truncated) {
          echo.body(req, conn, body, truncated);
          arrived();
        },
      },
    );
    const { port } = await s.listen(0, "127.0.0.1");
    const idle = connect(port, "127.0.0.1");
    await new Promise<void>((r) => idle.on("connect", () => r()));
    const idleClosed = new Promise<void>((r) => idle.on("close", () => r()));
    idle.resume();
    const late = exchange(port, [post("slow", "/later")], 1);
    await underWay;
    while (s.connections < 2) await new Promise((r) => setTimeout(r, 1));
    await s.close(2000);
    const ex = await late;
    assert.equal(ex.res[0]!.body, "POST /later 4:slow");
    assert.equal(ex.res[0]!.headers.connection, "close");
    await idleClosed;
    await assert.rejects(
      new Promise((resolve, reject) => {
        const c = connect(port, "127.0.0.1");
        c.on("connect", () => resolve(c.destroy()));
        c.on("error", reject);
      }),
    );
  });

  it("fuzz: random splits of a pipelined stream give the same answers", async () => {
    const rand = mulberry32(25);
    const reqs = [
      post('{"jsonrpc":"2.0"}'),
      "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1;x=y\r\n!\r\n0\r\n\r\n",
      "GET /g HTTP/1.1\r\nHost: h\r\n\r\n",
      post("tail", "/later"),
    ];
    const stream = reqs.join("");
    const want = ['POST / 17:{"jsonrpc":"2.0"}', "POST /c 6:hello!", "GET /g 0:", "POST /later 4:tail"];
    await withServer({}, async (port) => {
      for (let round = 0; round < 25; round++) {
        const cuts = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => Math.floor(rand() * stream.length));
        const ex = await exchange(port, splitAt(stream, cuts), want.length);
        assert.deepEqual(
          ex.res.map((r) => r.body),
          want,
          `cuts ${cuts}`,
        );
      }
    });
  });

  it("fuzz: garbage is answered 400/431/505 or not at all, and the server keeps serving", async () => {
    const rand = mulberry32(7);
    const alphabet = "GETPOST /\r\n:HTTP/1.1 Content-Length Transfer-Encoding chunked 0123456789abc\u0000\u00ff\t";
    await withServer({}, async (port) => {
      for (let round = 0; round < 40; round++) {
        let g = "";
        const n = 1 + Math.floor(rand() * 300);
        for (let i = 0; i < n; i++) g += alphabet[Math.floor(rand() * alphabet.length)];
        const ex = await exchange(port, [Buffer.from(g, "latin1")], 1, true);
        for (const r of ex.res)
          assert.ok([200, 400, 408, 431, 505].includes(r.status), `${r.status} for ${JSON.stringify(g)}`);
        const ok = await exchange(port, [post("alive")], 1);
        assert.equal(ok.res[0]!.body, "POST / 5:alive");
      }
    });
  });
});
