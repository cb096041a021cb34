/**
 * Storage engines: RocksKv and LmdbKv (with MemoryKv for reference) on 100k keys of 32 B with 100 B values in
 * one table: batch put, sync get (hit, miss), getMany of 64, bounded and full iteration.
 * The RocksDB copy is closed and reopened after loading so reads hit SST files (WAL recovery
 * flushes the memtable), not the memtable. Standalone: `npx tsx bench/storage.bench.ts`.
 */
import { randomFillSync } from "node:crypto";
import { readdirSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { pathToFileURL } from "node:url";
import { type KvStore, WriteBatch } from "../src/storage/kv.js";
import { LmdbKv } from "../src/storage/lmdb.js";
import { MemoryKv } from "../src/storage/memory.js";
import { RocksKv } from "../src/storage/rocksdb.js";
import type { TableName } from "../src/storage/tables.js";
import { makeTmpDir, removeDir } from "../test/utils/tmpDir.js";
import { type BenchRow, type BenchTask, measure } from "./lib.js";

export interface StorageBenchOptions {
  /** Keys loaded before reads (default 100k). */
  keys?: number;
  /** RocksDB block cache for the table, bytes (default 64 MiB: the data set fits, warm-cache numbers). */
  cacheBytes?: number;
  /** tinybench time budget per task, ms (default 800). */
  timeMs?: number;
}

const TABLE: TableName = "hashedStorage";
const KEY_BYTES = 32;
const VALUE_BYTES = 100;
const PUT_BATCH = 1000;
const READS_PER_CALL = 100;
const MANY = 64;
const ITER_ROWS = 1000;

/** `n` random byte strings of `size` bytes, views into one buffer. */
function randomKeys(n: number, size: number): Uint8Array[] {
  const pool = randomFillSync(new Uint8Array(n * size));
  return Array.from({ length: n }, (_, i) => pool.subarray(i * size, (i + 1) * size));
}

function load(kv: KvStore, keys: readonly Uint8Array[]): void {
  const value = randomFillSync(new Uint8Array(VALUE_BYTES));
  for (let i = 0; i < keys.length; i += 10_000) {
    const b = new WriteBatch();
    for (const k of keys.slice(i, i + 10_000)) b.put(TABLE, k, value);
    kv.write(b);
  }
}

/** A random permutation of 0..n-1 (reads walk it, so every call reads different keys). */
function shuffled(n: number): Uint32Array {
  const p = new Uint32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  return p;
}

function tasks(
  engine: string,
  kv: KvStore,
  keys: Uint8Array[],
  misses: Uint8Array[],
  fresh: Uint8Array[],
): BenchTask[] {
  const order = shuffled(keys.length);
  let pos = 0;
  const nextKey = (): Uint8Array => {
    if (pos === order.length) pos = 0;
    return keys[order[pos++]!]!;
  };
  let missPos = 0;
  let freshPos = 0;
  const value = randomFillSync(new Uint8Array(VALUE_BYTES));
  const putBatch = (sync: boolean): void => {
    const b = new WriteBatch();
    for (let i = 0; i < PUT_BATCH; i++) {
      if (freshPos === fresh.length) freshPos = 0;
      b.put(TABLE, fresh[freshPos++]!, value);
    }
    kv.write(b, { sync });
  };
  const many: Uint8Array[] = new Array(MANY);
  const out: BenchTask[] = [
    {
      name: `${engine} get hit`,
      items: READS_PER_CALL,
      fn: () => {
        for (let i = 0; i < READS_PER_CALL; i++) if (kv.get(TABLE, nextKey()) === undefined) throw new Error("miss");
      },
    },
    {
      name: `${engine} get miss`,
      items: READS_PER_CALL,
      fn: () => {
        for (let i = 0; i < READS_PER_CALL; i++) {
          if (missPos === misses.length) missPos = 0;
          if (kv.get(TABLE, misses[missPos++]!) !== undefined) throw new Error("hit");
        }
      },
    },
    {
      name: `${engine} getMany ${MANY}`,
      items: MANY,
      fn: () => {
        for (let i = 0; i < MANY; i++) many[i] = nextKey();
        kv.getMany(TABLE, many);
      },
    },
    {
      name: `${engine} iterate ${ITER_ROWS} from random key`,
      items: ITER_ROWS,
      fn: () => {
        let n = 0;
        for (const _ of kv.iterate(TABLE, { gte: nextKey(), limit: ITER_ROWS })) n++;
        return n;
      },
    },
    {
      name: `${engine} iterate whole table (${keys.length / 1000}k)`,
      items: keys.length,
      fn: () => {
        let n = 0;
        for (const _ of kv.iterate(TABLE)) n++;
        if (n < keys.length) throw new Error(`scanned ${n}`);
      },
    },
    { name: `${engine} batch put ${PUT_BATCH}`, items: PUT_BATCH, fn: () => putBatch(false) },
  ];
  if (engine !== "memory")
    out.push({ name: `${engine} batch put ${PUT_BATCH} sync:true`, items: PUT_BATCH, fn: () => putBatch(true) });
  return out;
}

/** Runs the storage benches; returns the rows in bench/lib.ts shape plus the setup. */
export async function runStorageBench(opts: StorageBenchOptions = {}): Promise<Record<string, unknown>> {
  const n = opts.keys ?? 100_000;
  const cacheBytes = opts.cacheBytes ?? 64 * 1024 * 1024;
  const time = opts.timeMs ?? 800;
  const keys = randomKeys(n, KEY_BYTES);
  const misses = randomKeys(n, KEY_BYTES);
  const fresh = randomKeys(n, KEY_BYTES);
  const rows: BenchRow[] = [];

  let sstFiles = 0;
  // Each disk engine: load, close and reopen (reads then come from disk files, not write buffers).
  const engines: [string, (dir: string) => Promise<KvStore>][] = [
    ["rocks", (d) => RocksKv.open(d, { tableCacheBytes: { [TABLE]: cacheBytes } })],
    ["lmdb", (d) => LmdbKv.open(d)],
  ];
  for (const [name, open] of engines) {
    const dir = makeTmpDir(`opal-bench-${name}-`);
    try {
      const first = await open(dir);
      load(first, keys);
      await first.close();
      const kv = await open(dir);
      if (name === "rocks") sstFiles = readdirSync(dir).filter((f) => f.endsWith(".sst")).length;
      try {
        rows.push(...(await measure("storage", tasks(name, kv, keys, misses, fresh), { time })));
      } finally {
        await kv.close();
      }
    } finally {
      removeDir(dir);
    }
  }

  const mem = new MemoryKv();
  load(mem, keys);
  rows.push(...(await measure("storage", tasks("memory", mem, keys, misses, fresh), { time, iterations: 3 })));
  await mem.close();

  return {
    setup: {
      keys: n,
      keyBytes: KEY_BYTES,
      valueBytes: VALUE_BYTES,
      table: TABLE,
      rocksCacheBytes: cacheBytes,
      sstFiles,
    },
    machine: { node: process.version, cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? "unknown" },
    rows,
  };
}

/** bench/run.ts section entry (same rows). */
export async function run(): Promise<BenchRow[]> {
  return (await runStorageBench()).rows as BenchRow[];
}

function fmt(x: number): string {
  return x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toPrecision(3);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const res = await runStorageBench();
  console.log(JSON.stringify({ setup: res.setup, machine: res.machine }));
  console.table(
    (res.rows as BenchRow[]).map((r) => ({
      name: r.name,
      "calls/s": fmt(r.opsPerSec),
      "items/s": fmt(r.opsPerSec * r.items),
      "µs/item": fmt((r.meanMs * 1000) / r.items),
      samples: r.samples,
    })),
  );
}
