/**
 * packSortedLeaves equals packing after Array#sort with compareBytes (random keys, keys crowding one
 * two-byte bucket, keys differing only in their last bytes, sizes on both sides of the two-byte
 * threshold), rejects duplicates and malformed input with typed errors, leaves its inputs alone, and
 * its output hashes to the in-memory trie's root.
 */
import { strict as assert } from "node:assert";
import { compareBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { MemoryTrie } from "../../../src/trie/memoryTrie.js";
import { packSortedLeaves, sortKeyOrder } from "../../../src/trie/packLeaves.js";
import { trieRootPacked } from "../../../src/trie/parallel.js";
import type { PackedLeaves } from "../../../src/trie/parallelRoot.js";
import { sortUniqueKeys } from "../../../src/trie/trieWalker.js";
import { Rng } from "./helpers.js";

/** The reference: an index sort with the byte comparator, then packing in that order. */
function referencePack(keys: Uint8Array[], values: Uint8Array[]): PackedLeaves {
  const order = Array.from(keys.keys()).sort((a, b) => compareBytes(keys[a]!, keys[b]!));
  const packed = new Uint8Array(32 * keys.length);
  const valueOffsets = new Uint32Array(keys.length + 1);
  let size = 0;
  order.forEach((ix, i) => {
    packed.set(keys[ix]!, 32 * i);
    size += values[ix]!.length;
    valueOffsets[i + 1] = size;
  });
  const out = new Uint8Array(size);
  order.forEach((ix, i) => {
    out.set(values[ix]!, valueOffsets[i]!);
  });
  return { keys: packed, values: out, valueOffsets };
}

function assertSamePack(got: PackedLeaves, want: PackedLeaves, what: string): void {
  assert.equal(bytesToHex(got.keys), bytesToHex(want.keys), `${what}: keys`);
  assert.equal(bytesToHex(got.values), bytesToHex(want.values), `${what}: values`);
  assert.deepEqual([...got.valueOffsets], [...want.valueOffsets], `${what}: offsets`);
}

/** Distinct keys made by `make`, with values of 0–80 bytes (empty values included). */
function entries(rng: Rng, n: number, make: (i: number) => Uint8Array): [Uint8Array[], Uint8Array[]] {
  const seen = new Set<string>();
  const keys: Uint8Array[] = [];
  while (keys.length < n) {
    const k = make(keys.length);
    const id = bytesToHex(k);
    if (seen.has(id)) continue;
    seen.add(id);
    keys.push(k);
  }
  return [keys, keys.map(() => rng.bytes(rng.int(81)))];
}

describe("trie/packLeaves", () => {
  const rng = new Rng(4242);
  const shapes: Record<string, (n: number) => [Uint8Array[], Uint8Array[]]> = {
    random: (n) => entries(rng, n, () => rng.bytes(32)),
    // Every key in bucket 0xabcd: the per-bucket sort does all the work (and recurses byte-wise).
    "one two-byte bucket": (n) =>
      entries(rng, n, () => {
        const k = rng.bytes(32);
        k[0] = 0xab;
        k[1] = 0xcd;
        return k;
      }),
    // Keys equal up to the last two bytes: comparisons run to the end of the key.
    "shared 30-byte prefix": (n) =>
      entries(rng, n, () => {
        const k = new Uint8Array(32).fill(0x5a);
        k[30] = rng.int(256);
        k[31] = rng.int(256);
        return k;
      }),
    // A few small clusters: buckets of 2–30 keys equal in bytes 2..5 too.
    clusters: (n) =>
      entries(rng, n, () => {
        const k = rng.bytes(32);
        k.fill(rng.int(3), 0, 6);
        k[1] = rng.int(2000 > n ? 4 : 64);
        return k;
      }),
  };
  for (const [shape, make] of Object.entries(shapes)) {
    for (const n of [0, 1, 2, 25, 300, 2047, 2048, 5000, 20_000]) {
      it(`${shape}, ${n} leaves: equals the comparator sort`, () => {
        const [keys, values] = make(n);
        const copies = keys.map((k) => k.slice());
        assertSamePack(packSortedLeaves(keys, values), referencePack(keys, values), `${shape}/${n}`);
        assert.deepEqual(keys, copies, "inputs unchanged");
      });
    }
  }

  it("sortKeyOrder is the comparator's permutation", () => {
    const [keys] = shapes.clusters!(6000);
    const want = Array.from(keys.keys()).sort((a, b) => compareBytes(keys[a]!, keys[b]!));
    assert.deepEqual([...sortKeyOrder(keys)], want);
  });

  it("sortKeyOrder(allowDuplicates) keeps equal keys adjacent in input order; sortUniqueKeys drops them", () => {
    for (const n of [50, 6000]) {
      const [keys] = shapes.clusters!(n);
      const withDupes = [...keys, ...keys.slice(0, n >> 1).map((k) => k.slice()), keys[3]!.slice()];
      const want = Array.from(withDupes.keys()).sort((a, b) => compareBytes(withDupes[a]!, withDupes[b]!) || a - b);
      assert.deepEqual([...sortKeyOrder(withDupes, true)], want, `${n} keys`);
      const unique = sortUniqueKeys(withDupes);
      assert.deepEqual(
        unique.map((k) => bytesToHex(k)),
        [...keys].sort(compareBytes).map((k) => bytesToHex(k)),
      );
    }
    assert.throws(() => sortUniqueKeys([new Uint8Array(31)]), { name: "TrieError", code: "BAD_INPUT" });
  });

  it("the packed leaves hash to the in-memory trie's root", () => {
    const [keys, values] = shapes.random!(3000);
    const vals = values.map((v) => (v.length === 0 ? Uint8Array.of(1) : v));
    const t = new MemoryTrie();
    keys.forEach((k, i) => {
      t.put(k, vals[i]!);
    });
    const p = packSortedLeaves(keys, vals);
    assert.equal(bytesToHex(trieRootPacked(p.keys, p.values, p.valueOffsets)), bytesToHex(t.rootHash()));
  });

  it("duplicate keys are rejected (UNSORTED_KEYS), wherever they sort", () => {
    for (const [shape, n] of [
      ["random", 10],
      ["random", 5000],
      ["one two-byte bucket", 10],
      ["one two-byte bucket", 5000],
      ["shared 30-byte prefix", 3000],
      ["clusters", 5000],
    ] as const) {
      const [keys, values] = shapes[shape]!(n);
      keys.push(keys[rng.int(n)]!.slice());
      values.push(Uint8Array.of(1));
      assert.throws(() => packSortedLeaves(keys, values), { name: "TrieError", code: "UNSORTED_KEYS" }, shape);
    }
    const k = new Uint8Array(32);
    assert.throws(() => packSortedLeaves([k, k.slice()], [k, k]), { code: "UNSORTED_KEYS" });
  });

  it("keys that are not 32 bytes, or a values list of another length, are BAD_INPUT", () => {
    const k = new Uint8Array(32);
    assert.throws(() => packSortedLeaves([k, new Uint8Array(31)], [k, k]), { name: "TrieError", code: "BAD_INPUT" });
    assert.throws(() => packSortedLeaves([new Uint8Array(33)], [k]), { code: "BAD_INPUT" });
    assert.throws(() => packSortedLeaves([k], []), { code: "BAD_INPUT" });
  });

  it("the output owns fresh buffers (transferable without detaching the inputs)", () => {
    const [keys, values] = shapes.random!(100);
    const p = packSortedLeaves(keys, values);
    for (const b of [p.keys, p.values, p.valueOffsets]) {
      assert.equal(b.byteOffset, 0);
      assert.equal(b.byteLength, b.buffer.byteLength);
    }
  });
});
