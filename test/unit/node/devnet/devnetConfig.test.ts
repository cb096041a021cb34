/**
 * The devnet's configuration: the rollup.json parses with op-node's checks and names both genesis
 * blocks as `opal-exec init` builds them; the L1 genesis holds the portal and system config with
 * their initial values; `--forks` chooses which forks are active at genesis on both layers.
 */
import { strict as assert } from "node:assert";
import { Blockchain } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { main as devnetMain } from "../../../../src/cli/opalDevnet.js";
import { EXIT_USAGE, type Io } from "../../../../src/cli/processIo.js";
import { DEVNET_SYSTEM_CONFIG, devnetConfig, devnetForkOffsets } from "../../../../src/node/devnet/devnetConfig.js";
import { SYSTEM_CONFIG_RUNTIME_HEX } from "../../../../src/node/devnet/l1Contracts.js";
import { OP_GENESIS_PREDEPLOYS, OP_GENESIS_PREINSTALLS } from "../../../../src/node/exec/opGenesisAlloc.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { parseRollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import { MemoryKv } from "../../../../src/storage/memory.js";

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

  it("the L2 genesis is a full OP chain: every predeploy behind its proxy and every preinstall, the ProxyAdmin owned by the owner role", () => {
    const c = devnetConfig({ timestamp: 1_800_000_000, blockTime: 2, upTo: "jovian" });
    const alloc = c.l2Genesis.alloc as Record<string, { code?: string; storage?: Record<string, string> }>;
    const owner = BigInt(bytesToHex(c.roles.owner.address));
    for (const p of [...OP_GENESIS_PREDEPLOYS, ...OP_GENESIS_PREINSTALLS]) {
      assert.ok((alloc[p.address]?.code ?? "0x").length > 2, `${p.name} code at ${p.address}`);
      if (p.proxy !== null) {
        const impl = alloc[p.proxy]?.storage?.["0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc"];
        assert.equal(impl, p.address, `${p.name} proxy ${p.proxy} → ${p.address}`);
      }
    }
    const proxyAdmin = alloc["0x4200000000000000000000000000000000000018"]!.storage!;
    assert.equal(BigInt(proxyAdmin["0x0"]!), owner, "ProxyAdmin owner: the owner role");
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

describe("node/devnetConfig --activate", () => {
  const T = 1_800_000_000;

  it("--forks jovian --activate karst=24: Karst (and Osaka on L2) at genesis + 24 s on both layers, Jovian at genesis", () => {
    const c = devnetConfig({ timestamp: T, blockTime: 2, upTo: "jovian", activate: { karst: 24 } });
    const cfg = parseRollupConfig(c.rollup);
    assert.equal(cfg.jovianTime, 0);
    assert.equal(cfg.karstTime, T + 24);
    assert.equal(cfg.interopTime, null);
    const l2 = c.l2Genesis.config as Record<string, unknown>;
    assert.equal(l2.jovianTime, 0);
    assert.equal(l2.karstTime, T + 24);
    // op-reth's superchain loader: "Osaka activates with Karst".
    assert.equal(l2.osakaTime, T + 24);
    assert.equal(l2.pragueTime, 0);
    const chain = Blockchain.init(new MemoryKv(), parseGenesis(c.l2Genesis), c.l2Genesis.config as never);
    assert.equal(bytesToHex(chain.headBlockHash), c.l2GenesisHash);
  });

  it("an unnamed fork between --forks and an activated one activates with it", () => {
    const c = devnetConfig({ timestamp: T, blockTime: 2, upTo: "holocene", activate: { jovian: 10, karst: 30 } });
    const cfg = parseRollupConfig(c.rollup);
    assert.equal(cfg.holoceneTime, 0);
    assert.equal(cfg.isthmusTime, T + 10, "isthmus fills in with jovian");
    assert.equal(cfg.jovianTime, T + 10);
    assert.equal(cfg.karstTime, T + 30);
    const l2 = c.l2Genesis.config as Record<string, unknown>;
    assert.equal(l2.pragueTime, T + 10, "Prague pinned to Isthmus");
    assert.equal(l2.osakaTime, T + 30, "Osaka pinned to Karst");
    assert.notEqual(c.l2Genesis.extraData, "0x", "Holocene at genesis: EIP-1559 params in extraData");
  });

  it("refuses forks already active, unknown, out of order, or at 0 s", () => {
    assert.throws(() => devnetForkOffsets("jovian", { jovian: 10 }), /already active at genesis/);
    assert.throws(() => devnetForkOffsets("jovian", { interop: 10 }), /not a devnet fork/);
    assert.throws(() => devnetForkOffsets("isthmus", { jovian: 30, karst: 20 }), /forks activate in order/);
    assert.throws(() => devnetForkOffsets("jovian", { karst: 0 }), /seconds ≥ 1/);
    const ok = devnetForkOffsets("isthmus", { karst: 20 });
    assert.equal(ok.get("isthmus"), 0);
    assert.equal(ok.get("jovian"), 20);
    assert.equal(ok.get("karst"), 20);
  });

  it("opal-devnet refuses a bad --activate with a one-line usage error before starting anything", async () => {
    for (const [argv, want] of [
      [["--activate", "karst"], /want <fork>=<seconds>/],
      [["--activate", "karst=soon"], /whole number of seconds/],
      [["--activate", "jovian=10"], /already active at genesis/],
      [["--forks", "isthmus", "--activate", "karst=10", "--activate", "karst=12"], /given twice/],
    ] as const) {
      const err: string[] = [];
      const io: Io = { out: () => {}, err: (l) => err.push(l) };
      const code = await devnetMain([...argv, "--datadir", "/nonexistent/opal-devnet-never-written"], io);
      assert.equal(code, EXIT_USAGE, argv.join(" "));
      assert.equal(err.length, 1);
      assert.match(err[0]!, want);
      assert.ok(!err[0]!.includes("\n"));
    }
  });
});
