/**
 * Dispatcher: envelopes, ids, notifications, batches and their limits, namespace filtering, error
 * mapping; expected texts are geth's (rpc/json.go, rpc/handler.go, rpc/errors.go).
 */
import { strict as assert } from "node:assert";
import type { RpcConnection } from "../../../src/rpc/dispatch.js";
import { RpcError } from "../../../src/rpc/errors.js";
import { address, blockNumber, bool, optional, quantity } from "../../../src/rpc/params.js";
import { defineMethod, defineSubscription, Registry } from "../../../src/rpc/registry.js";
import { ConnectionSubscriptions } from "../../../src/rpc/subscriptions.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "127.0.0.1" }, subs: null };

function registry(): Registry {
  return new Registry([
    defineMethod({ name: "eth_blockNumber", params: [], handler: () => "0x10" }),
    defineMethod({ name: "eth_add", params: [quantity, optional(quantity)], handler: ([a, b]) => a + (b ?? 0) }),
    defineMethod({ name: "eth_async", params: [], handler: async () => "later" }),
    defineMethod({ name: "eth_balance", params: [address, blockNumber], handler: () => "0x0" }),
    defineMethod({ name: "eth_flag", params: [bool], handler: ([b]) => b }),
    defineMethod({ name: "eth_undefined", params: [], handler: () => undefined }),
    defineMethod({ name: "eth_big", params: [], handler: () => 1n }),
    defineMethod({ name: "eth_blob", params: [quantity], handler: ([n]) => "x".repeat(n) }),
    defineMethod({
      name: "eth_revert",
      params: [],
      handler: () => {
        throw RpcError.executionReverted("0x08c379a0", "nope");
      },
    }),
    defineMethod({
      name: "eth_fail",
      params: [],
      handler: () => {
        throw new Error("header not found");
      },
    }),
    defineMethod({ name: "eth_failAsync", params: [], handler: async () => Promise.reject(new Error("later no")) }),
    defineMethod({
      name: "eth_crash",
      params: [],
      handler: () => {
        return (null as any).x; // deliberate TypeError
      },
    }),
    defineMethod({ name: "eth_never", params: [], handler: () => new Promise(() => {}) }),
    defineMethod({
      name: "eth_strictArg",
      // A decoder that fails the way geth's method does (not a -32602): data and input differ.
      params: [
        {
          optional: false,
          decode: () => {
            throw RpcError.server('both "data" and "input" are set and not equal');
          },
        },
      ],
      handler: () => "unreached",
    }),
    defineMethod({ name: "net_version", params: [], handler: () => "10" }),
    defineMethod({ name: "debug_secret", params: [], handler: () => "s" }),
    defineSubscription({ namespace: "eth", name: "newHeads", params: [], handler: () => {} }),
  ]);
}

const d = registry().forApis(["eth", "net"]);

function call(body: string, conn: RpcConnection = HTTP): unknown {
  const r = d.handleText(body, conn);
  assert.ok(r === null || typeof r === "string", "sync handlers must answer synchronously");
  return r === null ? null : JSON.parse(r);
}

async function callAsync(body: string, conn: RpcConnection = HTTP): Promise<unknown> {
  const r = await d.handleText(body, conn);
  return r === null ? null : JSON.parse(String(r));
}

const req = (id: unknown, method: string, params?: unknown): string =>
  JSON.stringify(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });

