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

/** RLP size of byte string `b`: its own byte (one below 0x80), else a 1-, 2- or longer header and its bytes. */
function stringSize(b: Uint8Array): number {
  const n = b.length;
  if (n === 1) return b[0]! < 0x80 ? 1 : 2;
  if (n < 56) return 1 + n;
  return n < 256 ? 2 + n : stringLength(b);
}

/** Writes a list header for `len` payload bytes at `pos`; returns the position after it. */
function writeListHeader(out: Uint8Array, pos: number, len: number): number {
  if (len < 56) {
    out[pos] = 0xc0 + len;
    return pos + 1;
  }
  if (len < 256) {
    out[pos] = 0xf8;
    out[pos + 1] = len;
    return pos + 2;
  }
  return writeHeader(out, pos, len, 0xc0);
}

/** Writes byte string `b` at `pos` as `stringSize` measured it; returns the position after it. */
function writeBytes(out: Uint8Array, pos: number, b: Uint8Array): number {
  const n = b.length;
  if (n === 1 && b[0]! < 0x80) {
    out[pos] = b[0]!;
    return pos + 1;
  }
  if (n < 56) out[pos++] = 0x80 + n;
  else if (n < 256) {
    out[pos] = 0xb8;
    out[pos + 1] = n;
    pos += 2;
  } else return writeString(out, pos, b);
  out.set(b, pos);
  return pos + n;
}

/**
 * The bytes `encodeRlp` makes of rlp([[tableIndex, key, value | []], …]), written directly.
 * PERF: no nested input arrays and one measuring pass instead of one per list level: an import's
 * undo record runs to a row per written slot (10k for storage-writes) and is encoded for the
 * crash marker and the history record (`npm run bench -- engines`). The headers of keys, values and
 * op lists under 256 bytes (every row of the state tables) are written inline, and the table's index
 * looked up once per run of ops on it: the import runs this once per block, cold.
 */
export function encodeBatch(batch: WriteBatch): Uint8Array {
  const ops = batch.ops;
  // PERF: each op's payload length measured once (the write pass reads it back).
  const lengths = new Uint32Array(ops.length);
  let total = 0;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    // The table index (one byte below 0x80), the key, the value or an empty list.
    const p = 1 + stringSize(op.key) + (op.type === "put" ? stringSize(op.value) : 1);
    lengths[i] = p;
    total += (p < 56 ? 1 : p < 256 ? 2 : headerLength(p)) + p;
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
    pos = writeListHeader(out, pos, lengths[i]!);
    out[pos++] = index;
    pos = writeBytes(out, pos, op.key);
    if (op.type === "put") pos = writeBytes(out, pos, op.value);
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
