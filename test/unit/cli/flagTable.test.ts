/**
 * The generic flag machinery (src/cli/flagTable.ts, src/cli/parseArgs.ts) on a small spec that has
 * every flag type: Go durations both ways, value parsing per type, argv forms, precedence
 * argv > env > default, one-line errors, subcommands, help layout, table invariants, frozen results.
 */
import { strict as assert } from "node:assert";
import fc from "fast-check";
import {
  type CliSpec,
  defaultText,
  defineCli,
  dumpConfig,
  type FlagSpec,
  type FlagTable,
  formatGoDuration,
  formatValue,
  type InferConfig,
  parseGoDuration,
  parseValue,
  renderHelp,
  type Supplies,
  sliceConfig,
  usageLine,
  validateCli,
} from "../../../src/cli/flagTable.js";
import { closest, editDistance, type ParseResult, parseArgs } from "../../../src/cli/parseArgs.js";

const HOME = "/home/u";

const SPEC = defineCli({
  name: "tool",
  version: "1.2.3",
  usage: "a test tool",
  envPrefix: "TOOL",
  flags: {
    datadir: { type: "path", default: "~/.tool", category: "CORE", help: "Data directory" },
    verbose: { type: "bool", aliases: ["V"], category: "CORE", help: "Talk more" },
    color: { type: "bool", default: true, category: "CORE", help: "Color output" },
    name: { type: "string", default: "node", category: "CORE", help: "Node name" },
    "http.port": { type: "int", default: 8545, min: 0, max: 65535, category: "RPC", help: "Port" },
    offset: { type: "int", default: 0, category: "RPC", help: "Signed offset" },
    "chain-id": { type: "uint64", default: 10n, category: "RPC", help: "Chain id" },
    fee: { type: "bigint", default: 1_000_000n, min: 0n, category: "RPC", help: "Fee in wei" },
    ratio: { type: "float", default: 1, min: 0, category: "RPC", help: "Ratio" },
    timeout: { type: "duration", default: 5000, category: "RPC", help: "Timeout" },
    "log.format": {
      type: "enum",
      values: ["terminal", "json"],
      default: "terminal",
      category: "LOG",
      help: "Format",
    },
    apis: { type: "list", default: ["eth", "net"], category: "RPC", help: "APIs" },
    origins: { type: "list", category: "RPC", help: "Origins" },
    "l1.rpc": { type: "string", category: "RPC", help: "L1 endpoint" },
    secret: { type: "path", required: true, env: "TOOL_JWT", category: "RPC", help: "JWT secret file" },
    old: { type: "int", default: 1, hidden: true, deprecated: "use --http.port", help: "Old flag" },
    internal: { type: "bool", hidden: true, help: "Hidden switch" },
    native: { type: "bool", default: true, envOnly: true, env: "TOOL_NATIVE", category: "PERF", help: "Native code" },
    noenv: { type: "string", default: "x", env: false, category: "MISC", help: "No env var" },
  },
  commands: {
    init: { help: "Initialise", args: [{ name: "genesis.json" }] },
    import: { help: "Import files", args: [{ name: "file", variadic: true }] },
    gen: {
      help: "Generate",
      description: "Writes something.",
      args: [{ name: "extra", optional: true }],
      flags: {
        out: { type: "path", help: "Output file" },
        id: { type: "uint64", default: 901n, help: "Chain id" },
      },
    },
  },
});

type Spec = typeof SPEC;
const ENV = { TOOL_JWT: "/jwt" };

function parse(argv: string[], env: Record<string, string> = ENV): ParseResult<Spec> {
  return parseArgs(SPEC, argv, env, { home: HOME });
}

function run(argv: string[], env: Record<string, string> = ENV) {
  const r = parse(argv, env);
  assert.equal(r.kind, "run", r.kind === "error" ? r.error : r.kind);
  if (r.kind !== "run") throw new Error("unreachable");
  return r;
}

function error(argv: string[], env: Record<string, string> = ENV): string {
  const r = parse(argv, env);
  assert.equal(r.kind, "error", `expected an error for ${JSON.stringify(argv)}`);
  if (r.kind !== "error") throw new Error("unreachable");
  assert.ok(!r.error.includes("\n"), `error is one line: ${r.error}`);
  return r.error;
}

