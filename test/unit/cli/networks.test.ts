/**
 * Every chain of the superchain-registry snapshot through opal-node's own path: `--network=<name>`
 * parsed by the flag table and resolved by the function the command runs (`resolveRollupConfig` over
 * `rollupConfigFlagsOf`), checked against the chain's TOML text as the test's own line reader sees it
 * (test/utils/superchain.ts, not the smol-toml parser the bundler uses); `opal-node networks` run
 * in-process lists every chain id of chainList.json with the TOML's fork times; fork overrides on
 * chains with and without Karst.
 */
import { strict as assert } from "node:assert";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { parseNodeArgs } from "../../../src/cli/nodeFlags.js";
import { main, rollupConfigFlagsOf } from "../../../src/cli/opalNode.js";
import { resolveRollupConfig } from "../../../src/node/rollup/rollupNode.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import type { RollupConfig } from "../../../src/rollup/config/rollupConfig.js";
import { fixturePath, readJson } from "../../utils/fixtures.js";
import { readToml, type TomlValue } from "../../utils/superchain.js";

const REGISTRY = fixturePath("op-stack", "superchain-registry");
const CONFIGS = join(REGISTRY, "configs");
const L2 = "--l2=http://127.0.0.1:8551";

interface Chain {
  /** op-node's name: the TOML file name, `-`, the superchain folder (op-core/superchain chain.go). */
  readonly name: string;
  readonly file: string;
  readonly toml: Map<string, TomlValue>;
  readonly superchain: Map<string, TomlValue>;
}

const CHAINS: readonly Chain[] = readdirSync(CONFIGS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(CONFIGS, d.name))
      .filter((f) => f.endsWith(".toml") && f !== "superchain.toml")
      .map((f) => ({
        name: `${f.slice(0, -".toml".length)}-${d.name}`,
        file: `${d.name}/${f}`,
        toml: readToml(join(CONFIGS, d.name, f)),
        superchain: readToml(join(CONFIGS, d.name, "superchain.toml")),
      })),
  );

/** The L1 names the listing uses for the superchains' `[l1] chain_id`. */
const L1_NAME: Record<number, string> = { 1: "mainnet", 11155111: "sepolia" };

/**
 * The fork times a TOML schedules, by opal-node's override name: Regolith at 0 on every registry
 * chain (op-node `applyHardforks`), then each `[hardforks]` `<fork>_time`; the registry's Lagoon
 * (`lagoon_time`, formerly `interop_time`) is Opal's interop, `pectra_blob_schedule_time` is
 * pectrablobschedule.
 */
function tomlForks(t: Map<string, TomlValue>): Map<string, number> {
  const out = new Map<string, number>([["regolith", 0]]);
  for (const [k, v] of t) {
    const m = /^hardforks\.([a-z_]+)_time$/.exec(k);
    if (m === null) continue;
    const fork = m[1] === "lagoon" ? "interop" : m[1]!.replaceAll("_", "");
    out.set(fork, v as number);
  }
  return out;
}

/** `opal-node --l2=… --network=<name> [more]` parsed and resolved as the command does. */
function resolveNetwork(name: string, ...more: string[]): RollupConfig {
  const r = parseNodeArgs([L2, `--network=${name}`, ...more], {});
  assert.ok(r.ok && r.kind === "run", `${name}: ${r.ok ? r.kind : r.error}`);
  return resolveRollupConfig(rollupConfigFlagsOf(r.config));
}

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {}, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err };
}

const lower = (v: TomlValue | undefined): string => String(v).toLowerCase();

