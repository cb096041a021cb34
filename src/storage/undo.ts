/**
 * The inverse of a WriteBatch against the current contents of a store: applying it after the
 * batch restores every key the batch touched. Block import keeps these per block, so a rejected
 * block (bad state root) or a reorg rewinds the flat state and the trie nodes exactly.
 */
import { bytesKey } from "../primitives/bytes.js";
import { type KvReader, WriteBatch } from "./kv.js";
import type { TableName } from "./tables.js";

export function inverseBatch(kv: KvReader, batch: WriteBatch): WriteBatch {
  // The first write of each key decides what to restore; later writes of it in the batch don't.
  const byTable = new Map<TableName, Uint8Array[]>();
  const seen = new Set<string>();
  for (const op of batch.ops) {
    const id = `${op.table}:${bytesKey(op.key)}`;
    if (seen.has(id)) continue;
    seen.add(id);
    let keys = byTable.get(op.table);
    if (keys === undefined) {
      keys = [];
      byTable.set(op.table, keys);
    }
    keys.push(op.key);
  }
  const inv = new WriteBatch();
  for (const [table, keys] of byTable) {
    const prior = kv.getMany(table, keys);
    for (let i = 0; i < keys.length; i++) {
      const v = prior[i];
      if (v === undefined) inv.del(table, keys[i]);
      else inv.put(table, keys[i], v);
    }
  }
  return inv;
}