describe("cli/flagTable: Go durations", () => {
  const cases: [string, number][] = [
    ["0", 0],
    ["0s", 0],
    ["1h0m0s", 3_600_000],
    ["3h", 10_800_000],
    ["10s", 10_000],
    ["500ms", 500],
    ["1m30s", 90_000],
    ["1.5h", 5_400_000],
    ["1.s", 1000],
    [".5s", 500],
    ["300us", 0.3],
    ["1µs", 0.001],
    ["1μs", 0.001],
    ["2ns", 0.000002],
    ["-1s", -1000],
    ["+5s", 5000],
    ["1h1m1s1ms", 3_661_001],
  ];
  for (const [text, ms] of cases) {
    it(`parses ${text}`, () => assert.equal(parseGoDuration(text), ms));
  }
  for (const bad of ["", "1", "s", "1x", "abc", ".s", "-", "1h-2m", "1 s", "5S", "9999999999h"]) {
    it(`rejects ${JSON.stringify(bad)}`, () => assert.equal(parseGoDuration(bad), undefined));
  }
  const formats: [number, string][] = [
    [0, "0s"],
    [5000, "5s"],
    [10_800_000, "3h0m0s"],
    [90_000, "1m30s"],
    [500, "500ms"],
    [1500, "1.5s"],
    [1.5, "1.5ms"],
    [0.0015, "1.5µs"],
    [0.000002, "2ns"],
    [-5000, "-5s"],
    [3_600_500, "1h0m0.5s"],
    [60_000, "1m0s"],
  ];
  for (const [ms, text] of formats) {
    it(`formats ${ms} ms as ${text}`, () => assert.equal(formatGoDuration(ms), text));
  }
  it("format → parse round-trips any whole-nanosecond duration", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e15, max: 1e15 }), (ns) => {
        const ms = ns / 1e6;
        assert.equal(parseGoDuration(formatGoDuration(ms)), ms);
      }),
    );
  });
});

describe("cli/flagTable: values", () => {
  const ok = (spec: FlagSpec, text: string, value: unknown) => {
    const r = parseValue(spec, text);
    assert.ok(r.ok, `${text} should parse`);
    assert.deepEqual(r.value, value);
  };
  const bad = (spec: FlagSpec, text: string) => assert.equal(parseValue(spec, text).ok, false, text);

  it("bool: Go's ParseBool words", () => {
    const s: FlagSpec = { type: "bool", help: "x" };
    for (const t of ["1", "t", "T", "true", "TRUE", "True"]) ok(s, t, true);
    for (const t of ["0", "f", "F", "false", "FALSE", "False"]) ok(s, t, false);
    for (const t of ["yes", "", "2", "tru"]) bad(s, t);
  });
  it("int: decimal and hex, safe integers, bounds", () => {
    const s: FlagSpec = { type: "int", min: 0, max: 65535, help: "x" };
    ok(s, "8545", 8545);
    ok(s, "0x10", 16);
    ok(s, "+7", 7);
    ok(s, "007", 7);
    for (const t of ["-1", "65536", "1.5", "1e3", "", "abc", " 1", "0x"]) bad(s, t);
    const u: FlagSpec = { type: "int", help: "x" };
    ok(u, "-5", -5);
    ok(u, "9007199254740991", Number.MAX_SAFE_INTEGER);
    bad(u, "9007199254740992");
  });
  it("uint64: 0 … 2^64-1 as bigint", () => {
    const s: FlagSpec = { type: "uint64", help: "x" };
    ok(s, "0", 0n);
    ok(s, "18446744073709551615", 2n ** 64n - 1n);
    ok(s, "0xffffffffffffffff", 2n ** 64n - 1n);
    for (const t of ["-1", "18446744073709551616", "1.0", ""]) bad(s, t);
  });
  it("bigint: unbounded unless min/max", () => {
    ok({ type: "bigint", help: "x" }, "-123456789012345678901234567890", -123456789012345678901234567890n);
    ok({ type: "bigint", min: 0n, help: "x" }, "500000000000", 500_000_000_000n);
    bad({ type: "bigint", min: 0n, help: "x" }, "-1");
    bad({ type: "bigint", max: 10n, help: "x" }, "11");
  });
  it("float: finite decimals", () => {
    const s: FlagSpec = { type: "float", min: 0, help: "x" };
    ok(s, "1", 1);
    ok(s, "0.5", 0.5);
    ok(s, ".25", 0.25);
    ok(s, "1e-3", 0.001);
    for (const t of ["-0.1", "Infinity", "NaN", "1,5", "", "0x10", "1e999"]) bad(s, t);
  });
  it("duration, enum, list, string, path", () => {
    ok({ type: "duration", help: "x" }, "3h0m0s", 10_800_000);
    bad({ type: "duration", help: "x" }, "3");
    ok({ type: "enum", values: ["a", "b"], help: "x" }, "b", "b");
    bad({ type: "enum", values: ["a", "b"], help: "x" }, "B");
    ok({ type: "list", help: "x" }, " eth, ,net ,", ["eth", "net"]);
    ok({ type: "list", help: "x" }, "", []);
    ok({ type: "string", help: "x" }, "", "");
    ok({ type: "path", help: "x" }, "~/a", "~/a");
  });
  it("formatValue inverts parseValue", () => {
    for (const [name, spec] of Object.entries(SPEC.flags as FlagTable)) {
      if (spec.default === undefined) continue;
      const back = parseValue(spec, formatValue(spec, spec.default));
      assert.ok(back.ok, name);
      assert.deepEqual(back.value, spec.default, name);
    }
  });
});

