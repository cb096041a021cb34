/**
 * Limits of the JSON-RPC transports at their edges (README "Limits"): each limit exactly reached is
 * served, one past it is refused the way geth refuses it — the HTTP body (413), a batch's length
 * (-32600) and its summed reply size (-32003), a method name's length, the per-call write timeout
 * (-32002), a WebSocket message (close 1009), the subscriptions of one WebSocket connection
 * (-32006), and the Engine API's larger body limit behind its JWT.
 */
import { strict as assert } from "node:assert";
import { type IncomingHttpHeaders, request } from "node:http";
import { connect, type Socket } from "node:net";
import { WebSocket } from "ws";
import { AuthRpcServer, ENGINE_BODY_LIMIT } from "../../../../src/engine/authServer.js";
import { signJwt } from "../../../../src/engine/jwt.js";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import { ReplyBacklog } from "../../../../src/rpc/backlog.js";
import { DEFAULT_DISPATCHER_OPTIONS, type RpcConnection } from "../../../../src/rpc/dispatch.js";
import { DEFAULT_HTTP_OPTIONS, RpcHttpServer } from "../../../../src/rpc/httpServer.js";
import { JsonText } from "../../../../src/rpc/methodTable.js";
import { uint64 } from "../../../../src/rpc/params.js";
import { defineMethod, defineSubscription, Registry } from "../../../../src/rpc/registry.js";
import { ConnectionSubscriptions, MAX_SUBSCRIPTIONS_PER_CONNECTION } from "../../../../src/rpc/subscriptions.js";
import { DEFAULT_WS_OPTIONS, RpcWsServer } from "../../../../src/rpc/wsServer.js";
import { configOf, tempDir } from "../../../utils/node.js";

interface Res {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One POST on a fresh connection; `declaredLength` overrides Content-Length (the body is then not sent). */
function post(port: number, body: string | Buffer, headers: Record<string, string> = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    // The server may answer 413 and close before the whole body is written.
    r.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code !== "EPIPE" && e.code !== "ECONNRESET") reject(e);
    });
    r.end(body);
  });
}

/** POSTs `head` followed by spaces up to `size` bytes, written 1 MiB at a time (no whole-body buffer). */
function postPadded(port: number, head: string, size: number, headers: Record<string, string> = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/",
        headers: { "content-type": "application/json", "content-length": size, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    r.on("error", reject);
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    r.write(head);
    let left = size - Buffer.byteLength(head);
    const pump = (): void => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!r.write(chunk.subarray(0, n))) {
          r.once("drain", pump);
          return;
        }
      }
      r.end();
    };
    pump();
  });
}

/** A call of `eth_blockNumber` padded with spaces to exactly `size` bytes. */
function paddedCall(size: number, id = 1): Buffer {
  const call = `{"jsonrpc":"2.0","id":${id},"method":"eth_blockNumber"}`;
  const b = Buffer.alloc(size, 0x20);
  b.write(call, 0);
  return b;
}

const CALL_ID = (id: number) => ({ jsonrpc: "2.0", id, method: "eth_blockNumber" });

function registry(): Registry {
  return new Registry([
    defineMethod({ name: "eth_blockNumber", params: [], handler: () => "0x10" }),
    defineMethod({
      name: "eth_wait",
      params: [],
      handler: () => new Promise((r) => setTimeout(() => r("done"), 150)),
    }),
    defineMethod({
      name: "eth_text",
      params: [],
      // A reply whose length the test controls through the id's width.
      handler: () => "x".repeat(1000),
    }),
    defineMethod({ name: "engine_exchangeCapabilities", params: [], handler: () => [] }),
    defineSubscription({ namespace: "eth", name: "newHeads", params: [], handler: () => undefined }),
  ]);
}

async function withHttp(
  opts: Partial<ConstructorParameters<typeof RpcHttpServer>[0]>,
  f: (port: number) => Promise<void>,
): Promise<void> {
  const s = new RpcHttpServer({ addr: "127.0.0.1", port: 0, vhosts: ["*"], ...opts }, { registry: registry() });
  const { port } = await s.listen();
  try {
    await f(port);
  } finally {
    await s.close(100);
  }
}

