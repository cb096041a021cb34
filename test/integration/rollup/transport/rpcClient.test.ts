/**
 * The rollup node's upstream client and its limits: single calls and batches against a local
 * JSON-RPC server (answers matched by id whatever their order, per-item errors, a refused batch, HTTP
 * and transport failures as typed errors, a fresh JWT on every request), the token bucket's
 * reservation semantics on a fake clock, and the FIFO semaphore.
 */
import { strict as assert } from "node:assert";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyJwt } from "../../../../src/engine/jwt.js";
import { RateLimiter, Semaphore } from "../../../../src/rollup/l1/limits.js";
import { RpcCallError, RpcClient, RpcTransportError } from "../../../../src/rollup/transport/rpcClient.js";

type Handler = (body: unknown, req: IncomingMessage) => { status?: number; body: string };

async function serve(h: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      const r = h(JSON.parse(data), req);
      res.writeHead(r.status ?? 200, { "content-type": "application/json" });
      res.end(r.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("rollup/rpcClient and limits", () => {
  it("calls and batches: results by id, per-item errors, a refused batch, HTTP errors, JWT per request", async () => {
    const secret = new Uint8Array(32).fill(9);
    const auths: string[] = [];
    const { url, server } = await serve((body, req) => {
      auths.push(String(req.headers.authorization));
      if (Array.isArray(body)) {
        if (body.length > 3)
          return { body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}' };
        // Answer in reverse order; the second item fails.
        const out = body.map((c: { id: number; method: string }, i) =>
          i === 1
            ? { jsonrpc: "2.0", id: c.id, error: { code: -32000, message: "no such block" } }
            : { jsonrpc: "2.0", id: c.id, result: `${c.method}#${i}` },
        );
        return { body: JSON.stringify(out.reverse()) };
      }
      const c = body as { id: number; method: string };
      if (c.method === "boom")
        return {
          body: JSON.stringify({ jsonrpc: "2.0", id: c.id, error: { code: 3, message: "reverted", data: "0x01" } }),
        };
      if (c.method === "http") return { status: 503, body: "busy" };
      return { body: JSON.stringify({ jsonrpc: "2.0", id: c.id, result: c.method }) };
    });
    try {
      const client = new RpcClient(url, { jwtSecret: secret, timeoutMs: 2000 });
      assert.equal(await client.call("eth_chainId"), "eth_chainId");
      await assert.rejects(client.call("boom"), (e: unknown) => {
        assert.ok(e instanceof RpcCallError);
        assert.deepEqual([e.code, e.message, e.data], [3, "reverted", "0x01"]);
        return true;
      });
      await assert.rejects(
        client.call("http"),
        (e: unknown) => e instanceof RpcTransportError && /HTTP 503 busy/.test(e.message),
      );
      const out = await client.callBatch([
        { method: "a", params: [] },
        { method: "b", params: [1] },
        { method: "c", params: [] },
      ]);
      assert.equal(out[0], "a#0");
      assert.ok(out[1] instanceof RpcCallError && out[1].message === "no such block");
      assert.equal(out[2], "c#2");
      await assert.rejects(
        client.callBatch(Array.from({ length: 4 }, () => ({ method: "x", params: [] }))),
        (e: unknown) => e instanceof RpcCallError && e.message === "batch too large",
      );
      assert.deepEqual(await client.callBatch([]), []);
      for (const a of auths) assert.deepEqual(verifyJwt(a, secret, Date.now() / 1000), { ok: true });
      const down = new RpcClient("http://127.0.0.1:9", { timeoutMs: 500 });
      await assert.rejects(down.call("x"), RpcTransportError);
    } finally {
      server.close();
    }
  });

  it("keeps one connection for calls in series, and an answer cut off is a transport error", async () => {
    let connections = 0;
    const server = createServer((req, res) => {
      let data = "";
      req.on("data", (c) => (data += c));
      req.on("end", () => {
        const c = JSON.parse(data) as { id: number; method: string };
        if (c.method === "cut") {
          res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
          res.write('{"jsonrpc":"2.0"');
          setTimeout(() => res.socket?.destroy(), 10);
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: c.id, result: c.id }));
      });
    });
    server.on("connection", () => connections++);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    try {
      const client = new RpcClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { timeoutMs: 2000 });
      for (let i = 1; i <= 20; i++) assert.equal(await client.call("n"), i);
      assert.equal(connections, 1);
      await assert.rejects(
        client.call("cut"),
        (e: unknown) => e instanceof RpcTransportError && !/timed out/.test(e.message),
      );
      assert.equal(await client.call("n"), 22, "a call after a cut-off answer works");
    } finally {
      server.close();
    }
  });

  it("rate limiter: burst at once, then rate; a batch of N costs N; rate 0 is off", async () => {
    let now = 0;
    const slept: number[] = [];
    const lim = new RateLimiter(
      10,
      20,
      () => now,
      async (ms) => {
        slept.push(Math.round(ms));
        now += ms;
      },
    );
    await lim.take(20); // the whole burst at once
    assert.deepEqual(slept, []);
    await lim.take(5); // 5 tokens short at 10/s: 500 ms
    assert.deepEqual(slept, [500]);
    now += 1000; // 10 tokens refilled
    await lim.take(10);
    assert.deepEqual(slept, [500]);
    await assert.rejects(lim.take(21), RangeError);
    const off = new RateLimiter(
      0,
      1,
      () => 0,
      async () => assert.fail("no wait when off"),
    );
    for (let i = 0; i < 100; i++) await off.take(1);
  });

  it("semaphore: at most N in flight, served in order", async () => {
    const sem = new Semaphore(2);
    const order: number[] = [];
    let peak = 0;
    const release: (() => void)[] = [];
    const tasks = [0, 1, 2, 3, 4].map((i) =>
      sem.run(async () => {
        peak = Math.max(peak, sem.inFlight);
        order.push(i);
        await new Promise<void>((r) => release.push(r));
      }),
    );
    while (release.length < 2) await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, [0, 1]);
    for (let k = 0; k < 5; k++) {
      while (release.length === 0) await new Promise((r) => setImmediate(r));
      release.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(tasks);
    assert.deepEqual(order, [0, 1, 2, 3, 4]);
    assert.equal(peak, 2);
    assert.equal(sem.inFlight, 0);
  });
});
