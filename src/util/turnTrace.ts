/**
 * Debug timing of the main thread's turns (issue 25: how long one turn of a block import keeps a
 * read waiting). Off unless `OPAL_DEBUG_TURNS=<file>` is set in the environment; then the process
 * records
 * - every turn of a named `Slicer` (the chain's mutation queue): its wall time, its CPU time on the
 *   main thread (Linux), and the steps that ran in it with their CPU ms (`turnTrace.step`, called
 *   by the import at each of its steps);
 * - the event loop's lateness: a 1 ms timer's delay past its due time, about the length of whatever
 *   held the loop (a turn of any kind: a request, a slice, a GC pause);
 * - GC pauses (perf_hooks "gc" entries, named by kind: scavenge, mark-compact, ...);
 * and writes a summary (counts by length, the longest of each with the steps in it and their ms) as
 * JSON to the file when the process exits. Recording starts with the first traced turn, so the
 * start-up is left out. `npm run bench -- scale` prints the summary when the variable is set.
 * Nothing is recorded, and no timer runs, when it is not set.
 */
import { openSync, readSync, writeFileSync } from "node:fs";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";

/** Upper bounds of the length buckets, ms (the last bucket is everything longer). */
const BUCKETS_MS = [1, 2, 4, 8, 16, 32, 64, 128] as const;
/** perf_hooks' GC kinds (NODE_PERFORMANCE_GC_*), named in the trace's GC pauses. */
function gcKind(kind: number | undefined): string {
  if (kind === constants.NODE_PERFORMANCE_GC_MINOR) return "scavenge";
  if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) return "mark-compact";
  if (kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL) return "incremental marking";
  if (kind === constants.NODE_PERFORMANCE_GC_WEAKCB) return "weak callbacks";
  return "gc";
}

/** Longest entries kept per kind. */
const KEEP = 40;

interface Entry {
  readonly ms: number;
  /** Seconds since the trace began. */
  readonly at: number;
  readonly what: string;
}

class Series {
  readonly counts = new Array<number>(BUCKETS_MS.length + 1).fill(0);
  readonly longest: Entry[] = [];
  count = 0;

  add(ms: number, at: number, what: string): void {
    this.count++;
    let i = 0;
    while (i < BUCKETS_MS.length && ms >= BUCKETS_MS[i]!) i++;
    this.counts[i]!++;
    if (this.longest.length === KEEP && ms <= this.longest[KEEP - 1]!.ms) return;
    this.longest.push({ ms, at, what });
    this.longest.sort((a, b) => b.ms - a.ms);
    if (this.longest.length > KEEP) this.longest.length = KEEP;
  }

  summary(): { count: number; buckets: Record<string, number>; longest: Entry[] } {
    const buckets: Record<string, number> = {};
    for (let i = 0; i <= BUCKETS_MS.length; i++) {
      const label = i < BUCKETS_MS.length ? `<${BUCKETS_MS[i]}` : `>=${BUCKETS_MS[BUCKETS_MS.length - 1]}`;
      buckets[label] = this.counts[i]!;
    }
    const round = (e: Entry): Entry => ({
      ms: Math.round(e.ms * 100) / 100,
      at: Math.round(e.at * 1000) / 1000,
      what: e.what,
    });
    return { count: this.count, buckets, longest: this.longest.map(round) };
  }
}

/** A point in time: wall clock and the main thread's CPU time (both ms). */
export interface TraceMark {
  readonly wall: number;
  readonly cpu: number;
}

/**
 * The calling thread's CPU time, ms, from Linux's /proc/thread-self/schedstat (ns on the CPU, first
 * field); NaN where there is none. A turn's wall time on a loaded machine includes the time other
 * processes had the core; its CPU time is what the turn itself cost.
 */
function threadCpuReader(): () => number {
  let fd: number;
  try {
    fd = openSync("/proc/thread-self/schedstat", "r");
  } catch {
    return () => Number.NaN;
  }
  const buf = Buffer.alloc(128);
  return () => {
    try {
      const n = readSync(fd, buf, 0, buf.length, 0);
      const text = buf.toString("latin1", 0, n);
      return Number(text.slice(0, text.indexOf(" "))) / 1e6;
    } catch {
      return Number.NaN;
    }
  };
}

