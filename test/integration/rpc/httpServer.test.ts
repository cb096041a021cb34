/**
 * HTTP transport: status codes and texts as geth's stack answers them (415, 413, 403 vhosts, 405,
 * GET probe, CORS and preflight, the beforeRequest hook), body limits, keep-alive, and that the
 * server keeps serving after each bad input.
 */
import { strict as assert } from "node:assert";
import { Agent, type IncomingHttpHeaders, request } from "node:http";
import { gunzipSync } from "node:zlib";
import { type HttpServerOptions, RpcHttpServer } from "../../../src/rpc/httpServer.js";
import { defineMethod, Registry } from "../../../src/rpc/registry.js";

interface Res {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function send(
  port: number,
  opts: {
    method?: string;
    path?: string;
    headers?: Record<string, string | number>;
    body?: string | Buffer;
    chunked?: boolean;
  },
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...(opts.headers ?? {}) };
    if (opts.chunked) headers["transfer-encoding"] = "chunked";
    else if (opts.body !== undefined && headers["content-length"] === undefined) {
      headers["content-length"] = Buffer.byteLength(opts.body);
    }
    const r = request(
      { host: "127.0.0.1", port, method: opts.method ?? "POST", path: opts.path ?? "/", headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    r.on("error", reject);
    if (opts.body !== undefined) r.end(opts.body);
    else r.end();
  });
}

const JSON_CT = { "content-type": "application/json" };
const CALL = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}';
const RESULT = '{"jsonrpc":"2.0","id":1,"result":"0x10"}';

function registry(): Registry {
  return new Registry([
    defineMethod({ name: "eth_blockNumber", params: [], handler: () => "0x10" }),
    defineMethod({ name: "eth_slow", params: [], handler: () => new Promise((r) => setTimeout(() => r("done"), 100)) }),
    defineMethod({
      name: "eth_transport",
      params: [],
      handler: (_p, ctx) => [ctx.transport, ctx.notify === undefined],
    }),
    defineMethod({ name: "debug_x", params: [], handler: () => 1 }),
    defineMethod({ name: "eth_big", params: [], handler: () => "ab".repeat(5000) }),
  ]);
}

async function withServer(opts: Partial<HttpServerOptions>, f: (port: number, s: RpcHttpServer) => Promise<void>) {
  const s = new RpcHttpServer({ addr: "127.0.0.1", port: 0, ...opts }, { registry: registry() });
  const { port } = await s.listen();
  try {
    await f(port, s);
  } finally {
    await s.close(100);
  }
}

