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
 * A result already serialized as JSON text: a long read (eth_getLogs) builds its reply piece by
 * piece in slices, and the dispatcher writes the text as is instead of stringifying a tree of
 * objects in one go. `toJSON` keeps it correct for any other consumer that stringifies it.
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}
