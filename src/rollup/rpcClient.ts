/**
 * A JSON-RPC client over HTTP for the rollup node's upstreams (the L2 engine endpoint, later L1 and
 * the beacon node): one POST per call with a timeout, a fresh HS256 JWT per request when a secret is
 * given (op-node signs each engine request anew, so a token never goes stale). A JSON-RPC error
 * answer becomes `RpcCallError` with the server's code and message; transport failures and
 * timeouts become `RpcTransportError`. Never throws anything else.
 */
import { signJwt } from "../engine/jwt.js";

export class RpcCallError extends Error {
  override readonly name = "RpcCallError";
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export class RpcTransportError extends Error {
  override readonly name = "RpcTransportError";
}

export interface RpcClientOptions {
  /** Engine endpoints: the 32-byte JWT secret. */
  readonly jwtSecret?: Uint8Array;
  /** Per-call timeout, ms. */
  readonly timeoutMs?: number;
}

export class RpcClient {
  private nextId = 1;
  private readonly timeoutMs: number;

  constructor(
    readonly url: string,
    private readonly opts: RpcClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  async call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.opts.jwtSecret !== undefined) {
      headers.authorization = `Bearer ${signJwt(this.opts.jwtSecret, Date.now() / 1000)}`;
    }
    const id = this.nextId++;
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      const err = e as Error;
      const why =
        err.name === "TimeoutError"
          ? `timed out after ${this.timeoutMs} ms`
          : ((err.cause as Error)?.message ?? err.message);
      throw new RpcTransportError(`${method} to ${this.url}: ${why}`);
    }
    const text = await res.text().catch(() => "");
    if (res.status !== 200) {
      throw new RpcTransportError(`${method} to ${this.url}: HTTP ${res.status} ${text.trim().slice(0, 200)}`);
    }
    let reply: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    try {
      reply = JSON.parse(text);
    } catch {
      throw new RpcTransportError(`${method} to ${this.url}: the answer is not JSON`);
    }
    if (reply.error !== undefined && reply.error !== null) {
      const code = typeof reply.error.code === "number" ? reply.error.code : -32603;
      const message = typeof reply.error.message === "string" ? reply.error.message : "unknown error";
      throw new RpcCallError(method, code, message, reply.error.data);
    }
    return reply.result as T;
  }
}
