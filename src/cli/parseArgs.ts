/**
 * argv + env → a frozen, typed result for a `CliSpec` (flagTable.ts). Go/urfave conventions:
 * `--flag value`, `--flag=value`, `-flag` = `--flag`, booleans as `--flag` or `--flag=false`,
 * `--` ends the flags. Precedence: argv > env > default. Never exits and never prints: the entry
 * decides what to do with an error, help or version result. Every error is one line naming the
 * flag (or env var) and, for bad values, the expected type.
 */
import {
  type ArgSpec,
  type CliSpec,
  type CommandFlagsOf,
  type CommandSpec,
  type CommandsOf,
  dashed,
  defaultHome,
  defaultValue,
  describeType,
  envNameOf,
  expandHome,
  type FlagSpec,
  type FlagTable,
  type InferConfig,
  parseValue,
  renderHelp,
  renderVersion,
} from "./flagTable.js";

/** Where a value came from. */
export type ValueSource = "flag" | "env" | "default";

export interface ParseOptions {
  /** Home directory for `~` in paths; default `os.homedir()`. */
  readonly home?: string;
}

export interface ParseError {
  readonly ok: false;
  readonly kind: "error";
  /** One line, e.g. `unknown flag --htpp.port (did you mean --http.port?)`. */
  readonly error: string;
  /** The command being parsed, when known (the entry can point at `<cli> <command> --help`). */
  readonly command: string | undefined;
}

export interface TextResult {
  readonly ok: true;
  readonly kind: "help" | "version";
  readonly text: string;
}

interface Parsed {
  readonly ok: true;
  /** Positional arguments (of the command, or of the CLI without commands). */
  readonly args: readonly string[];
  /** Source of every global flag's value. */
  readonly sources: { readonly [name: string]: ValueSource };
  /** Deprecated flags used, unknown `<PREFIX>_*` env vars (op-node's ValidateEnvVars). */
  readonly warnings: readonly string[];
}

export interface RunResult<S extends CliSpec> extends Parsed {
  readonly kind: "run";
  readonly command: undefined;
  readonly config: InferConfig<S["flags"]>;
}

export type CommandResult<S extends CliSpec> = {
  readonly [K in keyof CommandsOf<S> & string]: Parsed & {
    readonly kind: "command";
    readonly command: K;
    readonly config: InferConfig<S["flags"]>;
    /** The command's own flags. */
    readonly options: InferConfig<CommandFlagsOf<CommandsOf<S>[K]>>;
    readonly optionSources: { readonly [name: string]: ValueSource };
  };
}[keyof CommandsOf<S> & string];

export type ParseResult<S extends CliSpec> = ParseError | TextResult | RunResult<S> | CommandResult<S>;

export type Env = { readonly [name: string]: string | undefined };

// ---------------------------------------------------------------------------------------------

/** Levenshtein distance, for "did you mean". */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The closest candidate within a third of the word's length (at least 1, at most 3 edits). */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestD = limit + 1;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

/** Quotes a user-supplied value so messages stay on one line. */
function q(s: string): string {
  return JSON.stringify(s);
}

interface Lookup {
  /** name or alias → canonical name and its table. */
  readonly byName: Map<string, { name: string; spec: FlagSpec; scope: "global" | "command" }>;
}

function indexTable(byName: Lookup["byName"], table: FlagTable, scope: "global" | "command"): void {
  for (const [name, spec] of Object.entries(table)) {
    for (const n of [name, ...(spec.aliases ?? [])]) byName.set(n, { name, spec, scope });
  }
}

function argCounts(args: readonly ArgSpec[]): { min: number; max: number } {
  let min = 0;
  let max = 0;
  for (const a of args) {
    if (!a.optional) min++;
    max = a.variadic ? Number.POSITIVE_INFINITY : max + 1;
  }
  return { min, max };
}

const BOOL_WORDS = /^(true|false|t|f|0|1)$/i;

function looksNegativeNumber(tok: string): boolean {
  return /^-(\d|\.\d)/.test(tok);
}

function expected(spec: FlagSpec, reason: string | undefined): string {
  return reason === undefined ? describeType(spec) : `${describeType(spec)} (${reason})`;
}

class Failure {
  constructor(readonly message: string) {}
}

/**
 * The one point where parsed values meet their inferred type: `resolveTable` gives every flag of
 * `table` a value of its type or, only where `InferConfig` allows it, undefined (parseValue and
 * defaultValue; test/unit/cli/flagTable.test.ts checks each type). The compiler cannot follow a
 * table read at run time, so that is stated here once.
 */
function inferred<T extends FlagTable>(_table: T, values: Readonly<Record<string, unknown>>): InferConfig<T> {
  return values as InferConfig<T>;
}

