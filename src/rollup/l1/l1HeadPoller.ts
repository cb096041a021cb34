/**
 * L1 head tracking for the rollup node (op-node's L1 head subscription and eth.PollBlockChanges):
 *
 * - New heads: with a `ws://`/`wss://` URL an `eth_subscribe("newHeads")` subscription, each
 *   notification parsed as a header (and its hash checked unless `trustRpc`); when the socket fails,
 *   closes or the subscription is refused, `latest` is polled every `httpPollIntervalMs` instead, and
 *   the subscription is tried again every `wsRetryMs`. Without a WebSocket URL, `latest` is polled
 *   every `httpPollIntervalMs` (`--l1.http-poll-interval`, 12 s).
 * - `safe` and `finalized` are polled every `epochPollIntervalMs` (`--l1.epoch-poll-interval`, 384 s).
 *
 * An interval of 0 or less disables that polling altogether, as op-service's `eth.PollBlockChanges`
 * (`interval <= 0`: "polling of block is disabled") and its HTTP polling client (rate 0) do: no
 * request, not even the first. An interval beyond Node's longest timer polls every 24.8 days
 * (util/timers.ts), never every millisecond.
 *
 * Each callback fires only when its block changes (by hash). Enabled polls also run once at start.
 * Errors go to `onError` and polling continues. Timers are unref'd so they never keep the process
 * alive; `stop()` ends everything.
 */
import WebSocket from "ws";
import { bytesToHex } from "../../primitives/hex.js";
import { timerDelay } from "../../util/timers.js";
import type { L1BlockRef } from "../refs.js";
import { l1BlockRef, parseL1Header } from "../transport/ethJson.js";
import type { L1BlockLabel } from "./l1Client.js";

/** What the poller needs from the L1 client. */
export interface L1RefSource {
  l1BlockRefByLabel(label: L1BlockLabel): Promise<L1BlockRef>;
}

export interface L1HeadPollerOptions {
  readonly source: L1RefSource;
  /** A ws:// or wss:// URL to subscribe to newHeads on; absent or http(s) = poll only. */
  readonly wsUrl?: string;
  readonly trustRpc?: boolean;
  /** Default 12 000; 0 or less: `latest` is never polled (new heads come only from a subscription). */
  readonly httpPollIntervalMs?: number;
  /** Default 384 000; 0 or less: `safe` and `finalized` are never polled. */
  readonly epochPollIntervalMs?: number;
  /** Default 10 000. */
  readonly wsRetryMs?: number;
  readonly onHead?: (ref: L1BlockRef) => void;
  readonly onSafe?: (ref: L1BlockRef) => void;
  readonly onFinalized?: (ref: L1BlockRef) => void;
  readonly onError?: (err: unknown, what: string) => void;
}

type Slot = "head" | "safe" | "finalized";

export class L1HeadPoller {
  private readonly last: Record<Slot, string | null> = { head: null, safe: null, finalized: null };
  private readonly timers: NodeJS.Timeout[] = [];
  private headTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private ws: WebSocket | null = null;
  private stopped = true;
  private readonly httpPollMs: number;
  private readonly epochPollMs: number;
  private readonly wsRetryMs: number;

  constructor(private readonly opts: L1HeadPollerOptions) {
    this.httpPollMs = opts.httpPollIntervalMs ?? 12_000;
    this.epochPollMs = opts.epochPollIntervalMs ?? 384_000;
    this.wsRetryMs = opts.wsRetryMs ?? 10_000;
  }