describe("cli/networks: every registry chain through --network", () => {
  it("the snapshot holds the 53 chains of chainList.json, plus Base mainnet and Sepolia", () => {
    const list = readJson<{ identifier: string; chainId: number }[]>(join(REGISTRY, "chainList.json"));
    assert.equal(list.length, 53);
    assert.equal(CHAINS.length, 55);
    const ids = new Set(CHAINS.map((c) => c.toml.get("chain_id")));
    for (const c of list) assert.ok(ids.has(c.chainId), `${c.identifier} (${c.chainId}) has a TOML`);
  });

  for (const c of CHAINS) {
    it(`--network=${c.name} (${c.file})`, () => {
      const t = c.toml;
      const cfg = resolveNetwork(c.name);
      assert.equal(cfg.l2ChainId, BigInt(t.get("chain_id") as number));
      assert.equal(cfg.l1ChainId, BigInt(c.superchain.get("l1.chain_id") as number));
      assert.equal(bytesToHex(cfg.genesis.l1.hash), lower(t.get("genesis.l1.hash")));
      assert.equal(cfg.genesis.l1.number, t.get("genesis.l1.number"));
      assert.equal(bytesToHex(cfg.genesis.l2.hash), lower(t.get("genesis.l2.hash")));
      assert.equal(cfg.genesis.l2.number, t.get("genesis.l2.number"));
      assert.equal(cfg.genesis.l2Time, t.get("genesis.l2_time"));
      assert.equal(
        bytesToHex(cfg.genesis.systemConfig.batcherAddr),
        lower(t.get("genesis.system_config.batcherAddress")),
      );
      assert.equal(cfg.genesis.systemConfig.gasLimit, BigInt(t.get("genesis.system_config.gasLimit") as number));
      assert.equal(cfg.blockTime, t.get("block_time"));
      assert.equal(cfg.seqWindowSize, t.get("seq_window_size"));
      assert.equal(cfg.maxSequencerDrift, t.get("max_sequencer_drift"));
      assert.equal(bytesToHex(cfg.batchInboxAddress), lower(t.get("batch_inbox_addr")));
      assert.equal(bytesToHex(cfg.depositContractAddress), lower(t.get("addresses.OptimismPortalProxy")));
      assert.equal(bytesToHex(cfg.l1SystemConfigAddress), lower(t.get("addresses.SystemConfigProxy")));
      const forks = tomlForks(t);
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
        "karst",
        "interop",
      ] as const) {
        assert.equal(cfg[`${f}Time`], forks.get(f) ?? null, `${c.name} ${f}`);
      }
      assert.equal(cfg.pectraBlobScheduleTime, forks.get("pectrablobschedule") ?? null);
      assert.equal(cfg.keepKarstUpgradeGas, t.get("hardforks.keep_karst_upgrade_gas") === true);
    });
  }

  it("op-node's legacy names resolve too", () => {
    assert.equal(resolveNetwork("mainnet").l2ChainId, 10n);
    assert.equal(resolveNetwork("sepolia").l2ChainId, 11155420n);
  });
});

