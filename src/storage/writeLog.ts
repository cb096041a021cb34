/**
 * A log of the rows one thread writes to a few tables, in shared memory, so that read caches in
 * other threads (the trieHash workers' trie-branch caches, issue 25) stay exactly the store's
 * contents. The owner's store appends every put and delete of a logged table after its batch is in
 * the store and before `write` returns (RocksKv.write); a reader, before it reads, replays what was
 * appended since its last replay into its cache, updating the keys it holds (CachedKv.noteWrite),
 * which is what the owner's own CachedKv does with the same batch. A reader that fell more than the
 * log's size behind, or whose replay the writer may have overwritten, has lost entries and must drop
 * its whole cache (`replay` answers false).
 *
 * Why the cache is never stale: every write of a logged table is in the log, in write order, before
 * the owner goes on (so before it posts the next task to a worker); a reader replays to the position
 * it saw at its task's start, so every key it holds has its last written value as of then, and a
 * row it reads from the store afterwards is at least that new. A write that lands while a task runs
 * is replayed by the next one.
 *
 * The log carries values, not only keys: the upper branches a root rewrites every block stay in a
 * worker's cache with the values the owner stored (whichever worker computed them, whether the
 * owner wrote that block's batch whole, in parts, or undid it), so no worker needs to keep its own
 * reply's rows pending until the owner confirms them: what it caches is only ever what was stored.
 *
 * Layout: a BigInt64 header (the write position, bytes since the log began; the epoch, which a
 * writer bumps to make every reader drop its cache) then the ring. A record at position p sits at
 * p mod size and never wraps: one that would not fit before the ring's end is preceded by a pad
 * byte and starts at the next lap. Record: table index (1 byte; PAD = 0xff), key length (1),
 * value length + 1 (2, little-endian; 0 = a delete), the key, the value.
 */

import type { WriteBatch } from "./kv.js";
import { TABLE_NAMES, type TableName } from "./tables.js";

/** What a reader needs (plain data for workerData). */
export interface WriteLogRef {
  readonly buffer: SharedArrayBuffer;
}

/** The tables the trie caches read: the stored branch records of the account and storage tries. */
export const TRIE_LOG_TABLES: readonly TableName[] = ["accountTrie", "storageTrie"];

/**
 * PERF: 8 MiB of ring: a 10M-account scale block writes ~3k trie rows (~0.4 MB), a storage-writes
 * block ~830, so a reader can miss ~20 big blocks before it drops its cache.
 */
export const WRITE_LOG_BYTES = 8 * 2 ** 20;

const HEADER = 16;
const POS = 0;
const EPOCH = 1;
const PAD = 0xff;
const RECORD_HEAD = 4;
/** The longest value a record holds; a longer one bumps the epoch instead (no trie row comes near). */
const MAX_VALUE = 0xfffe;

function tableIndexes(tables: readonly TableName[]): Map<TableName, number> {
  return new Map(tables.map((t) => [t, TABLE_NAMES.indexOf(t)] as const));
}

/** The writer's side: appends a batch's rows of the logged tables. One writer thread. */
export class WriteLog {
  private readonly head: BigInt64Array;
  private readonly ring: Uint8Array;
  private readonly size: number;
  private readonly index: Map<TableName, number>;
  private pos: number;

  constructor(bytes = WRITE_LOG_BYTES, tables: readonly TableName[] = TRIE_LOG_TABLES) {
    const buffer = new SharedArrayBuffer(HEADER + bytes);
    this.head = new BigInt64Array(buffer, 0, 2);
    this.ring = new Uint8Array(buffer, HEADER, bytes);
    this.size = bytes;
    this.index = tableIndexes(tables);
    this.pos = 0;
    this.ref = { buffer };
  }

  readonly ref: WriteLogRef;

