/**
 * The opal-exec flag table (src/cli/execFlags.ts): op-geth's names and defaults (pinned here as
 * literals, so a table edit that changes one fails), env names, help, subcommands, dumpconfig.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { EXEC_CLI, EXEC_FLAGS, type ExecConfig, OPAL_VERSION, parseExecArgs } from "../../../src/cli/execFlags.js";
import {
  defaultText,
  defaultValue,
  deriveEnvName,
  dumpConfig,
  type FlagSpec,
  type FlagTable,
  renderHelp,
  sliceConfig,
  validateCli,
} from "../../../src/cli/flagTable.js";
import { defaultThreads } from "../../../src/node/pools.js";

const HOME = "/home/op";
const TABLE: FlagTable = EXEC_FLAGS;
const CORES_MINUS_ONE = defaultThreads(availableParallelism());

/** Every flag's default, as op-geth has it (except where the comment says otherwise). */
const EXPECTED: Record<string, unknown> = {
  datadir: "/home/op/.opal", // geth: ~/.ethereum
  networkid: 0n,
  dev: false,
  "dev.period": 0,
  "dev.safe-lag": 8,
  "dev.finalized-lag": 16,
  "dev.beacon": false,
  "dev.beacon.addr": "127.0.0.1",
  "dev.beacon.port": 5052,
  "dev.gaslimit": 11_500_000n,
  http: false,
  "http.addr": "localhost",
  "http.port": 8545,
  "http.api": ["eth", "net", "web3"],
  "http.corsdomain": [],
  "http.vhosts": ["localhost"],
  ws: false,
  "ws.addr": "localhost",
  "ws.port": 8546,
  "ws.api": ["eth", "net", "web3"],
  "ws.origins": [],
  "authrpc.addr": "localhost",
  "authrpc.port": 8551,
  "authrpc.jwtsecret": undefined,
  "authrpc.vhosts": ["localhost"],
  // Opal's own: off, as op-geth and op-reth answer forkchoiceUpdated without an fsync.
  "engine.fsync-forkchoice": false,
  "miner.gaslimit": 60_000_000n,
  "rpc.gascap": 50_000_000n,
  "rpc.txfeecap": 1,
  "rpc.evmtimeout": 5000,
  "rpc.allow-unprotected-txs": false,
  "rpc.logquerylimit": 1000,
  "rpc.rangelimit": 0,
  "rpc.batch-request-limit": 1000,
  "rpc.http-body-limit": 5,
  "rpc.batch-response-max-size": 25_000_000,
  "txpool.nolocals": false,
  "txpool.pricelimit": 1n,
  "txpool.pricebump": 10,
  "txpool.accountslots": 16,
  "txpool.globalslots": 5120,
  "txpool.accountqueue": 64,
  "txpool.globalqueue": 1024,
  "txpool.lifetime": 3 * 3600 * 1000,
  cache: 1024,
  // geth cmd/utils importBatchSize.
  "import.batch": 2500,
  "workers.sigrecover": CORES_MINUS_ONE,
  "workers.triehash": CORES_MINUS_ONE,
  "workers.evmcall": CORES_MINUS_ONE,
  "workers.evmcall.queue": 64,
  "workers.evmcall.inline": 1,
  "db.engine": "rocksdb",
  "rpc.callcache": 4096,
  "gpo.blocks": 20,
  "gpo.percentile": 60,
  "gpo.maxprice": 500_000_000_000n,
  "gpo.ignoreprice": 2n,
  "gpo.minsuggestedpriorityfee": 1_000_000n,
  "rollup.sequencerhttp": undefined,
  "rollup.historicalrpc": undefined,
  "rollup.historicalrpctimeout": 5000,
  "rollup.disabletxpoolgossip": false,
  "rollup.computependingblock": false,
  "rollup.halt": undefined,
  "rollup.sequencertxconditionalenabled": false,
  "rollup.sequencertxconditionalcostratelimit": 5000,
  verbosity: 3,
  "log.format": "terminal",
  "pprof.addr": "0.0.0.0",
  "pprof.enabled": false,
  "pprof.path": undefined,
  "pprof.port": 6060,
  "pprof.type": undefined,
  metrics: false,
  "metrics.addr": undefined,
  "metrics.port": 6060,
  // geth cmd/utils/flags.go networking defaults.
  port: 30303,
  "discovery.port": 30303,
  bootnodes: [],
  nodiscover: false,
  "discovery.v4": true,
  "discovery.v5": true,
  maxpeers: 50,
  netrestrict: undefined,
  nat: "any",
  nodekey: undefined,
  "sync.followpeers": true,
  "debug.tip": undefined,
};

