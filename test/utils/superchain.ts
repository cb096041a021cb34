/**
 * superchain-registry fixtures for tests: a minimal TOML reader (enough for `key = value` lines in
 * [sections]) and the op-geth chain config a chain TOML stands for.
 */
import { readFileSync } from "node:fs";
import { OpFork } from "../../src/spec/forks.js";

export type TomlValue = string | number | boolean;
export function readToml(path: string): Map<string, TomlValue> {
  const out = new Map<string, TomlValue>();
  let section = "";
  for (const raw of readFileSync(path, "utf8").split("\n")) {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    const sec = /^\[([^\]]+)\]$/.exec(line);
    if (sec) {
      section = sec[1]!.trim();
      continue;
    }
    const kv = /^([A-Za-z0-9_]+)\s*=\s*(.+)$/.exec(line);
    if (!kv) continue;
    const v = kv[2]!.trim();
    const key = section === "" ? kv[1]! : `${section}.${kv[1]}`;
    if (v.startsWith('"')) out.set(key, v.slice(1, v.lastIndexOf('"')));
    else if (v === "true" || v === "false") out.set(key, v === "true");
    else out.set(key, Number(v));
  }
  return out;
}

export const OP_FORK_KEYS: [OpFork, string, string][] = [
  [OpFork.Canyon, "canyon_time", "canyonTime"],
  [OpFork.Delta, "delta_time", "deltaTime"],
  [OpFork.Ecotone, "ecotone_time", "ecotoneTime"],
  [OpFork.Fjord, "fjord_time", "fjordTime"],
  [OpFork.Granite, "granite_time", "graniteTime"],
  [OpFork.Holocene, "holocene_time", "holoceneTime"],
  [OpFork.Isthmus, "isthmus_time", "isthmusTime"],
  [OpFork.Jovian, "jovian_time", "jovianTime"],
  [OpFork.Karst, "karst_time", "karstTime"],
];

/**
 * op-geth `params.LoadOPStackChainConfig` / op-reth chainspec superchain/chain_metadata.rs
 * `to_genesis_chain_config`: every L1 block fork at 0, Regolith at 0, Shanghai with Canyon, Cancun
 * with Ecotone, Prague with Isthmus, Osaka with Karst (forks.ts `opRules`). Only OP Mainnet keeps a
 * pre-Bedrock history (op-reth special-cases chain id 10 alone): Berlin 3950000,
 * London/ArrowGlacier/GrayGlacier/MergeNetsplit/Bedrock at the Bedrock block. Chains whose genesis
 * block number is not 0 for other reasons (Boba's and Celo's migrated histories) get Bedrock at 0.
 */
export function opGethConfig(t: Map<string, TomlValue>): Record<string, unknown> {
  const hf = (k: string): number | undefined => t.get(`hardforks.${k}`) as number | undefined;
  const cfg: Record<string, unknown> = {
    chainId: t.get("chain_id"),
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    muirGlacierBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    arrowGlacierBlock: 0,
    grayGlacierBlock: 0,
    mergeNetsplitBlock: 0,
    shanghaiTime: hf("canyon_time"),
    cancunTime: hf("ecotone_time"),
    pragueTime: hf("isthmus_time"),
    osakaTime: hf("karst_time"),
    bedrockBlock: 0,
    regolithTime: 0,
    terminalTotalDifficulty: 0,
    terminalTotalDifficultyPassed: true,
    optimism: {
      eip1559Elasticity: t.get("optimism.eip1559_elasticity"),
      eip1559Denominator: t.get("optimism.eip1559_denominator"),
      eip1559DenominatorCanyon: t.get("optimism.eip1559_denominator_canyon"),
    },
  };
  for (const [, toml, json] of OP_FORK_KEYS) cfg[json] = hf(toml);
  if (t.get("chain_id") === 10) {
    const bedrock = t.get("genesis.l2.number");
    Object.assign(cfg, {
      berlinBlock: 3950000,
      londonBlock: bedrock,
      arrowGlacierBlock: bedrock,
      grayGlacierBlock: bedrock,
      mergeNetsplitBlock: bedrock,
      bedrockBlock: bedrock,
    });
  }
  return cfg;
}
