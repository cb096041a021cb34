/**
 * Shared helpers of the trie tests: a seeded PRNG, key generators that force shared prefixes (so
 * extensions, embedded nodes and branch collapses happen with few keys), and a reference model of
 * flat state whose root comes from the in-memory trie.
 */
import { bytesKey } from "../../../src/primitives/bytes.js";
import { type KvStore, WriteBatch } from "../../../src/storage/kv.js";
import { encodeAccount } from "../../../src/trie/account.js";
import { MemoryTrie } from "../../../src/trie/memoryTrie.js";
import { EMPTY_TRIE_ROOT } from "../../../src/trie/node.js";
import { computeStateRoot, storageLeafValue } from "../../../src/trie/stateRoot.js";

/** xorshift32: deterministic and fast. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }
  u32(): number {
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s;
  }
  int(n: number): number {
    return this.u32() % n;
  }
  bytes(n: number): Uint8Array {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = this.u32() & 0xff;
    return b;
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)];
  }
}

/**
 * A 32-byte key: fully random, or sharing a long prefix with a few fixed stems so that deep branches,
 * extensions and (for small values) embedded nodes appear.
 */
export function clusteredKey(rng: Rng): Uint8Array {
  const k = rng.bytes(32);
  switch (rng.int(4)) {
    case 0:
      return k;
    case 1:
      k[0] = rng.pick([0x00, 0x01, 0x10, 0xff]);
      return k;
    case 2:
      k.fill(0xab, 0, 3);
      k[3] = rng.pick([0x00, 0x0f, 0xf0]);
      return k;
    default:
      // Differs from its siblings only in the last nibble(s): leaves at depth 63/64.
      k.fill(0x5a, 0, 31);
      k[31] = rng.pick([0x00, 0x01, 0x02, 0x10, 0x11, 0xf3]);
      return k;
  }
}

/** A storage word in minimal big-endian form (never zero). */
export function randomWord(rng: Rng): Uint8Array {
  const len = rng.pick([1, 1, 1, 2, 5, 32]);
  const w = rng.bytes(len);
  if (w[0] === 0) w[0] = 1;
  return w;
}

export interface ModelAccount {
  nonce: number;
  balance: bigint;
  storage: Map<string, [Uint8Array, Uint8Array]>;
}

/** Flat state as plain maps; its roots come from MemoryTrie (the reference implementation). */
export class StateModel {
  readonly accounts = new Map<string, [Uint8Array, ModelAccount]>();

  storageRoot(a: ModelAccount): Uint8Array {
    if (a.storage.size === 0) return EMPTY_TRIE_ROOT;
    const t = new MemoryTrie();
    for (const [k, v] of a.storage.values()) t.put(k, storageLeafValue(k, v)!);
    return t.rootHash();
  }

  accountRlp(a: ModelAccount, storageRoot = this.storageRoot(a)): Uint8Array {
    return encodeAccount(a.nonce, a.balance, storageRoot);
  }

  root(): Uint8Array {
    const t = new MemoryTrie();
    for (const [k, a] of this.accounts.values()) t.put(k, this.accountRlp(a));
    return t.rootHash();
  }

  get(k: Uint8Array): ModelAccount | undefined {
    return this.accounts.get(bytesKey(k))?.[1];
  }
}

/**
 * Writes `n` accounts at random keys (account i: nonce i, balance i) and their full build's branch
 * nodes into `kv`; returns the keys in creation order.
 */
export function builtRandomAccounts(kv: KvStore, rng: Rng, n: number): Uint8Array[] {
  const batch = new WriteBatch();
  const keys: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const k = rng.bytes(32);
    keys.push(k);
    batch.put("hashedAccounts", k, encodeAccount(i, BigInt(i)));
  }
  kv.write(batch);
  kv.write(computeStateRoot(kv).batch);
  return keys;
}
