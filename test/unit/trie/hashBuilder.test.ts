/**
 * HashBuilder: roots equal the in-memory trie; order and prefix violations are typed errors; the
 * emitted branch records are consistent (masks, kept hashes = hashes of the child branches);
 * addBranchRef stands in for a subtrie; the proof retainer yields the in-memory trie's proofs.
 */
import { strict as assert } from "node:assert";
import { bytesKey, compareBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { encodeBranchNodeCompact, hashOffset, popcount16 } from "../../../src/trie/branchNodeCompact.js";
import { TrieError } from "../../../src/trie/errors.js";
import {
  type BranchUpdate,
  borrowHashBuilder,
  HashBuilder,
  releaseHashBuilder,
} from "../../../src/trie/hashBuilder.js";
import { MemoryTrie } from "../../../src/trie/memoryTrie.js";
import { bytesToNibbles } from "../../../src/trie/nibbles.js";
import { EMPTY_TRIE_ROOT } from "../../../src/trie/node.js";
import { ProofRetainer } from "../../../src/trie/proofRetainer.js";
import { clusteredKey, Rng } from "./helpers.js";

const hex = bytesToHex;
type Entry = [Uint8Array, Uint8Array];

function randomEntries(rng: Rng, n: number, valueLen: () => number): Entry[] {
  const m = new Map<string, Entry>();
  for (let i = 0; i < n; i++) {
    const k = clusteredKey(rng);
    m.set(bytesKey(k), [k, rng.bytes(valueLen())]);
  }
  return [...m.values()].sort((a, b) => compareBytes(a[0], b[0]));
}

function memoryRoot(entries: readonly Entry[]): string {
  const t = new MemoryTrie();
  for (const [k, v] of entries) t.put(k, v);
  return hex(t.rootHash());
}

function build(entries: readonly Entry[], updates = false): { root: string; updates: BranchUpdate[] } {
  const hb = new HashBuilder({ updates });
  for (const [k, v] of entries) hb.addLeafBytes(k, v);
  return { root: hex(hb.root()), updates: hb.takeUpdates() };
}

/** Root hash of the subtrie of `entries` below nibble path `path` (a branch there). */
function subtrieHash(entries: readonly Entry[], path: Uint8Array): string {
  const hb = new HashBuilder();
  for (const [k] of entries) {
    const n = bytesToNibbles(k);
    if (compareBytes(n.subarray(0, path.length), path) !== 0) continue;
    const v = entries.find(([kk]) => kk === k)![1];
    hb.addLeaf(n.subarray(path.length), v);
  }
  return hex(hb.root());
}

const isUnsorted = (e: unknown): boolean => e instanceof TrieError && e.code === "UNSORTED_KEYS";

/** Updates as comparable text: path, masks and record bytes. */
function updatesText(u: readonly BranchUpdate[]): string[] {
  return u.map((x) => `${hex(x.path)} ${hex(x.record)}`);
}

describe("trie/hashBuilder", () => {
  it("a pooled builder, reused after other runs (one of them thrown out mid-way), builds what a new one does", () => {
    const rng = new Rng(77);
    const sets = [5, 200, 1, 40, 0, 700, 3].map((n) => randomEntries(rng, n, () => 1 + rng.int(60)));
    const kinds = [{}, { updates: true }];
    for (const opts of kinds) {
      const updates = (opts as { updates?: boolean }).updates === true;
      let seen = 0;
      for (const entries of sets) {
        const want = build(entries, updates);
        // A run left mid-way (keys out of order) before this one, on the same pooled builder.
        const bad = borrowHashBuilder(opts);
        for (const [k, v] of entries.slice(0, 3)) bad.addLeafBytes(k, v);
        if (entries.length > 1) assert.throws(() => bad.addLeafBytes(entries[0]![0], entries[0]![1]), isUnsorted);
        releaseHashBuilder(bad);
        const hb = borrowHashBuilder(opts);
        if (hb === bad) seen++;
        for (const [k, v] of entries) hb.addLeafBytes(k, v);
        assert.equal(hex(hb.root()), want.root);
        assert.deepEqual(updatesText(hb.takeUpdates()), updatesText(want.updates));
        releaseHashBuilder(hb);
      }
      assert.ok(seen > 0, "the pool hands builders back out");
    }
  });

  it("empty builder gives the empty root", () => {
    assert.equal(hex(new HashBuilder().root()), hex(EMPTY_TRIE_ROOT));
  });

  for (const [label, valueLen] of [
    ["account-sized values", () => 70],
    ["tiny values (embedded leaves and branches)", () => 1],
    ["mixed values", (rng: Rng) => 1 + rng.int(64)],
  ] as const) {
    it(`roots equal the in-memory trie: ${label}`, () => {
      const rng = new Rng(label.length);
      for (const n of [1, 2, 3, 17, 200, 1000]) {
        const entries = randomEntries(rng, n, () => valueLen(rng));
        assert.equal(build(entries).root, memoryRoot(entries), `${n} keys`);
      }
    });
  }

  it("accepts prefix-free keys of any length", () => {
    const rng = new Rng(3);
    const m = new Map<string, Entry>();
    for (let i = 0; i < 200; i++) {
      // rlp(index)-like keys: a length byte then that many bytes is prefix-free.
      const len = 1 + rng.int(3);
      const k = new Uint8Array(len + 1);
      k[0] = 0x80 + len;
      k.set(rng.bytes(len), 1);
      m.set(bytesKey(k), [k, rng.bytes(5)]);
    }
    const entries = [...m.values()].sort((a, b) => compareBytes(a[0], b[0]));
    assert.equal(build(entries).root, memoryRoot(entries));
  });

  it("rejects unsorted, duplicate, prefix and empty keys", () => {
    const k = (s: string): Uint8Array => Uint8Array.from(s, (c) => Number.parseInt(c, 16));
    const v = Uint8Array.of(1);
    const cases: [string, string][] = [
      ["12", "11"],
      ["12", "12"],
      ["12", "123"],
      ["123", "12"],
    ];
    for (const [a, b] of cases) {
      const hb = new HashBuilder();
      hb.addLeaf(k(a), v);
      assert.throws(() => hb.addLeaf(k(b), v), isUnsorted, `${a} then ${b}`);
    }
    assert.throws(() => new HashBuilder().addLeaf(new Uint8Array(0), v), isUnsorted);
    const hb = new HashBuilder();
    hb.addBranchRef(new Uint8Array(0), new Uint8Array(32), false);
    assert.throws(() => hb.addLeaf(k("1"), v), isUnsorted);
  });

  it("emits consistent branch records whose kept hashes are the child branches' hashes", () => {
    const rng = new Rng(77);
    const entries = randomEntries(rng, 600, () => 1 + rng.int(60));
    const { root, updates } = build(entries, true);
    assert.equal(root, memoryRoot(entries));
    assert.ok(updates.length > 10);
    const paths = new Set(updates.map((u) => bytesKey(u.path)));
    for (const { path, node, record } of updates) {
      assert.equal(hex(record), hex(encodeBranchNodeCompact(node)), "record is the node's stored encoding");
      assert.equal(node.treeMask & ~node.stateMask, 0);
      assert.equal(node.hashMask & ~node.stateMask, 0);
      assert.ok(popcount16(node.stateMask) >= 2);
      assert.equal(node.hashes.length, 32 * popcount16(node.hashMask));
      assert.ok(node.treeMask !== 0 || node.hashMask !== 0, "only branches with hashed or stored children are stored");
      for (let n = 0; n < 16; n++) {
        const child = Uint8Array.of(...path, n);
        if (node.hashMask & (1 << n)) {
          const off = hashOffset(node, n);
          assert.equal(hex(node.hashes.subarray(off, off + 32)), subtrieHash(entries, child), `hash at ${hex(child)}`);
        }
        // A tree bit means some stored branch lies below the child.
        const below = [...paths].some((p) => p.length > path.length && p.startsWith(bytesKey(child)));
        assert.equal((node.treeMask & (1 << n)) !== 0, below, `tree bit at ${hex(child)}`);
      }
    }
  });

  it("addBranchRef stands in for the subtrie below a stored branch", () => {
    const rng = new Rng(9);
    const entries = randomEntries(rng, 400, () => 40);
    const { root, updates } = build(entries, true);
    // Replace every subtrie below the hashed children of one deep stored branch by its ref.
    const deep = updates.filter((u) => u.node.hashMask !== 0).sort((a, b) => b.path.length - a.path.length)[0];
    const hb = new HashBuilder();
    const covered = (n: Uint8Array): number => {
      if (compareBytes(n.subarray(0, deep.path.length), deep.path) !== 0) return -1;
      const nib = n[deep.path.length];
      return deep.node.hashMask & (1 << nib) ? nib : -1;
    };
    const done = new Set<number>();
    for (const [k, v] of entries) {
      const n = bytesToNibbles(k);
      const c = covered(n);
      if (c < 0) hb.addLeafBytes(k, v);
      else if (!done.has(c)) {
        done.add(c);
        const off = hashOffset(deep.node, c);
        hb.addBranchRef(n.subarray(0, deep.path.length + 1), deep.node.hashes.subarray(off, off + 32), false);
      }
    }
    assert.ok(done.size > 0);
    assert.equal(hex(hb.root()), root);
  });

  it("a root ref alone is the root", () => {
    const h = new Uint8Array(32).fill(0x42);
    const hb = new HashBuilder();
    hb.addBranchRef(new Uint8Array(0), h, true);
    assert.equal(hex(hb.root()), hex(h));
  });

  it("the proof retainer yields the in-memory trie's proofs (present and absent keys)", () => {
    const rng = new Rng(31);
    const entries = randomEntries(rng, 300, () => 1 + rng.int(40));
    const t = new MemoryTrie();
    for (const [k, v] of entries) t.put(k, v);
    const targets = [...entries.slice(0, 20).map(([k]) => k), ...Array.from({ length: 20 }, () => clusteredKey(rng))];
    const retainer = new ProofRetainer(targets.map((k) => bytesToNibbles(k)));
    const hb = new HashBuilder({ retainer });
    for (const [k, v] of entries) hb.addLeafBytes(k, v);
    assert.equal(hex(hb.root()), hex(t.rootHash()));
    for (const k of targets) {
      assert.deepEqual(retainer.proof(bytesToNibbles(k)).map(hex), t.proof(k).map(hex), hex(k));
    }
  });

  it("reset allows reuse", () => {
    const rng = new Rng(4);
    const a = randomEntries(rng, 50, () => 30);
    const b = randomEntries(rng, 50, () => 30);
    const hb = new HashBuilder();
    for (const [k, v] of a) hb.addLeafBytes(k, v);
    hb.root();
    hb.reset();
    for (const [k, v] of b) hb.addLeafBytes(k, v);
    assert.equal(hex(hb.root()), memoryRoot(b));
  });
});
