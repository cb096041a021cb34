/**
 * State root of 100,000 accounts (random keccak keys, real account RLP):
 * - in memory: Opal's streaming HashBuilder over the leaves sorted and packed by packSortedLeaves
 *   (included), the same across a trieHash pool of 1 and of 2 workers (trieRootOfPairs: sort, then
 *   each worker's part packed and sent while the next is packed), Opal's MemoryTrie (puts + root),
 *   and @ethereumjs/mpt (puts + root) as the library baseline;
 * - on RocksDB: the full root from the hashedAccounts table (scan + hash + branch-node records), and
 *   the incremental root after 1,000 accounts changed (walks the stored branch nodes);
 * - block import's storage tries on RocksDB: 40 slots changed in each of 48 contracts of 2,000 slots,
 *   updated on the importing thread alone and with a trieHash worker reading the same DB
 *   (trie/sharedStorageRoots.ts; the step yields after each run, as the node does between blocks).
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMPT } from "@ethereumjs/mpt";
import { keccak256 } from "../../src/crypto/keccak.js";
import { PiscinaPool } from "../../src/node/pools.js";
import { WriteBatch } from "../../src/storage/kv.js";
import { LmdbKv } from "../../src/storage/lmdb.js";
import { RocksKv } from "../../src/storage/rocksdb.js";
import { encodeAccount } from "../../src/trie/account.js";
import { MemoryTrie } from "../../src/trie/memoryTrie.js";
import { packSortedLeaves } from "../../src/trie/packLeaves.js";
import { trieRootPacked } from "../../src/trie/parallel.js";
import { trieRootOfPairs } from "../../src/trie/parallelRoot.js";
import {
  computeStateRoot,
  type StateChangeset,
  type StorageChange,
  updateStateRoot,
} from "../../src/trie/stateRoot.js";
import { type BenchRow, measure } from "../lib.js";

const N = 100_000;
const CONTRACTS = 48;
const SLOTS = 2000;
const CHANGED_SLOTS = 40;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** CONTRACTS accounts with SLOTS slots each, stored with their tries; returns the changeset to time. */
function loadContracts(kv: RocksKv): StateChangeset {
  const load = new WriteBatch();
  const addrs = Array.from({ length: CONTRACTS }, () => keccak256(new Uint8Array(randomBytes(20))));
  const storage: StorageChange[] = [];
  for (const a of addrs) {
    load.put("hashedAccounts", a, encodeAccount(1, 1n));
    const slots: Uint8Array[] = [];
    for (let j = 0; j < SLOTS; j++) {
      const s = keccak256(new Uint8Array(randomBytes(32)));
      load.put("hashedStorage", concat(a, s), Uint8Array.of(1 + (j % 250)));
      if (j < CHANGED_SLOTS) slots.push(s);
    }
    storage.push({ hashedAddress: a, slots });
  }
  kv.write(load);
  kv.write(computeStateRoot(kv).batch);
  // The changed slots' new values, as an import writes them before the root.
  const change = new WriteBatch();
  for (const c of storage)
    for (const s of c.slots) change.put("hashedStorage", concat(c.hashedAddress, s), Uint8Array.of(7));
  kv.write(change);
  return { accounts: addrs, storage };
}

