/**
 * WriteBatch ⇄ bytes, for undo records kept in the store (`history` table, crash-recovery marker):
 * rlp([[tableIndex, key, value], …]) where a delete has an empty list in place of the value.
 * Table indexes follow TABLE_NAMES, which only ever grows at the end.
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
 * encodeBatch of a delete of each of `n` keys of `keyLen` bytes packed back to back in `keys`, in
 * `table`, made without a batch: a header prefix is written once and copied to each record with
 * its key. PERF: the crash marker of a block that fills a new contract undoes its packed rows
 * (WorldState.commitBlock `freshRows`): 10k deletes, ~12 ms through encodeBatch in the one-block
 * import (each op measured and written a field at a time in code run once), ~1–2 ms here.
 */
export function encodeDeletes(table: TableName, keys: Uint8Array, keyLen: number): Uint8Array {
  if (!Number.isInteger(keyLen) || keyLen < 2 || keys.length % keyLen !== 0) {
    throw new StorageError("BAD_OPTION", "encodeDeletes: keys must be whole keys of at least 2 bytes");
  }
  const n = keys.length / keyLen;
  // [index, key, []]: a key of ≥ 2 bytes is never its own one-byte encoding.
  const keyHead = headerLength(keyLen);
  const payload = 1 + keyHead + keyLen + 1;
  const head = headerLength(payload);
  const rec = head + payload;
  const total = rec * n;
  const out = new Uint8Array(headerLength(total) + total);
  let pos = writeHeader(out, 0, total, 0xc0);
  const prefix = new Uint8Array(head + 1 + keyHead);
  writeHeader(prefix, writeHeader(prefix, 0, payload, 0xc0) + 1, keyLen, 0x80);
  prefix[head] = INDEX.get(table) as number;
  for (let i = 0; i < n; i++) {
    out.set(prefix, pos);
    out.set(keys.subarray(i * keyLen, (i + 1) * keyLen), pos + prefix.length);
    out[pos + rec - 1] = 0xc0;
    pos += rec;
  }
  return out;
}

/**
 * The batch `bytes` encodes, read in one pass over the headers (decodeHeader's checks: canonical,
 * within bounds) with keys and values as views into `bytes`. PERF: a sliced import decodes its
 * trie batch and that batch's inverse from the worker's reply each block (~1,500 rows apiece on a
 * 10M-account state); the generic decodeRlp built a nested item tree of them first (~13 ms a
 * block there).
 */
export function decodeBatch(bytes: Uint8Array): WriteBatch {
  try {
    return readBatch(bytes);
  } catch (e) {
    if (e instanceof RlpError) throw new StorageError("CORRUPT", `batch: ${e.message}`, { cause: e });
    throw e;
  }
}

function readBatch(bytes: Uint8Array): WriteBatch {
  const b = new WriteBatch();
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
    const v = decodeHeader(bytes, vAt, opEnd);
    if (v.start + v.length !== opEnd) throw new StorageError("CORRUPT", "batch op: want [table, key, value]");
    if (v.list) {
      if (v.length !== 0) throw new StorageError("CORRUPT", "batch op: a delete's value must be an empty list");
      b.del(table, key);
    } else {
      b.put(table, key, bytes.subarray(v.start, v.start + v.length));
    }
    pos = opEnd;
  }
  return b;
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
