/**
 * The bottom-branch cache of the incremental state root (trie/bottomCache.ts, TrieWalker.bottom):
 * long runs of small changesets, as small blocks make them, where most changed keys sit under a
 * branch the previous walk built. Each round's root must equal the reference trie's, and the stored
 * nodes must be what a full build stores. Keys share long prefixes on purpose so that bottom
 * branches gain children (a new key beside a cached leaf), lose them down to one (a collapse the
 * cache must not paper over), and are re-created.
 */
import { strict as assert } from "node:assert";
import { bytesKey, concatBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { type KvStore, WriteBatch } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import { encodeAccount } from "../../../src/trie/account.js";
import { BottomCache, bottomCacheKey } from "../../../src/trie/bottomCache.js";
import { computeStateRoot, STATE_ROOT_BOTTOMS, updateStateRoot } from "../../../src/trie/stateRoot.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";
import { Rng, randomWord, StateModel } from "./helpers.js";

const hex = bytesToHex;
const CONTRACT = new Uint8Array(32).fill(0xcc);

/** A key from a small tree of prefixes: 64 first bytes, then one of 4 second bytes, the rest random. */
function nearKey(rng: Rng): Uint8Array {
  const k = rng.bytes(32);
  k[0] = rng.int(64);
  k[1] = rng.int(4) * 0x11;
  return k;
}

interface Counts {
  hits: number;
  leafRefs: number;
}

/** `rounds` changesets of 1–4 account edits (insert, update, delete) and storage edits on one contract. */
function run(kv: KvStore, seed: number, rounds: number): Counts {
  const rng = new Rng(seed);
  const model = new StateModel();
  const contract = new Uint8Array(32).fill(0xcc);
  model.accounts.set(bytesKey(contract), [contract, { nonce: 1, balance: 0n, storage: new Map() }]);
  const init = new WriteBatch();
  for (let i = 0; i < 600; i++) {
    const k = nearKey(rng);
    model.accounts.set(bytesKey(k), [k, { nonce: 0, balance: BigInt(i + 1), storage: new Map() }]);
  }
  for (let i = 0; i < 300; i++) {
    const s = nearKey(rng);
    const w = randomWord(rng);
    model.accounts.get(bytesKey(contract))![1].storage.set(bytesKey(s), [s, w]);
    init.put("hashedStorage", concatBytes(contract, s), w);
  }
  for (const [k, a] of model.accounts.values()) init.put("hashedAccounts", k, encodeAccount(a.nonce, a.balance));
  kv.write(init);
  const full = computeStateRoot(kv);
  kv.write(full.batch);
  assert.equal(hex(full.root), hex(model.root()));

  const hits0 = STATE_ROOT_BOTTOMS.hits;
  let leafRefs = 0;
  for (let round = 0; round < rounds; round++) {
    const batch = new WriteBatch();
    const accounts: Uint8Array[] = [];
    const slots: Uint8Array[] = [];
    const c = model.accounts.get(bytesKey(contract))![1];
    for (let n = 1 + rng.int(4); n > 0; n--) {
      const keys = [...model.accounts.values()].filter(([k]) => bytesKey(k) !== bytesKey(contract));
      const op = rng.int(4);
      if (op === 0 || keys.length < 2) {
        const k = nearKey(rng);
        model.accounts.set(bytesKey(k), [k, { nonce: 0, balance: 7n, storage: new Map() }]);
        batch.put("hashedAccounts", k, encodeAccount(0, 7n));
        accounts.push(k);
      } else if (op === 1) {
        const [k] = rng.pick(keys);
        model.accounts.delete(bytesKey(k));
        batch.del("hashedAccounts", k);
        accounts.push(k);
      } else {
        const [k, a] = rng.pick(keys);
        a.balance += 1n;
        batch.put("hashedAccounts", k, encodeAccount(a.nonce, a.balance));
        accounts.push(k);
      }
      // A storage edit on the contract: new slot, changed slot or cleared slot.
      const cur = [...c.storage.values()];
      const sop = rng.int(3);
      if (sop === 0 || cur.length < 2) {
        const s = nearKey(rng);
        const w = randomWord(rng);
        c.storage.set(bytesKey(s), [s, w]);
        batch.put("hashedStorage", concatBytes(contract, s), w);
        slots.push(s);
      } else {
        const [s] = rng.pick(cur);
        if (sop === 1) {
          const w = randomWord(rng);
          c.storage.set(bytesKey(s), [s, w]);
          batch.put("hashedStorage", concatBytes(contract, s), w);
        } else {
          c.storage.delete(bytesKey(s));
          batch.del("hashedStorage", concatBytes(contract, s));
        }
        slots.push(s);
      }
    }
    kv.write(batch);
    const inc = updateStateRoot(kv, { accounts, storage: [{ hashedAddress: contract, slots }] });
    assert.equal(hex(inc.root), hex(model.root()), `round ${round}: incremental root`);
    kv.write(inc.batch);
    leafRefs += inc.stats.refsAdded;
    if (round % 25 === 24) {
      const again = computeStateRoot(kv);
      assert.equal(hex(again.root), hex(model.root()), `round ${round}: full root`);
      assert.deepEqual(
        again.batch.ops.map((o) => `${o.type} ${o.table} ${hex(o.key)}`),
        [],
        `round ${round}: the stored trie is a full build's`,
      );
    }
  }
  return { hits: STATE_ROOT_BOTTOMS.hits - hits0, leafRefs };
}

describe("trie/bottomCache", () => {
  beforeEach(() => STATE_ROOT_BOTTOMS.clear());

  for (const seed of [11, 12, 13]) {
    it(`small changesets over a clustered state keep every root right (seed ${seed})`, () => {
      const got = run(new MemoryKv(), seed, 150);
      // The cache was in play, not bypassed: walks found cached branches and hung leaves by ref.
      assert.ok(got.hits > 100, `cache hits ${got.hits}`);
      assert.ok(got.leafRefs > 100, `refs ${got.leafRefs}`);
    });
  }

  it("the same on RocksKv", async () => {
    const dir = makeTmpDir();
    const kv = await RocksKv.open(dir, { cacheBytes: 1 << 20 });
    try {
      const got = run(kv, 14, 100);
      assert.ok(got.hits > 50, `cache hits ${got.hits}`);
    } finally {
      await kv.close();
      removeDir(dir);
    }
  });

  // The account trie's records keep their leaves' hashes (branchNodeCompact.ts), so a cold walk
  // there reads no unchanged sibling either; the cache is for the storage tries, whose don't.
  it("an unchanged key reads fewer leaves with the cache than without (a storage trie)", () => {
    const kv = new MemoryKv();
    const rng = new Rng(5);
    const init = new WriteBatch().put("hashedAccounts", CONTRACT, encodeAccount(1, 0n));
    const slots = Array.from({ length: 3000 }, () => rng.bytes(32));
    for (const s of slots) init.put("hashedStorage", concatBytes(CONTRACT, s), rng.bytes(32));
    kv.write(init);
    kv.write(computeStateRoot(kv).batch);
    const touch = (n: number) => {
      kv.write(new WriteBatch().put("hashedStorage", concatBytes(CONTRACT, slots[17]!), Uint8Array.of(n)));
      const r = updateStateRoot(kv, { accounts: [], storage: [{ hashedAddress: CONTRACT, slots: [slots[17]!] }] });
      kv.write(r.batch);
      assert.equal(hex(r.root), hex(computeStateRoot(kv).root));
      return r.stats.leavesRead;
    };
    STATE_ROOT_BOTTOMS.clear();
    // First walk: the branch is not cached, its leaves are read; the second finds it built.
    const cold = touch(1);
    const warm = touch(2);
    assert.ok(cold > 2, `cold walk read ${cold} leaves`);
    assert.equal(warm, 2, "the warm walk reads the changed slot and the contract's row only");
  });

  it("an unchanged extension beside a changed key goes in by its ref, stored branches below it or not", () => {
    // Under root child 1 a stored branch B: a leaf L (nibble 2), a branch (nibble 3, two leaves),
    // an extension over two leaves (nibble 4), and an extension over a stored branch (nibble 5:
    // keys 0x156a…, 0x156a…, 0x156b…, so the branch at 156 keeps a hashed child).
    const key = (b0: number, b1: number, b2: number, fill: number) => {
      const k = new Uint8Array(32).fill(fill);
      k[0] = b0;
      k[1] = b1;
      k[2] = b2;
      return k;
    };
    const L = key(0x12, 0, 0, 1);
    const keys = [
      L,
      key(0x13, 0xa0, 0, 2),
      key(0x13, 0xb0, 0, 3),
      key(0x14, 0x5a, 0, 4),
      key(0x14, 0x5b, 0, 5),
      key(0x15, 0x6a, 0x10, 6),
      key(0x15, 0x6a, 0x20, 7),
      key(0x15, 0x6b, 0, 8),
      key(0x20, 0, 0, 9),
      key(0x30, 0, 0, 10),
    ];
    // As storage slots of one contract (the account trie keeps leaf hashes in its records).
    const kv = new MemoryKv();
    const init = new WriteBatch().put("hashedAccounts", CONTRACT, encodeAccount(1, 0n));
    for (const k of keys) init.put("hashedStorage", concatBytes(CONTRACT, k), new Uint8Array(32).fill(0x77));
    kv.write(init);
    const full = computeStateRoot(kv);
    kv.write(full.batch);
    let parentRoot = full.root;
    const touch = (n: bigint) => {
      kv.write(new WriteBatch().put("hashedStorage", concatBytes(CONTRACT, L), Uint8Array.of(Number(n))));
      const r = updateStateRoot(
        kv,
        { accounts: [], storage: [{ hashedAddress: CONTRACT, slots: [L] }] },
        { parentRoot },
      );
      kv.write(r.batch);
      parentRoot = r.root;
      const again = computeStateRoot(kv);
      assert.equal(hex(r.root), hex(again.root));
      assert.equal(again.batch.size, 0, "the stored branches are those of a full build");
      return r.stats;
    };
    STATE_ROOT_BOTTOMS.clear();
    const cold = touch(1n);
    const warm = touch(2n);
    assert.ok(cold.leavesRead > 1, `cold walk read ${cold.leavesRead} leaves`);
    // The root's record and B's: neither extension's subtrie is read, stored branch or leaves.
    assert.equal(warm.leavesRead, 2, "the warm walk reads the changed slot and the contract's row only");
    assert.equal(warm.nodesRead, 2, "the warm walk reads the records on the changed key's path only");
  });

  it("a stored branch left with one unchanged leaf collapses from the flat leaves, not a cached ref", () => {
    // Root children 1, 2, 3; under 1 a stored branch B with leaf L (nibble 2) and a branch C (nibble
    // 3, two leaves). Editing C makes B's cache entry; deleting C's leaves then leaves L alone, so B
    // goes and L's node (its path starts higher) changes.
    const key = (b0: number, b1: number, fill: number) => {
      const k = new Uint8Array(32).fill(fill);
      k[0] = b0;
      k[1] = b1;
      return k;
    };
    const L = key(0x12, 0x00, 1);
    const C1 = key(0x13, 0xa0, 2);
    const C2 = key(0x13, 0xb0, 3);
    const others = [key(0x20, 0, 4), key(0x30, 0, 5), key(0x21, 0, 6)];
    const kv = new MemoryKv();
    const model = new StateModel();
    const put = (b: WriteBatch, k: Uint8Array, n: bigint) => {
      model.accounts.set(bytesKey(k), [k, { nonce: 0, balance: n, storage: new Map() }]);
      b.put("hashedAccounts", k, encodeAccount(0, n));
    };
    const init = new WriteBatch();
    for (const k of [L, C1, C2, ...others]) put(init, k, 1n);
    kv.write(init);
    kv.write(computeStateRoot(kv).batch);
    const step = (b: WriteBatch, keys: Uint8Array[]) => {
      kv.write(b);
      const r = updateStateRoot(kv, { accounts: keys });
      kv.write(r.batch);
      assert.equal(hex(r.root), hex(model.root()));
      return r;
    };
    const b1 = new WriteBatch();
    put(b1, C1, 2n);
    step(b1, [C1]);
    const b2 = new WriteBatch();
    for (const k of [C1, C2]) {
      model.accounts.delete(bytesKey(k));
      b2.del("hashedAccounts", k);
    }
    // B's entry (L by ref) must not be used: the builder refuses a ref whose branch collapsed.
    step(b2, [C1, C2]);
  });

  it("hands an entry out once and drops the oldest beyond its capacity", () => {
    const c = new BottomCache(2);
    const e = { mask: 3, leafMask: 3, nodeMask: 0, treeMask: 0, data: new Uint8Array(132) };
    const path = Uint8Array.of(1);
    const hash = (b: number) => new Uint8Array(32).fill(b);
    c.set(bottomCacheKey(path, 1, hash(1), 0), e);
    c.set(bottomCacheKey(path, 1, hash(2), 0), e);
    c.set(bottomCacheKey(path, 1, hash(3), 0), e);
    assert.equal(c.size, 2);
    assert.equal(c.take(path, 1, hash(1), 0), undefined, "the oldest went");
    // The path is part of the key: the same hash at another path is another branch.
    assert.equal(c.take(Uint8Array.of(2), 1, hash(2), 0), undefined);
    assert.equal(c.take(path, 1, hash(2), 0), e);
    assert.equal(c.take(path, 1, hash(2), 0), undefined, "taken once");
    assert.equal(c.take(path, 1, hash(3), 0), e);
    assert.equal(c.size, 0);
  });
});
