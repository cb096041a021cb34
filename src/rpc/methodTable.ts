/**
 * What a `Dispatcher` serves: the erased method and subscription definitions (`AnyMethod`,
 * `AnySubscription`; registry.ts `defineMethod`/`defineSubscription` build them), one transport's
 * `MethodTable`, and the `CallContext` handlers receive. A leaf of rpc/: dispatch.ts and
 * registry.ts both import it, and registry.ts imports dispatch.ts, never the reverse.
 */
import type { ParamDecoder } from "./params.js";
import type { Subscription } from "./subscriptions.js";

/** What a handler knows about the connection the call came in on. */
export interface CallContext {
  readonly transport: "http" | "ws";
  readonly remoteAddr: string;
  /**
   * Push a notification to a subscription of this connection (WebSocket only; absent on HTTP).
   * Returns false when the subscription no longer exists.
   */
  readonly notify?: (subscriptionId: string, result: unknown) => boolean;
}

/** The parameter decoders of one method or subscription, in position order. */
export type ParamDecoders = readonly ParamDecoder<unknown>[];

/** Any method definition, decoder tuple erased (every `MethodDef<D>` is assignable to it). */
export interface AnyMethod {
  readonly kind: "method";
  readonly name: string;
  readonly namespace: string;
  readonly params: ParamDecoders;
  readonly handler: (params: never, ctx: CallContext) => unknown;
}

/** Any subscription definition, decoder tuple erased. */
export interface AnySubscription {
  readonly kind: "subscription";
  readonly namespace: string;
  readonly name: string;
  readonly params: ParamDecoders;
  readonly handler: (params: never, sub: Subscription, ctx: CallContext) => unknown;
}

/** The methods and subscriptions one dispatcher serves (already filtered by namespace). */
export interface MethodTable {
  readonly apis: readonly string[];
  readonly methods: ReadonlyMap<string, AnyMethod>;
  /** Keyed `${namespace}\u0000${name}`. */
  readonly subscriptions: ReadonlyMap<string, AnySubscription>;
}

export function subscriptionKey(namespace: string, name: string): string {
  return `${namespace}\u0000${name}`;
}

/**
 * JSON text in chunks: a long read's result (eth_getLogs builds its array a few hundred logs at a
 * time) and then the reply around it. The dispatcher and the transports pass the chunks on without
 * joining them: joining a 26 MB reply and counting the bytes of the joined text each held the main
 * thread for 20–30 ms (2026-11-27, 2 loaded cores). `toString` joins, for any other consumer.
 */
export class JsonText {
  /** Characters in all chunks. */
  readonly length: number;

  constructor(readonly chunks: readonly string[]) {
    let n = 0;
    for (const c of chunks) n += c.length;
    this.length = n;
  }

  /** The JSON array of `parts`, each already one or more comma-separated JSON values. */
  static array(parts: readonly string[]): JsonText {
    if (parts.length === 0) return new JsonText(["[]"]);
    const chunks = parts.map((p, i) => (i === 0 ? `[${p}` : `,${p}`));
    chunks.push("]");
    return new JsonText(chunks);
  }

  /** This text between `prefix` and `suffix` (a reply's envelope around its result). */
  wrap(prefix: string, suffix: string): JsonText {
    return new JsonText([prefix, ...this.chunks, suffix]);
  }

  toString(): string {
    return this.chunks.join("");
  }

  toJSON(): unknown {
    return JSON.parse(this.toString());
  }
}
