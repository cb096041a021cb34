/**
 * Engine API JWT auth (execution-apis src/engine/authentication.md) with geth's reasons
 * (node/jwt_handler.go), and the secret file (geth node.ObtainJWTSecret): parsing, creation, errors.
 */
import { strict as assert } from "node:assert";
import { createHmac } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JWT_IAT_WINDOW_SECONDS, jwtAuthHook, signJwt, verifyJwt } from "../../../src/engine/jwt.js";
import {
  DEFAULT_JWT_SECRET_FILE,
  defaultJwtSecretPath,
  generateJwtSecret,
  JwtSecretError,
  loadOrCreateJwtSecret,
  parseJwtSecret,
} from "../../../src/engine/jwtSecret.js";

const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const OTHER = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
const NOW = 1_700_000_000;

const b64 = (s: string): string => Buffer.from(s).toString("base64url");

/** A token built by hand: any header/claims JSON text, signed with HMAC-`hash` (or a given signature). */
function handToken(
  header: object | string,
  claims: object | string,
  opts: { secret?: Uint8Array; hash?: string; sig?: string } = {},
): string {
  const h = b64(typeof header === "string" ? header : JSON.stringify(header));
  const c = b64(typeof claims === "string" ? claims : JSON.stringify(claims));
  const sig =
    opts.sig ??
    createHmac(opts.hash ?? "sha256", opts.secret ?? SECRET)
      .update(`${h}.${c}`)
      .digest("base64url");
  return `${h}.${c}.${sig}`;
}

const HS256 = { alg: "HS256", typ: "JWT" };
const bearer = (t: string): string => `Bearer ${t}`;
const reasonOf = (header: string | undefined, now = NOW, secret: Uint8Array = SECRET): string => {
  const r = verifyJwt(header, secret, now);
  return r.ok ? "ok" : r.reason;
};

