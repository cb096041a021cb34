/**
 * `--l2` with several URLs (transport/failoverClient.ts): the first endpoint answers while it can, the
 * next takes over when it stops answering, a JSON-RPC error is not a failover, and the first is tried
 * again after the recovery interval.
 */
import { strict as assert } from "node:assert";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { FailoverRpcClient } from "../../../../src/rollup/transport/failoverClient.js";
import { RpcCallError, RpcClient, RpcTransportError } from "../../../../src/rollup/transport/rpcClient.js";
import { recordingLog } from "../../../utils/actions/rollup.js";

/** A JSON-RPC endpoint answering `name`, or a -32000 error for method "fail"; `down` closes it. */
async function endpoint(name: string): Promise<{ url: string; calls: number; server: Server }> {
  const e = { url: "", calls: 0, server: null as unknown as Server };
  e.server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      e.calls++;
      const answer = (q: { id: number; method: string }) =>
        q.method === "fail"
          ? { jsonrpc: "2.0", id: q.id, error: { code: -32000, message: `no from ${name}` } }
          : { jsonrpc: "2.0", id: q.id, result: name };
      const q = JSON.parse(body) as { id: number; method: string } | { id: number; method: string }[];
      const reply = Array.isArray(q) ? q.map(answer) : answer(q);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((r) => e.server.listen(0, "127.0.0.1", r));
  e.url = `http://127.0.0.1:${(e.server.address() as AddressInfo).port}`;
  return e;
}

const close = (s: Server) => new Promise<void>((r) => s.close(() => r()));

describe("rollup/transport: --l2 failover endpoints", () => {
  it("uses the first, fails over when it stops answering, not on a JSON-RPC error, and returns to it", async () => {
    const a = await endpoint("a");
    const b = await endpoint("b");
    let now = 1_000;
    const log = recordingLog();
    const c = new FailoverRpcClient(
      [new RpcClient(a.url, { timeoutMs: 2_000 }), new RpcClient(b.url, { timeoutMs: 2_000 })],
      log,
      60_000,
      () => now,
    );
    try {
      assert.equal(await c.call("x"), "a");
      // An answer with an error is the endpoint answering: the caller gets it, nothing switches.
      await assert.rejects(c.call("fail"), (e: unknown) => e instanceof RpcCallError && /from a/.test(e.message));
      assert.equal(c.url, a.url);
      assert.equal(b.calls, 0);

      await close(a.server);
      assert.equal(await c.call("x"), "b", "the same call is answered by the second endpoint");
      assert.equal(c.url, b.url);
      assert.ok(
        log.lines.some((l) => l.includes("failed over")),
        log.lines.join("\n"),
      );
      assert.deepEqual(await c.callBatch([{ method: "x", params: [] }]), ["b"]);

      // The first endpoint is tried again once the recovery interval has passed, not before (here a
      // live server stands in its slot: a restarted one need not get the same port).
      const a2 = await endpoint("a2");
      const back = new FailoverRpcClient(
        [new RpcClient(a2.url), new RpcClient(a.url), new RpcClient(b.url)],
        log,
        60_000,
        () => now,
      );
      await close(a2.server);
      assert.equal(await back.call("x"), "b", "first and second down: the third");
      const a3 = await endpoint("a3");
      (back as unknown as { clients: RpcClient[] }).clients[0] = new RpcClient(a3.url);
      now += 59_999;
      assert.equal(await back.call("x"), "b", "still on the third inside the interval");
      assert.equal(a3.calls, 0);
      now += 1;
      assert.equal(await back.call("x"), "a3", "the first again after it");
      await close(a3.server);
    } finally {
      await close(b.server);
    }
  });

  it("every endpoint down: the last transport error, as one client's", async () => {
    const a = await endpoint("a");
    const b = await endpoint("b");
    await close(a.server);
    await close(b.server);
    const c = new FailoverRpcClient([new RpcClient(a.url), new RpcClient(b.url)], recordingLog());
    await assert.rejects(c.call("x"), (e: unknown) => e instanceof RpcTransportError && e.message.includes(b.url));
  });
});