/** Resolves every flag of a table: argv > env > default; throws `Failure`. */
function resolveTable(
  table: FlagTable,
  given: ReadonlyMap<string, string>,
  envOf: (name: string, spec: FlagSpec) => string | undefined,
  env: Env,
  home: string,
): { values: Record<string, unknown>; sources: Record<string, ValueSource> } {
  const values: Record<string, unknown> = {};
  const sources: Record<string, ValueSource> = {};
  for (const [name, spec] of Object.entries(table)) {
    const fromArgv = given.get(name);
    const envName = envOf(name, spec);
    const fromEnv = envName === undefined ? undefined : env[envName];
    let value: unknown;
    let source: ValueSource;
    if (fromArgv !== undefined) {
      const r = parseValue(spec, fromArgv);
      if (!r.ok) {
        throw new Failure(
          `invalid value ${q(fromArgv)} for flag ${dashed(name)}: expected ${expected(spec, r.reason)}`,
        );
      }
      value = r.value;
      source = "flag";
    } else if (fromEnv !== undefined && fromEnv !== "") {
      const r = parseValue(spec, fromEnv);
      if (!r.ok) {
        throw new Failure(
          `invalid value ${q(fromEnv)} for $${envName} (flag ${dashed(name)}): expected ${expected(spec, r.reason)}`,
        );
      }
      value = r.value;
      source = "env";
    } else {
      value = defaultValue(spec, home);
      source = "default";
      if (value === undefined && spec.required) {
        throw new Failure(
          spec.envOnly
            ? `missing required $${envName}`
            : `missing required flag ${dashed(name)}${envName === undefined ? "" : ` (or $${envName})`}`,
        );
      }
    }
    if (spec.type === "path" && typeof value === "string" && source !== "default") value = expandHome(value, home);
    values[name] = value;
    sources[name] = source;
  }
  return { values: Object.freeze(values), sources: Object.freeze(sources) };
}

/**
 * Parses `argv` (without the node and script paths) against `spec`, with `env` (normally
 * `process.env`, passed by the entry) as the fallback for flags not on the command line.
 */
