/**
 * The flag table of `opal-evm` (geth `cmd/evm` style) on the shared machinery (flagTable.ts,
 * parseArgs.ts): the commands `statetest` and `blocktest`, each taking fixture paths and its own
 * flags, with `OPAL_EVM_<COMMAND>_<FLAG>` environment variables. Flags are written `--name VALUE`,
 * `--name=VALUE` or, as in geth, with one dash; bad input is a one-line error, never a throw.
 */
import { defineCli } from "../flagTable.js";
import { type Env, type ParseResult, parseArgs } from "../parseArgs.js";
import { OPAL_VERSION } from "../version.js";

/** Why `text` is not a JavaScript regular expression, or undefined when it is one. */
function checkRegExp(text: string): string | undefined {
  try {
    new RegExp(text);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** The case filters both commands take. */
const FILTERS = {
  fork: {
    type: "string",
    validate: (t: string) => (t === "" ? "empty" : undefined),
    expects: "a fork name",
    help: "Only cases of this fork (fixture spelling: Prague, Osaka, ShanghaiToCancunAtTime15k, ...)",
  },
  run: {
    type: "string",
    validate: checkRegExp,
    expects: "a regular expression",
    help: "Only tests whose name matches this regular expression",
  },
} as const;

const PATHS = [{ name: "PATH", variadic: true }] as const;

export const EVM_CLI = defineCli({
  name: "opal-evm",
  version: OPAL_VERSION,
  usage: "runs Ethereum test fixtures through Opal's EVM",
  description: [
    "PATH is a file or a folder (searched recursively for *.json, in sorted order).",
    "Output: one JSON line per case on stdout, {name, fork, pass, stateRoot, error}, then 'N passed, N failed'.",
    "Exit status: 0 all passed, 1 any failed, 2 usage error. Run 'opal-evm COMMAND --help' for the flags of a command.",
  ].join("\n"),
  envPrefix: "OPAL_EVM",
  requireCommand: true,
  flags: {},
  commands: {
    statetest: {
      help: "Run GeneralStateTests-format fixture files (ethereum/tests, EEST)",
      args: PATHS,
      flags: {
        ...FILTERS,
        trace: { type: "bool", help: "Write EIP-3155 trace lines (JSON, one per step) to stderr" },
      },
    },
    blocktest: {
      help: "Run BlockchainTests-format fixture files (ethereum/tests, EEST)",
      args: PATHS,
      flags: FILTERS,
    },
  },
});

export type EvmParseResult = ParseResult<typeof EVM_CLI>;

/** Parses opal-evm's argv (without node and script paths); `env` is normally `process.env`. */
export function parseEvmArgs(argv: readonly string[], env: Env): EvmParseResult {
  return parseArgs(EVM_CLI, argv, env);
}
