/**
 * ethereum/tests TrieTests: every case of every file. `in` is a list of [key, value] applied in order
 * or a map applied in any order; keys and values are 0x-hex or raw strings, null (or empty) deletes;
 * *_secureTrie and hex_encoded_securetrie_test hash keys with keccak-256; trietestnextprev.json checks
 * ordered iteration. Each root is also checked through the HashBuilder (secure tries, whose keys are
 * prefix-free) and each present key's proof through verifyProof.
 *
 * Also from the shared BlockchainTests (ValidBlocks): the genesis and post state roots through the
 * stored-state root (full build, then the incremental update from pre to post), and every block's
 * transactions and withdrawals roots through orderedTrieRoot.
 */
import { strict as assert } from "node:assert";
import { basename } from "node:path";
import { keccak256 } from "../../src/crypto/keccak.js";
import { bytesKey, compareBytes, concatBytes } from "../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../src/primitives/hex.js";
import { bigintToBytes, bigintToBytes32 } from "../../src/primitives/u256.js";
import { decodeRlp, type RlpItem } from "../../src/rlp/decode.js";
import { encodeRlp, type RlpInput } from "../../src/rlp/encode.js";
import { WriteBatch } from "../../src/storage/kv.js";
import { MemoryKv } from "../../src/storage/memory.js";
import { encodeAccount } from "../../src/trie/account.js";
import { HashBuilder } from "../../src/trie/hashBuilder.js";
import { MemoryTrie } from "../../src/trie/memoryTrie.js";
import { orderedTrieRoot } from "../../src/trie/orderedRoot.js";
import { verifyProof } from "../../src/trie/proof.js";
import { computeStateRoot, type StorageChange, updateStateRoot } from "../../src/trie/stateRoot.js";
import { fixturePath, listFiles, readJson } from "../utils/fixtures.js";

type Pairs = [string, string | null][] | Record<string, string | null>;
interface RootCase {
  in: Pairs;
  root: string;
  hexEncoded?: boolean;
}
interface NextPrevCase {
  in: string[];
  tests: [string, string, string][];
}