describe("cli/parseArgs: argv forms", () => {
  it("no arguments: every flag at its default, paths expanded, sources say default", () => {
    const r = run([]);
    assert.equal(r.config.datadir, "/home/u/.tool");
    assert.equal(r.config.verbose, false);
    assert.equal(r.config.color, true);
    assert.equal(r.config.name, "node");
    assert.equal(r.config["http.port"], 8545);
    assert.equal(r.config["chain-id"], 10n);
    assert.equal(r.config.fee, 1_000_000n);
    assert.equal(r.config.ratio, 1);
    assert.equal(r.config.timeout, 5000);
    assert.equal(r.config["log.format"], "terminal");
    assert.deepEqual(r.config.apis, ["eth", "net"]);
    assert.deepEqual(r.config.origins, []);
    assert.equal(r.config["l1.rpc"], undefined);
    assert.equal(r.config.native, true);
    assert.equal(r.sources["http.port"], "default");
    assert.equal(r.sources.secret, "env");
    assert.deepEqual(r.args, []);
  });
  it("--flag value, --flag=value and -flag", () => {
    const r = run(["--http.port", "1", "--name=a=b", "-timeout", "1m", "-offset=-3", "--fee", "0x10"]);
    assert.equal(r.config["http.port"], 1);
    assert.equal(r.config.name, "a=b");
    assert.equal(r.config.timeout, 60_000);
    assert.equal(r.config.offset, -3);
    assert.equal(r.config.fee, 16n);
    assert.equal(r.sources["http.port"], "flag");
  });
  it("a negative number is taken as a value", () => {
    assert.equal(run(["--offset", "-12"]).config.offset, -12);
  });
  it("booleans: --flag, --flag=false, --flag=true, aliases", () => {
    assert.equal(run(["--verbose"]).config.verbose, true);
    assert.equal(run(["-V"]).config.verbose, true);
    assert.equal(run(["--color=false"]).config.color, false);
    assert.equal(run(["--color=0"]).config.color, false);
    assert.equal(run(["--verbose=true"]).config.verbose, true);
  });
  it("a boolean given a separate value is an error that shows the = form", () => {
    assert.equal(error(["--color", "false"]), "flag --color takes no separate value: write --color=false");
  });
  it("lists split on commas; empty value gives an empty list", () => {
    assert.deepEqual(run(["--apis=eth,debug , trace"]).config.apis, ["eth", "debug", "trace"]);
    assert.deepEqual(run(["--apis="]).config.apis, []);
  });
  it("~ in a given path expands to the home directory", () => {
    assert.equal(run(["--datadir", "~/x"]).config.datadir, "/home/u/x");
    assert.equal(run(["--datadir", "/abs/~"]).config.datadir, "/abs/~");
  });
  it("repeated flags are errors, also through an alias", () => {
    assert.equal(error(["--http.port=1", "--http.port", "2"]), "flag --http.port given more than once");
    assert.equal(error(["--verbose", "-V"]), "flag --verbose given more than once");
    assert.equal(error(["--apis=a", "--apis=b"]), "flag --apis given more than once");
  });
  it("a repeatable list adds up its occurrences; validate sees them joined; env gives the one value", () => {
    const spec = defineCli({
      name: "rep",
      version: "0",
      usage: "repeatable lists",
      envPrefix: "REP",
      flags: {
        pair: {
          type: "list",
          repeatable: true,
          validate: (t) => (t.split(",").every((x) => x === "" || x.includes("=")) ? undefined : "want k=v"),
          help: "Pairs",
        },
      },
    });
    const ok = parseArgs(spec, ["--pair", "a=1", "--pair=b=2,c=3", "-pair", "d=4"], { REP_PAIR: "z=9" });
    assert.ok(ok.kind === "run");
    assert.deepEqual(ok.config.pair, ["a=1", "b=2", "c=3", "d=4"]);
    const env = parseArgs(spec, [], { REP_PAIR: "z=9,y=8" });
    assert.ok(env.kind === "run");
    assert.deepEqual(env.config.pair, ["z=9", "y=8"]);
    const bad = parseArgs(spec, ["--pair", "a=1", "--pair", "b"], {});
    assert.ok(bad.kind === "error");
    assert.equal(bad.error, 'invalid value "a=1,b" for flag --pair: expected a comma-separated list (want k=v)');
    assert.match(renderHelp(spec), /--pair value +\(\$REP_PAIR\)\n {10}Pairs \(may be repeated\)\n/);
    assert.deepEqual(validateCli(spec), []);
  });
  it("unknown flags name the flag and suggest a close one", () => {
    assert.equal(error(["--htpp.port", "1"]), "unknown flag --htpp.port (did you mean --http.port?)");
    assert.equal(error(["--log.fromat=json"]), "unknown flag --log.fromat (did you mean --log.format?)");
    assert.equal(error(["--zzzzzz"]), "unknown flag --zzzzzz");
    assert.equal(error(["--a\nb=1"]), 'unknown flag "--a\\nb=1"');
  });
  it("bad values name the flag and the expected type on one line", () => {
    assert.equal(
      error(["--http.port", "abc"]),
      'invalid value "abc" for flag --http.port: expected an integer in [0, 65535]',
    );
    assert.equal(
      error(["--chain-id=-1"]),
      'invalid value "-1" for flag --chain-id: expected an unsigned 64-bit integer',
    );
    assert.equal(
      error(["--timeout", "5"]),
      'invalid value "5" for flag --timeout: expected a duration such as "1h0m0s", "10s" or "500ms"',
    );
    assert.equal(
      error(["--log.format=xml"]),
      'invalid value "xml" for flag --log.format: expected one of terminal, json',
    );
    assert.equal(
      error(["--verbose=yes"]),
      'invalid value "yes" for flag --verbose: expected a boolean (true or false)',
    );
    assert.equal(error(["--ratio=-1"]), 'invalid value "-1" for flag --ratio: expected a number ≥ 0');
    assert.equal(error(["--fee=-1"]), 'invalid value "-1" for flag --fee: expected an integer ≥ 0');
    // A value with a newline stays on one line (JSON-quoted).
    assert.equal(
      error(["--http.port=1\n2"]),
      'invalid value "1\\n2" for flag --http.port: expected an integer in [0, 65535]',
    );
  });
  it("a flag without its value is an error", () => {
    assert.equal(error(["--http.port"]), "flag --http.port needs a value (an integer in [0, 65535])");
    assert.equal(error(["--name", "--verbose"]), "flag --name needs a value (a string)");
  });
  it("-- ends the flags (positionals go to the command)", () => {
    const r = parse(["import", "--", "--verbose", "a"]);
    assert.ok(r.kind === "command" && r.command === "import");
    assert.deepEqual(r.args, ["--verbose", "a"]);
    assert.equal(r.config.verbose, false);
  });
  it("envOnly flags are refused on the command line", () => {
    assert.equal(error(["--native=false"]), "--native is set only through $TOOL_NATIVE");
    assert.equal(run([], { ...ENV, TOOL_NATIVE: "0" }).config.native, false);
  });
  it("deprecated flags still parse and warn", () => {
    const r = run(["--old=2"]);
    assert.equal(r.config.old, 2);
    assert.deepEqual(r.warnings, ["flag --old is deprecated: use --http.port"]);
  });
  it("required flags: missing → error naming flag and env var", () => {
    assert.equal(error([], {}), "missing required flag --secret (or $TOOL_JWT)");
    assert.equal(run(["--secret", "~/s"], {}).config.secret, "/home/u/s");
  });
});

