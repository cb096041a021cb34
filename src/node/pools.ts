/**
 * The one place worker pools are created. Each pool runs one worker entry file from workers/; the
 * file's extension follows the running module, so tests (tsx, .ts) and the built node (dist, .js)
 * both resolve their own tree. Pools are bounded (maxQueue) and report queue length and busy counts.
 *
 * Shutdown order matters once workers read a shared native DB handle: destroy pools first, then close
 * the DB (storage-bindings.md §3: the other order segfaults).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ResourceLimits } from "node:worker_threads";
import { Piscina } from "piscina";
import type { WorkerStoreRef } from "../storage/engine.js";
import type { TaskPool } from "../util/taskPool.js";

export type WorkerName = "sigRecover" | "trieHash" | "evmCall" | "kzgVerify";

const EXT = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

/** URL of a worker entry file: src/node → ../../workers, dist/src/node → dist/workers. */
export function workerUrl(name: WorkerName): string {
  return new URL(`../../workers/${name}${EXT}`, import.meta.url).href;
}

/**
 * What Piscina loads: workers/boot.cjs in both trees (CommonJS, so Piscina's require() never runs a
 * synchronous require(esm) that a termination could abort; see the file), which imports the real
 * entry named in workerData. From .ts sources it registers tsx in the worker first (Node 20's tsx
 * hooks do not reach worker threads). Workers read their own data from `workerData.data`.
 */
function piscinaTarget(name: WorkerName, data: unknown): { filename: string; workerData: WorkerData } {
  return {
    filename: new URL("../../workers/boot.cjs", import.meta.url).href,
    workerData: { opalEntry: workerUrl(name), tsx: EXT === ".ts", data },
  };
}

/** The workerData every Opal worker receives. */
export interface WorkerData {
  opalEntry: string;
  /** Register tsx in the worker before importing the entry (running from .ts sources). */
  tsx: boolean;
  data: unknown;
}

export interface PoolOptions {
  /** Worker threads; at least 1. */
  threads: number;
  /** Queue bound; default threads², at least 16 (code-models §9.3). */
  maxQueue?: number;
  /** Idle worker lifetime; default 30 s so pools do not thrash between blocks. */
  idleTimeoutMs?: number;
  /**
   * Tasks handed to one worker before it answers the first (Piscina's concurrentTasksPerWorker;
   * default 1). Above 1 the queued tasks travel to the worker back to back instead of one round trip
   * each, for pools of many small tasks (evmCall).
   */
  tasksPerWorker?: number;
  /**
   * Each worker's young generation, MiB (Worker resourceLimits.maxYoungGenerationSizeMb; V8 gives
   * new space two thirds of it). Default: V8's own, which grows a busy worker's new space to 32 MiB.
   */
  youngGenerationMb?: number;
}

/** A pool's figures at one moment (the metrics endpoint reads them at scrape time). */
export interface PoolStats {
  readonly name: WorkerName;
  readonly threads: number;
  readonly queued: number;
  readonly busy: number;
  readonly completed: number;
  /** Task run and queue-wait times in ms, Piscina's histograms (p50, p99). */
  readonly runMs: { readonly p50: number; readonly p99: number };
  readonly waitMs: { readonly p50: number; readonly p99: number };
}

/**
 * How long a pool's run and wait quantiles are reused (`PiscinaPool.stats`). Piscina's histograms
 * count every task since the pool started, so their quantiles move slowly, while reading them builds
 * two whole summaries (19 percentiles and the stddev each, ~0.5 ms a pool here) on the main thread.
 */
const QUANTILES_FRESH_MS = 5_000;

/** How long destroy() waits for workers still loading, and how often it looks. */
const LOAD_WAIT_MS = 30_000;
const LOAD_POLL_MS = 10;
/** How long `destroy` lets the tasks in flight finish before it terminates the workers. */
const SETTLE_WAIT_MS = 5_000;

export class PiscinaPool implements TaskPool {
  readonly threads: number;
  readonly name: WorkerName;
  private readonly pool: Piscina;
  private readonly maxQueue: number;
  private inFlight = 0;
  /** The run and wait quantiles last read, and when (see QUANTILES_FRESH_MS). */
  private quantiles: {
    readonly at: number;
    readonly runMs: PoolStats["runMs"];
    readonly waitMs: PoolStats["waitMs"];
  } | null = null;
  /** Threads whose entry module has loaded (or failed to): workers/boot.cjs reports each. */
  private readonly loaded = new Set<number>();

