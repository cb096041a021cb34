/**
 * The rollup node's L1 beacon API client: fetches the blobs of batcher txs (specs
 * protocol/derivation.md blob data source, ecotone/derivation.md; op-service
 * sources/l1_beacon_client.go and op-node/node/client.go).
 *
 * - `slot = (timestamp − genesis_time) / SECONDS_PER_SLOT`, from /eth/v1/beacon/genesis and
 *   /eth/v1/config/spec on the primary endpoint, fetched once and cached (a failure is not cached).
 * - Each endpoint is first asked the post-Fulu getBlobs, /eth/v1/beacon/blobs/{slot}?versioned_hashes=
 *   0x…&versioned_hashes=0x… (beacon-APIs #546): the block id is the slot and the hashes are repeated
 *   keys, lowercase 0x hex, as op-node's BeaconHTTPClient.BeaconBlobs builds them (`url.Values.Add`,
 *   `path.Join(prefix, slot)`); a hash asked twice is sent once. The answer is the bare blobs ordered by
 *   their commitments in the block, not by the request, so each blob's KZG commitment is recomputed
 *   (BlobVerifier.commitments, on the kzgVerify pool) and its versioned hash says which requested blob
 *   it is, as op-node's `beaconBlobs` does; there is no proof to check, the commitment comes from the
 *   blob itself. A blob that hashes to nothing asked for is refused, as are more blobs than asked for
 *   (op-node wants exactly as many); extra copies of a blob already matched are ignored.
 * - Whatever getBlobs did not supply — the endpoint answered another status than 200 (a node without
 *   the route: 404, 405, 501), a body of another shape (base's blob-archiver answers the unknown route
 *   with a bare JSON array, optimism #19623), too few blobs, a blob matching nothing — is then asked
 *   of the same endpoint's /eth/v1/beacon/blob_sidecars/{slot}?indices=i&indices=j
 *   (repeated keys; without the filter when `fetchAllSidecars` is set, op-node's workaround for beacon
 *   nodes with a broken filter, which concerns this form only), matched by `index`, and checked against
 *   commitment and KZG proof. This is op-node's fallback as PR #17736 added it: on *every* getBlobs
 *   error, because "the Beacon API doesn't standardize" a method-not-found answer; decided per call,
 *   never remembered, so an endpoint that gains the route is used at once. Only a transport failure or
 *   timeout skips the sidecars: the same host would not answer them either. op-node asked getBlobs of
 *   the primary only and sidecars of every endpoint, then removed the sidecar path (PR #18780, January
 *   2026): later op-node releases, v1.19 among them, ask every endpoint getBlobs only, which left blob
 *   archivers that serve only blob_sidecars unusable as fallbacks (optimism #19623: base's blob-archiver).
 *   Opal asks both forms of every endpoint: archivers serve one or the other (es-node's serves getBlobs,
 *   es-node #476), and beacon-APIs #577, which removed blob_sidecars, asks clients to keep serving it
 *   until Gloas.
 * - Endpoints are the primary and then the fallbacks (`--l1.beacon-fallbacks`, alias
 *   `--l1.beacon-archiver`). As in op-node's ClientPool, a failing endpoint moves the client on to the
 *   next one, and later calls start from the endpoint that last served a whole request. Unlike op-node,
 *   which only moves on for a failed or short response and gives up on a bad blob, a blob that fails
 *   verification is also asked for again elsewhere, and verified blobs from one endpoint are kept while
 *   the missing ones are asked of the next. When no endpoint can supply every blob, `BlobFetchError`
 *   says what each endpoint did. Nothing partial is ever returned; retry with backoff is the caller's.
 * - `--l1.beacon-header` ("X-Key: Value", split at the first ": " as op-node does) goes on every
 *   request to the primary only: op-node builds the fallback clients without it.
 *
 * Error messages name endpoints as "primary" / "fallback N" and their host only, so URLs that embed
 * an API key never reach the logs.
 */
