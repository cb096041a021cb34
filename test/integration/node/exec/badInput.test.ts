/**
 * Bad input against a running `opal-exec --dev`, over HTTP and WebSocket: each gets upstream's
 * answer (geth's JSON-RPC codes, HTTP 413 for oversized bodies) and the node keeps serving — after
 * every single input, a plain call still works and a valid transaction still gets sealed.
 */
import { strict as assert } from "node:assert";
import WebSocket from "ws";
import { DEV_CHAIN_ID, devAccounts } from "../../../../src/node/exec/devGenesis.js";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../../../src/tx/tx.js";
import { configOf, devTransfer, tempDir, waitFor } from "../../../utils/node.js";

type Reply = { status: number; json: unknown };

async function post(url: string, body: string | Buffer): Promise<Reply> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

function call(method: string, params: unknown[] = [], id: unknown = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

function errorOf(r: Reply): { code: number; message: string } {
  const e = (r.json as { error?: { code: number; message: string } }).error;
  assert.ok(e !== undefined, `expected an error, got ${JSON.stringify(r.json)}`);
  return e;
}

function signed(over: Partial<FeeMarketTx>, key = devAccounts(1)[0]!.privateKey): string {
  const tx: FeeMarketTx = {
    type: TxType.FeeMarket,
    chainId: DEV_CHAIN_ID,
    nonce: 0n,
    maxPriorityFeePerGas: 1_000_000_000n,
    maxFeePerGas: 10_000_000_000n,
    gasLimit: 21_000n,
    to: devAccounts(2)[1]!.address,
    value: 1n,
    data: new Uint8Array(0),
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
    ...over,
  };
  return bytesToHex(encodeTx(signTx(tx, key)));
}

describe("node: bad input against opal-exec --dev gets upstream's error and the node keeps serving", function () {
  this.timeout(120_000);
  const dir = tempDir("badinput");
  let node: ExecNode;
  let url = "";
  let wsUrl = "";

  before(async () => {
    node = await ExecNode.start(
      configOf(["--dev", "--datadir", dir.path, "--http", "--ws", "--ws.addr", "127.0.0.1"]),
      { print: () => undefined },
    );
    url = `http://127.0.0.1:${node.httpServer?.address().port}`;
    wsUrl = `ws://127.0.0.1:${node.wsServer?.address().port}`;
  });

  after(async () => {
    await node.stop();
    dir.remove();
  });

  async function stillServing(): Promise<void> {
    const r = await post(url, call("eth_chainId"));
    assert.deepEqual(r.json, { jsonrpc: "2.0", id: 1, result: "0x539" });
  }

  it("HTTP: malformed JSON, wrong params, unknown methods, disabled namespaces, 10 MB bodies, 10,000-item batches", async () => {
    const cases: [string, string | Buffer, (r: Reply) => void][] = [
      ["unterminated JSON", "{", (r) => assert.equal(errorOf(r).code, -32700)],
      ["not JSON at all", Buffer.from([0xff, 0xfe, 0x00, 0x41]), (r) => assert.equal(errorOf(r).code, -32700)],
      ["empty batch", "[]", (r) => assert.equal(errorOf(r).code, -32600)],
      [
        "non-object request",
        "[1]",
        (r) => assert.equal(errorOf({ status: r.status, json: (r.json as unknown[])[0] }).code, -32600),
      ],
      ["unknown method", call("eth_noSuchMethod"), (r) => assert.equal(errorOf(r).code, -32601)],
      [
        "namespace not in --http.api",
        call("debug_getRawBlock", ["latest"]),
        (r) => assert.equal(errorOf(r).code, -32601),
      ],
      [
        "address of the wrong type",
        call("eth_getBalance", [123, "latest"]),
        (r) => assert.equal(errorOf(r).code, -32602),
      ],
      ["short address", call("eth_getBalance", ["0x1234", "latest"]), (r) => assert.equal(errorOf(r).code, -32602)],
      [
        "bad block tag",
        call("eth_getBalance", [`0x${"11".repeat(20)}`, "newest"]),
        (r) => assert.equal(errorOf(r).code, -32602),
      ],
      ["too many params", call("eth_blockNumber", [1, 2, 3]), (r) => assert.equal(errorOf(r).code, -32602)],
      [
        "params not an array",
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: "x" }),
        (r) => assert.equal(errorOf(r).code, -32602),
      ],
      [
        "eth_call with a non-hex data field",
        call("eth_call", [{ data: "0xzz" }, "latest"]),
        (r) => assert.equal(errorOf(r).code, -32602),
      ],
      [
        "eth_getLogs over an inverted range",
        call("eth_getLogs", [{ fromBlock: "0x10", toBlock: "0x1" }]),
        (r) => assert.ok(errorOf(r).code < 0),
      ],
      ["a 10 MB body", "x".repeat(10 * 1024 * 1024), (r) => assert.equal(r.status, 413)],
      [
        "a 10,000-item batch",
        `[${Array(10_000).fill(call("eth_blockNumber")).join(",")}]`,
        // geth respondWithBatchTooLarge: a batch of one error carrying the first call's id.
        (r) =>
          assert.deepEqual(r.json, [{ jsonrpc: "2.0", id: 1, error: { code: -32600, message: "batch too large" } }]),
      ],
    ];
    for (const [name, body, check] of cases) {
      const r = await post(url, body);
      try {
        check(r);
      } catch (e) {
        throw new Error(`${name}: ${(e as Error).message} (reply ${JSON.stringify(r).slice(0, 300)})`);
      }
      await stillServing();
    }
  });

  it("invalid raw transactions are refused with -32000 (or -32602 for non-hex), none enters the pool", async () => {
    const key1 = devAccounts(2)[1]!.privateKey;
    const cases: [string, string, number, RegExp][] = [
      ["not hex", "0xzz", -32602, /./],
      ["empty", "0x", -32000, /./],
      ["truncated RLP", signed({}).slice(0, 40), -32000, /./],
      ["unknown tx type", "0x55c0", -32000, /./],
      ["trailing bytes", `${signed({})}00`, -32000, /./],
      ["wrong chain id", signed({ chainId: 1n }), -32000, /chain id/i],
      ["nonce too low", signed({ nonce: 0n }, key1), -32000, /./], // placeholder replaced below
      ["gas below intrinsic", signed({ gasLimit: 20_000n }), -32000, /intrinsic gas too low/],
      [
        "fee cap below tip",
        signed({ maxFeePerGas: 1n, maxPriorityFeePerGas: 2n }),
        -32000,
        /max priority fee per gas higher than max fee per gas/,
      ],
      ["more value than balance", signed({ value: 10n ** 30n }), -32000, /insufficient funds/],
      [
        "fee above --rpc.txfeecap (1 ether)",
        signed({ gasLimit: 1_000_000n, maxFeePerGas: 10n ** 13n }),
        -32000,
        /exceeds the configured cap/,
      ],
      [
        "gas above the block gas limit",
        // Above the dev block gas limit (11.5M) and below Osaka's per-tx cap (2^24), which the --dev
        // L1 checks first (geth ValidateTransaction order).
        signed({ gasLimit: 12_000_000n, maxFeePerGas: 2_000_000_000n }),
        -32000,
        /exceeds block gas limit/,
      ],
    ];
    // Make "nonce too low" real: account 1 sends nonce 0 first and it is sealed.
    const first = await post(url, call("eth_sendRawTransaction", [devTransfer(0n, 1, 0)]));
    assert.ok((first.json as { result?: string }).result, JSON.stringify(first.json));
    const sender1 = bytesToHex(devAccounts(2)[1]!.address);
    const nonceOf1 = async (): Promise<unknown> =>
      ((await post(url, call("eth_getTransactionCount", [sender1, "latest"]))).json as { result?: unknown }).result;
    await waitFor(async () => (await nonceOf1()) === "0x1", 20_000, "account 1's first tx sealed");
    cases[6] = ["nonce too low", signed({ nonce: 0n }, key1), -32000, /nonce too low/];
    for (const [name, raw, code, message] of cases) {
      const r = await post(url, call("eth_sendRawTransaction", [raw]));
      const e = errorOf(r);
      assert.equal(e.code, code, `${name}: ${JSON.stringify(e)}`);
      assert.match(e.message, message, name);
      await stillServing();
    }
    const status = await post(url, call("txpool_status"));
    // txpool is not in the default --http.api: the pool is checked through the node instead.
    assert.equal(errorOf(status).code, -32601);
    assert.deepEqual(node.txPool.status(), { pending: 0, queued: 0 });
    // A valid tx still goes through.
    const ok = await post(url, call("eth_sendRawTransaction", [devTransfer(0n, 0, 1)]));
    const hash = (ok.json as { result: string }).result;
    await waitFor(
      async () =>
        ((await post(url, call("eth_getTransactionReceipt", [hash]))).json as { result: unknown }).result !== null,
      20_000,
      "the valid tx sealed",
    );
  });

  it("WebSocket: bad frames get errors or a close, and new connections keep being served", async () => {
    const open = async (): Promise<WebSocket> => {
      const ws = new WebSocket(wsUrl);
      await new Promise<void>((res, rej) => {
        ws.once("open", () => res());
        ws.once("error", rej);
      });
      return ws;
    };
    const ask = (ws: WebSocket, text: string): Promise<unknown> =>
      new Promise((res) => {
        ws.once("message", (d) => res(JSON.parse(d.toString())));
        ws.send(text);
      });
    const ws = await open();
    assert.equal(((await ask(ws, call("eth_noSuchMethod"))) as { error: { code: number } }).error.code, -32601);
    assert.equal(((await ask(ws, call("eth_getBalance", [1, 2]))) as { error: { code: number } }).error.code, -32602);
    const big = await ask(ws, `[${Array(10_000).fill(call("eth_blockNumber")).join(",")}]`);
    assert.deepEqual(big, [{ jsonrpc: "2.0", id: 1, error: { code: -32600, message: "batch too large" } }]);
    assert.equal(((await ask(ws, call("eth_chainId"))) as { result: string }).result, "0x539");
    // Not JSON: geth answers -32700 and closes the connection.
    const closed = new Promise<void>((res) => ws.once("close", () => res()));
    assert.equal(((await ask(ws, "{")) as { error: { code: number } }).error.code, -32700);
    await closed;
    // A frame above the 32 MiB limit closes that connection with 1009.
    const ws2 = await open();
    const code = await new Promise<number>((res) => {
      ws2.once("close", (c) => res(c));
      ws2.send("x".repeat(33 * 1024 * 1024));
    });
    assert.equal(code, 1009);
    const ws3 = await open();
    assert.equal(((await ask(ws3, call("eth_chainId"))) as { result: string }).result, "0x539");
    ws3.close();
    await stillServing();
  });
});
