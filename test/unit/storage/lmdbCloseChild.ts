/**
 * Child process of lmdb.test.ts: reads in progress on an LmdbKv — a cursor and a suspended iterate —
 * when the store is closed, then ended by the caller (the cursor closed, the scan abandoned with
 * `return`). Run under MALLOC_PERTURB_ so that a native read of anything freed by the close crashes
 * at once instead of only sometimes. Prints "ok" and exits 0 when everything ended cleanly.
 */
import { strict as assert } from "node:assert";
import { WriteBatch } from "../../../src/storage/kv.js";
import { LmdbKv } from "../../../src/storage/lmdb.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";

const u8 = (...b: number[]): Uint8Array => new Uint8Array(b);

async function main(): Promise<void> {
  const dir = makeTmpDir();
  try {
    const kv = await LmdbKv.open(dir);
    kv.write(new WriteBatch().put("hashedAccounts", u8(1), u8(1)).put("hashedAccounts", u8(2), u8(2)));
    const cursor = kv.cursor("hashedAccounts");
    assert.equal(cursor.seek(u8(0)), true);
    const scan = kv.iterate("hashedAccounts")[Symbol.iterator]();
    assert.equal(scan.next().done, false);
    // A write while both reads are open: lmdb-js moves on to a new read transaction.
    kv.write(new WriteBatch().put("hashedAccounts", u8(0), u8(0)));
    await new Promise((r) => setTimeout(r, 5));
    await kv.close();
    assert.throws(() => cursor.seek(u8(1)), { code: "CLOSED" });
    assert.throws(() => cursor.next(), { code: "CLOSED" });
    cursor.close();
    assert.throws(() => scan.next(), { code: "CLOSED" });
    scan.return?.();
  } finally {
    removeDir(dir);
  }
  console.log("ok");
}

await main();
