/**
 * HTTP client of an alt-DA server (specs experimental/alt-da.md "DA Server"; op-node
 * op-alt-da/daclient.go, flags in op-alt-da/cli.go):
 *
 * - `getInput(c)`: `GET {url}/get/0x<type‖bytes>`. 200 → the body is the input; 404 →
 *   `DaNotFoundError` (derivation then consults the challenge state); any other status, a transport
 *   failure or the get timeout → `DaTransientError` (derivation retries). With `verifyOnRead` a keccak
 *   commitment is checked against the body (AltDaCommitmentError "MISMATCH"); generic commitments are
 *   never checked, the DA server vouches for them.
 * - `setInput(data)` (the batcher side): without `daService` the keccak commitment is computed
 *   locally and the input is `POST`ed to `{url}/put/0x<00‖hash>` (op-node uses POST here, as the spec
 *   does, not PUT), success = 200; with `daService` the input is `POST`ed to `{url}/put` and the
 *   server answers with the commitment it made. op-node reads that answer as raw `type‖bytes`; the
 *   spec says hex, so an answer spelled as ASCII `0x…` hex is accepted too (unambiguous: '0' = 0x30 is
 *   no commitment type). Empty input → `DaInvalidInputError`.
 * - Timeouts cover the whole exchange including the body; 0 or negative = none (the flags' default;
 *   op-alt-da's `http.Client{Timeout}` sets a deadline only when positive); beyond Node's longest
 *   timer (24.8 days) that timer, never 1 ms. At most `maxConcurrent` requests are in flight (FIFO
 *   Semaphore), gets and puts together.
 */
import { hexToBytes } from "../../primitives/hex.js";
import { timerDelay } from "../../util/timers.js";
import { Semaphore } from "../l1/limits.js";
import {
  type AltDaCommitment,
  AltDaCommitmentError,
  commitmentUrlKey,
  decodeCommitment,
  keccakCommitment,
  verifyCommitment,
} from "./commitment.js";

export interface DaClientOptions {
  /** Base URL of the DA server (`--altda.da-server`); trailing slashes are dropped. */
  readonly url: string;
  /** `--altda.get-timeout` in ms; 0 or negative = no timeout. */
  readonly getTimeoutMs: number;
  /** `--altda.put-timeout` in ms; 0 or negative = no timeout. */
  readonly putTimeoutMs: number;
  /** `--altda.max-concurrent-da-requests`, ≥ 1. */
  readonly maxConcurrent: number;
  /** `--altda.verify-on-read`. */
  readonly verifyOnRead: boolean;
  /** `--altda.da-service`: the server makes the commitments (generic); otherwise keccak is precomputed. */
  readonly daService: boolean;
}

/** The DA server answered 404 for the commitment (op-alt-da ErrNotFound). */
export class DaNotFoundError extends Error {
  override readonly name = "DaNotFoundError";
  constructor(readonly commitment: AltDaCommitment) {
    super(`DA server has no input for commitment ${commitmentUrlKey(commitment)}`);
  }
}

export type DaTransientErrorCode =
  /** A status other than 200 (and 404 on get). */
  | "HTTP_STATUS"
  /** The get/put timeout elapsed. */
  | "TIMEOUT"
  /** Connection refused, reset, DNS and the like. */
  | "NETWORK"
  /** The caller's AbortSignal fired. */
  | "ABORTED";

