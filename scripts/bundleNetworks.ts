/**
 * Generates src/rollup/config/networks.ts: the rollup.json (op-node shape) of every chain of the
 * superchain-registry snapshot in the shared fixtures, one per `--network` name, converted as
 * op-node's registry loader does (op-node/rollup/superchain.go `LoadOPStackRollupConfig` +
 * `applyHardforks`): regolith at 0, channel timeout 300, deposit contract = OptimismPortalProxy,
 * system config = SystemConfigProxy, L1 chain id from superchain.toml, `[optimism]` →
 * chain_op_config, `[alt_da]` → alt_da, and only the chain's own `[hardforks]`.
 *
 * Names: op-node's `<chain>-<superchain>` where <chain> is the TOML file name as it is
 * (op-core/superchain chain.go `idsByName[chain.Name+"-"+chain.Network]`, with Name the file stem
 * and Network the folder: sync-superchain.sh), so `settlus-mainnet.toml` → `settlus-mainnet-mainnet`
 * and `sepolia-devnet-2/sepolia-devnet-2.toml` → `sepolia-devnet-2-sepolia-devnet-2`.
 *
 * Usage: npm run bundle:networks [-- --check]   (--check exits 1 when the file is out of date)
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse as parseToml } from "smol-toml";
import { parseRollupConfig, rollupConfigToJson } from "../src/rollup/config/rollupConfig.js";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const NETWORKS_FILE = join(REPO_ROOT, "src", "rollup", "config", "networks.ts");

/** The snapshot's provenance, as fixtures/op-stack/SOURCE.md §1 records it. */
const SNAPSHOT =
  "ethereum-optimism/superchain-registry @ 8336d2aedd19b87a57b01ae36ba4afef8ea377d0 (base-* from 5b055be4d294ce43814a44c8839d89b2436dc8aa)";

/** Bedrock channel timeout in L1 blocks: op-node sets it for every registry chain (the registry has no field). */
const REGISTRY_CHANNEL_TIMEOUT = 300;

/**
 * `[hardforks]` keys → rollup.json keys. The registry's fork-time names are op-node's, with two
 * exceptions: Lagoon (`lagoon_time` since superchain-registry#1255, `interop_time` before it) is
 * Opal's Interop, written as `interop_time`. Any other key is refused, as op-core/superchain decodes
 * chain TOMLs strictly (chain.go `DecodeTOMLStrict`; its test exists because `keep_karst_upgrade_gas`
 * was once silently dropped), so a new registry field cannot go missing from the bundle unnoticed.
 *
 * No superchain-wide default is filled in: since registry 2.0 the inherited activation times are
 * written into each chain's own TOML (superchain-registry docs/hardfork-activation-inheritance.md,
 * "What you see is what you get"), and op-node's `applyHardforks` copies the chain's `[hardforks]`
 * only; superchain.toml contributes the L1 chain id (and, where present, `protocol_versions_addr`).
 */
const HARDFORK_KEYS: Readonly<Record<string, string>> = Object.freeze({
  canyon_time: "canyon_time",
  delta_time: "delta_time",
  ecotone_time: "ecotone_time",
  fjord_time: "fjord_time",
  granite_time: "granite_time",
  holocene_time: "holocene_time",
  isthmus_time: "isthmus_time",
  jovian_time: "jovian_time",
  karst_time: "karst_time",
  lagoon_time: "interop_time",
  interop_time: "interop_time",
  pectra_blob_schedule_time: "pectra_blob_schedule_time",
  keep_karst_upgrade_gas: "keep_karst_upgrade_gas",
});

export function registryConfigsDir(): string {
  const base = process.env.OPAL_FIXTURES ?? resolve(REPO_ROOT, "../shared/fixtures");
  return join(base, "op-stack", "superchain-registry", "configs");
}

type Toml = Record<string, unknown>;

function table(t: Toml, key: string, where: string): Toml {
  const v = t[key];
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error(`${where}: missing table [${key}]`);
  return v as Toml;
}