  constructor(name: WorkerName, opts: PoolOptions, workerData?: unknown) {
    if (!Number.isInteger(opts.threads) || opts.threads < 1) {
      throw new RangeError(`pool ${name}: threads must be an integer ≥ 1, got ${opts.threads}`);
    }
    this.threads = opts.threads;
    this.name = name;
    this.maxQueue = opts.maxQueue ?? Math.max(16, opts.threads * opts.threads);
    const target = piscinaTarget(name, workerData);
    this.pool = new Piscina({
      filename: target.filename,
      minThreads: 1,
      maxThreads: opts.threads,
      maxQueue: this.maxQueue,
      idleTimeout: opts.idleTimeoutMs ?? 30_000,
      concurrentTasksPerWorker: opts.tasksPerWorker ?? 1,
      workerData: target.workerData,
      ...(opts.youngGenerationMb === undefined
        ? {}
        : { resourceLimits: { maxYoungGenerationSizeMb: opts.youngGenerationMb } }),
    });
    this.pool.on("message", (m: unknown) => {
      const id = (m as { opalWorkerLoaded?: unknown } | null)?.opalWorkerLoaded;
      if (typeof id === "number") this.loaded.add(id);
    });
  }

  /** Worker threads alive that are still loading their entry module. */
  loadingThreads(): number {
    let n = 0;
    for (const w of this.pool.threads) if (!this.loaded.has(w.threadId)) n++;
    return n;
  }

  /** The V8 limits each live worker runs under, as the workers report them (diagnostics, tests). */
  workerLimits(): ResourceLimits[] {
    return this.pool.threads.map((w) => w.resourceLimits ?? {});
  }

  get queueSize(): number {
    return this.pool.queueSize;
  }

  get busy(): number {
    return this.inFlight - this.pool.queueSize;
  }

  /** The pool's figures: the counts as they are now, the quantiles at most QUANTILES_FRESH_MS old. */
  stats(): PoolStats {
    const now = performance.now();
    let q = this.quantiles;
    if (q === null || now - q.at >= QUANTILES_FRESH_MS) {
      const h = this.pool.histogram;
      const run = h.runTime;
      const wait = h.waitTime;
      const num = (v: number): number => (Number.isFinite(v) ? v : 0);
      q = {
        at: now,
        runMs: { p50: num(run.p50), p99: num(run.p99) },
        waitMs: { p50: num(wait.p50), p99: num(wait.p99) },
      };
      this.quantiles = q;
    }
    return {
      name: this.name,
      threads: this.threads,
      queued: this.pool.queueSize,
      busy: Math.max(0, this.busy),
      completed: this.pool.completed,
      runMs: q.runMs,
      waitMs: q.waitMs,
    };
  }

  canAcceptWork(): boolean {
    return this.pool.queueSize < this.maxQueue;
  }

  /** Runs `task`; an aborted `signal` rejects it and Piscina replaces the worker running it. */
  async run<T>(task: unknown, transfer: readonly ArrayBufferLike[] = [], signal?: AbortSignal): Promise<T> {
    this.inFlight++;
    try {
      return (await this.pool.run(task, {
        transferList: transfer as ArrayBuffer[],
        ...(signal === undefined ? {} : { signal }),
      })) as T;
    } finally {
      this.inFlight--;
    }
  }

  /** Starts the workers now instead of at first use (so the first batch does not pay thread start-up). */
  async warm(): Promise<void> {
    await Promise.all(Array.from({ length: this.threads }, () => this.run({ kind: "ping" })));
  }

  /**
   * Terminates the workers, once none is still loading its entry: a worker terminated while Node
   * instantiates its module graph or a native addon runs its init aborts the whole process
   * (workers/boot.cjs). The wait is bounded by `loadWaitMs`; loading takes ~0.1-1 s. Tasks in
   * flight are let settle first (up to SETTLE_WAIT_MS): a task whose work the caller already has
   * through shared memory (sharedClaims.ts: storage jobs, rows) still sends its answer, and piscina
   * raises an answer that arrives after `destroy` as an error event the process does not survive.
   */
  async destroy(loadWaitMs = LOAD_WAIT_MS): Promise<void> {
    const settled = Date.now() + SETTLE_WAIT_MS;
    while (this.inFlight > 0 && Date.now() < settled) await sleep(LOAD_POLL_MS);
    const end = Date.now() + loadWaitMs;
    while (this.loadingThreads() > 0 && Date.now() < end) await sleep(LOAD_POLL_MS);
    await this.pool.destroy();
  }
}

