/**
 * The `opal-node` command as an operator runs it: `--help` lists every option of spec part 4B with
 * its default and env name (and the bundled networks), `--version`, bad values as one line with a
 * non-zero exit before anything starts, startup failures as one line. The command as a real process
 * on `--network=op-sepolia`: test/e2e/cli/opalNode.test.ts.
 */
import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../../../src/cli/opalNode.js";
import { tempDir } from "../../utils/node.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

async function run(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, env, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err };
}

/** Option names of spec part 4B: the table rows and the fork-override name list. */
function specOptions(): string[] {
  const spec = readFileSync(join(ROOT, "..", "shared", "docs", "spec.md"), "utf8");
  const start = spec.indexOf("### B. Rollup node");
  const part = spec.slice(start, spec.indexOf("\n## 5.", start));
  const names: string[] = [];
  for (const line of part.split("\n")) {
    const forks = /^Each option takes a timestamp.*Names: (.+)\.$/.exec(line);
    if (forks !== null) for (const m of forks[1]!.matchAll(/`([^`]+)`/g)) names.push(m[1]!);
    const row = /^\| ([a-z0-9][a-z0-9.-]*) \|/.exec(line);
    if (row !== null) names.push(row[1]!);
  }
  return names;
}

describe("cli/opalNode", function () {
  this.timeout(60_000);

  it("--help lists every option of spec part 4B with its env name, and the networks; --version", async () => {
    const help = await run(["--help"]);
    assert.equal(help.code, 0);
    const names = specOptions();
    assert.ok(names.length > 90, `spec options found: ${names.length}`);
    for (const n of names) assert.ok(help.out.includes(`--${n}`), `--help lacks --${n}`);
    assert.match(help.out, /--rpc\.port value\s+\(default: 9545\)\s+\(\$OP_NODE_RPC_PORT\)/);
    for (const net of ["op-mainnet", "op-sepolia", "base-mainnet"]) assert.ok(help.out.includes(net), net);
    assert.match(help.out, /--override\.karst value\s+\(default: 0\)\s+\(\$OP_NODE_OVERRIDE_KARST\)/);
    assert.match(help.out, /\nCOMMANDS:\n {2}batch-decode FILE\.\.\. .*\n {2}networks {2,}list the --network names/);
    const v = await run(["--version"]);
    assert.equal(v.code, 0);
    assert.match(v.out, /0\.1\.0/);
  });

  it("bad values: one line naming the option, exit 2, nothing started", async () => {
    const cases: [string[], RegExp][] = [
      [["--l2=http://127.0.0.1:1", "--rpc.port=70000"], /--rpc\.port/],
      [["--l2=http://127.0.0.1:1", "--l1.epoch-poll-interval=soon"], /--l1\.epoch-poll-interval/],
      [["--l2=http://127.0.0.1:1", "--l1.rpckind=magic"], /--l1\.rpckind/],
      [["--l2=not a url"], /--l2/],
      [["--rpc.port=9545"], /--l2/],
      [["--l2=http://127.0.0.1:1", "--network=op-sepolia", "--rollup.config=r.json"], /--network.*--rollup\.config/],
      [["--l2=http://127.0.0.1:1", "--network=op-nowhere"], /--network: expected .*opal-node networks/],
    ];
    for (const [argv, why] of cases) {
      const r = await run(argv);
      assert.equal(r.code, 2, argv.join(" "));
      assert.equal(r.err.length, 1);
      assert.match(r.err[0]!, why);
      assert.ok(!r.err[0]!.includes("\n"));
    }
  });

  it("a startup failure (no rollup config) is one line and exit 1", async () => {
    const dir = tempDir("opalnode-cfg");
    try {
      const r = await run([
        "--l2=http://127.0.0.1:1",
        `--l2.jwt-secret=${join(dir.path, "jwt")}`,
        "--rpc.port=0",
        "--log.level=error",
      ]);
      assert.equal(r.code, 1);
      assert.deepEqual(r.err, ["opal-node: missing rollup configuration: give --network or --rollup.config"]);
      // An L1 chain config for another chain than the rollup's L1 (op-sepolia is on Sepolia).
      const l1 = join(dir.path, "l1.json");
      writeFileSync(l1, JSON.stringify({ config: { chainId: 1, homesteadBlock: 0 } }));
      const wrongL1 = await run([
        "--network=op-sepolia",
        "--l2=http://127.0.0.1:1",
        `--l2.jwt-secret=${join(dir.path, "jwt")}`,
        `--rollup.l1-chain-config=${l1}`,
        "--log.level=error",
      ]);
      assert.equal(wrongL1.code, 1);
      assert.equal(wrongL1.err.length, 1);
      assert.match(wrongL1.err[0]!, /^opal-node: --rollup\.l1-chain-config: .*chain id 1, rollup config says 11155111/);
      // A chain with Ecotone needs a beacon endpoint for blobs (op-node refuses to start without one).
      const noBeacon = await run([
        "--network=op-sepolia",
        "--l1=http://127.0.0.1:1",
        "--l2=http://127.0.0.1:1",
        `--l2.jwt-secret=${join(dir.path, "jwt")}`,
        "--rpc.port=0",
        "--log.level=error",
      ]);
      assert.equal(noBeacon.code, 1);
      assert.equal(noBeacon.err.length, 1);
      assert.match(noBeacon.err[0]!, /^opal-node: expected L1 Beacon API endpoint \(--l1\.beacon\)/);
      // A beacon endpoint that does not answer stops the node unless --l1.beacon.ignore.
      const deadBeacon = await run([
        "--network=op-sepolia",
        "--l1=http://127.0.0.1:1",
        "--l1.beacon=http://127.0.0.1:1",
        "--l2=http://127.0.0.1:1",
        `--l2.jwt-secret=${join(dir.path, "jwt")}`,
        "--rpc.port=0",
        "--log.level=error",
      ]);
      assert.equal(deadBeacon.code, 1);
      assert.equal(deadBeacon.err.length, 1);
      assert.match(
        deadBeacon.err[0]!,
        /^opal-node: failed to check L1 Beacon API version: .*--l1\.beacon\.ignore=true/,
      );
    } finally {
      dir.remove();
    }
  });
});
