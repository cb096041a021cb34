/**
 * Declarative command-line flags (code-models §9.5, §10.8): each flag is one row of data (type,
 * default, aliases, env var, help, category), and everything else derives from the table — the
 * config type (`InferConfig`, no hand-written interface), value parsing and Go-style formatting,
 * env var names, the urfave/cli-style `--help` text and the table's invariants. Parsing of argv
 * lives in `parseArgs.ts`.
 */
import { homedir } from "node:os";
import { MAX_U64 } from "../primitives/u256.js";

// ---------------------------------------------------------------------------------------------
// Table types

export type FlagType =
  | "bool"
  | "string"
  | "path"
  | "int"
  | "uint64"
  | "bigint"
  | "float"
  | "duration"
  | "enum"
  | "list";

interface FlagBase {
  /** One sentence of help; enum values are appended by the help renderer. */
  readonly help: string;
  /** Help section; sections print in order of first appearance in the table. */
  readonly category?: string;
  /** Other names accepted on the command line (`-x` or `--x`, same as the name). */
  readonly aliases?: readonly string[];
  /** Env var name; omitted → derived (`http.port` → `<PREFIX>_HTTP_PORT`); `false` → none. */
  readonly env?: string | false;
  /** Parsed, but not listed in `--help`. */
  readonly hidden?: boolean;
  /** Parsed with a warning carrying this text; must be hidden. */
  readonly deprecated?: string;
  /** Must come from argv or env; must have no default. */
  readonly required?: boolean;
  /** Settable only through its env var (decided before any flag parsing, e.g. the native switch). */
  readonly envOnly?: boolean;
  /** Replaces the formatted default in `--help` (for computed defaults such as core counts). */
  readonly defaultText?: string;
  /**
   * Extra check on the text after the type's own (e.g. that a string compiles as a RegExp):
   * returns the problem in a few words, or undefined when the value is fine.
   */
  readonly validate?: (text: string) => string | undefined;
  /** Replaces the expected-type text of error messages, e.g. "a regular expression". */
  readonly expects?: string;
}

export interface BoolFlag extends FlagBase {
  readonly type: "bool";
  readonly default?: boolean;
  /**
   * Unset stays `undefined` instead of false: a tri-state for flags whose absence must not override
   * anything (Go's `ctx.IsSet`, e.g. op-node's `--override.keep-karst-upgrade-gas`). No default.
   */
  readonly optional?: true;
}
export interface StringFlag extends FlagBase {
  readonly type: "string";
  readonly default?: string;
}
/** A file system path; a leading `~` is expanded to the home directory (defaults too). */
export interface PathFlag extends FlagBase {
  readonly type: "path";
  readonly default?: string;
}
/** A JS safe integer (decimal or 0x hex), optionally bounded. Value: `number`. */
export interface IntFlag extends FlagBase {
  readonly type: "int";
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
}
/** 0 … 2^64-1 (decimal or 0x hex). Value: `bigint`. */
export interface Uint64Flag extends FlagBase {
  readonly type: "uint64";
  readonly default?: bigint;
}
/** Any integer (decimal or 0x hex), optionally bounded. Value: `bigint`. */
export interface BigIntFlag extends FlagBase {
  readonly type: "bigint";
  readonly default?: bigint;
  readonly min?: bigint;
  readonly max?: bigint;
}
/** A finite decimal number, optionally bounded. Value: `number`. */
export interface FloatFlag extends FlagBase {
  readonly type: "float";
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
}
/**
 * A Go duration ("1h0m0s", "10s", "500ms", "1.5m"), optionally bounded (ms, inclusive: a value
 * outside is a usage error naming the range). Value: milliseconds (`number`).
 */
export interface DurationFlag extends FlagBase {
  readonly type: "duration";
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
}
/** One of `values`. Value: the union of the literals. */
export interface EnumFlag extends FlagBase {
  readonly type: "enum";
  readonly values: readonly string[];
  readonly default?: string;
}
/** Comma-separated strings, trimmed, empty items dropped (geth's SplitAndTrim). Value: frozen array. */
export interface ListFlag extends FlagBase {
  readonly type: "list";
  readonly default?: readonly string[];
  /**
   * May be given more than once; the values add up (`--x a --x b` = `--x a,b`), and `validate` sees
   * them joined with commas. Otherwise a second occurrence is an error, as for every other flag.
   */
  readonly repeatable?: boolean;
}

