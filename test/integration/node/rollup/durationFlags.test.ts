/**
 * What opal-node's duration options mean at 0, below 0 and above Node's longest timer (2^31-1 ms,
 * where setTimeout, setInterval and AbortSignal.timeout fire after 1 ms): each option parsed by
 * opal-node's flag table and run through the code it configures, against loopback servers.
 *
 * - The L1 polls go through a counting proxy in front of an in-process L1 (how many
 *   eth_getBlockByNumber("safe" / "finalized" / "latest") an operator's paid endpoint would see):
 *   `--l1.epoch-poll-interval` and `--l1.http-poll-interval` at 0 or below poll not at all (op-service
 *   eth.PollBlockChanges: "polling of block is disabled"), a huge one polls once at start and then
 *   not within the test; `--l1.runtime-config-reload-interval` likewise.
 * - `--l2.engine-rpc-timeout` (and the conductor's client, the same RpcClient): a huge timeout lets a
 *   slow answer through; 0 is op-service's default 10s.
 * - `--altda.get-timeout`: huge or negative lets a slow DA server answer (negative = none, as Go's
 *   http.Client); a small one still times out.
 */
import { strict as assert } from "node:assert";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseNodeArgs } from "../../../../src/cli/nodeFlags.js";
import { DerivationService } from "../../../../src/node/rollup/derivationService.js";
import { keccakCommitment } from "../../../../src/rollup/altDa/commitment.js";
import { DaClient, DaTransientError } from "../../../../src/rollup/altDa/daClient.js";
import { EngineClient } from "../../../../src/rollup/engine/engineClient.js";
import { RpcClient } from "../../../../src/rollup/transport/rpcClient.js";
import type { RpcHttpServer } from "../../../../src/rpc/httpServer.js";
import type { Logger } from "../../../../src/util/log.js";
import { MAX_TIMER_MS } from "../../../../src/util/timers.js";
import { type Rollup, servedRollup } from "../../../utils/actions/rollup.js";
import { InProcessExec } from "../../../utils/inProcessExec.js";

/** How long the L1 polls are watched: 1 ms polling would send hundreds of requests in it. */
const WINDOW_MS = 800;

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = "";
    req.on("data", (c: Buffer) => (s += c.toString()));
    req.on("end", () => resolve(s));
  });
}

/** A JSON-RPC proxy that counts eth_getBlockByNumber by block tag (batches included). */
class CountingProxy {
  readonly byTag = new Map<string, number>();
  private readonly server: Server;
  url = "";

  constructor(private readonly upstream: string) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<this> {
    this.url = `http://127.0.0.1:${await listen(this.server)}`;
    return this;
  }

  count(tag: string): number {
    return this.byTag.get(tag) ?? 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await body(req);
    try {
      const parsed = JSON.parse(text) as unknown;
      for (const m of (Array.isArray(parsed) ? parsed : [parsed]) as { method?: string; params?: unknown[] }[]) {
        if (m.method === "eth_getBlockByNumber" && typeof m.params?.[0] === "string") {
          this.byTag.set(m.params[0], this.count(m.params[0]) + 1);
        }
      }
    } catch {
      // forwarded as it came
    }
    try {
      const up = await fetch(this.upstream, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: text,
      });
      res.writeHead(up.status, { "content-type": "application/json" }).end(await up.text());
    } catch {
      res.writeHead(502).end();
    }
  }

  stop(): Promise<void> {
    return close(this.server);
  }
}

