/**
 * The inverse of a WriteBatch against the current contents of a store: applying it after the
 * batch restores every key the batch touched. Block import keeps these per block, so a rejected
 * block (bad state root) or a reorg rewinds the flat state and the trie nodes exactly.
 */
import { bytesKey } from "../primitives/bytes.js";
import { type KvReader, WriteBatch } from "./kv.js";
import type { TableName } from "./tables.js";

export function inverseBatch(kv: KvReader, batch: WriteBatch): WriteBatch {
  const inv = new WriteBatch();
  // The first write of each key decides what to restore; later writes of it in the batch don't.
  const byTable = new Map<TableName, { keys: Uint8Array[]; seen: Set<string> }>();
  for (const op of batch.ops) {
    // PERF: a key the writer knows was absent is restored by a delete, unread and unrecorded (a
    // contract's fresh slots). Another op on it in the batch still reads it, and that restore comes
    // after this delete in the inverse, so even a wrong "absent" undoes right.
    if (op.type === "put" && op.fresh === true) {
      inv.del(op.table, op.key);
      continue;
    }
    let t = byTable.get(op.table);
    if (t === undefined) {
      t = { keys: [], seen: new Set() };
      byTable.set(op.table, t);
    }
    const id = bytesKey(op.key);
    if (t.seen.has(id)) continue;
    t.seen.add(id);
    t.keys.push(op.key);
  }
  for (const [table, { keys }] of byTable) {
    const prior = kv.getMany(table, keys);
    for (let i = 0; i < keys.length; i++) {
      const v = prior[i];
      if (v === undefined) inv.del(table, keys[i]);
      else inv.put(table, keys[i], v);
    }
  }
  return inv;
}
