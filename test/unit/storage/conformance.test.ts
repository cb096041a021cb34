/**
 * KvStore conformance: the same cases run against every engine (MemoryKv, LmdbKv and RocksKv), so the test
 * backend stays faithful to the production one. Engine-specific behaviour lives in rocksdb.test.ts.
 */
import { strict as assert } from "node:assert";
import { compareBytes } from "../../../src/primitives/bytes.js";
import { CachedKv } from "../../../src/storage/cachedKv.js";
import { type KvCursorOptions, type KvRange, type KvStore, WriteBatch } from "../../../src/storage/kv.js";
import { LmdbKv } from "../../../src/storage/lmdb.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import type { TableName } from "../../../src/storage/tables.js";
import { mulberry32 } from "../../utils/prng.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";

interface Backend {
  readonly name: string;
  open(): Promise<{ kv: KvStore; dispose(): Promise<void> }>;
}

const BACKENDS: Backend[] = [
  {
    name: "MemoryKv",
    async open() {
      const kv = new MemoryKv();
      return { kv, dispose: () => kv.close() };
    },
  },
  {
    // Tiny limits so eviction runs during the cases; cached reads must agree with the model too.
    name: "CachedKv(MemoryKv)",
    async open() {
      const kv = new CachedKv(new MemoryKv(), { tables: { hashedAccounts: 8, hashedStorage: 8, code: 8 } });
      return { kv, dispose: () => kv.close() };
    },
  },
  {
    name: "LmdbKv",
    async open() {
      const dir = makeTmpDir();
      const kv = await LmdbKv.open(dir);
      return {
        kv,
        async dispose() {
          await kv.close();
          removeDir(dir);
        },
      };
    },
  },
  {
    name: "RocksKv",
    async open() {
      const dir = makeTmpDir();
      const kv = await RocksKv.open(dir, { cacheBytes: 1 << 20 });
      return {
        kv,
        async dispose() {
          await kv.close();
          removeDir(dir);
        },
      };
    },
  },
];

const A: TableName = "hashedAccounts";
const B: TableName = "hashedStorage";

const u8 = (...b: number[]): Uint8Array => new Uint8Array(b);

function put(kv: KvStore, table: TableName, entries: [Uint8Array, Uint8Array][]): void {
  const b = new WriteBatch();
  for (const [k, v] of entries) b.put(table, k, v);
  kv.write(b);
}

function collect(kv: KvStore, table: TableName, range?: KvRange): [Uint8Array, Uint8Array][] {
  return [...kv.iterate(table, range)];
}

/** Reference semantics of `iterate` over a model list of entries. */
function model(entries: [Uint8Array, Uint8Array][], range: KvRange = {}): [Uint8Array, Uint8Array][] {
  let out = entries
    .filter(
      ([k]) =>
        (range.gte === undefined || compareBytes(k, range.gte) >= 0) &&
        (range.lt === undefined || compareBytes(k, range.lt) < 0),
    )
    .sort((a, b) => compareBytes(a[0], b[0]));
  if (range.reverse) out = out.reverse();
  return out.slice(0, Math.max(0, range.limit ?? out.length));
}

/** Reference cursor: index of the first entry of sorted `entries` a seek to `target` lands on (-1: none). */
function modelSeek(sorted: [Uint8Array, Uint8Array][], target: Uint8Array, opts: KvCursorOptions = {}): number {
  const t = opts.gte !== undefined && compareBytes(target, opts.gte) < 0 ? opts.gte : target;
  const i = sorted.findIndex(([k]) => compareBytes(k, t) >= 0);
  if (i < 0) return -1;
  return opts.lt !== undefined && compareBytes(sorted[i]![0], opts.lt) >= 0 ? -1 : i;
}

function modelNext(sorted: [Uint8Array, Uint8Array][], i: number, opts: KvCursorOptions = {}): number {
  if (i < 0 || i + 1 >= sorted.length) return -1;
  return opts.lt !== undefined && compareBytes(sorted[i + 1]![0], opts.lt) >= 0 ? -1 : i + 1;
}

/**
 * 3000 distinct keys of 0–6 bytes drawn from a tiny alphabet (0x00, 0x01, 0x7f, 0xff), so that many
 * keys are prefixes of others and runs like k, k‖00, k‖00‖00 straddle the engines' chunk edges.
 */