describe("engine/jwt: verifyJwt", () => {
  it("accepts a good HS256 token, with any Bearer casing, ignoring unknown claims", () => {
    assert.deepEqual(verifyJwt(bearer(signJwt(SECRET, NOW)), SECRET, NOW), { ok: true });
    assert.equal(reasonOf(`bearer ${signJwt(SECRET, NOW)}`), "ok");
    assert.equal(reasonOf(`BEARER ${signJwt(SECRET, NOW)}`), "ok");
    assert.equal(reasonOf(bearer(signJwt(SECRET, NOW, { id: "opal-node", clv: "v0.1.0", foo: [1, { x: 2 }] }))), "ok");
    // No typ header, claims in another order: still fine.
    assert.equal(reasonOf(bearer(handToken({ alg: "HS256" }, { x: 1, iat: NOW }))), "ok");
  });

  it("matches the jwt.io HS256 example token byte for byte", () => {
    const secret = new TextEncoder().encode("your-256-bit-secret");
    const expected =
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    assert.equal(signJwt(secret, 1516239022, { sub: "1234567890", name: "John Doe" }), expected);
    assert.equal(reasonOf(bearer(expected), 1516239022, secret), "ok");
  });

  it("missing header, empty token → missing token", () => {
    assert.equal(reasonOf(undefined), "missing token");
    assert.equal(reasonOf(""), "missing token");
    assert.equal(reasonOf("Bearer"), "missing token");
    assert.equal(reasonOf("Bearer "), "missing token");
  });

  it("wrong scheme → missing token (geth reads only a Bearer token)", () => {
    const t = signJwt(SECRET, NOW);
    assert.equal(reasonOf(`Basic ${t}`), "missing token");
    assert.equal(reasonOf(t), "missing token");
    assert.equal(reasonOf(`Bearer:${t}`), "missing token");
    assert.equal(reasonOf(`Bearer Bearer ${t}`), "tokenstring should not contain 'bearer '");
  });

  it("wrong secret, tampered claims or truncated signature → signature is invalid", () => {
    assert.equal(reasonOf(bearer(signJwt(OTHER, NOW))), "signature is invalid");
    const [h, , s] = signJwt(SECRET, NOW).split(".");
    assert.equal(reasonOf(bearer(`${h}.${b64(JSON.stringify({ iat: NOW + 1 }))}.${s}`)), "signature is invalid");
    assert.equal(
      reasonOf(bearer(`${h}.${b64(JSON.stringify({ iat: NOW }))}.${s!.slice(0, 40)}`)),
      "signature is invalid",
    );
    assert.equal(reasonOf(bearer(`${h}.${b64(JSON.stringify({ iat: NOW }))}.`)), "signature is invalid");
  });

  it("alg none is rejected, with or without a signature", () => {
    assert.equal(
      reasonOf(bearer(handToken({ alg: "none", typ: "JWT" }, { iat: NOW }, { sig: "" }))),
      "signing method none is invalid",
    );
    assert.equal(reasonOf(bearer(handToken({ alg: "none" }, { iat: NOW }))), "signing method none is invalid");
    // Case matters: "None" is no algorithm golang-jwt knows.
    assert.equal(
      reasonOf(bearer(handToken({ alg: "None" }, { iat: NOW }, { sig: "" }))),
      "signing method (alg) is unavailable.",
    );
  });

  it("other algorithms are rejected even when correctly signed", () => {
    assert.equal(
      reasonOf(bearer(handToken({ alg: "HS512" }, { iat: NOW }, { hash: "sha512" }))),
      "signing method HS512 is invalid",
    );
    assert.equal(
      reasonOf(bearer(handToken({ alg: "HS384" }, { iat: NOW }, { hash: "sha384" }))),
      "signing method HS384 is invalid",
    );
    assert.equal(reasonOf(bearer(handToken({ alg: "RS256" }, { iat: NOW }))), "signing method RS256 is invalid");
    assert.equal(reasonOf(bearer(handToken({ alg: "XX256" }, { iat: NOW }))), "signing method (alg) is unavailable.");
    assert.equal(reasonOf(bearer(handToken({ typ: "JWT" }, { iat: NOW }))), "signing method (alg) is unspecified.");
    assert.equal(reasonOf(bearer(handToken({ alg: 256 }, { iat: NOW }))), "signing method (alg) is unspecified.");
    assert.equal(reasonOf(bearer(handToken("null", { iat: NOW }))), "signing method (alg) is unspecified.");
  });

  it("malformed segments, base64 and JSON", () => {
    const t = signJwt(SECRET, NOW);
    assert.equal(reasonOf(bearer("abc")), "token contains an invalid number of segments");
    assert.equal(reasonOf(bearer(`${t}.x`)), "token contains an invalid number of segments");
    assert.equal(reasonOf(bearer(t.split(".").slice(0, 2).join("."))), "token contains an invalid number of segments");
    const [h, c, s] = t.split(".") as [string, string, string];
    // Outside the base64url alphabet: '+', '/', '=' padding, spaces; Go reports the first bad index.
    assert.equal(reasonOf(bearer(`${h.slice(0, 5)}+${h.slice(6)}.${c}.${s}`)), "illegal base64 data at input byte 5");
    assert.equal(reasonOf(bearer(`${h}=.${c}.${s}`)), `illegal base64 data at input byte ${h.length}`);
    assert.equal(reasonOf(bearer(`${h}.${c}.${s.slice(0, 3)}/${s.slice(4)}`)), "illegal base64 data at input byte 3");
    assert.equal(reasonOf(bearer(` ${t}`)), "illegal base64 data at input byte 0");
    // A length ≡ 1 (mod 4) cannot be base64: Go reports its last character.
    assert.equal(reasonOf(bearer(`${h}.AAAAA.${s}`)), "illegal base64 data at input byte 4");
    assert.equal(reasonOf(bearer(`${h}.${c}.${s}AA`)), "illegal base64 data at input byte 44");
    assert.equal(reasonOf(bearer(`${h}.${c}.${s}A`)), "signature is invalid"); // decodes, to 33 bytes
    // Valid base64, not JSON objects.
    assert.equal(reasonOf(bearer(handToken("{not json", { iat: NOW }))), "malformed token header JSON");
    assert.equal(reasonOf(bearer(handToken("[1,2]", { iat: NOW }))), "malformed token header JSON");
    assert.equal(reasonOf(bearer(handToken(HS256, '{"iat":'))), "malformed token claims JSON");
    assert.equal(reasonOf(bearer(handToken(HS256, "[]"))), "malformed token claims JSON");
    assert.equal(reasonOf(bearer(handToken(HS256, "42"))), "malformed token claims JSON");
    assert.equal(reasonOf(bearer(handToken(HS256, ""))), "malformed token claims JSON");
    // Claims JSON is decoded before the algorithm is checked (golang-jwt order).
    assert.equal(reasonOf(bearer(handToken({ alg: "none" }, "nope", { sig: "" }))), "malformed token claims JSON");
  });

  it("iat is required and must be a number", () => {
    assert.equal(reasonOf(bearer(handToken(HS256, {}))), "missing issued-at");
    assert.equal(reasonOf(bearer(handToken(HS256, { iat: null }))), "missing issued-at");
    assert.equal(reasonOf(bearer(handToken(HS256, "null"))), "missing issued-at");
    assert.equal(reasonOf(bearer(handToken(HS256, { id: "x", clv: "y" }))), "missing issued-at");
    assert.equal(
      reasonOf(bearer(handToken(HS256, { iat: String(NOW) }))),
      "could not parse NumericDate: iat is not a number",
    );
    assert.equal(reasonOf(bearer(handToken(HS256, { iat: true }))), "could not parse NumericDate: iat is not a number");
    assert.equal(
      reasonOf(bearer(handToken(HS256, '{"iat":1e400}'))),
      "could not convert json number value to float: iat out of range",
    );
  });

  it("iat window: ±60 s accepted (geth rejects only beyond 60), ±61 s rejected", () => {
    const at = (iat: number, now = NOW): string => reasonOf(bearer(signJwt(SECRET, iat)), now);
    assert.equal(JWT_IAT_WINDOW_SECONDS, 60);
    assert.equal(at(NOW - 61), "stale token");
    assert.equal(at(NOW + 61), "future token");
    assert.equal(at(NOW - 59), "ok");
    assert.equal(at(NOW + 59), "ok");
    assert.equal(at(NOW - 60), "ok");
    assert.equal(at(NOW + 60), "ok");
    assert.equal(at(NOW), "ok");
    // Fractional clocks: iat is whole seconds, now is compared exactly (geth uses time.Since).
    assert.equal(at(NOW - 60, NOW + 0.5), "stale token");
    assert.equal(at(NOW + 60, NOW - 0.5), "future token");
    assert.equal(at(NOW - 60, NOW + 0.0), "ok");
    // A fractional iat in the token is truncated to the second, as golang-jwt's NumericDate does.
    assert.equal(reasonOf(bearer(handToken(HS256, { iat: NOW + 60.9 })), NOW), "ok");
    assert.equal(reasonOf(bearer(handToken(HS256, { iat: NOW - 60.5 })), NOW), "stale token");
  });

  it("an optional exp is enforced as geth does (token is expired), before iat", () => {
    assert.equal(reasonOf(bearer(handToken(HS256, { iat: NOW, exp: NOW + 1 }))), "ok");
    assert.equal(reasonOf(bearer(handToken(HS256, { iat: NOW, exp: NOW }))), "token is expired");
    assert.equal(reasonOf(bearer(handToken(HS256, { iat: NOW, exp: NOW - 100 }))), "token is expired");
    assert.equal(reasonOf(bearer(handToken(HS256, { exp: NOW - 100 }))), "token is expired");
    assert.equal(reasonOf(bearer(handToken(HS256, { iat: NOW, exp: null }))), "ok");
    assert.equal(
      reasonOf(bearer(handToken(HS256, { iat: NOW, exp: "soon" }))),
      "could not parse NumericDate: exp is not a number",
    );
  });

  it("rejects an empty secret and a non-finite clock instead of accepting", () => {
    assert.equal(reasonOf(bearer(signJwt(SECRET, NOW)), NOW, new Uint8Array(0)), "key is invalid");
    assert.equal(reasonOf(bearer(signJwt(SECRET, NOW)), Number.NaN), "invalid clock");
  });
});

