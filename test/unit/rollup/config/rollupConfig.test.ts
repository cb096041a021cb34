/**
 * rollup/config: every `--network` resolves to a rollup config whose values are re-derived here from
 * the superchain-registry TOML files; rollup.json round trips; op-node's `Config.Check()` errors name
 * the field; fork overrides and activation helpers; the L1 chain config; the bundle is up to date.
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import {
  networksUpToDate,
  registryChainToRollupJson,
  registryConfigsDir,
  renderNetworksModule,
} from "../../../../scripts/bundleNetworks.js";
import { NETWORKS } from "../../../../src/cli/nodeFlags.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { BUNDLED_NETWORKS, canonicalNetworkName, networkRollupConfig } from "../../../../src/rollup/config/network.js";
import {
  applyForkOverrides,
  channelTimeoutAt,
  isForkActivationBlock,
  isForkActive,
  maxSequencerDriftAt,
  ORDER_CHECKED_FORKS,
  parseL1ChainConfig,
  parseRollupConfig,
  ROLLUP_FORKS,
  type RollupConfig,
  RollupConfigError,
  rollupConfigToJson,
} from "../../../../src/rollup/config/rollupConfig.js";
import { ChainConfigError } from "../../../../src/spec/chainConfig.js";

type Toml = Record<string, any>;

function readToml(...parts: string[]): Toml {
  return parseToml(readFileSync(join(registryConfigsDir(), ...parts), "utf8")) as Toml;
}

const lower = (s: string): string => s.toLowerCase();

/**
 * `--network` name → [superchain folder, TOML file] for every chain TOML of the registry folder,
 * named as op-node names them: `<file name>-<folder>` (op-core/superchain chain.go).
 */
const REGISTRY_FILES: ReadonlyMap<string, readonly [string, string]> = new Map(
  readdirSync(registryConfigsDir(), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(registryConfigsDir(), d.name))
        .filter((f) => f.endsWith(".toml") && f !== "superchain.toml")
        .map((f) => [`${f.slice(0, -".toml".length)}-${d.name}`, [d.name, f] as const] as const),
    ),
);

/** The TOML `[hardforks]` key of a rollup fork: Interop is the registry's `lagoon_time` (or pre-rename `interop_time`). */
function tomlForkTime(hf: Toml, fork: string): number | null {
  if (fork === "interop") return hf.lagoon_time ?? hf.interop_time ?? null;
  return hf[`${fork}_time`] ?? null;
}

function mustNetwork(name: string): RollupConfig {
  const cfg = networkRollupConfig(name);
  assert.ok(cfg !== null, `network ${name} does not resolve`);
  return cfg;
}

/** A clone of op-mainnet's rollup.json as a mutable plain object. */
function opMainnetJson(): Record<string, any> {
  return structuredClone(rollupConfigToJson(mustNetwork("op-mainnet"))) as Record<string, any>;
}

function errorOf(fn: () => unknown): RollupConfigError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof RollupConfigError, `expected RollupConfigError, got ${String(e)}`);
    assert.ok(!e.message.includes("\n"), "error message is one line");
    return e;
  }
  assert.fail("expected an error");
}

