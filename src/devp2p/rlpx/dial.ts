/**
 * Dial and accept helpers over RlpxSession: each resolves with a session whose Hello exchange is
 * done (`ready`), or rejects with an RlpxConnectError carrying the close info (reason, who, why).
 * `listenRlpx` runs a TCP server handing each ready inbound session to a callback.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import type { Logger } from "../../util/log.js";
import { type RlpxCloseInfo, RlpxSession, type RlpxSessionOptions } from "./rlpxSession.js";

export type RlpxLocalOptions = Omit<RlpxSessionOptions, "remoteId">;

export class RlpxConnectError extends Error {
  override readonly name = "RlpxConnectError";
  constructor(readonly info: RlpxCloseInfo) {
    super(
      `rlpx: connection closed before Hello (reason ${info.reason}, ${info.remote ? "remote" : "local"}: ${info.error})`,
    );
  }
}

function whenReady(session: RlpxSession): Promise<RlpxSession> {
  return new Promise((resolve, reject) => {
    const onClose = (info: RlpxCloseInfo): void => reject(new RlpxConnectError(info));
    session.once("close", onClose);
    session.once("ready", () => {
      session.off("close", onClose);
      resolve(session);
    });
  });
}

/** Dials `host:port` expecting node `remoteId` (64 bytes); the handshake timeout covers the TCP connect too. */
export function dialRlpx(
  host: string,
  port: number,
  remoteId: Uint8Array,
  opts: RlpxLocalOptions,
  deps: { log?: Logger } = {},
): Promise<RlpxSession> {
  const socket = connect({ host, port });
  const session = new RlpxSession(socket, { ...opts, remoteId }, deps);
  session.start();
  return whenReady(session);
}

/** Runs the recipient side on an accepted socket. */
export function acceptRlpx(socket: Socket, opts: RlpxLocalOptions, deps: { log?: Logger } = {}): Promise<RlpxSession> {
  const session = new RlpxSession(socket, { ...opts, remoteId: null }, deps);
  session.start();
  return whenReady(session);
}

/**
 * Listens on `port` (0 = any) and calls `onSession` for every inbound session that completes Hello;
 * failed handshakes are dropped (and logged at debug). Resolves once listening.
 */
export function listenRlpx(
  port: number,
  host: string,
  opts: RlpxLocalOptions,
  onSession: (s: RlpxSession) => void,
  deps: { log?: Logger } = {},
): Promise<Server> {
  const server = createServer((socket) => {
    acceptRlpx(socket, opts, deps).then(onSession, (e: unknown) =>
      deps.log?.debug("Inbound RLPx handshake failed", { err: (e as Error).message }),
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}