export type FlagSpec =
  | BoolFlag
  | StringFlag
  | PathFlag
  | IntFlag
  | Uint64Flag
  | BigIntFlag
  | FloatFlag
  | DurationFlag
  | EnumFlag
  | ListFlag;

export type FlagTable = { readonly [name: string]: FlagSpec };

/** A positional argument of a command: required unless `optional`; only the last may be `variadic`. */
export interface ArgSpec {
  readonly name: string;
  readonly optional?: boolean;
  /** Takes all remaining arguments (at least one unless `optional`). */
  readonly variadic?: boolean;
}

export interface CommandSpec {
  /** One line, shown in the command list. */
  readonly help: string;
  /** Longer text for `<cli> <command> --help`; lines are kept, each wrapped at 90 columns. */
  readonly description?: string;
  readonly args?: readonly ArgSpec[];
  /** Flags of this command only; global flags are accepted after the command too. */
  readonly flags?: FlagTable;
}

export interface CliSpec {
  /** Binary name, e.g. `opal-exec`. */
  readonly name: string;
  readonly version: string;
  /** One line: what the binary is. */
  readonly usage: string;
  /** Longer text for `--help` (and docs/cli.md); lines are kept, each wrapped at 90 columns. */
  readonly description?: string;
  /** Env var prefix without the trailing `_`, e.g. `OPAL_EXEC`. */
  readonly envPrefix: string;
  readonly flags: FlagTable;
  readonly commands?: { readonly [name: string]: CommandSpec };
  /** Positional arguments when no command is given (only allowed without `commands`). */
  readonly args?: readonly ArgSpec[];
  /** A command must be given (tools such as opal-evm); otherwise no command means "run". */
  readonly requireCommand?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Inferred config types

export type ValueOf<F extends FlagSpec> = F extends BoolFlag
  ? boolean
  : F extends StringFlag | PathFlag
    ? string
    : F extends IntFlag | FloatFlag | DurationFlag
      ? number
      : F extends Uint64Flag | BigIntFlag
        ? bigint
        : F extends { readonly type: "enum"; readonly values: readonly (infer V extends string)[] }
          ? V
          : F extends ListFlag
            ? readonly string[]
            : never;

/** Whether a flag always has a value: a default, `required`, or a bool/list (false / empty). */
type AlwaysSet<F> = F extends { readonly default: unknown }
  ? true
  : F extends { readonly required: true }
    ? true
    : F extends { readonly type: "bool"; readonly optional: true }
      ? false
      : F extends { readonly type: "bool" | "list" }
        ? true
        : false;

/** The config object a table yields, keyed by flag name. */
export type InferConfig<T extends FlagTable> = {
  readonly [K in keyof T]: AlwaysSet<T[K]> extends true ? ValueOf<T[K]> : ValueOf<T[K]> | undefined;
};

/** The part of a config under `prefix.`, with the prefix stripped: `Slice<C, "txpool">["pricebump"]`. */
export type Slice<C, P extends string> = {
  readonly [K in keyof C as K extends `${P}.${infer R}` ? R : never]: C[K];
};

/**
 * A compile-time link from a table's config `C` to an option type `Lower` that a layer below cli/
 * declares keyed by flag names (node/ and p2p/ cannot import the tables). The constraint
 * `C extends Lower` fails when a flag `Lower` reads is removed, renamed or retyped beyond what
 * `Lower` takes; the result is `true` only when also each *optional* key of `Lower` is a flag of `C`
 * (otherwise a renamed flag would leave that option silently absent). Assert it with
 * `Assert<Supplies<NodeConfig, P2pConfig>>`; nothing of it exists at run time.
 */
export type Supplies<C extends Lower, Lower> = [Exclude<keyof Lower, keyof C>] extends [never]
  ? true
  : { readonly notFlags: Exclude<keyof Lower, keyof C> };

/** Compiles only when `T` is `true` (see `Supplies`). */
export type Assert<T extends true> = T;

export type CommandsOf<S extends CliSpec> = S extends { readonly commands: infer C } ? C : Record<never, CommandSpec>;
export type CommandFlagsOf<C> = C extends { readonly flags: infer F extends FlagTable } ? F : Record<never, FlagSpec>;

/**
 * Checks a CLI spec (see `validateCli`) and returns it unchanged; the `const` type parameter keeps
 * literal types (enum values) without `as const` at the call site.
 */
export function defineCli<const S extends CliSpec>(spec: S): S {
  const problems = validateCli(spec);
  if (problems.length > 0) throw new Error(`${spec.name}: bad flag table: ${problems.join("; ")}`);
  return spec;
}

/** `sliceConfig(cfg, "txpool")` → `{pricelimit, pricebump, …}`, frozen. */
export function sliceConfig<C extends object, P extends string>(config: C, prefix: P): Slice<C, P> {
  const out: Record<string, unknown> = {};
  const head = `${prefix}.`;
  for (const [k, v] of Object.entries(config)) if (k.startsWith(head)) out[k.slice(head.length)] = v;
  return Object.freeze(out) as Slice<C, P>;
}

// ---------------------------------------------------------------------------------------------
// Names

/** Flag names (aliases may also be one capital letter, e.g. `-V`). */
const NAME_RE = /^[a-z0-9]+([.-][a-z0-9]+)*$/;
/** Names the parser owns. */
export const RESERVED_NAMES: readonly string[] = ["help", "h", "version", "v"];

/** `http.port` with prefix `OPAL_EXEC` → `OPAL_EXEC_HTTP_PORT` (geth's AutoEnvVars rule). */
export function deriveEnvName(prefix: string, name: string): string {
  return `${prefix}_${name}`.toUpperCase().replace(/[.-]/g, "_");
}

/** The env var of a flag, or undefined when it has none. `command` scopes a command's flags. */
export function envNameOf(prefix: string, name: string, spec: FlagSpec, command?: string): string | undefined {
  if (spec.env === false) return undefined;
  if (spec.env !== undefined) return spec.env;
  return deriveEnvName(command === undefined ? prefix : `${prefix}_${command}`, name);
}

/** `--name` for long names, `-n` for one letter. */
export function dashed(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

// ---------------------------------------------------------------------------------------------
// Values

export const MS_PER_SECOND = 1000;
export const MS_PER_MINUTE = 60 * MS_PER_SECOND;
export const MS_PER_HOUR = 60 * MS_PER_MINUTE;

const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n, // U+00B5
  μs: 1000n, // U+03BC
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX_DURATION_NS = (1n << 63n) - 1n;

/** Go's `time.ParseDuration`, to milliseconds; undefined when invalid. */
export function parseGoDuration(text: string): number | undefined {
  let s = text;
  let neg = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") return undefined;
  const part = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  let ns = 0n;
  while (s.length > 0) {
    const m = part.exec(s);
    if (!m) return undefined;
    const int = m[1]!;
    const frac = m[2] ?? "";
    if (int === "" && frac === "") return undefined;
    const unit = UNIT_NS[m[3]!]!;
    ns += BigInt(int || "0") * unit;
    if (frac !== "") ns += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    if (ns > MAX_DURATION_NS) return undefined;
    s = s.slice(m[0].length);
  }
  const ms = Number(ns) / 1e6;
  return neg && ms !== 0 ? -ms : ms;
}

function fracText(v: bigint, unit: bigint, digits: number): string {
  const whole = v / unit;
  const rest = v % unit;
  if (rest === 0n) return `${whole}`;
  return `${whole}.${rest.toString().padStart(digits, "0").replace(/0+$/, "")}`;
}

/** Go's `time.Duration.String()` of a millisecond count: "3h0m0s", "5s", "500ms", "1.5µs", "0s". */
export function formatGoDuration(ms: number): string {
  let ns = BigInt(Math.round(ms * 1e6));
  const neg = ns < 0n;
  if (neg) ns = -ns;
  let out: string;
  if (ns === 0n) return "0s";
  if (ns < 1000n) out = `${ns}ns`;
  else if (ns < 1_000_000n) out = `${fracText(ns, 1000n, 3)}µs`;
  else if (ns < 1_000_000_000n) out = `${fracText(ns, 1_000_000n, 6)}ms`;
  else {
    const h = ns / UNIT_NS.h!;
    const m = (ns % UNIT_NS.h!) / UNIT_NS.m!;
    const s = ns % UNIT_NS.m!;
    out = `${h > 0n ? `${h}h` : ""}${h > 0n || m > 0n ? `${m}m` : ""}${fracText(s, UNIT_NS.s!, 9)}s`;
  }
  return neg ? `-${out}` : out;
}

const INT_RE = /^[+-]?(\d+|0[xX][0-9a-fA-F]+)$/;
const FLOAT_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const TRUE_WORDS = ["1", "t", "T", "true", "TRUE", "True"];
const FALSE_WORDS = ["0", "f", "F", "false", "FALSE", "False"];

function parseBigIntText(text: string): bigint | undefined {
  if (!INT_RE.test(text)) return undefined;
  const neg = text.startsWith("-");
  const body = text.replace(/^[+-]/, "");
  const v = BigInt(body);
  return neg ? -v : v;
}

/** The expected form of a flag's value, for error messages. */
export function describeType(spec: FlagSpec): string {
  if (spec.expects !== undefined) return spec.expects;
  switch (spec.type) {
    case "bool":
      return "a boolean (true or false)";
    case "string":
      return "a string";
    case "path":
      return "a path";
    case "int":
      return `an integer${rangeText(spec.min, spec.max)}`;
    case "uint64":
      return "an unsigned 64-bit integer";
    case "bigint":
      return `an integer${rangeText(spec.min, spec.max)}`;
    case "float":
      return `a number${rangeText(spec.min, spec.max)}`;
    case "duration":
      return `a duration such as "1h0m0s", "10s" or "500ms"${durationRangeText(spec.min, spec.max)}`;
    case "enum":
      return `one of ${spec.values.join(", ")}`;
    case "list":
      return "a comma-separated list";
  }
}

function rangeText(min: number | bigint | string | undefined, max: number | bigint | string | undefined): string {
  if (min !== undefined && max !== undefined) return ` in [${min}, ${max}]`;
  if (min !== undefined) return ` ≥ ${min}`;
  if (max !== undefined) return ` ≤ ${max}`;
  return "";
}

function durationRangeText(min: number | undefined, max: number | undefined): string {
  return rangeText(
    min === undefined ? undefined : formatGoDuration(min),
    max === undefined ? undefined : formatGoDuration(max),
  );
}

function inRange<T extends number | bigint>(v: T, min: T | undefined, max: T | undefined): boolean {
  return (min === undefined || v >= min) && (max === undefined || v <= max);
}

/** Expands a leading `~` / `~/` to `home`. */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return `${home}${path.slice(1)}`;
  return path;
}

/**
 * Parses one flag value from its text (argv or env). Returns `{ok: false}` on a bad value; the
 * caller names the flag. Paths are returned unexpanded (see `expandHome`).
 */
export function parseValue(
  spec: FlagSpec,
  text: string,
): { ok: true; value: unknown } | { ok: false; reason?: string } {
  const r = parseTyped(spec, text);
  if (r.ok && spec.validate !== undefined) {
    const reason = spec.validate(text);
    if (reason !== undefined) return { ok: false, reason: reason.replace(/\s+/g, " ") };
  }
  return r;
}

function parseTyped(spec: FlagSpec, text: string): { ok: true; value: unknown } | { ok: false } {
  const bad = { ok: false } as const;
  switch (spec.type) {
    case "bool":
      if (TRUE_WORDS.includes(text)) return { ok: true, value: true };
      if (FALSE_WORDS.includes(text)) return { ok: true, value: false };
      return bad;
    case "string":
    case "path":
      return { ok: true, value: text };
    case "int": {
      const v = parseBigIntText(text);
      if (v === undefined) return bad;
      const n = Number(v);
      if (!Number.isSafeInteger(n) || !inRange(n, spec.min, spec.max)) return bad;
      return { ok: true, value: n };
    }
    case "uint64": {
      const v = parseBigIntText(text);
      if (v === undefined || v < 0n || v > MAX_U64) return bad;
      return { ok: true, value: v };
    }
    case "bigint": {
      const v = parseBigIntText(text);
      if (v === undefined || !inRange(v, spec.min, spec.max)) return bad;
      return { ok: true, value: v };
    }
    case "float": {
      if (!FLOAT_RE.test(text)) return bad;
      const n = Number(text);
      if (!Number.isFinite(n) || !inRange(n, spec.min, spec.max)) return bad;
      return { ok: true, value: n };
    }
    case "duration": {
      const ms = parseGoDuration(text);
      return ms === undefined || !inRange(ms, spec.min, spec.max) ? bad : { ok: true, value: ms };
    }
    case "enum":
      return spec.values.includes(text) ? { ok: true, value: text } : bad;
    case "list":
      return {
        ok: true,
        value: Object.freeze(
          text
            .split(",")
            .map((s) => s.trim())
            .filter((s) => s !== ""),
        ),
      };
  }
}

/** A value as the command line would take it back (`parseValue(spec, formatValue(spec, v))` = v). */
export function formatValue(spec: FlagSpec, value: unknown): string {
  switch (spec.type) {
    case "duration":
      return formatGoDuration(value as number);
    case "list":
      return (value as readonly string[]).join(",");
    default:
      return String(value);
  }
}

/** The `(default: …)` text of urfave/cli: strings and lists quoted, empty ones omitted; undefined → "". */
export function defaultText(spec: FlagSpec): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  const d = spec.type === "bool" && spec.optional !== true ? (spec.default ?? false) : spec.default;
  if (d === undefined) return "";
  const text = formatValue(spec, d);
  if (text === "" && spec.type !== "bool") return "";
  if (spec.type === "string" || spec.type === "enum" || spec.type === "list") return JSON.stringify(text);
  return text;
}