describe("cli/parseArgs: any input", () => {
  it("never throws; errors are always one line", () => {
    const pieces = [
      "--http.port",
      "-V",
      "--verbose=",
      "gen",
      "init",
      "import",
      "--",
      "-",
      "=",
      "x\ny",
      "--out",
      "-1",
      "--name",
      "false",
      "--help",
    ];
    const token = fc.oneof(
      fc.constantFrom(...pieces),
      fc.string(),
      fc.string().map((t) => `--${t}`),
    );
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 8 }),
        fc.dictionary(fc.constantFrom("TOOL_JWT", "TOOL_HTTP_PORT", "TOOL_X"), fc.string()),
        (argv, env) => {
          const r = parseArgs(SPEC, argv, env, { home: HOME });
          if (r.kind === "error") assert.ok(!r.error.includes("\n") && r.error.length > 0, r.error);
        },
      ),
    );
  });
});

describe("cli/parseArgs: environment", () => {
  it("precedence: flag > env > default", () => {
    const env = { ...ENV, TOOL_HTTP_PORT: "9000", TOOL_NAME: "envname" };
    const r = run(["--name", "flagname"], env);
    assert.equal(r.config["http.port"], 9000);
    assert.equal(r.sources["http.port"], "env");
    assert.equal(r.config.name, "flagname");
    assert.equal(r.sources.name, "flag");
    assert.equal(r.config.ratio, 1);
    assert.equal(r.sources.ratio, "default");
  });
  it("env values of every type", () => {
    const r = run([], {
      ...ENV,
      TOOL_VERBOSE: "true",
      TOOL_COLOR: "false",
      TOOL_CHAIN_ID: "0x2105",
      TOOL_TIMEOUT: "1h0m0s",
      TOOL_LOG_FORMAT: "json",
      TOOL_APIS: "a,b",
      TOOL_DATADIR: "~/env",
      TOOL_L1_RPC: "http://l1",
    });
    assert.equal(r.config.verbose, true);
    assert.equal(r.config.color, false);
    assert.equal(r.config["chain-id"], 8453n);
    assert.equal(r.config.timeout, 3_600_000);
    assert.equal(r.config["log.format"], "json");
    assert.deepEqual(r.config.apis, ["a", "b"]);
    assert.equal(r.config.datadir, "/home/u/env");
    assert.equal(r.config["l1.rpc"], "http://l1");
  });
  it("an empty env var counts as unset", () => {
    assert.equal(run([], { ...ENV, TOOL_HTTP_PORT: "" }).config["http.port"], 8545);
  });
  it("a bad env value names the env var and the flag", () => {
    assert.equal(
      error([], { ...ENV, TOOL_HTTP_PORT: "x" }),
      'invalid value "x" for $TOOL_HTTP_PORT (flag --http.port): expected an integer in [0, 65535]',
    );
  });
  it("env: false and custom names", () => {
    assert.equal(run([], { ...ENV, TOOL_NOENV: "y" }).config.noenv, "x");
    assert.equal(run([], { TOOL_JWT: "/j" }).config.secret, "/j");
  });
  it("unknown <PREFIX>_* env vars are warnings, other env vars are ignored", () => {
    const r = run([], { ...ENV, TOOL_HTTP_PROT: "1", TOOL_NOENV: "y", PATH: "/bin" });
    assert.deepEqual(r.warnings, [
      "unknown environment variable TOOL_HTTP_PROT",
      "unknown environment variable TOOL_NOENV",
    ]);
  });
});

