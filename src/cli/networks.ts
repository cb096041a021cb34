/**
 * `opal-node networks`: one line per `--network` name (the bundled superchain-registry chains,
 * src/rollup/config/networks.ts): the name, the L2 chain id, the L1 it settles on, and every scheduled fork
 * time by the fork's override name (`canyon=1704992401 … karst=1783526401`), ordered by L1 (mainnet,
 * then sepolia, then others by chain id) and then by name. op-node has no such command: it lists the
 * names in `--network`'s help (op-service/flags `CLINetworkFlag`), which `opal-node --help` does too.
 */

import { BUNDLED_NETWORKS, l1NetworkName, networkRollupConfig } from "../rollup/config/network.js";
import { OPTIONAL_ROLLUP_FORKS, ROLLUP_FORKS, type RollupConfig } from "../rollup/config/rollupConfig.js";
import { defineCli } from "./flagTable.js";
import { parseArgs } from "./parseArgs.js";
import { EXIT_OK, EXIT_USAGE, type Io } from "./processIo.js";
import { OPAL_VERSION } from "./version.js";

const CMD = "opal-node networks";

export const NETWORKS_CLI = defineCli({
  name: CMD,
  version: OPAL_VERSION,
  usage: "list the --network names with their L2 chain id, L1 and fork activation times",
  description: [
    "One line per network: NAME  L2_CHAIN_ID  L1  FORK=TIME...",
    "FORK is the fork's --override.<fork> name (interop is upstream's Lagoon); forks that are not scheduled are left out; a time of 0 means active from genesis.",
  ].join("\n"),
  envPrefix: "OP_NODE_NETWORKS",
  flags: {
    l1: {
      type: "enum",
      values: ["mainnet", "sepolia"],
      env: false,
      help: "List only the networks on this L1",
    },
  },
});

/** One network's facts, as the line shows them. */
export interface NetworkListing {
  readonly name: string;
  readonly l2ChainId: bigint;
  readonly l1ChainId: bigint;
  /** Scheduled forks in activation order (optional forks last), by override name, with their times. */
  readonly forks: readonly (readonly [string, number])[];
}

function forksOf(cfg: RollupConfig): [string, number][] {
  const out: [string, number][] = [];
  for (const f of [...ROLLUP_FORKS, ...OPTIONAL_ROLLUP_FORKS]) {
    const t = cfg[`${f}Time`];
    if (t !== null) out.push([f.toLowerCase(), t]);
  }
  return out;
}

/** Rank of an L1 in the listing: Ethereum mainnet, then Sepolia, then any other by chain id. */
function l1Rank(id: bigint): bigint {
  return id === 1n ? -2n : id === 11155111n ? -1n : id;
}

/** Every bundled network, ordered by L1 then name. */
export function listNetworks(): NetworkListing[] {
  const out: NetworkListing[] = [];
  for (const name of BUNDLED_NETWORKS) {
    const cfg = networkRollupConfig(name);
    if (cfg === null) throw new Error(`bundled network ${name} does not resolve`);
    out.push({ name, l2ChainId: cfg.l2ChainId, l1ChainId: cfg.l1ChainId, forks: forksOf(cfg) });
  }
  return out.sort((a, b) => {
    const ra = l1Rank(a.l1ChainId);
    const rb = l1Rank(b.l1ChainId);
    if (ra !== rb) return ra < rb ? -1 : 1;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}

/** The lines of `opal-node networks`, columns aligned. */
export function formatNetworkLines(list: readonly NetworkListing[]): string[] {
  const nameW = Math.max(0, ...list.map((n) => n.name.length));
  const idW = Math.max(0, ...list.map((n) => n.l2ChainId.toString().length));
  const l1W = Math.max(0, ...list.map((n) => l1NetworkName(n.l1ChainId).length));
  return list.map((n) =>
    [
      n.name.padEnd(nameW),
      n.l2ChainId.toString().padStart(idW),
      l1NetworkName(n.l1ChainId).padEnd(l1W),
      n.forks.map(([f, t]) => `${f}=${t}`).join(" "),
    ]
      .join("  ")
      .trimEnd(),
  );
}

/** Runs `opal-node networks ARGS`; returns the exit status. */
export async function networksMain(argv: readonly string[], io: Io): Promise<number> {
  const r = parseArgs(NETWORKS_CLI, argv, {});
  switch (r.kind) {
    case "help":
    case "version":
      io.out(r.text.trimEnd());
      return EXIT_OK;
    case "error":
      io.err(`${CMD}: ${r.error}`);
      return EXIT_USAGE;
    case "run": {
      const l1 = r.config.l1;
      const list = listNetworks().filter((n) => l1 === undefined || l1NetworkName(n.l1ChainId) === l1);
      io.out(formatNetworkLines(list).join("\n"));
      return EXIT_OK;
    }
    default:
      io.err(`${CMD}: unexpected command`);
      return EXIT_USAGE;
  }
}