describe("rollup/config: bundled networks against the superchain-registry TOML", () => {
  it("bundles exactly the registry's chains, by op-node's names; --network adds op-node's legacy names", () => {
    assert.equal(REGISTRY_FILES.size, 55, "53 chains of chainList.json + Base mainnet and Sepolia (SOURCE.md §1)");
    assert.deepEqual([...BUNDLED_NETWORKS], [...REGISTRY_FILES.keys()].sort());
    assert.deepEqual([...NETWORKS], [...BUNDLED_NETWORKS, "mainnet", "sepolia"]);
    for (const n of ["settlus-mainnet-mainnet", "celo-sep-sepolia", "sepolia-devnet-2-sepolia-devnet-2"]) {
      assert.ok(BUNDLED_NETWORKS.includes(n), n);
    }
    assert.equal(networkRollupConfig("op-goerli"), null);
    assert.equal(networkRollupConfig("settlus-mainnet"), null, "the file name alone is not a network name");
    assert.equal(networkRollupConfig("mainnet")?.l2ChainId, 10n);
    assert.equal(networkRollupConfig("sepolia")?.l2ChainId, 11155420n);
    // op-node matches names with strings.EqualFold.
    assert.equal(canonicalNetworkName("OP-Mainnet"), "op-mainnet");
    assert.equal(canonicalNetworkName("Sepolia"), "op-sepolia");
  });

  for (const [name, [folder, file]] of REGISTRY_FILES) {
    it(`${name} matches ${folder}/${file}`, () => {
      const chain = readToml(folder, file);
      const sc = readToml(folder, "superchain.toml");
      const cfg = mustNetwork(name);
      assert.equal(cfg.l2ChainId, BigInt(chain.chain_id));
      assert.equal(cfg.l1ChainId, BigInt(sc.l1.chain_id));
      assert.equal(cfg.blockTime, chain.block_time);
      assert.equal(cfg.seqWindowSize, chain.seq_window_size);
      assert.equal(cfg.maxSequencerDrift, chain.max_sequencer_drift);
      assert.equal(cfg.channelTimeout, 300);
      assert.equal(bytesToHex(cfg.genesis.l1.hash), lower(chain.genesis.l1.hash));
      assert.equal(cfg.genesis.l1.number, chain.genesis.l1.number);
      assert.equal(bytesToHex(cfg.genesis.l2.hash), lower(chain.genesis.l2.hash));
      assert.equal(cfg.genesis.l2.number, chain.genesis.l2.number);
      assert.equal(cfg.genesis.l2Time, chain.genesis.l2_time);
      const sys = chain.genesis.system_config;
      assert.equal(bytesToHex(cfg.genesis.systemConfig.batcherAddr), lower(sys.batcherAddress));
      assert.equal(bytesToHex(cfg.genesis.systemConfig.overhead), lower(sys.overhead));
      assert.equal(bytesToHex(cfg.genesis.systemConfig.scalar), lower(sys.scalar));
      assert.equal(cfg.genesis.systemConfig.gasLimit, BigInt(sys.gasLimit));
      assert.equal(bytesToHex(cfg.batchInboxAddress), lower(chain.batch_inbox_addr));
      assert.equal(bytesToHex(cfg.depositContractAddress), lower(chain.addresses.OptimismPortalProxy));
      assert.equal(bytesToHex(cfg.l1SystemConfigAddress), lower(chain.addresses.SystemConfigProxy));
      assert.equal(cfg.regolithTime, 0);
      // The chain's own [hardforks] only: no superchain-wide default is filled in (registry 2.0).
      for (const f of ROLLUP_FORKS.slice(1)) {
        assert.equal(cfg[`${f}Time`], tomlForkTime(chain.hardforks, f), `${name} ${f}`);
      }
      assert.equal(cfg.pectraBlobScheduleTime, chain.hardforks.pectra_blob_schedule_time ?? null);
      assert.equal(cfg.keepKarstUpgradeGas, chain.hardforks.keep_karst_upgrade_gas === true);
      assert.deepEqual(cfg.chainOpConfig, {
        eip1559Elasticity: chain.optimism.eip1559_elasticity,
        eip1559Denominator: chain.optimism.eip1559_denominator,
        eip1559DenominatorCanyon: chain.optimism.eip1559_denominator_canyon,
      });
      if (chain.alt_da === undefined) assert.equal(cfg.altDa, null);
      else {
        assert.deepEqual(
          {
            addr: bytesToHex(cfg.altDa!.daChallengeAddress),
            type: cfg.altDa!.commitmentType,
            challenge: cfg.altDa!.daChallengeWindow,
            resolve: cfg.altDa!.daResolveWindow,
          },
          {
            addr: lower(chain.alt_da.da_challenge_contract_address),
            type: chain.alt_da.da_commitment_type,
            challenge: chain.alt_da.da_challenge_window,
            resolve: chain.alt_da.da_resolve_window,
          },
        );
      }
      assert.equal(bytesToHex(cfg.protocolVersionsAddress), lower(sc.protocol_versions_addr ?? `0x${"00".repeat(20)}`));
    });
  }

  it("fills in no superchain-wide fork time: the registry writes inherited times into the chain TOMLs", () => {
    // superchain-registry docs/hardfork-activation-inheritance.md: a chain with `superchain_time`
    // receives each superchain fork at or after it, and since registry 2.0 that value is in the chain's
    // own TOML. So every such chain already schedules those forks (same time, or both at/before its
    // genesis, which activate alike) — except Base, whose TOMLs predate Karst and its leaving the
    // registry (SOURCE.md §1) and which op-node would load without Karst as well.
    let checked = 0;
    for (const [name, [folder, file]] of REGISTRY_FILES) {
      const chain = readToml(folder, file);
      if (chain.superchain_time === undefined) continue;
      const sc = readToml(folder, "superchain.toml");
      const genesis = chain.genesis.l2_time as number;
      for (const [key, time] of Object.entries(sc.hardforks as Record<string, number>)) {
        if (time < chain.superchain_time) continue;
        const own = chain.hardforks[key] as number | undefined;
        if (name.startsWith("base-") && key === "karst_time") {
          assert.equal(own, undefined);
          assert.equal(mustNetwork(name).karstTime, null, `${name}: no inherited Karst`);
          continue;
        }
        checked++;
        assert.ok(own === time || (own !== undefined && own <= genesis && time <= genesis), `${name} ${key}`);
      }
    }
    assert.ok(checked > 50, `inherited fork times checked: ${checked}`);
  });

  it("the bundler maps the registry's lagoon_time (and pre-rename interop_time) to interop and refuses unknown keys", () => {
    const sc = readToml("sepolia", "superchain.toml");
    const withFork = (extra: Toml): Toml => {
      const t = readToml("sepolia", "op.toml");
      Object.assign(t.hardforks, extra);
      return t;
    };
    assert.equal(registryChainToRollupJson(withFork({ lagoon_time: 1790000000 }), sc, "x").interop_time, 1790000000);
    assert.equal(registryChainToRollupJson(withFork({ interop_time: 1790000000 }), sc, "x").interop_time, 1790000000);
    assert.throws(
      () => registryChainToRollupJson(withFork({ lagoon_time: 1, interop_time: 2 }), sc, "x"),
      /x: interop_time contradicts another key/,
    );
    assert.throws(
      () => registryChainToRollupJson(withFork({ reef_time: 1790000000 }), sc, "x"),
      /^Error: x: unknown \[hardforks\] key reef_time$/,
    );
  });

  it("celo and boba: what their TOMLs hold and lack", () => {
    const celo = readToml("mainnet", "celo.toml");
    assert.equal(celo.data_availability_type, "alt-da");
    assert.equal(celo.alt_da, undefined, "celo mainnet declares alt-DA but has no [alt_da] section");
    assert.equal(mustNetwork("celo-mainnet").altDa, null);
    assert.equal(mustNetwork("celo-mainnet").genesis.l2.number, celo.genesis.l2.number);
    assert.equal(mustNetwork("celo-sep-sepolia").altDa?.commitmentType, "GenericCommitment");
    for (const f of ["mainnet", "sepolia"]) {
      const boba = readToml(f, "boba.toml");
      assert.equal(typeof boba.optimism.eip1559_denominator_canyon, "number", `boba ${f} has a Canyon denominator`);
      assert.equal(boba.hardforks.isthmus_time, undefined);
    }
    assert.equal(mustNetwork("boba-mainnet").isthmusTime, null);
  });

  it("op-mainnet carries the values op-stack.md §5.2 checked", () => {
    const j = rollupConfigToJson(mustNetwork("op-mainnet")) as Record<string, any>;
    assert.equal(j.genesis.l2.number, 105235063);
    assert.equal(j.genesis.l2_time, 1686068903);
    assert.equal(j.genesis.system_config.batcherAddr, "0x6887246668a3b87f54deb3b94ba47a6f63f32985");
    assert.equal(j.batch_inbox_address, "0xff00000000000000000000000000000000000010");
    assert.equal(j.deposit_contract_address, "0xbeb5fc579115071764c7423a4f12edde41f106ed");
    assert.equal(j.l1_system_config_address, "0x229047fed2591dbec1ef1118d64f7af3db9eb290");
    assert.equal(j.karst_time, 1783526401);
    assert.equal(j.keep_karst_upgrade_gas, true);
  });

  it("src/rollup/config/networks.ts is what scripts/bundleNetworks.ts generates", () => {
    assert.ok(networksUpToDate(), "src/rollup/config/networks.ts is out of date: run npm run bundle:networks");
    assert.match(renderNetworksModule(), /GENERATED FILE.*npm run bundle:networks/);
  });
});

