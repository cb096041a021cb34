/**
 * The metrics HTTP server (op-node `--metrics.enabled`, `--metrics.addr` 0.0.0.0, `--metrics.port`
 * 7300; op-service/metrics/server.go; opal-exec's geth-style `--metrics.addr`): `GET /metrics` and
 * geth's `GET /debug/metrics/prometheus` answer the Prometheus text exposition with the registry's
 * content type; other paths are 404 and other methods are 405.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { closeGracefully, listenOn } from "../util/httpServe.js";

export interface MetricsServerOptions {
  /** Listen address (`--metrics.addr`). */
  readonly addr: string;
  /** Listen port (`--metrics.port`); 0 picks a free port. */
  readonly port: number;
}

/** What the server exposes; node/metrics.ts `NodeMetrics` fits. */
export interface MetricsSource {
  readonly contentType: string;
  metricsText(): Promise<string>;
}

export interface MetricsServerDeps {
  readonly metrics: MetricsSource;
}

/** Where geth serves Prometheus text (metrics/prometheus). */
export const GETH_METRICS_PATH = "/debug/metrics/prometheus";

/** How long `close()` lets an in-flight scrape finish before cutting its connection. */
const CLOSE_GRACE_MS = 2000;

/** `host:port`, with IPv6 hosts bracketed. */
export class MetricsServer {
  /** The service name the node logs when closing it (node/rollupNode.ts `OwnedService`). */
  readonly name = "metrics server";
  private readonly server: Server;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly opts: MetricsServerOptions,
    private readonly deps: MetricsServerDeps,
  ) {
    this.server = createServer((req, res) => this.onRequest(req, res));
  }

  /**
   * Starts listening; resolves with the bound address (the real port when `port` is 0). Rejects
   * with a one-line Error naming the address when it cannot bind.
   */
  listen(): Promise<AddressInfo> {
    return listenOn(this.server, "metrics", this.opts.addr, this.opts.port);
  }

  address(): AddressInfo {
    const a = this.server.address();
    if (a === null || typeof a === "string") throw new Error("metrics server: not listening");
    return a;
  }

  /** Stops accepting connections; a scrape still running after the grace period is cut. Idempotent. */
  close(): Promise<void> {
    this.closing ??= closeGracefully(this.server, CLOSE_GRACE_MS);
    return this.closing;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    // op-node's path, and geth's (opal-exec).
    if (path !== "/metrics" && path !== GETH_METRICS_PATH) {
      reply(res, 404, "404 page not found\n");
      return;
    }
    if (req.method !== "GET") {
      reply(res, 405, "method not allowed\n", { Allow: "GET" });
      return;
    }
    this.deps.metrics.metricsText().then(
      (body) => reply(res, 200, body, { "Content-Type": this.deps.metrics.contentType }),
      (e: unknown) => reply(res, 500, `error gathering metrics: ${e instanceof Error ? e.message : String(e)}\n`),
    );
  }
}

function reply(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    ...headers,
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(body);
}