  /** Whether new heads currently arrive over a live subscription. */
  get subscribed(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const ws = this.opts.wsUrl;
    if (ws !== undefined && /^wss?:\/\//i.test(ws)) this.subscribe(ws);
    else this.startHeadPolling();
    if (this.epochPollMs > 0) {
      const epoch = (): void => {
        void this.poll("safe");
        void this.poll("finalized");
      };
      epoch();
      this.timers.push(unref(setInterval(epoch, timerDelay(this.epochPollMs))));
    }
  }

  /** Whether `safe`/`finalized` are polled (`--l1.epoch-poll-interval` > 0). */
  get epochPolling(): boolean {
    return this.epochPollMs > 0;
  }

  /** Whether `latest` is polled when no subscription delivers heads (`--l1.http-poll-interval` > 0). */
  get headPolling(): boolean {
    return this.httpPollMs > 0;
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    this.stopHeadPolling();
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const ws = this.ws;
    this.ws = null;
    if (ws !== null) {
      ws.removeAllListeners();
      ws.on("error", () => {});
      ws.terminate();
    }
  }

  private emit(slot: Slot, ref: L1BlockRef): void {
    if (this.stopped) return;
    const key = bytesToHex(ref.hash);
    if (this.last[slot] === key) return;
    this.last[slot] = key;
    const cb = slot === "head" ? this.opts.onHead : slot === "safe" ? this.opts.onSafe : this.opts.onFinalized;
    cb?.(ref);
  }

  private async poll(slot: Slot): Promise<void> {
    const label: L1BlockLabel = slot === "head" ? "latest" : slot;
    try {
      const ref = await this.opts.source.l1BlockRefByLabel(label);
      this.emit(slot, ref);
    } catch (e) {
      if (!this.stopped) this.opts.onError?.(e, `poll ${label}`);
    }
  }

  private startHeadPolling(): void {
    if (this.headTimer !== null || this.stopped || this.httpPollMs <= 0) return;
    void this.poll("head");
    this.headTimer = unref(setInterval(() => void this.poll("head"), timerDelay(this.httpPollMs)));
  }

  private stopHeadPolling(): void {
    if (this.headTimer !== null) clearInterval(this.headTimer);
    this.headTimer = null;
  }

  /** Polls instead of the subscription, and schedules another subscription attempt. */
  private fallBack(url: string, why: unknown): void {
    if (this.stopped) return;
    this.opts.onError?.(why, "newHeads subscription");
    const ws = this.ws;
    this.ws = null;
    if (ws !== null) {
      ws.removeAllListeners();
      ws.on("error", () => {});
      ws.terminate();
    }
    this.startHeadPolling();
    if (this.retryTimer === null) {
      this.retryTimer = unref(
        setTimeout(() => {
          this.retryTimer = null;
          if (!this.stopped) this.subscribe(url);
        }, this.wsRetryMs),
      );
    }
  }

  private subscribe(url: string): void {
    const ws = new WebSocket(url, { handshakeTimeout: this.wsRetryMs });
    this.ws = ws;
    let subId: string | null = null;
    ws.on("open", () => {
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }));
    });
    ws.on("message", (data) => {
      let msg: {
        id?: unknown;
        result?: unknown;
        error?: { message?: unknown };
        params?: { subscription?: unknown; result?: unknown };
      };
      try {
        msg = JSON.parse(String(data));
      } catch (e) {
        this.opts.onError?.(e, "newHeads message");
        return;
      }
      if (msg.id === 1) {
        if (typeof msg.result !== "string") {
          this.fallBack(url, new Error(`eth_subscribe refused: ${String(msg.error?.message ?? "no subscription id")}`));
          return;
        }
        subId = msg.result;
        // The subscription is live: stop polling the head.
        this.stopHeadPolling();
        return;
      }
      if (msg.params === undefined || msg.params.subscription !== subId) return;
      try {
        this.emit("head", l1BlockRef(parseL1Header(msg.params.result, !(this.opts.trustRpc ?? false))));
      } catch (e) {
        this.opts.onError?.(e, "newHeads header");
      }
    });
    ws.on("error", (e) => {
      if (this.ws === ws) this.fallBack(url, e);
    });
    ws.on("close", () => {
      if (this.ws === ws) this.fallBack(url, new Error("newHeads subscription closed"));
    });
  }
}

function unref<T extends NodeJS.Timeout>(t: T): T {
  t.unref();
  return t;
}