/** A logger that keeps every line as `level message {fields}`. */
function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const rec =
    (level: string) =>
    (msg: string, ctx?: Record<string, unknown>): void => {
      lines.push(`${level} ${msg} ${JSON.stringify(ctx ?? {})}`);
    };
  return { lines, error: rec("error"), warn: rec("warn"), info: rec("info"), debug: rec("debug") };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("node/rollup: duration options at 0, below 0 and beyond Node's longest timer", function () {
  this.timeout(60_000);
  let r: Rollup;
  let l1: RpcHttpServer;
  let l1Url = "";

  before(async () => {
    ({ r, l1, url: l1Url } = await servedRollup());
  });

  after(async () => {
    await l1.close();
  });

  /** Runs the derivation service with `flags` against a counting proxy for WINDOW_MS. */
  async function watchL1(flags: string[]): Promise<{ proxy: CountingProxy; log: string[]; steps: number }> {
    const proxy = await new CountingProxy(l1Url).start();
    const parsed = parseNodeArgs(
      ["--network=op-sepolia", "--l2=http://127.0.0.1:1", `--l1=${proxy.url}`, "--l1.beacon.ignore", ...flags],
      {},
    );
    if (parsed.kind !== "run") throw new Error(JSON.stringify(parsed));
    const log = recordingLog();
    const exec = InProcessExec.create(r.l2Genesis);
    const svc = await DerivationService.start(parsed.config, {
      cfg: r.cfg,
      engine: new EngineClient(exec.rpc, r.cfg),
      log,
      l1Chain: null,
      safeDb: null,
    });
    try {
      await sleep(WINDOW_MS);
    } finally {
      await svc.stop();
      await proxy.stop();
    }
    return { proxy, log: log.lines, steps: svc.driver.counters.steps };
  }

  const EPOCH_SLOW = ["--l1.runtime-config-reload-interval=0"];

  describe("--l1.epoch-poll-interval (safe and finalized)", () => {
    for (const v of ["0", "0s", "-1s"]) {
      it(`=${v} polls neither safe nor finalized, and says so once per label (op-node's warning)`, async () => {
        const { proxy, log } = await watchL1([`--l1.epoch-poll-interval=${v}`, ...EPOCH_SLOW]);
        assert.equal(proxy.count("safe"), 0, "safe requests");
        assert.equal(proxy.count("finalized"), 0, "finalized requests");
        const warned = log.filter((l) => l.startsWith("warn polling of block is disabled"));
        assert.equal(warned.filter((l) => l.includes('"label":"safe"')).length, 1, log.join("\n"));
        assert.equal(warned.filter((l) => l.includes('"label":"finalized"')).length, 1, log.join("\n"));
      });
    }

    it("=1000h (beyond 2^31-1 ms) polls once at start, then not every millisecond", async () => {
      const { proxy } = await watchL1(["--l1.epoch-poll-interval=1000h", ...EPOCH_SLOW]);
      assert.equal(proxy.count("safe"), 1);
      assert.equal(proxy.count("finalized"), 1);
    });

    it("=600h (between 2^31 and 2^32 ms, where Node warns and fires after 1 ms) likewise", async () => {
      const { proxy } = await watchL1(["--l1.epoch-poll-interval=600h", ...EPOCH_SLOW]);
      assert.equal(proxy.count("safe"), 1);
      assert.equal(proxy.count("finalized"), 1);
    });

    it("=100ms polls about every 100 ms (the proxy counts what it should)", async () => {
      const { proxy, log } = await watchL1(["--l1.epoch-poll-interval=100ms", ...EPOCH_SLOW]);
      for (const tag of ["safe", "finalized"]) {
        assert.ok(proxy.count(tag) >= 3 && proxy.count(tag) <= WINDOW_MS / 100 + 2, `${tag}: ${proxy.count(tag)}`);
      }
      assert.ok(!log.some((l) => l.includes("polling of block is disabled")), log.join("\n"));
    });
  });

  describe("--l1.http-poll-interval (latest, over HTTP)", () => {
    for (const v of ["0", "-5s"]) {
      it(`=${v} does not poll latest (only the runtime config's one read at start), says so, and does not spin`, async () => {
        const { proxy, log, steps } = await watchL1([`--l1.http-poll-interval=${v}`, ...EPOCH_SLOW]);
        // Without new L1 heads the driver waits: a busy loop would step thousands of times here.
        assert.ok(steps <= 10, `driver steps: ${steps}`);
        assert.equal(proxy.count("latest"), 1, "latest requests: the startup runtime-config load only");
        assert.equal(
          log.filter((l) => l.startsWith("warn polling of block is disabled") && l.includes('"label":"latest"')).length,
          1,
          log.join("\n"),
        );
      });
    }

    it("=1000h polls latest once at start, then not every millisecond", async () => {
      const { proxy } = await watchL1(["--l1.http-poll-interval=1000h", ...EPOCH_SLOW]);
      assert.equal(proxy.count("latest"), 2, "the runtime-config load and the first head poll");
    });
  });

  describe("--l1.runtime-config-reload-interval", () => {
    for (const v of ["0", "-1s", "1000h", "600h"]) {
      it(`=${v} reads the runtime config at start only`, async () => {
        const { proxy } = await watchL1([`--l1.runtime-config-reload-interval=${v}`, "--l1.http-poll-interval=0"]);
        assert.equal(proxy.count("latest"), 1, "latest requests: the startup load only");
      });
    }
  });

  /** A JSON-RPC server answering every call with "0x1" after `delayMs`. */
  async function slowRpc(delayMs: number): Promise<{ url: string; stop: () => Promise<void> }> {
    const server = createServer((req, res) => {
      void body(req).then(async (text) => {
        await sleep(delayMs);
        const id = (JSON.parse(text) as { id: number }).id;
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id, result: "0x1" }));
      });
    });
    const port = await listen(server);
    return { url: `http://127.0.0.1:${port}`, stop: () => close(server) };
  }

  describe("--l2.engine-rpc-timeout (the engine's RpcClient; --conductor.rpc-timeout uses the same)", () => {
    const timeoutOf = (v: string): number => {
      const p = parseNodeArgs(["--l2=http://127.0.0.1:1", `--l2.engine-rpc-timeout=${v}`], {});
      if (p.kind !== "run") throw new Error(JSON.stringify(p));
      return p.config["l2.engine-rpc-timeout"];
    };

    for (const v of ["600h", "1000h", "2562047h"]) {
      it(`=${v} lets a 100 ms answer through (a timer beyond 2^31-1 ms would abort after 1 ms)`, async () => {
        const s = await slowRpc(100);
        try {
          const client = new RpcClient(s.url, { timeoutMs: timeoutOf(v) });
          assert.equal(await client.call("eth_chainId"), "0x1");
          assert.equal(client.timeoutMs, MAX_TIMER_MS);
        } finally {
          await s.stop();
        }
      });
    }

    it("=1500us (a fraction of a ms) times out as a 2 ms timer, not as a RangeError", async () => {
      const s = await slowRpc(100);
      try {
        const client = new RpcClient(s.url, { timeoutMs: timeoutOf("1500us") });
        await assert.rejects(client.call("eth_chainId"), /timed out after 2 ms/);
      } finally {
        await s.stop();
      }
    });

    it("=0 is op-service's default call timeout, 10s", () => {
      assert.equal(new RpcClient("http://127.0.0.1:1", { timeoutMs: timeoutOf("0") }).timeoutMs, 10_000);
    });
  });

  describe("--altda.get-timeout", () => {
    async function slowDa(delayMs: number): Promise<{ url: string; stop: () => Promise<void> }> {
      const server = createServer((req, res) => {
        void body(req).then(async () => {
          await sleep(delayMs);
          res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.from("hello"));
        });
      });
      const port = await listen(server);
      return { url: `http://127.0.0.1:${port}`, stop: () => close(server) };
    }
    const getTimeoutOf = (v: string): number => {
      const p = parseNodeArgs(["--l2=http://127.0.0.1:1", `--altda.get-timeout=${v}`], {});
      if (p.kind !== "run") throw new Error(JSON.stringify(p));
      return p.config["altda.get-timeout"];
    };
    const client = (url: string, getTimeoutMs: number) =>
      new DaClient({ url, getTimeoutMs, putTimeoutMs: 0, maxConcurrent: 1, verifyOnRead: true, daService: false });
    const input = new TextEncoder().encode("hello");

    for (const v of ["1000h", "600h", "0", "-1s"]) {
      it(`=${v} lets a 100 ms answer through (no timeout, or one of 24.8 days)`, async () => {
        const s = await slowDa(100);
        try {
          assert.deepEqual(await client(s.url, getTimeoutOf(v)).getInput(keccakCommitment(input)), input);
        } finally {
          await s.stop();
        }
      });
    }

    it("=20ms still times out on a 100 ms answer", async () => {
      const s = await slowDa(100);
      try {
        await assert.rejects(
          client(s.url, getTimeoutOf("20ms")).getInput(keccakCommitment(input)),
          (e: Error) => e instanceof DaTransientError && /timed out after 20 ms/.test(e.message),
        );
      } finally {
        await s.stop();
      }
    });
  });
});
