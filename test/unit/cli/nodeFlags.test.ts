/**
 * The opal-node flag table (src/cli/nodeFlags.ts) against its sources, read at test time so none
 * is missed: every option row of spec.md part 4B (name, type, default, one bad value), the env
 * names of op-stack.md §1.4 (else OP_NODE_ + upper-snake name), and the --network names of the
 * superchain-registry configs folder. Then the cross-flag rules and the help text.
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import {
  defaultText,
  deriveEnvName,
  envNameOf,
  type FlagSpec,
  type FlagTable,
  parseGoDuration,
  validateCli,
} from "../../../src/cli/flagTable.js";
import {
  LOG_LEVELS,
  NETWORKS,
  NODE_CLI,
  NODE_FLAGS,
  type NodeConfig,
  type NodeParseResult,
  parseNodeArgs,
} from "../../../src/cli/nodeFlags.js";
import type { Env } from "../../../src/cli/parseArgs.js";
import { fixturePath, fixturesDir } from "../../utils/fixtures.js";

const HOME = "/home/op";
const TABLE: FlagTable = NODE_FLAGS;
const L2 = "--l2=http://127.0.0.1:8551";
const DOCS = join(dirname(fixturesDir()), "docs");

// ---------------------------------------------------------------------------------------------
// spec.md part 4B, parsed

interface SpecRow {
  readonly section: string;
  readonly name: string;
  readonly type: string;
  readonly default: string;
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((c) => c.trim());
}

function readSpecRows(): { rows: SpecRow[]; general: string[] } {
  const text = readFileSync(join(DOCS, "spec.md"), "utf8");
  const start = text.indexOf("### B. Rollup node");
  const end = text.indexOf("\n## 5.", start);
  assert.ok(start >= 0 && end > start, "spec.md part 4B not found");
  const rows: SpecRow[] = [];
  const general: string[] = [];
  let section = "";
  for (const line of text.slice(start, end).split("\n")) {
    const h = /^#### (.+)$/.exec(line);
    if (h) {
      section = h[1]!.trim();
      continue;
    }
    const forks = /^Each option takes a timestamp, defaults to (\d+).*Names: (.+)\.$/.exec(line);
    if (forks) {
      for (const m of forks[2]!.matchAll(/`([^`]+)`/g)) {
        rows.push({ section, name: m[1]!, type: "timestamp", default: forks[1]! });
      }
      continue;
    }
    if (!line.startsWith("|") || /^\|[\s|:-]+\|$/.test(line)) continue;
    const c = cells(line);
    if (c[0] === "Option") continue;
    if (c[0]!.startsWith("--")) general.push(c[0]!);
    else rows.push({ section, name: c[0]!, type: c[1]!, default: c[2]! });
  }
  return { rows, general };
}

// ---------------------------------------------------------------------------------------------
// op-stack.md §1.4 env names, parsed

function ticks(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

function readOpStackEnvs(): Map<string, string> {
  const text = readFileSync(join(DOCS, "op-stack.md"), "utf8");
  const start = text.indexOf("### 1.4 Flags and env vars");
  const end = text.indexOf("### 1.5", start);
  assert.ok(start >= 0 && end > start, "op-stack.md §1.4 not found");
  const out = new Map<string, string>();
  let p2p = false;
  for (const line of text.slice(start, end).split("\n")) {
    if (line.startsWith("| Flag |")) {
      p2p = line.includes("Env suffix");
      continue;
    }
    if (!line.startsWith("|") || /^\|[\s|:-]+\|$/.test(line)) continue;
    const [flagCell, envCell] = cells(line);
    let flags = ticks(flagCell!.replace(/\(alias.*\)/, "")).map((f) => f.replace(/^--/, ""));
    let envs = ticks(envCell!);
    if (flags.some((f) => f.includes("{")) || envs.some((e) => /[*<]/.test(e)) || envs.length === 0) continue;
    // `--metrics.enabled/addr/port` → metrics.enabled, metrics.addr, metrics.port
    if (flags.length === 1 && flags[0]!.includes("/")) {
      const [first, ...more] = flags[0]!.split("/");
      const head = first!.slice(0, first!.lastIndexOf(".") + 1);
      flags = [first!, ...more.map((m) => head + m)];
    }
    // `p2p.listen.ip` / `.tcp` → p2p.listen.ip, p2p.listen.tcp
    const stem = flags[0]!.slice(0, flags[0]!.lastIndexOf("."));
    flags = flags.map((f) => (f.startsWith(".") ? stem + f : f));
    // `OP_NODE_METRICS_ENABLED/ADDR/PORT` → OP_NODE_METRICS_ENABLED, OP_NODE_METRICS_ADDR, …
    if (envs.length === 1 && envs[0]!.includes("/")) {
      const [first, ...more] = envs[0]!.split("/");
      const lastSeg = flags[0]!.slice(flags[0]!.lastIndexOf(".") + 1);
      const head = first!.slice(0, first!.length - lastSeg.replace(/-/g, "_").length);
      envs = [first!, ...more.map((m) => head + m)];
    }
    if (p2p) envs = envs.map((e) => `OP_NODE_P2P_${e}`);
    if (envs.length !== flags.length) envs = envs.slice(0, 1);
    // Partial suffixes such as `_DLO` (gossip mesh rows, not options of part 4B) are skipped.
    flags.forEach((f, i) => {
      if (envs[i] !== undefined && !/^_/.test(envs[i]!.replace(/^OP_NODE_P2P_/, ""))) out.set(f, envs[i]!);
    });
  }
  return out;
}

const { rows: SPEC_ROWS, general: SPEC_GENERAL } = readSpecRows();
/**
 * Options op-node gained after spec part 4B was written: --override.karst (op-service/flags
 * OverridableForks = forks.From(Canyon) + AllOpt, op-node v1.19.1) and
 * --override.keep-karst-upgrade-gas (op-service/flags KeepKarstUpgradeGasOverrideName, v1.19.1).
 */
