/**
 * Long reads on the main thread in slices (issue 26): a job is a generator that yields between small
 * units of work (a few hundred logs, one traced tx); the `Slicer` runs the jobs' units for at most
 * `sliceMs` per event-loop turn in all, then yields to the loop (setImmediate, after I/O), so requests
 * that arrive meanwhile are answered within about one slice. At most `maxActive` jobs run at once
 * (round-robin, a unit each), the others wait in order: what the running jobs hold in memory is
 * bounded by `maxActive` results, not by how many clients asked.
 */

/** A unit of a job: `yield` between units; the return value is the job's result. */
export type SliceJob<T> = Generator<void, T, void>;

export interface SlicerOptions {
  /** Main-thread time the jobs may take per event-loop turn, ms. */
  readonly sliceMs: number;
  /** Jobs run at once; later ones wait for a free place in order. */
  readonly maxActive: number;
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
}

export class Slicer {
  readonly opts: SlicerOptions;
  private readonly active: Running[] = [];
  private readonly waiting: Running[] = [];
  private scheduled = false;
  private next = 0;
  /** Event-loop turns given to jobs so far (for tests and metrics). */
  turns = 0;

  constructor(opts: Partial<SlicerOptions> = {}) {
    this.opts = Object.freeze({ ...DEFAULT_SLICER_OPTIONS, ...opts });
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
    if (this.pending === 0) {
      const end = performance.now() + this.opts.sliceMs;
      for (;;) {
        const r = job.next();
        if (r.done === true) return r.value;
        if (performance.now() >= end) break;
      }
    }
    return new Promise<T>((resolve, reject) => {
      const item: Running = { job, resolve: resolve as (v: unknown) => void, reject };
      if (this.active.length < this.opts.maxActive) this.active.push(item);
      else this.waiting.push(item);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.active.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.turn());
  }

  /** One turn: units of the active jobs, round-robin, until the slice is spent or no job is left. */
  private turn(): void {
    this.scheduled = false;
    this.turns++;
    const end = performance.now() + this.opts.sliceMs;
    while (this.active.length > 0) {
      if (this.next >= this.active.length) this.next = 0;
      const item = this.active[this.next]!;
      let done = false;
      try {
        const r = item.job.next();
        if (r.done === true) {
          done = true;
          item.resolve(r.value);
        }
      } catch (e) {
        done = true;
        item.reject(e);
      }
      if (done) {
        this.active.splice(this.next, 1);
        const w = this.waiting.shift();
        if (w !== undefined) this.active.push(w);
      } else this.next++;
      if (performance.now() >= end) break;
    }
    this.schedule();
  }
}
