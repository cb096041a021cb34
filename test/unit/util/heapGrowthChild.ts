/**
 * Child of heapPolicy.test.ts: applies the heap policy for the percent in argv[2] ("" for V8's own),
 * keeps ~25 MB live, then churns objects that live long enough to be promoted and die in old
 * space, and prints the largest old-space size (committed bytes) it saw after the warm-up, as JSON.
 */
import { getHeapSpaceStatistics } from "node:v8";
import { applyHeapPolicy, HEAP_GROWTH_ENV } from "../../../src/util/heapPolicy.js";

const pct = process.argv[2] ?? "";
const err = applyHeapPolicy({ [HEAP_GROWTH_ENV]: pct === "" ? "0" : pct });
if (err !== undefined) throw new Error(err);

const live: unknown[] = [];
for (let i = 0; i < 200_000; i++) live.push({ a: i, b: `x${i}`, c: [i, i + 1] });
const ring: unknown[] = new Array(50_000);
let j = 0;
let peak = 0;
const STEPS = 300;
for (let step = 0; step < STEPS; step++) {
  for (let k = 0; k < 20_000; k++) ring[j++ % ring.length] = { v: new Array(8).fill(j), s: `y${j}` };
  if (step >= STEPS / 3) {
    const old = getHeapSpaceStatistics().find((s) => s.space_name === "old_space");
    peak = Math.max(peak, old?.space_size ?? 0);
  }
}
process.stdout.write(`${JSON.stringify({ peakOldSpace: peak, live: live.length })}\n`);