const AFTER_SPEC = ["override.karst", "override.keep-karst-upgrade-gas"];
const OPSTACK_ENVS = readOpStackEnvs();

/** The env var the rules give a flag: op-stack.md §1.4's name, else OP_NODE_ + upper-snake name. */
function expectedEnv(name: string): string {
  return OPSTACK_ENVS.get(name) ?? deriveEnvName("OP_NODE", name);
}

/** Defaults the spec states in words. */
const PROSE_DEFAULTS: Record<string, unknown> = {
  "l2.enginekind": "geth", // "the kind named for the reference execution client" (op-geth)
};

function expectedDefault(row: SpecRow, flag: FlagSpec): unknown {
  if (Object.hasOwn(PROSE_DEFAULTS, row.name)) return PROSE_DEFAULTS[row.name];
  if (/^unset\b/.test(row.default)) return flag.type === "list" ? [] : undefined;
  switch (flag.type) {
    case "bool":
      return row.default === "true";
    case "int":
    case "float":
      return Number(row.default);
    case "uint64":
    case "bigint":
      return BigInt(row.default);
    case "duration":
      return parseGoDuration(row.default);
    default:
      return row.default;
  }
}

/** The flag types a spec "Type" cell allows. */
function typeMatches(row: SpecRow, flag: FlagSpec): boolean {
  const t = row.type;
  if (t === "boolean") return flag.type === "bool";
  if (t === "integer") return flag.type === "int";
  if (t === "port") return flag.type === "int" && flag.min === 0 && flag.max === 65535;
  if (t === "duration") return flag.type === "duration";
  if (t === "enum") return flag.type === "enum";
  if (t === "timestamp") return flag.type === "uint64";
  if (t.startsWith("number")) return flag.type === "float";
  if (/list|comma-separated/.test(t)) return flag.type === "list";
  if (/path/.test(t)) return flag.type === "path";
  if (/URL/.test(t)) return flag.type === "string" && flag.validate !== undefined;
  if (t === "`key=value`") return flag.type === "list"; // one pair per flag: taken comma-separated
  return flag.type === "string" && flag.validate !== undefined; // address, IP, hex key, header
}