describe("rollup/config: rollup.json round trip", () => {
  for (const name of BUNDLED_NETWORKS) {
    it(`${name}: parse(toJson(x)) equals x, and toJson is stable`, () => {
      const cfg = mustNetwork(name);
      const json = rollupConfigToJson(cfg);
      const again = parseRollupConfig(JSON.parse(JSON.stringify(json)));
      assert.deepEqual(again, cfg);
      assert.deepEqual(rollupConfigToJson(again), json);
    });
  }

  it("keeps optional fields: alt_da, pectra blob schedule, interop, Jovian system config, large values", () => {
    const j = opMainnetJson();
    j.alt_da = {
      da_challenge_contract_address: "0x3333333333333333333333333333333333333333",
      da_commitment_type: "KeccakCommitment",
      da_challenge_window: 160,
      da_resolve_window: 160,
    };
    j.pectra_blob_schedule_time = 1742486400;
    j.interop_time = 1800000000;
    j.granite_channel_timeout = 60;
    j.genesis.system_config.eip1559Params = "0x000000fa00000006";
    j.genesis.system_config.minBaseFee = "18446744073709551615";
    j.genesis.system_config.daFootprintGasScalar = 400;
    j.l2_chain_id = "9007199254740993";
    const cfg = parseRollupConfig(j);
    assert.equal(cfg.genesis.systemConfig.minBaseFee, 2n ** 64n - 1n);
    assert.equal(cfg.l2ChainId, 2n ** 53n + 1n);
    assert.equal(cfg.altDa?.commitmentType, "KeccakCommitment");
    assert.equal(channelTimeoutAt(cfg, cfg.graniteTime!), 60);
    const out = rollupConfigToJson(cfg);
    assert.deepEqual(parseRollupConfig(out), cfg);
    assert.deepEqual(out, j);
  });

  it("reads op-node v1.19's lagoon_time as interop_time; writes interop_time; both must agree", () => {
    const j = opMainnetJson();
    j.lagoon_time = 1800000000;
    const cfg = parseRollupConfig(j);
    assert.equal(cfg.interopTime, 1800000000);
    const out = rollupConfigToJson(cfg);
    assert.equal(out.interop_time, 1800000000);
    assert.equal(out.lagoon_time, undefined);
    j.interop_time = 1800000000;
    assert.equal(parseRollupConfig(j).interopTime, 1800000000);
    j.interop_time = 1800000002;
    assert.match(errorOf(() => parseRollupConfig(j)).message, /^rollup config lagoon_time: 1800000000 differs/);
  });

  it("accepts op-node's older shape (no Holocene+ system config fields) with zero defaults", () => {
    const j = opMainnetJson();
    delete j.genesis.system_config.eip1559Params;
    delete j.genesis.system_config.operatorFeeParams;
    delete j.genesis.system_config.minBaseFee;
    delete j.genesis.system_config.daFootprintGasScalar;
    delete j.protocol_versions_address;
    delete j.chain_op_config;
    const cfg = parseRollupConfig(j);
    assert.deepEqual(cfg.genesis.systemConfig.eip1559Params, new Uint8Array(8));
    assert.equal(cfg.genesis.systemConfig.minBaseFee, 0n);
    assert.equal(cfg.chainOpConfig, null);
  });
});