function run(argv: string[], env: Record<string, string> = {}) {
  const r = parseExecArgs(argv, env, { home: HOME });
  assert.equal(r.kind, "run", r.kind === "error" ? r.error : r.kind);
  if (r.kind !== "run") throw new Error("unreachable");
  return r;
}

function error(argv: string[], env: Record<string, string> = {}): string {
  const r = parseExecArgs(argv, env, { home: HOME });
  assert.ok(r.kind === "error", `expected an error for ${JSON.stringify(argv)}`);
  assert.ok(!r.error.includes("\n"), r.error);
  return r.error;
}

describe("cli/execFlags: table", () => {
  it("is valid (names, env names, defaults parse with their type)", () => {
    assert.deepEqual(validateCli(EXEC_CLI), []);
  });
  it("has exactly the expected flags", () => {
    assert.deepEqual(Object.keys(TABLE).sort(), Object.keys(EXPECTED).sort());
  });
  it("with no arguments every value is the table's default", () => {
    const r = run([]);
    for (const [name, spec] of Object.entries(TABLE)) {
      assert.deepEqual(r.config[name as keyof ExecConfig], defaultValue(spec, HOME), name);
      assert.equal(r.sources[name], "default", name);
    }
  });
  for (const [name, value] of Object.entries(EXPECTED)) {
    it(`default --${name} = ${typeof value === "bigint" ? `${value}n` : JSON.stringify(value)}`, () => {
      assert.deepEqual(run([]).config[name as keyof ExecConfig], value);
    });
  }
  it("env names are OPAL_EXEC_ + the upper-snake flag name", () => {
    for (const name of Object.keys(TABLE)) {
      const env = deriveEnvName("OPAL_EXEC", name);
      assert.match(env, /^OPAL_EXEC_[A-Z0-9_]+$/);
      const help = renderHelp(EXEC_CLI);
      assert.ok(help.includes(`($${env})`), name);
    }
    assert.equal(deriveEnvName("OPAL_EXEC", "rpc.batch-request-limit"), "OPAL_EXEC_RPC_BATCH_REQUEST_LIMIT");
  });
  it("OPAL_VERSION equals package.json's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    assert.equal(OPAL_VERSION, pkg.version);
  });
});