describe("rpc/httpServer", () => {
  after(() => agent.destroy());

  it("binds port 0 and reports the bound port", async () => {
    await withServer({}, async (port, s) => {
      assert.ok(port > 0);
      assert.equal(s.address().port, port);
    });
  });

  it("serves a call with content-type and content-length, keep-alive", async () => {
    await withServer({}, async (port) => {
      const r = await send(port, { headers: JSON_CT, body: CALL });
      assert.equal(r.status, 200);
      assert.equal(r.headers["content-type"], "application/json");
      assert.equal(r.headers["content-length"], String(RESULT.length));
      assert.equal(r.headers.connection, "keep-alive");
      assert.equal(r.body, RESULT);
    });
  });

  it("HTTP has no push: ctx.notify absent", async () => {
    await withServer({}, async (port) => {
      const r = await send(port, { headers: JSON_CT, body: '{"jsonrpc":"2.0","id":1,"method":"eth_transport"}' });
      assert.equal(r.body, '{"jsonrpc":"2.0","id":1,"result":["http",true]}');
    });
  });

  it("only the configured namespaces are served", async () => {
    await withServer({ apis: ["eth"] }, async (port) => {
      const r = await send(port, { headers: JSON_CT, body: '{"jsonrpc":"2.0","id":1,"method":"debug_x"}' });
      assert.equal(
        r.body,
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method debug_x does not exist/is not available"}}',
      );
    });
    await withServer({ apis: ["eth", "debug"] }, async (port) => {
      const r = await send(port, { headers: JSON_CT, body: '{"jsonrpc":"2.0","id":1,"method":"debug_x"}' });
      assert.equal(r.body, '{"jsonrpc":"2.0","id":1,"result":1}');
    });
  });

  it("415 unless the media type is JSON", async () => {
    await withServer({}, async (port) => {
      for (const ct of [undefined, "text/plain", "application/x-www-form-urlencoded", "application/jsonx", "json"]) {
        const r = await send(port, { headers: ct === undefined ? {} : { "content-type": ct }, body: CALL });
        assert.equal(r.status, 415, String(ct));
        assert.equal(r.body, "invalid content type, only application/json is supported\n");
        assert.equal(r.headers["content-type"], "text/plain; charset=utf-8");
      }
      for (const ct of [
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/json-rpc",
        "application/jsonrequest",
      ]) {
        const r = await send(port, { headers: { "content-type": ct }, body: CALL });
        assert.equal(r.status, 200, ct);
        assert.equal(r.body, RESULT);
      }
    });
  });

  it("413 for a 10 MB body with Content-Length; a chunked 10 MB body is cut at the limit → -32700", async () => {
    await withServer({}, async (port) => {
      const big = `[${`${CALL},`.repeat(200_000)}${CALL}]`;
      assert.ok(big.length > 10_000_000);
      const r = await send(port, { headers: JSON_CT, body: big });
      assert.equal(r.status, 413);
      assert.equal(r.body, `content length too large (${big.length}>5242880)\n`);
      const c = await send(port, { headers: JSON_CT, body: big, chunked: true });
      assert.equal(c.status, 200);
      assert.equal(c.body, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
      assert.equal((await send(port, { headers: JSON_CT, body: CALL })).body, RESULT);
    });
  });

  it("a body just under the limit is served", async () => {
    await withServer({ bodyLimit: 1000 }, async (port) => {
      const body = `${CALL}${" ".repeat(1000 - CALL.length)}`;
      assert.equal((await send(port, { headers: JSON_CT, body })).body, RESULT);
      const r = await send(port, { headers: JSON_CT, body: `${body} ` });
      assert.equal(r.status, 413);
      assert.equal(r.body, "content length too large (1001>1000)\n");
    });
  });

  it("403 'invalid host specified' for a Host outside --http.vhosts (default localhost)", async () => {
    await withServer({}, async (port) => {
      const bad = await send(port, { headers: { ...JSON_CT, host: "evil.example" }, body: CALL });
      assert.equal(bad.status, 403);
      assert.equal(bad.body, "invalid host specified\n");
      for (const host of ["localhost", `localhost:${port}`, "LOCALHOST:1", "127.0.0.1:9", "[::1]:8545", "10.1.2.3"]) {
        const ok = await send(port, { headers: { ...JSON_CT, host }, body: CALL });
        assert.equal(ok.status, 200, host);
      }
    });
    await withServer({ vhosts: ["*"] }, async (port) => {
      assert.equal((await send(port, { headers: { ...JSON_CT, host: "evil.example" }, body: CALL })).status, 200);
    });
    await withServer({ vhosts: ["rpc.example.org"] }, async (port) => {
      assert.equal((await send(port, { headers: { ...JSON_CT, host: "rpc.example.org:80" }, body: CALL })).status, 200);
      assert.equal((await send(port, { headers: { ...JSON_CT, host: "localhost" }, body: CALL })).status, 403);
    });
  });

  it("GET without body is a 200 health probe; PUT/DELETE are 405; GET with a query needs JSON", async () => {
    await withServer({}, async (port) => {
      const g = await send(port, { method: "GET" });
      assert.equal(g.status, 200);
      assert.equal(g.body, "");
      const q = await send(port, { method: "GET", path: "/?x=1" });
      assert.equal(q.status, 415);
      for (const method of ["PUT", "DELETE"]) {
        const r = await send(port, { method, headers: JSON_CT, body: CALL });
        assert.equal(r.status, 405);
        assert.equal(r.body, "method not allowed\n");
      }
    });
  });

  it("CORS off by default: no CORS headers; OPTIONS gets an empty 200", async () => {
    await withServer({}, async (port) => {
      const r = await send(port, { headers: { ...JSON_CT, origin: "http://a.example" }, body: CALL });
      assert.equal(r.headers["access-control-allow-origin"], undefined);
      assert.equal(r.headers.vary, undefined);
      const o = await send(port, {
        method: "OPTIONS",
        headers: { origin: "http://a.example", "access-control-request-method": "POST" },
      });
      assert.equal(o.status, 200);
      assert.equal(o.body, "");
      assert.equal(o.headers["access-control-allow-origin"], undefined);
    });
  });

  it("CORS with a list: allowed origin echoed, others not; preflight answered", async () => {
    await withServer({ cors: ["http://a.example", "https://*.b.example"] }, async (port) => {
      const ok = await send(port, { headers: { ...JSON_CT, origin: "http://A.example" }, body: CALL });
      assert.equal(ok.headers["access-control-allow-origin"], "http://A.example");
      assert.equal(ok.headers.vary, "Origin");
      assert.equal(ok.body, RESULT);
      const wild = await send(port, { headers: { ...JSON_CT, origin: "https://x.b.example" }, body: CALL });
      assert.equal(wild.headers["access-control-allow-origin"], "https://x.b.example");
      const no = await send(port, { headers: { ...JSON_CT, origin: "http://c.example" }, body: CALL });
      assert.equal(no.headers["access-control-allow-origin"], undefined);
      assert.equal(no.headers.vary, "Origin");
      assert.equal(no.body, RESULT);

      const pre = await send(port, {
        method: "OPTIONS",
        headers: {
          origin: "http://a.example",
          "access-control-request-method": "post",
          "access-control-request-headers": "content-type,x-custom-thing",
        },
      });
      assert.equal(pre.status, 200);
      assert.equal(pre.body, "");
      assert.equal(pre.headers["access-control-allow-origin"], "http://a.example");
      assert.equal(pre.headers["access-control-allow-methods"], "POST");
      assert.equal(pre.headers["access-control-allow-headers"], "Content-Type, X-Custom-Thing");
      assert.equal(pre.headers["access-control-max-age"], "600");
      assert.equal(pre.headers.vary, "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");

      const badMethod = await send(port, {
        method: "OPTIONS",
        headers: { origin: "http://a.example", "access-control-request-method": "DELETE" },
      });
      assert.equal(badMethod.status, 200);
      assert.equal(badMethod.headers["access-control-allow-origin"], undefined);
    });
    await withServer({ cors: ["*"] }, async (port) => {
      const r = await send(port, { headers: { ...JSON_CT, origin: "http://any.example" }, body: CALL });
      assert.equal(r.headers["access-control-allow-origin"], "*");
    });
  });

  it("beforeRequest can reject with 401 before anything else", async () => {
    const hook = (req: { headers: IncomingHttpHeaders }) =>
      req.headers.authorization === "Bearer ok" ? null : { status: 401, body: "missing token\n" };
    await withServer({ beforeRequest: hook }, async (port) => {
      const r = await send(port, { headers: { ...JSON_CT, host: "evil.example" }, body: CALL });
      assert.equal(r.status, 401);
      assert.equal(r.body, "missing token\n");
      const ok = await send(port, { headers: { ...JSON_CT, authorization: "Bearer ok" }, body: CALL });
      assert.equal(ok.body, RESULT);
    });
  });

  it("a throwing beforeRequest hook answers 500 and the server stays up", async () => {
    const hook = () => {
      throw new Error("boom");
    };
    await withServer({ beforeRequest: hook }, async (port) => {
      const r = await send(port, { headers: JSON_CT, body: CALL });
      assert.equal(r.status, 500);
      assert.equal((await send(port, { headers: JSON_CT, body: CALL })).status, 500);
    });
  });

  it("keeps serving after every bad input", async () => {
    await withServer({}, async (port) => {
      const bad: Parameters<typeof send>[1][] = [
        { headers: JSON_CT, body: "{" },
        { headers: JSON_CT, body: "[]" },
        { headers: JSON_CT, body: "" },
        { headers: JSON_CT, body: "\u0000\u00ff garbage" },
        { headers: JSON_CT, body: Buffer.from([0xff, 0xfe, 0xfd]) },
        { headers: JSON_CT, body: '{"jsonrpc":"2.0","id":{},"method":"x"}' },
        { headers: JSON_CT, body: "[1,2,3]" },
        {
          headers: JSON_CT,
          body: JSON.stringify(Array(1001).fill({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber" })),
        },
        { headers: { "content-type": "text/plain" }, body: CALL },
        { headers: { ...JSON_CT, host: "evil.example" }, body: CALL },
        { method: "PUT", headers: JSON_CT, body: CALL },
        { headers: JSON_CT, body: "x".repeat(6 * 1024 * 1024) },
        { headers: JSON_CT, body: '{"jsonrpc":"2.0","method":"eth_blockNumber"}' },
      ];
      for (const b of bad) {
        const r = await send(port, b);
        assert.ok(r.status < 500, `status ${r.status}`);
        const ok = await send(port, { headers: JSON_CT, body: CALL });
        assert.equal(ok.body, RESULT);
      }
    });
  });

  it("serves the root path only (or --http.rpcprefix); other paths are 404", async () => {
    await withServer({}, async (port) => {
      assert.equal((await send(port, { headers: JSON_CT, body: CALL, path: "/?a=b" })).body, RESULT);
      const r = await send(port, { headers: JSON_CT, body: CALL, path: "/x" });
      assert.equal(r.status, 404);
      assert.equal(r.body, "");
    });
    await withServer({ prefix: "/rpc" }, async (port) => {
      assert.equal((await send(port, { headers: JSON_CT, body: CALL, path: "/rpc" })).body, RESULT);
      assert.equal((await send(port, { headers: JSON_CT, body: CALL, path: "/" })).status, 404);
    });
  });

  it("a call running past callTimeoutMs is answered -32002", async () => {
    await withServer({ callTimeoutMs: 30 }, async (port) => {
      const r = await send(port, { headers: JSON_CT, body: '{"jsonrpc":"2.0","id":1,"method":"eth_slow"}' });
      assert.equal(r.body, '{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"request timed out"}}');
    });
  });

  it("gzips large replies when the client accepts gzip (gzipMinBytes), never when -1", async () => {
    const BIG = '{"jsonrpc":"2.0","id":1,"method":"eth_big"}';
    const want = `{"jsonrpc":"2.0","id":1,"result":"${"ab".repeat(5000)}"}`;
    const raw = (port: number, headers: Record<string, string>, body = BIG) =>
      new Promise<{ enc: string | undefined; body: Buffer }>((resolve, reject) => {
        const r = request({ host: "127.0.0.1", port, method: "POST", headers: { ...JSON_CT, ...headers } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ enc: res.headers["content-encoding"], body: Buffer.concat(chunks) }));
        });
        r.on("error", reject);
        r.end(body);
      });
    await withServer({}, async (port) => {
      const g = await raw(port, { "accept-encoding": "gzip, deflate" });
      assert.equal(g.enc, "gzip");
      assert.equal(gunzipSync(g.body).toString(), want);
      assert.ok(g.body.length < want.length / 10);
      const small = await raw(port, { "accept-encoding": "gzip" }, CALL);
      assert.equal(small.enc, undefined);
      assert.equal(small.body.toString(), RESULT);
      const plain = await raw(port, {});
      assert.equal(plain.enc, undefined);
      assert.equal(plain.body.toString(), want);
    });
    await withServer({ gzipMinBytes: -1 }, async (port) => {
      const g = await raw(port, { "accept-encoding": "gzip" });
      assert.equal(g.enc, undefined);
      assert.equal(g.body.toString(), want);
    });
  });

  it("a notification gets an empty 200", async () => {
    await withServer({}, async (port) => {
      const r = await send(port, { headers: JSON_CT, body: '{"jsonrpc":"2.0","method":"eth_blockNumber"}' });
      assert.equal(r.status, 200);
      assert.equal(r.body, "");
    });
  });

  it("close() lets an in-flight request finish, then refuses connections", async () => {
    const s = new RpcHttpServer({ addr: "127.0.0.1", port: 0 }, { registry: registry() });
    const { port } = await s.listen();
    const slow = send(port, { headers: JSON_CT, body: '{"jsonrpc":"2.0","id":1,"method":"eth_slow"}' });
    await new Promise((r) => setTimeout(r, 20));
    const closed = s.close(2000);
    assert.equal((await slow).body, '{"jsonrpc":"2.0","id":1,"result":"done"}');
    await closed;
    await assert.rejects(send(port, { headers: JSON_CT, body: CALL }));
  });
});
