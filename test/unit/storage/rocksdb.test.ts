/**
 * RocksKv and the @nxtedition/rocksdb calls it relies on. The "binding" block exercises every
 * private or undocumented call listed in src/storage/rocksBinding.ts directly on a raw RocksLevel,
 * so a binding upgrade that changes one fails here, next to its name. Workers: sharedHandle.test.ts;
 * crash durability: crash.test.ts; engine-neutral behaviour: conformance.test.ts.
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../../src/storage/engine.js";
import { WriteBatch } from "../../../src/storage/kv.js";
import {
  type RocksLevelDb,
  rocksBatchNative,
  rocksBindingVersion,
  rocksDbContext,
  rocksLevel,
} from "../../../src/storage/rocksBinding.js";
import {
  DEFAULT_MEMTABLE_BYTES,
  LOG_SYNC_KEY,
  MAX_CACHE_BYTES,
  MIN_TABLE_MEMTABLE_BYTES,
  memtableBudgets,
  RocksKv,
} from "../../../src/storage/rocksdb.js";
import { TABLE_NAMES } from "../../../src/storage/tables.js";
import { REPO_ROOT } from "../../utils/fixtures.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";

const u8 = (...b: number[]): Uint8Array => new Uint8Array(b);

/** write_buffer_size of each column family as RocksDB recorded it in the newest OPTIONS file of `dir`. */
function writeBufferSizes(dir: string): Map<string, number> {
  const files = readdirSync(dir).filter((f) => f.startsWith("OPTIONS-"));
  const newest = files.sort((a, b) => Number(a.slice(8)) - Number(b.slice(8))).at(-1)!;
  const out = new Map<string, number>();
  let cf = "";
  for (const line of readFileSync(join(dir, newest), "utf8").split("\n")) {
    const head = /^\[CFOptions "(.*)"\]/.exec(line);
    if (head !== null) cf = head[1]!;
    const m = /^\s*write_buffer_size=(\d+)/.exec(line);
    if (m !== null && cf !== "") out.set(cf, Number(m[1]));
  }
  return out;
}
/** A DBOptions value as RocksDB recorded it in the newest OPTIONS file of `dir`. */
function dbOption(dir: string, name: string): string | undefined {
  const files = readdirSync(dir).filter((f) => f.startsWith("OPTIONS-"));
  const newest = files.sort((a, b) => Number(a.slice(8)) - Number(b.slice(8))).at(-1)!;
  let inDb = false;
  for (const line of readFileSync(join(dir, newest), "utf8").split("\n")) {
    if (line.startsWith("[")) inDb = line.startsWith("[DBOptions]");
    const m = /^\s*([a-z_]+)=(.*)$/.exec(line);
    if (inDb && m !== null && m[1] === name) return m[2];
  }
  return undefined;
}
const ENC = { keyEncoding: "buffer", valueEncoding: "buffer" } as const;

/** Writes `rows` ([key, value, column] each) to `db` in one batch through the napi functions. */
function putRows(db: RocksLevelDb, rows: readonly (readonly [Uint8Array, Uint8Array, string])[]): void {
  const n = rocksBatchNative();
  const b = n.batch_init();
  for (const [k, v, col] of rows) n.batch_put(b, k, v, { column: db.columns[col]! });
  n.batch_write(rocksDbContext(db), b, { sync: false });
}

function storageError(code: string): (e: unknown) => boolean {
  return (e: unknown) => (e as { name?: string }).name === "StorageError" && (e as { code?: string }).code === code;
}

