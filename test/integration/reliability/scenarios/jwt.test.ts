/**
 * Reliability scenario: JWT attacks on a live Engine API server — opal-exec's authrpc port over HTTP
 * and over WebSocket (the same port, as geth): missing token, wrong secret, a stale iat (> 60 s),
 * a token from the future, alg none, and replayed tokens. geth keeps no record of token ids, so a
 * token replayed inside the ±60 s iat window is accepted (as geth does), and the same token replayed
 * after the window is refused. The node's JWT clock is pinned by the test so the window is crossed
 * without waiting.
 */
import { strict as assert } from "node:assert";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import { signJwt } from "../../../../src/engine/jwt.js";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import { rpc } from "../../../utils/jsonRpc.js";
import { configOf, tempDir } from "../../../utils/node.js";

const SECRET = new Uint8Array(32).fill(0x42);
const b64url = (s: string) => Buffer.from(s).toString("base64url");

/** The JSON-RPC result of one engine_exchangeCapabilities over a new WebSocket with `headers`, or the refusal. */
function wsCall(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on("open", () =>
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "engine_exchangeCapabilities", params: [[]] })),
    );
    ws.on("message", (data) => {
      ws.close();
      resolve({ status: 101, body: data.toString() });
    });
    ws.on("error", reject);
  });
}

describe("reliability scenarios: Engine API JWT", function () {
  this.timeout(30_000);
  const dir = tempDir("scenario-jwt");
  let node: ExecNode;
  let now = Math.floor(Date.now() / 1000);
  let httpUrl = "";
  let wsUrl = "";

  before(async () => {
    const secretFile = join(dir.path, "jwt.hex");
    writeFileSync(secretFile, Buffer.from(SECRET).toString("hex"));
    node = await ExecNode.start(configOf(["--dev", "--datadir", dir.path, "--authrpc.jwtsecret", secretFile]), {
      print: () => undefined,
      jwtClock: () => now,
    });
    const port = node.authServer.address().port;
    httpUrl = `http://127.0.0.1:${port}`;
    wsUrl = `ws://127.0.0.1:${port}`;
  });

  after(async () => {
    await node?.stop();
    dir.remove();
  });

  it("[scenario] JWT attacks on the Engine API (HTTP and WebSocket): missing, wrong secret, stale, future, alg none refused; a replay inside the iat window is accepted as geth does, the same replay after it refused", async () => {
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    const none = `${b64url('{"alg":"none","typ":"JWT"}')}.${b64url(JSON.stringify({ iat: now }))}.`;
    const attacks: { what: string; headers: Record<string, string>; reason: RegExp }[] = [
      { what: "missing token", headers: {}, reason: /^missing token$/ },
      { what: "not a Bearer token", headers: { authorization: `Basic ${b64url("a:b")}` }, reason: /^missing token$/ },
      {
        what: "wrong secret",
        headers: bearer(signJwt(new Uint8Array(32).fill(7), now)),
        reason: /^signature is invalid$/,
      },
      { what: "stale iat (61 s old)", headers: bearer(signJwt(SECRET, now - 61)), reason: /^stale token$/ },
      { what: "stale iat (1 h old)", headers: bearer(signJwt(SECRET, now - 3600)), reason: /^stale token$/ },
      { what: "iat 61 s in the future", headers: bearer(signJwt(SECRET, now + 61)), reason: /^future token$/ },
      { what: "alg none", headers: bearer(none), reason: /signing method none/ },
      {
        what: "tampered claims",
        headers: bearer(
          ((t) => `${t.split(".")[0]}.${b64url(JSON.stringify({ iat: now + 1 }))}.${t.split(".")[2]}`)(
            signJwt(SECRET, now),
          ),
        ),
        reason: /^signature is invalid$/,
      },
    ];
    for (const a of attacks) {
      const h = await rpc(httpUrl, "engine_exchangeCapabilities", [[]], a.headers);
      assert.equal(h.status, 401, `HTTP ${a.what}`);
      assert.match(h.body.trim(), a.reason, `HTTP ${a.what}`);
      assert.equal(h.json, null, `HTTP ${a.what}: nothing dispatched`);
      const w = await wsCall(wsUrl, a.headers);
      assert.equal(w.status, 401, `WebSocket ${a.what}: upgrade refused`);
      assert.match(w.body.trim(), a.reason, `WebSocket ${a.what}`);
    }

    // A good token works on both transports...
    const t0 = now;
    const token = signJwt(SECRET, t0);
    const ok = await rpc(httpUrl, "engine_exchangeCapabilities", [[]], bearer(token));
    assert.equal(ok.status, 200);
    assert.ok((ok.json!.result as string[]).includes("engine_forkchoiceUpdatedV3"));
    const okWs = await wsCall(wsUrl, bearer(token));
    assert.equal(okWs.status, 101);
    assert.ok((JSON.parse(okWs.body).result as string[]).includes("engine_newPayloadV4"));

    // A WebSocket connection is authenticated once, at the upgrade (as geth): it stays open past the window.
    const conn = new WebSocket(wsUrl, { headers: bearer(token) });
    await new Promise<void>((res, rej) => {
      conn.on("open", () => res());
      conn.on("error", rej);
    });
    const ask = (id: number) =>
      new Promise<{ id: number; result: string }>((res) => {
        conn.once("message", (d) => res(JSON.parse(d.toString())));
        conn.send(JSON.stringify({ jsonrpc: "2.0", id, method: "eth_chainId", params: [] }));
      });
    assert.equal((await ask(1)).id, 1);

    // ...and replayed within ±60 s of its iat it is accepted again (geth tracks no token ids).
    now = t0 + 60;
    assert.equal(
      (await rpc(httpUrl, "engine_exchangeCapabilities", [[]], bearer(token))).status,
      200,
      "HTTP replay at +60 s",
    );
    assert.equal((await wsCall(wsUrl, bearer(token))).status, 101, "WebSocket replay at +60 s");

    // The same token replayed after the window is refused.
    now = t0 + 61;
    const late = await rpc(httpUrl, "engine_exchangeCapabilities", [[]], bearer(token));
    assert.equal(late.status, 401, "HTTP replay at +61 s");
    assert.equal(late.body, "stale token\n");
    const lateWs = await wsCall(wsUrl, bearer(token));
    assert.equal(lateWs.status, 401, "WebSocket replay at +61 s");
    assert.equal(lateWs.body, "stale token\n");
    assert.equal((await ask(2)).result, "0x539", "the open connection still answers after the window");
    conn.close();
    // A fresh token at the new time is fine: the refusals were about the tokens, not the server.
    assert.equal((await rpc(httpUrl, "eth_chainId", [], bearer(signJwt(SECRET, now)))).status, 200);
    now = Math.floor(Date.now() / 1000);
  });
});
