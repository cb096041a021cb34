/**
 * `opal-evm` as a process (src/cli/opalEvm.ts): output lines, filters, folders, EIP-3155 traces on
 * stderr, and the exit statuses (0 all passed, 1 any failed, 2 usage error with one stderr line).
 * Spawns the TypeScript entry through tsx's ESM loader (the launcher bin/opal-evm.mjs once), on tiny
 * EEST files; the runs of one test go in parallel, since each spends most of its time starting up.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixturePath, REPO_ROOT } from "../../utils/fixtures.js";

const ENTRY = join(REPO_ROOT, "src/cli/opalEvm.ts");
const LAUNCHER = join(REPO_ROOT, "bin/opal-evm.mjs");

const ST = (...p: string[]): string => fixturePath("eest-v5.4.0", "state_tests", ...p);
const BT = (...p: string[]): string => fixturePath("eest-v5.4.0", "blockchain_tests", ...p);

/** One case, Osaka. */
const ONE_CASE = ST("osaka/eip7825_transaction_gas_limit_cap/test_tx_gas_limit_cap_exceeded.json");
/** Two tests: one Cancun case, one Prague case. */
const TWO_FORKS = ST("static/state_tests/stTransactionTest/OverflowGasRequire2.json");
/** Two tests, Shanghai: `...-no_blob_tx]` and `...-one_blob_tx]`. */
const TWO_NAMES = ST("cancun/eip4844_blobs/test_blob_type_tx_pre_fork.json");
/** One case that runs a little bytecode (CLZ in initcode): a short trace. */
const TRACED = ST("osaka/eip7939_count_leading_zeros/test_clz_initcode_context.json");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], script = ENTRY, env: Record<string, string> = {}): Promise<Run> {
  const nodeArgs = script === ENTRY ? ["--import", "tsx/esm", ENTRY, ...args] : [script, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

interface CaseLine {
  name: string;
  fork: string;
  pass: boolean;
  stateRoot: string;
  error: string | null;
}

/** The case lines and the summary line of a run's stdout; checks the shape of every line. */
function parseOut(stdout: string): { cases: CaseLine[]; summary: string } {
  assert.ok(stdout.endsWith("\n"), "stdout ends with a newline");
  const lines = stdout.slice(0, -1).split("\n");
  const summary = lines.pop() as string;
  const cases = lines.map((l) => JSON.parse(l) as CaseLine);
  for (const c of cases) {
    assert.deepEqual(Object.keys(c), ["name", "fork", "pass", "stateRoot", "error"]);
    assert.equal(typeof c.name, "string");
    assert.equal(typeof c.pass, "boolean");
    if (c.pass) {
      assert.equal(c.error, null);
      assert.match(c.stateRoot, /^0x[0-9a-f]{64}$/);
    } else assert.equal(typeof c.error, "string");
  }
  const passed = cases.filter((c) => c.pass).length;
  assert.equal(summary, `${passed} passed, ${cases.length - passed} failed`);
  return { cases, summary };
}

/** A usage error: status 2, nothing on stdout, exactly one line on stderr naming `what`. */
function assertUsage(r: Run, what: RegExp): void {
  assert.equal(r.code, 2, `exit status (stderr: ${r.stderr})`);
  assert.equal(r.stdout, "");
  assert.ok(r.stderr.endsWith("\n"));
  const lines = r.stderr.slice(0, -1).split("\n");
  assert.equal(lines.length, 1, `one stderr line, got: ${r.stderr}`);
  assert.match(lines[0], /^opal-evm: /);
  assert.match(lines[0], what);
  assert.match(lines[0], /--help/);
  assert.doesNotMatch(r.stderr, /\s+at /, "no stack trace");
}

describe("cli: opal-evm", function () {
  this.timeout(20_000);
  let tmp: string;

  before(() => {
    tmp = mkdtempSync(join(tmpdir(), "opal-evm-"));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  describe("statetest", () => {
    it("runs one file: one JSON line per case, then the summary, exit 0", async () => {
      const r = await run(["statetest", ONE_CASE]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, "");
      const { cases, summary } = parseOut(r.stdout);
      assert.equal(summary, "1 passed, 0 failed");
      assert.equal(cases[0].fork, "Osaka");
      assert.match(cases[0].name, /test_tx_gas_limit_cap_exceeded/);
    });

    it("walks a folder recursively: *.json only, sorted by path", async () => {
      const dir = join(tmp, "corpus");
      mkdirSync(join(dir, "b", "c"), { recursive: true });
      mkdirSync(join(dir, "a"), { recursive: true });
      copyFileSync(TWO_NAMES, join(dir, "b", "c", "z.json"));
      copyFileSync(ONE_CASE, join(dir, "b", "a.json"));
      copyFileSync(TWO_FORKS, join(dir, "a", "y.json"));
      writeFileSync(join(dir, "a", "notes.txt"), "not a fixture");
      const [r, again] = await Promise.all([run(["statetest", dir]), run(["statetest", dir])]);
      assert.equal(r.code, 0, r.stderr);
      const { cases, summary } = parseOut(r.stdout);
      assert.equal(summary, "5 passed, 0 failed");
      // a/y.json (Cancun, Prague), b/a.json (Osaka), b/c/z.json (Shanghai ×2)
      assert.deepEqual(
        cases.map((c) => c.fork),
        ["Cancun", "Prague", "Osaka", "Shanghai", "Shanghai"],
      );
      assert.equal(again.stdout, r.stdout, "same order every run");
    });

    it("--fork keeps only that fork's cases; one that matches none gives 0 passed, 0 failed, exit 0", async () => {
      const [r, none] = await Promise.all([
        run(["statetest", "--fork", "Prague", TWO_FORKS, ONE_CASE]),
        run(["statetest", "--fork", "Frontier", ONE_CASE]),
      ]);
      assert.equal(r.code, 0, r.stderr);
      const { cases } = parseOut(r.stdout);
      assert.deepEqual(
        cases.map((c) => c.fork),
        ["Prague"],
      );
      assert.equal(none.code, 0);
      assert.equal(none.stdout, "0 passed, 0 failed\n");
    });

    it("the filters also come from $OPAL_EVM_STATETEST_*; a flag wins over its env var", async () => {
      const [env, both] = await Promise.all([
        run(["statetest", TWO_FORKS], ENTRY, { OPAL_EVM_STATETEST_FORK: "Prague" }),
        run(["statetest", "--fork", "Cancun", TWO_FORKS], ENTRY, { OPAL_EVM_STATETEST_FORK: "Prague" }),
      ]);
      assert.equal(env.code, 0, env.stderr);
      assert.deepEqual(
        parseOut(env.stdout).cases.map((c) => c.fork),
        ["Prague"],
      );
      assert.deepEqual(
        parseOut(both.stdout).cases.map((c) => c.fork),
        ["Cancun"],
      );
    });

    it("--run keeps only tests whose name matches (also as --run=REGEX)", async () => {
      const runs = await Promise.all([
        run(["statetest", "--run", "one_blob_tx\\]$", TWO_NAMES]),
        run(["statetest", "--run=one_blob_tx\\]$", TWO_NAMES]),
      ]);
      for (const r of runs) {
        assert.equal(r.code, 0, r.stderr);
        const { cases } = parseOut(r.stdout);
        assert.equal(cases.length, 1);
        assert.match(cases[0].name, /one_blob_tx\]$/);
      }
    });

    it("--trace writes parseable EIP-3155 lines to stderr, stdout unchanged", async () => {
      const r = await run(["statetest", "--trace", TRACED]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(parseOut(r.stdout).summary, "1 passed, 0 failed");
      const lines = r.stderr.trimEnd().split("\n");
      assert.ok(lines.length >= 3, `trace lines: ${lines.length}`);
      const objs = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      const steps = objs.slice(0, -1);
      for (const s of steps) {
        assert.equal(typeof s.pc, "number");
        assert.equal(typeof s.op, "number");
        assert.match(s.gas as string, /^0x[0-9a-f]+$/);
        assert.match(s.gasCost as string, /^0x[0-9a-f]+$/);
        assert.ok(Array.isArray(s.stack));
        assert.equal(typeof s.depth, "number");
        assert.equal(typeof s.opName, "string");
      }
      assert.ok(
        steps.some((s) => s.opName === "CLZ"),
        "the CLZ step is traced",
      );
      const last = objs[objs.length - 1];
      assert.match(last.gasUsed as string, /^0x[0-9a-f]+$/, "EIP-3155 summary line last");
      assert.equal(typeof last.output, "string");
    });

    it("a malformed JSON file is a failed case (exit 1), and the other files still run", async () => {
      const bad = join(tmp, "broken.json");
      writeFileSync(bad, "{ not json");
      const r = await run(["statetest", bad, ONE_CASE]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, "");
      const { cases, summary } = parseOut(r.stdout);
      assert.equal(summary, "1 passed, 1 failed");
      assert.equal(cases[0].name, bad);
      assert.equal(cases[0].pass, false);
      assert.match(cases[0].error as string, /cannot read test file/);
    });

    it("a reader that goes away (| head) ends the run quietly", async () => {
      const dir = join(tmp, "many");
      mkdirSync(dir);
      for (let i = 0; i < 300; i++) copyFileSync(ONE_CASE, join(dir, `${String(i).padStart(3, "0")}.json`));
      const child = spawn(process.execPath, ["--import", "tsx/esm", ENTRY, "statetest", dir], {
        cwd: REPO_ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.stdout.once("data", () => child.stdout.destroy());
      const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
        child.on("close", (c, s) => resolve([c, s])),
      );
      assert.equal(signal, null);
      assert.equal(code, 0, stderr);
      assert.equal(stderr, "", "nothing on stderr (no EPIPE trace)");
    });
  });

  describe("usage errors: exit 2, one line on stderr", () => {
    it("nonexistent path", async () => {
      const r = await run(["statetest", join(tmp, "does-not-exist.json")]);
      assertUsage(r, /does-not-exist\.json: no such file or directory/);
    });

    it("unknown flag", async () => {
      assertUsage(await run(["statetest", "--frobnicate", ONE_CASE]), /unknown flag --frobnicate/);
    });

    it("unknown command, missing command, missing path", async () => {
      const [cmd, none, path] = await Promise.all([
        run(["runtest", ONE_CASE]),
        run([]),
        run(["statetest", "--fork", "Osaka"]),
      ]);
      assertUsage(cmd, /unknown command "runtest"/);
      assertUsage(none, /: a command is required: statetest, blocktest /);
      assertUsage(path, /: missing argument <PATH> for command statetest /);
    });

    it("bad regex, flag without value, --trace on blocktest", async () => {
      const [regex, noValue, trace] = await Promise.all([
        run(["statetest", "--run", "(", ONE_CASE]),
        run(["statetest", ONE_CASE, "--fork"]),
        run(["blocktest", "--trace", ONE_CASE]),
      ]);
      assertUsage(regex, /: invalid value "\(" for flag --run: expected a regular expression \(.+\) /);
      assertUsage(noValue, /: flag --fork needs a value \(a fork name\) /);
      assertUsage(trace, /: flag --trace is not supported by command blocktest \(only statetest\) /);
    });
  });

  describe("help and version", () => {
    it("--help prints the command's usage and each subcommand's, exit 0", async () => {
      const [top, st, bt] = await Promise.all([
        run(["--help"]),
        run(["statetest", "--help"]),
        run(["blocktest", "-h"]),
      ]);
      // The shared help layout (flagTable.ts renderHelp), as opal-exec and opal-node print it.
      assert.equal(top.code, 0);
      assert.match(top.stdout, /^NAME:\n {3}opal-evm - /);
      assert.match(top.stdout, /\nUSAGE:\n {3}opal-evm \[global options\] command \[command options\]\n/);
      assert.match(top.stdout, /\nCOMMANDS:\n {3}statetest {2}.*\n {3}blocktest {2}/);
      assert.equal(st.code, 0);
      assert.match(st.stdout, /^NAME:\n {3}opal-evm statetest - /);
      assert.match(st.stdout, /\nUSAGE:\n {3}opal-evm \[global options\] statetest \[command options\] <PATH>\.\.\.\n/);
      for (const f of ["--fork", "--run", "--trace"]) assert.ok(st.stdout.includes(f), f);
      assert.match(st.stdout, /--run value +\(\$OPAL_EVM_STATETEST_RUN\)/);
      assert.equal(bt.code, 0);
      assert.match(bt.stdout, /^NAME:\n {3}opal-evm blocktest - /);
      assert.ok(!bt.stdout.includes("--trace"));
    });

    it("--version prints package.json's version (through the bin launcher)", async () => {
      const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
      const r = await run(["--version"], LAUNCHER);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `opal-evm ${version}\n`);
    });
  });

  describe("blocktest", () => {
    const BLOCKS = BT("cancun/eip4844_blobs/test_blob_type_tx_pre_fork.json");
    const BEACON = BT("cancun/eip4788_beacon_root/test_no_beacon_root_contract_at_transition.json");

    it("runs files: one line per test, exit 0", async () => {
      const r = await run(["blocktest", BLOCKS, BEACON]);
      assert.equal(r.code, 0, r.stderr);
      const { cases, summary } = parseOut(r.stdout);
      assert.equal(summary, "3 passed, 0 failed");
      for (const c of cases) assert.equal(c.fork, "ShanghaiToCancunAtTime15k");
    });

    it("--run and --fork filter; a malformed file is a failed case", async () => {
      const bad = join(tmp, "broken-block.json");
      writeFileSync(bad, "[1, 2");
      const [run1, none, r] = await Promise.all([
        run(["blocktest", "--run", "no_blob_tx", BLOCKS]),
        run(["blocktest", "--fork", "Prague", BLOCKS]),
        run(["blocktest", bad]),
      ]);
      assert.equal(run1.code, 0, run1.stderr);
      assert.equal(parseOut(run1.stdout).cases.length, 1);
      assert.equal(none.stdout, "0 passed, 0 failed\n");
      assert.equal(r.code, 1);
      assert.equal(parseOut(r.stdout).summary, "0 passed, 1 failed");
    });
  });
});
