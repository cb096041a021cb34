/**
 * The storage interface every engine implements (RocksDB in production, memory in unit tests).
 * Reads are synchronous: the EVM and the trie run synchronously (code-models §10.1) and the chosen
 * RocksDB binding reads synchronously through MultiGet (storage-bindings.md §7). Writes go through
 * one atomic batch across tables.
 */
import type { TableName } from "./tables.js";

export interface KvRange {
  /** Inclusive lower bound. */
  gte?: Uint8Array;
  /** Exclusive upper bound. */
  lt?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

export interface KvReader {
  /** Value of `key` in `table`, or undefined. Returned bytes belong to the caller. */
  get(table: TableName, key: Uint8Array): Uint8Array | undefined;
  /** Values of many keys in one call (one native MultiGet on RocksDB). */
  getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[];
  /** Entries of `table` in key order within `range`. */
  iterate(table: TableName, range?: KvRange): Iterable<[Uint8Array, Uint8Array]>;
}

export type BatchOp =
  | { readonly type: "put"; readonly table: TableName; readonly key: Uint8Array; readonly value: Uint8Array }
  | { readonly type: "del"; readonly table: TableName; readonly key: Uint8Array };

/** Ordered puts and deletes, applied atomically by `KvStore.write`. */
export class WriteBatch {
  readonly ops: BatchOp[] = [];
  put(table: TableName, key: Uint8Array, value: Uint8Array): this {
    this.ops.push({ type: "put", table, key, value });
    return this;
  }
  del(table: TableName, key: Uint8Array): this {
    this.ops.push({ type: "del", table, key });
    return this;
  }
  get size(): number {
    return this.ops.length;
  }
}

export interface KvStore extends KvReader {
  /** Applies every op of `batch` atomically; `sync` asks for an fsync before returning (checkpoints). */
  write(batch: WriteBatch, opts?: { sync?: boolean }): void;
  close(): Promise<void>;
}
