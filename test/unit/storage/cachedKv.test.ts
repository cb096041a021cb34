import { strict as assert } from "node:assert";
import { CachedKv } from "../../../src/storage/cachedKv.js";
import { WriteBatch } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { inverseBatch } from "../../../src/storage/undo.js";

const k = (n: number): Uint8Array => Uint8Array.of(n);

describe("storage/cachedKv", () => {
  it("serves repeated reads from the cache and counts hits and misses", () => {
    const inner = new MemoryKv();
    inner.write(new WriteBatch().put("code", k(1), k(9)));
    const kv = new CachedKv(inner);
    assert.deepEqual(kv.get("code", k(1)), k(9));
    assert.deepEqual(kv.get("code", k(1)), k(9));
    assert.equal(kv.get("code", k(2)), undefined);
    assert.equal(kv.get("code", k(2)), undefined);
    assert.equal(kv.misses, 2);
    assert.equal(kv.hits, 2);
  });

  it("never serves a stale row after a write or an undo batch through it", () => {
    const kv = new CachedKv(new MemoryKv());
    assert.equal(kv.get("hashedAccounts", k(1)), undefined); // cached miss
    const b = new WriteBatch().put("hashedAccounts", k(1), k(5));
    const undo = inverseBatch(kv, b);
    kv.write(b);
    assert.deepEqual(kv.get("hashedAccounts", k(1)), k(5));
    kv.write(undo);
    assert.equal(kv.get("hashedAccounts", k(1)), undefined);
    kv.write(new WriteBatch().put("hashedAccounts", k(1), k(6)).del("hashedAccounts", k(1)));
    assert.equal(kv.get("hashedAccounts", k(1)), undefined);
  });

  it("a batch whose runs of ops switch tables updates every cached row, and fills a write-through cache", () => {
    const kv = new CachedKv(new MemoryKv(), {
      tables: { hashedAccounts: 16, hashedStorage: 16, code: 16, headers: 16 },
      writeThrough: ["headers"],
    });
    assert.equal(kv.get("hashedAccounts", k(1)), undefined); // cached misses
    assert.equal(kv.get("code", k(3)), undefined);
    const b = new WriteBatch()
      .put("hashedStorage", k(9), k(9)) // a table with nothing cached
      .put("hashedAccounts", k(1), k(5))
      .put("hashedStorage", k(8), k(8))
      .put("code", k(3), k(7))
      .put("headers", k(4), k(4));
    kv.write(b);
    const inner = kv.inner as MemoryKv;
    inner.write(new WriteBatch().del("hashedAccounts", k(1)).del("code", k(3)).del("headers", k(4)));
    // Served from the cache, so they are the batch's rows only if the batch updated it.
    assert.deepEqual(kv.get("hashedAccounts", k(1)), k(5));
    assert.deepEqual(kv.get("code", k(3)), k(7));
    assert.deepEqual(kv.get("headers", k(4)), k(4));
  });

  it("inverseBatch: an insert is undone by a delete without reading the key; mixed with puts, the store is restored", () => {
    const kv = new CachedKv(new MemoryKv());
    kv.write(new WriteBatch().put("hashedStorage", k(1), k(1)));
    const fresh = new WriteBatch().insert("hashedStorage", k(2), k(2)).insert("hashedStorage", k(3), k(3));
    const undoFresh = inverseBatch(kv, fresh);
    assert.equal(kv.misses, 0, "inserts are not read");
    assert.deepEqual(
      undoFresh.ops.map((o) => `${o.type} ${o.key[0]}`),
      ["del 2", "del 3"],
    );
    // An insert after a put of the same key (a writer that was wrong about it), and a put after an
    // insert: the rows read back are restored after the inserts' deletes.
    const mixed = new WriteBatch()
      .insert("hashedStorage", k(2), k(2))
      .put("hashedStorage", k(1), k(3))
      .insert("hashedStorage", k(1), k(4))
      .put("hashedStorage", k(2), k(5));
    const undo = inverseBatch(kv, mixed);
    kv.write(mixed);
    assert.deepEqual(kv.get("hashedStorage", k(1)), k(4));
    assert.deepEqual(kv.get("hashedStorage", k(2)), k(5));
    kv.write(undo);
    assert.deepEqual(kv.get("hashedStorage", k(1)), k(1));
    assert.equal(kv.get("hashedStorage", k(2)), undefined);
  });

  it("returns copies from get and getMany, hit or miss, so a caller mutating a value cannot corrupt the cache", () => {
    const kv = new CachedKv(new MemoryKv());
    kv.write(new WriteBatch().put("code", k(1), k(7)).put("code", k(2), k(8)));
    (kv.get("code", k(1)) as Uint8Array)[0] = 0; // miss
    (kv.get("code", k(1)) as Uint8Array)[0] = 0; // hit
    for (const v of kv.getMany("code", [k(1), k(2)])) (v as Uint8Array)[0] = 0; // a hit and a miss
    for (const v of kv.getMany("code", [k(1), k(2)])) (v as Uint8Array)[0] = 0; // two hits
    assert.deepEqual(kv.get("code", k(1)), k(7));
    assert.deepEqual(kv.getShared("code", k(2)), k(8));
  });

  it("getShared and getManyShared hand out the cached row itself, which a write replaces rather than edits", () => {
    const kv = new CachedKv(new MemoryKv());
    kv.write(new WriteBatch().put("hashedAccounts", k(1), k(5)));
    const first = kv.getShared("hashedAccounts", k(1)); // miss: the store's fresh bytes
    const shared = kv.getShared("hashedAccounts", k(1)) as Uint8Array;
    assert.deepEqual(first, k(5));
    assert.deepEqual(shared, k(5));
    assert.equal(kv.getShared("hashedAccounts", k(1)), shared, "a hit is not copied");
    assert.equal(kv.getManyShared("hashedAccounts", [k(1), k(2)])[0], shared);
    assert.notEqual(kv.get("hashedAccounts", k(1)), shared, "get still copies");
    assert.deepEqual({ hits: kv.hits, misses: kv.misses }, { hits: 4, misses: 2 });
    kv.write(new WriteBatch().put("hashedAccounts", k(1), k(6)));
    assert.deepEqual(shared, k(5), "the bytes handed out before the write are unchanged");
    assert.deepEqual(kv.getShared("hashedAccounts", k(1)), k(6));
    // An uncached table is read through the store's own getShared (MemoryKv: its stored row).
    kv.write(new WriteBatch().put("headers", k(1), k(3)));
    assert.deepEqual(kv.getShared("headers", k(1)), k(3));
    assert.deepEqual(kv.getManyShared("headers", [k(1), k(2)]), [k(3), undefined]);
  });

  it("writeThrough tables cache the rows written, bounded; other tables only the rows read before", () => {
    const kv = new CachedKv(new MemoryKv(), { tables: { bodies: 4, code: 4 }, writeThrough: ["bodies"] });
    const b = new WriteBatch();
    for (let i = 0; i < 6; i++) b.put("bodies", k(i), k(100 + i)).put("code", k(i), k(50 + i));
    kv.write(b);
    assert.deepEqual(kv.get("bodies", k(5)), k(105));
    assert.deepEqual(kv.get("bodies", k(4)), k(104));
    assert.deepEqual({ hits: kv.hits, misses: kv.misses }, { hits: 2, misses: 0 }, "written rows are hits");
    assert.deepEqual(kv.get("bodies", k(0)), k(100), "past the bound the oldest went to the store");
    assert.deepEqual(kv.get("code", k(5)), k(55));
    assert.deepEqual({ hits: kv.hits, misses: kv.misses }, { hits: 2, misses: 2 });
    kv.write(new WriteBatch().del("bodies", k(5)));
    assert.equal(kv.get("bodies", k(5)), undefined, "a deleted row is not served from the cache");
  });

  it("stays bounded and correct past its entry limit", () => {
    const inner = new MemoryKv();
    const b = new WriteBatch();
    for (let i = 0; i < 100; i++) b.put("hashedStorage", k(i), k(i + 1));
    inner.write(b);
    const kv = new CachedKv(inner, { tables: { hashedStorage: 16 } });
    for (let r = 0; r < 3; r++) for (let i = 0; i < 100; i++) assert.deepEqual(kv.get("hashedStorage", k(i)), k(i + 1));
    const many = kv.getMany("hashedStorage", [k(3), k(200), k(99)]);
    assert.deepEqual(many, [k(4), undefined, k(100)]);
  });
});
