/**
 * The authenticated RPC endpoint (geth `--authrpc.*`, node/node.go startRPC): HTTP serving the
 * `engine` and `eth` namespaces behind the JWT check (SPEC: execution-apis
 * src/engine/authentication.md), which runs first on every request, so a request without a valid
 * token is answered 401 with the reason and never reaches the virtual-host check or dispatch.
 * As geth, the same port takes WebSocket upgrades (op-node's `--l2=ws://…`): the token is checked
 * on the upgrade request, which is refused with the same 401 and reason; an open connection stays
 * authenticated (geth checks the token once per connection).
 */
import type { AddressInfo } from "node:net";
import { ReplyBacklog } from "../rpc/backlog.js";
import type { CrashReporter } from "../rpc/dispatch.js";
import { RpcHttpServer } from "../rpc/httpServer.js";
import type { Registry } from "../rpc/registry.js";
import { DEFAULT_WS_OPTIONS, RpcWsServer } from "../rpc/wsServer.js";
import { jwtAuthHook } from "./jwt.js";

/** Namespaces geth registers on the auth endpoint (engine plus eth, for the consensus client). */
export const AUTH_APIS: readonly string[] = Object.freeze(["engine", "eth"]);

/** geth node/rpcstack.go engineAPIBodyLimit: payloads carry full blocks, 128 MiB. */
export const ENGINE_BODY_LIMIT = 128 * 1024 * 1024;

export interface AuthServerOptions {
  readonly addr: string;
  readonly port: number;
  readonly vhosts: readonly string[];
  readonly secret: Uint8Array;
  /** Unix seconds; tests pin it. */
  readonly clock?: () => number;
}

/** geth node.DefaultAuthOrigins: WebSocket upgrades on the auth port accept only these origins. */
export const AUTH_WS_ORIGINS: readonly string[] = Object.freeze(["localhost"]);

export class AuthRpcServer {
  readonly http: RpcHttpServer;
  readonly ws: RpcWsServer;

  constructor(opts: AuthServerOptions, deps: { registry: Registry; onCrash?: CrashReporter }) {
    const check = opts.clock === undefined ? jwtAuthHook(opts.secret) : jwtAuthHook(opts.secret, opts.clock);
    this.http = new RpcHttpServer(
      {
        addr: opts.addr,
        port: opts.port,
        apis: AUTH_APIS,
        vhosts: opts.vhosts,
        cors: [],
        bodyLimit: ENGINE_BODY_LIMIT,
        // geth's engine server never gzips its replies.
        gzipMinBytes: -1,
        // The Engine API's one trusted client: its replies are neither capped nor dropped.
        writeTimeoutMs: 0,
        backlog: new ReplyBacklog({ perConnection: Number.POSITIVE_INFINITY, total: Number.POSITIVE_INFINITY }),
        beforeRequest: (req) => check(req.headers),
      },
      deps,
    );
    this.ws = new RpcWsServer(
      {
        apis: AUTH_APIS,
        origins: AUTH_WS_ORIGINS,
        // geth reads WebSocket messages up to wsDefaultReadLimit (32 MiB) on every port, this one
        // included: node.enableWS never calls SetWebsocketReadLimit, and the 128 MiB is the HTTP body's.
        messageSizeLimit: DEFAULT_WS_OPTIONS.messageSizeLimit,
        backlog: new ReplyBacklog({ perConnection: Number.POSITIVE_INFINITY, total: Number.POSITIVE_INFINITY }),
        beforeRequest: (req) => check(req.headers),
      },
      deps,
    );
    this.http.onUpgrade((req, socket, head) => this.ws.upgrade(req, socket, head));
  }

  listen(): Promise<AddressInfo> {
    return this.http.listen();
  }

  address(): AddressInfo {
    return this.http.address();
  }

  async close(graceMs?: number): Promise<void> {
    await Promise.all([this.ws.close(graceMs), this.http.close(graceMs)]);
  }
}
