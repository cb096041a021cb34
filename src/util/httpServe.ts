/**
 * The lifecycle every node:http server of Opal shares: listening with a one-line error an operator
 * can act on (port in use, address not on this host, no permission), and a graceful close that
 * lets requests in flight finish and cuts what is still open after a grace period.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

function hostPort(addr: string, port: number): string {
  return addr.includes(":") ? `[${addr}]:${port}` : `${addr}:${port}`;
}

/** One line for a server (`what`, e.g. "RPC") that could not listen on addr:port. */
export function listenError(what: string, addr: string, port: number, e: unknown): string {
  const where = hostPort(addr, port);
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") return `${what} server: ${where} is already in use`;
  if (code === "EADDRNOTAVAIL") return `${what} server: address ${addr} is not available on this machine`;
  if (code === "EACCES") return `${what} server: no permission to listen on ${where}`;
  return `${what} server: cannot listen on ${where}: ${code ?? String((e as Error).message).split("\n")[0]}`;
}

/** Listens; resolves the bound address (the real port for 0), or rejects with `listenError`'s line. */
export function listenOn(server: Server, what: string, addr: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (e: unknown): void => reject(new Error(listenError(what, addr, port, e)));
    server.once("error", onError);
    server.listen(port, addr, () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Stops accepting connections, closes idle keep-alive ones, lets requests in flight finish, and
 * closes whatever is still open after `graceMs`.
 */
export function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
