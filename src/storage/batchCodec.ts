/**
 * WriteBatch ⇄ bytes, for undo records kept in the store (`history` table, crash-recovery marker):
 * rlp([[tableIndex, key, value], …]) where a delete has an empty list in place of the value, and
 * an op of two items, [tableIndex, prefix], deletes every row of the table whose key starts with
 * `prefix` (a range delete: the undo of a contract's storage that did not exist before the block,
 * `encodeRangeDeletes`). A range's rows are the store's, so a record holding one is read with
 * `decodeUndo` by a caller that has the store (chain/stateAt.ts `undoBatch`, `layerUndo`);
 * `decodeBatch` refuses it. Table indexes follow TABLE_NAMES, which only ever grows at the end.
 */
import { decodeHeader, type RlpHeader } from "../rlp/decode.js";
import { headerLength, stringLength, writeHeader, writeString } from "../rlp/encode.js";
import { RlpError } from "../rlp/errors.js";
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

/**
 * The record of range deletes, one per prefix, in `table`: rlp([[tableIndex, prefix], …]). PERF: the
 * crash marker and the history record of a block that fills a new contract undo its rows (storage-
 * writes: 10k) with one range instead of 10k keys (~0.7 MB apiece, written, logged and synced).
 */
export function encodeRangeDeletes(table: TableName, prefixes: readonly Uint8Array[]): Uint8Array {
  const index = INDEX.get(table) as number;
  let total = 0;
  for (const p of prefixes) {
    if (p.length === 0)
      throw new StorageError("BAD_OPTION", "encodeRangeDeletes: an empty prefix would delete the table");
    const payload = 1 + stringLength(p);
    total += headerLength(payload) + payload;
  }
  const out = new Uint8Array(headerLength(total) + total);
  let pos = writeHeader(out, 0, total, 0xc0);
  for (const p of prefixes) {
    pos = writeHeader(out, pos, 1 + stringLength(p), 0xc0);
    out[pos++] = index;
    pos = writeString(out, pos, p);
  }
  return out;
}

/** A range delete of an undo record: every row of `table` whose key starts with `prefix`. */
export interface RangeDelete {
  readonly table: TableName;
  readonly prefix: Uint8Array;
}

/**
 * An undo record read whole: its ops in order, each a batch op or a range delete. The ranges are
 * the caller's to resolve against the store the record applies to (chain/stateAt.ts).
 */
export interface DecodedUndo {
  readonly ops: readonly (WriteBatch["ops"][number] | ({ readonly type: "range" } & RangeDelete))[];
  /** Whether any op is a range delete. */
  readonly ranged: boolean;
}

/**
 * The batch `bytes` encodes, read in one pass over the headers (decodeHeader's checks: canonical,
 * within bounds) with keys and values as views into `bytes`. PERF: a sliced import decodes its
 * trie batch and that batch's inverse from the worker's reply each block (~1,500 rows apiece on a
 * 10M-account state); the generic decodeRlp built a nested item tree of them first (~13 ms a
 * block there).
 */
export function decodeBatch(bytes: Uint8Array): WriteBatch {
  const u = decodeUndo(bytes);
  if (u.ranged) throw new StorageError("CORRUPT", "batch: a range delete needs the store (decodeUndo)");
  const b = new WriteBatch();
  for (const op of u.ops) b.ops.push(op as WriteBatch["ops"][number]);
  return b;
}

/** The ops of an undo record, range deletes included (see the module's comment). */
export function decodeUndo(bytes: Uint8Array): DecodedUndo {
  try {
    return readUndo(bytes);
  } catch (e) {
    if (e instanceof RlpError) throw new StorageError("CORRUPT", `batch: ${e.message}`, { cause: e });
    throw e;
  }
}

function readUndo(bytes: Uint8Array): DecodedUndo {
  const ops: DecodedUndo["ops"][number][] = [];
  let ranged = false;
  const top = item(bytes, 0, bytes.length, true, "batch");
  if (top.start + top.length !== bytes.length) throw new StorageError("CORRUPT", "batch: bytes after the list");
  const end = top.start + top.length;
  let pos = top.start;
  while (pos < end) {
    const op = item(bytes, pos, end, true, "batch op");
    const opEnd = op.start + op.length;
    const t = item(bytes, op.start, opEnd, false, "batch op table");
    const table = TABLE_NAMES[t.length === 1 ? bytes[t.start]! : -1];
    if (table === undefined) throw new StorageError("CORRUPT", "batch op: unknown table index");
    const k = item(bytes, t.start + t.length, opEnd, false, "batch op key");
    const key = bytes.subarray(k.start, k.start + k.length);
    const vAt = k.start + k.length;
    if (vAt === opEnd) {
      if (key.length === 0) throw new StorageError("CORRUPT", "batch op: a range delete's prefix is empty");
      ops.push({ type: "range", table, prefix: key });
      ranged = true;
      pos = opEnd;
      continue;
    }
    const v = decodeHeader(bytes, vAt, opEnd);
    if (v.start + v.length !== opEnd) throw new StorageError("CORRUPT", "batch op: want [table, key, value]");
    if (v.list) {
      if (v.length !== 0) throw new StorageError("CORRUPT", "batch op: a delete's value must be an empty list");
      ops.push({ type: "del", table, key });
    } else {
      ops.push({ type: "put", table, key, value: bytes.subarray(v.start, v.start + v.length) });
    }
    pos = opEnd;
  }
  return { ops, ranged };
}

/** The header at `pos`, which must be a list (`list`) or a string; CORRUPT otherwise. */
function item(bytes: Uint8Array, pos: number, end: number, list: boolean, what: string): RlpHeader {
  const h = decodeHeader(bytes, pos, end);
  if (h.list !== list) throw new StorageError("CORRUPT", `${what}: want a ${list ? "list" : "string"}`);
  return h;
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
