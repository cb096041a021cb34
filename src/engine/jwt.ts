/**
 * Engine API authentication (SPEC: execution-apis src/engine/authentication.md): `Authorization:
 * Bearer <JWT>`, HS256 only, `iat` required within ±60 s of now, other claims ignored except an
 * optional `exp`, which geth also enforces. Checks run in geth's order (node/jwt_handler.go over
 * golang-jwt v4 `ParseWithClaims`) and fail with geth's messages, so operators see the same 401
 * bodies. HTTP checks every request; WebSocket checks only the upgrade request.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** geth `jwtExpiryTimeout`: an `iat` more than this many seconds from now is rejected (60 is still fine). */
export const JWT_IAT_WINDOW_SECONDS = 60;

/** The Content-Type geth's `http.Error` sends with a 401 body. */
export const JWT_ERROR_CONTENT_TYPE = "text/plain; charset=utf-8";

export type JwtVerifyResult = { ok: true } | { ok: false; reason: string };

/** Request headers as Node's `IncomingMessage.headers` holds them (lower-case names). */
export type JwtRequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** What an HTTP server sends instead of dispatching: geth's `http.Error(w, reason, 401)`. */
export interface JwtRejection {
  readonly status: 401;
  /** The reason plus the newline Go's `http.Error` appends. */
  readonly body: string;
}

const OK: JwtVerifyResult = Object.freeze({ ok: true });
const SIG_BYTES = 32;
const BEARER = "bearer ";

/** Algorithms golang-jwt v4 knows: any other `alg` is "unavailable", these but HS256 are "invalid". */
const KNOWN_ALGS: ReadonlySet<string> = new Set([
  "HS256",
  "HS384",
  "HS512",
  "RS256",
  "RS384",
  "RS512",
  "ES256",
  "ES384",
  "ES512",
  "PS256",
  "PS384",
  "PS512",
  "EdDSA",
  "none",
]);

/** base64url of `{"alg":"HS256","typ":"JWT"}`, the header every token this module signs carries. */
const HS256_HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

function fail(reason: string): JwtVerifyResult {
  return { ok: false, reason };
}

/**
 * Checks an `Authorization` header value against `secret` at `nowSeconds` (Unix seconds, fractions
 * allowed). Pure and synchronous: one HMAC-SHA256 and two small JSON parses.
 *
 * Reasons, in the order tried (geth's texts unless marked):
 * - `missing token`: no header, a scheme other than Bearer (case-insensitive), or an empty token
 * - `key is invalid` (empty secret), `invalid clock` (non-finite `nowSeconds`): Opal's guards
 * - `token contains an invalid number of segments`
 * - `illegal base64 data at input byte N` (strict unpadded base64url, N as Go reports it)
 * - `tokenstring should not contain 'bearer '`
 * - `malformed token header JSON`, `malformed token claims JSON`, `could not parse NumericDate: …`,
 *   `could not convert json number value to float: …` (Opal's texts; Go's depend on its decoder)
 * - `signing method (alg) is unspecified.`, `signing method (alg) is unavailable.`,
 *   `signing method none is invalid` (and likewise HS384, RS256, …)
 * - `signature is invalid`
 * - `token is expired` (`exp` present and not after now), `missing issued-at`, `stale token`,
 *   `future token`
 */
/**
 * Tokens whose header, claims and signature were checked, per secret: the time claims to re-check.
 * A rollup node signs a fresh token per request with `iat` in whole seconds, so the requests of one
 * second (newPayload, forkchoiceUpdated, …) carry the same token; its HMAC and JSON are checked
 * once. Only an exact repeat of the token bytes under the same secret object hits.
 */
const VERIFIED = new WeakMap<Uint8Array, Map<string, { iat: number | null; exp: number | null }>>();
const VERIFIED_PER_SECRET = 16;

/** The time claims of a token already verified: the same checks, in the same order, as below. */
function checkTimes(iat: number | null, exp: number | null, nowSeconds: number): JwtVerifyResult {
  // geth: claims.VerifyExpiresAt(now, false) — optional, and expired once now is not before exp.
  if (exp !== null && !(nowSeconds < exp)) return fail("token is expired");
  if (iat === null) return fail("missing issued-at");
  if (nowSeconds - iat > JWT_IAT_WINDOW_SECONDS) return fail("stale token");
  if (iat - nowSeconds > JWT_IAT_WINDOW_SECONDS) return fail("future token");
  return OK;
}

