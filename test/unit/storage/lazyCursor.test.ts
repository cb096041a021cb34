import { strict as assert } from "node:assert";
import { type KvCursor, LazyCursor, WriteBatch } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";

const k = (n: number): Uint8Array => Uint8Array.of(n);

describe("storage/LazyCursor", () => {
  it("opens the wrapped cursor at the first seek only, then reads as it does; close releases it", () => {
    const kv = new MemoryKv();
    kv.write(new WriteBatch().put("code", k(1), k(10)).put("code", k(3), k(30)));
    const opened: KvCursor[] = [];
    const c = new LazyCursor(() => {
      const inner = kv.cursor("code");
      opened.push(inner);
      return inner;
    });
    assert.equal(c.valid, false);
    assert.equal(c.next(), false);
    assert.equal(opened.length, 0);
    assert.equal(c.seek(k(2)), true);
    assert.equal(opened.length, 1);
    assert.deepEqual([c.key, c.value], [k(3), k(30)]);
    assert.equal(c.seek(k(0)), true);
    assert.deepEqual(c.key, k(1));
    assert.equal(c.next(), true);
    assert.deepEqual(c.key, k(3));
    assert.equal(c.next(), false);
    assert.equal(opened.length, 1);
    c.close();
    assert.throws(() => opened[0]!.seek(k(0)), /closed/i);
  });

  it("closed before any seek: opens nothing, and a later seek throws", () => {
    let opens = 0;
    const c = new LazyCursor(() => {
      opens++;
      return new MemoryKv().cursor("code");
    });
    c.close();
    assert.throws(() => c.seek(k(0)), /closed/);
    assert.equal(opens, 0);
  });
});
