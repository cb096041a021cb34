/**
 * The rollup node's served surfaces against a real execution client: an OP dev chain in opal-exec
 * (genesis → init → --dev) is the node's `--l2`, reached with the JWT secret file the two share.
 * Checks op-node's JSON shapes for optimism_syncStatus / outputAtBlock / rollupConfig / version,
 * `GET /healthz`, admin methods refused (-32601) without --rpc.enable-admin, the stopped → running
 * → stopped moves over RPC, their persistence across a restart, and a port in use as one line.
 */
import { strict as assert } from "node:assert";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { main as opalExec } from "../../../../src/cli/opalExec.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { blockToPayload } from "../../../../src/engine/payload.js";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import {
  type NodeRollupConfig,
  nodeRollupConfigOf,
  RollupNode,
  type RollupNodeConfig,
  RollupNodeError,
  type ShellMetrics,
} from "../../../../src/node/rollup/rollupNode.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { parseRollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import type { Logger } from "../../../../src/util/log.js";
import { rpc } from "../../../utils/jsonRpc.js";
import { configOf, tempDir, waitFor } from "../../../utils/node.js";

const quietLog: Logger = { error() {}, warn() {}, info() {}, debug() {} };

function recordingMetrics(): ShellMetrics & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    recordRpcServerRequest: (m) => calls.push(m),
    recordL2Ref: () => undefined,
  };
}

