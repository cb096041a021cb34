/**
 * The flag table of `opal-evm` (geth `cmd/evm` style): every knob of the command is one row here,
 * and the parser and the help text are derived from it. Flags are written `--name VALUE`,
 * `--name=VALUE` or, as in geth, with one dash. Bad input yields a `UsageError` (one line), never a throw.
 */

export type EvmFlagKind = "string" | "regex" | "bool";
export type EvmCommand = "statetest" | "blocktest";

interface EvmFlag {
  kind: EvmFlagKind;
  default?: string | boolean;
  /** Placeholder shown in the help for a flag that takes a value. */
  value?: string;
  help: string;
  /** Subcommands that accept the flag; absent for the global flags (--help, --version). */
  commands?: readonly EvmCommand[];
  alias?: string;
}

export const EVM_FLAGS = {
  fork: {
    kind: "string",
    value: "NAME",
    help: "Only cases of this fork (fixture spelling: Prague, Osaka, ShanghaiToCancunAtTime15k, ...)",
    commands: ["statetest", "blocktest"],
  },
  run: {
    kind: "regex",
    value: "REGEX",
    help: "Only tests whose name matches this regular expression",
    commands: ["statetest", "blocktest"],
  },
  trace: {
    kind: "bool",
    default: false,
    help: "Write EIP-3155 trace lines (JSON, one per step) to stderr",
    commands: ["statetest"],
  },
  help: { kind: "bool", default: false, alias: "h", help: "Print this help" },
  version: { kind: "bool", default: false, help: "Print the version" },
} as const satisfies Record<string, EvmFlag>;

export const EVM_COMMANDS = {
  statetest: { args: "PATH...", help: "Run GeneralStateTests-format fixture files (ethereum/tests, EEST)" },
  blocktest: { args: "PATH...", help: "Run BlockchainTests-format fixture files (ethereum/tests, EEST)" },
} as const satisfies Record<EvmCommand, { args: string; help: string }>;

type FlagName = keyof typeof EVM_FLAGS;

export interface EvmArgs {
  command: EvmCommand | null;
  fork: string | undefined;
  run: RegExp | undefined;
  trace: boolean;
  help: boolean;
  version: boolean;
  paths: string[];
}

export class UsageError {
  constructor(
    readonly message: string,
    /** The subcommand whose help the hint points at, if known. */
    readonly command: EvmCommand | null,
  ) {}
}

function isCommand(s: string): s is EvmCommand {
  return Object.hasOwn(EVM_COMMANDS, s);
}

function flagByName(name: string): FlagName | undefined {
  for (const [key, f] of Object.entries(EVM_FLAGS) as [FlagName, EvmFlag][]) {
    if (key === name || f.alias === name) return key;
  }
  return undefined;
}

/**
 * Parses the arguments after the program name. The subcommand is the first positional argument;
 * flags may come before or after it. `--` ends the flags.
 */
export function parseEvmArgs(argv: readonly string[]): EvmArgs | UsageError {
  const out: EvmArgs = {
    command: null,
    fork: undefined,
    run: undefined,
    trace: EVM_FLAGS.trace.default,
    help: EVM_FLAGS.help.default,
    version: EVM_FLAGS.version.default,
    paths: [],
  };
  const seen: FlagName[] = [];
  let flagsDone = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!flagsDone && a === "--") {
      flagsDone = true;
      continue;
    }
    if (flagsDone || !a.startsWith("-") || a === "-") {
      if (out.command === null) {
        if (!isCommand(a)) return new UsageError(`unknown command ${JSON.stringify(a)}`, null);
        out.command = a;
      } else {
        out.paths.push(a);
      }
      continue;
    }
    const body = a.startsWith("--") ? a.slice(2) : a.slice(1);
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    const key = flagByName(name);
    if (key === undefined)
      return new UsageError(`unknown flag ${a.slice(0, a.length - body.length)}${name}`, out.command);
    const flag: EvmFlag = EVM_FLAGS[key];
    let value: string | undefined = eq < 0 ? undefined : body.slice(eq + 1);
    if (flag.kind === "bool") {
      if (value !== undefined && value !== "true" && value !== "false") {
        return new UsageError(
          `flag --${key} takes no value (or =true/=false), got ${JSON.stringify(value)}`,
          out.command,
        );
      }
      (out[key as "trace" | "help" | "version"] as boolean) = value !== "false";
    } else {
      if (value === undefined) {
        if (i + 1 >= argv.length) return new UsageError(`flag --${key} needs a value`, out.command);
        value = argv[++i];
      }
      if (flag.kind === "regex") {
        try {
          out.run = new RegExp(value);
        } catch (e) {
          return new UsageError(`bad --${key} regular expression: ${(e as Error).message}`, out.command);
        }
      } else {
        if (value === "") return new UsageError(`flag --${key} needs a non-empty value`, out.command);
        out.fork = value;
      }
    }
    seen.push(key);
  }
  if (out.help || out.version) return out;
  if (out.command === null) return new UsageError("missing command (statetest or blocktest)", null);
  for (const key of seen) {
    const cmds: readonly EvmCommand[] | undefined = (EVM_FLAGS[key] as EvmFlag).commands;
    if (cmds !== undefined && !cmds.includes(out.command)) {
      return new UsageError(`flag --${key} is not supported by ${out.command}`, out.command);
    }
  }
  if (out.paths.length === 0) return new UsageError(`${out.command}: missing PATH`, out.command);
  return out;
}

function flagLines(filter: (f: EvmFlag) => boolean): string[] {
  const rows: [string, string][] = [];
  for (const [key, f] of Object.entries(EVM_FLAGS) as [FlagName, EvmFlag][]) {
    if (!filter(f)) continue;
    const alias = f.alias === undefined ? "" : `-${f.alias}, `;
    const left = `${alias}--${key}${f.value === undefined ? "" : ` ${f.value}`}`;
    const dflt = f.kind === "bool" || f.default === undefined ? "" : ` (default ${f.default})`;
    rows.push([left, `${f.help}${dflt}`]);
  }
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([l, r]) => `  ${l.padEnd(w)}  ${r}`);
}

/** The help text: of the whole command, or of one subcommand. */
export function evmUsage(command: EvmCommand | null): string {
  const global = (f: EvmFlag): boolean => f.commands === undefined;
  if (command === null) {
    const names = Object.keys(EVM_COMMANDS) as EvmCommand[];
    const w = Math.max(...names.map((n) => n.length));
    return [
      "Usage: opal-evm COMMAND [flags] PATH...",
      "",
      "Runs Ethereum test fixtures through Opal's EVM. PATH is a file or a folder (searched",
      "recursively for *.json, in sorted order).",
      "",
      "Commands:",
      ...names.map((n) => `  ${n.padEnd(w)}  ${EVM_COMMANDS[n].help}`),
      "",
      "Flags:",
      ...flagLines(global),
      "",
      "Output: one JSON line per case on stdout, {name, fork, pass, stateRoot, error}, then",
      "'N passed, N failed'. Exit status: 0 all passed, 1 any failed, 2 usage error.",
      "Run 'opal-evm COMMAND --help' for the flags of a command.",
      "",
    ].join("\n");
  }
  const c = EVM_COMMANDS[command];
  return [
    `Usage: opal-evm ${command} [flags] ${c.args}`,
    "",
    `${c.help}.`,
    "",
    "Flags:",
    ...flagLines((f) => f.commands?.includes(command) ?? true),
    "",
  ].join("\n");
}
