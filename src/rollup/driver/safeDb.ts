/**
 * The safe-head database of `--safedb.path` (op-node safedb; op-stack.md §1.6): for each L1 block the
 * derivation processed, the L2 block that was safe afterwards. op-proposer and op-challenger read it
 * through `optimism_safeHeadAtL1Block`. Writes are synced. Layout: the `safeHeads` table
 * (storage/tables.ts), keyed by the L1 number in big-endian order so a reverse scan finds the
 * latest entry at or below any L1 number.
 */

import { type KvStore, WriteBatch } from "../../storage/kv.js";
import { RocksKv } from "../../storage/rocksdb.js";
import type { BlockId, L2BlockRef } from "../refs.js";

export interface SafeHeadEntry {
  readonly l1Block: BlockId;
  readonly safeHead: BlockId;
}

function u64(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
}

function readU64(b: Uint8Array, pos: number): number {
  return Number(new DataView(b.buffer, b.byteOffset + pos, 8).getBigUint64(0));
}

function value(l1Hash: Uint8Array, safe: BlockId): Uint8Array {
  const v = new Uint8Array(72);
  v.set(l1Hash, 0);
  v.set(safe.hash, 32);
  v.set(u64(safe.number), 64);
  return v;
}

function entryOf(key: Uint8Array, v: Uint8Array): SafeHeadEntry {
  return {
    l1Block: { hash: v.slice(0, 32), number: readU64(key, 0) },
    safeHead: { hash: v.slice(32, 64), number: readU64(v, 64) },
  };
}

export class SafeDb {
  constructor(private readonly kv: KvStore) {}

  static async open(path: string): Promise<SafeDb> {
    // One row per L1 block: every table at the smallest memtable budget.
    return new SafeDb(await RocksKv.open(path, { memtableBytes: 0 }));
  }

  /** `safe` was the safe head after processing L1 block `l1`. */
  safeHeadUpdated(safe: BlockId, l1: BlockId): void {
    const b = new WriteBatch();
    b.put("safeHeads", u64(l1.number), value(l1.hash, safe));
    this.kv.write(b, { sync: true });
  }

  /** The latest entry at or below L1 block `l1Number`, or null. */
  safeHeadAtL1(l1Number: number): SafeHeadEntry | null {
    for (const [k, v] of this.kv.iterate("safeHeads", { lt: u64(l1Number + 1), reverse: true, limit: 1 })) {
      return entryOf(k, v);
    }
    return null;
  }

  /**
   * A pipeline reset to `newSafe`: from its L1 origin on, the first entry whose safe head is at or
   * above `newSafe` and every later entry are deleted; when an earlier entry exists, `newSafe` is
   * recorded under the first deleted entry's L1 block (op-node SafeHeadReset).
   */
  safeHeadReset(newSafe: L2BlockRef): void {
    const b = new WriteBatch();
    let first: { key: Uint8Array; l1Hash: Uint8Array } | null = null;
    for (const [k, v] of this.kv.iterate("safeHeads", { gte: u64(newSafe.l1origin.number) })) {
      if (first === null) {
        if (readU64(v, 64) < newSafe.number) continue;
        first = { key: k.slice(), l1Hash: v.slice(0, 32) };
      }
      b.del("safeHeads", k.slice());
    }
    if (first === null) return;
    let earlier = false;
    for (const _ of this.kv.iterate("safeHeads", { lt: first.key, reverse: true, limit: 1 })) earlier = true;
    if (earlier) b.put("safeHeads", first.key, value(first.l1Hash, newSafe));
    this.kv.write(b, { sync: true });
  }

  close(): Promise<void> {
    return this.kv.close();
  }
}
