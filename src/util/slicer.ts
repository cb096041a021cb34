/**
 * Long reads on the main thread in slices (issue 26): a job is a generator that yields between small
 * units of work (a few hundred logs, one traced tx); the `Slicer` runs the jobs' units for at most
 * `sliceMs` per event-loop turn in all, then yields to the loop (setImmediate, after I/O), so requests
 * that arrive meanwhile are answered within about one slice. At most `maxActive` jobs run at once
 * (round-robin, a unit each), the others wait in order: what the running jobs hold in memory is
 * bounded by `maxActive` results, not by how many clients asked.
 */

import { type TurnTrace, turnTrace } from "./turnTrace.js";

/**
 * A unit of a job: `yield` between units; the return value is the job's result. A job may also
 * yield a promise (work handed to a worker): it is parked, keeping its place, until the promise
 * settles, and resumes with its value (or the rejection thrown where it yielded).
 */
export type SliceJob<T> = Generator<undefined | PromiseLike<unknown>, T, unknown>;

export interface SlicerOptions {
  /** Main-thread time the jobs may take per event-loop turn, ms. */
  readonly sliceMs: number;
  /** Jobs run at once; later ones wait for a free place in order. */
  readonly maxActive: number;
  /** Names the slicer's turns in the debug trace (util/turnTrace.ts); unnamed slicers are not traced. */
  readonly name?: string;
}

/**
 * 2 ms a turn keeps a cheap request that arrives during a long read within a few ms of its answer
 * (one slice plus its own work), while the reads still get most of an otherwise idle loop; two jobs
 * at once let a short query proceed beside a long one without the memory of every waiting query.
 * Against 4 ms, interleaved runs of `npm run reliability -- rpcload` (load 4–8 on 2 cores) gave
 * eth_blockNumber p99 medians of 29 / 22 ms against 29 / 35 ms (whole-chain / 15-block queries,
 * three runs each); the machine's own noise was 7–38 ms in those minutes, so the edge is small.
 */
export const DEFAULT_SLICER_OPTIONS: SlicerOptions = Object.freeze({ sliceMs: 2, maxActive: 2 });

interface Running {
  readonly job: SliceJob<unknown>;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
  /** Waiting for a promise it yielded; not stepped meanwhile. */
  parked: boolean;
  /** What the job resumes with: the settled promise's value, or its rejection when `failed`. */
  input: unknown;
  failed: boolean;
}

type Step = "done" | "parked" | "more";

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === "object" && v !== null && typeof (v as PromiseLike<unknown>).then === "function";
}

export class Slicer {
  readonly opts: SlicerOptions;
  private readonly active: Running[] = [];
  private readonly waiting: Running[] = [];
  private scheduled = false;
  private next = 0;
  /** The debug trace when this slicer is named and tracing is on (util/turnTrace.ts), else null. */
  private readonly trace: TurnTrace | null;
  /** Event-loop turns given to jobs so far (for tests and metrics). */
  turns = 0;

  constructor(opts: Partial<SlicerOptions> = {}) {
    this.opts = Object.freeze({ ...DEFAULT_SLICER_OPTIONS, ...opts });
    this.trace = this.opts.name === undefined ? null : turnTrace;
  }

  /** Jobs running or waiting. */
  get pending(): number {
    return this.active.length + this.waiting.length;
  }

  /**
   * Runs `job`. When no other job is under way it first runs inline for up to one slice: a short
   * job then returns its result directly (no promise, no turn of the loop); a longer one, or any
   * job while others run, continues in slices and the result comes as a promise.
   */
  run<T>(job: SliceJob<T>): T | Promise<T> {
    let parked: PromiseLike<unknown> | null = null;
    if (this.pending === 0) {
      const end = performance.now() + this.opts.sliceMs;
      this.trace?.beginTurn();
      try {
        for (;;) {
          const r = job.next();
          if (r.done === true) {
            this.trace?.jobDone();
            return r.value;
          }
          if (isThenable(r.value)) {
            parked = r.value;
            break;
          }
          if (performance.now() >= end) break;
        }
      } finally {
        this.trace?.endTurn(this.opts.name ?? "");
      }
    }
    return new Promise<T>((resolve, reject) => {
      const item: Running = {
        job,
        resolve: resolve as (v: unknown) => void,
        reject,
        parked: false,
        input: undefined,
        failed: false,
      };
      if (this.active.length < this.opts.maxActive) this.active.push(item);
      else this.waiting.push(item);
      if (parked !== null) this.park(item, parked);
      this.schedule();
    });
  }

  /** Holds `item` (in its place) until `p` settles, then steps it again with the outcome. */
  private park(item: Running, p: PromiseLike<unknown>): void {
    item.parked = true;
    const wake = (failed: boolean, v: unknown): void => {
      item.parked = false;
      item.failed = failed;
      item.input = v;
      this.schedule();
    };
    p.then(
      (v) => wake(false, v),
      (e) => wake(true, e),
    );
  }

  private schedule(): void {
    if (this.scheduled || !this.active.some((a) => !a.parked)) return;
    this.scheduled = true;
    setImmediate(() => this.turn());
  }

  /** One unit of `item`: it ended (result or error handed over), parked on a promise, or has more. */
  private step(item: Running): Step {
    try {
      const input = item.input;
      item.input = undefined;
      let r: IteratorResult<undefined | PromiseLike<unknown>, unknown>;
      if (item.failed) {
        item.failed = false;
        r = item.job.throw(input);
      } else r = item.job.next(input);
      if (r.done === true) {
        this.trace?.jobDone();
        item.resolve(r.value);
        return "done";
      }
      if (isThenable(r.value)) {
        this.park(item, r.value);
        return "parked";
      }
      return "more";
    } catch (e) {
      this.trace?.jobDone();
      item.reject(e);
      return "done";
    }
  }

  /** One turn: units of the active jobs, round-robin, until the slice is spent or no job can run. */
  private turn(): void {
    this.scheduled = false;
    this.turns++;
    const end = performance.now() + this.opts.sliceMs;
    this.trace?.beginTurn();
    while (this.active.length > 0) {
      if (this.next >= this.active.length) this.next = 0;
      // The next job that is not parked, round-robin from `next`.
      let k = 0;
      while (k < this.active.length && this.active[(this.next + k) % this.active.length]!.parked) k++;
      if (k === this.active.length) break;
      this.next = (this.next + k) % this.active.length;
      const item = this.active[this.next]!;
      if (this.step(item) === "done") {
        this.active.splice(this.next, 1);
        const w = this.waiting.shift();
        if (w !== undefined) this.active.push(w);
      } else this.next++;
      if (performance.now() >= end) break;
    }
    this.trace?.endTurn(this.opts.name ?? "");
    this.schedule();
  }
}

/** Runs `job` to its end on this turn (the synchronous callers of a sliced job). */
export function runToEnd<T>(job: SliceJob<T>): T {
  for (;;) {
    const r = job.next();
    if (r.done === true) return r.value;
    if (isThenable(r.value)) throw new Error("runToEnd: a synchronous job yielded a promise");
  }
}
