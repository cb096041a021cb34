/**
 * Root of a trie keyed by rlp(index): the transactions, receipts and withdrawals roots of a block
 * header (Yellow Paper 4.3; EIP-4895). Items are the already-encoded values (tx envelopes, receipt
 * encodings, withdrawal RLP). Keys are emitted in byte order without sorting: rlp(1..127) are single
 * bytes 0x01..0x7f, rlp(0) is 0x80, and rlp(i ≥ 128) is 0x80+len ‖ big-endian i, ascending in i.
 *
 * Native (native/src/trie.c: HashBuilder's fold with keys of any length, one call for the list) when
 * the addon is loaded; `orderedTrieRootPure` (HashBuilder) otherwise. PERF: a block's txs and
 * receipts roots are two such tries per import; 10,000 transfers (the eth-transfers workload) cost
 * ~50 ms each through HashBuilder in a fresh process.
 */
import { packItems } from "../crypto/keccak.js";
import { native } from "../native/load.js";
import { borrowHashBuilder, releaseHashBuilder } from "./hashBuilder.js";
import { EMPTY_TRIE_ROOT as EMPTY_ROOT } from "./node.js";

/** Root of the empty trie, keccak256(0x80): the roots of an empty tx, receipt or withdrawal list. */
export const EMPTY_TRIE_ROOT: Uint8Array = EMPTY_ROOT;

/** Writes rlp(i) into `out`; returns its length. */
function writeIndexKey(out: Uint8Array, i: number): number {
  if (i === 0) {
    out[0] = 0x80;
    return 1;
  }
  if (i < 128) {
    out[0] = i;
    return 1;
  }
  let len = 0;
  for (let v = i; v > 0; v = Math.floor(v / 256)) len++;
  out[0] = 0x80 + len;
  for (let k = len, v = i; k >= 1; k--, v = Math.floor(v / 256)) out[k] = v % 256;
  return len + 1;
}

/** The pure-TS twin: HashBuilder over the keys in byte order. */
export function orderedTrieRootPure(items: readonly Uint8Array[]): Uint8Array {
  const hb = borrowHashBuilder();
  const key = new Uint8Array(9);
  const n = items.length;
  const add = (i: number): void => hb.addLeafBytes(key, items[i], 0, writeIndexKey(key, i));
  for (let i = 1; i < Math.min(n, 128); i++) add(i);
  if (n > 0) add(0);
  for (let i = 128; i < n; i++) add(i);
  const root = hb.root();
  releaseHashBuilder(hb);
  return root;
}

/** Through the addon (which must be loaded): the items packed back to back, one call. */
export function orderedTrieRootNative(items: readonly Uint8Array[]): Uint8Array {
  const n = items.length;
  if (n === 0) return EMPTY_TRIE_ROOT;
  if (native === null) throw new Error("orderedTrieRootNative: the addon is not loaded");
  const { packed, offsets } = packItems(items);
  const root = new Uint8Array(32);
  native.orderedTrieRoot(packed, offsets, root);
  return root;
}

/** Root of the trie mapping rlp(i) → items[i]. Empty list → EMPTY_TRIE_ROOT. */
export const orderedTrieRoot: (items: readonly Uint8Array[]) => Uint8Array =
  native === null ? orderedTrieRootPure : orderedTrieRootNative;