describe("engine/jwt: a token repeated (one verification per token and secret)", () => {
  it("re-checks the time claims of a token seen before, and nothing verified under one secret passes another", () => {
    const token = bearer(signJwt(SECRET, NOW, { exp: NOW + 30 }));
    assert.equal(reasonOf(token), "ok");
    assert.equal(reasonOf(token, NOW + 1), "ok");
    // The same bytes later: the time claims are checked again, not answered from the first result.
    assert.equal(reasonOf(token, NOW + 30), "token is expired");
    const plain = bearer(signJwt(SECRET, NOW));
    assert.equal(reasonOf(plain), "ok");
    assert.equal(reasonOf(plain, NOW + JWT_IAT_WINDOW_SECONDS + 1), "stale token");
    assert.equal(reasonOf(plain, NOW - JWT_IAT_WINDOW_SECONDS - 1), "future token");
    // Another secret (another key object, and one with the same bytes) verifies on its own.
    assert.equal(reasonOf(plain, NOW, OTHER), "signature is invalid");
    assert.equal(reasonOf(plain, NOW, SECRET.slice()), "ok");
    // A token differing in one signature character is not the cached one.
    const t = plain.slice(0, -2) + (plain.at(-2) === "A" ? "B" : "A") + plain.at(-1);
    assert.equal(reasonOf(t), "signature is invalid");
    // More distinct tokens than the cache holds: all still verify correctly.
    for (let i = 0; i < 40; i++) assert.equal(reasonOf(bearer(signJwt(SECRET, NOW - i))), "ok");
    assert.equal(reasonOf(token, NOW + 30), "token is expired");
  });
});