import { bytesKey } from "../../primitives/bytes.js";
import { bytesToHex, parseData } from "../../primitives/hex.js";
import { kzgToVersionedHash } from "../../tx/blobNetwork.js";
import type { L1BlockRef } from "../refs.js";
import { type BlobCheckItem, type BlobVerifier, InThreadBlobVerifier } from "./blobVerifier.js";

export interface BeaconClientOptions {
  /** The primary beacon node (`--l1.beacon`). */
  readonly url: string;
  /** Extra headers for the primary, each "X-Key: Value" (`--l1.beacon-header`). */
  readonly headers?: readonly string[];
  /** Fallback / archiver endpoints, tried in order for blobs only. */
  readonly fallbacks?: readonly string[];
  /**
   * Fetch all sidecars of the slot and filter locally (`--l1.beacon.fetch-all-sidecars`): blob_sidecars
   * only; getBlobs is always filtered by versioned hash, as in op-node.
   */
  readonly fetchAllSidecars?: boolean;
  /** Per-request timeout; default 30 s. */
  readonly timeoutMs?: number;
  /** Blob checks; default in the calling thread. */
  readonly verifier?: BlobVerifier;
}

/** A blob to fetch: its position among all blobs of the L1 block, and its versioned hash. */
export interface IndexedBlobHash {
  readonly index: number;
  readonly versionedHash: Uint8Array;
}

/** Bad options, found at construction. */
export class BeaconConfigError extends Error {
  override readonly name = "BeaconConfigError";
}

export type BeaconFailureReason =
  /** HTTP 404: the node does not have the block or the sidecars (e.g. pruned). */
  | "not_found"
  /** Any other non-200 status. */
  | "http_status"
  /** Connection refused, reset, DNS, … */
  | "transport"
  | "timeout"
  /** Not JSON, or not the shape the beacon API defines (also: more blobs than asked, a non-blob). */
  | "bad_response"
  /** The answer lacked sidecars that were asked for. */
  | "missing"
  /**
   * A sidecar's commitment does not hash to the requested versioned hash, or a blob from getBlobs has
   * a commitment that hashes to no requested one.
   */
  | "hash_mismatch"
  /** A sidecar's KZG proof does not verify. */
  | "bad_proof"
  /** The timestamp precedes beacon genesis, or SECONDS_PER_SLOT is 0. */
  | "bad_slot"
  /** The BlobVerifier itself failed (e.g. its worker pool died). */
  | "verifier_error";