/** A value the option must accept and one it must reject, by the spec's Type (names override). */
function samples(row: SpecRow, flag: FlagSpec): { good: string; bad: string } {
  if (row.name === "signer.address") return { good: `0x${"ab".repeat(20)}`, bad: "0x12" };
  const t = row.type;
  if (t === "boolean") return { good: "true", bad: "maybe" };
  if (t === "integer") return { good: "7", bad: "seven" };
  if (t === "port") return { good: "8080", bad: "65536" };
  if (t === "duration") return { good: "1h0m0s", bad: "5 minutes" };
  if (t === "timestamp") return { good: "1700000000", bad: "-1" };
  if (t === "enum" && flag.type === "enum") return { good: flag.values.at(-1)!, bad: "bogus" };
  if (t.startsWith("number")) return { good: "1.5", bad: "fast" };
  if (/URL/.test(t) && /list/.test(t))
    return { good: "http://a.example:1,http://b.example", bad: "http://a.example,nope" };
  if (t === "HTTP URL") return { good: "http://da.example:3100", bad: "ftp://da.example" };
  if (t === "URL") return { good: "http://127.0.0.1:1234", bad: "not a url" };
  if (/CIDR/.test(t)) return { good: "10.0.0.0/8, 192.168.0.0/16", bad: "10.0.0.0/33" };
  if (/node records/.test(t)) return { good: "enr:-Iq4QMCTfIMXnow27baRUb35Q8iiFHSIDBJh6hQM5Axohhf4b6Kr", bad: "hello" };
  if (/multiaddrs/.test(t)) return { good: "/ip4/1.2.3.4/tcp/9222/p2p/16Uiu2HAmQ8y3Xy", bad: "/ip4/1.2.3.4" };
  if (/path/.test(t)) return { good: t.includes("memory") ? "memory" : "/tmp/opal-test", bad: "" };
  if (t === "IP") return { good: "10.0.0.1", bad: "example.com" };
  if (t === "IP or hostname" || t === "address") return { good: "node.example.com", bad: "bad host!" };
  if (t === "hex private key") return { good: `0x${"11".repeat(32)}`, bad: "0x12" };
  if (/X-Key: Value/.test(t)) return { good: "X-Api-Key: secret", bad: "no colon here" };
  if (t === "`key=value`") return { good: "a=b,c=d", bad: "novalue" };
  throw new Error(`no samples for spec type ${JSON.stringify(t)} (--${row.name})`);
}

/** A flag name as a RegExp source. */
function re(name: string): string {
  return name.replace(/\./g, "\\.");
}

/** JSON with bigints, for assertion messages. */
function show(v: unknown): string {
  return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
}

function run(argv: readonly string[], env: Env = {}): NodeParseResult {
  return parseNodeArgs(argv, env, { home: HOME });
}

function config(argv: readonly string[], env: Env = {}): NodeConfig {
  const r = run(argv, env);
  assert.ok(r.ok && r.kind === "run", `expected a run result for ${argv.join(" ")}: ${show(r)}`);
  return r.config;
}

function errorOf(argv: readonly string[], env: Env = {}): string {
  const r = run(argv, env);
  assert.ok(!r.ok, `expected an error for ${argv.join(" ")}`);
  assert.ok(!r.error.includes("\n"), `error is one line: ${r.error}`);
  return r.error;
}

// ---------------------------------------------------------------------------------------------

describe("cli/nodeFlags: sources", () => {
  it("spec.md part 4B parses into option rows (every section)", () => {
    assert.ok(SPEC_ROWS.length >= 100, `only ${SPEC_ROWS.length} rows`);
    const sections = new Set(SPEC_ROWS.map((r) => r.section));
    for (const s of ["Node RPC server", "Fork overrides", "P2P networking", "Interop (super experimental)"]) {
      assert.ok(sections.has(s), `section ${s}`);
    }
    assert.equal(SPEC_ROWS.filter((r) => r.name.startsWith("override.")).length, 10);
    assert.deepEqual(SPEC_GENERAL, ["--help, -h", "--version, -v"]);
  });
  it("op-stack.md §1.4 yields env names (main and P2P tables)", () => {
    assert.equal(OPSTACK_ENVS.get("l1"), "OP_NODE_L1_ETH_RPC");
    assert.equal(OPSTACK_ENVS.get("metrics.port"), "OP_NODE_METRICS_PORT");
    assert.equal(OPSTACK_ENVS.get("conductor.rpc-timeout"), "OP_NODE_CONDUCTOR_RPC_TIMEOUT");
    assert.equal(OPSTACK_ENVS.get("p2p.listen.udp"), "OP_NODE_P2P_LISTEN_UDP_PORT");
    assert.equal(OPSTACK_ENVS.get("p2p.scoring"), "OP_NODE_P2P_PEER_SCORING");
  });
});