  /** Appends the rows of `batch` in the logged tables, then publishes the new position. */
  append(batch: WriteBatch): void {
    const ops = batch.ops;
    let table: TableName | null = null;
    let ti = -1;
    let any = false;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (op.table !== table) {
        table = op.table;
        ti = this.index.get(table) ?? -1;
      }
      if (ti < 0) continue;
      any = true;
      const value = op.type === "put" ? op.value : null;
      if (op.key.length > 0xff || (value !== null && value.length > MAX_VALUE)) {
        this.dropAll();
        continue;
      }
      this.put(ti, op.key, value);
    }
    if (any) Atomics.store(this.head, POS, BigInt(this.pos));
  }

  /** Makes every reader drop its whole cache (the owner rewrote the logged tables wholesale). */
  dropAll(): void {
    Atomics.add(this.head, EPOCH, 1n);
  }

  private put(ti: number, key: Uint8Array, value: Uint8Array | null): void {
    const len = RECORD_HEAD + key.length + (value === null ? 0 : value.length);
    let at = this.pos % this.size;
    if (at + len > this.size) {
      this.ring[at] = PAD;
      this.pos += this.size - at;
      at = 0;
    }
    const r = this.ring;
    r[at] = ti;
    r[at + 1] = key.length;
    const vl = value === null ? 0 : value.length + 1;
    r[at + 2] = vl & 0xff;
    r[at + 3] = vl >>> 8;
    r.set(key, at + RECORD_HEAD);
    if (value !== null) r.set(value, at + RECORD_HEAD + key.length);
    this.pos += len;
  }
}

/** Called for each replayed row: its table, key and new value (undefined: deleted). Views into the log. */
export type WriteLogApply = (table: TableName, key: Uint8Array, value: Uint8Array | undefined) => void;

/** A reader's side: its position in the log. */
export class WriteLogReader {
  private readonly head: BigInt64Array;
  private readonly ring: Uint8Array;
  private readonly size: number;
  private pos: number;
  private epoch: bigint;

  /** Starts at the log's current position: a new reader has nothing cached yet. */
  constructor(ref: WriteLogRef) {
    this.head = new BigInt64Array(ref.buffer, 0, 2);
    this.ring = new Uint8Array(ref.buffer, HEADER);
    this.size = this.ring.length;
    this.pos = Number(Atomics.load(this.head, POS));
    this.epoch = Atomics.load(this.head, EPOCH);
  }

  /**
   * Applies every row written since the last replay, in order. False: entries were lost (the reader
   * fell a whole ring behind, the writer overwrote part of this replay, or the epoch moved), and the
   * caller must drop everything it caches; the reader is then at the current position.
   */
  replay(apply: WriteLogApply): boolean {
    const end = Number(Atomics.load(this.head, POS));
    const epoch = Atomics.load(this.head, EPOCH);
    const start = this.pos;
    this.pos = end;
    if (epoch !== this.epoch || end - start > this.size) {
      this.epoch = epoch;
      return false;
    }
    const r = this.ring;
    let p = start;
    while (p < end) {
      const at = p % this.size;
      const ti = r[at]!;
      if (ti === PAD) {
        p += this.size - at;
        continue;
      }
      const kl = r[at + 1]!;
      const vl = r[at + 2]! | (r[at + 3]! << 8);
      const k = at + RECORD_HEAD;
      const key = r.subarray(k, k + kl);
      apply(TABLE_NAMES[ti]!, key, vl === 0 ? undefined : r.subarray(k + kl, k + kl + vl - 1));
      p += RECORD_HEAD + kl + (vl === 0 ? 0 : vl - 1);
    }
    // The writer may have lapped this replay while it ran: then what it read may be torn.
    if (Number(Atomics.load(this.head, POS)) - start > this.size || Atomics.load(this.head, EPOCH) !== epoch) {
      this.pos = Number(Atomics.load(this.head, POS));
      this.epoch = Atomics.load(this.head, EPOCH);
      return false;
    }
    return true;
  }
}
