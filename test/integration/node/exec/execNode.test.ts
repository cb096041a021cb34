/**
 * ExecNode on a temp datadir with every server on port 0: a `--dev` node initialises its chain and
 * a restart finds the same head; `--dev.period 0` seals a sent tx into the next block; the engine
 * port answers 401 without a JWT and serves engine_* with one; a datadir without a chain fails with
 * one line.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { signJwt } from "../../../../src/engine/jwt.js";
import { ExecLogger, ExecNode, NodeError } from "../../../../src/node/exec/execNode.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { decodeTx, txHash } from "../../../../src/tx/envelope.js";
import { rpc } from "../../../utils/jsonRpc.js";
import { configOf, devTransfer, tempDir, waitFor } from "../../../utils/node.js";

const url = (a: { address: string; port: number }): string => `http://${a.address}:${a.port}/`;

describe("node/execNode", function () {
  this.timeout(60_000);

  it("--dev initialises a chain; a restart finds the same head", async () => {
    const dir = tempDir("restart");
    try {
      const cfg = configOf(["--dev", "--datadir", dir.path]);
      let printed = "";
      const a = await ExecNode.start(cfg, { print: (t) => (printed += t) });
      assert.match(printed, /0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266/);
      assert.match(printed, /0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80/);
      assert.equal(a.chain.head.number, 0);
      const sealed = a.sealer!.seal();
      assert.equal(sealed.header.number, 1);
      const head = bytesToHex(a.chain.headBlockHash);
      await a.stop();
      await a.stop(); // idempotent

      const b = await ExecNode.start(cfg, { print: () => undefined });
      try {
        assert.equal(b.chain.head.number, 1);
        assert.equal(bytesToHex(b.chain.headBlockHash), head);
        // The same JWT secret file is reused.
        assert.equal(
          bytesToHex(b.jwtSecret),
          `0x${readFileSync(join(dir.path, "jwtsecret"), "utf8").replace(/^0x/, "")}`,
        );
      } finally {
        await b.stop();
      }
    } finally {
      dir.remove();
    }
  });

  it("a datadir without a chain fails with one line (no --dev)", async () => {
    const dir = tempDir("nochain");
    try {
      await assert.rejects(
        ExecNode.start(configOf(["--datadir", dir.path])),
        (e: Error) => e instanceof NodeError && /no chain/.test(e.message) && !e.message.includes("\n"),
      );
      // The store was closed again: a second attempt can open it.
      await assert.rejects(ExecNode.start(configOf(["--datadir", dir.path])), NodeError);
    } finally {
      dir.remove();
    }
  });

  it("--dev.period 0 seals a block as soon as a tx arrives, and fans the head out", async () => {
    const dir = tempDir("seal");
    try {
      const heads: number[] = [];
      const node = await ExecNode.start(configOf(["--dev", "--datadir", dir.path, "--http"]), {
        print: () => undefined,
        events: { emitHeadChange: (c) => heads.push(c.newHead.number) },
      });
      try {
        const http = url(node.endpoints.http!);
        assert.equal((await rpc(http, "eth_blockNumber")).json?.result, "0x0");
        const raw = devTransfer(0n);
        const sent = await rpc(http, "eth_sendRawTransaction", [raw]);
        const hash = bytesToHex(txHash(decodeTx(Buffer.from(raw.slice(2), "hex"))));
        assert.equal(sent.json?.result, hash, sent.body);
        await waitFor(() => node.chain.head.number === 1, 10_000, "block 1");
        const body = node.chain.store.body(node.chain.headBlockHash)!;
        assert.equal(body.transactions.length, 1);
        assert.equal(bytesToHex(txHash(decodeTx(body.transactions[0]!))), hash);
        assert.deepEqual(heads, [1]);
        assert.equal(node.txPool.status().pending, 0);
        assert.equal(
          (await rpc(http, "eth_getTransactionCount", [bytesToHex(node.devKeys[0]!.address), "pending"])).json?.result,
          "0x1",
        );
        // A second tx makes a second block.
        await rpc(http, "eth_sendRawTransaction", [devTransfer(1n)]);
        await waitFor(() => node.chain.head.number === 2, 10_000, "block 2");
        // No pending txs: no empty blocks.
        await new Promise((r) => setTimeout(r, 200));
        assert.equal(node.chain.head.number, 2);
      } finally {
        await node.stop();
      }
    } finally {
      dir.remove();
    }
  });

  it("the engine port: 401 without a valid JWT, engine_* and eth_* with one", async () => {
    const dir = tempDir("jwt");
    try {
      const node = await ExecNode.start(configOf(["--dev", "--datadir", dir.path]), { print: () => undefined });
      try {
        const auth = url(node.endpoints.auth);
        const none = await rpc(auth, "engine_exchangeCapabilities", [[]]);
        assert.equal(none.status, 401);
        assert.equal(none.body, "missing token\n");
        const wrong = await rpc(auth, "engine_exchangeCapabilities", [[]], {
          authorization: `Bearer ${signJwt(new Uint8Array(32).fill(7), Math.floor(Date.now() / 1000))}`,
        });
        assert.equal(wrong.status, 401);
        assert.match(wrong.body, /signature is invalid/);
        const stale = await rpc(auth, "engine_exchangeCapabilities", [[]], {
          authorization: `Bearer ${signJwt(node.jwtSecret, Math.floor(Date.now() / 1000) - 3600)}`,
        });
        assert.equal(stale.status, 401);

        const token = (): Record<string, string> => ({
          authorization: `Bearer ${signJwt(node.jwtSecret, Math.floor(Date.now() / 1000))}`,
        });
        const caps = await rpc(auth, "engine_exchangeCapabilities", [[]], token());
        assert.equal(caps.status, 200);
        assert.ok((caps.json!.result as string[]).includes("engine_newPayloadV4"));
        const head = bytesToHex(node.chain.headBlockHash);
        const fcu = await rpc(
          auth,
          "engine_forkchoiceUpdatedV3",
          [{ headBlockHash: head, safeBlockHash: head, finalizedBlockHash: head }, null],
          token(),
        );
        assert.deepEqual(fcu.json?.result, {
          payloadStatus: { status: "VALID", latestValidHash: head, validationError: null },
          payloadId: null,
        });
        assert.equal((await rpc(auth, "eth_chainId", [], token())).json?.result, "0x539");
        // net is not served on the auth port (geth: engine + eth only).
        assert.equal((await rpc(auth, "net_version", [], token())).json?.error?.code, -32601);
        // ... and engine is not served on the public port set.
        assert.equal(node.endpoints.http, null);
      } finally {
        await node.stop();
      }
    } finally {
      dir.remove();
    }
  });

  it("--rollup.sequencerhttp forwards eth_sendRawTransaction and passes the sequencer's errors through", async () => {
    const dir = tempDir("seq");
    const seen: string[] = [];
    const seq = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const m = JSON.parse(body) as { id: number; params: string[] };
        seen.push(m.params[0]!);
        const reply =
          seen.length === 1
            ? { jsonrpc: "2.0", id: m.id, result: `0x${"ab".repeat(32)}` }
            : { jsonrpc: "2.0", id: m.id, error: { code: -32000, message: "nonce too low" } };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((r) => seq.listen(0, "127.0.0.1", r));
    try {
      const port = (seq.address() as AddressInfo).port;
      const node = await ExecNode.start(
        configOf(["--dev", "--datadir", dir.path, "--http", "--rollup.sequencerhttp", `http://127.0.0.1:${port}/`]),
        { print: () => undefined },
      );
      try {
        const http = url(node.endpoints.http!);
        const raw = devTransfer(0n);
        // op-geth answers the tx's own hash once the sequencer took it.
        const hash = bytesToHex(txHash(decodeTx(Buffer.from(raw.slice(2), "hex"))));
        assert.equal((await rpc(http, "eth_sendRawTransaction", [raw])).json?.result, hash);
        assert.deepEqual((await rpc(http, "eth_sendRawTransaction", [raw])).json?.error, {
          code: -32000,
          message: "nonce too low",
        });
        assert.deepEqual(seen, [raw, raw]);
        assert.equal(node.txPool.status().pending, 0);
      } finally {
        await node.stop();
      }
    } finally {
      seq.close();
      dir.remove();
    }
  });

  it("debug_setHead on a live node: the pool takes the rewound blocks' txs back and the sealer includes them again", async () => {
    const dir = tempDir("sethead");
    try {
      const node = await ExecNode.start(configOf(["--dev", "--datadir", dir.path, "--http", "--http.api=eth,debug"]), {
        print: () => undefined,
      });
      try {
        const http = url(node.endpoints.http!);
        await rpc(http, "eth_sendRawTransaction", [devTransfer(0n)]);
        await waitFor(() => node.chain.head.number === 1, 10_000, "block 1");
        const second = devTransfer(1n);
        const hash = bytesToHex(txHash(decodeTx(Buffer.from(second.slice(2), "hex"))));
        await rpc(http, "eth_sendRawTransaction", [second]);
        await waitFor(() => node.chain.head.number === 2, 10_000, "block 2");
        const rewound = await rpc(http, "debug_setHead", ["0x1"]);
        assert.equal(rewound.json?.result, null, rewound.body);
        // The tx of the rewound block 2 is pending again, so --dev.period 0 seals it into a new block 2.
        await waitFor(
          () =>
            node.chain.head.number === 2 &&
            bytesToHex(txHash(decodeTx(node.chain.store.body(node.chain.headBlockHash)!.transactions[0]!))) === hash,
          10_000,
          "the rewound tx sealed again",
        );
      } finally {
        await node.stop();
      }
    } finally {
      dir.remove();
    }
  });

  it("--http.api / --ws.api with an unknown namespace: served without it, logged as geth's error", async () => {
    const dir = tempDir("apis");
    const lines: string[] = [];
    try {
      const node = await ExecNode.start(
        configOf([
          "--dev",
          "--datadir",
          dir.path,
          "--http",
          "--http.api=eth,nosuch,engine",
          "--ws",
          "--ws.api=net,bogus",
        ]),
        { print: () => undefined, logger: new ExecLogger(3, "logfmt", (l) => lines.push(l)) },
      );
      try {
        const errors = lines.filter((l) => l.includes("Unavailable modules in HTTP API list"));
        assert.equal(errors.length, 2, lines.join("\n"));
        assert.match(errors[0]!, /lvl=error/);
        assert.match(errors[0]!, /unavailable=.*nosuch/);
        assert.doesNotMatch(errors[0]!, /unavailable=[^ ]*engine/, "engine is served on the auth port, not reported");
        assert.match(errors[1]!, /unavailable=.*bogus/);
        const http = url(node.endpoints.http!);
        assert.equal((await rpc(http, "eth_blockNumber")).json?.result, "0x0");
        // engine is never served on the open port, whatever --http.api says.
        assert.equal((await rpc(http, "engine_exchangeCapabilities", [[]])).json?.error?.code, -32601);
      } finally {
        await node.stop();
      }
    } finally {
      dir.remove();
    }
  });

  it("ExecLogger formats lines as geth's terminal, logfmt and json handlers", () => {
    const at = new Date(2026, 10, 22, 8, 45, 1, 23);
    const lines: string[] = [];
    const mk = (f: "terminal" | "logfmt" | "json", v = 3) =>
      new ExecLogger(
        v,
        f,
        (l) => lines.push(l),
        () => at,
      );
    mk("terminal").info("HTTP server started", { endpoint: "127.0.0.1:8545", auth: false, prefix: "" });
    assert.equal(
      lines.pop(),
      "INFO  [11-22|08:45:01.023] HTTP server started                      endpoint=127.0.0.1:8545 auth=false prefix=",
    );
    mk("logfmt").warn("a b", { n: 1n, h: new Uint8Array([1, 2]) });
    assert.match(lines.pop()!, /^t=\S+ lvl=warn msg="a b" n=1 h=0x0102$/);
    mk("json").error("boom", { n: 5 });
    const j = JSON.parse(lines.pop()!);
    assert.equal(j.lvl, "error");
    assert.equal(j.msg, "boom");
    assert.equal(j.n, 5);
    mk("terminal", 2).info("hidden");
    assert.equal(lines.length, 0);
  });
});