export function parseArgs<const S extends CliSpec>(
  spec: S,
  argv: readonly string[],
  env: Env,
  opts: ParseOptions = {},
): ParseResult<S> {
  const home = opts.home ?? defaultHome();
  const commands: { readonly [name: string]: CommandSpec } = spec.commands ?? {};
  const byName: Lookup["byName"] = new Map();
  indexTable(byName, spec.flags, "global");

  let command: string | undefined;
  let cmdSpec: CommandSpec | undefined;
  const globalGiven = new Map<string, string>();
  const cmdGiven = new Map<string, string>();
  const positionals: string[] = [];
  const warnings: string[] = [];
  let wantHelp = false;
  let wantVersion = false;
  let error: string | undefined;
  let dashDash = false;
  /** The previous token was a bool flag without `=value` (to explain a following "false"). */
  let lastBool: string | undefined;

  const fail = (message: string): void => {
    error ??= message;
  };

  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (!dashDash && tok === "--") {
      dashDash = true;
      continue;
    }
    const afterBool = lastBool;
    lastBool = undefined;
    if (dashDash || tok === "-" || !tok.startsWith("-")) {
      if (error !== undefined) continue; // after an error only --help is still looked for
      if (afterBool !== undefined && BOOL_WORDS.test(tok)) {
        fail(`flag ${dashed(afterBool)} takes no separate value: write ${dashed(afterBool)}=${tok}`);
        continue;
      }
      if (command === undefined && spec.commands !== undefined && positionals.length === 0 && !dashDash) {
        if (Object.hasOwn(commands, tok)) {
          command = tok;
          cmdSpec = commands[tok]!;
          indexTable(byName, cmdSpec.flags ?? {}, "command");
        } else {
          const guess = closest(tok, Object.keys(commands));
          fail(`unknown command ${q(tok)}${guess === undefined ? "" : ` (did you mean ${guess}?)`}`);
        }
      } else positionals.push(tok);
      continue;
    }
    const body = tok.startsWith("--") ? tok.slice(2) : tok.slice(1);
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    const inline = eq < 0 ? undefined : body.slice(eq + 1);
    const entry = byName.get(name);
    if (entry === undefined) {
      if (name === "help" || name === "h") {
        wantHelp = true;
        continue;
      }
      if (name === "version" || name === "v") {
        wantVersion = true;
        continue;
      }
      if (error !== undefined) continue;
      const owners = Object.entries(commands)
        .filter(([, c]) => c.flags !== undefined && Object.hasOwn(c.flags, name))
        .map(([n]) => n);
      if (owners.length > 0) {
        fail(
          command === undefined
            ? `flag ${dashed(name)} belongs to command ${owners.join(", ")}; give it after the command`
            : `flag ${dashed(name)} is not supported by command ${command} (only ${owners.join(", ")})`,
        );
        continue;
      }
      const shown = /^[A-Za-z0-9._-]+$/.test(name) ? dashed(name) : q(tok);
      const guess = closest(name, byName.keys());
      fail(`unknown flag ${shown}${guess === undefined ? "" : ` (did you mean ${dashed(guess)}?)`}`);
      continue;
    }
    if (error !== undefined) continue;
    const { spec: f, scope } = entry;
    const canonical = entry.name;
    if (f.envOnly) {
      fail(
        `${dashed(canonical)} is set only through $${envNameOf(spec.envPrefix, canonical, f, scope === "command" ? command : undefined)}`,
      );
      continue;
    }
    const given = scope === "global" ? globalGiven : cmdGiven;
    const earlier = given.get(canonical);
    if (earlier !== undefined && !(f.type === "list" && f.repeatable === true)) {
      fail(`flag ${dashed(canonical)} given more than once`);
      continue;
    }
    let value: string;
    if (f.type === "bool") {
      value = inline ?? "true";
      if (inline === undefined) lastBool = canonical;
    } else if (inline !== undefined) value = inline;
    else {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith("-") && next !== "-" && !looksNegativeNumber(next))) {
        fail(`flag ${dashed(canonical)} needs a value (${describeType(f)})`);
        continue;
      }
      value = next;
      i++;
    }
    given.set(canonical, earlier === undefined ? value : `${earlier},${value}`);
    if (f.deprecated !== undefined && earlier === undefined) {
      warnings.push(`flag ${dashed(canonical)} is deprecated: ${f.deprecated}`);
    }
  }

  if (wantHelp) return Object.freeze({ ok: true, kind: "help", text: renderHelp(spec, command) });
  if (wantVersion) return Object.freeze({ ok: true, kind: "version", text: renderVersion(spec) });
  const err = (message: string): ParseError => Object.freeze({ ok: false, kind: "error", error: message, command });
  if (error !== undefined) return err(error);
  if (command === undefined && spec.requireCommand) {
    return err(`a command is required: ${Object.keys(commands).join(", ")}`);
  }

  const argSpecs = (cmdSpec === undefined ? spec.args : cmdSpec.args) ?? [];
  const { min, max } = argCounts(argSpecs);
  if (positionals.length < min) {
    const missing = argSpecs[Math.min(positionals.length, argSpecs.length - 1)]!;
    return err(`missing argument <${missing.name}>${command === undefined ? "" : ` for command ${command}`}`);
  }
  if (positionals.length > max) {
    const extra = positionals[max]!;
    return err(`unexpected argument ${q(extra)}`);
  }

  try {
    const global = resolveTable(spec.flags, globalGiven, (n, f) => envNameOf(spec.envPrefix, n, f), env, home);
    // Unknown <PREFIX>_* env vars: likely typos that would otherwise be silently ignored.
    const known = new Set<string>();
    for (const [n, f] of Object.entries(spec.flags)) known.add(envNameOf(spec.envPrefix, n, f) ?? "");
    for (const [cn, c] of Object.entries(commands)) {
      for (const [n, f] of Object.entries(c.flags ?? {})) known.add(envNameOf(spec.envPrefix, n, f, cn) ?? "");
    }
    for (const k of Object.keys(env)) {
      if (k.startsWith(`${spec.envPrefix}_`) && !known.has(k)) warnings.push(`unknown environment variable ${k}`);
    }
    const base = {
      ok: true as const,
      args: Object.freeze(positionals),
      sources: global.sources,
      warnings: Object.freeze(warnings),
      config: inferred(spec.flags, global.values),
    };
    if (command === undefined || cmdSpec === undefined) {
      const run: RunResult<S> = Object.freeze({ ...base, kind: "run", command: undefined });
      return run;
    }
    const cmd = command;
    const local = resolveTable(
      cmdSpec.flags ?? {},
      cmdGiven,
      (n, f) => envNameOf(spec.envPrefix, n, f, cmd),
      env,
      home,
    );
    const result = Object.freeze({
      ...base,
      kind: "command" as const,
      command: cmd,
      options: local.values,
      optionSources: local.sources,
    });
    // `cmd` names the command whose table `local` was resolved from (cmdSpec = commands[cmd]),
    // which is what pairs `command` with `options` in CommandResult<S>.
    return result as CommandResult<S>;
  } catch (e) {
    if (e instanceof Failure) return err(e.message);
    throw e;
  }
}
