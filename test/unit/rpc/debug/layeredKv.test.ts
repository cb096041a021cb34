/**
 * LayeredKv (the in-memory layer the debug replays commit into) against a reference: a MemoryKv to
 * which the same batches were written. Point reads, ranges (bounds, reverse, limit) and cursors
 * with seeks must agree after random puts and deletes, over a plain store and over an OverlayKv
 * (a historical view), and the store underneath is never written.
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { LayeredKv } from "../../../../src/rpc/debug/layeredKv.js";
import { type KvReader, WriteBatch } from "../../../../src/storage/kv.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { OverlayKv } from "../../../../src/storage/overlayKv.js";

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

/** Short keys over a small alphabet, so puts, deletes and seeks collide often. */
function key(next: () => number): Uint8Array {
  const n = 1 + (next() % 3);
  return Uint8Array.from({ length: n }, () => next() % 4);
}

function rows(kv: KvReader, range: Parameters<KvReader["iterate"]>[1]): string[] {
  return [...kv.iterate("hashedStorage", range)].map(([k, v]) => `${bytesToHex(k)}=${bytesToHex(v)}`);
}

function cursorWalk(kv: KvReader, from: Uint8Array, steps: number, lt?: Uint8Array): string[] {
  const c = kv.cursor("hashedStorage", lt === undefined ? {} : { lt });
  const out: string[] = [];
  try {
    let ok = c.seek(from);
    for (let i = 0; i < steps && ok; i++, ok = c.next()) out.push(`${bytesToHex(c.key)}=${bytesToHex(c.value)}`);
    out.push(ok ? "more" : "end");
  } finally {
    c.close();
  }
  return out;
}

function randomBatch(next: () => number, n: number): WriteBatch {
  const b = new WriteBatch();
  for (let i = 0; i < n; i++) {
    const k = key(next);
    if (next() % 3 === 0) b.del("hashedStorage", k);
    else b.put("hashedStorage", k, Uint8Array.of(next() & 0xff));
  }
  return b;
}

describe("rpc/debug LayeredKv", () => {
  for (const overOverlay of [false, true]) {
    it(`agrees with a store written the same way (${overOverlay ? "over an OverlayKv" : "over a store"})`, () => {
      for (const seed of [3, 5, 11, 17]) {
        const next = rng(seed);
        const base = new MemoryKv();
        const ref = new MemoryKv();
        const first = randomBatch(next, 30);
        base.write(first);
        ref.write(first);
        let view: KvReader = base;
        if (overOverlay) {
          // A historical view: some rows replaced or hidden by an overlay.
          const o = randomBatch(next, 10);
          const overlay = new Map([["hashedStorage" as const, new Map()]]);
          for (const op of o.ops) {
            overlay.get("hashedStorage")!.set(String.fromCharCode(...op.key), {
              key: op.key,
              value: op.type === "put" ? op.value : null,
            });
          }
          view = new OverlayKv(base, overlay);
          ref.write(o);
        }
        const before = rows(base, {});
        const layered = LayeredKv.over(view);
        for (let round = 0; round < 5; round++) {
          const b = randomBatch(next, 12);
          layered.apply(b);
          ref.write(b);
          for (let q = 0; q < 20; q++) {
            const k = key(next);
            assert.deepEqual(layered.get("hashedStorage", k), ref.get("hashedStorage", k));
            const lo = key(next);
            const hi = key(next);
            for (const range of [
              {},
              { gte: lo },
              { lt: hi },
              { gte: lo, lt: hi },
              { reverse: true, limit: 3 },
              { gte: lo, limit: 2 },
            ]) {
              assert.deepEqual(rows(layered, range), rows(ref, range), `seed ${seed} ${JSON.stringify(range)}`);
            }
            assert.deepEqual(cursorWalk(layered, lo, 4), cursorWalk(ref, lo, 4));
            assert.deepEqual(cursorWalk(layered, lo, 6, hi), cursorWalk(ref, lo, 6, hi));
          }
        }
        assert.deepEqual(rows(base, {}), before, "the store under the layer is untouched");
      }
    });
  }
});
