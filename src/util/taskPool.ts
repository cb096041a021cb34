/**
 * The interface lower layers use to offload batch work to worker threads, without knowing about
 * Piscina (src/node/pools.ts implements it). Consumers pass plain data or transferable buffers and
 * decide themselves when a batch is too small to be worth the hop (code-models §10.9).
 */
export interface TaskPool {
  /** Worker threads this pool may run (≥ 1). */
  readonly threads: number;
  /** Tasks waiting for a free worker. */
  readonly queueSize: number;
  /** Tasks currently running in a worker. */
  readonly busy: number;
  /** False when the queue is full: the caller should run on the main thread or reject. */
  canAcceptWork(): boolean;
  /** Runs `task` in a worker; buffers in `transfer` are moved, not copied (and become unusable here). */
  run<T>(task: unknown, transfer?: readonly ArrayBufferLike[]): Promise<T>;
}

/**
 * Workers free to take a task now. A task runs at once only on an idle worker: one posted while the
 * pool still counts a worker busy waits in the queue until the posting thread next yields — which a
 * synchronous caller (block import sharing work through shared buffers) does not do.
 */
export function idleThreads(pool: TaskPool): number {
  return Math.max(0, pool.threads - pool.busy - pool.queueSize);
}