describe("cli/nodeFlags: table", () => {
  it("is valid (names, env names, defaults parse with their type and checks)", () => {
    assert.deepEqual(validateCli(NODE_CLI), []);
  });
  it("has exactly the options of spec part 4B plus op-node v1.19.1's --override.karst, none hidden", () => {
    assert.deepEqual(Object.keys(TABLE).sort(), [...SPEC_ROWS.map((r) => r.name), ...AFTER_SPEC].sort());
    for (const [name, f] of Object.entries(TABLE)) assert.ok(!f.hidden, `--${name} hidden`);
  });
  it("every op-stack.md §1.4 env name of an option is used", () => {
    for (const [name, env] of OPSTACK_ENVS) {
      const f = TABLE[name];
      if (f !== undefined) assert.equal(envNameOf("OP_NODE", name, f), env, `--${name}`);
    }
  });
});

describe("cli/nodeFlags: every option of spec part 4B", () => {
  for (const row of SPEC_ROWS) {
    it(`--${row.name} (${row.section}: ${row.type}, default ${row.default})`, () => {
      const flag = TABLE[row.name];
      assert.ok(flag !== undefined, `--${row.name} missing`);
      assert.ok(typeMatches(row, flag), `--${row.name}: type ${flag.type} does not fit spec type ${row.type}`);

      const defaults = config([L2]) as Readonly<Record<string, unknown>>;
      if (row.name !== "l2") assert.deepEqual(defaults[row.name], expectedDefault(row, flag), "default");

      const env = envNameOf("OP_NODE", row.name, flag);
      assert.equal(env, expectedEnv(row.name), "env name");

      const { good, bad } = samples(row, flag);
      const base = row.name === "l2" ? [] : [L2];
      const fromFlag = run([...base, `--${row.name}=${good}`]);
      assert.ok(fromFlag.ok && fromFlag.kind === "run", `--${row.name}=${good}: ${show(fromFlag)}`);
      assert.equal(fromFlag.sources[row.name], "flag");
      const fromEnv = run(base, { [env!]: good });
      assert.ok(fromEnv.ok && fromEnv.kind === "run", `$${env}=${good}: ${show(fromEnv)}`);
      assert.equal(fromEnv.sources[row.name], "env");
      assert.deepEqual(fromEnv.warnings, []);

      const err = errorOf([...base, `--${row.name}=${bad}`]);
      assert.match(err, new RegExp(`--${re(row.name)}(?![\\w.-])`), err);
      if (bad !== "") {
        const envErr = errorOf(base, { [env!]: bad });
        assert.ok(envErr.includes(`$${env}`) && envErr.includes(`--${row.name}`), envErr);
      }
    });
  }
});

