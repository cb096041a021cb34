/**
 * The loader's cap on glibc's malloc arenas (src/native/load.ts `mallocArenas`, docs/design/native.md
 * "Malloc arenas"): which setting each environment gives, read in a fresh process because the cap
 * is made once, at the loader's first import.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { native } from "../../../src/native/load.js";

const LOAD = join(import.meta.dirname, "../../../src/native/load.ts");
const GLIBC =
  process.platform === "linux" &&
  typeof (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header
    ?.glibcVersionRuntime === "string";

/** `mallocArenas` and the status reasons of a fresh process run with `env` added. */
function loadWith(env: Record<string, string>): { arenas: number | null; reasons: Record<string, string> } {
  const base = { ...process.env };
  delete base.MALLOC_ARENA_MAX;
  delete base.OPAL_MALLOC_ARENAS;
  const script = `const m = await import(${JSON.stringify(LOAD)}); console.log(JSON.stringify({ arenas: m.mallocArenas, reasons: m.nativeStatus().reasons }));`;
  const r = spawnSync(process.execPath, ["--import=tsx", "--input-type=module", "-e", script], {
    env: { ...base, ...env },
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!);
}

describe("native: malloc arena cap", function () {
  this.timeout(60_000);
  before(function () {
    if (native === null || !GLIBC) this.skip(); // the cap is glibc's mallopt, made through the addon
  });

  it("the addon applies mallopt(M_ARENA_MAX) and refuses a count below 1", () => {
    assert.equal(native!.limitMallocArenas(2), true);
    assert.throws(() => native!.limitMallocArenas(0), /positive integer/);
    assert.throws(() => native!.limitMallocArenas(-3), /positive integer/);
  });

  it("defaults to the core count within [2, 8]", () => {
    assert.equal(loadWith({}).arenas, Math.min(8, Math.max(2, availableParallelism())));
  });

  it("OPAL_MALLOC_ARENAS sets the cap; 0 leaves glibc's; a non-count is reported and left alone", () => {
    assert.equal(loadWith({ OPAL_MALLOC_ARENAS: "3" }).arenas, 3);
    assert.equal(loadWith({ OPAL_MALLOC_ARENAS: "0" }).arenas, null);
    const bad = loadWith({ OPAL_MALLOC_ARENAS: "lots" });
    assert.equal(bad.arenas, null);
    assert.match(bad.reasons.mallocArenas ?? "", /OPAL_MALLOC_ARENAS=lots is not a count/);
  });

  it("a MALLOC_ARENA_MAX glibc already read is left alone", () => {
    assert.equal(loadWith({ MALLOC_ARENA_MAX: "4", OPAL_MALLOC_ARENAS: "3" }).arenas, null);
  });
});