export async function run(): Promise<BenchRow[]> {
  const keys = Array.from({ length: N }, () => keccak256(new Uint8Array(randomBytes(20))));
  const values = keys.map((_, i) => encodeAccount(i % 1000, BigInt(i) * 10n ** 15n));
  const pool1 = new PiscinaPool("trieHash", { threads: 1 });
  const pool2 = new PiscinaPool("trieHash", { threads: 2 });
  await Promise.all([pool1.warm(), pool2.warm()]);

  const dir = mkdtempSync(join(tmpdir(), "opal-bench-trie-"));
  const ldir = mkdtempSync(join(tmpdir(), "opal-bench-trie-lmdb-"));
  const kv = await RocksKv.open(dir, { cacheBytes: 256 << 20 });
  const lmdb = await LmdbKv.open(ldir);
  // 1,000 changed balances, applied to the flat table; the measured step is the root update only.
  const changed = keys.slice(0, 1000);
  const dirs: string[] = [];
  let skv: RocksKv | null = null;
  let storagePool: PiscinaPool | null = null;
  try {
    for (const store of [kv, lmdb]) {
      const load = new WriteBatch();
      for (let i = 0; i < N; i++) load.put("hashedAccounts", keys[i]!, values[i]!);
      store.write(load);
      const full = computeStateRoot(store);
      store.write(full.batch);
      const change = new WriteBatch();
      changed.forEach((k, i) => {
        change.put("hashedAccounts", k, encodeAccount(i + 1, 1n));
      });
      store.write(change);
    }

    const sdir = mkdtempSync(join(tmpdir(), "opal-bench-storage-tries-"));
    dirs.push(sdir);
    skv = await RocksKv.open(sdir, { cacheBytes: 256 << 20 });
    const contracts = loadContracts(skv);
    storagePool = new PiscinaPool(
      "trieHash",
      { threads: 1 },
      { store: { engine: "rocksdb", handle: skv.shareHandle() } },
    );
    await storagePool.warm();
    const sp = storagePool;
    const skvNow = skv;
    const yieldNow = (): Promise<void> => new Promise((r) => setImmediate(r));
    const storageLabel = `${CONTRACTS} storage tries × ${CHANGED_SLOTS} changed slots on RocksDB`;

    const hb = `root of ${N} accounts, sorted HashBuilder (opal, main thread)`;
    const memory = await measure(
      "trie",
      [
        {
          name: hb,
          fn: () => {
            const p = packSortedLeaves(keys, values);
            return trieRootPacked(p.keys, p.values, p.valueOffsets);
          },
          items: N,
        },
        {
          name: `root of ${N} accounts, trieHash pool of 1`,
          fn: () => trieRootOfPairs(keys, values, pool1),
          items: N,
        },
        {
          name: `root of ${N} accounts, trieHash pool of 2`,
          fn: () => trieRootOfPairs(keys, values, pool2),
          items: N,
        },
        {
          name: `root of ${N} accounts, MemoryTrie puts + root (opal)`,
          fn: () => {
            const t = new MemoryTrie();
            for (let i = 0; i < N; i++) t.put(keys[i]!, values[i]!);
            return t.rootHash();
          },
          items: N,
        },
        ...(
          [
            ["RocksDB", kv],
            ["LMDB", lmdb],
          ] as const
        ).flatMap(([engine, store]) => [
          {
            name: `root of ${N} accounts on ${engine}, full (scan + hash + node records)`,
            fn: () => computeStateRoot(store),
            items: N,
          },
          {
            name: `root after 1000 of ${N} accounts changed on ${engine}, incremental`,
            fn: () => updateStateRoot(store, { accounts: changed }),
            items: 1000,
          },
        ]),
        {
          name: `${storageLabel}, importing thread alone`,
          fn: async () => {
            updateStateRoot(skvNow, contracts);
            await yieldNow();
          },
          items: CONTRACTS * CHANGED_SLOTS,
        },
        {
          name: `${storageLabel}, with a trieHash worker`,
          fn: async () => {
            updateStateRoot(skvNow, contracts, { storagePool: sp });
            await yieldNow();
          },
          items: CONTRACTS * CHANGED_SLOTS,
        },
      ],
      { time: 3000, iterations: 3 },
    );
    const baseline = await measure(
      "trie",
      [
        {
          name: `root of ${N} accounts (@ethereumjs/mpt puts + root)`,
          fn: async () => {
            const t = await createMPT();
            for (let i = 0; i < N; i++) await t.put(keys[i]!, values[i]!);
            return t.root();
          },
          items: N,
          baselineOf: hb,
        },
      ],
      { time: 0, iterations: 1 },
    );
    return [...memory, ...baseline];
  } finally {
    await Promise.all([pool1.destroy(), pool2.destroy(), storagePool?.destroy()]);
    await kv.close();
    await lmdb.close();
    if (skv !== null) {
      if (storagePool !== null) skv.releaseHandle();
      await skv.close();
    }
    for (const d of [dir, ldir, ...dirs]) rmSync(d, { recursive: true, force: true });
  }
}
