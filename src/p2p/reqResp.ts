/**
 * Req-resp sync (OP specs rollup-node-p2p.md "Req-Resp", op-node p2p/sync.go): the
 * `payload_by_number` protocol that fills gaps in the unsafe chain.
 *
 * - Protocol id `/opstack/req/payload_by_number/<chainId>/0`.
 * - Request: the block number as uint64 little-endian (8 bytes).
 * - Response: a result byte (0 ok, 1 not found, 2 invalid request, 3 unknown error), then on success
 *   `version u32 LE ‖ snappy-framed SSZ`: version 0 = ExecutionPayload V1/V2 (V2 from Canyon),
 *   1 = the Ecotone envelope (parent beacon root ‖ payload V3), 2 = the Isthmus envelope (V3 with
 *   withdrawalsRoot). At most 10 MB.
 * - Server: rate limits of 20 blocks/s (burst 40) over all peers and 4/s (burst 15) per peer, waited
 *   for up to the read timeout; stream read and write timeouts of 10 s.
 * - Client: a 5 s stream-open timeout, 10 s to write and to read, a per-peer limit; it checks the
 *   block number, the block hash (recomputed) and, when given, the parent hash the caller trusts.
 *   Each outcome feeds the peer's application score: valid, error (not found, timeout, refused) or
 *   rejected (a malformed or mismatching payload).
 */
import type { Libp2p, Stream } from "@libp2p/interface";
import { concatByteList, concatBytes } from "../primitives/bytes.js";
import { bytesToHex } from "../primitives/hex.js";
import { SnappyError, snappyFrameDecode, snappyFrameEncode } from "../primitives/snappy.js";
import type { Logger } from "../util/log.js";
import { type BlockVersion, blockHashOf } from "./gossipBlock.js";
import { decodeEnvelope, encodeEnvelope, type PayloadEnvelopeJson, SszError } from "./ssz.js";

export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const STREAM_OPEN_TIMEOUT_MS = 5_000;
const READ_TIMEOUT_MS = 10_000;
const GLOBAL_RATE = { perSecond: 20, burst: 40 };
const PEER_RATE = { perSecond: 4, burst: 15 };
const CLIENT_PEER_RATE = { perSecond: 10, burst: 20 };

export const RESULT_OK = 0;
export const RESULT_NOT_FOUND = 1;
export const RESULT_INVALID_REQUEST = 2;
export const RESULT_UNKNOWN = 3;

export function payloadByNumberProtocol(chainId: bigint): string {
  return `/opstack/req/payload_by_number/${chainId.toString(10)}/0`;
}

/** The req-resp version of a gossip version: 0/1 → 0, 2 → 1, 3 → 2. */
export function reqRespVersion(v: BlockVersion): number {
  return v <= 1 ? 0 : v - 1;
}

/** A token bucket: `wait()` tells how long until a token is free (0 = take it now). */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
  }

  /** Takes a token if one is free; else returns the ms until one will be (without taking it). */
  tryTake(): number {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / this.perSecond) * 1000);
  }
}