/** The value a flag holds when neither argv nor env sets it (bools false, lists empty, paths expanded). */
export function defaultValue(spec: FlagSpec, home: string): unknown {
  switch (spec.type) {
    case "bool":
      return spec.optional === true ? undefined : (spec.default ?? false);
    case "list":
      return Object.freeze([...(spec.default ?? [])]);
    case "path":
      return spec.default === undefined ? undefined : expandHome(spec.default, home);
    default:
      return spec.default;
  }
}

// ---------------------------------------------------------------------------------------------
// Invariants

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return Object.is(a, b) || a === b;
}

function checkTable(
  where: string,
  table: FlagTable,
  envOf: (name: string, spec: FlagSpec) => string | undefined,
  names: Set<string>,
  envs: Map<string, string>,
  problems: string[],
): void {
  for (const [name, spec] of Object.entries(table)) {
    const label = `${where}--${name}`;
    for (const n of [name, ...(spec.aliases ?? [])]) {
      if (!NAME_RE.test(n) && !(n !== name && /^[A-Z]$/.test(n)))
        problems.push(`${label}: bad name ${JSON.stringify(n)}`);
      if (RESERVED_NAMES.includes(n)) problems.push(`${label}: ${JSON.stringify(n)} is reserved`);
      if (names.has(n)) problems.push(`${label}: name ${JSON.stringify(n)} used twice`);
      names.add(n);
    }
    const env = envOf(name, spec);
    if (env !== undefined) {
      if (!/^[A-Z][A-Z0-9_]*$/.test(env)) problems.push(`${label}: bad env name ${env}`);
      const other = envs.get(env);
      if (other !== undefined) problems.push(`${label}: env ${env} also used by ${other}`);
      envs.set(env, label);
    }
    if (spec.envOnly && env === undefined) problems.push(`${label}: envOnly without an env var`);
    if (spec.required && spec.default !== undefined) problems.push(`${label}: required flags take no default`);
    if (spec.type === "bool" && spec.optional === true && (spec.default !== undefined || spec.required)) {
      problems.push(`${label}: an optional bool takes no default and is not required`);
    }
    if (spec.deprecated !== undefined && !spec.hidden) problems.push(`${label}: deprecated flags must be hidden`);
    if (spec.help.trim() === "" || spec.help.includes("\n")) problems.push(`${label}: help must be one line`);
    if (spec.type === "enum" && spec.values.length === 0) problems.push(`${label}: enum without values`);
    if (spec.default !== undefined) {
      const back = parseValue(spec, formatValue(spec, spec.default));
      if (!back.ok || !sameValue(back.value, spec.default)) {
        problems.push(
          `${label}: default ${JSON.stringify(formatValue(spec, spec.default))} is not ${describeType(spec)}`,
        );
      }
    }
  }
}

