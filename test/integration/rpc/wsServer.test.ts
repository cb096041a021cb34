/**
 * WebSocket transport: round trips, subscriptions (ids, notification shape, queued-until-answered,
 * unsubscribe and cleanup on close), origin checks, frame size limit, parse errors, keepalive.
 */
import { strict as assert } from "node:assert";
import { request } from "node:http";
import { WebSocket } from "ws";
import { bool, optional } from "../../../src/rpc/params.js";
import { defineMethod, defineSubscription, Registry } from "../../../src/rpc/registry.js";
import { newSubscriptionId, type Subscription } from "../../../src/rpc/subscriptions.js";
import { RpcWsServer, WsOrigins, type WsServerOptions } from "../../../src/rpc/wsServer.js";

/** A fake head feed: subscriptions register here; `emit` pushes to all of them. */
class FakeFeed {
  readonly subs = new Set<Subscription>();
  cancelled = 0;
  emit(v: unknown): void {
    for (const s of this.subs) s.notify(v);
  }
}

function registry(feed: FakeFeed): Registry {
  return new Registry([
    defineMethod({ name: "eth_blockNumber", params: [], handler: () => "0x10" }),
    defineMethod({ name: "eth_slow", params: [], handler: () => new Promise((r) => setTimeout(() => r("slow"), 30)) }),
    defineMethod({
      name: "eth_push",
      params: [],
      handler: (_p, ctx) => {
        const [first] = feed.subs;
        return ctx.notify !== undefined && first !== undefined ? ctx.notify(first.id, "pushed") : false;
      },
    }),
    defineSubscription({
      namespace: "eth",
      name: "newHeads",
      params: [optional(bool)],
      handler: ([immediate], sub) => {
        feed.subs.add(sub);
        sub.onCancel(() => {
          feed.subs.delete(sub);
          feed.cancelled++;
        });
        if (immediate) sub.notify({ number: "0x0" }); // before the answer: must arrive after it
      },
    }),
    defineSubscription({
      namespace: "eth",
      name: "failing",
      params: [],
      handler: async () => {
        throw new Error("not now");
      },
    }),
  ]);
}

interface Client {
  ws: WebSocket;
  next(): Promise<unknown>;
  call(method: string, params?: unknown[], id?: number): Promise<unknown>;
  closed: Promise<{ code: number; reason: string }>;
}

async function connect(
  port: number,
  headers: Record<string, string> = {},
  opts: { autoPong?: boolean } = {},
): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}`, { headers, ...opts });
  const queue: unknown[] = [];
  const waiters: ((v: unknown) => void)[] = [];
  ws.on("message", (d: Buffer) => {
    const v = JSON.parse(d.toString());
    const w = waiters.shift();
    if (w) w(v);
    else queue.push(v);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let nextId = 1;
  const next = (): Promise<unknown> =>
    queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((r) => waiters.push(r));
  return {
    ws,
    next,
    closed,
    call(method, params = [], id = nextId++) {
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      return next();
    },
  };
}

async function withServer(
  opts: Partial<WsServerOptions>,
  f: (port: number, feed: FakeFeed, s: RpcWsServer) => Promise<void>,
): Promise<void> {
  const feed = new FakeFeed();
  const s = new RpcWsServer({ addr: "127.0.0.1", port: 0, ...opts }, { registry: registry(feed) });
  const { port } = await s.listen();
  try {
    await f(port, feed, s);
  } finally {
    await s.close(200);
  }
}

function upgradeStatus(port: number, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`, { headers });
    ws.on("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    ws.on("open", () => {
      ws.close();
      resolve({ status: 101, body: "" });
    });
    ws.on("error", (e) => {
      if (!String(e.message).includes("Unexpected server response")) reject(e);
    });
  });
}

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

