/**
 * WriteBatch ⇄ bytes, for undo records kept in the store (`history` table, crash-recovery marker):
 * rlp([[tableIndex, key, value], …]) where a delete has an empty list in place of the value.
 * Table indexes follow TABLE_NAMES, which only ever grows at the end.
 */
import { decodeHeader, decodeRlp, expectBytes, expectList, type RlpItem } from "../rlp/decode.js";
import { headerLength, stringLength, writeHeader, writeString } from "../rlp/encode.js";
import { StorageError } from "./errors.js";
import { WriteBatch } from "./kv.js";
import { TABLE_NAMES, type TableName } from "./tables.js";

// Each index is one RLP byte that is its own encoding.
if (TABLE_NAMES.length > 0x80) throw new Error("batchCodec: table indexes must stay below 0x80");
const INDEX = new Map<TableName, number>(TABLE_NAMES.map((t, i) => [t, i]));

/**
 * The bytes `encodeRlp` makes of rlp([[tableIndex, key, value | []], …]), written directly.
 * PERF: no nested input arrays and one measuring pass instead of one per list level: an import's
 * undo record runs to a row per written slot (10k for storage-writes) and is encoded for the
 * crash marker and the history record (`npm run bench -- engines`). The table's index is looked up
 * once per run of ops on it (the import runs this once per block, cold); the RLP helpers write the
 * one-byte-length headers of rows under 256 bytes without their general loop (rlp/encode.ts).
 */
export function encodeBatch(batch: WriteBatch): Uint8Array {
  const ops = batch.ops;
  // PERF: each op's payload length measured once (the write pass reads it back).
  const lengths = new Uint32Array(ops.length);
  let total = 0;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    // The table index (one byte below 0x80), the key, the value or an empty list.
    const p = 1 + stringLength(op.key) + (op.type === "put" ? stringLength(op.value) : 1);
    lengths[i] = p;
    total += headerLength(p) + p;
  }
  const out = new Uint8Array(headerLength(total) + total);
  let pos = writeHeader(out, 0, total, 0xc0);
  let table: TableName | null = null;
  let index = 0;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.table !== table) {
      table = op.table;
      index = INDEX.get(table) as number;
    }
    pos = writeHeader(out, pos, lengths[i]!, 0xc0);
    out[pos++] = index;
    pos = writeString(out, pos, op.key);
    if (op.type === "put") pos = writeString(out, pos, op.value);
    else out[pos++] = 0xc0;
  }
  return out;
}

export function decodeBatch(bytes: Uint8Array): WriteBatch {
  const b = new WriteBatch();
  for (const it of expectList(decodeRlp(bytes), "batch")) {
    const f = expectList(it, "batch op");
    if (f.length !== 3) throw new StorageError("CORRUPT", "batch op: want [table, key, value]");
    const idx = expectBytes(f[0], "batch op table");
    const table = TABLE_NAMES[idx.length === 1 ? idx[0] : -1];
    if (table === undefined) throw new StorageError("CORRUPT", "batch op: unknown table index");
    const key = expectBytes(f[1], "batch op key");
    const v: RlpItem = f[2];
    if (Array.isArray(v)) b.del(table, key);
    else b.put(table, key, v);
  }
  return b;
}

/** Concatenates batches into one (ops in order). */
export function joinBatches(parts: readonly WriteBatch[]): WriteBatch {
  const out = new WriteBatch();
  for (const p of parts) for (const op of p.ops) out.ops.push(op);
  return out;
}

/**
 * The encoding of the batches of `records` (each an encodeBatch output) joined in order: the same
 * bytes as encodeBatch(joinBatches(their batches)), made by copying their ops instead of encoding
 * them again. PERF: a block's history record is its undos joined, and the first of them alone runs
 * to a row per written slot (storage-writes: 10k, ~0.7 MB).
 */
export function joinEncodedBatches(records: readonly Uint8Array[]): Uint8Array {
  if (records.length === 1) return records[0]!;
  let total = 0;
  const starts: number[] = [];
  for (const r of records) {
    const h = decodeHeader(r, 0);
    if (!h.list || h.start + h.length !== r.length) throw new StorageError("CORRUPT", "batch record: not one list");
    starts.push(h.start);
    total += h.length;
  }
  const out = new Uint8Array(headerLength(total) + total);
  let pos = writeHeader(out, 0, total, 0xc0);
  for (let i = 0; i < records.length; i++) {
    const payload = records[i]!.subarray(starts[i]!);
    out.set(payload, pos);
    pos += payload.length;
  }
  return out;
}
