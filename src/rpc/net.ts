/** The `net` namespace: geth's NetAPI (network id as a decimal string, listening, peer count). */
import { qty } from "./format.js";
import { type AnyMethod, defineMethod } from "./registry.js";

export interface NetDeps {
  readonly networkId: bigint;
  /** Connected peers (an execution client behind a rollup node has none). */
  readonly peerCount?: () => number;
  readonly listening?: boolean;
}

export function netApi(deps: NetDeps): AnyMethod[] {
  return [
    defineMethod({ name: "net_version", params: [], handler: () => deps.networkId.toString(10) }),
    defineMethod({ name: "net_listening", params: [], handler: () => deps.listening ?? true }),
    defineMethod({ name: "net_peerCount", params: [], handler: () => qty(deps.peerCount?.() ?? 0) }),
  ];
}