function prefixHeavyEntries(n: number): [Uint8Array, Uint8Array][] {
  const rnd = mulberry32(7);
  const alphabet = [0x00, 0x01, 0x7f, 0xff];
  const seen = new Set<string>();
  const out: [Uint8Array, Uint8Array][] = [];
  while (out.length < n) {
    const len = Math.floor(rnd() * 7);
    const k = new Uint8Array(len);
    for (let i = 0; i < len; i++) k[i] = alphabet[Math.floor(rnd() * 4)]!;
    const id = Buffer.from(k).toString("hex");
    if (seen.has(id)) continue;
    seen.add(id);
    out.push([k, u8(out.length & 0xff, out.length >> 8)]);
  }
  return out;
}

for (const backend of BACKENDS) {
  describe(`storage/conformance: ${backend.name}`, () => {
    let kv: KvStore;
    let dispose: () => Promise<void>;

    beforeEach(async () => {
      ({ kv, dispose } = await backend.open());
    });
    afterEach(async () => {
      await dispose();
    });

    it("get: missing is undefined, a put is read back as a plain Uint8Array", () => {
      assert.equal(kv.get(A, u8(1)), undefined);
      put(kv, A, [[u8(1), u8(9, 8, 7)]]);
      const v = kv.get(A, u8(1));
      assert.deepEqual(v, u8(9, 8, 7));
      assert.equal(Object.getPrototypeOf(v), Uint8Array.prototype);
    });

    it("values are copied in and out", () => {
      const key = u8(1, 2);
      const value = u8(5, 5, 5);
      put(kv, A, [[key, value]]);
      key[0] = 0xee;
      value[0] = 0xee;
      const got = kv.get(A, u8(1, 2))!;
      assert.deepEqual(got, u8(5, 5, 5));
      got[0] = 0xaa;
      assert.deepEqual(kv.get(A, u8(1, 2)), u8(5, 5, 5));
      assert.deepEqual(kv.getMany(A, [u8(1, 2)]), [u8(5, 5, 5)]);
      const [[k, v]] = collect(kv, A);
      k![0] = 0xaa;
      v![0] = 0xaa;
      assert.deepEqual(collect(kv, A), [[u8(1, 2), u8(5, 5, 5)]]);
    });

    it("Buffer inputs are copied too", () => {
      const value = Buffer.from([1, 2, 3]);
      put(kv, A, [[Buffer.from([1]), value]]);
      value[0] = 0xee;
      assert.deepEqual(kv.get(A, u8(1)), u8(1, 2, 3));
    });

    it("keys and values given as subarray views are read at their offsets", () => {
      const backing = u8(0xaa, 1, 2, 3, 0xbb, 0xcc, 7, 7, 0xdd);
      put(kv, A, [[backing.subarray(1, 4), backing.subarray(6, 8)]]);
      assert.deepEqual(kv.get(A, u8(1, 2, 3)), u8(7, 7));
      assert.deepEqual(kv.get(A, backing.subarray(1, 4)), u8(7, 7));
      assert.equal(kv.get(A, backing.subarray(0, 4)), undefined);
    });

    it("getMany: order, hits, misses, duplicates, empty list", () => {
      put(kv, A, [
        [u8(1), u8(10)],
        [u8(3), u8(30)],
      ]);
      assert.deepEqual(kv.getMany(A, [u8(3), u8(2), u8(1), u8(3)]), [u8(30), undefined, u8(10), u8(30)]);
      assert.deepEqual(kv.getMany(A, []), []);
      assert.deepEqual(kv.getMany(B, [u8(1)]), [undefined]);
    });

    it("the empty key and the empty value are ordinary entries", () => {
      put(kv, A, [
        [u8(), u8(1)],
        [u8(0), u8()],
      ]);
      assert.deepEqual(kv.get(A, u8()), u8(1));
      assert.deepEqual(kv.get(A, u8(0)), u8());
      assert.deepEqual(kv.getMany(A, [u8(), u8(0), u8(1)]), [u8(1), u8(), undefined]);
      assert.deepEqual(collect(kv, A), [
        [u8(), u8(1)],
        [u8(0), u8()],
      ]);
      assert.deepEqual(collect(kv, A, { gte: u8(), lt: u8(0) }), [[u8(), u8(1)]]);
      assert.deepEqual(collect(kv, A, { reverse: true }), [
        [u8(0), u8()],
        [u8(), u8(1)],
      ]);
      kv.write(new WriteBatch().del(A, u8()));
      assert.equal(kv.get(A, u8()), undefined);
    });

    it("tables are independent key spaces", () => {
      put(kv, A, [[u8(1), u8(1)]]);
      put(kv, B, [[u8(1), u8(2)]]);
      assert.deepEqual(kv.get(A, u8(1)), u8(1));
      assert.deepEqual(kv.get(B, u8(1)), u8(2));
      assert.equal(kv.get("code", u8(1)), undefined);
      assert.equal(collect(kv, "code").length, 0);
    });

    it("a batch applies its ops in order: put/del of the same key, last op wins", () => {
      put(kv, A, [[u8(1), u8(1)]]);
      kv.write(
        new WriteBatch().put(A, u8(2), u8(2)).del(A, u8(2)).del(A, u8(1)).put(A, u8(1), u8(3)).put(A, u8(1), u8(4)),
      );
      assert.equal(kv.get(A, u8(2)), undefined);
      assert.deepEqual(kv.get(A, u8(1)), u8(4));
      kv.write(new WriteBatch().del(A, u8(9))); // deleting a missing key is fine
      kv.write(new WriteBatch()); // so is an empty batch
      kv.write(new WriteBatch().put(A, u8(5), u8(5)), { sync: true });
      assert.deepEqual(kv.get(A, u8(5)), u8(5));
    });

    it("a cross-table batch is all or nothing: an unknown table fails it before any op lands", () => {
      put(kv, A, [[u8(1), u8(1)]]);
      const bad = new WriteBatch()
        .put(A, u8(1), u8(2))
        .put(B, u8(1), u8(2))
        .put("nope" as TableName, u8(1), u8(2));
      assert.throws(() => kv.write(bad));
      assert.deepEqual(kv.get(A, u8(1)), u8(1));
      assert.equal(kv.get(B, u8(1)), undefined);
      // Nothing of the failed batch leaks into the next one.
      kv.write(new WriteBatch().put(B, u8(7), u8(7)));
      assert.deepEqual(kv.get(A, u8(1)), u8(1));
      assert.equal(kv.get(B, u8(1)), undefined);
      assert.deepEqual(kv.get(B, u8(7)), u8(7));
    });

    it("a 1 MiB value round-trips", () => {
      const big = new Uint8Array(1 << 20);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
      put(kv, "code", [[u8(1), big]]);
      assert.deepEqual(kv.get("code", u8(1)), big);
      assert.deepEqual(collect(kv, "code")[0]![1], big);
    });

    it("iterate: byte order, bounds (gte inclusive, lt exclusive), reverse, limit", () => {
      const entries: [Uint8Array, Uint8Array][] = [
        [u8(0xff), u8(1)],
        [u8(0x00), u8(2)],
        [u8(0x01, 0x00), u8(3)],
        [u8(0x01), u8(4)],
        [u8(0x01, 0xff), u8(5)],
        [u8(0x02), u8(6)],
        [u8(0x80, 0x00, 0x00), u8(7)],
      ];
      put(kv, A, entries);
      const ranges: KvRange[] = [
        {},
        { reverse: true },
        { gte: u8(0x01) },
        { lt: u8(0x01, 0xff) },
        { gte: u8(0x01), lt: u8(0x02) },
        { gte: u8(0x01, 0x00), lt: u8(0x80), reverse: true },
        { limit: 2 },
        { limit: 2, reverse: true },
        { gte: u8(0x01), limit: 1 },
        { lt: u8(0x01), reverse: true, limit: 1 },
        { limit: 100 },
        { gte: u8(0x03), lt: u8(0x80) },
      ];
      for (const r of ranges) assert.deepEqual(collect(kv, A, r), model(entries, r), JSON.stringify(r));
    });

    it("iterate: empty results (empty table, limit 0, gte ≥ lt, lt at the first key)", () => {
      assert.deepEqual(collect(kv, A), []);
      put(kv, A, [
        [u8(1), u8(1)],
        [u8(2), u8(2)],
      ]);
      assert.deepEqual(collect(kv, A, { limit: 0 }), []);
      assert.deepEqual(collect(kv, A, { gte: u8(2), lt: u8(2) }), []);
      assert.deepEqual(collect(kv, A, { gte: u8(3), lt: u8(1) }), []);
      assert.deepEqual(collect(kv, A, { lt: u8(1) }), []);
      assert.deepEqual(collect(kv, A, { gte: u8(3), reverse: true }), []);
    });

    it("iterate: 3000 prefix-heavy keys match the model for many ranges (across chunk edges)", () => {
      const entries = prefixHeavyEntries(3000);
      put(kv, A, entries);
      const sorted = model(entries);
      const rnd = mulberry32(11);
      const ranges: KvRange[] = [{}, { reverse: true }, { limit: 1000 }, { limit: 1500, reverse: true }];
      for (let i = 0; i < 12; i++) {
        const a = sorted[Math.floor(rnd() * sorted.length)]![0];
        const b = sorted[Math.floor(rnd() * sorted.length)]![0];
        const [lo, hi] = compareBytes(a, b) <= 0 ? [a, b] : [b, a];
        ranges.push({ gte: lo, lt: hi, reverse: i % 2 === 1 }, { gte: lo, limit: 100 + i * 50, reverse: i % 3 === 0 });
      }
      for (const r of ranges) {
        const got = collect(kv, A, r);
        const want = model(entries, r);
        assert.equal(got.length, want.length, JSON.stringify(r));
        assert.deepEqual(got, want);
      }
    });

    it("iterate: stopping early leaves the store usable", () => {
      put(
        kv,
        A,
        Array.from({ length: 200 }, (_, i) => [u8(i >> 8, i & 0xff), u8(i & 0xff)] as [Uint8Array, Uint8Array]),
      );
      let n = 0;
      for (const _ of kv.iterate(A)) if (++n === 3) break;
      assert.equal(n, 3);
      put(kv, A, [[u8(9, 9), u8(1)]]);
      assert.equal(collect(kv, A).length, 201);
    });

    it("cursor: empty table, then seek and next over a few keys (the empty key included)", () => {
      const c0 = kv.cursor(A);
      assert.equal(c0.valid, false);
      assert.equal(c0.seek(u8()), false);
      assert.equal(c0.valid, false);
      assert.equal(c0.next(), false);
      c0.close();
      put(kv, A, [
        [u8(), u8(1)],
        [u8(0), u8(2)],
        [u8(0, 0), u8(3)],
        [u8(1), u8(4)],
        [u8(0xff, 0xff), u8(5)],
      ]);
      const c = kv.cursor(A);
      try {
        assert.equal(c.seek(u8()), true);
        assert.deepEqual([c.key, c.value], [u8(), u8(1)]);
        const seen: number[] = [c.value[0]!];
        while (c.next()) seen.push(c.value[0]!);
        assert.deepEqual(seen, [1, 2, 3, 4, 5]);
        assert.equal(c.valid, false);
        assert.equal(c.next(), false, "next at the end stays at the end");
        assert.equal(c.seek(u8(0, 0, 0)), true);
        assert.deepEqual(c.key, u8(1));
        assert.equal(c.seek(u8(0)), true, "a seek backwards");
        assert.deepEqual(c.key, u8(0));
        assert.equal(c.seek(u8(0xff, 0xff, 0)), false);
        assert.equal(c.seek(u8(0xff)), true);
        assert.deepEqual([c.key, c.value], [u8(0xff, 0xff), u8(5)]);
        assert.equal(Object.getPrototypeOf(c.key), Uint8Array.prototype);
        assert.equal(Object.getPrototypeOf(c.value), Uint8Array.prototype);
        // Returned bytes are the caller's.
        c.key[0] = 0;
        c.value[0] = 0;
        assert.deepEqual(kv.get(A, u8(0xff, 0xff)), u8(5));
      } finally {
        c.close();
      }
    });

    it("cursor: bounds (gte inclusive, lt exclusive, empty bounds)", () => {
      const entries: [Uint8Array, Uint8Array][] = [0, 1, 2, 3, 4, 5].map((i) => [u8(i * 2), u8(i)]);
      put(kv, A, entries);
      const cases: [KvCursorOptions, Uint8Array, number[]][] = [
        [{ gte: u8(3), lt: u8(8) }, u8(0), [4, 6]],
        [{ gte: u8(4) }, u8(), [4, 6, 8, 10]],
        [{ lt: u8(4) }, u8(1), [2]],
        [{ lt: u8(4) }, u8(4), []],
        [{ gte: u8(), lt: u8(0, 0) }, u8(), [0]],
        [{ lt: u8() }, u8(), []],
        [{ gte: u8(7), lt: u8(7) }, u8(0), []],
      ];
      for (const [opts, from, want] of cases) {
        const c = kv.cursor(A, opts);
        const got: number[] = [];
        for (let ok = c.seek(from); ok; ok = c.next()) got.push(c.key[0]!);
        c.close();
        assert.deepEqual(got, want, JSON.stringify({ opts, from }));
      }
    });

    it("cursor: 3000 prefix-heavy keys, random seeks (forward, short hops, backwards) and nexts match the model", () => {
      const entries = prefixHeavyEntries(3000);
      put(kv, A, entries);
      const sorted = model(entries);
      const rnd = mulberry32(5);
      const pick = (): Uint8Array => {
        const k = sorted[Math.floor(rnd() * sorted.length)]![0];
        if (rnd() < 0.5) return k;
        const t = new Uint8Array(k.length + 1); // just after k
        t.set(k);
        return t;
      };
      for (const opts of [{}, { gte: pick(), lt: u8(0xff, 0x00) }, { lt: pick() }]) {
        const c = kv.cursor(A, opts);
        try {
          let want = -1;
          let target = pick();
          for (let step = 0; step < 3000; step++) {
            const r = rnd();
            if (r < 0.3) {
              // A forward hop of a few keys: usually inside the rows read ahead.
              const i = Math.min(sorted.length - 1, Math.max(0, want) + Math.floor(rnd() * 6));
              target = sorted[i]![0];
              want = modelSeek(sorted, target, opts);
              assert.equal(c.seek(target), want >= 0);
            } else if (r < 0.4) {
              target = pick();
              want = modelSeek(sorted, target, opts);
              assert.equal(c.seek(target), want >= 0);
            } else {
              want = modelNext(sorted, want, opts);
              assert.equal(c.next(), want >= 0);
            }
            assert.equal(c.valid, want >= 0, `step ${step}`);
            if (want >= 0) {
              assert.deepEqual(c.key, sorted[want]![0], `step ${step}`);
              assert.deepEqual(c.value, sorted[want]![1], `step ${step}`);
            }
          }
        } finally {
          c.close();
        }
      }
    });

    it("cursor: a long walk with next reads everything, 1 MiB values included", () => {
      const big = new Uint8Array(1 << 20).fill(7);
      const entries: [Uint8Array, Uint8Array][] = Array.from({ length: 3000 }, (_, i) => [
        u8(i >> 8, i & 0xff),
        i % 500 === 3 ? big : u8(i & 0xff),
      ]);
      put(kv, A, entries);
      const c = kv.cursor(A);
      let n = 0;
      for (let ok = c.seek(u8()); ok; ok = c.next()) {
        assert.deepEqual(c.key, entries[n]![0]);
        assert.equal(c.value.length, entries[n]![1].length);
        n++;
      }
      c.close();
      assert.equal(n, 3000);
    });

    it("cursor: close is idempotent, a closed cursor throws CLOSED, closing the store closes its cursors", async () => {
      put(kv, A, [[u8(1), u8(1)]]);
      const c = kv.cursor(A);
      assert.equal(c.seek(u8(1)), true);
      c.close();
      c.close();
      assert.throws(() => c.seek(u8(1)), { code: "CLOSED" });
      assert.throws(() => c.next(), { code: "CLOSED" });
      // Writes made while a cursor is open are seen by cursors made afterwards.
      const open = kv.cursor(A);
      assert.equal(open.seek(u8(0)), true);
      put(kv, A, [[u8(0), u8(0)]]);
      const fresh = kv.cursor(A);
      assert.equal(fresh.seek(u8(0)), true);
      assert.deepEqual(fresh.key, u8(0));
      fresh.close();
      assert.throws(() => kv.cursor("nope" as TableName));
      await kv.close();
      assert.throws(() => open.seek(u8(1)));
      assert.throws(() => kv.cursor(A));
      open.close();
    });

    it("an unknown table throws on read", () => {
      assert.throws(() => kv.get("nope" as TableName, u8(1)));
      assert.throws(() => kv.getMany("nope" as TableName, [u8(1)]));
      assert.throws(() => collect(kv, "nope" as TableName));
    });

    it("after close every call throws; close is idempotent", async () => {
      put(kv, A, [[u8(1), u8(1)]]);
      await kv.close();
      assert.throws(() => kv.get(A, u8(1)));
      assert.throws(() => kv.getMany(A, [u8(1)]));
      assert.throws(() => collect(kv, A));
      assert.throws(() => kv.write(new WriteBatch().put(A, u8(1), u8(2))));
      await kv.close();
    });
  });
}
