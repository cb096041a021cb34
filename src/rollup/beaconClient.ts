/**
 * The rollup node's L1 beacon API client: fetches the blobs of batcher txs (specs
 * protocol/derivation.md blob data source, ecotone/derivation.md; op-node v1.9/v1.10
 * op-service/sources/l1_beacon_client.go and op-node/node/client.go).
 *
 * - `slot = (timestamp − genesis_time) / SECONDS_PER_SLOT`, from /eth/v1/beacon/genesis and
 *   /eth/v1/config/spec on the primary endpoint, fetched once and cached (a failure is not cached).
 * - Sidecars come from /eth/v1/beacon/blob_sidecars/{slot}?indices=i&indices=j (repeated keys, as op-node
 *   sends them), or without the filter when `fetchAllSidecars` is set (a workaround op-node offers for
 *   beacon nodes with a broken filter); either way they are matched to the request by `index`.
 * - Every blob is checked before it is returned: its commitment must hash to the requested versioned
 *   hash and its KZG proof must hold (BlobVerifier). Blobs come back in the order asked.
 * - Endpoints are the primary and then the fallbacks (`--l1.beacon-fallbacks`, alias
 *   `--l1.beacon-archiver`). As in op-node's ClientPool, a failing endpoint moves the client on to the
 *   next one, and later calls start from the endpoint that last served a whole request. Unlike op-node,
 *   which only moves on for a failed or short response and gives up on a bad blob, a blob that fails
 *   verification is also asked for again elsewhere, and verified blobs from one endpoint are kept while
 *   the missing ones are asked of the next. When no endpoint can supply every blob, `BlobFetchError`
 *   says what each endpoint did. Nothing partial is ever returned; retry with backoff is the caller's.
 * - `--l1.beacon-header` ("X-Key: Value", split at the first ": " as op-node does) goes on every
 *   request to the primary only: op-node builds the fallback clients without it.
 * - The /eth/v1/beacon/blobs/{slot}?versioned_hashes= form is not used: op-node v1.10 did not have it
 *   (it arrived with the Fusaka-era beacon API, long after).
 *
 * Error messages name endpoints as "primary" / "fallback N" and their host only, so URLs that embed
 * an API key never reach the logs.
 */
import { parseData } from "../primitives/hex.js";
import { kzgToVersionedHash } from "../tx/blobNetwork.js";
import { type BlobCheckItem, type BlobVerifier, InThreadBlobVerifier } from "./blobVerifier.js";
import type { L1BlockRef } from "./refs.js";

export interface BeaconClientOptions {
  /** The primary beacon node (`--l1.beacon`). */
  readonly url: string;
  /** Extra headers for the primary, each "X-Key: Value" (`--l1.beacon-header`). */
  readonly headers?: readonly string[];
  /** Fallback / archiver endpoints, tried in order for blobs only. */
  readonly fallbacks?: readonly string[];
  /** Fetch all sidecars of the slot and filter locally (`--l1.beacon.fetch-all-sidecars`). */
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
  /** Not JSON, or not the shape the beacon API defines. */
  | "bad_response"
  /** The answer lacked sidecars that were asked for. */
  | "missing"
  /** A sidecar's commitment does not hash to the requested versioned hash. */
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
  readonly reason: BeaconFailureReason;
  readonly status: number | null;
  /** The blob indices this failure concerns (all those asked for, for a failed request). */
  readonly indices: readonly number[];
  readonly message: string;
}

/**
 * getBlobs could not get every blob verified. Derivation must not go on from partial data; it treats
 * this as a temporary error and retries. (op-node v1.10 maps a fetch error that wraps a 404 from any
 * endpoint to a reset instead: `notFound` tells the caller that case.)
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
          .map((a) => `${a.endpoint}: ${a.reason}${a.status === null ? "" : ` ${a.status}`} (${a.message})`)
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
   * blobs of the L1 block `l1Ref`. Throws BlobFetchError unless every blob was found and verified.
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
      throw new BlobFetchError(block, null, indices, [attemptOf(e, this.endpoints[0].label, indices)]);
    }
    // Filled with undefined, not holes: `every` and `filter` skip holes.
    const found: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(hashes.length).fill(undefined);
    const attempts: BlobFetchAttempt[] = [];
    const n = this.endpoints.length;
    const start = this.cursor;
    for (let k = 0; k < n; k++) {
      const at = (start + k) % n;
      const ep = this.endpoints[at];
      const open: number[] = [];
      for (let i = 0; i < hashes.length; i++) if (found[i] === undefined) open.push(i);
      const indices = [...new Set(open.map((i) => hashes[i].index))];
      const next = await this.fetchFrom(ep, slot, indices, open, hashes, found, attempts);
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
   * Asks one endpoint for `indices`, verifies what it sent, fills `found`, records failures. "stop"
   * when the verifier itself failed: another endpoint would not help.
   */
  private async fetchFrom(
    ep: Endpoint,
    slot: number,
    indices: readonly number[],
    open: readonly number[],
    hashes: readonly IndexedBlobHash[],
    found: (Uint8Array | undefined)[],
    attempts: BlobFetchAttempt[],
  ): Promise<"next" | "stop"> {
    let sidecars: Map<number, Sidecar>;
    try {
      const query = this.fetchAll ? "" : `?${indices.map((i) => `indices=${i}`).join("&")}`;
      const body = await this.getJson(ep, `/eth/v1/beacon/blob_sidecars/${slot}${query}`);
      sidecars = parseSidecars(body, new Set(indices));
    } catch (e) {
      attempts.push(attemptOf(e, ep.label, indices));
      return "next";
    }
    const absent = indices.filter((i) => !sidecars.has(i));
    if (absent.length > 0) {
      attempts.push({
        endpoint: ep.label,
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
      attempts.push({
        endpoint: ep.label,
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
      attempts.push({
        endpoint: ep.label,
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
      attempts.push({
        endpoint: ep.label,
        reason: "bad_proof",
        status: 200,
        indices: bad,
        message: "KZG proof does not verify",
      });
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

function attemptOf(e: unknown, label: string, indices: readonly number[]): BlobFetchAttempt {
  if (e instanceof BeaconRequestError) {
    return { endpoint: e.endpoint, reason: e.reason, status: e.status, indices, message: e.message };
  }
  return {
    endpoint: label,
    reason: "bad_response",
    status: 200,
    indices,
    message: e instanceof Error ? e.message : String(e),
  };
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
        blob: parseData(sc.blob, 131_072),
        commitment: parseData(sc.kzg_commitment, 48),
        proof: parseData(sc.kzg_proof, 48),
      });
    } catch (e) {
      throw new TypeError(`sidecar ${index}: ${(e as Error).message}`);
    }
  }
  return out;
}
