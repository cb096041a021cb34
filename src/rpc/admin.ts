/**
 * The `admin` namespace of geth that concerns peers (node/api.go adminAPI): admin_nodeInfo,
 * admin_peers, admin_addPeer, admin_removePeer. Served where `--http.api` / `--ws.api` name admin
 * (geth serves it over IPC by default; here there is no IPC). Without P2P (`--dev`, `--maxpeers 0`)
 * geth answers "node stopped" for admin_addPeer / admin_removePeer and an empty list for admin_peers.
 */
import type { Devp2pHost } from "../devp2p/host.js";
import { RpcError } from "./errors.js";
import { string } from "./params.js";
import { type AnyMethod, defineMethod } from "./registry.js";

export interface AdminDeps {
  /** The execution-layer P2P host, or null when the node runs without P2P. */
  readonly host: () => Devp2pHost | null;
}

/** geth p2p ErrServerStopped's text, answered when there is no P2P server. */
const NODE_STOPPED = "node stopped";

export function adminApi(deps: AdminDeps): AnyMethod[] {
  const running = (): Devp2pHost => {
    const h = deps.host();
    if (h === null) throw RpcError.server(NODE_STOPPED);
    return h;
  };
  const enodeArg = (f: (h: Devp2pHost, url: string) => boolean) => (url: string) => {
    const h = running();
    try {
      return f(h, url);
    } catch (e) {
      // geth: "invalid enode: <parse error>"
      throw RpcError.server(`invalid enode: ${(e as Error).message}`);
    }
  };
  return [
    defineMethod({ name: "admin_nodeInfo", params: [], handler: () => running().nodeInfo() as never }),
    defineMethod({ name: "admin_peers", params: [], handler: () => (deps.host()?.peerInfos() ?? []) as never }),
    defineMethod({
      name: "admin_addPeer",
      params: [string],
      handler: ([url]) =>
        enodeArg((h, u) => {
          h.addStatic(u);
          return true;
        })(url),
    }),
    defineMethod({
      name: "admin_removePeer",
      params: [string],
      handler: ([url]) =>
        enodeArg((h, u) => {
          h.removeStatic(u);
          return true;
        })(url),
    }),
  ];
}