export class TurnTrace {
  private readonly t0 = performance.now();
  private readonly cpuNow = threadCpuReader();
  private readonly slices = new Series();
  private readonly slicesCpu = new Series();
  private readonly lateness = new Series();
  private readonly gc = new Series();
  /** Steps run during the current turn, in order, each with its ms. */
  private steps: string[] = [];
  private current = "";
  private turnStart: TraceMark = { wall: 0, cpu: 0 };
  private stepStart = 0;
  private inTurn = false;
  /** Set by the first traced turn: the process's start-up is not counted. */
  private started = false;

  constructor(private readonly file: string) {
    // The loop's lateness: a 1 ms timer, rearmed each time it fires.
    let due = performance.now() + 1;
    const tick = (): void => {
      const now = performance.now();
      const late = now - due;
      if (late >= 1 && this.started) this.lateness.add(late, (now - this.t0) / 1000, "");
      due = now + 1;
      setTimeout(tick, 1).unref();
    };
    setTimeout(tick, 1).unref();
    const obs = new PerformanceObserver((list) => {
      if (this.started)
        for (const e of list.getEntries())
          this.gc.add(
            e.duration,
            (e.startTime - this.t0) / 1000,
            gcKind((e as { detail?: { kind?: number } }).detail?.kind),
          );
    });
    obs.observe({ entryTypes: ["gc"] });
    process.on("exit", () => this.write());
  }

  /** Names the step the running unit of a sliced job is in (kept until the next call). */
  step(label: string): void {
    const now = this.cpuOrWall();
    this.closeStep(now);
    this.current = label;
    this.stepStart = now;
  }

  /** Now on the clock steps are timed by: the thread's CPU time, else the wall clock. */
  private cpuOrWall(): number {
    const c = this.cpuNow();
    return Number.isNaN(c) ? performance.now() : c;
  }

  /** Adds the time since the current step began (or the turn did) to the turn's list. */
  private closeStep(now: number): void {
    if (this.current === "" || !this.inTurn) return;
    const start = Number.isNaN(this.turnStart.cpu) ? this.turnStart.wall : this.turnStart.cpu;
    const ms = now - Math.max(this.stepStart, start);
    this.steps.push(`${this.current} ${ms.toFixed(1)}`);
  }

  /** The current point in time (pass it to `record`). */
  mark(): TraceMark {
    return { wall: performance.now(), cpu: this.cpuNow() };
  }

  /** A Slicer turn begins (its units run until `endTurn`). */
  beginTurn(): void {
    this.started = true;
    this.inTurn = true;
    this.turnStart = this.mark();
    this.steps = [];
  }

  /** The turn begun by `beginTurn` ended; `name` is its Slicer's. */
  endTurn(name: string): void {
    const end = this.mark();
    this.closeStep(Number.isNaN(end.cpu) ? end.wall : end.cpu);
    this.inTurn = false;
    this.add(this.turnStart, end, `${name}: ${this.steps.join(" > ")}`);
  }

  private add(start: TraceMark, end: TraceMark, what: string): void {
    const at = (start.wall - this.t0) / 1000;
    this.slices.add(end.wall - start.wall, at, what);
    if (!Number.isNaN(start.cpu)) this.slicesCpu.add(end.cpu - start.cpu, at, what);
  }

  /** Records a stretch outside any Slicer, begun at `start` (`mark()`), as a turn named `what`. */
  record(what: string, start: TraceMark): void {
    this.started = true;
    this.add(start, this.mark(), what);
  }

  /** A job of the named Slicer ended: the next turn starts with no step named. */
  jobDone(): void {
    this.closeStep(this.cpuOrWall());
    this.current = "";
  }

  private write(): void {
    if (!this.started) return;
    const out = {
      seconds: (performance.now() - this.t0) / 1000,
      sliceTurns: this.slices.summary(),
      sliceTurnsCpu: this.slicesCpu.summary(),
      loopLateness: this.lateness.summary(),
      gcPauses: this.gc.summary(),
    };
    try {
      writeFileSync(this.file, JSON.stringify(out, null, 1));
    } catch {
      // a debug aid: a file that cannot be written is not the node's failure
    }
  }
}

const file = process.env.OPAL_DEBUG_TURNS;

/** The process's trace, or null (the default: nothing recorded). Only the main thread records. */
export const turnTrace: TurnTrace | null =
  file !== undefined && file !== "" && isMainThread ? new TurnTrace(file) : null;
