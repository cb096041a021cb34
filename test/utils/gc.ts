/**
 * Full garbage collections for tests that measure retained memory, without starting node with
 * `--expose-gc`: the flag set at run time exposes `gc` to contexts created after it.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | null = null;

/**
 * Collects until `process.memoryUsage().arrayBuffers` stops falling (at most 10 rounds): V8 frees
 * the backing stores of dead ArrayBuffers off the main thread after a GC, so one synchronous
 * collection still counts them.
 */
export async function fullGc(): Promise<void> {
  if (gc === null) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  let last = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 10; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 5));
    const now = process.memoryUsage().arrayBuffers;
    if (now >= last) return;
    last = now;
  }
}