describe("cli/nodeFlags: values", () => {
  it("durations in Go syntax", () => {
    const c = config([L2, "--l1.epoch-poll-interval=6m24s", "--p2p.ban.duration=1h0m0s", "--altda.get-timeout=1.5s"]);
    assert.equal(c["l1.epoch-poll-interval"], 384_000);
    assert.equal(c["p2p.ban.duration"], 3_600_000);
    assert.equal(c["altda.get-timeout"], 1500);
    assert.equal(config([L2, "--l1.epoch-poll-interval=-1s"])["l1.epoch-poll-interval"], -1000); // disables
  });
  it("booleans: bare, true, false; default-true ones can be turned off", () => {
    assert.equal(config([L2, "--sequencer.enabled"])["sequencer.enabled"], true);
    assert.equal(config([L2, "--sequencer.enabled=true"])["sequencer.enabled"], true);
    assert.equal(config([L2, "--p2p.ban.peers=false"])["p2p.ban.peers"], false);
    assert.equal(config([L2], { OP_NODE_P2P_PEER_BANNING: "false" })["p2p.ban.peers"], false);
  });
  it("lists are comma-separated and trimmed", () => {
    const c = config(["--l2", "http://a.example:8551, ws://b.example:8546", "--p2p.netrestrict=10.0.0.0/8,fd00::/8"]);
    assert.deepEqual(c.l2, ["http://a.example:8551", "ws://b.example:8546"]);
    assert.deepEqual(c["p2p.netrestrict"], ["10.0.0.0/8", "fd00::/8"]);
  });
  it("log levels are silent..detail = 0..5, default info", () => {
    assert.deepEqual(Object.entries(LOG_LEVELS), [
      ["silent", 0],
      ["error", 1],
      ["warn", 2],
      ["info", 3],
      ["debug", 4],
      ["detail", 5],
    ]);
    assert.equal(config([L2])["log.level"], "info");
    assert.equal(config([L2, "--log.level=detail"])["log.level"], "detail");
    assert.match(errorOf([L2, "--log.level=trace"]), /--log\.level: expected one of silent, error/);
  });
  it("log formats and pprof types (Go's set, parsed even where Node has no equivalent)", () => {
    for (const f of ["text", "terminal", "logfmt", "json", "json-pretty"])
      assert.equal(config([L2, `--log.format=${f}`])["log.format"], f);
    for (const t of ["cpu", "heap", "goroutine", "threadcreate", "block", "mutex", "allocs"]) {
      assert.equal(config([L2, `--pprof.type=${t}`])["pprof.type"], t);
    }
  });
  it("the fork overrides take timestamps", () => {
    const c = config([L2, "--override.isthmus=1746806401", "--override.pectrablobschedule=0x10"]);
    assert.equal(c["override.isthmus"], 1746806401n);
    assert.equal(c["override.pectrablobschedule"], 16n);
    assert.equal(c["override.canyon"], 0n);
  });
  it("--override.karst ($OP_NODE_OVERRIDE_KARST), and --override.lagoon for --override.interop", () => {
    assert.equal(config([L2])["override.karst"], 0n);
    assert.equal(config([L2, "--override.karst=1783526401"])["override.karst"], 1783526401n);
    assert.equal(config([L2], { OP_NODE_OVERRIDE_KARST: "1783526401" })["override.karst"], 1783526401n);
    assert.match(errorOf([L2, "--override.karst=-1"]), /--override\.karst/);
    assert.equal(config([L2, "--override.lagoon=1900000000"])["override.interop"], 1900000000n);
    assert.equal(config([L2], { OP_NODE_OVERRIDE_INTEROP: "7" })["override.interop"], 7n);
  });
  it("--override.keep-karst-upgrade-gas is a tri-state: unset, true (bare or =true) or false, from argv or env", () => {
    assert.equal(config([L2])["override.keep-karst-upgrade-gas"], undefined);
    assert.equal(config([L2, "--override.keep-karst-upgrade-gas"])["override.keep-karst-upgrade-gas"], true);
    assert.equal(config([L2, "--override.keep-karst-upgrade-gas=false"])["override.keep-karst-upgrade-gas"], false);
    const env = { OP_NODE_OVERRIDE_KEEP_KARST_UPGRADE_GAS: "false" };
    assert.equal(config([L2], env)["override.keep-karst-upgrade-gas"], false);
    assert.match(errorOf([L2, "--override.keep-karst-upgrade-gas=maybe"]), /--override\.keep-karst-upgrade-gas/);
  });
  it("l1.rpckind has the ten kinds, l2.enginekind three", () => {
    const rpc = TABLE["l1.rpckind"]!;
    const eng = TABLE["l2.enginekind"]!;
    assert.ok(rpc.type === "enum" && eng.type === "enum");
    assert.equal(rpc.values.length, 10);
    for (const k of ["basic", "any", "standard"]) assert.ok(rpc.values.includes(k));
    assert.deepEqual([...eng.values], ["geth", "reth", "erigon"]);
  });
});

