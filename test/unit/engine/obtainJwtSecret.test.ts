/**
 * `obtainJwtSecret` (op-service rpc.ObtainJWTSecret with generateMissing), what opal-node uses for
 * `--l2.jwt-secret` and `--interop.jwt-secret`: a missing or empty file gets a new secret written
 * (0x + 64 hex, mode 0600), a good file is read, a malformed one is refused, no path is ephemeral.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JwtSecretError, obtainJwtSecret } from "../../../src/engine/jwtSecret.js";
import { bytesToHex } from "../../../src/primitives/hex.js";

describe("engine/jwtSecret: obtainJwtSecret", () => {
  const dir = mkdtempSync(join(tmpdir(), "opal-obtainjwt-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("fills an empty (or blank) file with a new secret and reads it back next time", () => {
    for (const [name, text] of [
      ["empty.hex", ""],
      ["blank.hex", "  \n"],
    ] as const) {
      const p = join(dir, name);
      writeFileSync(p, text);
      const r = obtainJwtSecret(p);
      assert.equal(r.created, true);
      assert.equal(readFileSync(p, "utf8"), bytesToHex(r.secret));
      assert.match(readFileSync(p, "utf8"), /^0x[0-9a-f]{64}$/);
      assert.deepEqual(obtainJwtSecret(p), { secret: r.secret, created: false });
    }
  });

  it("creates a missing file (mode 0600), reads a good one, refuses a malformed one", () => {
    const p = join(dir, "missing.hex");
    const r = obtainJwtSecret(p);
    assert.equal(r.created, true);
    assert.equal(statSync(p).mode & 0o777, 0o600);
    const good = join(dir, "good.hex");
    writeFileSync(good, `0x${"ab".repeat(32)}\n`);
    assert.deepEqual(obtainJwtSecret(good), { secret: new Uint8Array(32).fill(0xab), created: false });
    const bad = join(dir, "bad.hex");
    writeFileSync(bad, "0x1234");
    assert.throws(
      () => obtainJwtSecret(bad),
      (e: unknown) => e instanceof JwtSecretError && e.code === "WRONG_LENGTH",
    );
    assert.equal(readFileSync(bad, "utf8"), "0x1234", "a malformed file is left alone");
  });

  it("no path: an ephemeral secret, nothing written", () => {
    const a = obtainJwtSecret("");
    const b = obtainJwtSecret("  ");
    assert.equal(a.created, true);
    assert.equal(a.secret.length, 32);
    assert.notDeepEqual(a.secret, b.secret);
  });
});
