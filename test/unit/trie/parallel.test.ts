/**
 * First-nibble split for worker threads: per-group refs combined on the main thread equal the
 * single-threaded root and the in-memory trie, however the groups are split across "workers".
 */
import { strict as assert } from "node:assert";
import { compareBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { MemoryTrie } from "../../../src/trie/memoryTrie.js";
import {
  groupBounds,
  mergeChildRefs,
  rootFromChildRefs,
  subtrieRefsPacked,
  trieRootPacked,
} from "../../../src/trie/parallel.js";
import { clusteredKey, Rng } from "./helpers.js";

const hex = bytesToHex;

interface Packed {
  keys: Uint8Array;
  values: Uint8Array;
  offsets: Uint32Array;
}

function pack(entries: [Uint8Array, Uint8Array][]): Packed {
  entries.sort((a, b) => compareBytes(a[0], b[0]));
  const keys = new Uint8Array(32 * entries.length);
  const offsets = new Uint32Array(entries.length + 1);
  entries.forEach(([k, v], i) => {
    keys.set(k, 32 * i);
    offsets[i + 1] = offsets[i] + v.length;
  });
  const values = new Uint8Array(offsets[entries.length]);
  for (let i = 0; i < entries.length; i++) values.set(entries[i][1], offsets[i]);
  return { keys, values, offsets };
}

/** The packed input restricted to key indices [from, to), as a worker would receive it. */
function slice(p: Packed, from: number, to: number): Packed {
  const offsets = new Uint32Array(to - from + 1);
  for (let i = from; i <= to; i++) offsets[i - from] = p.offsets[i] - p.offsets[from];
  return {
    keys: p.keys.slice(32 * from, 32 * to),
    values: p.values.slice(p.offsets[from], p.offsets[to]),
    offsets,
  };
}

function randomEntries(rng: Rng, n: number, valueLen: number): [Uint8Array, Uint8Array][] {
  const m = new Map<string, [Uint8Array, Uint8Array]>();
  for (let i = 0; i < n; i++) {
    const k = rng.int(2) ? rng.bytes(32) : clusteredKey(rng);
    m.set(hex(k), [k, rng.bytes(valueLen)]);
  }
  return [...m.values()];
}

describe("trie/parallel", () => {
  for (const [n, valueLen] of [
    [2, 70],
    [40, 1],
    [500, 70],
    [3000, 33],
  ] as const) {
    it(`${n} keys: per-group refs → root equals the single-threaded root`, () => {
      const rng = new Rng(n);
      const entries = randomEntries(rng, n, valueLen);
      const t = new MemoryTrie();
      for (const [k, v] of entries) t.put(k, v);
      const p = pack(entries);
      const single = trieRootPacked(p.keys, p.values, p.offsets);
      assert.equal(hex(single), hex(t.rootHash()));
      const bounds = groupBounds(p.keys);
      if (p.keys[0] >> 4 === p.keys[p.keys.length - 32] >> 4) return; // one group: no split possible
      const all = subtrieRefsPacked(p.keys, p.values, p.offsets);
      assert.equal(hex(rootFromChildRefs(all.refs, all.lengths)), hex(single));
      // Three "workers", split on group boundaries.
      const cuts = [0, bounds[5], bounds[11], bounds[16]];
      const parts = [0, 1, 2].map((w) => {
        const s = slice(p, cuts[w], cuts[w + 1]);
        return subtrieRefsPacked(s.keys, s.values, s.offsets);
      });
      const merged = mergeChildRefs(parts);
      assert.equal(hex(rootFromChildRefs(merged.refs, merged.lengths)), hex(single));
    });
  }

  it("one group is reported, zero groups give the empty root", () => {
    const rng = new Rng(1);
    const entries = randomEntries(rng, 10, 40).map(([k, v]): [Uint8Array, Uint8Array] => {
      k[0] = 0x30 | (k[0] & 15);
      return [k, v];
    });
    const p = pack(entries);
    const r = subtrieRefsPacked(p.keys, p.values, p.offsets);
    assert.throws(() => rootFromChildRefs(r.refs, r.lengths), { code: "SINGLE_GROUP" });
    const none = subtrieRefsPacked(new Uint8Array(0), new Uint8Array(0), new Uint32Array(1));
    assert.equal(
      hex(rootFromChildRefs(none.refs, none.lengths)),
      "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
    );
  });

  it("rejects inconsistent packed input", () => {
    assert.throws(() => subtrieRefsPacked(new Uint8Array(31), new Uint8Array(0), new Uint32Array(1)), {
      code: "BAD_INPUT",
    });
    assert.throws(() => subtrieRefsPacked(new Uint8Array(32), new Uint8Array(0), new Uint32Array(1)), {
      code: "BAD_INPUT",
    });
    assert.throws(() => subtrieRefsPacked(new Uint8Array(32), new Uint8Array(2), Uint32Array.of(0, 3)), {
      code: "BAD_INPUT",
    });
    const unsorted = new Uint8Array(64);
    unsorted[0] = 0x20;
    unsorted[32] = 0x10;
    assert.throws(() => subtrieRefsPacked(unsorted, new Uint8Array(2), Uint32Array.of(0, 1, 2)), {
      code: "UNSORTED_KEYS",
    });
  });
});