/** A DA request that failed in a way worth retrying; derivation maps it to a temporary error. */
export class DaTransientError extends Error {
  override readonly name = "DaTransientError";
  constructor(
    readonly code: DaTransientErrorCode,
    message: string,
    /** The HTTP status for HTTP_STATUS, else 0. */
    readonly status = 0,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Empty input to setInput (op-alt-da ErrInvalidInput). */
export class DaInvalidInputError extends Error {
  override readonly name = "DaInvalidInputError";
}

interface Exchange {
  readonly status: number;
  readonly body: Uint8Array;
}

export class DaClient {
  readonly url: string;
  private readonly semaphore: Semaphore;

  constructor(readonly opts: DaClientOptions) {
    if (Number.isNaN(opts.getTimeoutMs) || Number.isNaN(opts.putTimeoutMs)) {
      throw new RangeError(`DA client: bad timeouts ${opts.getTimeoutMs} / ${opts.putTimeoutMs}`);
    }
    let url = opts.url;
    while (url.endsWith("/")) url = url.slice(0, -1);
    this.url = url;
    this.semaphore = new Semaphore(opts.maxConcurrent);
  }

  /** Requests in flight now (≤ maxConcurrent). */
  get inFlight(): number {
    return this.semaphore.inFlight;
  }

  /**
   * The input behind `c`. Throws DaNotFoundError (404), DaTransientError, or AltDaCommitmentError
   * "MISMATCH" when verifyOnRead finds a keccak commitment that does not match.
   */
  async getInput(c: AltDaCommitment, signal?: AbortSignal): Promise<Uint8Array> {
    const url = `${this.url}/get/${commitmentUrlKey(c)}`;
    const r = await this.exchange("GET", url, undefined, this.opts.getTimeoutMs, signal);
    if (r.status === 404) throw new DaNotFoundError(c);
    if (r.status !== 200) {
      throw new DaTransientError("HTTP_STATUS", `GET ${url}: failed to get preimage: HTTP ${r.status}`, r.status);
    }
    if (this.opts.verifyOnRead) verifyCommitment(c, r.body);
    return r.body;
  }

  /**
   * Stores `data` and returns its commitment: keccak computed here and posted to /put/0x<commitment>,
   * or, in da-service mode, the commitment the server returns from /put. Throws DaInvalidInputError,
   * DaTransientError, or AltDaCommitmentError when the server's commitment does not decode.
   */
  async setInput(data: Uint8Array, signal?: AbortSignal): Promise<AltDaCommitment> {
    if (data.length === 0) throw new DaInvalidInputError("DA client: empty input");
    if (!this.opts.daService) {
      const c = keccakCommitment(data);
      const url = `${this.url}/put/${commitmentUrlKey(c)}`;
      const r = await this.exchange("POST", url, data, this.opts.putTimeoutMs, signal);
      if (r.status !== 200) {
        throw new DaTransientError("HTTP_STATUS", `POST ${url}: failed to store preimage: HTTP ${r.status}`, r.status);
      }
      return c;
    }
    const url = `${this.url}/put`;
    const r = await this.exchange("POST", url, data, this.opts.putTimeoutMs, signal);
    if (r.status !== 200) {
      throw new DaTransientError("HTTP_STATUS", `POST ${url}: failed to store data: HTTP ${r.status}`, r.status);
    }
    return decodeCommitment(commitmentAnswerBytes(r.body));
  }

  private exchange(
    method: "GET" | "POST",
    url: string,
    body: Uint8Array | undefined,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Exchange> {
    return this.semaphore.run(async () => {
      const ctl = new AbortController();
      let timedOut = false;
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              timedOut = true;
              ctl.abort();
            }, timerDelay(timeoutMs))
          : undefined;
      const onAbort = (): void => ctl.abort();
      if (signal !== undefined) {
        if (signal.aborted) ctl.abort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }
      try {
        const init: RequestInit = { method, signal: ctl.signal };
        if (body !== undefined) {
          init.body = body;
          init.headers = { "content-type": "application/octet-stream" };
        }
        const res = await fetch(url, init);
        if (res.status !== 200) {
          await res.body?.cancel().catch(() => undefined);
          return { status: res.status, body: new Uint8Array(0) };
        }
        return { status: res.status, body: new Uint8Array(await res.arrayBuffer()) };
      } catch (e) {
        if (timedOut) {
          throw new DaTransientError("TIMEOUT", `${method} ${url}: timed out after ${timeoutMs} ms`, 0, { cause: e });
        }
        if (signal?.aborted === true) {
          throw new DaTransientError("ABORTED", `${method} ${url}: aborted`, 0, { cause: e });
        }
        const err = e as Error;
        const why = (err.cause as Error | undefined)?.message ?? err.message;
        throw new DaTransientError("NETWORK", `${method} ${url}: ${why}`, 0, { cause: e });
      } finally {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      }
    });
  }
}

/** The /put answer as raw `type‖bytes`, or decoded when the server spelled it as ASCII `0x…` hex. */
function commitmentAnswerBytes(body: Uint8Array): Uint8Array {
  if (body.length >= 2 && body[0] === 0x30 && (body[1] === 0x78 || body[1] === 0x58)) {
    const text = new TextDecoder().decode(body).trim();
    if (/^0[xX]([0-9a-fA-F]{2})+$/.test(text)) return hexToBytes(text);
    throw new AltDaCommitmentError("BAD_HEX", "DA server answered /put with malformed hex");
  }
  return body;
}