/** One request that failed: checkHealth, slotOf. */
export class BeaconRequestError extends Error {
  override readonly name = "BeaconRequestError";
  constructor(
    readonly endpoint: string,
    readonly reason: BeaconFailureReason,
    /** HTTP status, when there was an answer. */
    readonly status: number | null,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What one endpoint did for one getBlobs call. */
export interface BlobFetchAttempt {
  /** "primary" or "fallback N" (1-based). */
  readonly endpoint: string;
  /**
   * The request form: getBlobs (/eth/v1/beacon/blobs) or /eth/v1/beacon/blob_sidecars; null when the
   * slot could not be computed. A getBlobs answer with another status than 200 is not an attempt of
   * its own: it is named in the message of the blob_sidecars attempt that followed it.
   */
  readonly route: "blobs" | "blob_sidecars" | null;
  readonly reason: BeaconFailureReason;
  readonly status: number | null;
  /** The blob indices this failure concerns (all those asked for, for a failed request). */
  readonly indices: readonly number[];
  readonly message: string;
}

/**
 * getBlobs could not get every blob verified. Derivation must not go on from partial data; it treats
 * this as a temporary error and retries. (op-node's blob data source maps a fetch error that wraps a
 * 404 from any endpoint — `ethereum.NotFound` inside the joined errors — to a reset instead, every
 * other to a temporary error: `notFound` tells the caller that case. With the PR #17736 fallback
 * op-node also wrapped the getBlobs error, so a node without the route made every failure a reset;
 * here a getBlobs 404 is always followed by blob_sidecars, and only that answer's 404 counts.)
 */
export class BlobFetchError extends Error {
  override readonly name = "BlobFetchError";
  constructor(
    readonly l1Block: { readonly number: number; readonly hash: Uint8Array },
    /** The beacon slot, or null when it could not be computed. */
    readonly slot: number | null,
    /** Indices still without a verified blob. */
    readonly missing: readonly number[],
    readonly attempts: readonly BlobFetchAttempt[],
  ) {
    super(
      `blobs of L1 block ${l1Block.number} (slot ${slot ?? "?"}) unavailable: indices ${missing.join(",")} missing; ` +
        attempts
          .map(
            (a) =>
              `${a.endpoint}${a.route === null ? "" : ` ${a.route}`}: ${a.reason}` +
              `${a.status === null ? "" : ` ${a.status}`} (${a.message})`,
          )
          .join("; "),
    );
  }

  /** True when some endpoint answered 404. */
  get notFound(): boolean {
    return this.attempts.some((a) => a.reason === "not_found");
  }
}

interface Endpoint {
  readonly label: string;
  /** Base URL without trailing slashes. */
  readonly base: string;
  readonly headers: Readonly<Record<string, string>>;
}

interface Sidecar {
  readonly blob: Uint8Array;
  readonly commitment: Uint8Array;
  readonly proof: Uint8Array;
}

interface SlotClock {
  readonly genesisTime: number;
  readonly secondsPerSlot: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** EIP-4844 BYTES_PER_BLOB. */
const BLOB_BYTES = 131_072;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_HEADER_VALUE = /[\r\n\0]/;

/** Parses `--l1.beacon-header` as op-node does: "Name: Value", split at the first ": ". */
export function parseBeaconHeader(h: string): [string, string] {
  const at = h.indexOf(": ");
  if (at < 0) throw new BeaconConfigError(`beacon header "${h}": want the form "X-Key: Value"`);
  const name = h.slice(0, at);
  const value = h.slice(at + 2);
  if (!HEADER_NAME.test(name)) throw new BeaconConfigError(`beacon header name "${name}" is not a valid token`);
  if (BAD_HEADER_VALUE.test(value)) throw new BeaconConfigError(`beacon header ${name}: value has CR, LF or NUL`);
  return [name, value];
}

function endpoint(label: string, url: string, headers: Record<string, string>): Endpoint {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new BeaconConfigError(`${label} beacon URL is not a URL`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new BeaconConfigError(`${label} beacon URL must be http or https, got ${u.protocol}`);
  }
  if (u.search !== "" || u.hash !== "") throw new BeaconConfigError(`${label} beacon URL must not have a query`);
  return { label: `${label} (${u.host})`, base: url.replace(/\/+$/, ""), headers };
}

function uintField(v: unknown, what: string): number {
  const n = typeof v === "string" && /^[0-9]+$/.test(v) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) throw new TypeError(`${what}: not a uint`);
  return n;
}

function record(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new TypeError(`${what}: not an object`);
  return v as Record<string, unknown>;
}

function equal32(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class BeaconClient {
  private readonly endpoints: readonly Endpoint[];
  private readonly fetchAll: boolean;
  private readonly timeoutMs: number;
  private readonly verifier: BlobVerifier;
  /** Where the next getBlobs starts (op-node ClientPool index). */
  private cursor = 0;
  private clock: Promise<SlotClock> | null = null;

  constructor(opts: BeaconClientOptions) {
    const headers: Record<string, string> = {};
    for (const h of opts.headers ?? []) {
      const [name, value] = parseBeaconHeader(h);
      headers[name] = value;
    }
    const fallbacks = opts.fallbacks ?? [];
    this.endpoints = [
      endpoint("primary", opts.url, headers),
      ...fallbacks.map((u, i) => endpoint(`fallback ${i + 1}`, u, {})),
    ];
    this.fetchAll = opts.fetchAllSidecars ?? false;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(this.timeoutMs) || this.timeoutMs < 1) {
      throw new BeaconConfigError(`beacon timeout must be a positive integer of ms, got ${this.timeoutMs}`);
    }
    this.verifier = opts.verifier ?? new InThreadBlobVerifier();
  }

  /** The primary's version string (/eth/v1/node/version); throws BeaconRequestError when unhealthy. */
  async checkHealth(): Promise<string> {
    const ep = this.endpoints[0];
    const body = await this.getJson(ep, "/eth/v1/node/version");
    try {
      const v = record(record(body, "body").data, "data").version;
      if (typeof v !== "string") throw new TypeError("data.version: not a string");
      return v;
    } catch (e) {
      throw new BeaconRequestError(ep.label, "bad_response", 200, `node/version: ${(e as Error).message}`);
    }
  }

  /** The beacon slot of an L1 block timestamp. Genesis and spec are fetched once from the primary. */
  async slotOf(l1Timestamp: number): Promise<number> {
    const c = await this.slotClock();
    if (l1Timestamp < c.genesisTime) {
      throw new BeaconRequestError(
        this.endpoints[0].label,
        "bad_slot",
        null,
        `timestamp ${l1Timestamp} precedes beacon genesis ${c.genesisTime}`,
      );
    }
    return Math.floor((l1Timestamp - c.genesisTime) / c.secondsPerSlot);
  }

  /**
   * The verified blobs for `hashes`, in the order given. `index` is the blob's position among all
   * blobs of the L1 block `l1Ref` (blob_sidecars asks by it; getBlobs by the versioned hash). Throws
   * BlobFetchError unless every blob was found and verified.
   */
  async getBlobs(
    l1Ref: Pick<L1BlockRef, "timestamp" | "hash" | "number">,
    hashes: readonly IndexedBlobHash[],
  ): Promise<Uint8Array[]> {
    if (hashes.length === 0) return [];
    const block = { number: l1Ref.number, hash: l1Ref.hash };
    let slot: number;
    try {
      slot = await this.slotOf(l1Ref.timestamp);
    } catch (e) {
      const indices = hashes.map((h) => h.index);
      throw new BlobFetchError(block, null, indices, [attemptOf(e, this.endpoints[0].label, null, indices)]);
    }
    // Filled with undefined, not holes: `every` and `filter` skip holes.
    const found: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(hashes.length).fill(undefined);
    const attempts: BlobFetchAttempt[] = [];
    const n = this.endpoints.length;
    const start = this.cursor;
    for (let k = 0; k < n; k++) {
      const at = (start + k) % n;
      const next = await this.fetchFrom(this.endpoints[at], slot, hashes, found, attempts);
      if (next === "stop") break;
      const blobs = complete(found);
      if (blobs !== null) {
        this.cursor = at;
        return blobs;
      }
      this.cursor = (at + 1) % n;
    }
    const missing = [...new Set(hashes.filter((_, i) => found[i] === undefined).map((h) => h.index))];
    throw new BlobFetchError(block, slot, missing, attempts);
  }

  /**
   * Asks one endpoint for the blobs still missing: getBlobs first, then blob_sidecars for what it did
   * not supply, unless getBlobs could not reach the endpoint. "stop" when the verifier itself failed:
   * another endpoint would not help.
   */
  private async fetchFrom(
    ep: Endpoint,
    slot: number,
    hashes: readonly IndexedBlobHash[],
    found: (Uint8Array | undefined)[],
    attempts: BlobFetchAttempt[],
  ): Promise<"next" | "stop"> {
    const got = await this.blobsFrom(ep, slot, hashes, found, attempts);
    if (got.next !== "sidecars") return got.next;
    const open = openPositions(found);
    if (open.length === 0) return "next";
    return this.sidecarsFrom(ep, slot, open, hashes, found, attempts, got.note);
  }

  /**
   * getBlobs on one endpoint for the open positions: fills `found` with the blobs whose recomputed
   * commitment hashes to a requested versioned hash. `note` names a non-200 answer for the
   * blob_sidecars attempt that follows it.
   */
  private async blobsFrom(
    ep: Endpoint,
    slot: number,
    hashes: readonly IndexedBlobHash[],
    found: (Uint8Array | undefined)[],
    attempts: BlobFetchAttempt[],
  ): Promise<{ next: "sidecars" | "next" | "stop"; note: string }> {
    const open = openPositions(found);
    const indicesOf = (positions: readonly number[]) => [...new Set(positions.map((i) => hashes[i].index))];
    // Requested positions by versioned hash, in request order: a blob fills the first open one.
    const byHash = new Map<string, number[]>();
    for (const i of open) {
      const key = bytesKey(hashes[i].versionedHash);
      const q = byHash.get(key);
      if (q === undefined) byHash.set(key, [i]);
      else q.push(i);
    }
    let blobs: Uint8Array[];
    try {
      const query = [...byHash.values()]
        .map((q) => `versioned_hashes=${bytesToHex(hashes[q[0]].versionedHash)}`)
        .join("&");
      blobs = parseBlobs(await this.getJson(ep, `/eth/v1/beacon/blobs/${slot}?${query}`));
    } catch (e) {
      if (e instanceof BeaconRequestError && (e.reason === "transport" || e.reason === "timeout")) {
        attempts.push(attemptOf(e, ep.label, "blobs", indicesOf(open)));
        return { next: "next", note: "" };
      }
      if (e instanceof BeaconRequestError && e.status !== null && e.status !== 200) {
        return { next: "sidecars", note: `; getBlobs first answered HTTP ${e.status}` };
      }
      attempts.push(attemptOf(e, ep.label, "blobs", indicesOf(open)));
      return { next: "sidecars", note: "" };
    }
    if (blobs.length > open.length) {
      attempts.push({
        endpoint: ep.label,
        route: "blobs",
        reason: "bad_response",
        status: 200,
        indices: indicesOf(open),
        message: `${blobs.length} blobs returned for ${open.length} requested`,
      });
      return { next: "sidecars", note: "" };
    }
    let commitments: (Uint8Array | null)[];
    try {
      commitments = await this.verifier.commitments(blobs);
    } catch (e) {
      attempts.push({
        endpoint: ep.label,
        route: "blobs",
        reason: "verifier_error",
        status: null,
        indices: indicesOf(open),
        message: e instanceof Error ? e.message : String(e),
      });
      return { next: "stop", note: "" };
    }
    let notBlobs = 0;
    let strangers = 0;
    for (let j = 0; j < blobs.length; j++) {
      const c = commitments[j];
      if (c === null || c === undefined) {
        notBlobs++;
        continue;
      }
      const q = byHash.get(bytesKey(kzgToVersionedHash(c)));
      if (q === undefined) {
        strangers++;
        continue;
      }
      // An extra copy of a blob whose positions are all filled (the same blob twice in the block).
      const i = q.shift();
      if (i !== undefined) found[i] = blobs[j];
    }
    const left = openPositions(found);
    if (left.length > 0) {
      const reason: BeaconFailureReason = strangers > 0 ? "hash_mismatch" : notBlobs > 0 ? "bad_response" : "missing";
      const message =
        strangers > 0
          ? `${strangers} returned blobs hash to no requested versioned hash`
          : notBlobs > 0
            ? `${notBlobs} returned blobs are not valid blobs (no KZG commitment)`
            : `${blobs.length} of ${open.length} requested blobs returned`;
      attempts.push({ endpoint: ep.label, route: "blobs", reason, status: 200, indices: indicesOf(left), message });
    }
    return { next: "sidecars", note: "" };
  }

  /**
   * blob_sidecars on one endpoint for the open positions, verifies what it sent, fills `found`,
   * records failures (`note` appended to their messages). "stop" when the verifier itself failed.
   */
  private async sidecarsFrom(
    ep: Endpoint,
    slot: number,
    open: readonly number[],
    hashes: readonly IndexedBlobHash[],
    found: (Uint8Array | undefined)[],
    attempts: BlobFetchAttempt[],
    note: string,
  ): Promise<"next" | "stop"> {
    const indices = [...new Set(open.map((i) => hashes[i].index))];
    const fail = (a: Omit<BlobFetchAttempt, "endpoint" | "route">): void => {
      attempts.push({ ...a, endpoint: ep.label, route: "blob_sidecars", message: a.message + note });
    };
    let sidecars: Map<number, Sidecar>;
    try {
      const query = this.fetchAll ? "" : `?${indices.map((i) => `indices=${i}`).join("&")}`;
      const body = await this.getJson(ep, `/eth/v1/beacon/blob_sidecars/${slot}${query}`);
      sidecars = parseSidecars(body, new Set(indices));
    } catch (e) {
      fail(attemptOf(e, ep.label, "blob_sidecars", indices));
      return "next";
    }
    const absent = indices.filter((i) => !sidecars.has(i));
    if (absent.length > 0) {
      fail({
        reason: "missing",
        status: 200,
        indices: absent,
        message: `${sidecars.size} of ${indices.length} requested sidecars returned`,
      });
    }
    const items: BlobCheckItem[] = [];
    const positions: number[] = [];
    const mismatched: number[] = [];
    for (const i of open) {
      const sc = sidecars.get(hashes[i].index);
      if (sc === undefined) continue;
      if (!equal32(kzgToVersionedHash(sc.commitment), hashes[i].versionedHash)) {
        mismatched.push(hashes[i].index);
        continue;
      }
      items.push({ blob: sc.blob, commitment: sc.commitment, proof: sc.proof, versionedHash: hashes[i].versionedHash });
      positions.push(i);
    }
    if (mismatched.length > 0) {
      fail({
        reason: "hash_mismatch",
        status: 200,
        indices: mismatched,
        message: "commitment does not hash to the requested versioned hash",
      });
    }
    if (items.length === 0) return "next";
    let ok: boolean[];
    try {
      ok = await this.verifier.verify(items);
    } catch (e) {
      fail({
        reason: "verifier_error",
        status: null,
        indices: positions.map((i) => hashes[i].index),
        message: e instanceof Error ? e.message : String(e),
      });
      return "stop";
    }
    const bad: number[] = [];
    for (let j = 0; j < positions.length; j++) {
      if (ok[j] === true) found[positions[j]] = items[j].blob;
      else bad.push(hashes[positions[j]].index);
    }
    if (bad.length > 0) {
      fail({ reason: "bad_proof", status: 200, indices: bad, message: "KZG proof does not verify" });
    }
    return "next";
  }

  private slotClock(): Promise<SlotClock> {
    if (this.clock === null) {
      const p = this.loadClock();
      this.clock = p;
      p.catch(() => {
        if (this.clock === p) this.clock = null;
      });
    }
    return this.clock;
  }

  private async loadClock(): Promise<SlotClock> {
    const ep = this.endpoints[0];
    const [genesis, spec] = await Promise.all([
      this.getJson(ep, "/eth/v1/beacon/genesis"),
      this.getJson(ep, "/eth/v1/config/spec"),
    ]);
    let c: SlotClock;
    try {
      c = {
        genesisTime: uintField(record(record(genesis, "genesis").data, "genesis.data").genesis_time, "genesis_time"),
        secondsPerSlot: uintField(record(record(spec, "spec").data, "spec.data").SECONDS_PER_SLOT, "SECONDS_PER_SLOT"),
      };
    } catch (e) {
      throw new BeaconRequestError(ep.label, "bad_response", 200, (e as Error).message);
    }
    if (c.secondsPerSlot === 0) throw new BeaconRequestError(ep.label, "bad_slot", 200, "SECONDS_PER_SLOT is 0");
    return c;
  }

  /** GET `path` on `ep`, parsed JSON on 200; anything else throws BeaconRequestError. */
  private async getJson(ep: Endpoint, path: string): Promise<unknown> {
    const what = path.split("?")[0];
    let res: Response;
    try {
      res = await fetch(ep.base + path, {
        headers: { ...ep.headers, accept: "application/json" },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw transportError(ep, what, e, this.timeoutMs);
    }
    if (res.status !== 200) {
      let text = "";
      try {
        text = (await res.text()).slice(0, 200);
      } catch {
        // the status says enough
      }
      throw new BeaconRequestError(
        ep.label,
        res.status === 404 ? "not_found" : "http_status",
        res.status,
        `${what}: HTTP ${res.status}${text === "" ? "" : `: ${text}`}`,
      );
    }
    try {
      return await res.json();
    } catch (e) {
      if (e instanceof Error && e.name === "SyntaxError") {
        throw new BeaconRequestError(ep.label, "bad_response", 200, `${what}: body is not JSON`);
      }
      throw transportError(ep, what, e, this.timeoutMs);
    }
  }
}

/** The positions of `found` still without a blob. */
function openPositions(found: readonly (Uint8Array | undefined)[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < found.length; i++) if (found[i] === undefined) out.push(i);
  return out;
}

/** The blobs when every slot is filled, else null. */
function complete(found: readonly (Uint8Array | undefined)[]): Uint8Array[] | null {
  const out: Uint8Array[] = [];
  for (let i = 0; i < found.length; i++) {
    const b = found[i];
    if (b === undefined) return null;
    out.push(b);
  }
  return out;
}

function transportError(ep: Endpoint, what: string, e: unknown, timeoutMs: number): BeaconRequestError {
  if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")) {
    return new BeaconRequestError(ep.label, "timeout", null, `${what}: no answer in ${timeoutMs} ms`, { cause: e });
  }
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : "";
  const msg = e instanceof Error ? e.message : String(e);
  return new BeaconRequestError(ep.label, "transport", null, `${what}: ${msg}${cause === "" ? "" : ` (${cause})`}`, {
    cause: e,
  });
}

function attemptOf(
  e: unknown,
  label: string,
  route: BlobFetchAttempt["route"],
  indices: readonly number[],
): BlobFetchAttempt {
  if (e instanceof BeaconRequestError) {
    return { endpoint: e.endpoint, route, reason: e.reason, status: e.status, indices, message: e.message };
  }
  return {
    endpoint: label,
    route,
    reason: "bad_response",
    status: 200,
    indices,
    message: e instanceof Error ? e.message : String(e),
  };
}

/** The blobs of a getBlobs answer (`{"data": ["0x…", …]}`), in its order. Throws on a bad shape. */
function parseBlobs(body: unknown): Uint8Array[] {
  const data = record(body, "blobs").data;
  if (!Array.isArray(data)) throw new TypeError("blobs: data is not an array");
  return data.map((b, j) => {
    if (typeof b !== "string") throw new TypeError(`blob ${j}: not a hex string`);
    try {
      return parseData(b, BLOB_BYTES);
    } catch (e) {
      throw new TypeError(`blob ${j}: ${(e as Error).message}`);
    }
  });
}

/** The sidecars of a blob_sidecars answer whose index is in `want`, by index. Throws on a bad shape. */
function parseSidecars(body: unknown, want: ReadonlySet<number>): Map<number, Sidecar> {
  const data = record(body, "blob_sidecars").data;
  if (!Array.isArray(data)) throw new TypeError("blob_sidecars: data is not an array");
  const out = new Map<number, Sidecar>();
  for (const item of data) {
    const sc = record(item, "sidecar");
    const index = uintField(sc.index, "sidecar index");
    if (!want.has(index) || out.has(index)) continue;
    if (typeof sc.blob !== "string" || typeof sc.kzg_commitment !== "string" || typeof sc.kzg_proof !== "string") {
      throw new TypeError(`sidecar ${index}: blob, kzg_commitment and kzg_proof must be hex strings`);
    }
    try {
      out.set(index, {
        blob: parseData(sc.blob, BLOB_BYTES),
        commitment: parseData(sc.kzg_commitment, 48),
        proof: parseData(sc.kzg_proof, 48),
      });
    } catch (e) {
      throw new TypeError(`sidecar ${index}: ${(e as Error).message}`);
    }
  }
  return out;
}