describe("storage/rocksdb", () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTmpDir();
  });
  afterEach(() => {
    removeDir(dir);
  });

  describe("binding (private and undocumented calls)", () => {
    let db: RocksLevelDb;
    beforeEach(async () => {
      const RocksLevel = rocksLevel();
      db = new RocksLevel(dir, ENC);
      await db.open({ createIfMissing: true, columns: { default: {}, a: { cacheSize: 1 << 20 }, b: {} } });
    });
    afterEach(async () => {
      await db.close();
    });

    it("is @nxtedition/rocksdb 12.2.12, pinned exactly in package.json", () => {
      assert.equal(rocksBindingVersion(), "12.2.12");
      const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
      assert.equal(pkg.dependencies["@nxtedition/rocksdb"], "12.2.12");
    });

    it("open({columns}) lists every column family, default included", () => {
      assert.deepEqual(Object.keys(db.columns).sort(), ["a", "b", "default"]);
      assert.equal(typeof db.columns.a, "object");
    });

    it("napi batch_*: put/del with {column}, count, write on the DB context, clear, reuse", () => {
      const n = rocksBatchNative();
      const ctx = rocksDbContext(db);
      assert.equal(rocksDbContext(db), ctx); // the same native context each time
      const b = n.batch_init();
      n.batch_put(b, u8(1), u8(10), { column: db.columns.a! });
      n.batch_put(b, u8(1), u8(20), { column: db.columns.b! });
      const k = u8(2);
      n.batch_put(b, k, u8(30), { column: db.columns.a! });
      k[0] = 3; // the batch copied the key
      n.batch_del(b, u8(2), { column: db.columns.a! });
      n.batch_put(b, u8(4), u8(40), { column: db.columns.a! });
      assert.equal(n.batch_count(b), 5);
      const s0 = db.sequence;
      n.batch_write(ctx, b, { sync: false });
      assert.equal(db.sequence, s0 + 5);
      assert.equal(n.batch_count(b), 5); // a write keeps the ops
      n.batch_clear(b);
      assert.equal(n.batch_count(b), 0);
      n.batch_write(ctx, b, { sync: true }); // an empty (cleared) batch writes nothing
      assert.equal(db.sequence, s0 + 5);
      const a = db._getManySync([u8(1), u8(2), u8(3), u8(4)], { column: db.columns.a! });
      assert.deepEqual(a, [Buffer.from([10]), undefined, undefined, Buffer.from([40])]);
      assert.deepEqual(db._getManySync([u8(1)], { column: db.columns.b! }), [Buffer.from([20])]);
      n.batch_put(b, u8(5), u8(50), { column: db.columns.b! }); // reused after a clear
      n.batch_write(ctx, b, { sync: false });
      assert.deepEqual(db._getManySync([u8(5)], { column: db.columns.b! }), [Buffer.from([50])]);
      assert.throws(() => n.batch_put(b, u8(6), null as unknown as Uint8Array, { column: db.columns.a! }));
    });

    it("_getManySync: hits, misses, per-column, Uint8Array keys, fresh Buffer per value", () => {
      putRows(
        db,
        Array.from({ length: 100 }, (_, i) => [u8(i), u8(i, i), "a"]),
      );
      const keys = [u8(5), u8(200), u8(99), new Uint8Array([7, 1, 2]).subarray(0, 1)];
      const got = db._getManySync(keys, { column: db.columns.a! });
      assert.deepEqual(got, [Buffer.from([5, 5]), undefined, Buffer.from([99, 99]), Buffer.from([7, 7])]);
      assert.ok(Buffer.isBuffer(got[0]));
      assert.notEqual(got[0]!.buffer, got[2]!.buffer);
      assert.deepEqual(db._getManySync([u8(5)], { column: db.columns.b! }), [undefined]);
      assert.deepEqual(db._getManySync([], { column: db.columns.a! }), []);
      assert.deepEqual(db._getManySync([u8(5)], { column: db.columns.a!, fillCache: false }), [Buffer.from([5, 5])]);
    });

    it("querySync: gte/lt/reverse/limit per column, rows interleaved, finished flag", () => {
      putRows(db, [...Array.from({ length: 10 }, (_, i) => [u8(i), u8(100 + i), "a"] as const), [u8(3), u8(0), "b"]]);
      const q = (o: object) => db.querySync({ column: db.columns.a!, ...ENC, ...o });
      const keysOf = (rows: Buffer[]) => rows.filter((_, i) => i % 2 === 0).map((k) => k[0]);
      let r = q({ gte: u8(2), lt: u8(5) });
      assert.deepEqual(keysOf(r.rows), [2, 3, 4]);
      assert.deepEqual(r.rows[1], Buffer.from([102]));
      assert.equal(r.finished, true);
      r = q({ gte: u8(2), lt: u8(8), reverse: true, limit: 2 });
      assert.deepEqual(keysOf(r.rows), [7, 6]);
      assert.equal(r.finished, true); // also true when `limit` stopped it
      r = q({ highWaterMarkBytes: 1 });
      assert.deepEqual(keysOf(r.rows), [0]); // stopped by bytes after one row
      assert.equal(r.finished, false);
      r = q({});
      assert.equal(r.rows.length, 20);
      assert.deepEqual(keysOf(db.querySync({ column: db.columns.b!, ...ENC }).rows), [3]);
    });

    it("iterator(): _seekSync, _nextvSync chunks, bounds quirks, snapshot at creation, _closeSync + detachResource", () => {
      putRows(
        db,
        Array.from({ length: 10 }, (_, i) => [u8(i * 2), u8(100 + i), "a"]),
      );
      const it = db.iterator({ column: db.columns.a!, ...ENC, gte: u8(4), lt: u8(16), fillCache: true });
      const keysOf = (rows: Buffer[]) => rows.filter((_, i) => i % 2 === 0).map((k) => k[0]);
      // Unpositioned: starts at the lower bound.
      let r = it._nextvSync(2);
      assert.deepEqual(keysOf(r.rows), [4, 6]);
      assert.deepEqual(r.rows[1], Buffer.from([102]));
      assert.equal(r.finished, false); // the count stopped it
      r = it._nextvSync(100);
      assert.deepEqual(keysOf(r.rows), [8, 10, 12, 14]);
      assert.equal(r.finished, true);
      it._seekSync(u8(9));
      assert.deepEqual(keysOf(it._nextvSync(1).rows), [10]);
      it._seekSync(u8(5)); // backwards is fine
      assert.deepEqual(keysOf(it._nextvSync(1).rows), [6]);
      // A target below gte or at/above lt leaves the iterator past the end (RocksKv clamps first).
      it._seekSync(u8(2));
      assert.deepEqual(it._nextvSync(5), { rows: [], finished: true });
      it._seekSync(u8(16));
      assert.deepEqual(it._nextvSync(5).rows, []);
      assert.throws(() => it._seekSync(new Uint8Array(0)), /empty target/);
      // Writes after creation are not seen (implicit snapshot).
      putRows(db, [[u8(7), u8(1), "a"]]);
      it._seekSync(u8(6));
      assert.deepEqual(keysOf(it._nextvSync(2).rows), [6, 8]);
      it._closeSync();
      it._closeSync();
      db.detachResource(it);
      const fresh = db.iterator({ column: db.columns.a!, ...ENC, gte: u8(6), lt: u8(8) });
      assert.deepEqual(keysOf(fresh._nextvSync(5).rows), [6, 7]);
      fresh._closeSync();
      db.detachResource(fresh);
    });

    it("handle is a BigInt; sequence grows with each write", () => {
      assert.equal(typeof db.handle, "bigint");
      const s0 = db.sequence;
      putRows(db, [
        [u8(1), u8(1), "a"],
        [u8(2), u8(1), "b"],
      ]);
      assert.equal(db.sequence, s0 + 2);
    });

    it("new RocksLevel(handle) + open() on an open DB only lists its columns and sees its data", async () => {
      putRows(db, [[u8(1), u8(42), "a"]]);
      const RocksLevel = rocksLevel();
      const view = new RocksLevel(db.handle, ENC);
      await view.open({ createIfMissing: false });
      assert.deepEqual(Object.keys(view.columns).sort(), ["a", "b", "default"]);
      assert.deepEqual(view._getManySync([u8(1)], { column: view.columns.a! }), [Buffer.from([42])]);
      assert.equal(view.location, db.location);
      // Never view.close(): it would close the shared native DB.
    });

    it("reopening without naming every existing column family fails (why RocksKv lists all tables)", async () => {
      await db.close();
      const RocksLevel = rocksLevel();
      const partial = new RocksLevel(dir, ENC);
      await assert.rejects(partial.open({ columns: { default: {}, a: {} } }), (e: Error) => {
        assert.match(String(e.cause), /Column families not opened: b/);
        return true;
      });
      db = new RocksLevel(dir, ENC);
      await db.open({ columns: { default: {}, a: {}, b: {} } });
    });
  });

  describe("RocksKv", () => {
    it("creates one column family per table (reopen needs them all) and persists across reopen", async () => {
      let kv = await RocksKv.open(dir);
      const b = new WriteBatch();
      for (const [i, t] of TABLE_NAMES.entries()) b.put(t, u8(1, i), u8(2, i));
      kv.write(b, { sync: true });
      await kv.close();

      const RocksLevel = rocksLevel();
      const raw = new RocksLevel(dir, ENC);
      await assert.rejects(raw.open({ columns: { default: {} } }), (e: Error) => {
        assert.match(String(e.cause), /Column families not opened: .*hashedAccounts/);
        return true;
      });

      kv = await RocksKv.open(dir, { createIfMissing: false });
      for (const [i, t] of TABLE_NAMES.entries()) assert.deepEqual(kv.get(t, u8(1, i)), u8(2, i), t);
      assert.deepEqual([...kv.iterate("meta")], [[u8(1, 0), u8(2, 0)]]);
      await kv.close();
    });

    it("open fails with OPEN_FAILED: missing DB without createIfMissing, a second open, an unknown CF", async () => {
      await assert.rejects(RocksKv.open(join(dir, "absent"), { createIfMissing: false }), storageError("OPEN_FAILED"));

      const kv = await RocksKv.open(dir);
      await assert.rejects(RocksKv.open(dir), storageError("OPEN_FAILED")); // LOCK held by this process
      await kv.close();

      // A DB holding a column family that TABLES does not list (e.g. written by a newer Opal).
      const RocksLevel = rocksLevel();
      const raw = new RocksLevel(dir, ENC);
      const columns: Record<string, object> = { default: {}, fromTheFuture: {} };
      for (const t of TABLE_NAMES) columns[t] = {};
      await raw.open({ columns });
      await raw.close();
      await assert.rejects(RocksKv.open(dir), (e: unknown) => {
        assert.ok(storageError("OPEN_FAILED")(e));
        assert.match((e as Error).message, /fromTheFuture/);
        return true;
      });
    });

    it("rejects cache sizes the binding would wrap (uint32) with BAD_OPTION", async () => {
      await assert.rejects(RocksKv.open(dir, { cacheBytes: 4 * 1024 ** 3 }), storageError("BAD_OPTION"));
      await assert.rejects(RocksKv.open(dir, { tableCacheBytes: { code: 2 ** 33 } }), storageError("BAD_OPTION"));
      await assert.rejects(RocksKv.open(dir, { cacheBytes: -1 }), storageError("BAD_OPTION"));
      await assert.rejects(RocksKv.open(dir, { parallelism: 0 }), storageError("BAD_OPTION"));
      const kv = await RocksKv.open(dir, {
        cacheBytes: MAX_CACHE_BYTES,
        tableCacheBytes: { meta: 0 },
        compression: false,
      });
      kv.write(new WriteBatch().put("meta", u8(1), u8(1)));
      assert.deepEqual(kv.get("meta", u8(1)), u8(1));
      await kv.close();
    });

    it("memtableBudgets: split by weight, at least the floor each, within the total above the floors", () => {
      const total = 64 * 1024 * 1024;
      const b = memtableBudgets(total);
      assert.deepEqual(Object.keys(b).sort(), [...TABLE_NAMES].sort());
      let sum = 0;
      for (const t of TABLE_NAMES) {
        assert.ok(Number.isInteger(b[t]) && b[t] >= MIN_TABLE_MEMTABLE_BYTES, t);
        sum += b[t];
      }
      assert.ok(sum <= total, `${sum} > ${total}`);
      assert.ok(sum > total - TABLE_NAMES.length, `${sum} leaves budget unused`);
      // The state commit's tables get more than the rarely written ones.
      assert.ok(b.accountTrie > b.headers && b.headers > b.meta);
      assert.equal(b.accountTrie, b.history);
      for (const t of TABLE_NAMES) assert.equal(memtableBudgets(0)[t], MIN_TABLE_MEMTABLE_BYTES, t);
      assert.throws(() => memtableBudgets(-1), storageError("BAD_OPTION"));
      assert.throws(() => memtableBudgets(0.5), storageError("BAD_OPTION"));
    });

    it("every column family gets a write buffer of a quarter of its memtable budget (RocksDB's OPTIONS file)", async () => {
      const kv = await RocksKv.open(dir);
      await kv.close();
      const sizes = writeBufferSizes(dir);
      const budgets = memtableBudgets(DEFAULT_MEMTABLE_BYTES);
      for (const t of TABLE_NAMES) assert.equal(sizes.get(t), Math.floor(budgets[t] / 4), t);
      assert.equal(sizes.get("default"), MIN_TABLE_MEMTABLE_BYTES / 4);

      // openStore takes the budget from --cache; a reopen applies the new sizes to the old store.
      const store = await openStore(dir, "rocksdb", { cacheMb: 256 });
      await store.close();
      const after = writeBufferSizes(dir);
      const bigger = memtableBudgets((256 * 1024 * 1024) / 32);
      for (const t of TABLE_NAMES) assert.equal(after.get(t), Math.floor(bigger[t] / 4), t);
    });

    it("writes its write-ahead log uncompressed (the binding's default is ZSTD)", async () => {
      const kv = await RocksKv.open(dir);
      await kv.close();
      assert.equal(dbOption(dir, "wal_compression"), "kNoCompression");
      assert.equal(dbOption(dir, "create_if_missing"), "true", "the reader found the DBOptions section");
    });

    it("a table's memtables flush once its budget is written (SST files), not after RocksDB's default 64 MiB", async () => {
      // 1 MiB budgets: 256 KiB write buffers, at most 6 of them; a write finding 6 full waits for a
      // flush, so after 8 MiB written at least 6.5 MiB are in SST files whatever the scheduling.
      const kv = await RocksKv.open(dir, { memtableBytes: 0, compression: false });
      const value = new Uint8Array(1024);
      for (let i = 0; i < 8 * 64; i++) {
        const b = new WriteBatch();
        for (let j = 0; j < 16; j++) {
          value[0] = j;
          b.put("history", u8(i >> 8, i & 255, j), value.slice());
        }
        kv.write(b);
      }
      const sst = readdirSync(dir).filter((f) => f.endsWith(".sst"));
      assert.ok(sst.length > 0, "no memtable flushed");
      for (let i = 0; i < 8 * 64; i += 37) assert.equal(kv.get("history", u8(i >> 8, i & 255, 3))?.[0], 3);
      await kv.close();
    });

    it("typed errors: CLOSED, UNKNOWN_TABLE, WRITE_FAILED; a failed batch leaves nothing behind", async () => {
      const kv = await RocksKv.open(dir);
      assert.throws(() => kv.get("nope" as never, u8(1)), storageError("UNKNOWN_TABLE"));
      // The binding rejects a non-bytes key while the batch is being built: nothing is written,
      // and the reused native batch is cleared for the next write.
      const bad = new WriteBatch().put("meta", u8(1), u8(1)).put("code", 12 as unknown as Uint8Array, u8(1));
      assert.throws(() => kv.write(bad), storageError("WRITE_FAILED"));
      kv.write(new WriteBatch().put("code", u8(2), u8(2)));
      assert.equal(kv.get("meta", u8(1)), undefined);
      assert.deepEqual([...kv.iterate("code")], [[u8(2), u8(2)]]);
      await kv.close();
      assert.throws(() => kv.get("meta", u8(1)), storageError("CLOSED"));
      assert.throws(() => kv.sequence, storageError("CLOSED"));
    });

    it("iterate re-checks the store between chunks (closing mid-scan throws CLOSED, no native crash)", async () => {
      const kv = await RocksKv.open(dir);
      const b = new WriteBatch();
      for (let i = 0; i < 500; i++) b.put("code", u8(i >> 8, i & 0xff), u8(1));
      kv.write(b);
      const it = kv.iterate("code")[Symbol.iterator]();
      for (let i = 0; i < 64; i++) assert.equal(it.next().done, false); // the whole first chunk
      await kv.close();
      assert.throws(() => it.next(), storageError("CLOSED"));
    });

    it("cursor: CLOSED after the store closes (its native iterator closed first), also on a shared view", async () => {
      const kv = await RocksKv.open(dir);
      const b = new WriteBatch();
      for (let i = 0; i < 50; i++) b.put("hashedAccounts", u8(i), u8(i));
      kv.write(b);
      const h = kv.shareHandle();
      const view = await RocksKv.fromHandle(h);
      const vc = view.cursor("hashedAccounts");
      assert.equal(vc.seek(u8(7)), true);
      assert.deepEqual(vc.value, u8(7));
      await view.close(); // closes vc's native iterator; the owner stays open
      assert.throws(() => vc.next(), storageError("CLOSED"));
      vc.close();
      kv.releaseHandle();
      const c = kv.cursor("hashedAccounts", { gte: u8(10) });
      assert.equal(c.seek(u8(0)), true);
      assert.deepEqual(c.key, u8(10));
      await kv.close();
      assert.throws(() => c.seek(u8(1)), storageError("CLOSED"));
      assert.throws(() => kv.cursor("hashedAccounts"), storageError("CLOSED"));
      c.close();
    });

    it("sequence counts writes (a reader's cheap 'did anything commit?' check)", async () => {
      const kv = await RocksKv.open(dir);
      const s0 = kv.sequence;
      kv.write(new WriteBatch().put("meta", u8(1), u8(1)).put("code", u8(1), u8(1)));
      assert.equal(kv.sequence, s0 + 2);
      await kv.close();
    });

    it("shared handle in-thread: view reads, cannot write, close() only detaches; owner refuses to close while shared", async () => {
      const kv = await RocksKv.open(dir);
      kv.write(new WriteBatch().put("hashedAccounts", u8(1), u8(7)));
      const h = kv.shareHandle();
      assert.equal(kv.sharedHandles, 1);
      const view = await RocksKv.fromHandle(h);
      assert.equal(view.shared, true);
      assert.deepEqual(view.get("hashedAccounts", u8(1)), u8(7));
      kv.write(new WriteBatch().put("hashedAccounts", u8(2), u8(8)));
      assert.deepEqual(view.getMany("hashedAccounts", [u8(1), u8(2)]), [u8(7), u8(8)]);
      assert.equal(view.sequence, kv.sequence);
      assert.throws(() => view.write(new WriteBatch().put("meta", u8(1), u8(1))), storageError("READ_ONLY"));
      assert.throws(() => view.shareHandle(), storageError("READ_ONLY"));
      // Its one write: the synced marker row of syncLog, into the owner's DB.
      const s1 = kv.sequence;
      view.syncLog();
      assert.equal(kv.sequence, s1 + 1);
      assert.deepEqual(kv.get("meta", LOG_SYNC_KEY), u8(1));

      await assert.rejects(kv.close(), storageError("HANDLE_SHARED"));
      await view.close();
      assert.throws(() => view.get("hashedAccounts", u8(1)), storageError("CLOSED"));
      assert.deepEqual(kv.get("hashedAccounts", u8(1)), u8(7), "the owner's native DB must still be open");

      kv.releaseHandle();
      assert.equal(kv.sharedHandles, 0);
      await kv.close();
      await assert.rejects(RocksKv.fromHandle(0n), storageError("BAD_OPTION"));
    });
  });
});