export interface PoolsConfig {
  /** Threads for batched sender recovery. */
  sigRecoverThreads: number;
  /** Threads for trie hashing. */
  trieHashThreads: number;
  /**
   * The node's store, shared with the trieHash workers so block import can update storage tries
   * there (trie/sharedStorageRoots.ts). Absent, or an engine that cannot share: import does it alone.
   */
  trieStore?: { shareWithWorkers(): WorkerStoreRef | null; releaseWorkers(): void };
  /**
   * Read-only execution (rpc/callOffload.ts) on the node's RocksDB: the store to share with the
   * workers (they read the chain config from it), the thread count and queue bound, the gas cap. Absent or 0 threads: calls run on the main thread.
   */
  evmCall?: {
    readonly threads: number;
    readonly maxQueue?: number;
    readonly store: { shareWithWorkers(): WorkerStoreRef | null; releaseWorkers(): void };
    readonly gasCap: bigint;
    /** The node's reply cap (--rpc.batch-response-max-size; 0 = none): traces in the pool are held to it. */
    readonly replyMaxSize?: number;
  };
}

export interface Pools {
  sigRecover: PiscinaPool;
  trieHash: PiscinaPool;
  /** The trieHash pool when its workers read the node's store (Blockchain.storagePool), else null. */
  storageRoots: PiscinaPool | null;
  /**
   * With storageRoots: a synced write on one of its workers (RocksKv.syncLog), which makes every
   * batch the node wrote before it durable while the node's thread goes on (Blockchain.logSync).
   */
  logSync: (() => Promise<void>) | null;
  evmCall: PiscinaPool | null;
  /** Destroys every pool, then releases the store handle the evmCall workers used. */
  destroy(): Promise<void>;
}

/** Default thread count: all cores but one for the main thread, and never fewer than one. */
export function defaultThreads(cores: number): number {
  return Math.max(1, cores - 1);
}

/**
 * The young generation of the pools whose tasks are small and short-lived (sender recovery, read-only
 * calls and traces, KZG checks): 12 MiB, so new space stays at 8 MiB. A busy worker's new space
 * otherwise grows to V8's 32 MiB as survivors accumulate (a soak's evmCall worker went 16 → 32 MiB
 * minutes into the run, docs/reliability.md); a scavenge there copies the survivors, not the space,
 * so the smaller space costs more scavenges of the same work. The trieHash pool keeps V8's default:
 * a big block's root allocates its nodes there.
 */
export const SMALL_TASK_YOUNG_MB = 12;

/** PERF: in flight per evmCall worker; see PoolOptions.tasksPerWorker and bench/README.md `rpc`. */
const EVM_CALL_TASKS_PER_WORKER = 8;

export function createPools(cfg: PoolsConfig): Pools {
  const sigRecover = new PiscinaPool("sigRecover", {
    threads: cfg.sigRecoverThreads,
    youngGenerationMb: SMALL_TASK_YOUNG_MB,
  });
  const trieRef = cfg.trieStore?.shareWithWorkers() ?? null;
  const trieHash = new PiscinaPool(
    "trieHash",
    { threads: cfg.trieHashThreads },
    trieRef === null ? undefined : { store: trieRef },
  );
  const ec = cfg.evmCall;
  let evmCall: PiscinaPool | null = null;
  const ref = ec !== undefined && ec.threads > 0 ? ec.store.shareWithWorkers() : null;
  if (ec !== undefined && ref !== null) {
    evmCall = new PiscinaPool(
      "evmCall",
      {
        threads: ec.threads,
        tasksPerWorker: EVM_CALL_TASKS_PER_WORKER,
        youngGenerationMb: SMALL_TASK_YOUNG_MB,
        ...(ec.maxQueue === undefined ? {} : { maxQueue: ec.maxQueue }),
      },
      { store: ref, gasCap: ec.gasCap, replyMaxSize: ec.replyMaxSize ?? 0 },
    );
  }
  let destroyed = false;
  return {
    sigRecover,
    trieHash,
    storageRoots: trieRef === null ? null : trieHash,
    logSync: trieRef === null ? null : () => trieHash.run<number>({ kind: "logSync" }).then(() => undefined),
    evmCall,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await Promise.all([sigRecover.destroy(), trieHash.destroy(), evmCall?.destroy()]);
      // Only once no worker can read through it (storage-bindings.md §3).
      if (evmCall !== null) ec?.store.releaseWorkers();
      if (trieRef !== null) cfg.trieStore?.releaseWorkers();
    },
  };
}
