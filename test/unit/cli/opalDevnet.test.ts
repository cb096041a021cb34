/**
 * opal-devnet's options on the shared flag machinery (src/cli/devnetFlags.ts): defaults, the
 * repeatable `--activate`, `OPAL_DEVNET_*` env vars, the help layout, and usage errors (one line,
 * exit 2) before anything starts. test/unit/node/devnet/devnetConfig.test.ts checks the `--activate` rules.
 */
import { strict as assert } from "node:assert";
import { parseDevnetArgs } from "../../../src/cli/devnetFlags.js";
import { main } from "../../../src/cli/opalDevnet.js";
import { EXIT_OK, EXIT_USAGE, type Io } from "../../../src/cli/processIo.js";

async function run(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (t) => out.push(t), err: (t) => err.push(t) };
  // A data folder that is never written: every case here stops at a usage error or at --help.
  const code = await main([...argv, "--datadir", "/nonexistent/opal-devnet-never-written"], io, env);
  return { code, out: out.join("\n"), err };
}

describe("cli/opalDevnet", () => {
  it("defaults, and --activate given more than once or as one comma-separated value", () => {
    const d = parseDevnetArgs([], {});
    assert.ok(d.kind === "run");
    assert.deepEqual(
      { ...d.config },
      {
        datadir: ".devnet",
        fresh: false,
        "el-sync": false,
        "block-time": 2,
        "l1-block-time": 2,
        da: "blobs",
        forks: "jovian",
        activate: [],
        "status-every": 5,
      },
    );
    const twice = parseDevnetArgs(["--forks=isthmus", "--activate", "jovian=10", "--activate=karst=20"], {});
    const once = parseDevnetArgs(["--forks=isthmus", "--activate", "jovian=10,karst=20"], {});
    assert.ok(twice.kind === "run" && once.kind === "run");
    assert.deepEqual(twice.config.activate, ["jovian=10", "karst=20"]);
    assert.deepEqual(once.config.activate, twice.config.activate);
  });

  it("OPAL_DEVNET_* env vars; a flag wins", () => {
    const env = { OPAL_DEVNET_BLOCK_TIME: "1", OPAL_DEVNET_DA: "calldata", OPAL_DEVNET_ACTIVATE: "karst=30" };
    const r = parseDevnetArgs(["--da", "auto"], env);
    assert.ok(r.kind === "run");
    assert.equal(r.config["block-time"], 1);
    assert.equal(r.config.da, "auto");
    assert.deepEqual(r.config.activate, ["karst=30"]);
  });

  it("--help in the shared layout, exit 0", async () => {
    const r = await run(["--help"]);
    assert.equal(r.code, EXIT_OK);
    assert.match(r.out, /^NAME:\n {3}opal-devnet - /);
    assert.match(r.out, /\nUSAGE:\n {3}opal-devnet \[global options\]\n/);
    assert.match(r.out, /--block-time value +\(default: 2\) +\(\$OPAL_DEVNET_BLOCK_TIME\)/);
    assert.match(r.out, /--activate value +\(\$OPAL_DEVNET_ACTIVATE\)\n/);
    assert.match(r.out, /\(may be\s+repeated\)/);
  });

  it("bad values: one line, exit 2, in the shared machinery's words", async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [["--block-time", "0"], {}, 'invalid value "0" for flag --block-time: expected a whole number of seconds ≥ 1'],
      [["--da", "ipfs"], {}, 'invalid value "ipfs" for flag --da: expected one of calldata, blobs, auto'],
      [
        [],
        { OPAL_DEVNET_STATUS_EVERY: "soon" },
        'invalid value "soon" for $OPAL_DEVNET_STATUS_EVERY (flag --status-every): expected a whole number of seconds ≥ 1',
      ],
      [
        ["--forks", "bedrock"],
        {},
        'invalid value "bedrock" for flag --forks: expected one of regolith, canyon, delta, ecotone, fjord, granite, holocene, isthmus, jovian, karst',
      ],
      [
        ["--activate", "nofork=3"],
        {},
        'invalid value "nofork=3" for flag --activate: expected <fork>=<seconds> items (nofork: not a devnet fork, want one of regolith, canyon, delta, ecotone, fjord, granite, holocene, isthmus, jovian, karst)',
      ],
      [["--forks", "isthmus", "--activate", "karst=10", "--activate", "karst=12"], {}, "--activate: karst given twice"],
      [["--status-every"], {}, "flag --status-every needs a value (a whole number of seconds ≥ 1)"],
      [["--frsh"], {}, "unknown flag --frsh (did you mean --fresh?)"],
    ];
    for (const [argv, env, want] of cases) {
      const r = await run(argv, env);
      assert.equal(r.code, EXIT_USAGE, argv.join(" "));
      assert.deepEqual(r.err, [`opal-devnet: ${want}`]);
      assert.equal(r.out, "");
    }
  });
});