describe("engine/jwt: signJwt", () => {
  it("writes the HS256 header and an integer iat after the extra claims", () => {
    const [h, c] = signJwt(SECRET, NOW + 0.75, { id: "a", iat: 5 }).split(".") as [string, string];
    assert.equal(Buffer.from(h, "base64url").toString(), '{"alg":"HS256","typ":"JWT"}');
    assert.deepEqual(JSON.parse(Buffer.from(c, "base64url").toString()), { id: "a", iat: NOW });
  });

  it("refuses an empty secret or a non-finite iat", () => {
    assert.throws(() => signJwt(new Uint8Array(0), NOW), RangeError);
    assert.throws(() => signJwt(SECRET, Number.NaN), RangeError);
  });
});

describe("engine/jwt: jwtAuthHook", () => {
  it("returns null for a good token and geth's 401 body otherwise, using the clock", () => {
    let now = NOW;
    const hook = jwtAuthHook(SECRET, () => now);
    const token = signJwt(SECRET, NOW);
    assert.equal(hook({ authorization: bearer(token) }), null);
    assert.deepEqual(hook({}), { status: 401, body: "missing token\n" });
    assert.deepEqual(hook({ authorization: bearer(signJwt(OTHER, NOW)) }), {
      status: 401,
      body: "signature is invalid\n",
    });
    now = NOW + 61;
    assert.deepEqual(hook({ authorization: bearer(token) }), { status: 401, body: "stale token\n" });
  });

  it("uses the first value of a repeated header and copies the secret", () => {
    const secret = SECRET.slice();
    const hook = jwtAuthHook(secret, () => NOW);
    secret.fill(0);
    assert.equal(hook({ authorization: [bearer(signJwt(SECRET, NOW)), "Bearer junk"] }), null);
    assert.deepEqual(hook({ authorization: ["Bearer junk", bearer(signJwt(SECRET, NOW))] }), {
      status: 401,
      body: "token contains an invalid number of segments\n",
    });
  });

  it("defaults to the wall clock", () => {
    const hook = jwtAuthHook(SECRET);
    assert.equal(hook({ authorization: bearer(signJwt(SECRET, Date.now() / 1000)) }), null);
    assert.deepEqual(hook({ authorization: bearer(signJwt(SECRET, Date.now() / 1000 - 3600)) }), {
      status: 401,
      body: "stale token\n",
    });
    assert.throws(() => jwtAuthHook(new Uint8Array(0)), RangeError);
  });
});