describe("rpc/dispatch", () => {
  describe("envelope", () => {
    it("answers a call with the exact response shape", () => {
      assert.equal(d.handleText(req(1, "eth_blockNumber"), HTTP), '{"jsonrpc":"2.0","id":1,"result":"0x10"}');
    });
    it("echoes string, number, null and bool ids", () => {
      for (const id of ["abc", 7, 1.5, -3, null, true, "", 0]) {
        assert.deepEqual(call(req(id, "eth_blockNumber")), { jsonrpc: "2.0", id, result: "0x10" });
      }
    });
    it("object and array ids are invalid requests answered with id null", () => {
      for (const id of [{}, [1]]) {
        assert.deepEqual(call(req(id, "eth_blockNumber")), {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "invalid request" },
        });
      }
    });
    it("malformed JSON is -32700 parse error with id null", () => {
      for (const body of ["{", "[1,", '{"jsonrpc":"2.0"', "nope", '{"a":1}}']) {
        assert.deepEqual(call(body), { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
      }
    });
    it("an empty body gets no answer", () => {
      assert.equal(d.handleText("", HTTP), null);
      assert.equal(d.handleText(" \n\t", HTTP), null);
    });
    it("wrong or missing jsonrpc with an id: invalid request with that id", () => {
      for (const v of ["1.0", 2, null, "2"]) {
        assert.deepEqual(call(JSON.stringify({ jsonrpc: v, id: 9, method: "eth_blockNumber" })), {
          jsonrpc: "2.0",
          id: 9,
          error: { code: -32600, message: "invalid request" },
        });
      }
      assert.deepEqual(call(JSON.stringify({ id: 9, method: "eth_blockNumber" })), {
        jsonrpc: "2.0",
        id: 9,
        error: { code: -32600, message: "invalid request" },
      });
    });
    it("wrong version without id, and non-object messages: invalid request, id null", () => {
      for (const body of ['{"jsonrpc":"1.0","method":"eth_blockNumber"}', "1", '"x"', "null", "true", "{}"]) {
        assert.deepEqual(call(body), { jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } });
      }
    });
    it("missing or non-string method with an id: invalid request", () => {
      assert.deepEqual(call('{"jsonrpc":"2.0","id":2}'), {
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32600, message: "invalid request" },
      });
      assert.deepEqual(call('{"jsonrpc":"2.0","id":2,"method":5}'), {
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32600, message: "invalid request" },
      });
    });
    it("notifications run but get no answer, even on error", () => {
      assert.equal(d.handleText('{"jsonrpc":"2.0","method":"eth_blockNumber"}', HTTP), null);
      assert.equal(d.handleText('{"jsonrpc":"2.0","method":"eth_nope"}', HTTP), null);
      assert.equal(d.handleText('{"jsonrpc":"2.0","method":"eth_fail"}', HTTP), null);
    });
    it("a notification of an async method resolves to no answer after it ran", async () => {
      assert.equal(await d.handleText('{"jsonrpc":"2.0","method":"eth_async"}', HTTP), null);
    });
    it("responses and *_subscription messages sent to the server are dropped", () => {
      assert.equal(d.handleText('{"jsonrpc":"2.0","id":1,"result":"0x1"}', HTTP), null);
      assert.equal(d.handleText('{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}', HTTP), null);
      assert.equal(d.handleText('{"jsonrpc":"2.0","method":"eth_subscription","params":{}}', HTTP), null);
    });
    it("field names match case-insensitively, as encoding/json", () => {
      assert.deepEqual(call('{"JSONRPC":"2.0","ID":3,"Method":"eth_blockNumber"}'), {
        jsonrpc: "2.0",
        id: 3,
        result: "0x10",
      });
    });
    it("method name too long", () => {
      const m = `eth_${"x".repeat(2045)}`;
      assert.deepEqual(call(req(1, m)), {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32600, message: "method name too long: 2049 > 2048" },
      });
    });
  });

  describe("methods, params and errors", () => {
    it("unknown method: geth's text", () => {
      assert.deepEqual(call(req(1, "eth_nope")), {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32601, message: "the method eth_nope does not exist/is not available" },
      });
    });
    it("a method of a namespace that is not enabled answers like an unknown one", () => {
      assert.deepEqual(call(req(1, "debug_secret")), {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32601, message: "the method debug_secret does not exist/is not available" },
      });
      const all = registry().forApis(["eth", "net", "debug"]);
      assert.equal(all.handleText(req(1, "debug_secret"), HTTP), '{"jsonrpc":"2.0","id":1,"result":"s"}');
      const netOnly = registry().forApis(["net"]);
      assert.match(netOnly.handleText(req(1, "eth_blockNumber"), HTTP) as string, /-32601/);
      assert.equal(netOnly.handleText(req(1, "net_version"), HTTP), '{"jsonrpc":"2.0","id":1,"result":"10"}');
    });
    it("rpc_modules lists the served namespaces", () => {
      assert.deepEqual(call(req(1, "rpc_modules")), {
        jsonrpc: "2.0",
        id: 1,
        result: { eth: "1.0", net: "1.0", rpc: "1.0" },
      });
    });
    it("params: positional, optional, null/absent, errors → -32602", () => {
      assert.deepEqual(call(req(1, "eth_add", ["0x2", "0x3"])), { jsonrpc: "2.0", id: 1, result: 5 });
      assert.deepEqual(call(req(1, "eth_add", ["0x2"])), { jsonrpc: "2.0", id: 1, result: 2 });
      assert.deepEqual(call(req(1, "eth_blockNumber", null)), { jsonrpc: "2.0", id: 1, result: "0x10" });
      const e = (params: unknown) => (call(req(1, "eth_add", params)) as { error: unknown }).error;
      assert.deepEqual(e(["0x1", "0x1", "0x1"]), { code: -32602, message: "too many arguments, want at most 2" });
      assert.deepEqual(e([]), { code: -32602, message: "missing value for required argument 0" });
      assert.deepEqual(e({}), { code: -32602, message: "non-array args" });
      assert.deepEqual(e(["1"]), {
        code: -32602,
        message:
          "invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Uint64",
      });
      assert.deepEqual((call(req(1, "eth_balance", [`0x${"00".repeat(20)}`, "1"])) as { error: unknown }).error, {
        code: -32602,
        message: "invalid argument 1: hex string without 0x prefix",
      });
    });
    it("thrown errors: RpcError as is (with data), Error → -32000, crashes → -32603", () => {
      assert.equal(
        d.handleText(req(1, "eth_revert"), HTTP),
        '{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted: nope","data":"0x08c379a0"}}',
      );
      assert.equal(
        d.handleText(req(1, "eth_fail"), HTTP),
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}',
      );
      assert.equal(
        d.handleText(req(1, "eth_crash"), HTTP),
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"method handler crashed"}}',
      );
    });
    it("a param decoder's RpcError is the reply (found by the fuzzer: it used to reject handleText)", () => {
      assert.equal(
        d.handleText(req(1, "eth_strictArg", ["0x1"]), HTTP),
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"both \\"data\\" and \\"input\\" are set and not equal"}}',
      );
    });
    it("async results and rejections", async () => {
      assert.deepEqual(await callAsync(req(1, "eth_async")), { jsonrpc: "2.0", id: 1, result: "later" });
      assert.deepEqual(await callAsync(req(1, "eth_failAsync")), {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32000, message: "later no" },
      });
    });
    it("undefined result is null; an unserializable result is -32603", () => {
      assert.equal(d.handleText(req(1, "eth_undefined"), HTTP), '{"jsonrpc":"2.0","id":1,"result":null}');
      const r = call(req(1, "eth_big")) as { error: { code: number } };
      assert.equal(r.error.code, -32603);
    });
    it("RpcError helpers", () => {
      assert.deepEqual(RpcError.executionReverted("0x").toJSON(), {
        code: 3,
        message: "execution reverted",
        data: "0x",
      });
      assert.equal(RpcError.methodNotFound("a_b").message, "the method a_b does not exist/is not available");
    });
  });

  describe("subscriptions over a transport without push", () => {
    it("*_subscribe is 'notifications not supported' (-32601), whatever the namespace", () => {
      for (const m of ["eth_subscribe", "debug_subscribe", "foo_subscribe"]) {
        assert.deepEqual(call(req(1, m, ["newHeads"])), {
          jsonrpc: "2.0",
          id: 1,
          error: { code: -32601, message: "notifications not supported" },
        });
      }
    });
    it("*_unsubscribe is 'subscription not found'", () => {
      assert.deepEqual(call(req(1, "eth_unsubscribe", ["0x1"])), {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32000, message: "subscription not found" },
      });
      assert.deepEqual(call(req(1, "eth_unsubscribe", [1])), {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32602,
          message: "invalid argument 0: json: cannot unmarshal number into Go value of type rpc.ID",
        },
      });
    });
    it("subscribe errors on a push connection", () => {
      const sent: string[] = [];
      const ws: RpcConnection = {
        ctx: { transport: "ws", remoteAddr: "" },
        subs: new ConnectionSubscriptions((t) => sent.push(t)),
      };
      const e = (method: string, params?: unknown) =>
        (JSON.parse(d.handleText(req(1, method, params), ws) as string) as { error: unknown }).error;
      assert.deepEqual(e("eth_subscribe", ["nope"]), {
        code: -32601,
        message: 'no "nope" subscription in eth namespace',
      });
      assert.deepEqual(e("debug_subscribe", ["newHeads"]), {
        code: -32601,
        message: 'no "newHeads" subscription in debug namespace',
      });
      assert.deepEqual(e("eth_subscribe"), { code: -32602, message: "non-array args" });
      assert.deepEqual(e("eth_subscribe", []), {
        code: -32602,
        message: "expected subscription name as first argument",
      });
      assert.deepEqual(e("eth_subscribe", [1]), {
        code: -32602,
        message: "expected subscription name as first argument",
      });
      assert.deepEqual(e("eth_subscribe", ["newHeads", 1]), {
        code: -32602,
        message: "too many arguments, want at most 1",
      });
    });
  });

  describe("batches", () => {
    it("mixed batch: answers in order, notifications and dropped messages omitted", () => {
      const body = JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "eth_blockNumber" },
        { jsonrpc: "2.0", method: "eth_blockNumber" },
        { jsonrpc: "2.0", id: "b", method: "eth_nope" },
        5,
        { jsonrpc: "2.0", id: 3, result: 1 },
        { jsonrpc: "2.0", id: null, method: "net_version" },
      ]);
      assert.deepEqual(call(body), [
        { jsonrpc: "2.0", id: 1, result: "0x10" },
        {
          jsonrpc: "2.0",
          id: "b",
          error: { code: -32601, message: "the method eth_nope does not exist/is not available" },
        },
        { jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } },
        { jsonrpc: "2.0", id: null, result: "10" },
      ]);
    });
    it("empty batch is a single -32600 'empty batch' object", () => {
      assert.deepEqual(call("[]"), { jsonrpc: "2.0", id: null, error: { code: -32600, message: "empty batch" } });
      assert.deepEqual(call(" [ ] "), { jsonrpc: "2.0", id: null, error: { code: -32600, message: "empty batch" } });
    });
    it("a batch of notifications only gets no answer", () => {
      assert.equal(d.handleText('[{"jsonrpc":"2.0","method":"eth_blockNumber"}]', HTTP), null);
    });
    it("batch with async items keeps order", async () => {
      const body = JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "eth_async" },
        { jsonrpc: "2.0", id: 2, method: "eth_blockNumber" },
        { jsonrpc: "2.0", id: 3, method: "eth_async" },
      ]);
      assert.deepEqual(await callAsync(body), [
        { jsonrpc: "2.0", id: 1, result: "later" },
        { jsonrpc: "2.0", id: 2, result: "0x10" },
        { jsonrpc: "2.0", id: 3, result: "later" },
      ]);
    });
    it("10,000 items over the 1000 limit: one 'batch too large' error carrying the first call's id", () => {
      const items = [{ jsonrpc: "2.0", method: "eth_blockNumber" }];
      for (let i = 0; i < 9999; i++) items.push({ jsonrpc: "2.0", id: i + 100, method: "eth_blockNumber" } as never);
      assert.deepEqual(call(JSON.stringify(items)), [
        { jsonrpc: "2.0", id: 100, error: { code: -32600, message: "batch too large" } },
      ]);
    });
    it("exactly at the limit is served; limit 0 means unlimited", async () => {
      // A batch that holds the main thread past 2 ms finishes after a turn of the loop: await it.
      const items = Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "eth_blockNumber" }));
      const at = JSON.parse((await d.handleText(JSON.stringify(items), HTTP)) as string) as unknown[];
      assert.equal(at.length, 1000);
      const unlimited = registry().forApis(["eth"], { batchItemLimit: 0 });
      const big = Array.from({ length: 10_000 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "eth_blockNumber" }));
      const r = JSON.parse((await unlimited.handleText(JSON.stringify(big), HTTP)) as string) as unknown[];
      assert.equal(r.length, 10_000);
    });
    it("a batch of slow synchronous calls gives the event loop back between them, in order", async () => {
      const spin = (ms: number) => {
        const end = performance.now() + ms;
        while (performance.now() < end);
        return ms;
      };
      const slow = new Registry([defineMethod({ name: "eth_slow", params: [], handler: () => spin(5) })]).forApis([
        "eth",
      ]);
      const body = JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, method: "eth_slow" })));
      let between = false;
      const r = slow.handleText(body, HTTP);
      setImmediate(() => {
        between = true;
      });
      assert.ok(r instanceof Promise, "the batch did not finish in one go");
      const out = JSON.parse((await r) as string) as { id: number; result: number }[];
      assert.deepEqual(
        out.map((x) => [x.id, x.result]),
        [
          [1, 5],
          [2, 5],
          [3, 5],
        ],
      );
      assert.ok(between, "a callback queued after the batch ran before it ended");
    });
    it("timeout: a pending call is answered -32002; in a batch, answered items are kept", async () => {
      assert.deepEqual(JSON.parse((await d.handleText(req(7, "eth_never"), HTTP, null, 30)) as string), {
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32002, message: "request timed out" },
      });
      const body = JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "eth_blockNumber" },
        { jsonrpc: "2.0", id: 2, method: "eth_async" },
        { jsonrpc: "2.0", id: 3, method: "eth_never" },
        { jsonrpc: "2.0", method: "eth_blockNumber" },
        { jsonrpc: "2.0", id: 4, method: "eth_blockNumber" },
      ]);
      assert.deepEqual(JSON.parse((await d.handleText(body, HTTP, null, 30)) as string), [
        { jsonrpc: "2.0", id: 1, result: "0x10" },
        { jsonrpc: "2.0", id: 2, result: "later" },
        { jsonrpc: "2.0", id: 3, error: { code: -32002, message: "request timed out" } },
        { jsonrpc: "2.0", id: 4, error: { code: -32002, message: "request timed out" } },
      ]);
      // A sync reply is never delayed by the timeout machinery.
      assert.equal(typeof d.handleText(req(1, "eth_blockNumber"), HTTP, null, 30), "string");
    });
    it("response too large: the rest of the batch gets -32003", () => {
      const small = registry().forApis(["eth"], { batchResponseMaxSize: 1000 });
      const body = JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "eth_blob", params: ["0x100"] },
        { jsonrpc: "2.0", id: 2, method: "eth_blob", params: ["0x300"] },
        { jsonrpc: "2.0", id: 3, method: "eth_blob", params: ["0x1"] },
        { jsonrpc: "2.0", method: "eth_blob", params: ["0x1"] },
        { jsonrpc: "2.0", id: 4, method: "eth_blockNumber" },
      ]);
      const r = JSON.parse(small.handleText(body, HTTP) as string) as {
        id: number;
        result?: string;
        error?: unknown;
      }[];
      assert.equal(r.length, 4);
      assert.equal(r[0]!.result!.length, 256);
      assert.equal(r[1]!.result!.length, 768); // the item that crossed the limit is still answered
      assert.deepEqual(r[2], { jsonrpc: "2.0", id: 3, error: { code: -32003, message: "response too large" } });
      assert.deepEqual(r[3], { jsonrpc: "2.0", id: 4, error: { code: -32003, message: "response too large" } });
    });
    it("replyMaxSize: a reply of exactly the cap is sent, one longer is -32003 (sync and async, alone and in a batch)", async () => {
      const TOO_LARGE = { code: -32003, message: "response too large" };
      // {"jsonrpc":"2.0","id":1,"result":"…"} is 36 characters around the string's content.
      const d = registry().forApis(["eth"], { replyMaxSize: 36 + 100 });
      const blob = (n: number, id = 1) => req(id, "eth_blob", [`0x${n.toString(16)}`]);
      assert.equal((d.handleText(blob(100), HTTP) as string).length, 136);
      assert.deepEqual(JSON.parse(d.handleText(blob(101), HTTP) as string).error, TOO_LARGE);
      const batch = JSON.parse(d.handleText(`[${blob(101, 1)},${blob(10, 2)}]`, HTTP) as string);
      assert.deepEqual(batch[0].error, TOO_LARGE);
      assert.equal(batch[1].result.length, 10);
      const asyncBig = new Registry([
        defineMethod({ name: "eth_later", params: [], handler: async () => "y".repeat(200) }),
      ]).forApis(["eth"], { replyMaxSize: 100 });
      assert.deepEqual(JSON.parse((await asyncBig.handleText(req(1, "eth_later"), HTTP)) as string).error, TOO_LARGE);
      // 0, the default, is no cap (geth; the Engine API).
      assert.equal(JSON.parse(registry().forApis(["eth"]).handleText(blob(5000), HTTP) as string).result.length, 5000);
    });
  });
});