function toBytes(s: string, hex: boolean): Uint8Array {
  if (hex || s.startsWith("0x")) return hexToBytes(s);
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

function latin1(b: Uint8Array): string {
  return String.fromCharCode(...b);
}

describe("spec: ethereum/tests TrieTests", () => {
  const dir = fixturePath("ethereum-tests", "TrieTests");
  const files = listFiles(dir);
  let cases = 0;

  after(() => console.log(`      TrieTests: ${cases} cases passed across ${files.length} files`));

  it("finds the corpus", () => assert.ok(files.length >= 6, `only ${files.length} files in ${dir}`));

  for (const file of files) {
    const name = basename(file);
    const tests = readJson<Record<string, RootCase | NextPrevCase>>(file);
    describe(name, () => {
      for (const [caseName, t] of Object.entries(tests)) {
        it(caseName, () => {
          if ("tests" in t) runNextPrev(t);
          else runRoot(t, /secure/i.test(name), Array.isArray(t.in) === false);
          cases++;
        });
      }
    });
  }
});

function runRoot(t: RootCase, secure: boolean, anyOrder: boolean): void {
  const hex = t.hexEncoded === true;
  const ops: [Uint8Array, Uint8Array | null][] = (Array.isArray(t.in) ? t.in : Object.entries(t.in)).map(([k, v]) => [
    toBytes(k, hex),
    v === null ? null : toBytes(v, hex),
  ]);
  const apply = (order: [Uint8Array, Uint8Array | null][]): MemoryTrie => {
    const trie = new MemoryTrie({ secure });
    for (const [k, v] of order) {
      if (v === null || v.length === 0) trie.del(k);
      else trie.put(k, v);
    }
    return trie;
  };
  const trie = apply(ops);
  assert.equal(bytesToHex(trie.rootHash()), t.root);
  if (anyOrder) assert.equal(bytesToHex(apply([...ops].reverse()).rootHash()), t.root, "reverse order");

  // The final key set, for the HashBuilder and proof cross-checks.
  const final = new Map<string, [Uint8Array, Uint8Array]>();
  for (const [k, v] of ops) {
    if (v === null || v.length === 0) final.delete(latin1(k));
    else final.set(latin1(k), [k, v]);
  }
  const root = trie.rootHash();
  for (const [k, v] of final.values()) {
    const path = secure ? keccak256(k) : k;
    assert.deepEqual(verifyProof(root, path, trie.proof(k)), v, `proof of ${bytesToHex(k)}`);
  }
  if (secure) {
    const hb = new HashBuilder();
    const leaves = [...final.values()].map(([k, v]) => [keccak256(k), v] as const);
    leaves.sort((a, b) => compareBytes(a[0], b[0]));
    for (const [k, v] of leaves) hb.addLeafBytes(k, v);
    assert.equal(bytesToHex(hb.root()), t.root, "HashBuilder root");
  }
}

function runNextPrev(t: NextPrevCase): void {
  const trie = new MemoryTrie();
  for (const k of t.in) trie.put(toBytes(k, false), toBytes(k, false));
  const seen = [...trie.entries()].map(([k]) => bytesKey(k));
  assert.deepEqual(seen, [...t.in].sort(), "ordered iteration");
  for (const [key, prev, next] of t.tests) {
    const k = toBytes(key, false);
    const p = trie.prev(k);
    const n = trie.next(k);
    assert.equal(p === null ? "" : latin1(p[0]), prev, `prev(${key})`);
    assert.equal(n === null ? "" : latin1(n[0]), next, `next(${key})`);
  }
}

// ---- BlockchainTests: state roots over storage, ordered roots ----

interface JsonAccount {
  balance: string;
  nonce: string;
  code: string;
  storage: Record<string, string>;
}
interface BlockchainTest {
  pre: Record<string, JsonAccount>;
  postState?: Record<string, JsonAccount>;
  genesisBlockHeader: { stateRoot: string };
  blocks: {
    rlp: string;
    blockHeader?: { stateRoot: string; transactionsTrie: string; withdrawalsRoot?: string };
    expectException?: string;
  }[];
}

/** Writes an account and its storage as flat rows (storageRoot left empty: the root code patches it). */
function writeFlat(batch: WriteBatch, addr: string, a: JsonAccount): void {
  const h = keccak256(hexToBytes(addr));
  batch.put(
    "hashedAccounts",
    h,
    encodeAccount(BigInt(a.nonce), BigInt(a.balance), undefined, keccak256(hexToBytes(a.code))),
  );
  for (const [slot, value] of Object.entries(a.storage)) {
    const v = BigInt(value);
    if (v === 0n) continue;
    batch.put("hashedStorage", concatBytes(h, keccak256(bigintToBytes32(BigInt(slot)))), bigintToBytes(v));
  }
}

function deleteFlat(batch: WriteBatch, addr: string, a: JsonAccount): void {
  const h = keccak256(hexToBytes(addr));
  batch.del("hashedAccounts", h);
  for (const slot of Object.keys(a.storage))
    batch.del("hashedStorage", concatBytes(h, keccak256(bigintToBytes32(BigInt(slot)))));
}

function reencode(item: RlpItem): RlpInput {
  return Array.isArray(item) ? item.map(reencode) : item;
}

describe("spec: BlockchainTests state and ordered roots", () => {
  const dir = fixturePath("ethereum-tests", "BlockchainTests", "ValidBlocks");
  const files = listFiles(dir);
  let states = 0;
  let blocks = 0;

  after(() =>
    console.log(`      BlockchainTests: ${states} state roots (pre and post), ${blocks} blocks' tx/withdrawal roots`),
  );

  for (const file of files) {
    const tests = readJson<Record<string, BlockchainTest>>(file);
    for (const [caseName, t] of Object.entries(tests)) {
      it(`${file.slice(dir.length + 1)} ${caseName}`, () => {
        const kv = new MemoryKv();
        const init = new WriteBatch();
        for (const [addr, a] of Object.entries(t.pre)) writeFlat(init, addr, a);
        kv.write(init);
        const genesis = computeStateRoot(kv);
        assert.equal(bytesToHex(genesis.root), t.genesisBlockHeader.stateRoot, "genesis state root");
        kv.write(genesis.batch);
        states++;

        const last = t.blocks.filter((b) => b.blockHeader !== undefined && b.expectException === undefined).at(-1);
        if (t.postState !== undefined && last?.blockHeader !== undefined) {
          // Incremental: only the accounts and slots that differ between pre and post.
          const batch = new WriteBatch();
          const accounts: Uint8Array[] = [];
          const storage: StorageChange[] = [];
          const addrs = new Set([...Object.keys(t.pre), ...Object.keys(t.postState)]);
          for (const addr of addrs) {
            const before = t.pre[addr];
            const after = t.postState[addr];
            if (JSON.stringify(before) === JSON.stringify(after)) continue;
            const h = keccak256(hexToBytes(addr));
            accounts.push(h);
            if (before !== undefined) deleteFlat(batch, addr, before);
            if (after !== undefined) writeFlat(batch, addr, after);
            const slots = new Set([...Object.keys(before?.storage ?? {}), ...Object.keys(after?.storage ?? {})]);
            const changed = [...slots].filter((s) => before?.storage[s] !== after?.storage[s]);
            if (changed.length > 0 || (before !== undefined && after === undefined)) {
              storage.push({
                hashedAddress: h,
                slots: changed.map((s) => keccak256(bigintToBytes32(BigInt(s)))),
                wiped: after === undefined,
              });
            }
          }
          kv.write(batch);
          const inc = updateStateRoot(kv, { accounts, storage });
          assert.equal(bytesToHex(inc.root), last.blockHeader.stateRoot, "post state root (incremental)");
          kv.write(inc.batch);
          assert.equal(computeStateRoot(kv).batch.size, 0, "incremental left the stored trie of a full build");
          states++;
        }

        for (const b of t.blocks) {
          if (b.blockHeader === undefined || b.expectException !== undefined) continue;
          const block = decodeRlp(hexToBytes(b.rlp)) as RlpItem[];
          const txs = (block[1] as RlpItem[]).map((tx) => (Array.isArray(tx) ? encodeRlp(reencode(tx)) : tx));
          assert.equal(bytesToHex(orderedTrieRoot(txs)), b.blockHeader.transactionsTrie, "transactions root");
          if (b.blockHeader.withdrawalsRoot !== undefined) {
            const ws = (block[3] as RlpItem[]).map((w) => encodeRlp(reencode(w)));
            assert.equal(bytesToHex(orderedTrieRoot(ws)), b.blockHeader.withdrawalsRoot, "withdrawals root");
          }
          blocks++;
        }
      });
    }
  }
});