describe("rpc/wsServer", () => {
  it("subscription ids look like geth's", () => {
    for (let i = 0; i < 200; i++) assert.match(newSubscriptionId(), /^0x(0|[1-9a-f][0-9a-f]{0,31})$/);
  });

  it("round trip: single, batch, notification, async, errors", async () => {
    await withServer({}, async (port) => {
      const c = await connect(port);
      assert.deepEqual(await c.call("eth_blockNumber"), { jsonrpc: "2.0", id: 1, result: "0x10" });
      c.ws.send('[{"jsonrpc":"2.0","id":"a","method":"eth_blockNumber"},{"jsonrpc":"2.0","method":"eth_blockNumber"}]');
      assert.deepEqual(await c.next(), [{ jsonrpc: "2.0", id: "a", result: "0x10" }]);
      c.ws.send('{"jsonrpc":"2.0","method":"eth_blockNumber"}');
      assert.deepEqual(await c.call("eth_slow", [], 5), { jsonrpc: "2.0", id: 5, result: "slow" });
      assert.deepEqual(await c.call("debug_x", [], 6), {
        jsonrpc: "2.0",
        id: 6,
        error: { code: -32601, message: "the method debug_x does not exist/is not available" },
      });
      c.ws.send("[]");
      assert.deepEqual(await c.next(), { jsonrpc: "2.0", id: null, error: { code: -32600, message: "empty batch" } });
      c.ws.close();
    });
  });

  it("one connection keeps serving after bad (but JSON) input, binary frames included", async () => {
    await withServer({}, async (port) => {
      const c = await connect(port);
      const bad = [
        "1",
        "null",
        '{"jsonrpc":"1.0","id":1,"method":"x"}',
        "[1,2]",
        '{"jsonrpc":"2.0","id":[],"method":"x"}',
      ];
      for (const b of bad) {
        c.ws.send(b);
        const r = (await c.next()) as { error?: { code: number } } | { error: { code: number } }[];
        const first = Array.isArray(r) ? r[0]! : r;
        assert.equal(first.error?.code, -32600, b);
      }
      c.ws.send(Buffer.from('{"jsonrpc":"2.0","id":9,"method":"eth_blockNumber"}'), { binary: true });
      assert.deepEqual(await c.next(), { jsonrpc: "2.0", id: 9, result: "0x10" });
      assert.deepEqual(await c.call("eth_blockNumber", [], 10), { jsonrpc: "2.0", id: 10, result: "0x10" });
      c.ws.close();
    });
  });

  it("subscribe, notifications, unsubscribe with cleanup", async () => {
    await withServer({}, async (port, feed) => {
      const c = await connect(port);
      const r = (await c.call("eth_subscribe", ["newHeads"])) as { result: string };
      assert.match(r.result, /^0x[0-9a-f]+$/);
      assert.equal(feed.subs.size, 1);
      feed.emit({ number: "0x1" });
      assert.deepEqual(await c.next(), {
        jsonrpc: "2.0",
        method: "eth_subscription",
        params: { subscription: r.result, result: { number: "0x1" } },
      });
      // ctx.notify reaches the same subscription.
      assert.deepEqual(await c.call("eth_push", [], 20), {
        jsonrpc: "2.0",
        method: "eth_subscription",
        params: { subscription: r.result, result: "pushed" },
      });
      assert.deepEqual(await c.next(), { jsonrpc: "2.0", id: 20, result: true });
      assert.deepEqual(await c.call("eth_unsubscribe", [r.result], 21), { jsonrpc: "2.0", id: 21, result: true });
      assert.equal(feed.subs.size, 0);
      assert.equal(feed.cancelled, 1);
      assert.deepEqual(await c.call("eth_unsubscribe", [r.result], 22), {
        jsonrpc: "2.0",
        id: 22,
        error: { code: -32000, message: "subscription not found" },
      });
      c.ws.close();
    });
  });

  it("a notification sent during subscribe arrives after the subscribe answer", async () => {
    await withServer({}, async (port) => {
      const c = await connect(port);
      const r = (await c.call("eth_subscribe", ["newHeads", true])) as { id: number; result: string };
      assert.equal(r.id, 1);
      assert.deepEqual(await c.next(), {
        jsonrpc: "2.0",
        method: "eth_subscription",
        params: { subscription: r.result, result: { number: "0x0" } },
      });
      c.ws.close();
    });
  });

  it("a failing subscribe handler answers the error and leaves no subscription", async () => {
    await withServer({}, async (port) => {
      const c = await connect(port);
      assert.deepEqual(await c.call("eth_subscribe", ["failing"]), {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32000, message: "not now" },
      });
      assert.deepEqual(await c.call("eth_subscribe", ["nope"], 2), {
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32601, message: 'no "nope" subscription in eth namespace' },
      });
      c.ws.close();
    });
  });

  it("closing the connection cancels its subscriptions only", async () => {
    await withServer({}, async (port, feed, s) => {
      const a = await connect(port);
      const b = await connect(port);
      await a.call("eth_subscribe", ["newHeads"]);
      await a.call("eth_subscribe", ["newHeads"]);
      await b.call("eth_subscribe", ["newHeads"]);
      assert.equal(feed.subs.size, 3);
      a.ws.close();
      await a.closed;
      await tick();
      assert.equal(feed.subs.size, 1);
      assert.equal(feed.cancelled, 2);
      assert.equal(s.connections, 1);
      feed.emit("x");
      assert.equal(((await b.next()) as { params: { result: string } }).params.result, "x");
      b.ws.close();
      await b.closed;
      await tick();
      assert.equal(feed.subs.size, 0);
    });
  });

  it("server close() cancels every subscription", async () => {
    const feed = new FakeFeed();
    const s = new RpcWsServer({ addr: "127.0.0.1", port: 0 }, { registry: registry(feed) });
    const { port } = await s.listen();
    const c = await connect(port);
    await c.call("eth_subscribe", ["newHeads"]);
    await s.close(500);
    assert.equal((await c.closed).code, 1001);
    assert.equal(feed.subs.size, 0);
  });

  it("not JSON: -32700 then the connection is closed (geth); the server keeps serving", async () => {
    await withServer({}, async (port) => {
      const c = await connect(port);
      c.ws.send("{oops");
      assert.deepEqual(await c.next(), { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
      assert.equal((await c.closed).code, 1000);
      const d = await connect(port);
      assert.deepEqual(await d.call("eth_blockNumber"), { jsonrpc: "2.0", id: 1, result: "0x10" });
      d.ws.close();
    });
  });

  it("a frame above the size limit closes with 1009; the server keeps serving", async () => {
    await withServer({ messageSizeLimit: 1024 }, async (port) => {
      const c = await connect(port);
      c.ws.send(`[${'{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},'.repeat(30)}1]`);
      assert.equal((await c.closed).code, 1009);
      const d = await connect(port);
      assert.deepEqual(await d.call("eth_blockNumber"), { jsonrpc: "2.0", id: 1, result: "0x10" });
      d.ws.close();
    });
  });

  it("origin check: none passes, default localhost, listed, '*'; others 403", async () => {
    await withServer({}, async (port) => {
      assert.equal((await upgradeStatus(port, {})).status, 101);
      assert.equal((await upgradeStatus(port, { origin: "http://localhost:3000" })).status, 101);
      const bad = await upgradeStatus(port, { origin: "http://evil.example" });
      assert.equal(bad.status, 403);
      assert.equal(bad.body, "Forbidden\n");
    });
    await withServer({ origins: ["https://app.example"] }, async (port) => {
      assert.equal((await upgradeStatus(port, { origin: "https://app.example" })).status, 101);
      assert.equal((await upgradeStatus(port, { origin: "http://app.example" })).status, 403);
      assert.equal((await upgradeStatus(port, { origin: "http://localhost" })).status, 403);
    });
    await withServer({ origins: ["*"] }, async (port) => {
      assert.equal((await upgradeStatus(port, { origin: "http://evil.example" })).status, 101);
    });
  });

  it("upgrades on the root path only (or --ws.rpcprefix): other paths 404 'not found'", async () => {
    await withServer({}, async (port) => {
      const r = await new Promise<{ status: number; body: string }>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/other`);
        ws.on("unexpected-response", (_q, res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        });
        ws.on("error", () => {});
      });
      assert.deepEqual(r, { status: 404, body: "not found\n" });
    });
  });

  it("WsOrigins rules (geth ruleAllowsOrigin)", () => {
    const o = new WsOrigins(["localhost:8080", "https://a.example", "b.example"]);
    assert.ok(o.allows(undefined));
    assert.ok(o.allows("http://localhost:8080"));
    assert.ok(!o.allows("http://localhost:8081"));
    assert.ok(o.allows("https://a.example:444"));
    assert.ok(!o.allows("http://a.example"));
    assert.ok(o.allows("http://b.example"));
    assert.ok(o.allows("HTTPS://B.EXAMPLE"));
    assert.ok(!o.allows("http://c.example"));
  });

  it("beforeRequest rejects the upgrade; plain HTTP gets 404", async () => {
    const hook = (req: { headers: Record<string, unknown> }) =>
      req.headers.authorization ? null : { status: 401, body: "missing token\n" };
    await withServer({ beforeRequest: hook }, async (port) => {
      const r = await upgradeStatus(port, {});
      assert.equal(r.status, 401);
      assert.equal(r.body, "missing token\n");
      assert.equal((await upgradeStatus(port, { authorization: "Bearer x" })).status, 101);
      const plain = await new Promise<number>((resolve, reject) => {
        const q = request({ host: "127.0.0.1", port, path: "/" }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        q.on("error", reject);
        q.end();
      });
      assert.equal(plain, 404);
    });
  });

  it("keepalive: pings after idle, drops a peer that does not pong", async () => {
    await withServer({ pingIntervalMs: 40, pongTimeoutMs: 40 }, async (port) => {
      const good = await connect(port);
      let pings = 0;
      good.ws.on("ping", () => pings++);
      const mute = await connect(port, {}, { autoPong: false });
      await tick(250);
      assert.ok(pings >= 2, `pings ${pings}`);
      assert.equal(good.ws.readyState, WebSocket.OPEN);
      assert.equal((await mute.closed).code, 1006);
      assert.deepEqual(await good.call("eth_blockNumber"), { jsonrpc: "2.0", id: 1, result: "0x10" });
      good.ws.close();
    });
  });
});