describe("cli/nodeFlags: --network", () => {
  const registry = fixturePath("op-stack", "superchain-registry", "configs");
  const fromRegistry = readdirSync(registry, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(registry, d.name))
        .filter((f) => f.endsWith(".toml") && f !== "superchain.toml")
        .map((f) => `${basename(f, ".toml")}-${d.name}`),
    )
    .sort();

  it("accepts exactly the chains of the superchain-registry configs folder, and op-node's legacy names", () => {
    assert.deepEqual([...NETWORKS], [...fromRegistry, "mainnet", "sepolia"]);
    for (const n of ["op-mainnet", "celo-mainnet", "settlus-mainnet-mainnet", "sepolia-devnet-2-sepolia-devnet-2"]) {
      assert.equal(config([L2, `--network=${n}`]).network, n);
    }
    assert.equal(config([L2, "--network=mainnet"]).network, "mainnet");
  });
  it("rejects other names with a one-line error saying how to list them", () => {
    const err = errorOf([L2, "--network=op-goerli"]);
    assert.equal(
      err,
      'invalid value "op-goerli" for flag --network: expected a known network name (list them with: opal-node networks)',
    );
    assert.match(errorOf([L2], { OP_NODE_NETWORK: "settlus" }), /\$OP_NODE_NETWORK.*opal-node networks/);
  });
  it("is exclusive with --rollup.config (from flags or env)", () => {
    const both = errorOf([L2, "--network=op-mainnet", "--rollup.config=rollup.json"]);
    assert.match(both, /--network.*--rollup\.config/);
    assert.match(errorOf([L2, "--network=op-mainnet"], { OP_NODE_ROLLUP_CONFIG: "rollup.json" }), /--rollup\.config/);
    assert.equal(config([L2, "--rollup.config=rollup.json"])["rollup.config"], "rollup.json");
  });
  it("--help lists every network name", () => {
    const r = run(["--help"]);
    assert.ok(r.ok && r.kind === "help");
    for (const n of fromRegistry) assert.ok(r.text.includes(n), n);
  });
});

describe("cli/nodeFlags: rules", () => {
  it("--l2 is required, from the flag or $OP_NODE_L2_ENGINE_RPC", () => {
    assert.equal(errorOf([]), "missing required flag --l2 (or $OP_NODE_L2_ENGINE_RPC)");
    assert.match(errorOf(["--l2="]), /--l2/);
    assert.deepEqual(config([], { OP_NODE_L2_ENGINE_RPC: "http://e:8551" }).l2, ["http://e:8551"]);
  });
  it("--help/-h and --version/-v need no --l2", () => {
    for (const a of ["--help", "-h"]) assert.equal(run([a]).kind, "help");
    for (const a of ["--version", "-v"]) {
      const r = run([a]);
      assert.ok(r.ok && r.kind === "version");
      assert.equal(r.text, `opal-node version ${NODE_CLI.version}`);
    }
  });
  it("a flag beats its env var", () => {
    const r = run([L2, "--rpc.port=1234"], { OP_NODE_RPC_PORT: "4321", OP_NODE_L2_ENGINE_RPC: "http://env:1" });
    assert.ok(r.ok && r.kind === "run");
    assert.equal(r.config["rpc.port"], 1234);
    assert.deepEqual(r.config.l2, ["http://127.0.0.1:8551"]);
    assert.equal(r.sources["rpc.port"], "flag");
  });
  it("unknown OP_NODE_* env vars warn; other variables are ignored", () => {
    const r = run([L2], { OP_NODE_RPC_PROT: "1", OP_NODE_L1_TRUSTRPC: "true", PATH: "/bin", OP_GETH_X: "1" });
    assert.ok(r.ok && r.kind === "run");
    assert.deepEqual([...r.warnings].sort(), [
      "unknown environment variable OP_NODE_L1_TRUSTRPC",
      "unknown environment variable OP_NODE_RPC_PROT",
    ]);
  });
  it("ports are 0..65535", () => {
    for (const p of ["rpc.port", "metrics.port", "pprof.port", "p2p.listen.tcp", "interop.rpc.port"]) {
      assert.match(errorOf([L2, `--${p}=65536`]), /port number in \[0, 65535\]/);
      assert.match(errorOf([L2, `--${p}=-1`]), new RegExp(`--${re(p)}(?![\\w.-])`));
      assert.equal((config([L2, `--${p}=0`]) as Record<string, unknown>)[p], 0);
    }
  });
  it("URLs: scheme and form are checked, each list item alone", () => {
    assert.match(errorOf(["--l2=http://ok.example,file:///x"]), /--l2.*"file:\/\/\/x": scheme file/);
    assert.match(errorOf([L2, "--l1=127.0.0.1:8545"]), /--l1: expected an http\(s\) or ws\(s\) URL/);
    assert.match(errorOf([L2, "--l1.beacon=ws://b.example"]), /--l1\.beacon: expected an http\(s\) URL/);
    assert.match(errorOf([L2, "--conductor.rpc=nope"]), /--conductor\.rpc/);
    assert.equal(config([L2, "--l1=wss://l1.example/key"]).l1, "wss://l1.example/key");
  });
  it("--l1.beacon-archiver and $OP_NODE_L1_BEACON_ARCHIVER also set --l1.beacon-fallbacks (op-node's alias)", () => {
    assert.deepEqual(config([L2, "--l1.beacon-archiver=http://a.example"])["l1.beacon-fallbacks"], [
      "http://a.example",
    ]);
    const r = run([L2], { OP_NODE_L1_BEACON_ARCHIVER: "http://a.example" });
    assert.ok(r.ok && r.kind === "run");
    assert.deepEqual(r.config["l1.beacon-fallbacks"], ["http://a.example"]);
    assert.equal(r.sources["l1.beacon-fallbacks"], "env");
    assert.deepEqual(r.warnings, []);
    const both = { OP_NODE_L1_BEACON_FALLBACKS: "http://f.example", OP_NODE_L1_BEACON_ARCHIVER: "http://a.example" };
    assert.deepEqual(config([L2], both)["l1.beacon-fallbacks"], ["http://f.example"]);
    assert.match(
      errorOf([L2], { OP_NODE_L1_BEACON_ARCHIVER: "nope" }),
      /\$OP_NODE_L1_BEACON_ARCHIVER \(flag --l1\.beacon-fallbacks\)/,
    );
  });
  it("errors name the option and stay on one line", () => {
    for (const [argv, re] of [
      [[L2, "--rpc.port"], /--rpc\.port needs a value/],
      [[L2, "--rpc.prot=1"], /unknown flag --rpc\.prot \(did you mean --rpc\.port\?\)/],
      [[L2, "--syncmode=snap"], /--syncmode: expected one of consensus-layer, execution-layer/],
      [[L2, "--p2p.sequencer.key=0xzz"], /--p2p\.sequencer\.key/],
      [[L2, "--rpc.port=1", "--rpc.port=2"], /--rpc\.port given more than once/],
    ] as const) {
      assert.match(errorOf(argv), re);
    }
  });
});