describe("rollup/config: validation names the field", () => {
  const cases: [string, (j: Record<string, any>) => void, RegExp][] = [
    ["missing block_time", (j) => delete j.block_time, /^rollup config block_time: missing$/],
    ["block_time 0", (j) => (j.block_time = 0), /^rollup config block_time: block time cannot be 0$/],
    ["channel_timeout 0", (j) => (j.channel_timeout = 0), /channel_timeout/],
    ["seq window 1", (j) => (j.seq_window_size = 1), /seq_window_size: .*at least be 2/],
    ["no drift", (j) => delete j.max_sequencer_drift, /max_sequencer_drift/],
    ["missing genesis", (j) => delete j.genesis, /^rollup config genesis: missing$/],
    ["short L1 hash", (j) => (j.genesis.l1.hash = "0x1234"), /genesis\.l1\.hash: expected 32 bytes/],
    ["zero L2 hash", (j) => (j.genesis.l2.hash = `0x${"00".repeat(32)}`), /genesis\.l2\.hash: .*cannot be empty/],
    ["same hashes", (j) => (j.genesis.l2.hash = j.genesis.l1.hash), /genesis\.l2\.hash: .*cannot be the same/],
    ["no l2_time", (j) => (j.genesis.l2_time = 0), /genesis\.l2_time/],
    ["bad batcher", (j) => (j.genesis.system_config.batcherAddr = "0xzz"), /system_config\.batcherAddr: expected 0x/],
    ["zero scalar", (j) => (j.genesis.system_config.scalar = `0x${"00".repeat(32)}`), /system_config\.scalar/],
    ["zero gas limit", (j) => (j.genesis.system_config.gasLimit = 0), /system_config\.gasLimit/],
    ["big u16", (j) => (j.genesis.system_config.daFootprintGasScalar = 65536), /daFootprintGasScalar: above/],
    ["bad inbox", (j) => (j.batch_inbox_address = "0x1234"), /^rollup config batch_inbox_address: expected 20 bytes/],
    ["no 0x", (j) => (j.batch_inbox_address = "ff00000000000000000000000000000000000010"), /batch_inbox_address/],
    [
      "zero deposit",
      (j) => (j.deposit_contract_address = `0x${"00".repeat(20)}`),
      /deposit_contract_address: missing deposit/,
    ],
    ["same chain ids", (j) => (j.l2_chain_id = 1), /l2_chain_id: .*must be different/],
    ["zero L1 chain id", (j) => (j.l1_chain_id = 0), /l1_chain_id: .*positive/],
    ["negative", (j) => (j.seq_window_size = -1), /seq_window_size: expected a non-negative integer/],
    ["string number", (j) => (j.block_time = "2"), /block_time: expected a non-negative integer/],
    [
      "forks out of order",
      (j) => (j.delta_time = j.ecotone_time + 1),
      /^rollup config ecotone_time: fork ecotone set to/,
    ],
    ["fork gap", (j) => delete j.holocene_time, /^rollup config isthmus_time: .*prior fork holocene missing$/],
    ["regolith unset", (j) => delete j.regolith_time, /^rollup config canyon_time: .*prior fork regolith missing$/],
    ["bad commitment", (j) => (j.alt_da = { da_commitment_type: "Foo" }), /alt_da\.da_commitment_type/],
    [
      "keccak without challenge contract",
      (j) => (j.alt_da = { da_commitment_type: "KeccakCommitment" }),
      /alt_da\.da_challenge_contract_address: must be set/,
    ],
    ["zero elasticity", (j) => (j.chain_op_config.eip1559Elasticity = 0), /chain_op_config\.eip1559Elasticity/],
  ];
  for (const [what, mutate, re] of cases) {
    it(what, () => {
      const j = opMainnetJson();
      mutate(j);
      const e = errorOf(() => parseRollupConfig(j));
      assert.match(e.message, re);
    });
  }
  it("checks the fork order through Isthmus only, as op-node's Config.Check", () => {
    assert.deepEqual(
      [...ORDER_CHECKED_FORKS],
      ["regolith", "canyon", "delta", "ecotone", "fjord", "granite", "holocene", "isthmus"],
    );
    const j = opMainnetJson();
    delete j.jovian_time; // Karst without Jovian, Interop before Karst: op-node accepts both
    j.interop_time = j.karst_time - 100;
    const cfg = parseRollupConfig(j);
    assert.equal(cfg.jovianTime, null);
    assert.equal(cfg.interopTime, j.karst_time - 100);
  });
  it("refuses a non-object", () => {
    assert.equal(errorOf(() => parseRollupConfig([])).field, "(root)");
  });
});