/** One registry chain (with its superchain.toml) → the rollup.json object op-node would build. */
export function registryChainToRollupJson(chain: Toml, superchain: Toml, where: string): Record<string, unknown> {
  const hf = (chain.hardforks ?? {}) as Toml;
  const genesis = table(chain, "genesis", where);
  const sys = table(genesis, "system_config", `${where} genesis`);
  const addrs = table(chain, "addresses", where);
  const l1 = table(superchain, "l1", `${where} superchain`);
  const raw: Record<string, unknown> = {
    genesis: {
      l1: table(genesis, "l1", where),
      l2: table(genesis, "l2", where),
      l2_time: genesis.l2_time,
      system_config: {
        batcherAddr: sys.batcherAddress,
        overhead: sys.overhead,
        scalar: sys.scalar,
        gasLimit: sys.gasLimit,
      },
    },
    block_time: chain.block_time,
    max_sequencer_drift: chain.max_sequencer_drift,
    seq_window_size: chain.seq_window_size,
    channel_timeout: REGISTRY_CHANNEL_TIMEOUT,
    l1_chain_id: l1.chain_id,
    l2_chain_id: chain.chain_id,
    // SPEC: op-node's registry loader activates Regolith at genesis on every registry chain.
    regolith_time: 0,
    batch_inbox_address: chain.batch_inbox_addr,
    deposit_contract_address: addrs.OptimismPortalProxy,
    l1_system_config_address: addrs.SystemConfigProxy,
  };
  for (const [k, v] of Object.entries(hf)) {
    const out = HARDFORK_KEYS[k];
    if (out === undefined) throw new Error(`${where}: unknown [hardforks] key ${k}`);
    if (raw[out] !== undefined && raw[out] !== v) throw new Error(`${where}: ${k} contradicts another key`);
    raw[out] = v;
  }
  // gas_paying_token (custom gas token) and [interop] (the dependency set) are not rollup config
  // fields: op-node's conversion maps neither into rollup.Config (its TestRollupConfigFromRegistry_
  // AllFieldsSet has no CGT source; the dependency set comes from op-core/superchain GetDepset).
  if (typeof superchain.protocol_versions_addr === "string")
    raw.protocol_versions_address = superchain.protocol_versions_addr;
  if (chain.optimism !== undefined) {
    const op = table(chain, "optimism", where);
    raw.chain_op_config = {
      eip1559Elasticity: op.eip1559_elasticity,
      eip1559Denominator: op.eip1559_denominator,
      eip1559DenominatorCanyon: op.eip1559_denominator_canyon,
    };
  }
  if (chain.alt_da !== undefined) {
    const a = table(chain, "alt_da", where);
    raw.alt_da = {
      da_challenge_contract_address: a.da_challenge_contract_address,
      da_commitment_type: a.da_commitment_type,
      da_challenge_window: a.da_challenge_window,
      da_resolve_window: a.da_resolve_window,
    };
  }
  // Validate as op-node would, and emit op-node's exact shape (lower-case hex, unset forks left out).
  return rollupConfigToJson(parseRollupConfig(raw));
}

/** Every `<chain>-<superchain>` of the registry folder, sorted, with its rollup.json object. */
export function loadRegistry(dir: string): { networks: [string, Record<string, unknown>][]; digest: string } {
  const hash = createHash("sha256");
  const networks: [string, Record<string, unknown>][] = [];
  for (const sc of readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    const scText = readFileSync(join(dir, sc, "superchain.toml"), "utf8");
    hash.update(`${sc}/superchain.toml\0${scText}\0`);
    const superchain = parseToml(scText) as Toml;
    for (const file of readdirSync(join(dir, sc))
      .filter((f) => f.endsWith(".toml") && f !== "superchain.toml")
      .sort()) {
      const text = readFileSync(join(dir, sc, file), "utf8");
      hash.update(`${sc}/${file}\0${text}\0`);
      const name = `${file.slice(0, -".toml".length)}-${sc}`;
      networks.push([name, registryChainToRollupJson(parseToml(text) as Toml, superchain, `${sc}/${file}`)]);
    }
  }
  networks.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { networks, digest: hash.digest("hex") };
}

// ---- rendering (already in Biome's format, so the file passes `biome check` as generated) ----

function key(k: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k);
}

function render(v: unknown, indent: string): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  const inner = `${indent}  `;
  const lines = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${inner}${key(k)}: ${render(x, inner)},`);
  return `Object.freeze({\n${lines.join("\n")}\n${indent}})`;
}

export function renderNetworksModule(dir = registryConfigsDir()): string {
  const { networks, digest } = loadRegistry(dir);
  const entries = networks.map(([name, json]) => `  ${key(name)}: ${render(json, "  ")},`);
  return [
    "/**",
    " * GENERATED FILE, do not edit: `npm run bundle:networks` (scripts/bundleNetworks.ts) writes it from",
    " * the superchain-registry snapshot in fixtures/op-stack/superchain-registry/configs, which is",
    ` * ${SNAPSHOT}.`,
    ` * Inputs sha256: ${digest}.`,
    " * One rollup.json object (op-node shape) per `--network` name; read it through src/rollup/config/network.ts.",
    " */",
    "export const NETWORK_ROLLUP_JSON = Object.freeze({",
    ...entries,
    "});",
    "",
  ].join("\n");
}

/** True when src/rollup/config/networks.ts equals what the snapshot generates. */
export function networksUpToDate(dir = registryConfigsDir()): boolean {
  return existsSync(NETWORKS_FILE) && readFileSync(NETWORKS_FILE, "utf8") === renderNetworksModule(dir);
}

function main(argv: string[]): number {
  const text = renderNetworksModule();
  if (argv.includes("--check")) {
    const current = existsSync(NETWORKS_FILE) ? readFileSync(NETWORKS_FILE, "utf8") : "";
    if (current !== text) {
      console.error("src/rollup/config/networks.ts is out of date: run npm run bundle:networks");
      return 1;
    }
    console.log("src/rollup/config/networks.ts is up to date");
    return 0;
  }
  writeFileSync(NETWORKS_FILE, text);
  console.log(`wrote src/rollup/config/networks.ts`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
