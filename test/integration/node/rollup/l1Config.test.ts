/**
 * opal-node checks its rollup config against L1 before deriving (op-node `ValidateL1Config`): the
 * L1 endpoint's chain id and L1's block at `genesis.l1.number`. A wrong `genesis.l1.hash`, a
 * `genesis.l1.number` L1 does not have, or another chain's endpoint fail the start with op-node's
 * words and what they mean, instead of retrying "failed to find the pipeline reset base" forever;
 * an L1 that does not answer at start is checked again while the node runs, and a wrong config then
 * halts the node.
 */
import { strict as assert } from "node:assert";
import { parseNodeArgs } from "../../../../src/cli/nodeFlags.js";
import { DerivationService, DerivationStartError } from "../../../../src/node/rollup/derivationService.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import type { RollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import { EngineClient } from "../../../../src/rollup/engine/engineClient.js";
import { RpcHttpServer } from "../../../../src/rpc/httpServer.js";
import { SILENT_LOGGER } from "../../../../src/util/log.js";
import { type Rollup, servedRollup } from "../../../utils/actions/rollup.js";
import { InProcessExec } from "../../../utils/inProcessExec.js";

describe("node/rollup: the rollup config checked against L1 at start", function () {
  this.timeout(60_000);
  let r: Rollup;
  let l1: RpcHttpServer;
  let l1Url = "";

  before(async () => {
    ({ r, l1, url: l1Url } = await servedRollup());
    await r.miner.mine([]);
  });

  after(async () => {
    await l1.close();
  });

  function start(cfg: RollupConfig, url = l1Url, onHalt?: (reason: string) => void): Promise<DerivationService> {
    const parsed = parseNodeArgs(
      ["--network=op-sepolia", "--l2=http://127.0.0.1:1", `--l1=${url}`, "--l1.beacon.ignore"],
      {},
    );
    if (parsed.kind !== "run") throw new Error(JSON.stringify(parsed));
    const exec = InProcessExec.create(r.l2Genesis);
    return DerivationService.start(parsed.config, {
      cfg,
      engine: new EngineClient(exec.rpc, cfg),
      log: SILENT_LOGGER,
      l1Chain: null,
      safeDb: null,
      ...(onHalt === undefined ? {} : { onHalt }),
    });
  }

  const withGenesisL1 = (hash: Uint8Array, number: number): RollupConfig => ({
    ...r.cfg,
    genesis: { ...r.cfg.genesis, l1: { hash, number } },
  });

  it("the right config starts", async () => {
    const svc = await start(r.cfg);
    await svc.stop();
  });

  it("a wrong genesis.l1.hash fails the start: L1's hash, the configured one, and that it is not on the L1 chain", async () => {
    const wrong = new Uint8Array(32).fill(0xab);
    const real = bytesToHex(r.cfg.genesis.l1.hash);
    await assert.rejects(start(withGenesisL1(wrong, 0)), (e: unknown) => {
      assert.ok(e instanceof DerivationStartError);
      assert.equal(
        e.message,
        `incorrect L1 genesis block hash ${real}, expected ${bytesToHex(wrong)}: the rollup config's genesis.l1 (block 0, hash ${bytesToHex(wrong)}) is not on the L1 chain`,
      );
      return true;
    });
  });

  it("a genesis.l1.number beyond L1's head fails the start likewise", async () => {
    const n = r.miner.exec.chain.head.number + 100;
    await assert.rejects(start(withGenesisL1(r.cfg.genesis.l1.hash, n)), (e: unknown) => {
      assert.ok(e instanceof DerivationStartError);
      assert.match(
        e.message,
        new RegExp(`^failed to get L1 genesis blockhash: .*genesis\\.l1 \\(block ${n}, .*is not on the L1 chain$`),
      );
      return true;
    });
  });

  it("an endpoint of another chain fails the start with op-node's text", async () => {
    await assert.rejects(start({ ...r.cfg, l1ChainId: r.cfg.l1ChainId + 1n }), {
      name: "DerivationStartError",
      message: `incorrect L1 RPC chain id ${r.cfg.l1ChainId}, expected ${r.cfg.l1ChainId + 1n}`,
    });
  });

  it("an L1 that does not answer at start: the node starts, and once L1 answers a wrong config halts it", async function () {
    this.timeout(30_000);
    // A proxy that refuses until it is opened, then forwards to the L1.
    let open = false;
    const gate = new RpcHttpServer(
      {
        addr: "127.0.0.1",
        port: 0,
        apis: ["eth"],
        beforeRequest: () => (open ? null : { status: 503, body: "not yet" }),
      },
      { registry: r.miner.exec.registry },
    );
    const url = `http://127.0.0.1:${(await gate.listen()).port}`;
    let halted: string | null = null;
    const svc = await start(withGenesisL1(new Uint8Array(32).fill(0xcd), 0), url, (reason) => {
      halted = reason;
    });
    try {
      assert.equal(halted, null);
      open = true;
      const deadline = Date.now() + 15_000;
      while (halted === null && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
      assert.match(String(halted), /^incorrect L1 genesis block hash .* is not on the L1 chain$/);
    } finally {
      await svc.stop();
      await gate.close();
    }
  });
});
