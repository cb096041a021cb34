/**
 * debug_dbGet (geth internal/ethapi DebugAPI.DbGet: `common.ParseHexOrString(key)`, then the raw
 * value of that key in geth's key-value store). Opal's store is tables, not geth's one keyspace, so
 * the keys of geth's schema (core/rawdb/schema.go) whose values Opal holds byte for byte are mapped
 * onto its tables; every other key is absent, with the error geth's default engine (Pebble) gives:
 *   - "c" ‖ code hash (what the OP proof hosts ask for code: kona-host, op-program) and the bare
 *     32-byte code hash (geth's legacy code key, their fallback) → `code`;
 *   - "h" ‖ number (u64 BE) ‖ hash → `headers` (header RLP); "b" ‖ number ‖ hash → `bodies` (body
 *     RLP: txs in their block encoding, ommers, withdrawals from Shanghai, as geth's types.Body);
 *   - "h" ‖ number ‖ "n" → `canonical` (the hash); "H" ‖ hash → the header's number (u64 BE);
 *   - "l" ‖ tx hash → `txLookup`, as geth's v6 entry: the block number, minimal big-endian;
 *   - "LastBlock", "LastHeader", "LastFast" → the head hash; "LastFinalized" → the finalized hash.
 * Not mapped, because no Opal table holds geth's bytes: receipts ("r": geth stores its own storage
 * form), total difficulty ("t", deprecated), snapshot and path-scheme trie rows ("a", "o", "A",
 * "O": geth's disk layer trails its head by up to 128 blocks, so no single answer is geth's), and
 * trie nodes by hash (the hash scheme's bare 32-byte key): Opal keeps branch records by path
 * (trie/storedTrie.ts), not nodes by hash; debug_executionWitness serves nodes by the block.
 */
import type { ChainView } from "../../chain/blockchain.js";
import { META_FINALIZED, numberKey } from "../../chain/chainStore.js";
import { equalBytes } from "../../primitives/bytes.js";
import { RpcError } from "../errors.js";

/** Pebble's ErrNotFound text, which geth passes through. */
export const DB_NOT_FOUND = "pebble: not found";

const enc = new TextEncoder();
const HEAD_KEYS = ["LastBlock", "LastHeader", "LastFast"].map((k) => enc.encode(k));
const LAST_FINALIZED = enc.encode("LastFinalized");

/** common.ParseHexOrString: 0x-hex is decoded (hexutil's errors), anything else is its UTF-8 bytes. */
export function parseHexOrString(s: string): Uint8Array {
  if (s.length === 0) throw RpcError.server("empty hex string");
  if (!(s.startsWith("0x") || s.startsWith("0X"))) return enc.encode(s);
  const digits = s.slice(2);
  if (digits.length % 2 !== 0) throw RpcError.server("hex string of odd length");
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw RpcError.server("invalid hex string");
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** big.Int.Bytes() of a block number: minimal big-endian, empty for 0. */
function minimalBigEndian(n: number): Uint8Array {
  const k = numberKey(n);
  let i = 0;
  while (i < k.length && k[i] === 0) i++;
  return k.slice(i);
}

function u64(b: Uint8Array, at: number): number {
  return Number(new DataView(b.buffer, b.byteOffset + at, 8).getBigUint64(0));
}

/** The value geth would hold under `key`, from Opal's tables; undefined when Opal has none. */
export function dbValue(chain: ChainView, key: Uint8Array): Uint8Array | undefined {
  const store = chain.store;
  if (HEAD_KEYS.some((k) => equalBytes(key, k))) return chain.headBlockHash.slice();
  if (equalBytes(key, LAST_FINALIZED)) return store.meta(META_FINALIZED) ?? undefined;
  if (key.length === 32) return store.kv.get("code", key);
  const tag = key[0];
  if (key.length === 33 && tag === 0x63 /* c */) return store.kv.get("code", key.subarray(1));
  if (key.length === 33 && tag === 0x6c /* l */) {
    const at = store.txLocation(key.subarray(1));
    const h = at === null ? null : store.header(at.blockHash);
    return h === null ? undefined : minimalBigEndian(h.number);
  }
  if (key.length === 33 && tag === 0x48 /* H */) {
    const h = store.header(key.subarray(1));
    return h === null ? undefined : numberKey(h.number);
  }
  if (key.length === 10 && tag === 0x68 /* h */ && key[9] === 0x6e /* n */) {
    return store.canonicalHash(u64(key, 1)) ?? undefined;
  }
  if (key.length === 41 && (tag === 0x68 /* h */ || tag === 0x62) /* b */) {
    const hash = key.subarray(9);
    const h = store.header(hash);
    if (h === null || h.number !== u64(key, 1)) return undefined;
    return tag === 0x68 ? store.headerRlp(hash) : store.bodyRlp(hash);
  }
  return undefined;
}
