/**
 * State root on storage: full build and incremental update agree with each other and with the
 * in-memory trie over random changesets (inserts, updates, deletes, storage wipes, deletes that
 * collapse branches), and the incremental writes leave exactly the branch nodes a full build stores.
 */
import { strict as assert } from "node:assert";
import { compareBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { type KvReader, type KvStore, WriteBatch } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import { inverseBatch } from "../../../src/storage/undo.js";
import { encodeAccount } from "../../../src/trie/account.js";
import { HashBuilder } from "../../../src/trie/hashBuilder.js";
import { EMPTY_TRIE_ROOT } from "../../../src/trie/node.js";
import {
  computeStateRoot,
  REBUILD,
  STATE_ROOT_BOTTOMS,
  type StateChangeset,
  type StorageChange,
  updateStateRoot,
} from "../../../src/trie/stateRoot.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";
import { builtRandomAccounts, concat, Rng, randomAccount, randomChangeset, randomWord, StateModel } from "./helpers.js";

const hex = bytesToHex;

function tableDump(kv: KvStore, table: "accountTrie" | "storageTrie" | "hashedAccounts"): string[] {
  return [...kv.iterate(table)].map(([k, v]) => `${hex(k)}=${hex(v)}`);
}

/**
 * The differential check: from a random initial state, 25 random changesets; after each, the
 * incremental root equals the model's, and a full build over the stored result changes nothing.
 */
function differential(
  kv: KvStore,
  seed: number,
  withParentRoot = false,
  withCreated = false,
): { leavesRead: number; rebuilds: number } {
  const rng = new Rng(seed * 7919);
  const model = new StateModel();
  // Initial state, then a full build.
  const init = new WriteBatch();
  for (let i = 0; i < 40 + rng.int(40); i++) randomAccount(rng, model, kv, init);
  kv.write(init);
  const full = computeStateRoot(kv);
  assert.equal(hex(full.root), hex(model.root()));
  kv.write(full.batch);
  assert.equal(computeStateRoot(kv).batch.size, 0, "a second full build changes nothing");

  let parentRoot = full.root;
  let leavesRead = 0;
  let rebuilds = 0;
  for (let round = 0; round < 25; round++) {
    const { created, ...rest } = randomChangeset(rng, model, kv);
    const changes: StateChangeset = withCreated && created !== undefined ? { ...rest, created } : rest;
    const inc = updateStateRoot(kv, changes, withParentRoot ? { parentRoot } : {});
    parentRoot = inc.root;
    leavesRead += inc.stats.leavesRead;
    rebuilds += inc.stats.rebuilds;
    const want = hex(model.root());
    assert.equal(hex(inc.root), want, `round ${round}: incremental root`);
    // The trie batch's inverse (fresh puts undone by a delete, unread) restores the stored nodes.
    const before = [tableDump(kv, "storageTrie"), tableDump(kv, "accountTrie")];
    const undo = inverseBatch(kv, inc.batch);
    kv.write(inc.batch);
    kv.write(undo);
    assert.deepEqual([tableDump(kv, "storageTrie"), tableDump(kv, "accountTrie")], before, `round ${round}: undo`);
    kv.write(inc.batch);
    // The stored nodes and account rows are now exactly those of a full build.
    const again = computeStateRoot(kv);
    assert.equal(hex(again.root), want, `round ${round}: full root`);
    assert.deepEqual(
      again.batch.ops.map((o) => `${o.type} ${o.table} ${hex(o.key)}`),
      [],
      `round ${round}: incremental left the stored trie as a full build would`,
    );
  }
  // Delete everything: back to the empty root with no stored nodes.
  const batch = new WriteBatch();
  const keys: Uint8Array[] = [];
  for (const [k, a] of model.accounts.values()) {
    for (const [s] of a.storage.values()) batch.del("hashedStorage", concat(k, s));
    batch.del("hashedAccounts", k);
    keys.push(k);
  }
  kv.write(batch);
  const end = updateStateRoot(kv, { accounts: keys });
  assert.equal(hex(end.root), hex(EMPTY_TRIE_ROOT));
  kv.write(end.batch);
  assert.deepEqual(tableDump(kv, "accountTrie"), []);
  assert.deepEqual(tableDump(kv, "storageTrie"), []);
  return { leavesRead, rebuilds };
}

describe("trie/stateRoot", () => {
  it("empty state has the empty root and writes nothing", () => {
    const kv = new MemoryKv();
    const r = computeStateRoot(kv);
    assert.equal(hex(r.root), hex(EMPTY_TRIE_ROOT));
    assert.equal(r.batch.size, 0);
    assert.equal(hex(updateStateRoot(kv, { accounts: [] }).root), hex(EMPTY_TRIE_ROOT));
  });

  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`incremental == full == in-memory over random changesets (seed ${seed})`, () => {
      differential(new MemoryKv(), seed);
    });
  }

  // Told which changed accounts are new, the walk reads a changed account under a leaf hash by
  // exact key (TrieWalkerOptions.created); a new key beside an unchanged leaf still reads its range.
  for (const seed of [21, 22, 23, 24, 25, 26]) {
    it(`incremental == full == in-memory, the new accounts named (seed ${seed})`, () => {
      differential(new MemoryKv(), seed, seed % 2 === 0, true);
    });
  }

  // With the parent's root the walks also take the roots' branches from the bottom cache (a root
  // of leaves only without reading the node table): the same roots and stored nodes. (It saved leaf
  // reads on the account trie before its records kept their leaves' hashes; bottomCache.test.ts
  // shows what it saves on a storage trie.)
  for (const seed of [11, 12, 13, 14]) {
    it(`incremental == full == in-memory with the parent's root (seed ${seed})`, () => {
      STATE_ROOT_BOTTOMS.clear();
      differential(new MemoryKv(), seed, true);
    });
  }
  // A trie whose changed keys are most of its rows is rebuilt from them (REBUILD): bounds lowered so
  // that every changed trie is (rowsPerKey huge), or only those with at most as many rows as changed
  // keys are and the others are walked after the bounded read (rowsPerKey 1).
  describe("rebuilt from all its rows when the change is most of it", () => {
    const bounds = { ...REBUILD };
    afterEach(() => Object.assign(REBUILD, bounds));
    for (const [rowsPerKey, seeds] of [
      [1e9, [21, 22, 23]],
      [1, [24, 25, 26]],
    ] as const) {
      for (const seed of seeds) {
        it(`incremental == full == in-memory, rowsPerKey ${rowsPerKey} (seed ${seed})`, () => {
          Object.assign(REBUILD, { minKeys: 1, rowsPerKey });
          const { rebuilds } = differential(new MemoryKv(), seed, seed % 2 === 0);
          assert.ok(rebuilds > 0, "some tries were rebuilt");
        });
      }
    }
    it("on RocksKv, every changed trie rebuilt (seed 27)", async () => {
      Object.assign(REBUILD, { minKeys: 1, rowsPerKey: 1e9 });
      const dir = makeTmpDir();
      const kv = await RocksKv.open(dir);
      try {
        assert.ok(differential(kv, 27).rebuilds > 0);
      } finally {
        await kv.close();
        removeDir(dir);
      }
    });
  });

  it("with the parent's root on RocksKv (seed 17)", async () => {
    const dir = makeTmpDir();
    const kv = await RocksKv.open(dir, { cacheBytes: 1 << 20 });
    try {
      differential(kv, 17, true);
    } finally {
      await kv.close();
      removeDir(dir);
    }
  });

  // The same on RocksDB: the walker's cursors (read-ahead, in-buffer seeks, one cursor shared by
  // every storage trie, node cursors for deleted accounts) against the engine that buffers them.
  for (const seed of [7, 8]) {
    it(`incremental == full == in-memory on RocksKv (seed ${seed})`, async () => {
      const dir = makeTmpDir();
      const kv = await RocksKv.open(dir, { cacheBytes: 1 << 20 });
      try {
        differential(kv, seed);
      } finally {
        await kv.close();
        removeDir(dir);
      }
    });
  }

  it("a large changeset on RocksKv matches MemoryKv op for op (read-ahead across many ranges)", async () => {
    const dir = makeTmpDir();
    const rocks = await RocksKv.open(dir, { cacheBytes: 1 << 20 });
    const mem = new MemoryKv();
    try {
      const rng = new Rng(31337);
      const both = (b: WriteBatch): void => {
        rocks.write(b);
        mem.write(b);
      };
      const keys: Uint8Array[] = [];
      const init = new WriteBatch();
      for (let i = 0; i < 4000; i++) {
        const k = rng.bytes(32);
        keys.push(k);
        init.put("hashedAccounts", k, encodeAccount(i, BigInt(i)));
        if (i % 40 === 0)
          for (let j = 0; j < 30; j++) init.put("hashedStorage", concat(k, rng.bytes(32)), randomWord(rng));
      }
      both(init);
      both(computeStateRoot(mem).batch);
      const change = new WriteBatch();
      const accounts: Uint8Array[] = [];
      const storage: StorageChange[] = [];
      for (let i = 0; i < 4000; i += 7) {
        const k = keys[i]!;
        accounts.push(k);
        if (i % 21 === 0) change.del("hashedAccounts", k);
        else change.put("hashedAccounts", k, encodeAccount(i + 1, 7n));
        if (i % 40 === 0) {
          const s = rng.bytes(32);
          change.put("hashedStorage", concat(k, s), randomWord(rng));
          storage.push({ hashedAddress: k, slots: [s] });
        }
      }
      for (let i = 0; i < 300; i++) {
        const k = rng.bytes(32);
        accounts.push(k);
        change.put("hashedAccounts", k, encodeAccount(1, 1n));
      }
      both(change);
      const onRocks = updateStateRoot(rocks, { accounts, storage });
      const onMem = updateStateRoot(mem, { accounts, storage });
      assert.equal(hex(onRocks.root), hex(onMem.root));
      const ops = (r: typeof onMem) => r.batch.ops.map((o) => `${o.type} ${o.table} ${hex(o.key)}`).sort();
      assert.deepEqual(ops(onRocks), ops(onMem));
      both(onMem.batch);
      const full = computeStateRoot(rocks);
      assert.equal(hex(full.root), hex(onMem.root));
      assert.equal(full.batch.size, 0, "the incremental writes equal a full build's");
    } finally {
      await rocks.close();
      removeDir(dir);
    }
  });

  it("a deleted account drops its stored storage nodes even when its slots are reported", () => {
    const rng = new Rng(5);
    const kv = new MemoryKv();
    const addr = rng.bytes(32);
    const other = rng.bytes(32);
    const batch = new WriteBatch()
      .put("hashedAccounts", addr, encodeAccount(1, 1n))
      .put("hashedAccounts", other, encodeAccount(2, 2n));
    const slots: Uint8Array[] = [];
    for (let i = 0; i < 200; i++) {
      const s = rng.bytes(32);
      slots.push(s);
      batch.put("hashedStorage", concat(addr, s), randomWord(rng));
    }
    kv.write(batch);
    kv.write(computeStateRoot(kv).batch);
    assert.ok(tableDump(kv, "storageTrie").length > 0);
    kv.write(new WriteBatch().del("hashedAccounts", addr));
    const inc = updateStateRoot(kv, { accounts: [addr], storage: [{ hashedAddress: addr, slots: slots.slice(0, 3) }] });
    kv.write(inc.batch);
    assert.deepEqual(tableDump(kv, "storageTrie"), []);
    assert.deepEqual(inc.storageRoots, []);
    const only = new MemoryKv();
    only.write(new WriteBatch().put("hashedAccounts", other, encodeAccount(2, 2n)));
    assert.equal(hex(inc.root), hex(computeStateRoot(only).root));
  });

  it("a new storage trie's node puts are fresh, and its undo restores a wiped incarnation's nodes", () => {
    const rng = new Rng(11);
    const kv = new MemoryKv();
    const addr = rng.bytes(32);
    /** The account with `n` new slots (values reported: the trie builds from them), over `wiped` rows. */
    const build = (n: number, wiped: Uint8Array[]): StateChangeset => {
      const batch = new WriteBatch().put("hashedAccounts", addr, encodeAccount(1, 1n));
      for (const s of wiped) batch.del("hashedStorage", concat(addr, s));
      const slots: Uint8Array[] = [];
      const values: Uint8Array[] = [];
      for (let i = 0; i < n; i++) {
        const s = rng.bytes(32);
        const w = randomWord(rng);
        slots.push(s);
        values.push(w);
        batch.put("hashedStorage", concat(addr, s), w);
      }
      kv.write(batch);
      const ordered = slots.map((s, i) => [s, values[i]!] as const).sort((a, b) => compareBytes(a[0], b[0]));
      return {
        accounts: [addr],
        storage: [
          {
            hashedAddress: addr,
            slots: ordered.map((e) => e[0]),
            values: ordered.map((e) => e[1]),
            wiped: wiped.length > 0,
          },
        ],
      };
    };
    const first = build(300, []);
    const a = updateStateRoot(kv, first);
    const fresh = a.batch.ops.filter((o) => o.table === "storageTrie" && o.type === "put" && o.fresh === true);
    assert.ok(fresh.length > 10, `fresh storageTrie puts: ${fresh.length}`);
    assert.equal(
      fresh.length,
      a.batch.ops.filter((o) => o.table === "storageTrie").length,
      "no stored node: every one is fresh",
    );
    kv.write(a.batch);
    const before = tableDump(kv, "storageTrie");
    // Re-created with other slots: its old nodes are replaced, and the new keys among them are fresh.
    const second = build(250, first.storage![0]!.slots as Uint8Array[]);
    const b = updateStateRoot(kv, second);
    assert.ok(b.batch.ops.some((o) => o.type === "put" && o.fresh === true));
    assert.ok(b.batch.ops.some((o) => o.table === "storageTrie" && o.type === "del"));
    const undo = inverseBatch(kv, b.batch);
    kv.write(b.batch);
    assert.notDeepEqual(tableDump(kv, "storageTrie"), before);
    kv.write(undo);
    assert.deepEqual(tableDump(kv, "storageTrie"), before);
  });

  it("a new storage trie from values out of key order, with a key twice (the last is the row) and deletes: the full build's root", () => {
    const rng = new Rng(12);
    for (const shape of ["sorted", "reversed", "shuffled with a repeat"]) {
      const kv = new MemoryKv();
      const addr = rng.bytes(32);
      const batch = new WriteBatch().put("hashedAccounts", addr, encodeAccount(1, 1n));
      let pairs: [Uint8Array, Uint8Array][] = [];
      for (let i = 0; i < 400; i++) pairs.push([rng.bytes(32), i % 9 === 0 ? new Uint8Array(0) : randomWord(rng)]);
      pairs.sort((a, b) => compareBytes(a[0], b[0]));
      if (shape === "reversed") pairs.reverse();
      if (shape === "shuffled with a repeat") {
        pairs = pairs
          .map((p) => [rng.int(1000), p] as const)
          .sort((a, b) => a[0] - b[0])
          .map((e) => e[1]);
        pairs.push([pairs[5]![0], randomWord(rng)]);
      }
      // The rows as the block leaves them: the last value of each key, deletes absent.
      const last = new Map<string, [Uint8Array, Uint8Array]>();
      for (const p of pairs) last.set(hex(p[0]), p);
      for (const [s, v] of last.values()) if (v.length > 0) batch.put("hashedStorage", concat(addr, s), v);
      kv.write(batch);
      const change: StateChangeset = {
        accounts: [addr],
        storage: [{ hashedAddress: addr, slots: pairs.map((p) => p[0]), values: pairs.map((p) => p[1]) }],
      };
      assert.equal(hex(updateStateRoot(kv, change).root), hex(computeStateRoot(kv).root), shape);
    }
  });

  it("a root of leaves only, with the parent's root: its record goes when it collapses to one leaf", () => {
    // The account trie keeps leaf hashes, so such a root has a record; the walk from the bottom
    // cache, which reads no record, must not be what builds it.
    const rng = new Rng(3);
    const kv = new MemoryKv();
    const keys = [rng.bytes(32), rng.bytes(32), rng.bytes(32)];
    const init = new WriteBatch();
    for (const k of keys) init.put("hashedAccounts", k, encodeAccount(1, 5n));
    kv.write(init);
    const full = computeStateRoot(kv);
    kv.write(full.batch);
    let parentRoot = full.root;
    STATE_ROOT_BOTTOMS.clear();
    const step = (b: WriteBatch, changed: Uint8Array[]): void => {
      kv.write(b);
      const r = updateStateRoot(kv, { accounts: changed, created: [] }, { parentRoot });
      kv.write(r.batch);
      parentRoot = r.root;
      const again = computeStateRoot(kv);
      assert.equal(hex(r.root), hex(again.root));
      assert.deepEqual(
        again.batch.ops.map((o) => `${o.type} ${o.table} ${hex(o.key)}`),
        [],
        "the stored trie is a full build's",
      );
    };
    const put = (k: Uint8Array, n: bigint): WriteBatch =>
      new WriteBatch().put("hashedAccounts", k, encodeAccount(1, n));
    step(put(keys[0]!, 2n), [keys[0]!]);
    step(new WriteBatch().del("hashedAccounts", keys[1]!).del("hashedAccounts", keys[2]!), [keys[1]!, keys[2]!]);
    // Built from one leaf up, the root of two leaves is in the cache: later walks may start there.
    step(put(keys[2]!, 3n), [keys[2]!]);
    step(put(keys[0]!, 4n), [keys[0]!]);
    assert.equal([...kv.iterate("accountTrie")].length, 1, "the root of two leaves has its record");
    step(new WriteBatch().del("hashedAccounts", keys[0]!), [keys[0]!]);
    assert.deepEqual([...kv.iterate("accountTrie")], []);
  });

  it("a store written before the leaf-hash layout: its records keep working beside the new ones", () => {
    // An upgraded node's account trie: records of branch children's hashes only, no record for a
    // branch of leaves. Walks over it rebuild what they touch in the new layout; every root stays
    // right and no record is left behind that a full build would delete.
    const rng = new Rng(31337);
    const model = new StateModel();
    const kv = new MemoryKv();
    const init = new WriteBatch();
    for (let i = 0; i < 600; i++) randomAccount(rng, model, kv, init);
    kv.write(init);
    kv.write(computeStateRoot(kv).batch);
    const old = new WriteBatch();
    for (const [k] of kv.iterate("accountTrie")) old.del("accountTrie", k);
    const hb = new HashBuilder({ updates: true });
    for (const [k, v] of kv.iterate("hashedAccounts")) hb.addLeafBytes(k, v);
    let parentRoot = hb.root();
    assert.equal(hex(parentRoot), hex(model.root()));
    const oldUpdates = hb.takeUpdates();
    assert.ok(oldUpdates.every((u) => u.node.leafMask === 0));
    for (const u of oldUpdates) old.put("accountTrie", u.path.slice(), u.record);
    kv.write(old);
    const records = (): number => [...kv.iterate("accountTrie")].length;
    const before = records();
    for (let round = 0; round < 30; round++) {
      const changes = randomChangeset(rng, model, kv);
      const inc = updateStateRoot(kv, changes, round % 2 === 0 ? { parentRoot } : {});
      assert.equal(hex(inc.root), hex(model.root()), `round ${round}`);
      kv.write(inc.batch);
      parentRoot = inc.root;
    }
    assert.ok(records() > before, "the walks wrote records of the new layout");
    const full = computeStateRoot(kv);
    assert.equal(hex(full.root), hex(model.root()));
    assert.deepEqual(
      full.batch.ops.filter((o) => o.type === "del" && o.table === "accountTrie").map((o) => hex(o.key)),
      [],
      "no stale record",
    );
  });

  it("a malformed account row is a typed error", () => {
    const kv = new MemoryKv();
    kv.write(new WriteBatch().put("hashedAccounts", new Uint8Array(32), Uint8Array.of(0xc2, 0x01, 0x02)));
    assert.throws(() => computeStateRoot(kv), { name: "TrieError", code: "BAD_ACCOUNT" });
  });

  it("reads only the changed paths", () => {
    const kv = new MemoryKv();
    const keys = builtRandomAccounts(kv, new Rng(99), 3000);
    const k = keys[17];
    kv.write(new WriteBatch().put("hashedAccounts", k, encodeAccount(1, 12345n)));
    const inc = updateStateRoot(kv, { accounts: [k] });
    assert.equal(hex(inc.root), hex(computeStateRoot(kv).root));
    assert.ok(inc.stats.leavesRead < 40, `read ${inc.stats.leavesRead} leaves`);
    assert.ok(inc.stats.nodesRead <= 4, `read ${inc.stats.nodesRead} nodes`);
  });

  it("reads many paths' stored branches a depth at a time, and a bottom-level branch's leaves in one range", () => {
    const kv = new MemoryKv();
    const rng = new Rng(4242);
    const keys = builtRandomAccounts(kv, rng, 3000);
    const changed = Array.from({ length: 64 }, (_, i) => keys[i * 40]!);
    const batch = new WriteBatch();
    for (const k of changed) batch.put("hashedAccounts", k, encodeAccount(7, 777n));
    kv.write(batch);
    const calls = { nodeGetMany: 0, leafSeeks: 0 };
    const counted: KvReader = {
      get: (t, k) => kv.get(t, k),
      getMany: (t, ks) => {
        if (t === "accountTrie") calls.nodeGetMany++;
        return kv.getMany(t, ks);
      },
      iterate: (t, r) => kv.iterate(t, r),
      cursor: (t, o) => {
        const c = kv.cursor(t, o);
        return {
          seek: (k: Uint8Array, n?: number) => {
            if (t === "hashedAccounts") calls.leafSeeks++;
            return c.seek(k, n);
          },
          next: () => c.next(),
          get valid() {
            return c.valid;
          },
          get key() {
            return c.key;
          },
          get value() {
            return c.value;
          },
          close: () => c.close(),
        };
      },
    };
    const inc = updateStateRoot(counted, { accounts: changed });
    assert.equal(hex(inc.root), hex(computeStateRoot(kv).root));
    // 3,000 keys: stored branches at depths 0–2 at most, so one getMany per depth below the root.
    assert.ok(calls.nodeGetMany <= 3, `${calls.nodeGetMany} getMany calls on the node table`);
    // Their children are leaves and recordless bottom branches: one range per changed bottom-level branch.
    assert.ok(calls.leafSeeks <= changed.length, `${calls.leafSeeks} leaf seeks for ${changed.length} changed keys`);
  });
});