describe("engine/jwtSecret", () => {
  const HEX = Buffer.from(SECRET).toString("hex");
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "opal-jwt-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  /** The JwtSecretError thrown for `text`: code checked, message one line naming the file, content not leaked. */
  const rejects = (text: string, code: string): void => {
    const p = write("bad.hex", text);
    assert.throws(
      () => loadOrCreateJwtSecret(p),
      (e: unknown) => {
        assert.ok(e instanceof JwtSecretError);
        assert.equal(e.code, code);
        assert.equal(e.path, p);
        assert.ok(e.message.includes(p), e.message);
        assert.ok(!e.message.includes("\n"), e.message);
        if (text.trim().length > 8) assert.ok(!e.message.includes(text.trim()), "message must not echo the secret");
        return true;
      },
    );
  };

  it("reads hex with or without 0x, with surrounding whitespace", () => {
    for (const text of [HEX, `0x${HEX}`, `0X${HEX}`, `${HEX}\n`, `  0x${HEX}\r\n`, `\t${HEX.toUpperCase()} \n\n`]) {
      const r = loadOrCreateJwtSecret(write("jwt.hex", text));
      assert.deepEqual(r, { secret: SECRET, created: false }, JSON.stringify(text));
    }
    assert.deepEqual(parseJwtSecret(` 0x${HEX} `, "x"), SECRET);
  });

  it("rejects a wrong length, including an empty file and an odd digit count", () => {
    rejects(HEX.slice(0, 62), "WRONG_LENGTH");
    rejects(`0x${HEX}00`, "WRONG_LENGTH");
    rejects(HEX.slice(0, 63), "WRONG_LENGTH");
    rejects("", "WRONG_LENGTH");
    rejects("  \n", "WRONG_LENGTH");
    rejects("0x", "WRONG_LENGTH");
    assert.throws(
      () => loadOrCreateJwtSecret(write("short", "0xabcd")),
      /expected 32 bytes \(64 hex digits\), got 4 hex digits/,
    );
  });

  it("rejects non-hex content", () => {
    rejects(`${HEX.slice(0, 62)}zz`, "INVALID_HEX");
    rejects(`${HEX.slice(0, 32)} ${HEX.slice(32)}`, "INVALID_HEX");
    rejects(`0x0x${HEX}`, "INVALID_HEX");
    rejects(`"${HEX}"`, "INVALID_HEX");
    rejects(`${HEX}zz`, "INVALID_HEX"); // geth's FromHex would silently take the first 32 bytes
  });

  it("creates a missing file: mode 0600, 0x + 64 lower-case hex digits, then reads it back", () => {
    const p = join(dir, "jwt.hex");
    const r = loadOrCreateJwtSecret(p);
    assert.equal(r.created, true);
    assert.equal(r.secret.length, 32);
    const text = readFileSync(p, "utf8");
    assert.match(text, /^0x[0-9a-f]{64}$/);
    assert.equal(text.slice(2), Buffer.from(r.secret).toString("hex"));
    assert.equal(statSync(p).mode & 0o777, 0o600);
    assert.deepEqual(loadOrCreateJwtSecret(p), { secret: r.secret, created: false });
  });

  it("defaultJwtSecretPath is <datadir>/jwtsecret and is created on first use", () => {
    assert.equal(DEFAULT_JWT_SECRET_FILE, "jwtsecret");
    const p = defaultJwtSecretPath(dir);
    assert.equal(p, join(dir, "jwtsecret"));
    assert.equal(loadOrCreateJwtSecret(p).created, true);
    assert.ok(existsSync(p));
  });

  it("an empty path gives an ephemeral secret and writes nothing", () => {
    const a = loadOrCreateJwtSecret("");
    const b = loadOrCreateJwtSecret("");
    assert.equal(a.created, true);
    assert.equal(a.secret.length, 32);
    assert.notDeepEqual(a.secret, b.secret);
  });

  it("fails with WRITE_FAILED when the parent directory is missing, READ_FAILED on a directory", () => {
    const missing = join(dir, "no", "such", "jwtsecret");
    assert.throws(
      () => loadOrCreateJwtSecret(missing),
      (e: unknown) => e instanceof JwtSecretError && e.code === "WRITE_FAILED" && e.message.includes(missing),
    );
    assert.ok(!existsSync(missing));
    const sub = join(dir, "adir");
    mkdirSync(sub);
    assert.throws(
      () => loadOrCreateJwtSecret(sub),
      (e: unknown) => e instanceof JwtSecretError && e.code === "READ_FAILED" && e.message.includes(sub),
    );
  });

  it("generateJwtSecret returns 32 fresh random bytes", () => {
    const a = generateJwtSecret();
    const b = generateJwtSecret();
    assert.ok(a instanceof Uint8Array);
    assert.equal(a.length, 32);
    assert.notDeepEqual(a, b);
  });

  it("a created secret verifies tokens signed with the file's contents", () => {
    const p = join(dir, "jwt.hex");
    const server = loadOrCreateJwtSecret(p).secret;
    const client = parseJwtSecret(readFileSync(p, "utf8"), p);
    assert.equal(reasonOf(bearer(signJwt(client, NOW)), NOW, server), "ok");
  });
});
