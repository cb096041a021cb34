/**
 * Delays as Node's timers can take them. `setTimeout`, `setInterval` and `AbortSignal.timeout` hold
 * a signed 32-bit millisecond count: above 2^31-1 ms (24.8 days) they fire after 1 ms with a
 * TimeoutOverflowWarning, and `AbortSignal.timeout` throws on a fraction. An operator's duration
 * (Go syntax, up to 2562047h) therefore goes through `timerDelay` before it arms a timer: a huge
 * interval polls every 24.8 days instead of every millisecond, a huge timeout is as good as none.
 * What zero or a negative duration means (disabled, no timeout, a default) is the caller's
 * decision, made before it gets here.
 */

/** The longest delay a Node timer keeps: 2^31-1 ms = 596h31m23.647s. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A positive delay in ms as a timer takes it: rounded up to a whole ms, at most `MAX_TIMER_MS`. */
export function timerDelay(ms: number): number {
  if (!(ms > 0)) throw new RangeError(`timer delay must be positive, got ${ms} ms`);
  return Math.min(Math.ceil(ms), MAX_TIMER_MS);
}
