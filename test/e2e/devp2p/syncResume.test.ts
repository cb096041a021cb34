/**
 * The downloader's resumption checks (test/unit/devp2p/sync/resume.child.ts) in a process of their
 * own: a sync stopped midway — during execution, and during the header stage — over a RocksDB
 * datadir that is closed and reopened, then resumed without re-downloading or re-executing what was
 * done. The child is mocha on that one file; its report is shown when it fails.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..", "..");

describe("devp2p/sync: resumption across a RocksDB reopen (own process)", function () {
  this.timeout(180_000);

  it("both resume checks pass", () => {
    const r = spawnSync(
      process.execPath,
      [
        join(ROOT, "node_modules", "mocha", "bin", "mocha.js"),
        "--reporter",
        "spec",
        "test/unit/devp2p/sync/resume.child.ts",
      ],
      { cwd: ROOT, encoding: "utf8", timeout: 170_000 },
    );
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /2 passing/, r.stdout);
  });
});
