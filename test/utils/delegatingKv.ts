/**
 * A store that passes every call to `inner`, for tests to override one (a write that counts, or
 * fails as a crash would). `noteWritten` is passed on too unless `shared` is false: a store other
 * threads cannot write (storage/sharedRows.ts then leaves the rows to the importing thread).
 */
import type { KvCursor, KvCursorOptions, KvRange, KvStore, WriteBatch } from "../../src/storage/kv.js";
import type { TableName } from "../../src/storage/tables.js";

export class DelegatingKv implements KvStore {
  readonly noteWritten: ((b: WriteBatch) => void) | undefined;

  constructor(
    readonly inner: KvStore,
    shared = true,
  ) {
    this.noteWritten = shared ? inner.noteWritten : undefined;
  }

  get(t: TableName, k: Uint8Array): Uint8Array | undefined {
    return this.inner.get(t, k);
  }

  getMany(t: TableName, ks: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    return this.inner.getMany(t, ks);
  }

  iterate(t: TableName, r?: KvRange): Iterable<[Uint8Array, Uint8Array]> {
    return this.inner.iterate(t, r);
  }

  cursor(t: TableName, o?: KvCursorOptions): KvCursor {
    return this.inner.cursor(t, o);
  }

  write(b: WriteBatch, o?: { sync?: boolean }): void {
    this.inner.write(b, o);
  }

  /** The inner store stays open: its owner closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