describe("cli/parseArgs: commands", () => {
  it("a command with its own flags, before or after global flags", () => {
    const r = parse(["--verbose", "gen", "--out", "~/g.json", "--http.port=1", "x"]);
    assert.ok(r.kind === "command" && r.command === "gen");
    assert.equal(r.options.out, "/home/u/g.json");
    assert.equal(r.options.id, 901n);
    assert.equal(r.optionSources.id, "default");
    assert.equal(r.config.verbose, true);
    assert.equal(r.config["http.port"], 1);
    assert.deepEqual(r.args, ["x"]);
  });
  it("command flags read their own env vars (<PREFIX>_<COMMAND>_<FLAG>)", () => {
    const r = parse(["gen"], { ...ENV, TOOL_GEN_ID: "5" });
    assert.ok(r.kind === "command" && r.command === "gen");
    assert.equal(r.options.id, 5n);
    assert.equal(r.optionSources.id, "env");
  });
  it("a command's flag before the command is refused with a pointer", () => {
    assert.equal(error(["--out", "x", "gen"]), "flag --out belongs to command gen; give it after the command");
  });
  it("positional arity", () => {
    const init = parse(["init", "g.json"]);
    assert.ok(init.kind === "command" && init.command === "init");
    assert.deepEqual(init.args, ["g.json"]);
    assert.equal(error(["init"]), "missing argument <genesis.json> for command init");
    assert.equal(error(["init", "a", "b"]), 'unexpected argument "b"');
    assert.equal(error(["import"]), "missing argument <file> for command import");
    const imp = parse(["import", "a", "b", "c"]);
    assert.ok(imp.kind === "command");
    assert.deepEqual(imp.args, ["a", "b", "c"]);
    const gen = parse(["gen"]);
    assert.ok(gen.kind === "command");
    assert.deepEqual(gen.args, []);
    assert.equal(error(["gen", "a", "b"]), 'unexpected argument "b"');
  });
  it("unknown commands suggest a close one", () => {
    assert.equal(error(["imprt"]), 'unknown command "imprt" (did you mean import?)');
    assert.equal(error(["zzz"]), 'unknown command "zzz"');
  });
  it("errors carry the command", () => {
    const r = parse(["init"]);
    assert.ok(r.kind === "error");
    assert.equal(r.command, "init");
  });
  it("requireCommand", () => {
    const spec = defineCli({
      name: "evm",
      version: "0",
      usage: "u",
      envPrefix: "EVM",
      requireCommand: true,
      flags: { json: { type: "bool", help: "JSON output" } },
      commands: { statetest: { help: "Run state tests", args: [{ name: "file", variadic: true, optional: true }] } },
    });
    const r = parseArgs(spec, [], {});
    assert.ok(r.kind === "error");
    assert.equal(r.error, "a command is required: statetest");
    const ok = parseArgs(spec, ["statetest", "--json"], {});
    assert.ok(ok.kind === "command" && ok.command === "statetest");
    assert.equal(ok.config.json, true);
  });
  it("an opal-evm-style table: shared command flags, a validated regex flag, per-command flags", () => {
    const shared = {
      fork: { type: "string", env: false, help: "Only cases of this fork" },
      run: {
        type: "string",
        env: false,
        expects: "a regular expression",
        validate: (t: string) => {
          try {
            new RegExp(t);
            return undefined;
          } catch (e) {
            return (e as Error).message;
          }
        },
        help: "Only tests whose name matches",
      },
    } as const;
    const evm = defineCli({
      name: "opal-evm",
      version: "0",
      usage: "runs fixtures",
      envPrefix: "OPAL_EVM",
      requireCommand: true,
      flags: {},
      commands: {
        statetest: {
          help: "Run state tests",
          args: [{ name: "path", variadic: true }],
          flags: { ...shared, trace: { type: "bool", env: false, help: "EIP-3155 trace to stderr" } },
        },
        blocktest: { help: "Run block tests", args: [{ name: "path", variadic: true }], flags: shared },
      },
    });
    const r = parseArgs(evm, ["statetest", "--run", "^add", "--trace", "a.json", "b"], {});
    assert.ok(r.kind === "command" && r.command === "statetest");
    assert.equal(r.options.run, "^add");
    assert.equal(r.options.trace, true);
    assert.equal(r.options.fork, undefined);
    assert.deepEqual(r.args, ["a.json", "b"]);
    const bad = parseArgs(evm, ["blocktest", "--run=(", "x"], {});
    assert.ok(bad.kind === "error");
    assert.match(bad.error, /^invalid value "\(" for flag --run: expected a regular expression \(.+\)$/);
    const unsupported = parseArgs(evm, ["blocktest", "--trace", "x"], {});
    assert.ok(unsupported.kind === "error");
    assert.equal(unsupported.error, "flag --trace is not supported by command blocktest (only statetest)");
    const early = parseArgs(evm, ["--fork=Prague", "statetest", "x"], {});
    assert.ok(early.kind === "error");
    assert.equal(early.error, "flag --fork belongs to command statetest, blocktest; give it after the command");
    const noPath = parseArgs(evm, ["statetest"], {});
    assert.ok(noPath.kind === "error" && noPath.error === "missing argument <path> for command statetest");
    assert.throws(() =>
      defineCli({ ...evm, commands: { statetest: { help: "x", flags: { run: { ...shared.run, default: "(" } } } } }),
    );
  });
  it("a CLI without commands takes its own positional arguments", () => {
    const spec = defineCli({
      name: "t",
      version: "0",
      usage: "u",
      envPrefix: "T",
      flags: {},
      args: [{ name: "in" }, { name: "out", optional: true }],
    });
    const r = parseArgs(spec, ["a"], {});
    assert.ok(r.kind === "run");
    assert.deepEqual(r.args, ["a"]);
    const bad = parseArgs(spec, [], {});
    assert.ok(bad.kind === "error" && bad.error === "missing argument <in>");
  });
});

