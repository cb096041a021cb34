/**
 * A store that can lose power (issue 26, point 6). SIGKILL keeps every write the OS already has; an
 * OS crash or power cut keeps only what reached the disk. RocksDB appends each batch to its log in
 * order and `sync: true` fsyncs the log, so after power loss the store holds a prefix of the batches:
 * at least every batch up to the last synced one, and any number of the later ones (the log's pages
 * reach the disk in no promised order, but recovery stops at the first torn record). LMDB's
 * overlapping sync keeps a prefix as well.
 *
 * PowerLossKv runs on memory and keeps two things: the live store every read sees, and the durable
 * image (batches up to the last synced one) plus the unsynced batches after it. `image(kept)` is the
 * store as it would reopen after a power cut now, keeping the first `kept` unsynced batches (0: every
 * write since the last sync point is discarded). `syncLog()` is the node's off-thread log sync
 * (RocksKv.syncLog on a worker): it makes durable the batches written before it, a turn later.
 */
import type { DbEngine, OpenedStore, SequencedKv } from "../../src/storage/engine.js";
import type { KvCursor, KvCursorOptions, KvRange, WriteBatch } from "../../src/storage/kv.js";
import { WriteBatch as Batch } from "../../src/storage/kv.js";
import { MemoryKv } from "../../src/storage/memory.js";
import { TABLE_NAMES, type TableName } from "../../src/storage/tables.js";

/** A deep copy of `b` (the writer may reuse its buffers after the write). */
function copyBatch(b: WriteBatch): Batch {
  const c = new Batch();
  for (const op of b.ops) {
    if (op.type === "put") c.put(op.table, op.key.slice(), op.value.slice());
    else c.del(op.table, op.key.slice());
  }
  return c;
}

function copyStore(from: MemoryKv): MemoryKv {
  const to = new MemoryKv();
  for (const t of TABLE_NAMES) {
    const b = new Batch();
    for (const [k, v] of from.iterate(t)) b.put(t, k, v);
    to.write(b);
  }
  return to;
}

export class PowerLossKv implements SequencedKv {
  private readonly live: MemoryKv;
  private readonly durable: MemoryKv;
  private unsynced: Batch[] = [];
  sequence = 0;
  /** Synced writes so far. */
  syncs = 0;
  /** Called after every write (a test takes its power-cut images here, at any point of a run). */
  onWrite: ((kv: PowerLossKv) => void) | null = null;

  /** A store holding `image`'s rows (a fresh one when absent); all of them count as durable. */
  constructor(image?: MemoryKv) {
    this.live = image === undefined ? new MemoryKv() : copyStore(image);
    this.durable = image === undefined ? new MemoryKv() : copyStore(image);
  }

  /** Batches written since the last synced one. */
  get unsyncedBatches(): number {
    return this.unsynced.length;
  }

  get(table: TableName, key: Uint8Array): Uint8Array | undefined {
    return this.live.get(table, key);
  }

  getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    return this.live.getMany(table, keys);
  }

  iterate(table: TableName, range?: KvRange): Iterable<[Uint8Array, Uint8Array]> {
    return this.live.iterate(table, range);
  }

  cursor(table: TableName, opts?: KvCursorOptions): KvCursor {
    return this.live.cursor(table, opts);
  }

  write(batch: WriteBatch, opts?: { sync?: boolean }): void {
    this.live.write(batch);
    this.sequence++;
    this.unsynced.push(copyBatch(batch));
    if (opts?.sync === true) this.makeDurable(this.unsynced.length);
    this.onWrite?.(this);
  }

  /** The first `n` unsynced batches reach the disk. */
  private makeDurable(n: number): void {
    for (const b of this.unsynced.slice(0, n)) this.durable.write(b);
    this.unsynced = this.unsynced.slice(n);
    this.syncs++;
  }

  /**
   * A log sync off the writer's thread: the batches written before the call are durable when it
   * resolves, on a later turn (batches written meanwhile stay unsynced, as on RocksDB they may).
   */
  async syncLog(): Promise<void> {
    const n = this.unsynced.length;
    await new Promise((resolve) => setImmediate(resolve));
    this.makeDurable(n);
  }

  /** A row of the durable image (what a power cut now keeps at least). */
  durableRow(table: TableName, key: Uint8Array): Uint8Array | undefined {
    return this.durable.get(table, key);
  }

  /** The store after a power cut now: the durable image and the first `kept` unsynced batches. */
  image(kept = 0): MemoryKv {
    const img = copyStore(this.durable);
    for (const b of this.unsynced.slice(0, kept)) img.write(b);
    return img;
  }

  /** Closing changes nothing that survives: a clean close is not a power cut. */
  async close(): Promise<void> {
    await this.live.close();
  }

  /**
   * This store as ExecNode opens one (`ExecNodeDeps.openStore`); worker threads get no view. With
   * `logSync` the node syncs through `syncLog()` (as on RocksDB, off its thread), else inline.
   */
  opened(engine: DbEngine = "rocksdb", opts: { readonly logSync?: boolean } = {}): OpenedStore {
    return {
      engine,
      kv: this,
      shareWithWorkers: () => null,
      releaseWorkers: () => undefined,
      ...(opts.logSync === true ? { syncLog: () => this.syncLog() } : {}),
      close: () => this.close(),
    };
  }
}
