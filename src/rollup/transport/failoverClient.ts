/**
 * `--l2` with more than one URL: the engine endpoints in order of preference, one answering at a time.
 * A call goes to the active endpoint; when that endpoint does not answer (an `RpcTransportError`:
 * refused, reset, timed out, not HTTP 200, not JSON) the call is made again on the next one, which
 * becomes active, and the switch is logged. An endpoint that answers with a JSON-RPC error has
 * answered: the error is the caller's, no failover. When every endpoint fails, the last transport
 * error is thrown, as a single client's would be.
 *
 * After a switch the first endpoint is tried again once `recoverMs` has passed (default 60 s), so a
 * primary that comes back is used again, as op-service's fallback client returns to its primary.
 *
 * The endpoints are meant to be replicas of one execution client (behind the same JWT secret, with the
 * same chain): an engine that has not seen a payload answers SYNCING, and op-node's forkchoice and
 * payload calls are safe to repeat, so the driver recovers as it does after any engine restart.
 */
import type { Logger } from "../../util/log.js";
import { type RpcClient, RpcTransportError } from "./rpcClient.js";
import type { RpcTransport } from "./rpcTransport.js";

/** How long after a switch the first endpoint is tried again. */
export const FAILOVER_RECOVER_MS = 60_000;

export class FailoverRpcClient implements RpcTransport {
  private active = 0;
  private switchedAt = 0;

  constructor(
    private readonly clients: readonly RpcClient[],
    private readonly log: Logger,
    private readonly recoverMs: number = FAILOVER_RECOVER_MS,
    private readonly now: () => number = Date.now,
  ) {
    if (clients.length === 0) throw new Error("FailoverRpcClient: no endpoint");
  }

  /** URL of the endpoint calls go to now. */
  get url(): string {
    return this.clients[this.active]!.url;
  }

  call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    return this.run((c) => c.call<T>(method, params));
  }

  callBatch(calls: readonly { method: string; params: readonly unknown[] }[]): Promise<unknown[]> {
    return this.run((c) => c.callBatch(calls));
  }

  private async run<T>(f: (c: RpcClient) => Promise<T>): Promise<T> {
    if (this.active !== 0 && this.now() - this.switchedAt >= this.recoverMs) {
      // Back to the first endpoint: if it still does not answer, the loop below moves on again.
      this.log.info("Trying the first L2 engine endpoint again", { url: this.clients[0]!.url });
      this.active = 0;
    }
    let last: RpcTransportError | null = null;
    for (let tried = 0; tried < this.clients.length; tried++) {
      const i = (this.active + tried) % this.clients.length;
      try {
        const r = await f(this.clients[i]!);
        if (i !== this.active) {
          this.log.warn("L2 engine endpoint failed over", {
            from: this.clients[this.active]!.url,
            to: this.clients[i]!.url,
            reason: last?.message,
          });
          this.active = i;
          this.switchedAt = this.now();
        }
        return r;
      } catch (e) {
        if (!(e instanceof RpcTransportError)) throw e;
        last = e;
      }
    }
    throw last!;
  }
}
