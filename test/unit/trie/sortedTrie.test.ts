/**
 * trie/sortedTrie: the native trie from sorted leaves (native/src/trie.c) against its pure twin
 * (HashBuilder with updates): the same root and the same branch records, path for path and in the
 * same order, on random key sets shaped to make extensions, embedded nodes and deep branches, and
 * with values of every RLP shape; both roots checked against the in-memory trie; unsorted or
 * duplicate keys refused by both. With OPAL_NATIVE=0 the pure side alone is checked.
 */
import { strict as assert } from "node:assert";
import { native } from "../../../src/native/load.js";
import { compareBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { TrieError } from "../../../src/trie/errors.js";
import { MemoryTrie } from "../../../src/trie/memoryTrie.js";
import { EMPTY_TRIE_ROOT } from "../../../src/trie/node.js";
import {
  type SortedLeaves,
  type SortedTrie,
  sortedTrieNative,
  sortedTriePure,
  sortedTrieRowsNative,
  sortedTrieRowsPure,
} from "../../../src/trie/sortedTrie.js";
import { clusteredKey, Rng } from "./helpers.js";

/** A value of one of the shapes RLP treats apart: empty, a byte below/above 0x80, short, long (> 55). */
function randomValue(rng: Rng): Uint8Array {
  switch (rng.int(6)) {
    case 0:
      return new Uint8Array([rng.int(0x80)]);
    case 1:
      return new Uint8Array([0x80 + rng.int(0x80)]);
    case 2:
      return rng.bytes(2 + rng.int(30));
    case 3:
      return rng.bytes(33);
    case 4:
      return rng.bytes(56 + rng.int(300));
    default:
      return rng.int(8) === 0 ? new Uint8Array(0) : rng.bytes(1 + rng.int(8));
  }
}

function randomLeaves(rng: Rng, n: number): { leaves: SortedLeaves; pairs: [Uint8Array, Uint8Array][] } {
  const keys: Uint8Array[] = [];
  for (let i = 0; i < n; i++) keys.push(clusteredKey(rng));
  keys.sort(compareBytes);
  const unique = keys.filter((k, i) => i === 0 || compareBytes(keys[i - 1]!, k) !== 0);
  const pairs: [Uint8Array, Uint8Array][] = unique.map((k) => [k, randomValue(rng)]);
  const packed = new Uint8Array(32 * pairs.length);
  const offsets = new Uint32Array(pairs.length + 1);
  let size = 0;
  for (const [, v] of pairs) size += v.length;
  // A view at an offset into a larger buffer, as callers pass subarrays.
  const values = new Uint8Array(size + 7).subarray(7);
  let pos = 0;
  pairs.forEach(([k, v], i) => {
    packed.set(k, 32 * i);
    values.set(v, pos);
    pos += v.length;
    offsets[i + 1] = pos;
  });
  return { leaves: { keys: packed, values, offsets }, pairs };
}

function summary(t: SortedTrie): string[] {
  return [bytesToHex(t.root), ...t.updates.map((u) => `${bytesToHex(u.path)}:${bytesToHex(u.record)}`)];
}

describe("trie/sortedTrie: native vs HashBuilder", function () {
  this.timeout(60_000);

  it("equal roots and branch records on random sorted leaves, roots equal to the in-memory trie's", () => {
    const rng = new Rng(0x5eed_7e1e);
    let records = 0;
    for (const n of [0, 1, 2, 3, 5, 16, 17, 40, 100, 300, 1000, 4000]) {
      for (let round = 0; round < (n > 1000 ? 2 : 6); round++) {
        const { leaves, pairs } = randomLeaves(rng, n);
        const pure = sortedTriePure(leaves);
        const mt = new MemoryTrie();
        for (const [k, v] of pairs) mt.put(k, v.length === 0 ? new Uint8Array([0x80]) : v);
        if (pairs.every(([, v]) => v.length > 0)) assert.equal(bytesToHex(pure.root), bytesToHex(mt.rootHash()));
        if (n === 0) assert.deepEqual(pure.root, EMPTY_TRIE_ROOT);
        records += pure.updates.length;
        if (native === null) continue; // OPAL_NATIVE=0: no native side to compare
        assert.deepEqual(summary(sortedTrieNative(leaves)), summary(pure), `n=${n} round=${round}`);
      }
    }
    assert.ok(records > 500, `the cases stored branch records (${records})`);
  });

  it("with leaf hashes (the account trie's records): equal, same roots, every hashed leaf child kept", () => {
    const rng = new Rng(0x1eaf);
    let leafKept = 0;
    for (const n of [2, 3, 17, 100, 1000]) {
      for (let round = 0; round < 4; round++) {
        const { leaves } = randomLeaves(rng, n);
        const plain = sortedTriePure(leaves);
        const pure = sortedTriePure(leaves, true);
        assert.deepEqual(pure.root, plain.root, "the root does not depend on what is stored");
        assert.ok(pure.updates.length >= plain.updates.length);
        for (const u of pure.updates) {
          // A leaf bit only on a child that is not a stored branch, its hash among the record's.
          assert.equal(u.node.leafMask & u.node.treeMask, 0);
          assert.equal(u.node.leafMask & ~u.node.hashMask, 0);
          for (let m = u.node.leafMask; m !== 0; m &= m - 1) leafKept++;
        }
        if (native === null) continue; // OPAL_NATIVE=0: no native side to compare
        assert.deepEqual(summary(sortedTrieNative(leaves, true)), summary(pure), `n=${n} round=${round}`);
      }
    }
    assert.ok(leafKept > 1000, `leaf hashes kept: ${leafKept}`);
  });

  it("equal where bottom branches of tiny leaves sit around the 32-byte embedding bound", function () {
    if (native === null) this.skip(); // reason: compares the addon with its twin; nothing to compare without it
    const rng = new Rng(32);
    const stem = rng.bytes(31);
    for (let round = 0; round < 300; round++) {
      // Keys differing only in the last byte: branches at depth 62/63 whose leaves (1-2 byte
      // values) are embedded, so a branch's encoding crosses 32 bytes as its child count grows.
      const last = [...new Set(Array.from({ length: 2 + rng.int(40) }, () => rng.int(256)))].sort((x, y) => x - y);
      const keys = new Uint8Array(32 * last.length);
      const values = new Uint8Array(2 * last.length);
      const offsets = new Uint32Array(last.length + 1);
      let pos = 0;
      last.forEach((b, i) => {
        keys.set(stem, 32 * i);
        keys[32 * i + 31] = b;
        values[pos++] = rng.int(0x80);
        if (rng.int(3) === 0) values[pos++] = rng.int(256);
        offsets[i + 1] = pos;
      });
      const l = { keys, values, offsets };
      assert.deepEqual(summary(sortedTrieNative(l)), summary(sortedTriePure(l)), `round ${round}`);
    }
  });

  it("equal on a contract's fresh slots: hashed keys, rlp(word) values (the import's case)", function () {
    if (native === null) this.skip(); // reason: compares the addon with its twin; nothing to compare without it
    const rng = new Rng(7);
    const { leaves } = randomLeaves(rng, 0);
    assert.deepEqual(summary(sortedTrieNative(leaves)), summary(sortedTriePure(leaves)));
    const keys = Array.from({ length: 10_000 }, () => rng.bytes(32)).sort(compareBytes);
    const values = new Uint8Array(33 * keys.length);
    const offsets = new Uint32Array(keys.length + 1);
    const packed = new Uint8Array(32 * keys.length);
    let pos = 0;
    keys.forEach((k, i) => {
      packed.set(k, 32 * i);
      const w = rng.bytes(1 + rng.int(32));
      if (w[0] === 0) w[0] = 1;
      if (w.length === 1 && w[0]! < 0x80) values[pos++] = w[0]!;
      else {
        values[pos++] = 0x80 + w.length;
        values.set(w, pos);
        pos += w.length;
      }
      offsets[i + 1] = pos;
    });
    const l = { keys: packed, values, offsets };
    assert.deepEqual(summary(sortedTrieNative(l)), summary(sortedTriePure(l)));
  });

  it("packed rows (hashed address ‖ key, raw words at running offsets) fold to the trie of (key, rlp(word))", () => {
    const rng = new Rng(11);
    for (const n of [0, 1, 2, 17, 3000]) {
      const keys = Array.from({ length: n }, () => clusteredKey(rng)).sort(compareBytes);
      const unique = keys.filter((k, i) => i === 0 || compareBytes(keys[i - 1]!, k) !== 0);
      const m = unique.length;
      const rows = new Uint8Array(64 * m);
      const words = new Uint8Array(40 + 32 * m);
      // Offsets start past 0, as a contract's part of a block's rows does.
      const offsets = new Uint32Array(m + 1);
      offsets[0] = 40;
      const leafKeys = new Uint8Array(32 * m);
      const leafValues: number[] = [];
      const leafOffsets = new Uint32Array(m + 1);
      unique.forEach((k, i) => {
        rows.fill(0xee, 64 * i, 64 * i + 32);
        rows.set(k, 64 * i + 32);
        leafKeys.set(k, 32 * i);
        // Words of 1 byte below and above 0x80, and up to 32 bytes.
        const w =
          i % 3 === 0
            ? Uint8Array.of(rng.int(0x80) || 1)
            : i % 3 === 1
              ? Uint8Array.of(0x80 + rng.int(0x80))
              : rng.bytes(2 + rng.int(31));
        words.set(w, offsets[i]!);
        offsets[i + 1] = offsets[i]! + w.length;
        if (!(w.length === 1 && w[0]! < 0x80)) leafValues.push(0x80 + w.length);
        leafValues.push(...w);
        leafOffsets[i + 1] = leafValues.length;
      });
      const want = summary(
        sortedTriePure({ keys: leafKeys, values: Uint8Array.from(leafValues), offsets: leafOffsets }),
      );
      const r = { keys: rows, values: words, offsets };
      assert.deepEqual(summary(sortedTrieRowsPure(r)), want, `pure, ${m} rows`);
      if (native !== null) assert.deepEqual(summary(sortedTrieRowsNative(r)), want, `native, ${m} rows`);
    }
    const bad = { keys: new Uint8Array(64), values: new Uint8Array(0), offsets: Uint32Array.of(0, 0) };
    assert.throws(() => sortedTrieRowsPure(bad), /1 to 55 bytes/);
    const unsorted = {
      keys: new Uint8Array(128).fill(1, 32, 64),
      values: Uint8Array.of(1, 2),
      offsets: Uint32Array.of(0, 1, 2),
    };
    assert.throws(() => sortedTrieRowsPure(unsorted), { name: "TrieError", code: "UNSORTED_KEYS" });
    if (native !== null)
      assert.throws(() => sortedTrieRowsNative(unsorted), { name: "TrieError", code: "UNSORTED_KEYS" });
  });

  it("refuses unsorted and duplicate keys, and keys that are not 32 bytes per leaf", () => {
    const a = new Uint8Array(32).fill(1);
    const b = new Uint8Array(32).fill(2);
    const v = new Uint8Array([1, 2]);
    const offsets = new Uint32Array([0, 1, 2]);
    const twins = native === null ? [sortedTriePure] : [sortedTriePure, sortedTrieNative];
    for (const f of twins) {
      for (const keys of [new Uint8Array([...b, ...a]), new Uint8Array([...a, ...a])]) {
        assert.throws(
          () => f({ keys, values: v, offsets }),
          (e: unknown) => e instanceof TrieError && e.code === "UNSORTED_KEYS",
        );
      }
      assert.throws(() => f({ keys: a, values: v, offsets }), TrieError);
    }
  });

  it("the addon checks offsets against the values instead of reading past them", function () {
    if (native === null) this.skip(); // reason: checks the addon's bounds guard; nothing to check without it
    const keys = new Uint8Array(64);
    keys[63] = 1;
    assert.throws(() => native!.sortedTrie(keys, new Uint8Array(2), new Uint32Array([0, 1, 3])));
    assert.throws(() => native!.sortedTrie(keys, new Uint8Array(4), new Uint32Array([0, 2, 1])));
    assert.throws(() => native!.sortedTrie(keys.subarray(1), new Uint8Array(4), new Uint32Array([0, 1, 2])));
  });
});
