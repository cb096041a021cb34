/**
 * opal-node's interop options against a live setup: the action harness's L1 over HTTP, an opal-exec
 * L2 behind its JWT, and opal-node sequencing on an interop-activated rollup config with
 * `--interop.rpc.addr=127.0.0.1 --interop.rpc.port=0`. The interop RPC refuses missing, wrong, stale
 * and future tokens at the WebSocket upgrade (401 with the reason) and plain HTTP; its JWT secret file
 * is generated when empty; a supervisor stand-in drives the node through the managed-mode methods and
 * checks the answers against the execution client and `optimism_syncStatus`. On a network without
 * interop nothing starts and each interop option is logged as ignored; a malformed dependency set
 * stops an interop node at startup. A verifier opal-node in managed mode derives the harness's
 * Interop batches into local-safe only: the execution client's "safe" and "finalized" blocks are the
 * ones the supervisor stand-in sets (and resets), not what derivation or L1 finality reached.
 */
import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import WebSocket from "ws";
import { parseNodeArgs } from "../../../../src/cli/nodeFlags.js";
import { main as opalExec } from "../../../../src/cli/opalExec.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { signJwt } from "../../../../src/engine/jwt.js";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import { nodeRollupConfigOf, RollupNode, RollupNodeError } from "../../../../src/node/rollup/rollupNode.js";
import { concatBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import {
  applyForkOverrides,
  type RollupConfig,
  rollupConfigToJson,
} from "../../../../src/rollup/config/rollupConfig.js";
import { RpcHttpServer } from "../../../../src/rpc/httpServer.js";
import type { Logger } from "../../../../src/util/log.js";
import { Rollup } from "../../../utils/actions/rollup.js";
import { call } from "../../../utils/jsonRpc.js";
import { configOf, startRollupNode, tempDir, waitFor } from "../../../utils/node.js";

type Json = Record<string, unknown>;

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, error() {}, warn: (m) => warnings.push(m), info() {}, debug() {} };
}

/** The HTTP status and body a refused WebSocket upgrade got. */
function refusedUpgrade(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on("open", () => {
      ws.close();
      reject(new Error("the upgrade was accepted"));
    });
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => {
        body += c.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on("error", (e) => reject(e));
  });
}

/** A JSON-RPC client over one WebSocket, as a supervisor holds it. */
class WsRpc {
  private nextId = 1;
  private readonly pending = new Map<number, (msg: Json) => void>();
  readonly notifications: Json[] = [];

  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data: Buffer) => {
      const msg = JSON.parse(data.toString()) as Json;
      if (typeof msg.id === "number") {
        this.pending.get(msg.id)?.(msg);
        this.pending.delete(msg.id);
      } else {
        this.notifications.push(msg);
      }
    });
  }

  static open(url: string, token: string): Promise<WsRpc> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
      ws.once("open", () => resolve(new WsRpc(ws)));
      ws.once("error", reject);
      ws.once("unexpected-response", (_q, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
  }

  raw(method: string, params: unknown[] = []): Promise<Json> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  async call(method: string, params: unknown[] = []): Promise<unknown> {
    const r = await this.raw(method, params);
    if (r.error !== undefined) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
    return r.result;
  }

  async error(method: string, params: unknown[] = []): Promise<{ code: number; message: string; data?: unknown }> {
    const r = await this.raw(method, params);
    assert.ok(r.error !== undefined, `${method} should fail, got ${JSON.stringify(r.result)}`);
    return r.error as { code: number; message: string; data?: unknown };
  }

  close(): void {
    this.ws.close();
  }
}

/** The node shell from options without derivation (no `--l1`): it only reads the engine's heads. */
function startShell(argv: readonly string[], cfg: RollupConfig, log: Logger): Promise<RollupNode> {
  const parsed = parseNodeArgs([...argv, "--p2p.disable"], {});
  if (parsed.kind !== "run") throw new Error(JSON.stringify(parsed));
  const withoutL1 = { ...parsed.config, l1: undefined };
  return RollupNode.start(withoutL1, {
    log,
    rollup: nodeRollupConfigOf(cfg),
    version: "test",
    metrics: { recordRpcServerRequest() {}, recordL2Ref() {} },
    setLogLevel: () => null,
    headPollMs: 100,
  });
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, "127.0.0.1");
    sock.once("connect", () => {
      sock.destroy();
      resolve(false);
    });
    sock.once("error", (e: NodeJS.ErrnoException) => resolve(e.code === "ECONNREFUSED"));
  });
}

