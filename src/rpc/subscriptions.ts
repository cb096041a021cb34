/**
 * Server-side subscriptions of one push-capable connection (WebSocket): ids as geth makes them
 * (`rpc/subscription.go`: 16 random bytes, hex, leading zeros trimmed, `0x` prefix), notifications
 * `{"jsonrpc":"2.0","method":"<ns>_subscription","params":{"subscription":id,"result":…}}`, and
 * cleanup through the callbacks a handler registered, on unsubscribe or when the connection closes.
 */
import { randomFillSync } from "node:crypto";
import { bytesToHexRaw } from "../primitives/hex.js";

// Scratch for id generation: filled and read synchronously, never shared across a yield.
const ID_SCRATCH = new Uint8Array(16);

/** A fresh subscription id: geth `randomIDGenerator` + `encodeID`. */
export function newSubscriptionId(): string {
  randomFillSync(ID_SCRATCH);
  let hex = bytesToHexRaw(ID_SCRATCH);
  let i = 0;
  while (i < hex.length && hex.charCodeAt(i) === 48) i++;
  hex = i === hex.length ? "0" : hex.slice(i);
  return `0x${hex}`;
}

/**
 * Subscriptions one connection may hold at once (geth has no limit; reth's
 * `--rpc.max-subscriptions-per-connection` default). One more is refused with -32006.
 */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 1024;

/** What a subscription handler holds: push results, learn about cancellation. */
export interface Subscription {
  readonly id: string;
  readonly namespace: string;
  /** True once unsubscribed or the connection closed; `notify` is then a no-op. */
  readonly cancelled: boolean;
  /** Sends one notification. Before the subscribe response is written, results are queued. */
  notify(result: unknown): void;
  /** Runs once on `*_unsubscribe` or connection close (the handler's cleanup: drop listeners). */
  onCancel(cb: () => void): void;
}

class ServerSubscription implements Subscription {
  cancelled = false;
  active = false;
  private queue: string[] | null = null;
  private cancelCbs: (() => void)[] | null = null;
  constructor(
    readonly id: string,
    readonly namespace: string,
    private readonly owner: ConnectionSubscriptions,
  ) {}

  notify(result: unknown): void {
    if (this.cancelled) return;
    const text = this.owner.encode(this, result);
    if (this.active) this.owner.send(text);
    else (this.queue ??= []).push(text);
  }

  onCancel(cb: () => void): void {
    if (this.cancelled) cb();
    else (this.cancelCbs ??= []).push(cb);
  }

  activate(): void {
    if (this.cancelled || this.active) return;
    this.active = true;
    const q = this.queue;
    this.queue = null;
    if (q !== null) for (const t of q) this.owner.send(t);
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.queue = null;
    const cbs = this.cancelCbs;
    this.cancelCbs = null;
    if (cbs !== null) for (const cb of cbs) cb();
  }
}

/** The subscriptions of one connection; the transport gives it a `send` for text frames. */
export class ConnectionSubscriptions {
  private readonly subs = new Map<string, ServerSubscription>();
  private closed = false;

  constructor(
    readonly send: (text: string) => void,
    readonly limit: number = MAX_SUBSCRIPTIONS_PER_CONNECTION,
  ) {}

  get size(): number {
    return this.subs.size;
  }

  /** True when the connection holds `limit` subscriptions (0 = no limit): a new one is refused. */
  get full(): boolean {
    return this.limit > 0 && this.subs.size >= this.limit;
  }

  /** A new, not yet active subscription (active once its subscribe response is written). */
  create(namespace: string): Subscription {
    let id = newSubscriptionId();
    while (this.subs.has(id)) id = newSubscriptionId();
    const s = new ServerSubscription(id, namespace, this);
    if (this.closed) s.cancel();
    else this.subs.set(id, s);
    return s;
  }

  /** Drops a subscription whose subscribe call failed. */
  discard(sub: Subscription): void {
    const s = this.subs.get(sub.id);
    if (s === undefined) return;
    this.subs.delete(sub.id);
    s.cancel();
  }

  /**
   * Called by the transport right after it wrote the reply of the message that created `created`
   * (geth `Notifier.activate`): queued notifications go out, later ones are sent directly.
   */
  activate(created: readonly Subscription[]): void {
    for (const s of created) if (s instanceof ServerSubscription) s.activate();
  }

  /** geth `handler.unsubscribe`: any namespace, by id. */
  unsubscribe(id: string): boolean {
    const s = this.subs.get(id);
    if (s === undefined) return false;
    this.subs.delete(id);
    s.cancel();
    return true;
  }

  /** `ctx.notify`: pushes to a subscription of this connection; false if it no longer exists. */
  notify(id: string, result: unknown): boolean {
    const s = this.subs.get(id);
    if (s === undefined) return false;
    s.notify(result);
    return true;
  }

  /** Connection closed: cancel everything (runs each handler's cleanup once). */
  closeAll(): void {
    this.closed = true;
    const all = [...this.subs.values()];
    this.subs.clear();
    for (const s of all) s.cancel();
  }

  /** @internal */
  encode(s: ServerSubscription, result: unknown): string {
    const r = JSON.stringify(result) ?? "null";
    return `{"jsonrpc":"2.0","method":"${s.namespace}_subscription","params":{"subscription":"${s.id}","result":${r}}}`;
  }
}