describe("node/rollupNode: RPC, admin API and sequencer state against opal-exec", function () {
  this.timeout(120_000);
  const dir = tempDir("rollupnode");
  let exec: ExecNode;
  let engineUrl = "";
  let rollup: NodeRollupConfig;
  const secretFile = join(dir.path, "jwt.hex");

  before(async () => {
    const io = { out: () => undefined, err: () => undefined };
    const genesisFile = join(dir.path, "genesis.json");
    assert.equal(await opalExec(["genesis", "--chainid", "901", "--out", genesisFile], {}, io), 0);
    const el = join(dir.path, "el");
    assert.equal(await opalExec(["init", genesisFile, "--datadir", el, "--verbosity", "0"], {}, io), 0);
    // The two share the secret file, as an operator sets them up; the EL seals a block a second.
    writeFileSync(secretFile, `0x${"11".repeat(32)}`);
    exec = await ExecNode.start(
      configOf(["--dev", "--dev.period", "1", "--datadir", el, "--http", "--authrpc.jwtsecret", secretFile]),
      {
        print: () => undefined,
      },
    );
    engineUrl = `http://127.0.0.1:${exec.authServer.address().port}`;
    const genesis = exec.chain.store.header(exec.chain.store.canonicalHash(0)!)!;
    const z = (n: number) => `0x${String(n).padStart(40, "0")}`;
    const json = {
      genesis: {
        l1: { hash: `0x${"07".repeat(32)}`, number: 100 },
        l2: { hash: bytesToHex(exec.chain.store.canonicalHash(0)!), number: 0 },
        l2_time: genesis.timestamp,
        system_config: {
          batcherAddr: z(1),
          overhead: `0x${"00".repeat(32)}`,
          scalar: `0x01${"00".repeat(23)}000c5fc500000558`,
          gasLimit: 30_000_000,
        },
      },
      block_time: 2,
      max_sequencer_drift: 600,
      seq_window_size: 3600,
      channel_timeout: 300,
      l1_chain_id: 900,
      l2_chain_id: 901,
      regolith_time: 0,
      canyon_time: 0,
      delta_time: 0,
      ecotone_time: 0,
      fjord_time: 0,
      granite_time: 0,
      holocene_time: 0,
      isthmus_time: 0,
      batch_inbox_address: z(0xff),
      deposit_contract_address: z(2),
      l1_system_config_address: z(3),
    };
    rollup = nodeRollupConfigOf(parseRollupConfig(json));
  });

  after(async () => {
    await exec.stop();
    dir.remove();
  });

  const base = (over: Partial<RollupNodeConfig> = {}): RollupNodeConfig => ({
    "rpc.addr": "127.0.0.1",
    "rpc.port": 0,
    "rpc.enable-admin": false,
    "rpc.admin-state": undefined,
    l2: [engineUrl],
    "l2.jwt-secret": secretFile,
    "l2.engine-rpc-timeout": 5000,
    "sequencer.enabled": false,
    "sequencer.stopped": false,
    "sequencer.recover": false,
    "conductor.enabled": false,
    "safedb.path": undefined,
    ...over,
  });

  const start = (over: Partial<RollupNodeConfig> = {}, metrics = recordingMetrics()) =>
    RollupNode.start(base(over), {
      log: quietLog,
      rollup,
      version: "v0.1.0-opal",
      metrics,
      setLogLevel: (l) => (l === "info" ? null : `unknown level ${l}`),
      headPollMs: 100,
    });

  const urlOf = (n: RollupNode) => `http://127.0.0.1:${n.rpcServer.address().port}`;

  it("optimism_* answer with op-node's shapes; /healthz; admin refused without --rpc.enable-admin", async () => {
    const metrics = recordingMetrics();
    const node = await start({}, metrics);
    try {
      const url = urlOf(node);
      await waitFor(() => node.syncStatus.unsafeL2.number >= 1, 20_000, "the unsafe head from the engine");
      const status = (await rpc(url, "optimism_syncStatus")).json?.result as Record<string, Record<string, unknown>>;
      assert.deepEqual(Object.keys(status).sort(), [
        "cross_unsafe_l2",
        "current_l1",
        "current_l1_finalized",
        "finalized_l1",
        "finalized_l2",
        "head_l1",
        "local_safe_l2",
        "pending_safe_l2",
        "safe_l1",
        "safe_l2",
        "unsafe_l2",
      ]);
      const unsafe = status.unsafe_l2!;
      assert.equal(typeof unsafe.number, "number");
      assert.equal(typeof unsafe.timestamp, "number");
      assert.equal(typeof unsafe.sequenceNumber, "number");
      assert.deepEqual(Object.keys(unsafe).sort(), [
        "hash",
        "l1origin",
        "number",
        "parentHash",
        "sequenceNumber",
        "timestamp",
      ]);
      const head = exec.chain.head;
      assert.equal(unsafe.number, head.number);
      assert.equal(unsafe.hash, bytesToHex(exec.chain.headBlockHash));
      // The dev sealer's synthetic L1 origin is numbered like the block.
      assert.equal((unsafe.l1origin as { number: number }).number, head.number);

      const out = (await rpc(url, "optimism_outputAtBlock", ["0x1"])).json?.result as Record<string, unknown>;
      const proof = (
        await rpc(`http://127.0.0.1:${exec.httpServer?.address().port}`, "eth_getProof", [
          "0x4200000000000000000000000000000000000016",
          [],
          "0x1",
        ])
      ).json?.result as { storageHash: string };
      const block1 = exec.chain.store.header(exec.chain.store.canonicalHash(1)!)!;
      const want = keccak256(
        new Uint8Array([
          ...new Uint8Array(32),
          ...block1.stateRoot,
          ...hexToBytes(proof.storageHash),
          ...exec.chain.store.canonicalHash(1)!,
        ]),
      );
      assert.equal(out.version, `0x${"00".repeat(32)}`);
      assert.equal(out.outputRoot, bytesToHex(want));
      assert.equal(out.withdrawalStorageRoot, proof.storageHash);
      assert.equal(out.stateRoot, bytesToHex(block1.stateRoot));
      assert.ok(out.syncStatus !== undefined && out.blockRef !== undefined);

      const served = (await rpc(url, "optimism_rollupConfig")).json?.result as Record<string, unknown>;
      assert.deepEqual(served, JSON.parse(JSON.stringify(rollup.json)));
      assert.equal(served.l2_chain_id, 901);
      assert.equal(served.block_time, 2);
      assert.equal((await rpc(url, "optimism_version")).json?.result, "v0.1.0-opal");
      const noDb = (await rpc(url, "optimism_safeHeadAtL1Block", ["0x1"])).json?.error;
      assert.deepEqual(noDb, { code: -32000, message: "safe head database not enabled" });
      const missing = (await rpc(url, "optimism_outputAtBlock", ["0xffff"])).json?.error;
      assert.equal(missing?.code, -32000);

      const hz = await fetch(`${url}/healthz`);
      assert.equal(hz.status, 200);
      assert.equal(await hz.text(), "v0.1.0-opal");

      // Without P2P (the helper's default) the opp2p namespace is not served, as in op-node.
      for (const m of ["admin_sequencerActive", "admin_startSequencer", "admin_setLogLevel", "opp2p_self"]) {
        assert.equal((await rpc(url, m, [])).json?.error?.code, -32601, m);
      }
      assert.ok(metrics.calls.includes("optimism_syncStatus"));
    } finally {
      await node.stop();
    }
  });

  it("--sequencer.stopped with the admin API: start needs the unsafe head; the state survives a restart", async () => {
    const state = join(dir.path, "admin", "state.json");
    const cfg = {
      "safedb.path": join(dir.path, "safedb"),
      "rpc.enable-admin": true,
      "rpc.admin-state": state,
      "sequencer.enabled": true,
      "sequencer.stopped": true,
    };
    let node = await start(cfg);
    try {
      const url = urlOf(node);
      assert.equal((await rpc(url, "admin_sequencerActive")).json?.result, false);
      const wrong = (await rpc(url, "admin_startSequencer", [`0x${"00".repeat(32)}`])).json?.error;
      assert.match(wrong?.message ?? "", /^block hash does not match: head 0x[0-9a-f]{64}, received 0x0{64}$/);
      const head = bytesToHex(node.syncStatus.unsafeL2.hash);
      assert.equal((await rpc(url, "admin_startSequencer", [head])).json?.result, null);
      assert.equal((await rpc(url, "admin_sequencerActive")).json?.result, true);
      assert.deepEqual((await rpc(url, "admin_startSequencer", [head])).json?.error, {
        code: -32000,
        message: "sequencer already running",
      });
      assert.equal((await rpc(url, "admin_setLogLevel", ["info"])).json?.result, null);
      assert.equal((await rpc(url, "admin_setLogLevel", ["loud"])).json?.error?.code, -32000);

      assert.deepEqual((await rpc(url, "admin_resetDerivationPipeline")).json?.error, {
        code: -32000,
        message: "derivation pipeline is not running",
      });
      assert.equal((await rpc(url, "admin_setRecoverMode", [true])).json?.result, null);
      assert.equal(node.sequencer.recoverMode, true);
      assert.equal((await rpc(url, "admin_conductorEnabled")).json?.result, false);
      assert.equal((await rpc(url, "admin_overrideLeader")).json?.result, null);

      // --safedb.path: empty until the derivation records a safe head, then op-node's shape.
      assert.deepEqual((await rpc(url, "optimism_safeHeadAtL1Block", ["0x10"])).json?.error, {
        code: -32000,
        message: "not found",
      });
      node.safeDb!.safeHeadUpdated(
        { hash: new Uint8Array(32).fill(2), number: 7 },
        { hash: new Uint8Array(32).fill(1), number: 16 },
      );
      assert.deepEqual((await rpc(url, "optimism_safeHeadAtL1Block", ["0x20"])).json?.result, {
        l1Block: { hash: `0x${"01".repeat(32)}`, number: 16 },
        safeHead: { hash: `0x${"02".repeat(32)}`, number: 7 },
      });

      // admin_postUnsafePayload: the block hash is recomputed; a good payload becomes the unsafe head.
      const hash = exec.chain.headBlockHash;
      const header = exec.chain.store.header(hash)!;
      const body = exec.chain.store.body(hash)!;
      const envelope = {
        executionPayload: blockToPayload(header, body, hash, 4, true),
        parentBeaconBlockRoot: bytesToHex(header.parentBeaconBlockRoot!),
      };
      const tampered = { ...envelope, executionPayload: { ...envelope.executionPayload, gasUsed: "0x1" } };
      const bad = (await rpc(url, "admin_postUnsafePayload", [tampered])).json?.error;
      assert.equal(bad?.code, -32000);
      assert.match(bad?.message ?? "", /^payload has bad block hash: claimed 0x[0-9a-f]{64}, actual 0x[0-9a-f]{64}$/);
      assert.equal((await rpc(url, "admin_postUnsafePayload", [envelope])).json?.result, null);
      assert.equal(node.syncStatus.unsafeL2.number >= header.number, true);
    } finally {
      await node.stop();
    }
    // Restarted with --sequencer.stopped=true, the stored "started" wins.
    node = await start(cfg);
    try {
      const url = urlOf(node);
      assert.equal((await rpc(url, "admin_sequencerActive")).json?.result, true);
      const stopped = (await rpc(url, "admin_stopSequencer")).json?.result;
      assert.equal(stopped, bytesToHex(node.syncStatus.unsafeL2.hash));
      assert.equal((await rpc(url, "admin_sequencerActive")).json?.result, false);
    } finally {
      await node.stop();
    }
  });

  it("a port in use, a missing secret file name: one line, nothing left running", async () => {
    const blocker = createServer();
    await new Promise<void>((res) => blocker.listen(0, "127.0.0.1", () => res()));
    const port = (blocker.address() as { port: number }).port;
    try {
      await assert.rejects(start({ "rpc.port": port }), (e: unknown) => {
        assert.ok(e instanceof RollupNodeError);
        assert.equal(e.message, `RPC server: 127.0.0.1:${port} is already in use`);
        return true;
      });
    } finally {
      blocker.close();
    }
    await assert.rejects(start({ "l2.jwt-secret": undefined }), /--l2.jwt-secret: file-name of jwt secret is empty/);
  });
});