describe("cli/networks: opal-node networks", () => {
  it("prints one line per chain: name, chain id, L1, the TOML's fork times; by L1, then name", async () => {
    const r = await run(["networks"]);
    assert.equal(r.code, 0);
    assert.deepEqual(r.err, []);
    const lines = r.out.split("\n");
    assert.equal(lines.length, CHAINS.length);
    const byName = new Map(CHAINS.map((c) => [c.name, c]));
    const seen: [string, string][] = [];
    for (const line of lines) {
      const [name, id, l1, ...forks] = line.split(/\s+/);
      const c = byName.get(name!);
      assert.ok(c !== undefined, `unknown network in: ${line}`);
      assert.equal(id, String(c.toml.get("chain_id")), line);
      assert.equal(l1, L1_NAME[c.superchain.get("l1.chain_id") as number], line);
      const listed = new Map(forks.map((f) => f.split("=") as [string, string]).map(([k, v]) => [k, Number(v)]));
      assert.deepEqual(listed, tomlForks(c.toml), line);
      seen.push([l1!, name!]);
    }
    const rank = (l1: string): number => ["mainnet", "sepolia"].indexOf(l1);
    const sorted = [...seen].sort((a, b) => rank(a[0]) - rank(b[0]) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    assert.deepEqual(seen, sorted);
    // Every chain id of chainList.json is listed.
    const ids = new Set(lines.map((l) => l.split(/\s+/)[1]));
    for (const c of readJson<{ chainId: number }[]>(join(REGISTRY, "chainList.json"))) {
      assert.ok(ids.has(String(c.chainId)), `chain id ${c.chainId}`);
    }
    assert.match(r.out, /^op-mainnet +10 {2}mainnet {2}regolith=0 canyon=1704992401 .* karst=1783526401$/m);
  });

  it("--l1 picks one L1; --help explains the columns; bad arguments are one line and exit 2", async () => {
    const sepolia = await run(["networks", "--l1=sepolia"]);
    assert.equal(sepolia.code, 0);
    const expected = CHAINS.filter((c) => c.superchain.get("l1.chain_id") === 11155111).length;
    assert.equal(sepolia.out.split("\n").length, expected);
    for (const line of sepolia.out.split("\n")) assert.equal(line.split(/\s+/)[2], "sepolia");
    const help = await run(["networks", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.out, /opal-node networks/);
    assert.match(help.out, /NAME {2}L2_CHAIN_ID {2}L1 {2}FORK=TIME/);
    for (const argv of [
      ["networks", "extra"],
      ["networks", "--l1=holesky"],
      ["networks", "--nope"],
    ]) {
      const r = await run(argv);
      assert.equal(r.code, 2, argv.join(" "));
      assert.equal(r.err.length, 1);
      assert.match(r.err[0]!, /^opal-node networks: /);
      assert.ok(!r.err[0]!.includes("\n"));
    }
  });
});

describe("cli/networks: --override.karst and --override.interop through --network", () => {
  it("set only their fork, on chains with Karst (op-mainnet), without (base-mainnet), without Isthmus (boba)", () => {
    for (const name of ["op-mainnet", "base-mainnet", "boba-mainnet"]) {
      const plain = resolveNetwork(name);
      const interop = resolveNetwork(name, "--override.interop=1900000000");
      assert.equal(interop.interopTime, 1900000000, name);
      assert.equal(interop.karstTime, plain.karstTime, name);
      assert.equal(resolveNetwork(name, "--override.lagoon=1900000002").interopTime, 1900000002, name);
      const karst = resolveNetwork(name, "--override.karst=1900000000");
      assert.equal(karst.karstTime, 1900000000, name);
      assert.equal(karst.jovianTime, plain.jovianTime, name);
      assert.equal(karst.interopTime, null, name);
    }
    // 0, the flag's default (spec part 4B), means no override here. op-node applies a flag only when
    // it is set (service.go applyOverrides: ctx.IsSet), so there an explicit 0 would mean "at genesis".
    assert.equal(resolveNetwork("op-mainnet", "--override.karst=0").karstTime, 1783526401);
  });

  it("--override.keep-karst-upgrade-gas replaces the registry's keep_karst_upgrade_gas only when given", () => {
    const keep = (file: string): unknown =>
      readToml(join(CONFIGS, "mainnet", file)).get("hardforks.keep_karst_upgrade_gas");
    assert.equal(keep("op.toml"), true);
    assert.equal(keep("mode.toml"), undefined, "Mode keeps Karst without the flag");
    assert.equal(resolveNetwork("op-mainnet").keepKarstUpgradeGas, true);
    assert.equal(resolveNetwork("op-mainnet", "--override.keep-karst-upgrade-gas=false").keepKarstUpgradeGas, false);
    assert.equal(resolveNetwork("mode-mainnet").keepKarstUpgradeGas, false);
    assert.equal(resolveNetwork("mode-mainnet", "--override.keep-karst-upgrade-gas").keepKarstUpgradeGas, true);
    // With a fork override too, both apply.
    const both = resolveNetwork("op-mainnet", "--override.keep-karst-upgrade-gas=false", "--override.karst=1900000000");
    assert.equal(both.keepKarstUpgradeGas, false);
    assert.equal(both.karstTime, 1900000000);
  });

  it("an override that breaks the order through Isthmus is one line naming the fork", () => {
    assert.throws(
      () => resolveNetwork("op-mainnet", "--override.holocene=1800000000"),
      (e: Error) => /^--override\.\*: rollup config isthmus_time: .*prior fork holocene/.test(e.message),
    );
  });
});