export function verifyJwt(
  authorizationHeader: string | undefined,
  secret: Uint8Array,
  nowSeconds: number,
): JwtVerifyResult {
  // SPEC: geth takes the token after a case-insensitive "Bearer " and does not trim it.
  if (authorizationHeader === undefined || authorizationHeader.length < BEARER.length) return fail("missing token");
  if (authorizationHeader.slice(0, BEARER.length).toLowerCase() !== BEARER) return fail("missing token");
  const token = authorizationHeader.slice(BEARER.length);
  if (token.length === 0) return fail("missing token");
  if (secret.length === 0) return fail("key is invalid");
  if (!Number.isFinite(nowSeconds)) return fail("invalid clock");
  const known = VERIFIED.get(secret)?.get(token);
  if (known !== undefined) return checkTimes(known.iat, known.exp, nowSeconds);

  const parts = token.split(".");
  if (parts.length !== 3) return fail("token contains an invalid number of segments");
  const [headerSeg, claimsSeg, sigSeg] = parts as [string, string, string];

  const headerBytes = decodeSegment(headerSeg);
  if (typeof headerBytes === "number") {
    if (token.toLowerCase().startsWith(BEARER)) return fail("tokenstring should not contain 'bearer '");
    return fail(base64Error(headerBytes));
  }
  const header = parseJsonObject(headerBytes);
  if (header === undefined) return fail("malformed token header JSON");

  const claimsBytes = decodeSegment(claimsSeg);
  if (typeof claimsBytes === "number") return fail(base64Error(claimsBytes));
  const claims = parseJsonObject(claimsBytes);
  if (claims === undefined) return fail("malformed token claims JSON");
  const iat = numericDate(claims, "iat");
  if (typeof iat === "string") return fail(iat);
  const exp = numericDate(claims, "exp");
  if (typeof exp === "string") return fail(exp);

  const alg = header !== null && Object.hasOwn(header, "alg") ? header.alg : undefined;
  if (typeof alg !== "string") return fail("signing method (alg) is unspecified.");
  if (!KNOWN_ALGS.has(alg)) return fail("signing method (alg) is unavailable.");
  // SPEC: HS256 is the one algorithm accepted; `none` MUST be rejected.
  if (alg !== "HS256") return fail(`signing method ${alg} is invalid`);

  const sig = decodeSegment(sigSeg);
  if (typeof sig === "number") return fail(base64Error(sig));
  const expected = createHmac("sha256", secret).update(`${headerSeg}.${claimsSeg}`).digest();
  if (sig.length !== SIG_BYTES || !timingSafeEqual(sig, expected)) return fail("signature is invalid");
  let cache = VERIFIED.get(secret);
  if (cache === undefined) VERIFIED.set(secret, (cache = new Map()));
  if (cache.size >= VERIFIED_PER_SECRET) cache.clear();
  cache.set(token, { iat, exp });
  return checkTimes(iat, exp, nowSeconds);
}

/**
 * An HS256 token `{"alg":"HS256","typ":"JWT"}.{...extraClaims, "iat"}` for the rollup node's engine
 * client (send it as `Authorization: Bearer <token>`, a fresh one per request as op-node does) and
 * for tests. `iat` is Unix seconds; fractions are dropped (golang-jwt's NumericDate precision) and an
 * `iat` in `extraClaims` is overridden.
 */
export function signJwt(secret: Uint8Array, iat: number, extraClaims: Readonly<Record<string, unknown>> = {}): string {
  if (secret.length === 0) throw new RangeError("signJwt: empty secret");
  if (!Number.isFinite(iat)) throw new RangeError(`signJwt: iat must be finite, got ${iat}`);
  const claims = Buffer.from(JSON.stringify({ ...extraClaims, iat: Math.floor(iat) })).toString("base64url");
  const signingInput = `${HS256_HEADER}.${claims}`;
  return `${signingInput}.${createHmac("sha256", secret).update(signingInput).digest("base64url")}`;
}

/**
 * The check an HTTP server runs before dispatching an Engine API request (and a WebSocket server on
 * the upgrade request): null to proceed, or the 401 to send. The secret is copied, so later changes
 * to the caller's array do not affect the hook. `clock` returns Unix seconds.
 */
export function jwtAuthHook(
  secret: Uint8Array,
  clock: () => number = () => Date.now() / 1000,
): (headers: JwtRequestHeaders) => JwtRejection | null {
  if (secret.length === 0) throw new RangeError("jwtAuthHook: empty secret");
  const key = Uint8Array.from(secret);
  return (headers) => {
    const raw = headers.authorization;
    // Go's Header.Get returns the first value of a repeated header.
    const value = typeof raw === "string" ? raw : raw?.[0];
    const r = verifyJwt(value, key, clock());
    return r.ok ? null : { status: 401, body: `${r.reason}\n` };
  };
}

/**
 * Strict unpadded base64url (Go `base64.RawURLEncoding`): the bytes, or the index Go's
 * `CorruptInputError` reports — the first character outside the alphabet (`=` included), else the
 * last character of a length ≡ 1 (mod 4).
 */
function decodeSegment(seg: string): Buffer | number {
  for (let i = 0; i < seg.length; i++) {
    const c = seg.charCodeAt(i);
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95;
    if (!ok) return i;
  }
  if (seg.length % 4 === 1) return seg.length - 1;
  return Buffer.from(seg, "base64url");
}

function base64Error(index: number): string {
  return `illegal base64 data at input byte ${index}`;
}

/** A JSON object, null for JSON `null` (Go decodes it into empty claims), undefined for anything else. */
function parseJsonObject(bytes: Buffer): Record<string, unknown> | null | undefined {
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  if (v === null) return null;
  return typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * A NumericDate claim as golang-jwt v4 reads it: absent or null → null; a JSON number → whole
 * seconds (fraction truncated); anything else → the error text. Go also accepts a numeric string
 * here; Opal does not (RFC 7519 §2 NumericDate is a JSON number).
 */
function numericDate(claims: Record<string, unknown> | null, name: "iat" | "exp"): number | null | string {
  if (claims === null || !Object.hasOwn(claims, name)) return null;
  const v = claims[name];
  if (v === null) return null;
  if (typeof v !== "number") return `could not parse NumericDate: ${name} is not a number`;
  if (!Number.isFinite(v)) return `could not convert json number value to float: ${name} out of range`;
  return Math.floor(v);
}
