/**
 * WriteBatch ⇄ bytes, for undo records kept in the store (`history` table, crash-recovery marker):
 * rlp([[tableIndex, key, value], …]) where a delete has an empty list in place of the value.
 * Table indexes follow TABLE_NAMES, which only ever grows at the end.
 */
import { decodeRlp, expectBytes, expectList, type RlpItem } from "../rlp/decode.js";
import { encodeRlp, type RlpInput } from "../rlp/encode.js";
import { StorageError } from "./errors.js";
import { WriteBatch } from "./kv.js";
import { TABLE_NAMES, type TableName } from "./tables.js";

const INDEX = new Map<TableName, number>(TABLE_NAMES.map((t, i) => [t, i]));

export function encodeBatch(batch: WriteBatch): Uint8Array {
  const items: RlpInput[] = batch.ops.map((op) => [
    Uint8Array.of(INDEX.get(op.table) as number),
    op.key,
    op.type === "put" ? op.value : [],
  ]);
  return encodeRlp(items);
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
