/**
 * Declarative JSON-RPC method table. Methods and subscriptions are defined once with their
 * parameter decoders; `Registry.forApis(apis)` selects the namespaces one transport serves and
 * returns its `Dispatcher`. A method of a namespace that is not enabled is indistinguishable from an
 * unknown one (-32601), as geth registers only the enabled services on each server.
 */
import { Dispatcher, type DispatcherOptions } from "./dispatch.js";
import {
  type AnyMethod,
  type AnySubscription,
  type CallContext,
  type MethodTable,
  type ParamDecoders,
  subscriptionKey,
} from "./methodTable.js";
import type { DecodedParams } from "./params.js";
import type { Subscription } from "./subscriptions.js";

/** Handler modules import these with `defineMethod`; their home is methodTable.ts (dispatch.ts needs them). */
export type { AnyMethod, AnySubscription, CallContext, MethodTable } from "./methodTable.js";

export interface MethodDef<D extends ParamDecoders = ParamDecoders> {
  readonly kind: "method";
  readonly name: string;
  readonly namespace: string;
  readonly params: D;
  readonly handler: (params: DecodedParams<D>, ctx: CallContext) => unknown;
}

export interface SubscriptionDef<D extends ParamDecoders = ParamDecoders> {
  readonly kind: "subscription";
  /** Namespace whose `<ns>_subscribe` serves it (geth: the service name), e.g. "eth". */
  readonly namespace: string;
  /** First `*_subscribe` argument, e.g. "newHeads". */
  readonly name: string;
  /** Decoders for the arguments after the name. */
  readonly params: D;
  /**
   * Sets the subscription up (register listeners, `sub.onCancel(cleanup)`); may be async. If it
   * throws, the caller gets the error and the subscription is discarded.
   */
  readonly handler: (params: DecodedParams<D>, sub: Subscription, ctx: CallContext) => unknown;
}

function namespaceOf(method: string): string {
  const i = method.indexOf("_");
  return i < 0 ? method : method.slice(0, i);
}

/** A method: the namespace is the prefix of `name` before the first `_`. */
export function defineMethod<const D extends ParamDecoders>(def: {
  name: string;
  params: D;
  handler: (params: DecodedParams<D>, ctx: CallContext) => unknown;
}): MethodDef<D> {
  const namespace = namespaceOf(def.name);
  if (namespace === def.name) throw new Error(`method name without namespace: ${def.name}`);
  return { kind: "method", name: def.name, namespace, params: def.params, handler: def.handler };
}

/** A subscription kind served by `<namespace>_subscribe`. */
export function defineSubscription<const D extends ParamDecoders>(def: {
  namespace: string;
  name: string;
  params: D;
  handler: (params: DecodedParams<D>, sub: Subscription, ctx: CallContext) => unknown;
}): SubscriptionDef<D> {
  return { kind: "subscription", namespace: def.namespace, name: def.name, params: def.params, handler: def.handler };
}

export class Registry {
  private readonly methods = new Map<string, AnyMethod>();
  private readonly subs = new Map<string, AnySubscription>();

  constructor(defs: readonly (AnyMethod | AnySubscription)[] = []) {
    for (const d of defs) this.add(d);
  }

  add(d: AnyMethod | AnySubscription): this {
    if (d.kind === "method") {
      if (this.methods.has(d.name)) throw new Error(`duplicate RPC method ${d.name}`);
      if (d.name.endsWith("_subscribe") || d.name.endsWith("_unsubscribe")) {
        throw new Error(`${d.name}: subscribe/unsubscribe are served by defineSubscription`);
      }
      this.methods.set(d.name, d);
    } else {
      const k = subscriptionKey(d.namespace, d.name);
      if (this.subs.has(k)) throw new Error(`duplicate subscription ${d.namespace}/${d.name}`);
      this.subs.set(k, d);
    }
    return this;
  }

  /** Every namespace that has at least one method or subscription. */
  namespaces(): string[] {
    const s = new Set<string>();
    for (const m of this.methods.values()) s.add(m.namespace);
    for (const m of this.subs.values()) s.add(m.namespace);
    return [...s].sort();
  }

  /** The table for one transport: only the listed namespaces (plus geth's built-in `rpc_modules`). */
  table(apis: readonly string[]): MethodTable {
    const enabled = new Set(apis);
    const methods = new Map<string, AnyMethod>();
    const subscriptions = new Map<string, AnySubscription>();
    for (const [k, m] of this.methods) if (enabled.has(m.namespace)) methods.set(k, m);
    for (const [k, s] of this.subs) if (enabled.has(s.namespace)) subscriptions.set(k, s);
    const served = new Set<string>();
    for (const m of methods.values()) served.add(m.namespace);
    for (const s of subscriptions.values()) served.add(s.namespace);
    served.add("rpc");
    const modules: Record<string, string> = {};
    for (const ns of [...served].sort()) modules[ns] = "1.0";
    // geth RPCService.Modules: every service registered on this server, version "1.0".
    if (!methods.has("rpc_modules")) {
      methods.set("rpc_modules", defineMethod({ name: "rpc_modules", params: [], handler: () => modules }));
    }
    return { apis: [...enabled], methods, subscriptions };
  }

  /** The dispatcher for one transport serving `apis` (e.g. `["eth","net","web3"]`). */
  forApis(apis: readonly string[], opts: Partial<DispatcherOptions> = {}): Dispatcher {
    return new Dispatcher(this.table(apis), opts);
  }
}
