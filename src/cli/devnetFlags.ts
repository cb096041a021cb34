/**
 * The opal-devnet flag table (`npm start`): the local rollup's few knobs, with `OPAL_DEVNET_*`
 * environment variables. `--activate` is the one repeatable flag; its cross-item rules (a fork
 * given twice, forks in order, later than `--forks`) are checked by `opalDevnet.ts` after the parse
 * (node/devnetConfig.ts `devnetForkOffsets`), still before anything starts.
 */
import { DEVNET_FORKS } from "../node/devnet/devnetConfig.js";
import { defineCli, type InferConfig } from "./flagTable.js";
import { type Env, type ParseResult, parseArgs } from "./parseArgs.js";
import { OPAL_VERSION } from "./version.js";

/** Whole seconds, at least one (block times, the status period). */
const SECONDS = { type: "int", min: 1, expects: "a whole number of seconds ≥ 1" } as const;

/** One `--activate` item, `<fork>=<seconds>`: the problem in a few words, or undefined. */
export function checkActivation(item: string): string | undefined {
  const m = /^([a-z]+)=(.*)$/.exec(item);
  if (m === null) return `want <fork>=<seconds>, got ${JSON.stringify(item)}`;
  const [, fork, secs] = m;
  if (!DEVNET_FORKS.some((f) => f === fork))
    return `${fork}: not a devnet fork, want one of ${DEVNET_FORKS.join(", ")}`;
  const n = Number(secs);
  if (!/^\d+$/.test(secs!) || !Number.isSafeInteger(n) || n < 1) {
    return `${fork}: want a whole number of seconds ≥ 1, got ${JSON.stringify(secs)}`;
  }
  return undefined;
}

export const DEVNET_CLI = defineCli({
  name: "opal-devnet",
  version: OPAL_VERSION,
  usage: "a local OP Stack rollup in one command (npm start)",
  description: [
    "Runs a local OP Stack rollup: a dev L1 (opal-exec --dev with a beacon API), the sequencer's opal-exec and opal-node, opal-batcher, and a verifier's opal-exec and opal-node that follows L1 only.",
    "Prints the endpoints and the funded dev accounts, then the heads every few seconds. Ctrl-C stops it; run it again to resume from the data folder.",
  ].join("\n"),
  envPrefix: "OPAL_DEVNET",
  flags: {
    datadir: { type: "path", default: ".devnet", help: "Data folder" },
    fresh: { type: "bool", help: "Delete the data folder first and start a new devnet" },
    "block-time": { ...SECONDS, default: 2, help: "L2 block time in seconds (used for a new devnet)" },
    "l1-block-time": { ...SECONDS, default: 2, help: "L1 block time in seconds" },
    da: {
      type: "enum",
      values: ["calldata", "blobs", "auto"],
      default: "blobs",
      help: "How the batcher posts batch data",
    },
    forks: { type: "enum", values: DEVNET_FORKS, default: "jovian", help: "Newest fork active at genesis" },
    activate: {
      type: "list",
      repeatable: true,
      validate: (text) => {
        for (const item of text.split(",")) {
          const s = item.trim();
          if (s === "") continue;
          const problem = checkActivation(s);
          if (problem !== undefined) return problem;
        }
        return undefined;
      },
      expects: "<fork>=<seconds> items",
      help: "Activate a later fork F N seconds after L2 genesis, as F=N (e.g. karst=24); the status lines then report its activation block on sequencer and verifier",
    },
    "status-every": { ...SECONDS, default: 5, help: "Seconds between status lines" },
    "el-sync": {
      type: "bool",
      help: "Execution-layer sync: the verifier's opal-node runs --syncmode execution-layer and its opal-exec syncs over devp2p from the sequencer's",
    },
  },
});

export type DevnetConfig = InferConfig<typeof DEVNET_CLI.flags>;

/** Parses opal-devnet's argv (without node and script paths); `env` is normally `process.env`. */
export function parseDevnetArgs(argv: readonly string[], env: Env): ParseResult<typeof DEVNET_CLI> {
  return parseArgs(DEVNET_CLI, argv, env);
}