interface WsClient {
  ws: WebSocket;
  call(msg: unknown): Promise<any>;
  closed: Promise<number>;
}

async function wsConnect(port: number, headers: Record<string, string> = {}): Promise<WsClient> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}`, { maxPayload: 64 * 1024 * 1024, headers });
  const waiters: ((v: unknown) => void)[] = [];
  ws.on("message", (d: Buffer) => waiters.shift()?.(JSON.parse(d.toString())));
  const closed = new Promise<number>((r) => ws.on("close", (code: number) => r(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return {
    ws,
    closed,
    call: (msg) =>
      new Promise((resolve) => {
        waiters.push(resolve);
        ws.send(typeof msg === "string" || Buffer.isBuffer(msg) ? msg : JSON.stringify(msg));
      }),
  };
}

describe("limits: JSON-RPC transports", function () {
  this.timeout(30_000);

  describe("HTTP request body (geth defaultBodyLimit, 5 MiB)", () => {
    const LIMIT = DEFAULT_HTTP_OPTIONS.bodyLimit;

    it("is 5 MiB by default", () => assert.equal(LIMIT, 5 * 1024 * 1024));

    it("a body of exactly 5 MiB is served; one byte more is 413 with geth's text", async () => {
      await withHttp({}, async (port) => {
        const at = await post(port, paddedCall(LIMIT));
        assert.equal(at.status, 200);
        assert.deepEqual(JSON.parse(at.body), { jsonrpc: "2.0", id: 1, result: "0x10" });
        const over = await post(port, paddedCall(LIMIT + 1));
        assert.equal(over.status, 413);
        assert.equal(over.body, `content length too large (${LIMIT + 1}>${LIMIT})\n`);
        // The server keeps serving.
        assert.equal((await post(port, paddedCall(100))).status, 200);
      });
    });
  });

  describe("--rpc.http-body-limit (geth's option, MiB) on a running opal-exec", () => {
    it("is 5 by default; set to 1, a 1 MiB body is served and one byte more is 413", async () => {
      const dir = tempDir("bodylimit");
      try {
        const cfg = configOf([
          "--dev",
          "--datadir",
          dir.path,
          "--http",
          "--rpc.http-body-limit",
          "1",
          "--workers.evmcall",
          "0",
        ]);
        assert.equal(configOf(["--dev"])["rpc.http-body-limit"], 5);
        const node = await ExecNode.start(cfg, { print: () => undefined });
        try {
          const port = node.endpoints.http!.port;
          // Every reply of the public server is held to --rpc.batch-response-max-size (issue 26).
          assert.equal(node.httpServer!.dispatcher.opts.replyMaxSize, 25_000_000);
          const MiB = 1024 * 1024;
          const at = await post(port, paddedCall(MiB));
          assert.deepEqual(JSON.parse(at.body), { jsonrpc: "2.0", id: 1, result: "0x0" });
          const over = await post(port, paddedCall(MiB + 1));
          assert.equal(over.status, 413);
          assert.equal(over.body, `content length too large (${MiB + 1}>${MiB})\n`);
        } finally {
          await node.stop();
        }
      } finally {
        dir.remove();
      }
    });
  });

  describe("JSON-RPC batch length (--rpc.batch-request-limit, 1000)", () => {
    it("1000 calls are all answered; 1001 get one 'batch too large' error with the first id", async () => {
      assert.equal(DEFAULT_DISPATCHER_OPTIONS.batchItemLimit, 1000);
      await withHttp({}, async (port) => {
        const at = JSON.parse(
          (await post(port, JSON.stringify(Array.from({ length: 1000 }, (_, i) => CALL_ID(i + 1))))).body,
        );
        assert.equal(at.length, 1000);
        assert.ok(at.every((r: any, i: number) => r.id === i + 1 && r.result === "0x10"));
        const over = JSON.parse(
          (await post(port, JSON.stringify(Array.from({ length: 1001 }, (_, i) => CALL_ID(i + 7))))).body,
        );
        assert.deepEqual(over, [{ jsonrpc: "2.0", id: 7, error: { code: -32600, message: "batch too large" } }]);
      });
    });

    it("a configured limit moves the edge (here 3)", async () => {
      await withHttp({ batchItemLimit: 3 }, async (port) => {
        const at = JSON.parse((await post(port, JSON.stringify([CALL_ID(1), CALL_ID(2), CALL_ID(3)]))).body);
        assert.equal(at.length, 3);
        const over = JSON.parse((await post(port, JSON.stringify([1, 2, 3, 4].map(CALL_ID)))).body);
        assert.deepEqual(over[0].error, { code: -32600, message: "batch too large" });
      });
    });
  });

  describe("JSON-RPC batch reply size (--rpc.batch-response-max-size, 25,000,000)", () => {
    // Each eth_text reply is `{"jsonrpc":"2.0","id":N,"result":"x…x"}`: 1036 characters for a one-digit id.
    const REPLY = JSON.stringify({ jsonrpc: "2.0", id: 1, result: "x".repeat(1000) }).length;
    const batch = (n: number) =>
      JSON.stringify(Array.from({ length: n }, (_, i) => ({ ...CALL_ID(i + 1), method: "eth_text" })));

    it("is 25,000,000 by default", () => assert.equal(DEFAULT_DISPATCHER_OPTIONS.batchResponseMaxSize, 25_000_000));

    it("replies summing to exactly the limit leave the next one written; one byte less and the rest get -32003", async () => {
      // Four replies fill the limit exactly, so the fifth is still written (it is the one that crosses).
      await withHttp({ batchResponseMaxSize: 4 * REPLY }, async (port) => {
        const r = JSON.parse((await post(port, batch(6))).body);
        assert.ok(r.slice(0, 5).every((x: any) => typeof x.result === "string"));
        assert.deepEqual(r[5], { jsonrpc: "2.0", id: 6, error: { code: -32003, message: "response too large" } });
      });
      await withHttp({ batchResponseMaxSize: 4 * REPLY - 1 }, async (port) => {
        const r = JSON.parse((await post(port, batch(6))).body);
        assert.ok(r.slice(0, 4).every((x: any) => typeof x.result === "string"));
        assert.deepEqual(
          r.slice(4).map((x: any) => x.error),
          [
            { code: -32003, message: "response too large" },
            { code: -32003, message: "response too large" },
          ],
        );
      });
    });
  });

  describe("method name length (geth maxMethodNameLength, 2048)", () => {
    it("2048 characters is looked up (-32601); 2049 is an invalid request (-32600)", async () => {
      await withHttp({}, async (port) => {
        const at = JSON.parse(
          (await post(port, JSON.stringify({ ...CALL_ID(1), method: `eth_${"a".repeat(2044)}` }))).body,
        );
        assert.equal(at.error.code, -32601);
        const over = JSON.parse(
          (await post(port, JSON.stringify({ ...CALL_ID(1), method: `eth_${"a".repeat(2045)}` }))).body,
        );
        assert.deepEqual(over.error, { code: -32600, message: "method name too long: 2049 > 2048" });
      });
    });
  });

  describe("time to send an HTTP request (geth ReadTimeout 30 s)", () => {
    /** Sends the headers and `first` of a `total`-byte body, then the rest after `pauseMs` (or never). */
    function slowPost(port: number, first: string, rest: string, pauseMs: number | null): Promise<Res | "closed"> {
      return new Promise((resolve) => {
        const r = request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: "/",
            headers: { "content-type": "application/json", "content-length": first.length + rest.length },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
            );
          },
        );
        r.on("error", () => resolve("closed"));
        r.write(first);
        if (pauseMs !== null) setTimeout(() => r.end(rest), pauseMs);
      });
    }

    it("is 30 s by default; a body finished inside it is served, one that stalls past it is cut (408)", async () => {
      assert.equal(DEFAULT_HTTP_OPTIONS.requestTimeoutMs, 30_000);
      const call = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}';
      await withHttp({ requestTimeoutMs: 600 }, async (port) => {
        const inTime = await slowPost(port, call.slice(0, 10), call.slice(10), 100);
        assert.ok(inTime !== "closed" && inTime.status === 200, JSON.stringify(inTime));
        const started = Date.now();
        const late = await slowPost(port, call.slice(0, 10), call.slice(10), null);
        const took = Date.now() - started;
        assert.ok(late !== "closed" && late.status === 408, JSON.stringify(late));
        assert.ok(took >= 550 && took < 3000, `cut after ${took} ms`);
      });
    });
  });

  describe("HTTP call timeout (geth WriteTimeout 30 s − 100 ms)", () => {
    it("is 29.9 s by default; a reply inside the timeout is served, a later one is -32002", async () => {
      assert.equal(DEFAULT_HTTP_OPTIONS.callTimeoutMs, 29_900);
      await withHttp({ callTimeoutMs: 1000 }, async (port) => {
        assert.equal(
          JSON.parse((await post(port, JSON.stringify({ ...CALL_ID(1), method: "eth_wait" }))).body).result,
          "done",
        );
      });
      await withHttp({ callTimeoutMs: 50 }, async (port) => {
        const r = JSON.parse((await post(port, JSON.stringify({ ...CALL_ID(1), method: "eth_wait" }))).body);
        assert.deepEqual(r.error, { code: -32002, message: "request timed out" });
      });
    });
  });

  describe("deep nesting and handler crashes (issue 26)", () => {
    const DEPTH = 100_000;
    const deep = "[".repeat(DEPTH) + "]".repeat(DEPTH);
    /** Nesting in each place a message can hold it, with the answer geth's rules give. */
    const cases: [string, string, unknown][] = [
      [
        "a bare nested array (a batch of one invalid item)",
        deep,
        [{ jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } }],
      ],
      [
        "a nested id",
        `{"jsonrpc":"2.0","id":${deep},"method":"eth_blockNumber"}`,
        { jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } },
      ],
      [
        "nested params",
        `{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":${deep}}`,
        { jsonrpc: "2.0", id: 7, error: { code: -32602, message: "too many arguments, want at most 0" } },
      ],
      [
        "a nested id in a batch",
        `[{"jsonrpc":"2.0","id":${deep},"method":"eth_blockNumber"},${JSON.stringify(CALL_ID(2))}]`,
        [
          { jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } },
          { jsonrpc: "2.0", id: 2, result: "0x10" },
        ],
      ],
    ];
    /** registry() plus a method whose handler crashes (a TypeError naming internals). */
    const crashing = () =>
      new Registry([
        ...registry().table(["eth", "engine"]).methods.values(),
        defineMethod({
          name: "eth_crash",
          params: [],
          handler: () => {
            throw new TypeError("secret internal detail /home/opal/src/x.ts");
          },
        }),
      ]);
    const CRASH = { jsonrpc: "2.0", id: 3, error: { code: -32603, message: "method handler crashed" } };

    it(`${DEPTH}-deep JSON over HTTP: answered -32600/-32602 with the right id, never an empty 200`, async () => {
      await withHttp({}, async (port) => {
        for (const [what, body, want] of cases) {
          const r = await post(port, body);
          assert.equal(r.status, 200, what);
          assert.deepEqual(JSON.parse(r.body), want, what);
        }
      });
    });

    it(`${DEPTH}-deep JSON over WebSocket: answered the same, the connection kept`, async () => {
      const s = new RpcWsServer({ addr: "127.0.0.1", port: 0, origins: ["*"] }, { registry: registry() });
      const { port } = await s.listen();
      try {
        const c = await wsConnect(port);
        for (const [what, body, want] of cases) assert.deepEqual(await c.call(body), want, what);
        assert.deepEqual(await c.call(CALL_ID(9)), { jsonrpc: "2.0", id: 9, result: "0x10" });
        c.ws.close();
      } finally {
        await s.close();
      }
    });

    it("a handler crash is answered -32603 'method handler crashed' without its text, and reported with its stack", async () => {
      const crashes: [string, unknown][] = [];
      const onCrash = (method: string, e: unknown) => crashes.push([method, e]);
      const http = new RpcHttpServer({ addr: "127.0.0.1", port: 0, vhosts: ["*"] }, { registry: crashing(), onCrash });
      const ws = new RpcWsServer({ addr: "127.0.0.1", port: 0, origins: ["*"] }, { registry: crashing(), onCrash });
      const hp = (await http.listen()).port;
      const wp = (await ws.listen()).port;
      try {
        const call = { jsonrpc: "2.0", id: 3, method: "eth_crash" };
        const r = await post(hp, JSON.stringify(call));
        assert.deepEqual(JSON.parse(r.body), CRASH);
        assert.ok(!r.body.includes("secret"));
        const c = await wsConnect(wp);
        assert.deepEqual(await c.call(call), CRASH);
        c.ws.close();
        assert.equal(crashes.length, 2);
        for (const [method, e] of crashes) {
          assert.equal(method, "eth_crash");
          assert.ok(e instanceof TypeError && (e.stack ?? "").includes("transport.test.ts"));
        }
      } finally {
        await http.close(100);
        await ws.close();
      }
    });
  });

  describe("WebSocket message size (geth wsDefaultReadLimit, 32 MiB)", () => {
    it("a message of exactly 32 MiB is served; one byte more closes the connection with 1009", async () => {
      const LIMIT = DEFAULT_WS_OPTIONS.messageSizeLimit;
      assert.equal(LIMIT, 32 * 1024 * 1024);
      const s = new RpcWsServer({ addr: "127.0.0.1", port: 0, origins: ["*"] }, { registry: registry() });
      const { port } = await s.listen();
      try {
        const c = await wsConnect(port);
        assert.deepEqual(await c.call(paddedCall(LIMIT)), { jsonrpc: "2.0", id: 1, result: "0x10" });
        c.ws.send(paddedCall(LIMIT + 1));
        assert.equal(await c.closed, 1009);
        const d = await wsConnect(port);
        assert.deepEqual(await d.call(CALL_ID(2)), { jsonrpc: "2.0", id: 2, result: "0x10" });
        d.ws.close();
      } finally {
        await s.close();
      }
    });
  });

  describe("WebSocket write timeout (geth defaultWriteTimeout, 10 s)", () => {
    /** A registry whose `flood` subscription pushes `n` notifications of `size` characters at once. */
    const flood = (n: number, size: number) =>
      new Registry([
        defineSubscription({
          namespace: "eth",
          name: "flood",
          params: [],
          handler: (_p, sub) => {
            for (let i = 0; i < n; i++) sub.notify("x".repeat(size));
          },
        }),
      ]);
    const subscribe = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["flood"] });

    it("is 10 s by default; a reader that keeps taking data stays, one that takes nothing for longer is dropped", async () => {
      assert.equal(DEFAULT_WS_OPTIONS.writeTimeoutMs, 10_000);
      const reading = new RpcWsServer(
        { addr: "127.0.0.1", port: 0, writeTimeoutMs: 300 },
        { registry: flood(8, 256 * 1024) },
      );
      const a = await reading.listen();
      try {
        const ws = new WebSocket(`ws://127.0.0.1:${a.port}`);
        let got = 0;
        const all = new Promise<void>((resolve) =>
          ws.on("message", () => {
            if (++got === 9) resolve();
          }),
        );
        await new Promise((r) => ws.once("open", r));
        ws.send(subscribe);
        await all; // the reply and 8 notifications
        await new Promise((r) => setTimeout(r, 400));
        assert.equal(reading.connections, 1);
        ws.close();
      } finally {
        await reading.close();
      }
      const stalled = new RpcWsServer(
        { addr: "127.0.0.1", port: 0, writeTimeoutMs: 300 },
        { registry: flood(16, 1024 * 1024) },
      );
      const b = await stalled.listen();
      try {
        const ws = new WebSocket(`ws://127.0.0.1:${b.port}`);
        await new Promise((r) => ws.once("open", r));
        // Stop reading: 16 MiB of notifications fill the socket buffers and then wait in the server.
        (ws as unknown as { _socket: { pause(): void } })._socket.pause();
        ws.send(subscribe);
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(stalled.connections, 1);
        const deadline = Date.now() + 5000;
        while (stalled.connections > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        assert.equal(stalled.connections, 0, "the stalled reader was dropped");
        ws.terminate();
      } finally {
        await stalled.close();
      }
    });
  });

  describe("reply backlog: unflushed replies held for clients that do not read (backlog.ts)", () => {
    const MiB = 1024 * 1024;
    /** eth_big(n): a JSON string of n characters; eth_flood: 16 notifications of 1 MiB. */
    const registry = () =>
      new Registry([
        defineMethod({ name: "eth_big", params: [uint64], handler: ([n]) => "x".repeat(Number(n) - 2) }),
        // n parts of 100,000 characters each (a string and its commas), as a log query's JsonText.
        defineMethod({
          name: "eth_chunks",
          params: [uint64],
          handler: ([n]) =>
            JsonText.array(Array.from({ length: Number(n) }, (_, i) => `"${String(i % 10).repeat(99_998)}"`)),
        }),
        defineSubscription({
          namespace: "eth",
          name: "flood",
          params: [],
          handler: (_p, sub) => {
            for (let i = 0; i < 16; i++) sub.notify("y".repeat(MiB));
          },
        }),
      ]);
    /** The reply to `bigCall(n)` with a one-digit id: `{"jsonrpc":"2.0","id":1,"result":` + n + `}`. */
    const R = (n: number) => n + 34;
    const bigCall = (n: number, id = 1) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "eth_big", params: [`0x${n.toString(16)}`] });
    /** A raw connection that sends `body` as a POST (or several, pipelined) and reads nothing. */
    const stalled = async (port: number, bodies: string[]): Promise<Socket> => {
      const sock = connect(port, "127.0.0.1");
      await new Promise((r) => sock.once("connect", r));
      sock.pause();
      for (const b of bodies) {
        sock.write(
          `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`,
        );
      }
      return sock;
    };
    const until = async (cond: () => boolean, what: string) => {
      const deadline = Date.now() + 10_000;
      while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok(cond(), what);
    };

    it("HTTP: past the total the next large reply drops its connection; what was held is given back on close", async () => {
      const backlog = new ReplyBacklog({ perConnection: 32 * MiB, total: 24 * MiB });
      const s = new RpcHttpServer({ addr: "127.0.0.1", port: 0, writeTimeoutMs: 0, backlog }, { registry: registry() });
      const { port } = await s.listen();
      try {
        const a = await stalled(port, [bigCall(10 * MiB)]);
        await until(() => backlog.held === R(10 * MiB), "the first reply is held");
        const b = await stalled(port, [bigCall(10 * MiB)]);
        await until(() => backlog.held === 2 * R(10 * MiB), "the second reply is held");
        const c = await stalled(port, [bigCall(10 * MiB)]);
        const cClosed = new Promise((r) => c.once("close", r));
        c.resume(); // reading now shows it got nothing but the close
        let got = 0;
        c.on("data", (d: Buffer) => {
          got += d.length;
        });
        await cClosed;
        assert.equal(got, 0, "the third connection was dropped without a reply");
        assert.equal(backlog.dropped, 1);
        assert.equal(backlog.held, 2 * R(10 * MiB));
        a.destroy();
        b.destroy();
        await until(() => backlog.held === 0, "closing the stalled connections gives their bytes back");
        // A reader gets a large reply whole, and a pipelined call after it in order.
        const r = await stalled(port, [bigCall(3 * MiB + 5, 7), bigCall(10, 8)]);
        const chunks: Buffer[] = [];
        r.on("data", (d: Buffer) => chunks.push(d));
        r.resume();
        const want = `{"jsonrpc":"2.0","id":8,"result":"${"x".repeat(8)}"}`;
        await until(() => Buffer.concat(chunks).toString("latin1").endsWith(want), "both replies arrive");
        const text = Buffer.concat(chunks).toString("latin1");
        assert.ok(text.includes(`{"jsonrpc":"2.0","id":7,"result":"${"x".repeat(3 * MiB + 3)}"}HTTP/1.1 200 OK`));
        r.destroy();
        await until(() => backlog.held === 0, "nothing is held once read");
      } finally {
        await s.close(100);
      }
    });

    it("a reply in chunks (JsonText) arrives whole over HTTP, gzipped HTTP and WebSocket (one message)", async () => {
      const want = Array.from({ length: 30 }, (_, i) => String(i % 10).repeat(99_998));
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chunks", params: ["0x1e"] });
      const s = new RpcHttpServer({ addr: "127.0.0.1", port: 0 }, { registry: registry() });
      const { port } = await s.listen();
      const w = new RpcWsServer({ addr: "127.0.0.1", port: 0 }, { registry: registry() });
      const wp = (await w.listen()).port;
      try {
        const plain = await post(port, body);
        assert.equal(plain.headers["content-encoding"], undefined);
        assert.equal(Number(plain.headers["content-length"]), plain.body.length);
        assert.deepEqual(JSON.parse(plain.body).result, want);
        const gz = await fetch(`http://127.0.0.1:${port}/`, {
          method: "POST",
          headers: { "content-type": "application/json", "accept-encoding": "gzip" },
          body,
        });
        assert.equal(gz.headers.get("content-encoding"), "gzip");
        assert.deepEqual(((await gz.json()) as { result: string[] }).result, want);
        const ws = new WebSocket(`ws://127.0.0.1:${wp}`);
        await new Promise((r) => ws.once("open", r));
        const msg = new Promise<string>((r) => ws.once("message", (d) => r(String(d))));
        ws.send(body);
        assert.deepEqual(JSON.parse(await msg).result, want);
        ws.close();
      } finally {
        await s.close(100);
        await w.close(100);
      }
    });

    it("HTTP: a client that takes none of a large reply for the write timeout is dropped", async () => {
      assert.equal(DEFAULT_HTTP_OPTIONS.writeTimeoutMs, 10_000);
      const backlog = new ReplyBacklog();
      const s = new RpcHttpServer(
        { addr: "127.0.0.1", port: 0, writeTimeoutMs: 300, backlog },
        { registry: registry() },
      );
      const { port } = await s.listen();
      try {
        const a = await stalled(port, [bigCall(16 * MiB)]);
        await until(() => backlog.held === R(16 * MiB), "the reply is held");
        await until(() => backlog.held === 0, "dropped, its bytes given back");
        assert.equal(backlog.dropped, 0);
        a.destroy();
      } finally {
        await s.close(100);
      }
    });

    it("WebSocket: notifications past the connection's bound drop it", async () => {
      const backlog = new ReplyBacklog({ perConnection: 8 * MiB, total: 128 * MiB });
      const s = new RpcWsServer(
        { addr: "127.0.0.1", port: 0, writeTimeoutMs: 60_000, backlog },
        { registry: registry() },
      );
      const { port } = await s.listen();
      try {
        const ws = new WebSocket(`ws://127.0.0.1:${port}`);
        await new Promise((r) => ws.once("open", r));
        (ws as unknown as { _socket: { pause(): void } })._socket.pause();
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["flood"] }));
        await until(() => s.connections === 0, "the connection was dropped");
        assert.ok(backlog.dropped >= 1);
        assert.equal(backlog.held, 0);
        ws.terminate();
      } finally {
        await s.close(100);
      }
    });
  });

  describe("subscriptions per WebSocket connection (1024)", () => {
    const sub = (id: number) => ({ jsonrpc: "2.0", id, method: "eth_subscribe", params: ["newHeads"] });

    it("the 1024th subscription is taken, the 1025th refused with -32006; an unsubscribe makes room", async () => {
      assert.equal(MAX_SUBSCRIPTIONS_PER_CONNECTION, 1024);
      const s = new RpcWsServer({ addr: "127.0.0.1", port: 0, origins: ["*"] }, { registry: registry() });
      const { port } = await s.listen();
      try {
        const c = await wsConnect(port);
        // Two batches of 512: the batch limit is 1000.
        const first = await c.call(Array.from({ length: 512 }, (_, i) => sub(i + 1)));
        const second = await c.call(Array.from({ length: 512 }, (_, i) => sub(i + 513)));
        const ids = [...first, ...second].map((r: any) => r.result);
        assert.equal(ids.length, 1024);
        assert.ok(ids.every((id: unknown) => typeof id === "string"));
        const over = await c.call(sub(2000));
        assert.deepEqual(over.error, {
          code: -32006,
          message: "Too many subscriptions on the connection",
          data: "Exceeded max limit of 1024",
        });
        assert.equal(
          (await c.call({ jsonrpc: "2.0", id: 3000, method: "eth_unsubscribe", params: [ids[0]] })).result,
          true,
        );
        assert.equal(typeof (await c.call(sub(3001))).result, "string");
        // Another connection has its own count.
        const d = await wsConnect(port);
        assert.equal(typeof (await d.call(sub(1))).result, "string");
        c.ws.close();
        d.ws.close();
      } finally {
        await s.close();
      }
    });

    it("HTTP has no subscriptions at all (geth: notifications not supported)", async () => {
      const conn: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };
      const r = await registry()
        .forApis(["eth"])
        .handleText(JSON.stringify(sub(1)), conn);
      assert.deepEqual(JSON.parse(r as string).error, { code: -32601, message: "notifications not supported" });
    });

    it("a connection built with another limit keeps it (here 2)", async () => {
      const subs = new ConnectionSubscriptions(() => undefined, 2);
      const conn: RpcConnection = { ctx: { transport: "ws", remoteAddr: "t" }, subs };
      const d = registry().forApis(["eth"]);
      const reply = async (id: number) => JSON.parse((await d.handleText(JSON.stringify(sub(id)), conn)) as string);
      assert.equal(typeof (await reply(1)).result, "string");
      assert.equal(typeof (await reply(2)).result, "string");
      assert.equal((await reply(3)).error.data, "Exceeded max limit of 2");
    });
  });

  describe("Engine API body (geth engineAPIBodyLimit, 128 MiB)", () => {
    it("a body of exactly 128 MiB passes the JWT and is served; one byte more is 413", async () => {
      assert.equal(ENGINE_BODY_LIMIT, 128 * 1024 * 1024);
      const secret = new Uint8Array(32).fill(7);
      const now = 1_700_000_000;
      const s = new AuthRpcServer(
        { addr: "127.0.0.1", port: 0, vhosts: ["*"], secret, clock: () => now },
        { registry: registry() },
      );
      const { port } = await s.listen();
      try {
        const auth = { authorization: `Bearer ${signJwt(secret, now)}` };
        const call = '{"jsonrpc":"2.0","id":1,"method":"engine_exchangeCapabilities"}';
        const at = await postPadded(port, call, ENGINE_BODY_LIMIT, auth);
        assert.equal(at.status, 200);
        assert.deepEqual(JSON.parse(at.body), { jsonrpc: "2.0", id: 1, result: [] });
        // The size check needs no body: geth answers from Content-Length.
        const over = await post(port, "", { ...auth, "content-length": String(ENGINE_BODY_LIMIT + 1) });
        assert.equal(over.status, 413);
        assert.equal(over.body, `content length too large (${ENGINE_BODY_LIMIT + 1}>${ENGINE_BODY_LIMIT})\n`);
      } finally {
        await s.close(100);
      }
    });

    it("a WebSocket message on the Engine API port is limited as geth's, to 32 MiB (not 128)", async () => {
      const secret = new Uint8Array(32).fill(7);
      const now = 1_700_000_000;
      const s = new AuthRpcServer(
        { addr: "127.0.0.1", port: 0, vhosts: ["*"], secret, clock: () => now },
        { registry: registry() },
      );
      const { port } = await s.listen();
      try {
        const headers = { authorization: `Bearer ${signJwt(secret, now)}` };
        const c = await wsConnect(port, headers);
        const call = '{"jsonrpc":"2.0","id":1,"method":"engine_exchangeCapabilities"}';
        const at = Buffer.alloc(DEFAULT_WS_OPTIONS.messageSizeLimit, 0x20);
        at.write(call, 0);
        assert.deepEqual(await c.call(at), { jsonrpc: "2.0", id: 1, result: [] });
        // One byte more, as a second fragment of the same message.
        c.ws.send(at, { fin: false });
        c.ws.send(Buffer.from(" "), { fin: true });
        assert.equal(await c.closed, 1009);
      } finally {
        await s.close(100);
      }
    });
  });
});