describe("cli/execFlags: help", () => {
  const help = renderHelp(EXEC_CLI);
  it("lists every non-hidden flag with its default", () => {
    for (const [name, spec] of Object.entries(TABLE)) {
      if (spec.hidden) continue;
      const line = help.split("\n").find((l) => l.trimStart().startsWith(`--${name} `) || l.trim() === `--${name}`);
      assert.ok(line, `--${name} missing from help`);
      const d = defaultText(spec);
      if (d !== "") assert.ok(line.includes(`(default: ${d})`), `${name}: ${line}`);
    }
  });
  it("shows geth's default forms", () => {
    for (const [flag, text] of [
      ["http.port", "8545"],
      ["http.addr", '"localhost"'],
      ["http.api", '"eth,net,web3"'],
      ["datadir", "~/.opal"],
      ["txpool.lifetime", "3h0m0s"],
      ["rpc.evmtimeout", "5s"],
      ["rpc.txfeecap", "1"],
      ["dev.gaslimit", "11500000"],
      ["http", "false"],
      ["log.format", '"terminal"'],
      ["workers.sigrecover", "CPU cores - 1, at least 1"],
    ] as const) {
      assert.match(
        help,
        new RegExp(`--${flag.replace(/\./g, "\\.")}( value)? +\\(default: ${escapeRe(text)}\\)`),
        flag,
      );
    }
    assert.match(help, /--http\.corsdomain value +\(\$OPAL_EXEC_HTTP_CORSDOMAIN\)/);
  });
  it("groups by geth's categories and lists the commands", () => {
    for (const c of [
      "ETHEREUM",
      "DEVELOPER CHAIN",
      "API AND CONSOLE",
      "TRANSACTION POOL (EVM)",
      "PERFORMANCE TUNING",
    ]) {
      assert.ok(help.includes(`\n   ${c}\n`), c);
    }
    for (const c of ["GAS PRICE ORACLE", "ROLLUP NODE", "LOGGING AND DEBUGGING"])
      assert.ok(help.includes(`\n   ${c}\n`), c);
    assert.match(help, /COMMANDS:\n {3}init +Bootstrap/);
    for (const c of ["import", "genesis", "dumpconfig"]) assert.match(help, new RegExp(`\n {3}${c} +[A-Z]`));
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("cli/execFlags: parsing", () => {
  it("a typical sequencer command line", () => {
    const r = run([
      "--datadir=/data",
      "--http",
      "--http.addr=0.0.0.0",
      "--http.api=eth,net,web3,debug,txpool",
      "--ws",
      "--authrpc.jwtsecret",
      "~/jwt.txt",
      "--rollup.sequencerhttp=https://sequencer",
      "--rollup.disabletxpoolgossip",
      "--txpool.lifetime=30m",
      "--rpc.txfeecap=0.5",
      "--networkid",
      "10",
      "--log.format=json",
      "--rollup.halt=major",
    ]);
    const c = r.config;
    assert.equal(c.datadir, "/data");
    assert.equal(c.http, true);
    assert.equal(c["http.addr"], "0.0.0.0");
    assert.deepEqual(c["http.api"], ["eth", "net", "web3", "debug", "txpool"]);
    assert.equal(c.ws, true);
    assert.equal(c["authrpc.jwtsecret"], "/home/op/jwt.txt");
    assert.equal(c["rollup.sequencerhttp"], "https://sequencer");
    assert.equal(c["rollup.disabletxpoolgossip"], true);
    assert.equal(c["txpool.lifetime"], 30 * 60 * 1000);
    assert.equal(c["rpc.txfeecap"], 0.5);
    assert.equal(c.networkid, 10n);
    assert.equal(c["log.format"], "json");
    assert.equal(c["rollup.halt"], "major");
  });
  it("env fallback with OPAL_EXEC_* names; flags win", () => {
    const r = run(["--http.port=1"], {
      OPAL_EXEC_HTTP_PORT: "2",
      OPAL_EXEC_WS_PORT: "3",
      OPAL_EXEC_TXPOOL_LIFETIME: "1h",
      OPAL_EXEC_ROLLUP_DISABLETXPOOLGOSSIP: "true",
      OPAL_EXEC_DATADIR: "~/d",
    });
    assert.equal(r.config["http.port"], 1);
    assert.equal(r.config["ws.port"], 3);
    assert.equal(r.config["txpool.lifetime"], 3_600_000);
    assert.equal(r.config["rollup.disabletxpoolgossip"], true);
    assert.equal(r.config.datadir, "/home/op/d");
    assert.deepEqual(r.warnings, []);
  });
  it("warns about unknown OPAL_EXEC_* env vars", () => {
    assert.deepEqual(run([], { OPAL_EXEC_HTTP_PROT: "1" }).warnings, [
      "unknown environment variable OPAL_EXEC_HTTP_PROT",
    ]);
  });
  it("one-line errors", () => {
    assert.equal(error(["--http.prot=1"]), "unknown flag --http.prot (did you mean --http.port?)");
    assert.equal(
      error(["--txpool.pricelimt", "1"]),
      "unknown flag --txpool.pricelimt (did you mean --txpool.pricelimit?)",
    );
    assert.equal(error(["--verbosity=6"]), 'invalid value "6" for flag --verbosity: expected an integer in [0, 5]');
    assert.equal(
      error(["--log.format", "text"]),
      'invalid value "text" for flag --log.format: expected one of terminal, logfmt, json',
    );
    assert.equal(
      error(["--http.port=70000"]),
      'invalid value "70000" for flag --http.port: expected an integer in [0, 65535]',
    );
    assert.equal(
      error(["--workers.triehash=0"]),
      'invalid value "0" for flag --workers.triehash: expected an integer ≥ 1',
    );
    assert.equal(
      error(["--rpc.evmtimeout=5"]),
      'invalid value "5" for flag --rpc.evmtimeout: expected a duration such as "1h0m0s", "10s" or "500ms"',
    );
    assert.equal(error(["--http", "false"]), "flag --http takes no separate value: write --http=false");
    assert.equal(error(["--cache=1", "--cache=2"]), "flag --cache given more than once");
  });
  it("config slices per subsystem", () => {
    const r = run(["--txpool.pricebump=25"]);
    const pool = sliceConfig(r.config, "txpool");
    assert.equal(pool.pricebump, 25);
    assert.equal(pool.globalslots, 5120);
    const bump: number = pool.pricebump;
    const limit: bigint = pool.pricelimit;
    void [bump, limit];
    assert.deepEqual(Object.keys(sliceConfig(r.config, "gpo")).sort(), [
      "blocks",
      "ignoreprice",
      "maxprice",
      "minsuggestedpriorityfee",
      "percentile",
    ]);
  });
});

describe("cli/execFlags: subcommands", () => {
  it("init <genesis.json>", () => {
    const r = parseExecArgs(["--datadir", "/d", "init", "genesis.json"], {}, { home: HOME });
    assert.ok(r.kind === "command" && r.command === "init");
    assert.deepEqual(r.args, ["genesis.json"]);
    assert.equal(r.config.datadir, "/d");
    assert.equal(error(["init"]), "missing argument <genesis.json> for command init");
    assert.equal(error(["init", "a.json", "b.json"]), 'unexpected argument "b.json"');
  });
  it("import <file.rlp>...", () => {
    const r = parseExecArgs(["import", "a.rlp", "b.rlp", "--datadir=/d"], {}, { home: HOME });
    assert.ok(r.kind === "command" && r.command === "import");
    assert.deepEqual(r.args, ["a.rlp", "b.rlp"]);
    assert.equal(r.config.datadir, "/d");
    assert.equal(error(["import"]), "missing argument <file.rlp> for command import");
  });
  it("genesis --out --chainid", () => {
    const d = parseExecArgs(["genesis"], {}, { home: HOME });
    assert.ok(d.kind === "command" && d.command === "genesis");
    assert.equal(d.options.chainid, 901n);
    assert.equal(d.options.out, undefined);
    const r = parseExecArgs(["genesis", "--out", "~/g.json", "--chainid=0x2105"], {}, { home: HOME });
    assert.ok(r.kind === "command" && r.command === "genesis");
    assert.equal(r.options.out, "/home/op/g.json");
    assert.equal(r.options.chainid, 8453n);
    const e = parseExecArgs(["genesis"], { OPAL_EXEC_GENESIS_CHAINID: "7" }, { home: HOME });
    assert.ok(e.kind === "command" && e.command === "genesis");
    assert.equal(e.options.chainid, 7n);
    assert.equal(
      error(["genesis", "--chainid=-1"]),
      'invalid value "-1" for flag --chainid: expected an unsigned 64-bit integer',
    );
    assert.equal(
      error(["--chainid=1", "genesis"]),
      "flag --chainid belongs to command genesis; give it after the command",
    );
    assert.equal(error(["genesis", "x"]), 'unexpected argument "x"');
  });
  it("dumpconfig prints JSON that, fed back as flags, gives the same config", () => {
    const r = parseExecArgs(
      ["dumpconfig", "--http", "--txpool.lifetime=90m", "--rollup.halt=minor"],
      {},
      { home: HOME },
    );
    assert.ok(r.kind === "command" && r.command === "dumpconfig");
    const json = JSON.parse(dumpConfig(EXEC_FLAGS, r.config)) as Record<string, unknown>;
    assert.equal(json["txpool.lifetime"], "1h30m0s");
    assert.equal(json["rpc.gascap"], "50000000");
    assert.equal(json["http.port"], 8545);
    assert.equal(json["rollup.sequencerhttp"], null);
    assert.deepEqual(Object.keys(json), Object.keys(TABLE));
    const argv: string[] = [];
    for (const [name, v] of Object.entries(json)) {
      if (v === null) continue;
      argv.push(`--${name}=${Array.isArray(v) ? v.join(",") : String(v)}`);
    }
    assert.deepEqual(run(argv).config, r.config);
    assert.equal(error(["dumpconfig", "x"]), 'unexpected argument "x"');
  });
  it("command help and unknown commands", () => {
    const h = parseExecArgs(["genesis", "-h"], {});
    assert.ok(h.kind === "help");
    assert.match(h.text, /--chainid value +\(default: 901\) +\(\$OPAL_EXEC_GENESIS_CHAINID\)/);
    assert.match(h.text, /--out value +\(\$OPAL_EXEC_GENESIS_OUT\)/);
    assert.equal(error(["dumpconfg"]), 'unknown command "dumpconfg" (did you mean dumpconfig?)');
    const v = parseExecArgs(["--version"], {});
    assert.ok(v.kind === "version" && v.text === `opal-exec version ${OPAL_VERSION}`);
  });
});

describe("cli/execFlags: types", () => {
  it("the config type is inferred from the table", () => {
    const check = (c: ExecConfig): void => {
      const port: number = c["http.port"];
      const fmt: "terminal" | "logfmt" | "json" = c["log.format"];
      const halt: "major" | "minor" | "patch" | "none" | undefined = c["rollup.halt"];
      const api: readonly string[] = c["http.api"];
      const id: bigint = c.networkid;
      const gas: bigint = c["dev.gaslimit"];
      const timeout: number = c["rpc.evmtimeout"];
      // @ts-expect-error no default: may be undefined
      const seq: string = c["rollup.sequencerhttp"];
      // @ts-expect-error not a flag
      void c["http.nope"];
      void [port, fmt, halt, api, id, gas, timeout, seq];
    };
    void check;
    const spec: FlagSpec = TABLE["http.port"]!;
    assert.equal(spec.type, "int");
  });
});
