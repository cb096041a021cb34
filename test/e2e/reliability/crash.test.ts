/**
 * The crash-consistency slice of npm test: OPAL_CRASH_CYCLES (default 2) SIGKILL/restart cycles of
 * the kinds in OPAL_CRASH_KINDS (default exec-dev, exec-engine and node-admin: the dev sealer, the
 * Engine API, and opal-node sequencing with its admin state and safe-head DB; `npm run reliability
 * -- crash` runs all six kinds, 50 cycles each). Then each kind once more with loss injected: the
 * harness drops the last acknowledged item after the kill, and the kind must report it lost. The
 * seed is printed in every failure message.
 */
import { strict as assert } from "node:assert";
import { ExecNode } from "../../../src/node/exec/execNode.js";
import { CrashCheckError, checkStored, runCrashKind } from "../../reliability/crashHarness.js";
import { crashKindsOf } from "../../reliability/crashSection.js";
import { configOf, tempDir } from "../../utils/node.js";

const CYCLES = Number(process.env.OPAL_CRASH_CYCLES ?? 2);
const SEED = Number(process.env.OPAL_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const KINDS = crashKindsOf(process.env.OPAL_CRASH_KINDS ?? "exec-dev,exec-engine,node-admin");

describe("reliability: SIGKILL at random points, then restart (crash consistency)", function () {
  this.timeout(240_000);

  for (const kind of KINDS) {
    it(`${kind}: ${CYCLES} kill/restart cycles, heads fully stored, nothing acknowledged lost`, async () => {
      const lines: string[] = [];
      const r = await runCrashKind(kind, { cycles: CYCLES, seed: SEED, print: (l) => lines.push(l) });
      const context = `seed ${SEED}\n${lines.join("\n").slice(-6000)}`;
      assert.deepEqual(r.failures, [], context);
      assert.equal(r.passed, CYCLES, context);
      assert.equal(r.lost, 0, context);
      assert.ok(r.checked > 0, `nothing acknowledged was checked\n${context}`);
    });
  }

  for (const kind of KINDS) {
    it(`${kind}: with the last acknowledged item dropped after the kill, the check reports it lost`, async () => {
      const lines: string[] = [];
      const r = await runCrashKind(kind, { cycles: 2, seed: SEED, injectLoss: true, print: (l) => lines.push(l) });
      assert.ok(r.lost > 0, `no loss reported; seed ${SEED}\n${lines.join("\n").slice(-6000)}`);
    });
  }

  it("the stored-block check rejects a head the EL does not hold, and passes the real one", async () => {
    const dir = tempDir("crash-check");
    const node = await ExecNode.start(configOf(["--dev", "--datadir", dir.path, "--http"]), { print: () => undefined });
    try {
      const url = `http://127.0.0.1:${node.endpoints.http!.port}/`;
      const head = {
        number: node.chain.head.number,
        hash: `0x${Buffer.from(node.chain.headBlockHash).toString("hex")}`,
      };
      await checkStored(url, head, "head");
      await assert.rejects(
        checkStored(url, { number: head.number, hash: `0x${"ab".repeat(32)}` }, "head"),
        CrashCheckError,
      );
      await assert.rejects(checkStored(url, { number: head.number + 1, hash: head.hash }, "head"), CrashCheckError);
    } finally {
      await node.stop();
      dir.remove();
    }
  });

  it("OPAL_CRASH_KINDS names known kinds only", () => {
    assert.deepEqual(crashKindsOf("exec-dev, node-admin"), ["exec-dev", "node-admin"]);
    assert.equal(crashKindsOf(undefined).length, 6);
    assert.throws(() => crashKindsOf("exec-dev,nope"), /unknown kind nope/);
  });
});