describe("node: opal-node interop (managed mode over the JWT-authenticated WebSocket RPC)", function () {
  this.timeout(120_000);
  const dir = tempDir("interop");
  let l1Server: RpcHttpServer;
  let exec: ExecNode;
  let node: RollupNode;
  let interopCfg: RollupConfig;
  let elUrl = "";
  let engineUrl = "";
  let wsUrl = "";
  const engineSecret = join(dir.path, "jwt.hex");
  const interopSecretFile = join(dir.path, "interop-jwt.hex");
  let interopSecret: Uint8Array = new Uint8Array();
  const r = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 1, blockTime: 1 });
  const log = recordingLog();
  const token = (iat = Date.now() / 1000, secret = interopSecret) => signJwt(secret, iat);

  before(async () => {
    l1Server = new RpcHttpServer({ addr: "127.0.0.1", port: 0, apis: ["eth"] }, { registry: r.miner.exec.registry });
    const l1Port = (await l1Server.listen()).port;
    const genesisFile = join(dir.path, "l2-genesis.json");
    // Interop (and Karst before it) active from genesis on both layers: the execution client runs
    // Karst's rules (Osaka's EVM, engine_getPayloadV5) from the first block, as the rollup config says.
    const t = r.cfg.genesis.l2Time;
    const l2Config = r.l2Genesis.config as Record<string, unknown>;
    Object.assign(l2Config, { karstTime: t, osakaTime: t, interopTime: t });
    writeFileSync(genesisFile, JSON.stringify(r.l2Genesis));
    const io = { out: () => undefined, err: () => undefined };
    const el = join(dir.path, "el");
    assert.equal(await opalExec(["init", genesisFile, "--datadir", el, "--verbosity", "0"], {}, io), 0);
    writeFileSync(engineSecret, `0x${"44".repeat(32)}`);
    exec = await ExecNode.start(configOf(["--datadir", el, "--authrpc.jwtsecret", engineSecret, "--http"]), {
      print: () => undefined,
    });
    elUrl = `http://127.0.0.1:${exec.httpServer!.address().port}`;
    engineUrl = `http://127.0.0.1:${exec.authServer.address().port}`;
    // No activation block: every block is an Interop block.
    interopCfg = applyForkOverrides(r.cfg, { karst: t, interop: t });
    const rollupFile = join(dir.path, "rollup.json");
    writeFileSync(rollupFile, JSON.stringify(rollupConfigToJson(interopCfg)));
    const depSet = join(dir.path, "depset.json");
    writeFileSync(
      depSet,
      JSON.stringify({
        dependencies: {
          "900": { chainIndex: "900", activationTime: t, historyMinTime: 0 },
          "901": { chainIndex: "901", activationTime: t, historyMinTime: 0 },
        },
      }),
    );
    writeFileSync(interopSecretFile, ""); // empty: the node generates the secret
    node = await startRollupNode(
      [
        `--rollup.config=${rollupFile}`,
        `--l1=http://127.0.0.1:${l1Port}`,
        "--l1.beacon.ignore",
        "--l1.http-poll-interval=200ms",
        `--l2=${engineUrl}`,
        `--l2.jwt-secret=${engineSecret}`,
        "--rpc.addr=127.0.0.1",
        "--rpc.port=0",
        "--sequencer.enabled",
        "--rpc.enable-admin",
        "--sequencer.l1-confs=0",
        `--interop.dependency-set=${depSet}`,
        `--interop.jwt-secret=${interopSecretFile}`,
        "--interop.rpc.addr=127.0.0.1",
        "--interop.rpc.port=0",
      ],
      interopCfg,
      log,
    );
    wsUrl = `ws://127.0.0.1:${node.interop!.address().port}`;
    interopSecret = hexToBytes(readFileSync(interopSecretFile, "utf8").trim());
  });

  after(async () => {
    await node?.stop();
    await exec?.stop();
    await l1Server?.close();
    dir.remove();
  });

  const nodeUrl = () => `http://127.0.0.1:${node.rpcServer.address().port}`;
  const status = () => call(nodeUrl(), "optimism_syncStatus") as Promise<Record<string, Json>>;
  const elBlock = (n: number) =>
    call(elUrl, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false]) as Promise<Json & { hash: string }>;

  it("generates the secret into the empty --interop.jwt-secret file and loads the dependency set", () => {
    assert.match(readFileSync(interopSecretFile, "utf8"), /^0x[0-9a-f]{64}$/);
    assert.ok(log.warnings.some((w) => w.startsWith("Generated a new interop JWT secret")));
    const ds = node.interop!.dependencySet!;
    assert.deepEqual(ds.chains(), [900n, 901n]);
    assert.equal(ds.canExecuteAt(901n, interopCfg.genesis.l2Time), true);
  });

  it("refuses missing, wrong, stale and future tokens at the upgrade, and plain HTTP", async () => {
    assert.deepEqual(await refusedUpgrade(wsUrl, {}), { status: 401, body: "missing token\n" });
    const other = new Uint8Array(32).fill(9);
    assert.deepEqual(await refusedUpgrade(wsUrl, { Authorization: `Bearer ${token(undefined, other)}` }), {
      status: 401,
      body: "signature is invalid\n",
    });
    const now = Date.now() / 1000;
    assert.deepEqual(await refusedUpgrade(wsUrl, { Authorization: `Bearer ${token(now - 120)}` }), {
      status: 401,
      body: "stale token\n",
    });
    assert.deepEqual(await refusedUpgrade(wsUrl, { Authorization: `Bearer ${token(now + 120)}` }), {
      status: 401,
      body: "future token\n",
    });
    // WebSocket only: a JSON-RPC POST is not served, with or without a token.
    const httpUrl = wsUrl.replace("ws://", "http://");
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "interop_chainID", params: [] });
    for (const headers of [
      { "content-type": "application/json" },
      { "content-type": "application/json", authorization: `Bearer ${token()}` },
    ]) {
      const res = await fetch(httpUrl, { method: "POST", headers, body });
      assert.equal(res.status, 404);
      assert.ok(!(await res.text()).includes("result"));
    }
    // A valid token opens the socket and is answered.
    const sup = await WsRpc.open(wsUrl, token());
    try {
      assert.equal(await sup.call("interop_chainID"), "901");
    } finally {
      sup.close();
    }
  });

  it("a supervisor stand-in drives the node: anchor, events, sync reads, heads, reset, provideL1", async () => {
    const sup = await WsRpc.open(wsUrl, token());
    try {
      const l1Genesis = r.miner.refOf(0);
      const genesisL2 = await elBlock(0);
      // Anchor point: the L1 and L2 genesis blocks as eth.BlockRef.
      assert.deepEqual(await sup.call("interop_anchorPoint"), {
        source: {
          hash: bytesToHex(l1Genesis.hash),
          number: 0,
          parentHash: bytesToHex(l1Genesis.parentHash),
          timestamp: l1Genesis.timestamp,
        },
        derived: {
          hash: genesisL2.hash,
          number: 0,
          parentHash: genesisL2.parentHash,
          timestamp: Number(genesisL2.timestamp),
        },
      });

      await waitFor(async () => ((await status()).unsafe_l2!.number as number) >= 4, 30_000, "4 sequenced blocks");
      // Pull events until the queue is empty: every unsafe block in order, one by one.
      const events: Json[] = [];
      for (;;) {
        const reply = await sup.raw("interop_pullEvent");
        if (reply.error !== undefined) {
          assert.deepEqual(reply.error, { code: -39001, message: "out of events" });
          break;
        }
        events.push(reply.result as Json);
      }
      const unsafe = events.filter((e) => e.unsafeBlock !== undefined).map((e) => e.unsafeBlock as Json);
      assert.ok(unsafe.length >= 3, `unsafe block events: ${JSON.stringify(events)}`);
      for (let i = 1; i < unsafe.length; i++) {
        assert.equal(unsafe[i]!.number, (unsafe[i - 1]!.number as number) + 1, "no block skipped");
        assert.equal(unsafe[i]!.parentHash, unsafe[i - 1]!.hash);
      }
      for (const u of unsafe) {
        const b = await elBlock(u.number as number);
        assert.deepEqual(u, {
          hash: b.hash,
          number: u.number,
          parentHash: b.parentHash,
          timestamp: Number(b.timestamp),
        });
      }
      for (const e of events) assert.equal(Object.keys(e).length >= 1, true, "a ManagedEvent has its set fields only");
      // Derivation sits on L1 genesis with no more L1: the local-safe update and exhausted L1.
      const derivation = events.find((e) => e.derivationUpdate !== undefined)?.derivationUpdate as Json | undefined;
      assert.ok(derivation !== undefined, JSON.stringify(events));
      assert.equal((derivation.source as Json).hash, bytesToHex(l1Genesis.hash));
      assert.equal((derivation.derived as Json).hash, genesisL2.hash);
      const exhaust = events.find((e) => e.exhaustL1 !== undefined)?.exhaustL1 as Json | undefined;
      assert.ok(exhaust !== undefined, JSON.stringify(events));
      assert.equal((exhaust.source as Json).number, 0);

      // Sync reads.
      const b2 = await elBlock(2);
      const b3 = await elBlock(3);
      assert.deepEqual(await sup.call("interop_blockRefByNumber", [2]), {
        hash: b2.hash,
        number: 2,
        parentHash: b2.parentHash,
        timestamp: Number(b2.timestamp),
      });
      const t2 = Number(b2.timestamp);
      const ref2 = (await sup.call("interop_l2BlockRefByTimestamp", [t2])) as Json;
      assert.equal(ref2.hash, b2.hash);
      assert.equal(ref2.sequenceNumber, 2);
      assert.deepEqual(ref2.l1origin, { hash: bytesToHex(l1Genesis.hash), number: 0 });
      const before = (await sup.error("interop_l2BlockRefByTimestamp", [interopCfg.genesis.l2Time - 1])).message;
      assert.equal(before, `did not reach genesis time (${interopCfg.genesis.l2Time}) yet`);
      const out = (await sup.call("interop_outputV0AtTimestamp", [t2])) as Record<string, string>;
      const atBlock = (await call(nodeUrl(), "optimism_outputAtBlock", ["0x2"])) as Record<string, string>;
      assert.deepEqual(Object.keys(out), ["StateRoot", "MessagePasserStorageRoot", "BlockHash"]);
      assert.equal(out.StateRoot, b2.stateRoot);
      assert.equal(out.BlockHash, b2.hash);
      const root = keccak256(
        concatBytes(
          new Uint8Array(32),
          hexToBytes(out.StateRoot!),
          hexToBytes(out.MessagePasserStorageRoot!),
          hexToBytes(out.BlockHash!),
        ),
      );
      assert.equal(bytesToHex(root), atBlock.outputRoot, "the output's preimage hashes to the output root");
      assert.deepEqual(await sup.call("interop_pendingOutputV0AtTimestamp", [t2]), out);
      const receipts = (await sup.call("interop_fetchReceipts", [b2.hash])) as Json[];
      assert.equal(receipts.length, (b2.transactions as unknown[]).length);
      assert.equal(receipts[0]!.type, "0x7e", "the L1-attributes deposit");
      assert.equal(receipts[0]!.blockHash, b2.hash);
      assert.equal((await sup.error("interop_blockRefByNumber", ["0x2"])).code, -32602, "uint64 is a JSON number");

      // Cross-unsafe as the supervisor sets it (below the unsafe head).
      assert.equal(await sup.call("interop_updateCrossUnsafe", [{ hash: b2.hash, number: 2 }]), null);
      let s = await status();
      assert.equal(s.cross_unsafe_l2!.hash, b2.hash);
      assert.ok((s.unsafe_l2!.number as number) > 2);
      // Cross-safe and finalized: kept, reported no higher than the local safe head (genesis here).
      const l1g = { hash: bytesToHex(l1Genesis.hash), number: 0 };
      assert.equal(await sup.call("interop_updateCrossSafe", [{ hash: b2.hash, number: 2 }, l1g]), null);
      assert.equal(await sup.call("interop_updateFinalized", [{ hash: b2.hash, number: 2 }]), null);
      s = await status();
      assert.equal(s.local_safe_l2!.hash, genesisL2.hash);
      assert.equal(s.safe_l2!.hash, genesisL2.hash, "cross-safe is never above local-safe");
      assert.equal(s.finalized_l2!.hash, genesisL2.hash);
      assert.equal(node.interop!.managed!.heads.crossSafe?.derived.number, 2);
      assert.equal(node.interop!.managed!.heads.finalized?.number, 2);
      const unknownHash = `0x${"ab".repeat(32)}`;
      assert.match(
        (await sup.error("interop_updateCrossUnsafe", [{ hash: unknownHash, number: 2 }])).message,
        /^failed to get L2BlockRef/,
      );
      assert.match(
        (
          await sup.error("interop_updateCrossSafe", [
            { hash: b2.hash, number: 2 },
            { hash: unknownHash, number: 0 },
          ])
        ).message,
        /^failed to get L1BlockRef/,
      );

      // Reset: targets checked against the chain, then heads set and the pipeline reset.
      const id = (b: { hash: string }, n: number) => ({ hash: b.hash, number: n });
      const conflict = await sup.error("interop_reset", [
        { hash: b2.hash, number: 3 },
        id(genesisL2, 0),
        id(genesisL2, 0),
      ]);
      assert.equal(conflict.code, -39002);
      assert.equal((conflict.data as Json).hash, b3.hash);
      const missing = await sup.error("interop_reset", [
        { hash: b2.hash, number: 1_000_000 },
        id(genesisL2, 0),
        id(genesisL2, 0),
      ]);
      assert.equal(missing.code, -39001);
      // With the sequencer paused, a reset to block 3 rewinds the engine there.
      await call(nodeUrl(), "admin_stopSequencer");
      assert.ok(((await status()).unsafe_l2!.number as number) > 3);
      const resetsBefore = node.derivation!.driver.counters.resets;
      assert.equal(await sup.call("interop_reset", [id(b3, 3), id(genesisL2, 0), id(genesisL2, 0)]), null);
      assert.equal(node.interop!.managed!.heads.crossUnsafe?.number, 3);
      await waitFor(() => node.derivation!.driver.counters.resets > resetsBefore, 20_000, "the pipeline reset");
      const latest = (await call(elUrl, "eth_getBlockByNumber", ["latest", false])) as Json;
      assert.equal(latest.hash, b3.hash, "the engine's head is the reset target");
      await waitFor(async () => (await status()).unsafe_l2!.hash === b3.hash, 10_000, "unsafe_l2 at the target");
      await call(nodeUrl(), "admin_startSequencer", [b3.hash]);
      // The reset comes back as an event (drain until it shows).
      let sawReset = false;
      await waitFor(
        async () => {
          const reply = await sup.raw("interop_pullEvent");
          if (reply.error === undefined && (reply.result as Json).reset !== undefined) sawReset = true;
          return sawReset;
        },
        20_000,
        "the reset event",
      );

      // provideL1: must be on L1 and extend the previous one.
      const l1gRef = { ...l1g, parentHash: bytesToHex(l1Genesis.parentHash), timestamp: l1Genesis.timestamp };
      assert.equal(await sup.call("interop_provideL1", [l1gRef]), null);
      assert.match(
        (await sup.error("interop_provideL1", [{ ...l1gRef, parentHash: unknownHash }])).message,
        /does not match L1/,
      );
      assert.equal(node.interop!.managed!.heads.providedL1?.number, 0);
    } finally {
      sup.close();
    }
  });

  it("pushes events over the events subscription until a pull closes it", async () => {
    const sup = await WsRpc.open(wsUrl, token());
    try {
      const subId = (await sup.call("interop_subscribe", ["events"])) as string;
      assert.match(subId, /^0x[0-9a-f]+$/);
      const from = ((await status()).unsafe_l2!.number as number) + 1;
      await waitFor(
        () =>
          sup.notifications.some((n) => {
            const ev = ((n.params as Json).result as Json).data as Json | null;
            return ev !== null && ev.unsafeBlock !== undefined && ((ev.unsafeBlock as Json).number as number) >= from;
          }),
        20_000,
        "a pushed unsafe block",
      );
      for (const n of sup.notifications) {
        assert.equal(n.method, "interop_subscription");
        assert.equal((n.params as Json).subscription, subId);
      }
      // A pull switches to polling: the subscription is told it is closed.
      await sup.raw("interop_pullEvent");
      await waitFor(
        () => sup.notifications.some((n) => JSON.stringify((n.params as Json).result) === '{"data":null,"close":true}'),
        5_000,
        "the close notification",
      );
    } finally {
      sup.close();
    }
  });

  it("interop_invalidateBlock replaces an unsafe block with its deposits and the optimistic block deposit", async () => {
    const sup = await WsRpc.open(wsUrl, token());
    try {
      const head = (await status()).unsafe_l2!.number as number;
      const n = head - 1;
      const old = (await call(elUrl, "eth_getBlockByNumber", [`0x${n.toString(16)}`, true])) as Json & {
        hash: string;
        transactions: Json[];
      };
      const seal = { Hash: old.hash, Number: n, Timestamp: Number(old.timestamp) };
      // The genesis block has no parent to rebuild on; safe blocks are not replaced.
      const g = await elBlock(0);
      assert.match(
        (await sup.error("interop_invalidateBlock", [{ Hash: g.hash, Number: 0, Timestamp: Number(g.timestamp) }]))
          .message,
        /failed to get parent of invalidated block/,
      );
      const safe = node.derivation!.driver.controller.state.safe;
      await assert.rejects(
        node.derivation!.replaceUnsafeBlock(safe, safe, {} as never),
        /block 0 is at or below the local-safe head 0/,
      );
      assert.match(
        (await sup.error("interop_invalidateBlock", [{ ...seal, Hash: `0x${"cd".repeat(32)}` }])).message,
        /is not the canonical block/,
      );
      assert.equal(await sup.call("interop_invalidateBlock", [seal]), null);
      const now = (await call(elUrl, "eth_getBlockByNumber", [`0x${n.toString(16)}`, true])) as Json & {
        hash: string;
        transactions: Json[];
      };
      assert.notEqual(now.hash, old.hash, "block replaced");
      assert.equal(now.parentHash, old.parentHash);
      assert.equal(now.timestamp, old.timestamp);
      assert.equal(now.mixHash, old.mixHash);
      assert.equal(now.miner, old.miner);
      assert.equal(now.extraData, old.extraData);
      const deposits = old.transactions.filter((t) => t.type === "0x7e");
      assert.equal(now.transactions.length, deposits.length + 1, "the deposits and the optimistic block deposit");
      for (let i = 0; i < deposits.length; i++) assert.equal(now.transactions[i]!.hash, deposits[i]!.hash);
      const last = now.transactions.at(-1)!;
      assert.equal(last.type, "0x7e");
      assert.equal(last.from, "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0002");
      assert.equal(last.to, `0x${"00".repeat(20)}`);
      assert.equal(last.gas, "0x8ca0");
      const preimage = `0x${"00".repeat(32)}${String(old.stateRoot).slice(2)}${String(old.withdrawalsRoot).slice(2)}${old.hash.slice(2)}`;
      assert.equal(last.input, preimage, "the invalidated block's output-root preimage");
      const domain = new Uint8Array(32);
      domain[31] = 4;
      assert.equal(last.sourceHash, bytesToHex(keccak256(concatBytes(domain, keccak256(hexToBytes(preimage))))));
      // The supervisor is told, and the sequencer goes on from the replacement.
      let replaced: Json | undefined;
      await waitFor(
        async () => {
          const reply = await sup.raw("interop_pullEvent");
          if (reply.error === undefined && (reply.result as Json).replaceBlock !== undefined) {
            replaced = (reply.result as Json).replaceBlock as Json;
          }
          return replaced !== undefined;
        },
        10_000,
        "the replaceBlock event",
      );
      assert.equal(replaced!.invalidated, old.hash);
      assert.equal((replaced!.replacement as Json).hash, now.hash);
      await waitFor(
        async () => {
          const next = await call(elUrl, "eth_getBlockByNumber", [`0x${(n + 1).toString(16)}`, false]);
          return next !== null && (next as Json).parentHash === now.hash;
        },
        20_000,
        "a block on top of the replacement",
      );
      assert.equal((await elBlock(n)).hash, now.hash, "the replacement stays canonical");
    } finally {
      sup.close();
    }
  });

  it("on a network without interop nothing starts and every interop option is logged as ignored", async () => {
    const port = await freePort();
    const noInterop = recordingLog();
    const rollupFile = join(dir.path, "rollup-nointerop.json");
    writeFileSync(rollupFile, JSON.stringify(rollupConfigToJson(r.cfg)));
    const badDepSet = join(dir.path, "bad-depset.json");
    writeFileSync(badDepSet, "not json at all");
    const plain = await startShell(
      [
        `--rollup.config=${rollupFile}`,
        `--l2=${engineUrl}`,
        `--l2.jwt-secret=${engineSecret}`,
        "--rpc.addr=127.0.0.1",
        "--rpc.port=0",
        `--interop.dependency-set=${badDepSet}`,
        `--interop.jwt-secret=${join(dir.path, "never-written.hex")}`,
        "--interop.rpc.addr=127.0.0.1",
        `--interop.rpc.port=${port}`,
      ],
      r.cfg,
      noInterop,
    );
    try {
      assert.equal(plain.interop, null);
      for (const opt of ["interop.dependency-set", "interop.jwt-secret", "interop.rpc.addr", "interop.rpc.port"]) {
        assert.ok(
          noInterop.warnings.includes(`--${opt} is ignored: the network has no interop activation time`),
          `${opt}: ${JSON.stringify(noInterop.warnings)}`,
        );
      }
      assert.equal(await connectionRefused(port), true, "no interop server");
      const s = (await call(`http://127.0.0.1:${plain.rpcServer.address().port}`, "optimism_syncStatus")) as Record<
        string,
        Json
      >;
      assert.deepEqual(s.cross_unsafe_l2, s.unsafe_l2);
      assert.deepEqual(s.local_safe_l2, s.safe_l2);
    } finally {
      await plain.stop();
    }
    assert.throws(() => readFileSync(join(dir.path, "never-written.hex")), /ENOENT/);
  });

  it("on an interop network: a secret without the address warns; an address without a secret is ephemeral", async () => {
    const rollupFile = join(dir.path, "rollup-interop3.json");
    writeFileSync(rollupFile, JSON.stringify(rollupConfigToJson(interopCfg)));
    const common = [
      `--rollup.config=${rollupFile}`,
      `--l2=${engineUrl}`,
      `--l2.jwt-secret=${engineSecret}`,
      "--rpc.addr=127.0.0.1",
      "--rpc.port=0",
    ];
    const log1 = recordingLog();
    const secretOnly = await startShell(
      [...common, `--interop.jwt-secret=${join(dir.path, "unused.hex")}`],
      interopCfg,
      log1,
    );
    try {
      assert.equal(secretOnly.interop, null);
      assert.ok(log1.warnings.includes("--interop.jwt-secret is ignored without --interop.rpc.addr"));
    } finally {
      await secretOnly.stop();
    }
    const log2 = recordingLog();
    let port = 0;
    const ephemeral = await startShell(
      [...common, "--interop.rpc.addr=127.0.0.1", "--interop.rpc.port=0"],
      interopCfg,
      log2,
    );
    try {
      assert.ok(log2.warnings.some((w) => w.startsWith("No --interop.jwt-secret given")));
      port = ephemeral.interop!.address().port;
      const url = `ws://127.0.0.1:${port}`;
      const guess = signJwt(new Uint8Array(32), Date.now() / 1000);
      assert.deepEqual(await refusedUpgrade(url, { Authorization: `Bearer ${guess}` }), {
        status: 401,
        body: "signature is invalid\n",
      });
    } finally {
      await ephemeral.stop();
    }
    assert.equal(await connectionRefused(port), true, "the interop server closes with the node");
  });

  it("a malformed dependency set stops an interop node at startup with one line", async () => {
    const rollupFile = join(dir.path, "rollup-interop2.json");
    writeFileSync(rollupFile, JSON.stringify(rollupConfigToJson(interopCfg)));
    const bad = join(dir.path, "bad-index.json");
    writeFileSync(bad, JSON.stringify({ dependencies: { "901": { activationTime: 0 } } }));
    await assert.rejects(
      startShell(
        [
          `--rollup.config=${rollupFile}`,
          `--l2=${engineUrl}`,
          `--l2.jwt-secret=${engineSecret}`,
          "--rpc.addr=127.0.0.1",
          "--rpc.port=0",
          `--interop.dependency-set=${bad}`,
        ],
        interopCfg,
        recordingLog(),
      ),
      (e: unknown) =>
        e instanceof RollupNodeError &&
        e.message === `--interop.dependency-set: ${bad}: dependencies.901.chainIndex: missing`,
    );
  });
});

