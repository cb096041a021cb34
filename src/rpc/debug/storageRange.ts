/**
 * debug_storageRangeAt (geth eth/api_debug.go StorageRangeAt; reth debug_storage_range_at): one
 * page of an account's storage, in hashed-slot order, as it is before tx `txIndex` of a block runs
 * (the block's system calls and txs 0..txIndex-1 applied on its parent's state).
 *
 * The state is that of the replay, in-block changes included, as reth computes it. geth opens the
 * storage trie under the root the account had before the block (its own TODO: "problematic for
 * traversing the state with in-memory state mutations, specifically txIndex != 0"); Opal does not
 * copy that defect. `key` is the slot when its preimage is known: geth knows it only with
 * --cache.preimages, Opal when the replayed txs read or wrote the slot (it keeps no preimage
 * table); otherwise null, as geth without preimages.
 */
import type { ChainView } from "../../chain/blockchain.js";
import { keccak256 } from "../../crypto/keccak.js";
import { bytesKey } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { prefixEnd } from "../../state/kvStateReader.js";
import { addressToBigint } from "../../state/worldState.js";
import { RpcError } from "../errors.js";
import type { DecodedBlock } from "../eth/chainReader.js";
import { LayeredReplay } from "./layeredReplay.js";

/** geth's StorageRangeResult: `storage` null only for an account without storage. */
export interface StorageRangeJson {
  storage: Record<string, { key: string | null; value: string }> | null;
  nextKey: string | null;
}

/**
 * geth's trie NodeIterator(start) as a flat-table bound: the first hashed slot at or after `start`
 * in byte order. A shorter start is a prefix (zero-padded); a longer one positions on its first 32
 * bytes inclusive, since the iterator compares a leaf's path (which ends in the terminator nibble,
 * above every key nibble) with the start's nibbles.
 */
function lowerBound(start: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(start.length > 32 ? start.subarray(0, 32) : start);
  return out;
}

/** A minimal big-endian storage row as a 32-byte word (geth common.BytesToHash). */
function word(v: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(v.length > 32 ? v.subarray(v.length - 32) : v, 32 - Math.min(v.length, 32));
  return out;
}

/**
 * The page of `address`'s storage in `b` before tx `txIndex`: at most `maxResult` slots from
 * `start` on, and the next hashed slot when more remain. `txIndex` must name a tx of the block (or
 * be 0 for a block without txs), as geth's stateAtTransaction requires.
 */
export function storageRangeAt(
  chain: ChainView,
  b: DecodedBlock,
  txIndex: number,
  address: Uint8Array,
  start: Uint8Array,
  maxResult: number,
): StorageRangeJson {
  const n = b.txs.length;
  if (!(txIndex === 0 && n === 0) && (txIndex < 0 || txIndex >= n)) {
    throw RpcError.server(`transaction index ${txIndex} out of range for block ${bytesToHex(b.hash)}`);
  }
  const r = new LayeredReplay(chain, b);
  for (let i = 0; i < txIndex; i++) {
    const err = r.step();
    if (err !== null) throw RpcError.server(`transaction ${bytesToHex(b.txHashes[i])} failed: ${err}`);
  }
  r.commit(false);
  const h = keccak256(address);
  const end = prefixEnd(h);
  const from = new Uint8Array(64);
  from.set(h);
  from.set(lowerBound(start), 32);
  const c = r.kv.cursor("hashedStorage", { gte: h, lt: end });
  try {
    // geth: an account whose storage root is empty answers the zero result, `storage` null.
    if (!c.seek(h)) return { storage: null, nextKey: null };
    const preimages = r.slotPreimages(addressToBigint(address));
    const storage: Record<string, { key: string | null; value: string }> = {};
    let ok = c.seek(from);
    for (let i = 0; i < maxResult && ok; i++, ok = c.next()) {
      const slot = c.key.subarray(32);
      const pre = preimages.get(bytesKey(slot));
      storage[bytesToHex(slot)] = { key: pre === undefined ? null : bytesToHex(pre), value: bytesToHex(word(c.value)) };
    }
    return { storage, nextKey: ok ? bytesToHex(c.key.subarray(32)) : null };
  } finally {
    c.close();
  }
}
