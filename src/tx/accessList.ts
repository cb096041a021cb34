/**
 * EIP-2930 access list codec: rlp([[address, [storageKey, ...]], ...]) with 20-byte addresses and
 * 32-byte keys. Shared by the 0x01, 0x02, 0x03 and 0x04 tx types.
 */
import { writeString } from "../rlp/encode.js";
import type { RlpCursor } from "./rlpCursor.js";
import { addressLength, hash32Length, listLength, writeListHeader } from "./rlpWriter.js";
import type { AccessList, AccessListEntry } from "./tx.js";

export function decodeAccessList(c: RlpCursor): AccessListEntry[] {
  const list = c.list("accessList");
  const out: AccessListEntry[] = [];
  while (!list.done) {
    const entry = list.list("accessList entry");
    const address = entry.address("accessList address");
    const keysCursor = entry.list("accessList storageKeys");
    const storageKeys: Uint8Array[] = [];
    while (!keysCursor.done) storageKeys.push(keysCursor.hash32("accessList storage key"));
    entry.finish("accessList entry");
    out.push({ address, storageKeys });
  }
  return out;
}

function entryPayloadLength(e: AccessListEntry): number {
  let keys = 0;
  for (const k of e.storageKeys) keys += hash32Length(k);
  return addressLength(e.address) + listLength(keys);
}

/** Encoded size of the whole access list item. */
export function accessListLength(list: AccessList): number {
  let payload = 0;
  for (const e of list) payload += listLength(entryPayloadLength(e));
  return listLength(payload);
}

export function writeAccessList(out: Uint8Array, pos: number, list: AccessList): number {
  let payload = 0;
  for (const e of list) payload += listLength(entryPayloadLength(e));
  pos = writeListHeader(out, pos, payload);
  for (const e of list) {
    pos = writeListHeader(out, pos, entryPayloadLength(e));
    pos = writeString(out, pos, e.address);
    pos = writeListHeader(out, pos, 33 * e.storageKeys.length);
    for (const k of e.storageKeys) pos = writeString(out, pos, k);
  }
  return pos;
}

/** Number of addresses and storage keys (the intrinsic-gas inputs). */
export function accessListCounts(list: AccessList): { addresses: number; storageKeys: number } {
  let storageKeys = 0;
  for (const e of list) storageKeys += e.storageKeys.length;
  return { addresses: list.length, storageKeys };
}
