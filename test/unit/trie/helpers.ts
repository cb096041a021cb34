/**
 * Shared helpers of the trie tests: a seeded PRNG, key generators that force shared prefixes (so
 * extensions, embedded nodes and branch collapses happen with few keys), and a reference model of
 * flat state whose root comes from the in-memory trie.
 */
import { bytesKey } from "../../../src/primitives/bytes.js";
import { type KvStore, WriteBatch } from "../../../src/storage/kv.js";
import { accountStorageRoot, encodeAccount } from "../../../src/trie/account.js";
import { MemoryTrie } from "../../../src/trie/memoryTrie.js";
import { EMPTY_TRIE_ROOT } from "../../../src/trie/node.js";
import {
  computeStateRoot,
  type StateChangeset,
  type StorageChange,
  storageLeafValue,
} from "../../../src/trie/stateRoot.js";

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

/** Writes one account row the way a state layer would: with whatever storageRoot it last saw. */
export function writeAccount(kv: KvStore, batch: WriteBatch, key: Uint8Array, a: ModelAccount): void {
  const prev = kv.get("hashedAccounts", key);
  const staleRoot = prev === undefined ? EMPTY_TRIE_ROOT : accountStorageRoot(prev);
  batch.put("hashedAccounts", key, encodeAccount(a.nonce, a.balance, staleRoot));
}

export function randomAccount(
  rng: Rng,
  model: StateModel,
  kv: KvStore,
  batch: WriteBatch,
): [Uint8Array, StorageChange | null] {
  const key = clusteredKey(rng);
  const a: ModelAccount = { nonce: rng.int(5), balance: BigInt(rng.int(1_000_000)), storage: new Map() };
  const slots: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  const nSlots = rng.int(3) === 0 ? rng.int(12) : 0;
  for (let i = 0; i < nSlots; i++) {
    const s = clusteredKey(rng);
    const w = randomWord(rng);
    a.storage.set(bytesKey(s), [s, w]);
    slots.push(s);
    values.push(w);
  }
  // A re-created account starts from empty storage.
  const prev = model.get(key);
  const wiped = prev !== undefined && prev.storage.size > 0;
  if (prev !== undefined) for (const [s] of prev.storage.values()) batch.del("hashedStorage", concat(key, s));
  // Half of the new accounts report their values (the trie then builds their storage from those
  // alone), one in two of those with a slot written and cleared again: reported, but no row.
  const withValues = rng.int(2) === 0;
  if (withValues && rng.int(2) === 0) {
    const s = clusteredKey(rng);
    if (!a.storage.has(bytesKey(s))) {
      batch.del("hashedStorage", concat(key, s));
      slots.push(s);
      values.push(new Uint8Array(0));
    }
  }
  model.accounts.set(bytesKey(key), [key, a]);
  for (const [s, w] of a.storage.values()) batch.put("hashedStorage", concat(key, s), w);
  writeAccount(kv, batch, key, a);
  if (slots.length === 0 && !wiped) return [key, null];
  return [key, withValues ? { hashedAddress: key, slots, wiped, values } : { hashedAddress: key, slots, wiped }];
}

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** One random changeset applied to the model and the flat tables. */
export function randomChangeset(rng: Rng, model: StateModel, kv: KvStore): StateChangeset {
  const batch = new WriteBatch();
  const accounts: Uint8Array[] = [];
  const storage: StorageChange[] = [];
  const before = new Set(model.accounts.keys());
  const n = 1 + rng.int(8);
  for (let i = 0; i < n; i++) {
    const existing = [...model.accounts.values()];
    const op = existing.length === 0 ? 0 : rng.int(5);
    if (op === 0) {
      const [k, sc] = randomAccount(rng, model, kv, batch);
      accounts.push(k);
      if (sc) storage.push(sc);
    } else if (op === 1) {
      // Delete an account and its storage rows.
      const [k, a] = rng.pick(existing);
      for (const [s] of a.storage.values()) batch.del("hashedStorage", concat(k, s));
      batch.del("hashedAccounts", k);
      model.accounts.delete(bytesKey(k));
      accounts.push(k);
      // The storage went with it; a re-creation in the same changeset must not see the old trie.
      if (a.storage.size > 0) storage.push({ hashedAddress: k, slots: [], wiped: true });
    } else if (op === 2) {
      const [k, a] = rng.pick(existing);
      a.balance += 1n;
      writeAccount(kv, batch, k, a);
      accounts.push(k);
    } else {
      // Storage edits: inserts, updates, deletes.
      const [k, a] = rng.pick(existing);
      const slots: Uint8Array[] = [];
      const m = 1 + rng.int(6);
      for (let j = 0; j < m; j++) {
        const cur = [...a.storage.values()];
        if (cur.length > 0 && rng.int(2) === 0) {
          const [s] = rng.pick(cur);
          if (rng.int(2) === 0) {
            a.storage.delete(bytesKey(s));
            batch.del("hashedStorage", concat(k, s));
          } else {
            const w = randomWord(rng);
            a.storage.set(bytesKey(s), [s, w]);
            batch.put("hashedStorage", concat(k, s), w);
          }
          slots.push(s);
        } else {
          const s = clusteredKey(rng);
          const w = randomWord(rng);
          a.storage.set(bytesKey(s), [s, w]);
          batch.put("hashedStorage", concat(k, s), w);
          slots.push(s);
        }
      }
      storage.push({ hashedAddress: k, slots });
    }
  }
  kv.write(batch);
  // StateChangeset.created: the changed accounts that had no row before.
  const created = [...accounts, ...storage.map((sc) => sc.hashedAddress)].filter((k) => !before.has(bytesKey(k)));
  return { accounts, storage, created };
}