describe("node: opal-node in managed mode moves the engine's safe and finalized heads only as the supervisor says", function () {
  this.timeout(120_000);
  const dir = tempDir("interop-safety");
  // Interop (and Karst) from genesis in the harness too: its batches are the node's Interop blocks.
  const r = new Rollup({ forks: { karst: 0, interop: 0 } });
  let l1Server: RpcHttpServer;
  let exec: ExecNode;
  let node: RollupNode;
  let elUrl = "";
  let secret: Uint8Array = new Uint8Array();
  const log = recordingLog();

  before(async () => {
    l1Server = new RpcHttpServer({ addr: "127.0.0.1", port: 0, apis: ["eth"] }, { registry: r.miner.exec.registry });
    const l1Port = (await l1Server.listen()).port;
    const genesisFile = join(dir.path, "l2-genesis.json");
    // Interop (and Karst before it) active from genesis on both layers: the execution client runs
    // Karst's rules (Osaka's EVM, engine_getPayloadV5) from the first block, as the rollup config says.
    const t = r.cfg.genesis.l2Time;
    const l2Config = r.l2Genesis.config as Record<string, unknown>;
    Object.assign(l2Config, { karstTime: t, osakaTime: t, interopTime: t });
    writeFileSync(genesisFile, JSON.stringify(r.l2Genesis));
    const el = join(dir.path, "el");
    const io = { out: () => undefined, err: () => undefined };
    assert.equal(await opalExec(["init", genesisFile, "--datadir", el, "--verbosity", "0"], {}, io), 0);
    const engineSecret = join(dir.path, "jwt.hex");
    writeFileSync(engineSecret, `0x${"55".repeat(32)}`);
    exec = await ExecNode.start(configOf(["--datadir", el, "--authrpc.jwtsecret", engineSecret, "--http"]), {
      print: () => undefined,
    });
    elUrl = `http://127.0.0.1:${exec.httpServer!.address().port}`;
    const rollupFile = join(dir.path, "rollup.json");
    writeFileSync(rollupFile, JSON.stringify(rollupConfigToJson(r.cfg)));
    const secretFile = join(dir.path, "interop-jwt.hex");
    writeFileSync(secretFile, `0x${"66".repeat(32)}`);
    secret = hexToBytes(`0x${"66".repeat(32)}`);
    node = await startRollupNode(
      [
        `--rollup.config=${rollupFile}`,
        `--l1=http://127.0.0.1:${l1Port}`,
        "--l1.beacon.ignore",
        "--l1.http-poll-interval=100ms",
        "--l1.epoch-poll-interval=200ms",
        `--l2=http://127.0.0.1:${exec.authServer.address().port}`,
        `--l2.jwt-secret=${engineSecret}`,
        "--rpc.addr=127.0.0.1",
        "--rpc.port=0",
        `--interop.jwt-secret=${secretFile}`,
        "--interop.rpc.addr=127.0.0.1",
        "--interop.rpc.port=0",
      ],
      r.cfg,
      log,
    );
  });

  after(async () => {
    await node?.stop();
    await exec?.stop();
    await l1Server?.close();
    dir.remove();
  });

  const nodeUrl = () => `http://127.0.0.1:${node.rpcServer.address().port}`;
  const status = () => call(nodeUrl(), "optimism_syncStatus") as Promise<Record<string, Json>>;
  /** The execution client's block at a label or number. */
  const el = async (at: "safe" | "finalized" | number) => {
    const b = (await call(elUrl, "eth_getBlockByNumber", [
      typeof at === "number" ? `0x${at.toString(16)}` : at,
      false,
    ])) as Json & { hash: string; number: string };
    return { number: Number(b.number), hash: b.hash };
  };
  const ref = (b: { number: number; hash: string }) => ({ hash: b.hash, number: b.number });

  it("derivation advances local-safe only; updateCrossSafe / updateFinalized set the engine's labels; reset still works", async () => {
    await r.miner.mine();
    while (r.sequencer.unsafe.number < 4) await r.sequencer.buildBlock();
    await r.miner.mine(await r.batcher.batchTxs());
    const l1Batch = r.miner.headRef();
    await waitFor(async () => ((await status()).local_safe_l2!.number as number) >= 4, 30_000, "local-safe at 4");
    const want4 = bytesToHex(r.sequencer.unsafe.hash);
    let s = await status();
    assert.equal(s.local_safe_l2!.hash, want4, "derivation produced the harness's blocks");
    assert.equal(s.unsafe_l2!.number, 4);
    // No cross-safe yet: the engine's safe and finalized heads stay at genesis.
    const genesis = await el(0);
    assert.deepEqual(await el("safe"), genesis, "the engine's safe head waits for the supervisor");
    assert.deepEqual(await el("finalized"), genesis);
    assert.equal(s.safe_l2!.hash, genesis.hash);

    const sup = await WsRpc.open(`ws://127.0.0.1:${node.interop!.address().port}`, signJwt(secret, Date.now() / 1000));
    try {
      const l1Source = { hash: bytesToHex(l1Batch.hash), number: l1Batch.number };
      const b3 = await el(3);
      assert.equal(await sup.call("interop_updateCrossSafe", [ref(b3), l1Source]), null);
      assert.deepEqual(await el("safe"), b3, "eth_getBlockByNumber(safe) is the cross-safe block");
      assert.deepEqual(await el("finalized"), genesis);
      s = await status();
      assert.equal(s.safe_l2!.hash, b3.hash);
      assert.equal(s.local_safe_l2!.hash, want4);
      const b2 = await el(2);
      assert.equal(await sup.call("interop_updateFinalized", [ref(b2)]), null);
      assert.deepEqual(await el("finalized"), b2, "eth_getBlockByNumber(finalized) is the supervisor's");
      assert.equal((await status()).finalized_l2!.hash, b2.hash);

      // L1 finalizes the batch: the node sees it, but Interop blocks are the supervisor's to finalize.
      await r.miner.mine();
      await r.miner.finalize(l1Batch.number);
      await waitFor(
        async () => ((await status()).finalized_l1!.number as number) >= l1Batch.number,
        20_000,
        "the node sees L1 finality",
      );
      await new Promise((res) => setTimeout(res, 500));
      assert.deepEqual(await el("finalized"), b2, "L1 finality does not finalize Interop blocks");
      assert.deepEqual(await el("safe"), b3);

      // interop_reset (five targets) rewinds cross-safe to block 2; derivation re-derives local-safe.
      const resets = node.derivation!.driver.counters.resets;
      const b4 = await el(4);
      assert.equal(await sup.call("interop_reset", [ref(b4), ref(b4), ref(b4), ref(b2), ref(b2)]), null);
      await waitFor(() => node.derivation!.driver.counters.resets > resets, 20_000, "the pipeline reset");
      await waitFor(async () => (await status()).local_safe_l2!.hash === want4, 30_000, "local-safe re-derived");
      assert.deepEqual(await el("safe"), b2, "the reset's cross-safe is the engine's safe head");
      assert.deepEqual(await el("finalized"), b2);
      assert.equal((await status()).safe_l2!.hash, b2.hash);
      // And the supervisor moves it on again.
      assert.equal(await sup.call("interop_updateCrossSafe", [ref(b4), l1Source]), null);
      assert.deepEqual(await el("safe"), b4);
    } finally {
      sup.close();
    }
  });
});