export class ReqRespError extends Error {
  override readonly name = "ReqRespError";
  constructor(
    readonly code:
      | "not_found"
      | "invalid_request"
      | "server_error"
      | "timeout"
      | "stream"
      | "malformed"
      | "mismatch"
      | "rate_limited",
    message: string,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

/** Reads a stream to its end, at most `max` bytes, within `timeoutMs`. */
async function readAll(stream: Stream, max: number, timeoutMs: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  const timer = setTimeout(() => stream.abort(new Error("read timed out")), timeoutMs);
  try {
    for await (const chunk of stream) {
      const bytes = chunk instanceof Uint8Array ? chunk : chunk.subarray();
      total += bytes.length;
      if (total > max) {
        stream.abort(new Error("response too large"));
        throw new ReqRespError("malformed", `response over ${max} bytes`);
      }
      parts.push(bytes);
    }
  } finally {
    clearTimeout(timer);
  }
  return concatByteList(parts);
}

/** Reads exactly the first `n` bytes (or fewer if the stream ends), within `timeoutMs`. */
async function readUpTo(stream: Stream, n: number, timeoutMs: number): Promise<Uint8Array> {
  const out = new Uint8Array(n);
  let got = 0;
  const timer = setTimeout(() => stream.abort(new Error("read timed out")), timeoutMs);
  try {
    for await (const chunk of stream) {
      const bytes = chunk instanceof Uint8Array ? chunk : chunk.subarray();
      const take = Math.min(bytes.length, n - got);
      out.set(bytes.subarray(0, take), got);
      got += take;
      if (got >= n) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return out.subarray(0, got);
}

async function send(stream: Stream, data: Uint8Array): Promise<void> {
  if (!stream.send(data)) await stream.onDrain({ signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
}

export interface PayloadByNumberServerOptions {
  readonly chainId: bigint;
  readonly payloadByNumber: (
    n: number,
  ) => Promise<{ readonly envelope: PayloadEnvelopeJson; readonly timestamp: number } | null>;
  readonly versionAt: (timestamp: number) => BlockVersion;
  readonly log?: Logger;
  /** Each request's fate: ok, not_found, invalid_request, error or rate_limited (metrics). */
  readonly onServed?: (result: ServedResult) => void;
}

export type ServedResult = "ok" | "not_found" | "invalid_request" | "error" | "rate_limited";

export class PayloadByNumberServer {
  private readonly global = new TokenBucket(GLOBAL_RATE.perSecond, GLOBAL_RATE.burst);
  private readonly peers = new Map<string, TokenBucket>();
  private libp2p: Libp2p | null = null;
  readonly protocol: string;
  /** Requests served, by result (tests, metrics). */
  readonly served = { ok: 0, notFound: 0, invalid: 0, error: 0, limited: 0 };

  constructor(private readonly opts: PayloadByNumberServerOptions) {
    this.protocol = payloadByNumberProtocol(opts.chainId);
  }

  async register(libp2p: Libp2p): Promise<void> {
    this.libp2p = libp2p;
    await libp2p.handle(this.protocol, (stream, conn) => this.handle(stream, conn.remotePeer.toString()), {
      maxInboundStreams: 16,
    });
  }

  async unregister(): Promise<void> {
    await this.libp2p?.unhandle(this.protocol);
    this.libp2p = null;
  }

  private async limit(peer: string): Promise<boolean> {
    let b = this.peers.get(peer);
    if (b === undefined) {
      b = new TokenBucket(PEER_RATE.perSecond, PEER_RATE.burst);
      this.peers.set(peer, b);
      if (this.peers.size > 1000) this.peers.delete(this.peers.keys().next().value!);
    }
    const deadline = Date.now() + READ_TIMEOUT_MS;
    for (const bucket of [b, this.global]) {
      for (;;) {
        const wait = bucket.tryTake();
        if (wait === 0) break;
        if (Date.now() + wait > deadline) return false;
        await sleep(wait);
      }
    }
    return true;
  }

  private async handle(stream: Stream, peer: string): Promise<void> {
    try {
      if (!(await this.limit(peer))) {
        this.served.limited++;
        this.opts.onServed?.("rate_limited");
        stream.abort(new Error("rate limited"));
        return;
      }
      const req = await readUpTo(stream, 8, READ_TIMEOUT_MS);
      let result = RESULT_OK;
      let body: Uint8Array | null = null;
      if (req.length !== 8) {
        result = RESULT_INVALID_REQUEST;
      } else {
        const n = new DataView(req.buffer, req.byteOffset, 8).getBigUint64(0, true);
        if (n > BigInt(Number.MAX_SAFE_INTEGER)) {
          result = RESULT_INVALID_REQUEST;
        } else {
          try {
            const got = await this.opts.payloadByNumber(Number(n));
            if (got === null) {
              result = RESULT_NOT_FOUND;
            } else {
              const v = this.opts.versionAt(got.timestamp);
              const ssz = encodeEnvelope(v, got.envelope);
              const version = new Uint8Array(4);
              new DataView(version.buffer).setUint32(0, reqRespVersion(v), true);
              body = concatBytes(version, snappyFrameEncode(ssz));
            }
          } catch (e) {
            this.opts.log?.warn("req-resp: failed to serve a payload", { n: String(n), err: (e as Error).message });
            result = RESULT_UNKNOWN;
          }
        }
      }
      let fate: ServedResult = "error";
      if (result === RESULT_OK) {
        this.served.ok++;
        fate = "ok";
      } else if (result === RESULT_NOT_FOUND) {
        this.served.notFound++;
        fate = "not_found";
      } else if (result === RESULT_INVALID_REQUEST) {
        this.served.invalid++;
        fate = "invalid_request";
      } else {
        this.served.error++;
      }
      this.opts.onServed?.(fate);
      await send(stream, new Uint8Array([result]));
      if (body !== null) await send(stream, body);
      await stream.close({ signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
    } catch (e) {
      this.opts.log?.debug("req-resp: stream failed", { peer, err: (e as Error).message });
      stream.abort(e instanceof Error ? e : new Error(String(e)));
    }
  }
}

export interface PayloadByNumberClientOptions {
  readonly chainId: bigint;
  /** The gossip version block `n` must have (from its timestamp in the rollup config). */
  readonly versionAtNumber: (n: number) => BlockVersion;
  readonly onResult?: (peerId: string, outcome: "valid" | "error" | "rejected") => void;
  readonly log?: Logger;
}

export interface FetchedPayload {
  readonly envelope: PayloadEnvelopeJson;
  readonly blockHash: string;
}

export class PayloadByNumberClient {
  private readonly peers = new Map<string, TokenBucket>();
  readonly protocol: string;

  constructor(private readonly opts: PayloadByNumberClientOptions) {
    this.protocol = payloadByNumberProtocol(opts.chainId);
  }

  /** Block `n` from `peerId`, checked; a ReqRespError (never thrown) on failure. */
  async request(
    libp2p: Libp2p,
    peerId: string,
    n: number,
    expect: { readonly parentHash?: string; readonly hash?: string } = {},
  ): Promise<FetchedPayload | ReqRespError> {
    const r = await this.fetch(libp2p, peerId, n, expect);
    const outcome =
      r instanceof ReqRespError
        ? r.code === "malformed" || r.code === "mismatch"
          ? "rejected"
          : r.code === "rate_limited"
            ? null
            : "error"
        : "valid";
    if (outcome !== null) this.opts.onResult?.(peerId, outcome);
    if (r instanceof ReqRespError) this.opts.log?.debug("req-resp request failed", { peer: peerId, n, err: r.message });
    return r;
  }

  private async fetch(
    libp2p: Libp2p,
    peerId: string,
    n: number,
    expect: { readonly parentHash?: string; readonly hash?: string },
  ): Promise<FetchedPayload | ReqRespError> {
    let bucket = this.peers.get(peerId);
    if (bucket === undefined) {
      bucket = new TokenBucket(CLIENT_PEER_RATE.perSecond, CLIENT_PEER_RATE.burst);
      this.peers.set(peerId, bucket);
    }
    const wait = bucket.tryTake();
    if (wait > 0) {
      if (wait > READ_TIMEOUT_MS) return new ReqRespError("rate_limited", `peer ${peerId} rate limit`);
      await sleep(wait);
    }
    const { peerIdFromString } = await import("@libp2p/peer-id");
    let stream: Stream;
    try {
      stream = await libp2p.dialProtocol(peerIdFromString(peerId), this.protocol, {
        signal: AbortSignal.timeout(STREAM_OPEN_TIMEOUT_MS),
      });
    } catch (e) {
      return new ReqRespError("stream", `cannot open a req-resp stream to ${peerId}: ${(e as Error).message}`);
    }
    let raw: Uint8Array;
    try {
      const req = new Uint8Array(8);
      new DataView(req.buffer).setBigUint64(0, BigInt(n), true);
      await send(stream, req);
      await stream.close({ signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
      raw = await readAll(stream, MAX_RESPONSE_BYTES + 5, READ_TIMEOUT_MS);
    } catch (e) {
      stream.abort(e instanceof Error ? e : new Error(String(e)));
      if (e instanceof ReqRespError) return e;
      const msg = (e as Error).message;
      return new ReqRespError(
        /timed out|timeout|abort/i.test(msg) ? "timeout" : "stream",
        `req-resp to ${peerId}: ${msg}`,
      );
    }
    if (raw.length === 0) return new ReqRespError("stream", `peer ${peerId} closed the stream without an answer`);
    const result = raw[0]!;
    if (result === RESULT_NOT_FOUND) return new ReqRespError("not_found", `peer ${peerId} does not have block ${n}`);
    if (result === RESULT_INVALID_REQUEST)
      return new ReqRespError("invalid_request", `peer ${peerId}: invalid request`);
    if (result !== RESULT_OK) return new ReqRespError("server_error", `peer ${peerId} answered result ${result}`);
    if (raw.length < 5) return new ReqRespError("malformed", `peer ${peerId}: response without a version`);
    const rrVersion = new DataView(raw.buffer, raw.byteOffset + 1, 4).getUint32(0, true);
    const version = this.opts.versionAtNumber(n);
    if (rrVersion !== reqRespVersion(version)) {
      return new ReqRespError(
        "mismatch",
        `peer ${peerId}: version ${rrVersion} for block ${n}, want ${reqRespVersion(version)}`,
      );
    }
    const ssz = snappyFrameDecode(raw.subarray(5), MAX_RESPONSE_BYTES);
    if (ssz instanceof SnappyError) return new ReqRespError("malformed", `peer ${peerId}: ${ssz.message}`);
    const env = decodeEnvelope(version, ssz);
    if (env instanceof SszError) return new ReqRespError("malformed", `peer ${peerId}: ${env.message}`);
    const p = env.executionPayload;
    if (Number(BigInt(p.blockNumber as string)) !== n) {
      return new ReqRespError("mismatch", `peer ${peerId} sent block ${String(p.blockNumber)} for ${n}`);
    }
    const hash = blockHashOf(version, env);
    const claimed = (p.blockHash as string).toLowerCase();
    if (hash === null || bytesToHex(hash) !== claimed) {
      return new ReqRespError("mismatch", `peer ${peerId}: block ${n} has a bad block hash`);
    }
    if (expect.hash !== undefined && expect.hash.toLowerCase() !== claimed) {
      return new ReqRespError("mismatch", `peer ${peerId}: block ${n} is ${claimed}, want ${expect.hash}`);
    }
    if (expect.parentHash !== undefined && expect.parentHash.toLowerCase() !== (p.parentHash as string).toLowerCase()) {
      return new ReqRespError("mismatch", `peer ${peerId}: block ${n} does not build on ${expect.parentHash}`);
    }
    return { envelope: env, blockHash: claimed };
  }
}
