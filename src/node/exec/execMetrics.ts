/**
 * opal-exec's Prometheus metrics (`--metrics`): geth's `chain_head_block`, the worker pools
 * (`opal_pool_*{pool}`: threads, queued and busy tasks, tasks completed, run and queue-wait time
 * quantiles from Piscina's histograms), block import counters (`opal_chain_import_*`: blocks, gas,
 * and the seconds spent executing, writing the flat state and updating the state root; geth's
 * `chain/execution`, `chain/account/commits` and `chain/account/hashes` timers as totals), and the
 * process and Node runtime collectors. Every value is
 * read when scraped (prom-client `collect`), so nothing is recorded on the hot paths. A private
 * registry, never the global one. A scrape (`metricsText`) reads each pool's figures once
 * (PiscinaPool.stats; its quantiles at most every 5 s): the seven pool series reading them afresh,
 * each read building Piscina's two histogram summaries, held the event loop ~15 ms a scrape.
 */
import type { Counter, Gauge } from "prom-client";
import client from "prom-client";
import type { ImportTimings } from "../../chain/importBlock.js";
import type { PoolStats } from "../pools.js";
import { collectProcessMetrics } from "../processMetrics.js";

export interface ExecMetricsSource {
  /** The pools whose figures are exposed. */
  pools(): readonly { stats(): PoolStats }[];
  /** The head block number. */
  head(): number;
  /** The chain's import counters (Blockchain.importTimings). */
  importTimings?(): ImportTimings;
}

export class ExecMetrics {
  readonly registry: client.Registry;
  /** The pools' figures of the scrape under way (`metricsText`, read once at its start); null between scrapes. */
  private scrapeStats: readonly PoolStats[] | null = null;
  private readonly readPools: () => readonly PoolStats[];

  constructor(src: ExecMetricsSource, opts: { processMetrics?: boolean } = {}) {
    this.registry = new client.Registry();
    const registers = [this.registry];
    this.readPools = () => src.pools().map((p) => p.stats());
    const poolStats = (): readonly PoolStats[] => this.scrapeStats ?? this.readPools();
    const poolGauge = (name: string, help: string, pick: (s: PoolStats) => number): Gauge<"pool"> =>
      new client.Gauge<"pool">({
        name,
        help,
        labelNames: ["pool"],
        registers,
        collect(this: Gauge<"pool">) {
          for (const s of poolStats()) this.set({ pool: s.name }, pick(s));
        },
      });
    const quantiles = (name: string, help: string, pick: (s: PoolStats) => { p50: number; p99: number }) =>
      new client.Gauge<"pool" | "quantile">({
        name,
        help,
        labelNames: ["pool", "quantile"],
        registers,
        collect(this: Gauge<"pool" | "quantile">) {
          for (const s of poolStats()) {
            const q = pick(s);
            this.set({ pool: s.name, quantile: "0.5" }, q.p50 / 1000);
            this.set({ pool: s.name, quantile: "0.99" }, q.p99 / 1000);
          }
        },
      });
    new client.Gauge({
      name: "chain_head_block",
      help: "Number of the chain head block",
      registers,
      collect(this: Gauge) {
        this.set(src.head());
      },
    });
    poolGauge("opal_pool_threads", "Worker threads of the pool", (s) => s.threads);
    poolGauge("opal_pool_queue_length", "Tasks waiting for a worker", (s) => s.queued);
    poolGauge("opal_pool_busy_workers", "Tasks running in workers", (s) => s.busy);
    new client.Counter<"pool">({
      name: "opal_pool_tasks_completed_total",
      help: "Tasks the pool has completed",
      labelNames: ["pool"],
      registers,
      collect(this: Counter<"pool">) {
        this.reset();
        for (const s of poolStats()) if (s.completed > 0) this.inc({ pool: s.name }, s.completed);
      },
    });
    quantiles("opal_pool_task_run_seconds", "Task run time in a worker (quantiles)", (s) => s.runMs);
    quantiles("opal_pool_task_wait_seconds", "Task wait time in the queue (quantiles)", (s) => s.waitMs);
    const importCounter = (name: string, help: string, pick: (t: ImportTimings) => number): void => {
      const read = src.importTimings;
      if (read === undefined) return;
      new client.Counter({
        name,
        help,
        registers,
        collect(this: Counter) {
          this.reset();
          this.inc(pick(read()));
        },
      });
    };
    importCounter("opal_chain_import_blocks_total", "Blocks imported (executed and stored)", (t) => t.blocks);
    importCounter("opal_chain_import_gas_total", "Gas of the blocks imported", (t) => t.gas);
    importCounter(
      "opal_chain_import_execution_seconds_total",
      "Time executing imported blocks",
      (t) => t.executeMs / 1000,
    );
    importCounter(
      "opal_chain_import_state_write_seconds_total",
      "Time writing imported blocks' flat state changes",
      (t) => t.stateWriteMs / 1000,
    );
    importCounter(
      "opal_chain_import_root_seconds_total",
      "Time updating the tries to imported blocks' state roots (with their writes)",
      (t) => t.rootMs / 1000,
    );
    importCounter(
      "opal_chain_import_root_trie_reads_total",
      "Stored trie branches the roots computed on a trieHash worker read (from its trie cache or the store)",
      (t) => t.remoteRootTrieReads,
    );
    importCounter(
      "opal_chain_import_root_trie_store_reads_total",
      "Stored trie branches the roots computed on a trieHash worker read from the store (missed its trie cache)",
      (t) => t.remoteRootTrieStoreReads,
    );
    if (opts.processMetrics ?? true) collectProcessMetrics(this.registry);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  async metricsText(): Promise<string> {
    this.scrapeStats = this.readPools();
    try {
      return (await this.registry.metrics()).replace(/^([^#\n][^\n]*) Nan$/gm, "$1 NaN");
    } finally {
      this.scrapeStats = null;
    }
  }
}
