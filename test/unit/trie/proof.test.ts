/**
 * Proofs from stored state (flat tables + stored branch nodes): identical to the in-memory trie's
 * proofs, verified by verifyProof for present and absent keys, after full and incremental builds.
 */
import { strict as assert } from "node:assert";
import { bytesKey } from "../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { WriteBatch } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { encodeAccount } from "../../../src/trie/account.js";
import { MemoryTrie } from "../../../src/trie/memoryTrie.js";
import { EMPTY_TRIE_ROOT } from "../../../src/trie/node.js";
import { accountProof, storageProofs, verifyProof } from "../../../src/trie/proof.js";
import { computeStateRoot, storageLeafValue, updateStateRoot } from "../../../src/trie/stateRoot.js";
import { clusteredKey, Rng, randomWord } from "./helpers.js";

const hex = bytesToHex;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

describe("trie/proof (stored state)", () => {
  it("proofs match the in-memory trie and verify, for present and absent keys", () => {
    const rng = new Rng(404);
    const kv = new MemoryKv();
    const batch = new WriteBatch();
    const accounts = new MemoryTrie();
    const storageAddr = clusteredKey(rng);
    const storage = new MemoryTrie();
    const slots: Uint8Array[] = [];
    for (let i = 0; i < 120; i++) {
      const s = clusteredKey(rng);
      const w = randomWord(rng);
      slots.push(s);
      storage.put(s, storageLeafValue(s, w)!);
      batch.put("hashedStorage", concat(storageAddr, s), w);
    }
    const keys: Uint8Array[] = [storageAddr];
    for (let i = 0; i < 400; i++) keys.push(clusteredKey(rng));
    for (const k of keys) {
      const rlp = encodeAccount(
        rng.int(9),
        BigInt(rng.int(1e6)),
        bytesKey(k) === bytesKey(storageAddr) ? storage.rootHash() : EMPTY_TRIE_ROOT,
      );
      accounts.put(k, rlp);
      batch.put("hashedAccounts", k, rlp);
    }
    kv.write(batch);
    kv.write(computeStateRoot(kv).batch);

    const probes = [...keys.slice(0, 30), ...Array.from({ length: 30 }, () => clusteredKey(rng))];
    for (const k of probes) {
      const { root, proof } = accountProof(kv, k);
      assert.equal(hex(root), hex(accounts.rootHash()));
      assert.deepEqual(proof.proof.map(hex), accounts.proof(k).map(hex), `account proof ${hex(k)}`);
      const v = verifyProof(root, k, proof.proof);
      assert.deepEqual(v, accounts.get(k));
      assert.deepEqual(proof.value, accounts.get(k));
    }

    const slotProbes = [...slots.slice(0, 25), ...Array.from({ length: 25 }, () => clusteredKey(rng))];
    const sp = storageProofs(kv, storageAddr, slotProbes);
    assert.equal(hex(sp.root), hex(storage.rootHash()));
    sp.proofs.forEach((p, i) => {
      assert.deepEqual(p.proof.map(hex), storage.proof(slotProbes[i]).map(hex), `storage proof ${i}`);
      assert.deepEqual(verifyProof(sp.root, slotProbes[i], p.proof), storage.get(slotProbes[i]));
      assert.deepEqual(p.value, storage.get(slotProbes[i]));
    });

    // After an incremental update the stored nodes still give the right proofs.
    const k0 = keys[5];
    const next = encodeAccount(77, 77n);
    kv.write(new WriteBatch().put("hashedAccounts", k0, next));
    accounts.put(k0, next);
    const inc = updateStateRoot(kv, { accounts: [k0] });
    kv.write(inc.batch);
    const after = accountProof(kv, k0);
    assert.equal(hex(after.root), hex(accounts.rootHash()));
    assert.deepEqual(after.proof.proof.map(hex), accounts.proof(k0).map(hex));
  });

  it("proofs in an empty trie and a one-leaf trie", () => {
    const kv = new MemoryKv();
    const k = new Uint8Array(32).fill(1);
    const empty = accountProof(kv, k);
    assert.equal(hex(empty.root), hex(EMPTY_TRIE_ROOT));
    assert.deepEqual(empty.proof.proof, []);
    assert.equal(verifyProof(empty.root, k, []), null);

    kv.write(new WriteBatch().put("hashedAccounts", k, encodeAccount(1, 1n)));
    const one = accountProof(kv, k);
    assert.equal(one.proof.proof.length, 1);
    assert.deepEqual(verifyProof(one.root, k, one.proof.proof), encodeAccount(1, 1n));
    const other = new Uint8Array(32).fill(2);
    assert.equal(verifyProof(one.root, other, accountProof(kv, other).proof.proof), null);
    assert.throws(() => verifyProof(one.root, k, []), { code: "PROOF_MISSING_NODE" });
  });
});
