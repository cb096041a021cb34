/**
 * How far V8 lets a heap grow past its live data before the next full collection, for Opal's
 * long-running processes (opal-exec, opal-node, opal-batcher, opal-devnet).
 *
 * V8 sizes each old generation as live bytes × a growing factor it picks per collection from the
 * mutator's allocation speed against the collector's: up to 4× when the heap limit is large (on this
 * 24 GB machine every isolate's is), 1.1× when memory is short. A node's live heaps are small and
 * flat, but it allocates briskly (RPC replies, block execution, traces), so the factor stays high
 * and RSS swings by tens of MB as garbage waits for a mark-compact, in the main isolate and in every
 * worker isolate alike. `--heap-growing-percent` fixes the factor for every isolate of the process;
 * V8 reads it at each collection, so setting it at the start of the process is enough.
 *
 * `OPAL_HEAP_GROWING_PERCENT` overrides it, like Go's GOGC: an integer percent, or 0 for V8's own
 * dynamic choice (docs/operations.md).
 */
import { setFlagsFromString } from "node:v8";

/** The default growing percent: old space at most 1.2× the live data after the last full GC. */
export const HEAP_GROWING_PERCENT = 20;
export const HEAP_GROWTH_ENV = "OPAL_HEAP_GROWING_PERCENT";
/** Above this a fixed factor buys nothing over V8's own (whose ceiling is 4×, i.e. 300%). */
export const MAX_HEAP_GROWING_PERCENT = 300;

/** The percent `env` asks for, or an error line; 0 means V8's own choice. */
export function heapGrowingPercent(env: NodeJS.ProcessEnv): number | string {
  const text = env[HEAP_GROWTH_ENV];
  if (text === undefined || text === "") return HEAP_GROWING_PERCENT;
  if (!/^\d{1,4}$/.test(text.trim()) || Number(text) > MAX_HEAP_GROWING_PERCENT) {
    return `${HEAP_GROWTH_ENV} must be an integer percent in [0, ${MAX_HEAP_GROWING_PERCENT}] (0: V8's own), got ${JSON.stringify(text)}`;
  }
  return Number(text);
}

/** Applies the policy to this process; returns the error line when the environment's value is bad. */
export function applyHeapPolicy(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const pct = heapGrowingPercent(env);
  if (typeof pct === "string") return pct;
  if (pct > 0) setFlagsFromString(`--heap-growing-percent=${pct}`);
  return undefined;
}