describe("cli/parseArgs: help, version, results", () => {
  it("--help / -h anywhere gives the help text, even after an error", () => {
    for (const argv of [["--help"], ["-h"], ["--verbose", "--help"], ["--bogus", "--help"], ["--http.port=x", "-h"]]) {
      const r = parse(argv);
      assert.ok(r.kind === "help", JSON.stringify(argv));
      assert.equal(r.text, renderHelp(SPEC));
    }
  });
  it("command help", () => {
    const r = parse(["gen", "--help"]);
    assert.ok(r.kind === "help");
    assert.match(r.text, /^NAME:\n {3}tool gen - Generate\n/);
    assert.match(r.text, /USAGE:\n {3}tool \[global options\] gen \[command options\] \[extra\]/);
    assert.match(r.text, /--id value +\(default: 901\) +\(\$TOOL_GEN_ID\)/);
  });
  it("a CLI's description follows VERSION; lines kept, each wrapped at 90, indents kept", () => {
    const long = "word ".repeat(30).trim();
    const spec = defineCli({ ...SPEC, description: `First line.\n  - an item\n\n${long}` });
    const text = renderHelp(spec);
    assert.match(text, /\nVERSION:\n {3}1\.2\.3\n\nDESCRIPTION:\n {3}First line\.\n {5}- an item\n\n {3}word /);
    const body = text.slice(text.indexOf("DESCRIPTION:"), text.indexOf("COMMANDS:"));
    for (const l of body.split("\n")) assert.ok(l.length <= 93, l);
    assert.equal(renderHelp(SPEC).includes("DESCRIPTION:"), false);
    assert.equal(usageLine(SPEC), "tool [global options] [command [command options]]");
    assert.equal(usageLine(SPEC, "gen"), "tool [global options] gen [command options] [extra]");
  });
  it("--version / -v", () => {
    for (const argv of [["--version"], ["-v"]]) {
      const r = parse(argv);
      assert.ok(r.kind === "version");
      assert.equal(r.text, "tool version 1.2.3");
    }
  });
  it("results, configs and lists are frozen", () => {
    const r = run(["--apis=a"]);
    assert.ok(Object.isFrozen(r));
    assert.ok(Object.isFrozen(r.config));
    assert.ok(Object.isFrozen(r.config.apis));
    assert.ok(Object.isFrozen(r.config.origins));
    assert.ok(Object.isFrozen(r.sources));
    assert.ok(Object.isFrozen(r.args));
    assert.ok(Object.isFrozen(r.warnings));
    assert.ok(Object.isFrozen(parse([])));
    assert.ok(Object.isFrozen(parse(["--x"])));
    const g = parse(["gen"]);
    assert.ok(g.kind === "command" && Object.isFrozen(g.options));
  });
  it("the default list is not shared with the table", () => {
    const r = run([]);
    assert.notEqual(r.config.apis, SPEC.flags.apis.default);
  });
});

