/**
 * The devnet's configuration: the rollup.json parses with op-node's checks and names both genesis
 * blocks as `opal-exec init` builds them; the L1 genesis holds the portal and system config with
 * their initial values; `--forks` chooses which forks are active at genesis on both layers.
 */
import { strict as assert } from "node:assert";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { DEVNET_SYSTEM_CONFIG, devnetConfig } from "../../../src/node/devnetConfig.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { parseRollupConfig } from "../../../src/rollup/config.js";
import { SYSTEM_CONFIG_RUNTIME_HEX } from "../../../src/rollup/l1Contracts.js";
import { MemoryKv } from "../../../src/storage/memory.js";

describe("node/devnetConfig", () => {
  it("every fork through Jovian at genesis: rollup.json, genesis hashes, L1 contracts", () => {
    const c = devnetConfig({ timestamp: 1_800_000_000, blockTime: 2, upTo: "jovian" });
    const cfg = parseRollupConfig(c.rollup);
    for (const f of [
      "regolith",
      "canyon",
      "delta",
      "ecotone",
      "fjord",
      "granite",
      "holocene",
      "isthmus",
      "jovian",
    ] as const) {
      assert.equal(cfg[`${f}Time`], 0, f);
    }
    assert.equal(cfg.karstTime, null);
    const l2 = c.l2Genesis.config as Record<string, unknown>;
    assert.equal(l2.jovianTime, 0);
    assert.equal(l2.pragueTime, 0);
    for (const [g, want] of [
      [c.l1Genesis, c.l1GenesisHash],
      [c.l2Genesis, c.l2GenesisHash],
    ] as const) {
      const chain = Blockchain.init(new MemoryKv(), parseGenesis(g), g.config as never);
      assert.equal(bytesToHex(chain.headBlockHash), want);
    }
    assert.equal(bytesToHex(cfg.genesis.l1.hash), c.l1GenesisHash);
    assert.equal(bytesToHex(cfg.genesis.l2.hash), c.l2GenesisHash);
    assert.equal(bytesToHex(cfg.genesis.systemConfig.batcherAddr), bytesToHex(c.roles.batcher.address));
    const alloc = c.l1Genesis.alloc as Record<string, { code?: string }>;
    assert.equal(alloc[DEVNET_SYSTEM_CONFIG]?.code?.replace(/^0x/, ""), SYSTEM_CONFIG_RUNTIME_HEX.replace(/^0x/, ""));
  });

  it("--forks=fjord: later forks are not scheduled on either layer; the genesis scalar is pre-Ecotone only before Ecotone", () => {
    const c = devnetConfig({ timestamp: 1_800_000_000, blockTime: 1, upTo: "fjord" });
    const cfg = parseRollupConfig(c.rollup);
    assert.equal(cfg.fjordTime, 0);
    assert.equal(cfg.graniteTime, null);
    assert.equal(cfg.holoceneTime, null);
    assert.equal(cfg.blockTime, 1);
    const l2 = c.l2Genesis.config as Record<string, unknown>;
    assert.equal(l2.holoceneTime, undefined);
    assert.equal(l2.pragueTime, undefined);
    assert.equal(l2.cancunTime, 0);
    assert.equal(c.l2Genesis.extraData, "0x");
    assert.equal(cfg.genesis.systemConfig.scalar[0], 1, "Ecotone is active: versioned scalar");
    const bedrock = parseRollupConfig(devnetConfig({ timestamp: 1_800_000_000, blockTime: 2, upTo: "delta" }).rollup);
    assert.equal(bedrock.genesis.systemConfig.scalar[0], 0);
  });
});
