/**
 * spec/chainConfig against the configs in ../shared: the superchain-registry chain TOMLs (turned into
 * op-geth genesis configs the way op-geth's `LoadOPStackChainConfig` does), the registry genesis
 * files, the bench workloads' `genesis.config` and the execution-apis test chain's genesis.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { bytesToHex } from "../../../src/primitives/hex.js";
import {
  blobParamsAt,
  type ChainConfig,
  ChainConfigError,
  DEFAULT_CANCUN_BLOB_PARAMS,
  DEFAULT_PRAGUE_BLOB_PARAMS,
  isLondon,
  parseChainConfig,
  rulesAt,
} from "../../../src/spec/chainConfig.js";
import { Fork, OpFork, opRules } from "../../../src/spec/forks.js";
import { fixturePath, listFiles, REPO_ROOT, readJson } from "../../utils/fixtures.js";
import { OP_FORK_KEYS, opGethConfig, readToml, type TomlValue } from "../../utils/superchain.js";

const REGISTRY = fixturePath("op-stack", "superchain-registry");
const CHAIN_TOMLS = listFiles(join(REGISTRY, "configs"), ".toml").filter((p) => basename(p) !== "superchain.toml");

/** The OP fork a TOML schedules at `time` (latest fork whose time has come; Regolith at genesis). */
function expectedOpFork(t: Map<string, TomlValue>, time: number): OpFork {
  let op = OpFork.Regolith;
  for (const [fork, key] of OP_FORK_KEYS) {
    const at = t.get(`hardforks.${key}`) as number | undefined;
    if (at !== undefined && time >= at) op = fork;
  }
  return op;
}

function thrown(f: () => unknown): ChainConfigError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof ChainConfigError, `expected ChainConfigError, got ${String(e)}`);
    assert.ok(!e.message.includes("\n"), "one-line message");
    return e;
  }
  assert.fail("expected a ChainConfigError");
}