/** Every problem of a spec (empty = valid): names, aliases, env names, defaults, commands, args. */
export function validateCli(spec: CliSpec): string[] {
  const problems: string[] = [];
  if (!/^[A-Z]([A-Z0-9_]*[A-Z0-9])?$/.test(spec.envPrefix)) problems.push(`bad env prefix ${spec.envPrefix}`);
  const globalNames = new Set<string>();
  const envs = new Map<string, string>();
  checkTable("", spec.flags, (n, f) => envNameOf(spec.envPrefix, n, f), globalNames, envs, problems);
  const checkArgs = (where: string, args: readonly ArgSpec[] | undefined): void => {
    (args ?? []).forEach((a, i, all) => {
      if (a.variadic && i !== all.length - 1) problems.push(`${where}: only the last argument may be variadic`);
      if (!a.optional && i > 0 && all[i - 1]!.optional) problems.push(`${where}: required argument after optional`);
    });
  };
  checkArgs("arguments", spec.args);
  if (spec.args !== undefined && spec.commands !== undefined) problems.push("args and commands are exclusive");
  if (spec.requireCommand && spec.commands === undefined) problems.push("requireCommand without commands");
  for (const [cmd, c] of Object.entries(spec.commands ?? {})) {
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(cmd) || RESERVED_NAMES.includes(cmd)) {
      problems.push(`bad command name ${JSON.stringify(cmd)}`);
    }
    // A command's flags share the namespace of the global flags: both are accepted after it.
    const names = new Set(globalNames);
    checkTable(`${cmd} `, c.flags ?? {}, (n, f) => envNameOf(spec.envPrefix, n, f, cmd), names, envs, problems);
    checkArgs(cmd, c.args);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Help (geth's urfave/cli layout: internal/flags/helpers.go FlagString)

function wordWrap(s: string, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of s.split(" ")) {
    if (line !== "" && line.length + 1 + word.length >= width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join("\n");
}

/** A description's lines, each word-wrapped at `width` (continuations keep the line's indent), indented by 3. */
export function wrapDescription(text: string, width = 90): string {
  return text
    .split("\n")
    .map((l) => {
      const indent = /^ */.exec(l)![0];
      const body = l.slice(indent.length);
      if (body === "") return "";
      return wordWrap(body, width - indent.length)
        .split("\n")
        .map((w) => `   ${indent}${w}`)
        .join("\n");
    })
    .join("\n");
}

/** One flag's help entry: names, default and env on one line, the wrapped usage below. */
export function flagHelp(name: string, spec: FlagSpec, env: string | undefined): string {
  const names = [name, ...(spec.aliases ?? [])].map(dashed).join(", ");
  const namesText = spec.envOnly ? `$${env}` : spec.type === "bool" ? names : `${names} value`;
  const def = defaultText(spec);
  const defText = def === "" ? "" : ` (default: ${def})`;
  const envText = env === undefined || spec.envOnly ? "" : ` ($${env})`;
  let usage = spec.help.trim();
  if (spec.type === "enum") usage += ` (${spec.values.join("|")})`;
  if (spec.required) usage += " (required)";
  if (spec.type === "list" && spec.repeatable) usage += " (may be repeated)";
  const head = `    ${namesText.padEnd(35)}${defText.padEnd(35)}${envText}`.trimEnd();
  const body = wordWrap(usage, 80)
    .split("\n")
    .map((l) => `          ${l}`)
    .join("\n");
  return `${head}\n${body}`;
}

function flagSection(table: FlagTable, envOf: (name: string, spec: FlagSpec) => string | undefined): string[] {
  const byCategory = new Map<string, string[]>();
  for (const [name, spec] of Object.entries(table)) {
    if (spec.hidden) continue;
    const cat = spec.category ?? "";
    let list = byCategory.get(cat);
    if (list === undefined) byCategory.set(cat, (list = []));
    list.push(flagHelp(name, spec, envOf(name, spec)));
  }
  const out: string[] = [];
  for (const [cat, entries] of byCategory) out.push(`${cat === "" ? "" : `   ${cat}\n\n`}${entries.join("\n\n")}\n`);
  return out;
}

function argsUsage(args: readonly ArgSpec[] | undefined): string {
  return (args ?? [])
    .map((a) => {
      const n = a.optional ? `[${a.name}]` : `<${a.name}>`;
      return a.variadic ? `${n}...` : n;
    })
    .join(" ");
}

const MISC_HELP = [
  flagHelp("help", { type: "bool", help: "show help", aliases: ["h"] }, undefined),
  flagHelp("version", { type: "bool", help: "print the version", aliases: ["v"] }, undefined),
].join("\n\n");

/** The USAGE line of `--help`: the whole CLI, or one command when `command` is given. */
export function usageLine(spec: CliSpec, command?: string): string {
  const c = command === undefined ? undefined : spec.commands?.[command];
  if (c !== undefined) {
    const opts = c.flags && Object.keys(c.flags).length > 0 ? " [command options]" : "";
    const args = argsUsage(c.args);
    return `${spec.name} [global options] ${command}${opts}${args ? ` ${args}` : ""}`;
  }
  const cmds = Object.keys(spec.commands ?? {});
  const cmdUsage =
    cmds.length === 0 ? "" : spec.requireCommand ? " command [command options]" : " [command [command options]]";
  const args = argsUsage(spec.args);
  return `${spec.name} [global options]${cmdUsage}${args ? ` ${args}` : ""}`;
}

/** `--help` text: the whole CLI, or one command when `command` is given. */
export function renderHelp(spec: CliSpec, command?: string): string {
  const c = command === undefined ? undefined : spec.commands?.[command];
  const out: string[] = [];
  if (c !== undefined && command !== undefined) {
    out.push(`NAME:\n   ${spec.name} ${command} - ${c.help}\n`);
    out.push(`USAGE:\n   ${usageLine(spec, command)}\n`);
    if (c.description !== undefined) out.push(`DESCRIPTION:\n${wrapDescription(c.description)}\n`);
    const sections = flagSection(c.flags ?? {}, (n, f) => envNameOf(spec.envPrefix, n, f, command));
    if (sections.length > 0) out.push(`OPTIONS:\n\n${sections.join("\n")}`);
    out.push(`GLOBAL OPTIONS:\n   see ${spec.name} --help\n`);
    return out.join("\n");
  }
  out.push(`NAME:\n   ${spec.name} - ${spec.usage}\n`);
  const cmds = Object.entries(spec.commands ?? {});
  out.push(`USAGE:\n   ${usageLine(spec)}\n`);
  out.push(`VERSION:\n   ${spec.version}\n`);
  if (spec.description !== undefined) out.push(`DESCRIPTION:\n${wrapDescription(spec.description)}\n`);
  if (cmds.length > 0) {
    const w = Math.max(...cmds.map(([n]) => n.length)) + 2;
    out.push(`COMMANDS:\n${cmds.map(([n, cs]) => `   ${n.padEnd(w)}${cs.help}`).join("\n")}\n`);
  }
  const sections = flagSection(spec.flags, (n, f) => envNameOf(spec.envPrefix, n, f));
  sections.push(`   MISC\n\n${MISC_HELP}\n`);
  out.push(`GLOBAL OPTIONS:\n\n${sections.join("\n")}`);
  return out.join("\n");
}

/** `--version` text, as geth prints it. */
export function renderVersion(spec: CliSpec): string {
  return `${spec.name} version ${spec.version}`;
}

// ---------------------------------------------------------------------------------------------
// Dump

/**
 * A config as JSON (`dumpconfig`): each value in the form its flag takes (durations "5s", bigints
 * as decimal strings), so every entry can be passed back as `--name=value`.
 */
export function dumpConfig(table: FlagTable, config: object): string {
  const out: Record<string, unknown> = {};
  const values = config as Readonly<Record<string, unknown>>;
  for (const [name, spec] of Object.entries(table)) {
    const v = values[name];
    if (v === undefined) out[name] = null;
    else if (spec.type === "duration" || spec.type === "uint64" || spec.type === "bigint") {
      out[name] = formatValue(spec, v);
    } else out[name] = v;
  }
  return JSON.stringify(out, null, 2);
}

/** The home directory paths expand against (parse takes it as an option so tests can pin it). */
export function defaultHome(): string {
  return homedir();
}
