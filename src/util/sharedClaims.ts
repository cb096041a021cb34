/**
 * Work items shared between a thread that needs them and worker threads that produce them ahead of
 * it (tx/sharedRecovery.ts, trie/sharedStorageRoots.ts). The items' inputs and outputs live in
 * SharedArrayBuffers; a `state` Int32Array holds one word per item — pending, claimed or done — and,
 * at index n, the workers' cursor. Whoever moves an item from pending to claimed (compare-and-swap)
 * computes it, writes its output, then stores done; Atomics order the output before the word, so a
 * reader that loads done sees the output. No item is computed twice.
 */
export const PENDING = 0;
export const CLAIMED = 1;
export const DONE = 2;

export function sharedBytes(n: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(Math.max(n, 1)), 0, n);
}

export function sharedInts(n: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * Math.max(n, 1)), 0, n);
}

/** The state words of `n` items plus the cursor, all pending. */
export function claimState(n: number): Int32Array {
  return sharedInts(n + 1);
}

/** Takes item i when it is still pending. */
export function claim(state: Int32Array, i: number): boolean {
  return Atomics.compareExchange(state, i, PENDING, CLAIMED) === PENDING;
}

/** Item i's output is written: mark it done and wake a thread waiting for it. */
export function publish(state: Int32Array, i: number): void {
  Atomics.store(state, i, DONE);
  Atomics.notify(state, i);
}

export function isDone(state: Int32Array, i: number): boolean {
  return Atomics.load(state, i) === DONE;
}

/** Waits up to `ms` for a claimed item i to be done; true when it is. */
export function waitDone(state: Int32Array, i: number, ms: number): boolean {
  if (isDone(state, i)) return true;
  Atomics.wait(state, i, CLAIMED, ms);
  return isDone(state, i);
}

/** The worker side: computes every item it can claim from the cursor on; returns how many. */
export function drainFromCursor(state: Int32Array, compute: (i: number) => void): number {
  const n = state.length - 1;
  let done = 0;
  for (;;) {
    const i = Atomics.add(state, n, 1);
    if (i >= n) return done;
    if (!claim(state, i)) continue;
    compute(i);
    publish(state, i);
    done++;
  }
}
