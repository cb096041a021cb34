/**
 * Chain configs for the `network` names of ethereum/tests and EEST blockchain tests: a single fork
 * name switches on every fork up to it at genesis; `XToYAtTime15k` / `XToYAt5` switch Y on at that
 * timestamp / block. The result is a geth genesis `config` object for parseChainConfig.
 */
import { Fork, forkFromFixtureName } from "../../spec/forks.js";

export const MAINNET_DEPOSIT_CONTRACT = "0x00000000219ab540356cbb839cbe05303d7705fa";

/** The geth genesis config keys that switch each fork on (forks before it are switched on too). */
const FORK_KEYS: [Fork, string[]][] = [
  [Fork.Homestead, ["homesteadBlock"]],
  [Fork.TangerineWhistle, ["eip150Block"]],
  [Fork.SpuriousDragon, ["eip155Block", "eip158Block"]],
  [Fork.Byzantium, ["byzantiumBlock"]],
  [Fork.Constantinople, ["constantinopleBlock"]],
  [Fork.Petersburg, ["petersburgBlock"]],
  [Fork.Istanbul, ["istanbulBlock"]],
  [Fork.MuirGlacier, ["muirGlacierBlock"]],
  [Fork.Berlin, ["berlinBlock"]],
  [Fork.London, ["londonBlock"]],
  [Fork.ArrowGlacier, ["arrowGlacierBlock"]],
  [Fork.GrayGlacier, ["grayGlacierBlock"]],
  [Fork.Paris, ["terminalTotalDifficulty"]],
  [Fork.Shanghai, ["shanghaiTime"]],
  [Fork.Cancun, ["cancunTime"]],
  [Fork.Prague, ["pragueTime"]],
  [Fork.Osaka, ["osakaTime"]],
];

/**
 * A geth genesis config for a fixture network: `Fork` → every fork up to it at genesis;
 * `XToYAtTime15k` → X at genesis and Y (only Y) at timestamp 15000; `XToYAt5` → Y at block 5.
 */
export function fixtureNetworkConfig(
  network: string,
  blobSchedule: Record<string, Record<string, string>> | undefined,
): Record<string, unknown> {
  let from = forkFromFixtureName(network);
  let to: Fork | undefined;
  let at = 0;
  if (from === undefined) {
    const m = /^([A-Za-z]+)To([A-Za-z]+)At(Time)?(\d+)(k?)$/.exec(network);
    if (m === null) throw new Error(`unknown fixture network ${network}`);
    from = forkFromFixtureName(m[1]!);
    to = forkFromFixtureName(m[2]!);
    at = Number(m[4]) * (m[5] === "k" ? 1000 : 1);
    if (from === undefined || to === undefined) throw new Error(`unknown fixture network ${network}`);
  }
  const cfg: Record<string, unknown> = { chainId: 1 };
  for (const [fork, keys] of FORK_KEYS) {
    const value = fork <= from ? 0 : to !== undefined && fork <= to ? at : undefined;
    if (value === undefined) continue;
    for (const k of keys) cfg[k] = value;
  }
  // EIP-6110: the fixtures use the mainnet deposit contract.
  if ((to ?? from) >= Fork.Prague) cfg.depositContractAddress = MAINNET_DEPOSIT_CONTRACT;
  if (blobSchedule !== undefined) {
    const s: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(blobSchedule)) s[name.toLowerCase()] = v;
    cfg.blobSchedule = s;
  }
  return cfg;
}
