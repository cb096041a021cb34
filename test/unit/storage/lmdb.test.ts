/**
 * LmdbKv-specific: closing the store while range reads are still open. Closing the LMDB environment
 * frees its read transactions, and closing a cursor afterwards reads its freed transaction
 * (mdb_cursor_close), so `close()` must end every open cursor and scan first. The scenario runs in a
 * child process (lmdbCloseChild.ts) under MALLOC_PERTURB_, which makes the use-after-free crash at
 * once (SIGSEGV) instead of only when the freed memory happens to be reused — as it was in the
 * shared `npm test` process after unrelated tests had moved the heap around.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./lmdbCloseChild.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

describe("storage/lmdb: close with reads in progress", function () {
  this.timeout(60_000);

  it("a cursor and a suspended scan open across close(): ended by it, then refused with CLOSED, no crash", () => {
    const r = spawnSync(process.execPath, ["--import=tsx", CHILD], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, MALLOC_PERTURB_: "165" },
      timeout: 50_000,
    });
    assert.equal(r.signal, null, `child killed by ${r.signal}\n${r.stdout}\n${r.stderr}`);
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.equal(r.stdout.trim(), "ok");
  });
});