describe("cli/flagTable: help text", () => {
  const help = renderHelp(SPEC);
  it("urfave/geth layout: names, default and env on one line, usage indented below", () => {
    assert.match(help, /\n {4}--http\.port value {19}\(default: 8545\) {20}\(\$TOOL_HTTP_PORT\)\n {10}Port\n/);
  });
  it("default formats: strings/lists/enums quoted, paths bare, bools, Go durations, empty omitted", () => {
    assert.match(help, /--name value +\(default: "node"\)/);
    assert.match(help, /--apis value +\(default: "eth,net"\)/);
    assert.match(help, /--log\.format value +\(default: "terminal"\)/);
    assert.match(help, /--datadir value +\(default: ~\/\.tool\)/);
    assert.match(help, /--verbose, -V +\(default: false\)/);
    assert.match(help, /--timeout value +\(default: 5s\)/);
    assert.match(help, /--chain-id value +\(default: 10\)/);
    assert.match(help, /--origins value +\(\$TOOL_ORIGINS\)\n/);
    assert.match(help, /Format \(terminal\|json\)/);
    assert.match(help, /JWT secret file \(required\)/);
  });
  it("every visible flag appears with its default; hidden ones do not", () => {
    for (const [name, spec] of Object.entries(SPEC.flags as FlagTable)) {
      const shown = spec.envOnly ? "$TOOL_NATIVE" : `--${name}`;
      if (spec.hidden) {
        assert.ok(!help.includes(`--${name} `) && !help.includes(`--${name}\n`), name);
        continue;
      }
      const line = help.split("\n").find((l) => l.trimStart().startsWith(shown));
      assert.ok(line, name);
      const d = defaultText(spec);
      if (d !== "") assert.ok(line.includes(`(default: ${d})`), `${name}: ${line}`);
    }
  });
  it("categories in order of first appearance, commands listed", () => {
    const cats = ["CORE", "RPC", "LOG", "PERF", "MISC"].map((c) => help.indexOf(`\n   ${c}\n`));
    assert.ok(
      cats.every((i, k) => i > 0 && (k === 0 || i > cats[k - 1]!)),
      String(cats),
    );
    assert.match(help, /COMMANDS:\n {3}init {4}Initialise\n {3}import {2}Import files\n {3}gen {5}Generate\n/);
    assert.match(help, /VERSION:\n {3}1\.2\.3\n/);
  });
  it("help lines are wrapped at 80 columns", () => {
    const spec = defineCli({
      name: "w",
      version: "0",
      usage: "u",
      envPrefix: "W",
      flags: { a: { type: "bool", help: "word ".repeat(40).trim() } },
    });
    for (const l of renderHelp(spec).split("\n")) if (l.startsWith("          word")) assert.ok(l.length <= 90, l);
  });
});

describe("cli/flagTable: invariants", () => {
  const base = { name: "t", version: "0", usage: "u", envPrefix: "T" };
  const problems = (flags: Record<string, FlagSpec>, extra: Partial<CliSpec> = {}) =>
    validateCli({ ...base, flags, ...extra } as CliSpec);

  it("the test spec is valid", () => assert.deepEqual(validateCli(SPEC), []));
  it("bad names, reserved names, duplicate names and aliases", () => {
    assert.equal(problems({ "Http.Port": { type: "bool", help: "x" } }).length, 1);
    assert.equal(problems({ "a..b": { type: "bool", help: "x" } }).length, 1);
    assert.equal(problems({ help: { type: "bool", help: "x" } }).length, 1);
    assert.equal(problems({ a: { type: "bool", help: "x", aliases: ["v"] } }).length, 1);
    assert.equal(
      problems({ a: { type: "bool", help: "x" }, b: { type: "bool", help: "x", aliases: ["a"] } }).length,
      1,
    );
  });
  it("duplicate env names, including derived ones", () => {
    const p = problems({ "a.b": { type: "bool", help: "x" }, "a-b": { type: "bool", help: "x" } });
    assert.equal(p.length, 1);
    assert.match(p[0]!, /env T_A_B also used by --a\.b/);
  });
  it("defaults must parse with their type", () => {
    assert.equal(problems({ p: { type: "int", default: 70000, max: 65535, help: "x" } }).length, 1);
    assert.equal(problems({ p: { type: "int", default: 1.5, help: "x" } }).length, 1);
    assert.equal(problems({ e: { type: "enum", values: ["a"], default: "b", help: "x" } }).length, 1);
    assert.equal(problems({ u: { type: "uint64", default: -1n, help: "x" } }).length, 1);
    assert.equal(problems({ l: { type: "list", default: ["a,b"], help: "x" } }).length, 1);
  });
  it("required without default, deprecated hidden, one-line help, envOnly with env", () => {
    assert.equal(problems({ r: { type: "int", default: 1, required: true, help: "x" } }).length, 1);
    assert.equal(problems({ d: { type: "int", deprecated: "gone", help: "x" } }).length, 1);
    assert.equal(problems({ m: { type: "int", help: "two\nlines" } }).length, 1);
    assert.equal(problems({ n: { type: "bool", envOnly: true, env: false, help: "x" } }).length, 1);
  });
  it("commands: names, flags clashing with global flags, variadic last", () => {
    const flags = { a: { type: "bool", help: "x" } } as const;
    assert.equal(problems(flags, { commands: { "Bad Name": { help: "x" } } }).length, 1);
    assert.equal(
      problems(flags, { commands: { c: { help: "x", flags: { a: { type: "int", help: "x" } } } } }).length,
      1,
    );
    assert.equal(
      problems(flags, { commands: { c: { help: "x", args: [{ name: "a", variadic: true }, { name: "b" }] } } }).length,
      1,
    );
    assert.equal(problems(flags, { requireCommand: true }).length, 1);
  });
  it("defineCli throws on a bad table", () => {
    assert.throws(
      () => defineCli({ ...base, flags: { p: { type: "int", default: -1, min: 0, help: "x" } } }),
      /t: bad flag table: --p: default "-1" is not an integer ≥ 0/,
    );
  });
});

