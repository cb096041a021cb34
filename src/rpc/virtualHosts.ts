/**
 * Host-header check of the HTTP JSON-RPC server, as geth's `--http.vhosts` (node/rpcstack.go
 * virtualHostHandler): no Host, an IP literal, `*` in the list, or a listed name (case-insensitive,
 * port ignored) passes; anything else is 403 "invalid host specified". Guards against DNS rebinding.
 */
import { isIP } from "node:net";

export class VirtualHosts {
  private readonly hosts: Set<string>;
  private readonly all: boolean;

  constructor(vhosts: readonly string[]) {
    this.hosts = new Set(vhosts.map((h) => h.toLowerCase()));
    this.all = this.hosts.has("*");
  }

  allows(hostHeader: string | undefined): boolean {
    if (!hostHeader) return true;
    const host = splitHost(hostHeader).toLowerCase();
    if (isIP(host) !== 0) return true;
    return this.all || this.hosts.has(host);
  }
}

/** Go net.SplitHostPort's host part, or the whole value when it does not split (no port, bad brackets). */
function splitHost(hostport: string): string {
  if (hostport.startsWith("[")) {
    const end = hostport.indexOf("]");
    if (end < 0 || hostport[end + 1] !== ":" || hostport.indexOf(":", end + 2) >= 0) return hostport;
    return hostport.slice(1, end);
  }
  const i = hostport.indexOf(":");
  if (i < 0 || hostport.indexOf(":", i + 1) >= 0) return hostport; // missing port / too many colons
  return hostport.slice(0, i);
}