describe("cli/nodeFlags: help", () => {
  const r = run(["--help"]);
  assert.ok(r.ok && r.kind === "help");
  const help = r.text;
  const entries = help.split("\n\n");

  it("lists every option of spec part 4B with its default and env name", () => {
    for (const row of SPEC_ROWS) {
      const flag = TABLE[row.name]!;
      const entry = entries.find((e) => new RegExp(`^--${re(row.name)}[ ,]`).test(`${e.trimStart()} `));
      assert.ok(entry !== undefined, `--${row.name} not in help`);
      const head = entry.split("\n")[0]!;
      assert.ok(head.includes(`($${expectedEnv(row.name)})`), `--${row.name}: env missing in ${head}`);
      const def = defaultText(flag);
      if (expectedDefault(row, flag) !== undefined && !Array.isArray(expectedDefault(row, flag))) {
        assert.notEqual(def, "", `--${row.name}: no default text`);
        assert.ok(head.includes(`(default: ${def})`), `--${row.name}: default missing in ${head}`);
      }
    }
  });
  it("shows spec defaults in their spec form (durations Go-style)", () => {
    for (const [name, text] of [
      ["l1.epoch-poll-interval", "6m24s"],
      ["p2p.ban.duration", "1h0m0s"],
      ["l1.runtime-config-reload-interval", "10m0s"],
      ["altda.get-timeout", "0s"],
      ["l1", '"http://127.0.0.1:8545"'],
      ["p2p.ban.threshold", "-100"],
    ] as const) {
      assert.ok(help.includes(`(default: ${text})`), name);
    }
  });
  it("lists --help/-h and --version/-v, and --l2 as required", () => {
    assert.match(help, /--help, -h/);
    assert.match(help, /--version, -v/);
    const l2 = entries.find((e) => e.trimStart().startsWith("--l2 value"));
    assert.ok(l2?.includes("(required)"), l2);
  });
});