describe("rollup/config: forks", () => {
  const cfg = mustNetwork("op-mainnet");

  it("isForkActive follows timestamp >= time; unset forks are never active", () => {
    assert.ok(!isForkActive(cfg, "ecotone", 1710374400));
    assert.ok(isForkActive(cfg, "ecotone", 1710374401));
    assert.ok(isForkActive(cfg, "regolith", 0));
    assert.ok(!isForkActive(cfg, "interop", Number.MAX_SAFE_INTEGER));
    assert.ok(!isForkActive(cfg, "pectraBlobSchedule", Number.MAX_SAFE_INTEGER));
  });

  it("activation block: first block with ts >= fork and ts - block_time < fork; none at genesis", () => {
    assert.ok(isForkActivationBlock(cfg, "ecotone", 1710374401));
    assert.ok(isForkActivationBlock(cfg, "ecotone", 1710374402));
    assert.ok(!isForkActivationBlock(cfg, "ecotone", 1710374403));
    assert.ok(!isForkActivationBlock(cfg, "ecotone", 1710374400));
    const uni = mustNetwork("unichain-mainnet");
    assert.ok(!isForkActivationBlock(uni, "ecotone", 0));
    assert.ok(!isForkActivationBlock(uni, "ecotone", uni.genesis.l2Time));
  });

  it("channel timeout and max drift follow Granite and Fjord", () => {
    assert.equal(channelTimeoutAt(cfg, cfg.graniteTime! - 1), 300);
    assert.equal(channelTimeoutAt(cfg, cfg.graniteTime!), 50);
    assert.equal(maxSequencerDriftAt(cfg, cfg.fjordTime! - 1), 600);
    assert.equal(maxSequencerDriftAt(cfg, cfg.fjordTime!), 1800);
  });

  it("--override.interop and --override.karst set only their fork, with or without a Karst time", () => {
    // base-mainnet: Jovian, no Karst. boba-mainnet: no Isthmus, Jovian or Karst.
    for (const name of ["base-mainnet", "boba-mainnet", "op-mainnet"]) {
      const c = mustNetwork(name);
      const over = applyForkOverrides(c, { interop: 1900000000 });
      assert.equal(over.interopTime, 1900000000, name);
      assert.equal(over.karstTime, c.karstTime, `${name}: Karst left as it was`);
      assert.equal(over.jovianTime, c.jovianTime, `${name}: Jovian left as it was`);
      const karst = applyForkOverrides(c, { karst: 1900000000 });
      assert.equal(karst.karstTime, 1900000000, name);
      assert.equal(karst.isthmusTime, c.isthmusTime, name);
    }
    // op-sepolia has Karst at 1781712001; an earlier Interop is not refused either (no order check past Isthmus).
    assert.equal(applyForkOverrides(mustNetwork("op-sepolia"), { interop: 1781712000 }).interopTime, 1781712000);
  });

  it("applyForkOverrides replaces the given times and re-checks the order", () => {
    const over = applyForkOverrides(cfg, { jovian: 1770000000, interop: 1900000000, pectraBlobSchedule: 5 });
    assert.equal(over.jovianTime, 1770000000);
    assert.equal(over.interopTime, 1900000000);
    assert.equal(over.pectraBlobScheduleTime, 5);
    assert.equal(over.isthmusTime, cfg.isthmusTime);
    assert.equal(cfg.jovianTime, 1764691201, "the input is not modified");
    assert.ok(Object.isFrozen(over));
    assert.equal(rollupConfigToJson(over).interop_time, 1900000000);
    const e = errorOf(() => applyForkOverrides(cfg, { holocene: 1800000000 }));
    assert.match(e.message, /^rollup config isthmus_time: fork isthmus set to 1746806401, but prior fork holocene/);
    assert.equal(errorOf(() => applyForkOverrides(cfg, { canyon: -1 })).field, "override.canyon");
  });
});

describe("rollup/config: --rollup.l1-chain-config", () => {
  const config = {
    chainId: 11155111,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    terminalTotalDifficulty: 0,
    shanghaiTime: 1677557088,
    cancunTime: 1706655072,
    pragueTime: 1741159776,
  };

  it("reads the direct form and the genesis form", () => {
    const direct = parseL1ChainConfig(config, 11155111n);
    const genesis = parseL1ChainConfig({ config, alloc: {}, gasLimit: "0x1c9c380" }, 11155111n);
    assert.deepEqual(direct, genesis);
    assert.equal(direct.cancunTime, 1706655072);
    assert.equal(direct.optimism, null);
    assert.equal(direct.blobSchedule.prague?.max, 9);
  });

  it("names the field on errors", () => {
    assert.throws(() => parseL1ChainConfig({ config: { homesteadBlock: 0 } }), ChainConfigError);
    assert.match(errorOf(() => parseL1ChainConfig(config, 1n)).message, /^rollup config l1_chain_id: /);
  });
});
