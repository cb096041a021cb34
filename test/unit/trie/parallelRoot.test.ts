/**
 * trieRootParallel through real trieHash workers (pools of 1 and 2) equals the single-threaded root,
 * for random account sets, a set whose keys all share a first nibble, and the small-batch path.
 */
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { PiscinaPool } from "../../../src/node/pools.js";
import { compareBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { encodeAccount } from "../../../src/trie/account.js";
import { MemoryTrie } from "../../../src/trie/memoryTrie.js";
import { type PackedLeaves, trieRootOfPairs, trieRootParallel } from "../../../src/trie/parallelRoot.js";

function pack(entries: [Uint8Array, Uint8Array][]): PackedLeaves {
  entries.sort((a, b) => compareBytes(a[0], b[0]));
  const keys = new Uint8Array(32 * entries.length);
  const valueOffsets = new Uint32Array(entries.length + 1);
  let size = 0;
  entries.forEach(([k, v], i) => {
    keys.set(k, 32 * i);
    size += v.length;
    valueOffsets[i + 1] = size;
  });
  const values = new Uint8Array(size);
  entries.forEach(([, v], i) => {
    values.set(v, valueOffsets[i]);
  });
  return { keys, values, valueOffsets };
}

function accounts(n: number, firstNibble?: number): [Uint8Array, Uint8Array][] {
  return Array.from({ length: n }, (_, i) => {
    const k = keccak256(new Uint8Array(randomBytes(20)));
    if (firstNibble !== undefined) k[0] = (firstNibble << 4) | (k[0] & 0x0f);
    return [k, encodeAccount(i, BigInt(i) * 10n ** 18n)];
  });
}

function reference(entries: [Uint8Array, Uint8Array][]): string {
  const t = new MemoryTrie();
  for (const [k, v] of entries) t.put(k, v);
  return bytesToHex(t.rootHash());
}

describe("trie/parallelRoot: root across the trieHash pool", function () {
  this.timeout(60_000);
  for (const threads of [1, 2]) {
    it(`pool of ${threads} equals the in-memory trie`, async () => {
      const pool = new PiscinaPool("trieHash", { threads });
      try {
        await pool.warm();
        for (const n of [20, 5000, 20_000]) {
          const entries = accounts(n);
          const want = reference(entries);
          assert.equal(bytesToHex(await trieRootParallel(pack(entries), pool, 1)), want, `${n} leaves`);
          assert.equal(bytesToHex(await trieRootParallel(pack(entries), null)), want);
        }
        const oneGroup = accounts(3000, 7);
        assert.equal(bytesToHex(await trieRootParallel(pack(oneGroup), pool, 1)), reference(oneGroup));
        // Unsorted pairs: sorted once, each worker's part packed and sent in turn.
        for (const entries of [accounts(20), accounts(5000), accounts(20_000), oneGroup]) {
          const want = reference(entries);
          const ks = entries.map(([k]) => k);
          const vs = entries.map(([, v]) => v);
          assert.equal(bytesToHex(await trieRootOfPairs(ks, vs, pool, 1)), want, `${entries.length} pairs`);
          assert.equal(bytesToHex(await trieRootOfPairs(ks, vs, null)), want);
        }
        const dup = accounts(100);
        dup.push([dup[7]![0].slice(), dup[3]![1]]);
        await assert.rejects(
          trieRootOfPairs(
            dup.map(([k]) => k),
            dup.map(([, v]) => v),
            pool,
            1,
          ),
          { name: "TrieError", code: "UNSORTED_KEYS" },
        );
        assert.equal(pool.busy, 0);
      } finally {
        await pool.destroy();
      }
    });
  }
});