describe("cli/flagTable: config helpers", () => {
  it("sliceConfig strips the prefix and freezes", () => {
    const r = run([]);
    const s = sliceConfig(r.config, "http");
    assert.deepEqual(s, { port: 8545 });
    assert.ok(Object.isFrozen(s));
    const port: number = s.port;
    assert.equal(port, 8545);
  });
  it("dumpConfig prints values in flag form; feeding them back gives the same config", () => {
    const r = run(["--timeout=1m30s", "--fee=123456789012345678901234567890", "--apis=a,b", "--l1.rpc=http://x"]);
    const json = JSON.parse(dumpConfig(SPEC.flags, r.config)) as Record<string, unknown>;
    assert.equal(json.timeout, "1m30s");
    assert.equal(json.fee, "123456789012345678901234567890");
    assert.equal(json["chain-id"], "10");
    assert.deepEqual(json.apis, ["a", "b"]);
    assert.equal(json.origins !== undefined, true);
    const argv: string[] = [];
    for (const [name, v] of Object.entries(json)) {
      const spec = (SPEC.flags as Record<string, FlagSpec>)[name]!;
      if (v === null || spec.envOnly) continue;
      argv.push(`--${name}=${Array.isArray(v) ? v.join(",") : String(v)}`);
    }
    const again = run(argv);
    assert.deepEqual(again.config, r.config);
  });
  it("InferConfig types: defaults and bools are set, others may be undefined", () => {
    type C = InferConfig<Spec["flags"]>;
    const check = (c: C): void => {
      const a: number = c["http.port"];
      const b: boolean = c.verbose;
      const e: "terminal" | "json" = c["log.format"];
      const l: readonly string[] = c.origins;
      const u: bigint = c["chain-id"];
      const s: string = c.secret;
      // @ts-expect-error no default: may be undefined
      const o: string = c["l1.rpc"];
      // @ts-expect-error not a flag
      void c.nope;
      void [a, b, e, l, u, s, o];
    };
    void check;
  });
  it("Supplies: a lower layer's option type must be supplied whole, optional keys included", () => {
    type C = InferConfig<Spec["flags"]>;
    const ok: Supplies<C, { readonly "http.port": number; readonly "l1.rpc"?: string | undefined }> = true;
    // @ts-expect-error an optional option without a flag ("l1.endpoint" is not in the table)
    const renamed: Supplies<C, { readonly "l1.endpoint"?: string | undefined }> = true;
    // @ts-expect-error retyped: the flag gives a number, the reader wants a bigint
    type Retyped = Supplies<C, { readonly "http.port": bigint }>;
    // @ts-expect-error may be undefined, the reader wants a value
    type Unset = Supplies<C, { readonly "l1.rpc": string }>;
    const none: [Retyped?, Unset?] = [];
    void [ok, renamed, none];
  });
});

describe("cli/parseArgs: did you mean", () => {
  it("edit distance", () => {
    assert.equal(editDistance("kitten", "sitting"), 3);
    assert.equal(editDistance("", "abc"), 3);
    assert.equal(editDistance("same", "same"), 0);
  });
  it("closest: within a third of the length", () => {
    assert.equal(closest("htpp.port", ["http.port", "ws.port"]), "http.port");
    assert.equal(closest("ab", ["xy"]), undefined);
    assert.equal(closest("ws", ["w", "wss"]), "w");
  });
});