describe("spec/chainConfig", () => {
  describe("superchain-registry chains", () => {
    assert.ok(CHAIN_TOMLS.length >= 10, "registry chain configs present");
    for (const path of CHAIN_TOMLS) {
      const name = path.slice(REGISTRY.length + 1);
      it(name, () => {
        const t = readToml(path);
        const cfg = parseChainConfig(opGethConfig(t));
        assert.equal(cfg.chainId, BigInt(t.get("chain_id") as number));
        // op-reth's registry chain spec runs Osaka from Karst on (osaka_time = karst_time).
        assert.equal(cfg.karstTime, t.get("hardforks.karst_time") ?? null);
        assert.equal(cfg.osakaTime, t.get("hardforks.karst_time") ?? null);
        assert.ok(cfg.optimism !== null);
        assert.equal(cfg.optimism.eip1559Elasticity, t.get("optimism.eip1559_elasticity"));
        assert.equal(cfg.optimism.eip1559Denominator, t.get("optimism.eip1559_denominator"));
        assert.equal(cfg.optimism.eip1559DenominatorCanyon, t.get("optimism.eip1559_denominator_canyon"));
        // OP chains carry no blob schedule: no defaults are filled in.
        assert.equal(blobParamsAt(cfg, Number.MAX_SAFE_INTEGER), null);

        const geth = opGethConfig(t);
        const bedrock = t.get("genesis.l2.number") as number;
        const genesisTime = t.get("genesis.l2_time") as number;
        const times = [genesisTime, ...OP_FORK_KEYS.map(([, k]) => t.get(`hardforks.${k}`) as number | undefined)]
          .filter((x): x is number => x !== undefined)
          .flatMap((x) => [x - 1, x, x + 1])
          .filter((x) => x >= genesisTime);
        for (const time of times) {
          const r = rulesAt(cfg, bedrock + 1, time);
          const op = expectedOpFork(t, time);
          assert.equal(r.op, op, `${name} t=${time}: op fork`);
          assert.equal(r.fork, opRules(op).fork, `${name} t=${time}: L1 fork follows the OP fork`);
          assert.ok(Object.isFrozen(r));
          assert.equal(rulesAt(cfg, bedrock + 1, time), r, "same frozen object for the same result");
        }
        assert.ok(isLondon(cfg, bedrock));
        if (geth.bedrockBlock !== 0) {
          // OP Mainnet before Bedrock: legacy blocks, no OP fork, pre-London L1 rules. (Boba and Celo
          // also start above block 0, but their configs put Bedrock at 0: see `opGethConfig`.)
          const legacy = rulesAt(cfg, bedrock - 1, genesisTime - 10);
          assert.equal(legacy.op, null);
          assert.equal(legacy.fork, Fork.Berlin);
          assert.equal(isLondon(cfg, bedrock - 1), false);
        }
      });
    }
  });

  it("registry genesis files: timestamp and number match the chain TOML; the genesis runs under Bedrock+", () => {
    const GENESIS_TOML: Record<string, string> = {
      "op-sepolia": "sepolia/op.toml",
      "base-mainnet": "mainnet/base.toml",
      "base-sepolia": "sepolia/base.toml",
      "unichain-mainnet": "mainnet/unichain.toml",
      "ink-mainnet": "mainnet/ink.toml",
    };
    const files = listFiles(join(REGISTRY, "genesis"), ".gz");
    assert.equal(files.length, Object.keys(GENESIS_TOML).length);
    let withConfig = 0;
    for (const file of files) {
      const key = basename(file).replace(".genesis.json.gz", "");
      const t = readToml(join(REGISTRY, "configs", GENESIS_TOML[key]!));
      const g = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as Record<string, unknown>;
      const cfg = parseChainConfig(opGethConfig(t));
      if (g.config !== null) {
        // Unichain's genesis carries op-geth's own config (written before Isthmus was scheduled):
        // it must resolve to the same rules as the TOML-built config up to Isthmus.
        withConfig++;
        const own = parseChainConfig(g.config);
        assert.equal(own.chainId, cfg.chainId);
        assert.deepEqual(own.optimism, cfg.optimism);
        const isthmus = t.get("hardforks.isthmus_time") as number;
        for (const time of [Number(g.timestamp), cfg.holoceneTime! - 1, cfg.holoceneTime!, isthmus - 1]) {
          assert.equal(rulesAt(own, 1, time), rulesAt(cfg, 1, time), `${key} t=${time}`);
        }
      }
      const number = Number(g.number);
      const time = Number(g.timestamp);
      assert.equal(number, t.get("genesis.l2.number"), key);
      assert.equal(time, t.get("genesis.l2_time"), key);
      const r = rulesAt(cfg, number, time);
      assert.equal(r.op, expectedOpFork(t, time), key);
      assert.ok(r.fork >= Fork.Paris, key);
      // The Bedrock genesis carries the London initial base fee.
      assert.equal(BigInt(g.baseFeePerGas as string), 1_000_000_000n, key);
    }
    assert.equal(withConfig, 1, "one registry genesis carries its op-geth config");
  });

  it("bench workloads: genesis.config parses and its fork matches the workload's hardfork", () => {
    const files = listFiles(join(REPO_ROOT, "../shared/bench/workloads")).filter((f) => !f.endsWith("contracts.json"));
    assert.ok(files.length >= 4);
    for (const file of files) {
      const w = readJson<{ hardfork: string; chainId: number; genesis: { config: Record<string, unknown> } }>(file);
      const cfg = parseChainConfig(w.genesis.config);
      assert.equal(cfg.chainId, BigInt(w.chainId));
      assert.equal(cfg.optimism, null);
      const r = rulesAt(cfg, 1, 1);
      assert.equal(Fork[r.fork].toLowerCase(), w.hardfork, file);
      assert.equal(r.op, null);
      const sched = w.genesis.config.blobSchedule as Record<string, Record<string, number>>;
      assert.deepEqual(blobParamsAt(cfg, 1), { ...sched.cancun });
    }
  });

  it("execution-apis test chain genesis: every fork boundary and the blob schedule", () => {
    const g = readJson<{ config: Record<string, unknown> }>(fixturePath("execution-apis-rpc", "tests", "genesis.json"));
    const cfg = parseChainConfig(g.config);
    const c = g.config as Record<string, number> & { blobSchedule: Record<string, Record<string, number>> };
    assert.equal(cfg.chainId, BigInt(c.chainId));
    assert.equal(cfg.terminalTotalDifficulty, BigInt(c.terminalTotalDifficulty));
    assert.equal(bytesToHex(cfg.depositContractAddress!), g.config.depositContractAddress);
    const blocks: [string, Fork][] = [
      ["homesteadBlock", Fork.Homestead],
      ["eip150Block", Fork.TangerineWhistle],
      ["eip155Block", Fork.SpuriousDragon],
      ["byzantiumBlock", Fork.Byzantium],
      ["constantinopleBlock", Fork.Constantinople],
      ["petersburgBlock", Fork.Petersburg],
      ["istanbulBlock", Fork.Istanbul],
      ["muirGlacierBlock", Fork.MuirGlacier],
      ["berlinBlock", Fork.Berlin],
      ["londonBlock", Fork.London],
      ["arrowGlacierBlock", Fork.ArrowGlacier],
      ["grayGlacierBlock", Fork.GrayGlacier],
      ["mergeNetsplitBlock", Fork.Paris],
    ];
    for (const [key, fork] of blocks) {
      assert.equal(rulesAt(cfg, c[key]!, 0).fork, fork, key);
      if (c[key]! > 0) assert.ok(rulesAt(cfg, c[key]! - 1, 0).fork < fork, `${key} - 1`);
    }
    const times: [string, Fork, string][] = [
      ["shanghaiTime", Fork.Shanghai, ""],
      ["cancunTime", Fork.Cancun, "cancun"],
      ["pragueTime", Fork.Prague, "prague"],
      ["osakaTime", Fork.Osaka, "osaka"],
      ["bpo1Time", Fork.Osaka, "bpo1"],
      ["bpo2Time", Fork.Osaka, "bpo2"],
    ];
    const last = c.mergeNetsplitBlock!;
    for (const [key, fork, blob] of times) {
      assert.equal(rulesAt(cfg, last + 100, c[key]!).fork, fork, key);
      assert.ok(rulesAt(cfg, last + 100, c[key]! - 1).fork <= fork, key);
      if (blob !== "") {
        assert.deepEqual(blobParamsAt(cfg, c[key]!), { ...c.blobSchedule[blob] }, key);
        // Osaka keeps Prague's numbers in this genesis, so only the BPO steps change the values.
        if (blob.startsWith("bpo")) {
          assert.notDeepEqual(blobParamsAt(cfg, c[key]! - 1), { ...c.blobSchedule[blob] }, `${key} - 1`);
        }
      }
    }
    assert.equal(blobParamsAt(cfg, c.cancunTime! - 1), null);
    assert.equal(rulesAt(cfg, 0, 0).fork, Fork.Homestead);
  });

  it("fills geth's default blob schedule for scheduled L1 forks without an entry", () => {
    const cfg = parseChainConfig({
      chainId: 1,
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
      shanghaiTime: 0,
      cancunTime: 10,
      pragueTime: 20,
      osakaTime: 30,
    });
    assert.equal(blobParamsAt(cfg, 9), null);
    assert.deepEqual(blobParamsAt(cfg, 10), DEFAULT_CANCUN_BLOB_PARAMS);
    assert.deepEqual(blobParamsAt(cfg, 20), DEFAULT_PRAGUE_BLOB_PARAMS);
    assert.deepEqual(blobParamsAt(cfg, 30), { target: 6, max: 9, baseFeeUpdateFraction: 5007716 });
    assert.deepEqual(cfg.blobSchedule.cancun, { target: 3, max: 6, baseFeeUpdateFraction: 3338477 });
  });

  it("Petersburg activates with Constantinople when petersburgBlock is unset (geth IsPetersburg)", () => {
    const base = {
      chainId: "0x1",
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
    };
    const cfg = parseChainConfig({ ...base, constantinopleBlock: 5 });
    assert.equal(rulesAt(cfg, 4, 0).fork, Fork.Byzantium);
    assert.equal(rulesAt(cfg, 5, 0).fork, Fork.Petersburg);
    const cfg2 = parseChainConfig({ ...base, constantinopleBlock: 5, petersburgBlock: 7 });
    assert.equal(rulesAt(cfg2, 6, 0).fork, Fork.Constantinople);
    assert.equal(rulesAt(cfg2, 7, 0).fork, Fork.Petersburg);
  });

  it("accepts decimal and hex strings for integers", () => {
    const cfg = parseChainConfig({
      chainId: "3503995874084926",
      homesteadBlock: "0x10",
      terminalTotalDifficulty: "0x0",
    });
    assert.equal(cfg.chainId, 3503995874084926n);
    assert.equal(cfg.homesteadBlock, 16);
    assert.equal(cfg.terminalTotalDifficulty, 0n);
  });

  describe("bad input: one ChainConfigError naming the field", () => {
    const ALL_BLOCK_FORKS = {
      chainId: 1,
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
    };
    const cases: [string, unknown, string][] = [
      ["not an object", [], "(root)"],
      ["no chainId", { londonBlock: 0 }, "chainId"],
      ["chainId not a number", { chainId: true }, "chainId"],
      ["chainId unsafe JSON number", { chainId: 2 ** 60 }, "chainId"],
      ["negative block", { chainId: 1, homesteadBlock: -1 }, "homesteadBlock"],
      ["fractional time", { chainId: 1, shanghaiTime: 1.5 }, "shanghaiTime"],
      ["garbage string", { chainId: 1, londonBlock: "soon" }, "londonBlock"],
      ["block above 2^53-1", { chainId: 1, londonBlock: "0x20000000000000" }, "londonBlock"],
      ["bad address", { chainId: 1, depositContractAddress: "0x1234" }, "depositContractAddress"],
      ["bad bool", { chainId: 1, terminalTotalDifficultyPassed: "yes" }, "terminalTotalDifficultyPassed"],
      ["fork order", { chainId: 1, homesteadBlock: 10, eip150Block: 5 }, "eip150Block"],
      ["fork gap", { chainId: 1, homesteadBlock: 0, eip155Block: 5 }, "eip155Block"],
      ["time fork order", { ...ALL_BLOCK_FORKS, shanghaiTime: 10, cancunTime: 5 }, "cancunTime"],
      ["time fork without block forks", { chainId: 1, shanghaiTime: 10 }, "shanghaiTime"],
      ["bpo without schedule", { chainId: 1, shanghaiTime: 0, cancunTime: 0, bpo1Time: 5 }, "blobSchedule.bpo1"],
      [
        "blob target above max",
        { chainId: 1, blobSchedule: { cancun: { target: 7, max: 6, baseFeeUpdateFraction: 1 } } },
        "blobSchedule.cancun",
      ],
      [
        "blob fraction zero",
        { chainId: 1, blobSchedule: { cancun: { target: 3, max: 6, baseFeeUpdateFraction: 0 } } },
        "blobSchedule.cancun.baseFeeUpdateFraction",
      ],
      [
        "optimism elasticity zero",
        { chainId: 10, optimism: { eip1559Elasticity: 0, eip1559Denominator: 50 } },
        "optimism.eip1559Elasticity",
      ],
      [
        "optimism missing denominator",
        { chainId: 10, optimism: { eip1559Elasticity: 6 } },
        "optimism.eip1559Denominator",
      ],
      [
        "canyon without canyon denominator",
        { chainId: 10, canyonTime: 0, optimism: { eip1559Elasticity: 6, eip1559Denominator: 50 } },
        "optimism.eip1559DenominatorCanyon",
      ],
      [
        "OP fork order",
        { chainId: 10, ecotoneTime: 5, fjordTime: 4, optimism: { eip1559Elasticity: 6, eip1559Denominator: 50 } },
        "fjordTime",
      ],
    ];
    for (const [what, json, field] of cases) {
      it(what, () => {
        const e = thrown(() => parseChainConfig(json));
        assert.equal(e.field, field);
        assert.ok(e.message.includes(field));
      });
    }
  });

  it("rules: L1 chains have op = null; the same result is the same frozen object", () => {
    const cfg = parseChainConfig({ chainId: 1, homesteadBlock: 0, eip150Block: 5 });
    const a: ChainConfig = cfg;
    assert.equal(rulesAt(a, 5, 0), rulesAt(a, 6, 100));
    assert.equal(rulesAt(a, 5, 0).op, null);
    assert.notEqual(rulesAt(a, 4, 0), rulesAt(a, 5, 0));
    assert.ok(Object.isFrozen(cfg));
  });
});
