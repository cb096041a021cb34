/**
 * Flag pieces both binaries use: value checks, port/host/path shapes, and op-service's profiler
 * options, which opal-node and opal-exec take alike. No imports from other flag tables (execFlags
 * and nodeFlags both import this one).
 */
import { isIP } from "node:net";

const HOSTNAME_RE =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** An IP address or a hostname. */
export function checkHost(text: string): string | undefined {
  if (isIP(text) !== 0 || HOSTNAME_RE.test(text)) return undefined;
  return "not an IP address or hostname";
}

/** A path that is not empty and has no NUL byte. */
export function checkPath(text: string): string | undefined {
  if (text.trim() === "") return "empty path";
  if (text.includes("\0")) return "path contains a NUL byte";
  return undefined;
}

export const PORT = { type: "int", min: 0, max: 65535, expects: "a port number in [0, 65535]" } as const;
export const HOST = { type: "string", validate: checkHost, expects: "an IP address or hostname" } as const;
export const PATH = { type: "path", validate: checkPath, expects: "a non-empty path" } as const;

export const METRICS = "METRICS AND PROFILING";

/** Go's pprof profile types; all parse, but only these have a Node equivalent (the runtime refuses the rest). */
export const PPROF_TYPES = ["cpu", "heap", "goroutine", "threadcreate", "block", "mutex", "allocs"] as const;
export const NODE_PPROF_TYPES: readonly string[] = ["cpu", "heap"];

/** op-service's profiler options (oppprof/cli.go); opal-exec takes the same ones. */
export const PPROF_FLAGS = {
  "pprof.addr": { ...HOST, default: "0.0.0.0", category: METRICS, help: "pprof listening address" },
  "pprof.enabled": { type: "bool", category: METRICS, help: "Enable the pprof server" },
  "pprof.path": {
    ...PATH,
    category: METRICS,
    help: "pprof file path. If it is a directory, the path is {dir}/{profileType}.prof",
  },
  "pprof.port": { ...PORT, default: 6060, category: METRICS, help: "pprof listening port" },
  "pprof.type": {
    type: "enum",
    values: PPROF_TYPES,
    category: METRICS,
    help: "pprof profile type (Go's set; only cpu and heap exist under Node)",
  },
} as const;
