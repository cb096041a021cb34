/**
 * The process metrics both nodes serve: prom-client's defaults (CPU, memory, heap, event-loop lag,
 * GC, handles, file descriptors), with `process_open_fds` counted at most once every
 * `openFdsMaxAgeMs`. prom-client lists /proc/self/fd at every scrape, on the thread that answers it:
 * ~5 ms a scrape in an opal-exec holding a 10M-account RocksDB (cpu-profile of the scale bench,
 * which reads the node's RSS 4 times a second: 0.93 s of its main thread over 50 blocks).
 */
import { readdirSync } from "node:fs";
import type { Registry } from "prom-client";
import client from "prom-client";

/** How long a count of the open descriptors is served before it is taken again. */
export const OPEN_FDS_MAX_AGE_MS = 5000;

export function collectProcessMetrics(
  registry: Registry,
  opts: { readonly openFdsMaxAgeMs?: number; readonly now?: () => number } = {},
): void {
  client.collectDefaultMetrics({ register: registry });
  if (process.platform !== "linux" || registry.getSingleMetric("process_open_fds") === undefined) return;
  registry.removeSingleMetric("process_open_fds");
  const maxAge = opts.openFdsMaxAgeMs ?? OPEN_FDS_MAX_AGE_MS;
  const now = opts.now ?? (() => performance.now());
  let count = 0;
  let takenAt = Number.NEGATIVE_INFINITY;
  new client.Gauge({
    name: "process_open_fds",
    help: "Number of open file descriptors.",
    registers: [registry],
    collect() {
      const t = now();
      if (t - takenAt >= maxAge) {
        try {
          // Less the descriptor the listing itself held, as prom-client counts.
          count = readdirSync("/proc/self/fd").length - 1;
          takenAt = t;
        } catch {
          // as prom-client: the last count stays
        }
      }
      this.set(count);
    },
  });
}
