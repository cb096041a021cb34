/**
 * In-memory trie: order-independence of the root, agreement with the HashBuilder, ordered iteration
 * with next/prev against a sorted model, proofs (presence and absence), the secure variant.
 */
import { strict as assert } from "node:assert";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { bytesKey, compareBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { HashBuilder } from "../../../src/trie/hashBuilder.js";
import { MemoryTrie } from "../../../src/trie/memoryTrie.js";
import { EMPTY_TRIE_ROOT } from "../../../src/trie/node.js";
import { verifyProof } from "../../../src/trie/proof.js";
import { clusteredKey, Rng } from "./helpers.js";

const hex = bytesToHex;
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Short keys over a tiny alphabet: many keys are prefixes of others (branch values). */
function shortKey(rng: Rng): Uint8Array {
  const len = rng.int(4);
  const k = new Uint8Array(len);
  for (let i = 0; i < len; i++) k[i] = rng.pick([0x00, 0x01, 0x10, 0x11, 0xff]);
  return k;
}

function hashBuilderRoot(entries: Iterable<[Uint8Array, Uint8Array]>): string {
  const sorted = [...entries].sort((a, b) => compareBytes(a[0], b[0]));
  const hb = new HashBuilder();
  for (const [k, v] of sorted) hb.addLeafBytes(k, v);
  return hex(hb.root());
}

describe("trie/memoryTrie", () => {
  it("empty trie", () => {
    const t = new MemoryTrie();
    assert.equal(hex(t.rootHash()), hex(EMPTY_TRIE_ROOT));
    assert.equal(t.get(utf8("a")), null);
    assert.equal(t.del(utf8("a")), false);
    assert.equal(t.next(utf8("a")), null);
    assert.deepEqual(t.proof(utf8("a")), []);
    assert.equal(verifyProof(t.rootHash(), utf8("a"), []), null);
  });

  it("a root node under 32 bytes is still hashed", () => {
    const t = new MemoryTrie();
    t.put(utf8("a"), utf8("b"));
    assert.equal(t.proof(utf8("a"))[0].length < 32, true);
    assert.equal(hex(t.rootHash()), hex(keccak256(t.proof(utf8("a"))[0])));
  });

  for (const seed of [11, 12, 13]) {
    it(`random puts/deletes match a sorted model (seed ${seed})`, () => {
      const rng = new Rng(seed);
      const t = new MemoryTrie();
      const model = new Map<string, [Uint8Array, Uint8Array]>();
      for (let step = 0; step < 1500; step++) {
        const k = rng.int(3) === 0 ? shortKey(rng) : rng.int(2) ? clusteredKey(rng) : rng.bytes(1 + rng.int(6));
        if (rng.int(3) === 0) {
          assert.equal(t.del(k), model.delete(bytesKey(k)));
        } else {
          const v = rng.bytes(1 + rng.int(40));
          t.put(k, v);
          model.set(bytesKey(k), [k, v]);
        }
        if (step % 100 === 0) {
          // A fresh trie with the final contents in another order has the same root.
          const fresh = new MemoryTrie();
          for (const [kk, vv] of [...model.values()].reverse()) fresh.put(kk, vv);
          assert.equal(hex(t.rootHash()), hex(fresh.rootHash()), `step ${step}`);
        }
      }
      assert.equal(t.size, model.size);
      const sorted = [...model.values()].sort((a, b) => compareBytes(a[0], b[0]));
      assert.deepEqual(
        [...t.entries()].map(([k, v]) => `${hex(k)}=${hex(v)}`),
        sorted.map(([k, v]) => `${hex(k)}=${hex(v)}`),
      );
      for (const [k, v] of sorted) assert.equal(hex(t.get(k)!), hex(v));
      // next/prev against the sorted key list, for present and absent probes.
      const keys = sorted.map(([k]) => k);
      for (let i = 0; i < 300; i++) {
        const probe = rng.int(2) ? rng.pick(keys) : shortKey(rng);
        const next = keys.find((k) => compareBytes(k, probe) > 0);
        const prev = [...keys].reverse().find((k) => compareBytes(k, probe) < 0);
        assert.equal(
          hex(t.next(probe)?.[0] ?? new Uint8Array(0)),
          hex(next ?? new Uint8Array(0)),
          `next ${hex(probe)}`,
        );
        assert.equal(
          hex(t.prev(probe)?.[0] ?? new Uint8Array(0)),
          hex(prev ?? new Uint8Array(0)),
          `prev ${hex(probe)}`,
        );
      }
    });
  }

  it("agrees with the HashBuilder on fixed-length keys, through deletes that collapse branches", () => {
    const rng = new Rng(5);
    const t = new MemoryTrie();
    const model = new Map<string, [Uint8Array, Uint8Array]>();
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 20; i++) {
        const k = clusteredKey(rng);
        const v = rng.bytes(1 + rng.int(3) * 20);
        t.put(k, v);
        model.set(bytesKey(k), [k, v]);
      }
      const present = [...model.values()];
      for (let i = 0; i < 15 && present.length > 0; i++) {
        const [k] = present.splice(rng.int(present.length), 1)[0];
        t.del(k);
        model.delete(bytesKey(k));
      }
      assert.equal(hex(t.rootHash()), hashBuilderRoot(model.values()), `round ${round}`);
    }
  });

  it("proofs verify for present and absent keys; tampering is detected", () => {
    const rng = new Rng(21);
    const t = new MemoryTrie();
    const keys: Uint8Array[] = [];
    for (let i = 0; i < 300; i++) {
      const k = rng.int(2) ? clusteredKey(rng) : shortKey(rng);
      t.put(k, rng.bytes(1 + rng.int(50)));
      keys.push(k);
    }
    const root = t.rootHash();
    for (const k of keys) assert.deepEqual(verifyProof(root, k, t.proof(k)), t.get(k));
    for (let i = 0; i < 100; i++) {
      const k = rng.int(2) ? clusteredKey(rng) : shortKey(rng);
      assert.deepEqual(verifyProof(root, k, t.proof(k)), t.get(k));
    }
    const k = keys[0];
    const proof = t.proof(k);
    assert.throws(() => verifyProof(root, k, proof.slice(0, proof.length - 1)), { code: "PROOF_MISSING_NODE" });
    const flipped = proof.map((n) => n.slice());
    flipped[0][flipped[0].length - 1] ^= 1;
    assert.throws(() => verifyProof(root, k, flipped), { code: "PROOF_MISSING_NODE" });
    assert.throws(() => verifyProof(keccak256(hexToBytes("0x00")), k, [hexToBytes("0x00")]), {
      code: "PROOF_INVALID",
    });
  });

  it("secure trie = plain trie over keccak(key)", () => {
    const rng = new Rng(8);
    const s = new MemoryTrie({ secure: true });
    const p = new MemoryTrie();
    for (let i = 0; i < 200; i++) {
      const k = rng.bytes(20);
      const v = rng.bytes(10);
      s.put(k, v);
      p.put(keccak256(k), v);
      assert.equal(hex(s.get(k)!), hex(v));
    }
    assert.equal(hex(s.rootHash()), hex(p.rootHash()));
  });

  it("putting an empty value deletes", () => {
    const t = new MemoryTrie();
    t.put(utf8("dog"), utf8("puppy"));
    t.put(utf8("do"), utf8("verb"));
    const root = t.rootHash();
    t.put(utf8("doge"), utf8("coin"));
    t.put(utf8("doge"), new Uint8Array(0));
    assert.equal(hex(t.rootHash()), hex(root));
    assert.equal(t.size, 2);
  });
});
