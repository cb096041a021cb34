/**
 * trie/packLeaves `sortPackedKeyOrder`: the addon's merge sort of packed 32-byte keys
 * (native/src/trie.c `opal_sort_keys32`) against its pure twin (`sortPackedKeyOrderPure`) and
 * against Array#sort with compareBytes and the input index as tie-break, on random keys, keys that
 * share long prefixes, duplicates (kept in input order) and sizes around the native insertion runs
 * (16) and the twin's two-byte threshold. With OPAL_NATIVE=0 the twin alone is checked.
 */
import { strict as assert } from "node:assert";
import { native } from "../../../src/native/load.js";
import { compareBytes } from "../../../src/primitives/bytes.js";
import { sortPackedKeyOrder, sortPackedKeyOrderPure } from "../../../src/trie/packLeaves.js";
import { Rng } from "./helpers.js";

/** n packed keys; `prefix` leading bytes shared by all, and about one key in `dupEvery` a copy of an earlier one. */
function packedKeys(n: number, seed: number, prefix: number, dupEvery: number): Uint8Array {
  const rng = new Rng(seed);
  const next = () => rng.u32() & 0xff;
  const out = new Uint8Array(32 * n);
  for (let i = 0; i < n; i++) {
    if (i > 0 && dupEvery > 0 && next() % dupEvery === 0) {
      const j = (next() * 256 + next()) % i;
      out.copyWithin(32 * i, 32 * j, 32 * j + 32);
      continue;
    }
    for (let b = prefix; b < 32; b++) out[32 * i + b] = next();
  }
  return out;
}

function expected(packed: Uint8Array): number[] {
  const n = packed.length / 32;
  const key = (i: number) => packed.subarray(32 * i, 32 * i + 32);
  return Array.from({ length: n }, (_, i) => i).sort((a, b) => compareBytes(key(a), key(b)) || a - b);
}

describe("trie/packLeaves: sortPackedKeyOrder (native) vs its twin", function () {
  this.timeout(30_000);

  it("the comparator's stable permutation on random, prefix-sharing and duplicated keys", () => {
    const sizes = [0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 257, 1000, 2047, 2048, 2049, 5000, 10_000];
    let seed = 7;
    for (const n of sizes) {
      for (const [prefix, dupEvery] of [
        [0, 0],
        [0, 4],
        [30, 0],
        [31, 3],
        [2, 2],
      ] as const) {
        const packed = packedKeys(n, seed++, prefix, dupEvery);
        const copy = packed.slice();
        const want = expected(packed);
        const msg = `n=${n} prefix=${prefix} dupEvery=${dupEvery}`;
        assert.deepEqual([...sortPackedKeyOrderPure(packed)], want, `twin ${msg}`);
        assert.deepEqual([...sortPackedKeyOrder(packed)], want, `sortPackedKeyOrder ${msg}`);
        if (native !== null) {
          const order = new Uint32Array(n);
          native.sortKeys32(packed, order);
          assert.deepEqual([...order], want, `addon ${msg}`);
        }
        assert.deepEqual(packed, copy, "input unchanged");
      }
    }
  });

  it("refuses keys that are not 32 bytes each", function () {
    assert.throws(() => sortPackedKeyOrder(new Uint8Array(33)), /32 bytes/);
    assert.throws(() => sortPackedKeyOrderPure(new Uint8Array(31)), /32 bytes/);
    if (native === null) this.skip(); // reason: the addon's own argument check; nothing to check without it
    assert.throws(() => native!.sortKeys32(new Uint8Array(64), new Uint32Array(3)), /32 bytes/);
    assert.throws(() => native!.sortKeys32(new Uint8Array(64), new Uint8Array(2) as never), /Uint32Array/);
  });
});
