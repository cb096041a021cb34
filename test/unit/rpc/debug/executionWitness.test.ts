/**
 * debug_executionWitness (reth's ExecutionWitness: state, codes, keys, headers) and the sparse trie
 * under it. The check is stateless: `verifyWitness` re-executes the block over sparse tries holding
 * nothing but the witness's nodes, from the parent header's state root, and must reproduce the
 * block's state root, gas used and receipts root. It is shown to fail when any one node is dropped,
 * when a node is altered, when a code the block reads or a header BLOCKHASH needs is missing.
 * SparseTrie itself is checked against MemoryTrie (an independent full trie) on random edits.
 */
import { strict as assert } from "node:assert";
import { defaultSuiteDir } from "../../../../scripts/rpcCompat.js";
import { decodeHeader, headerHash } from "../../../../src/block/header.js";
import { Blockchain } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { privateKeyToAddress } from "../../../../src/crypto/secp256k1.js";
import { bytesKey, equalBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { type ExecutionWitness, executionWitness, verifyWitness } from "../../../../src/rpc/debug/witness.js";
import { ChainReader, type DecodedBlock } from "../../../../src/rpc/eth/chainReader.js";
import { decodeAccountRecord, KvStateReader } from "../../../../src/state/kvStateReader.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { TrieError } from "../../../../src/trie/errors.js";
import { MemoryTrie } from "../../../../src/trie/memoryTrie.js";
import { EMPTY_TRIE_ROOT } from "../../../../src/trie/node.js";
import { SparseTrie } from "../../../../src/trie/sparseTrie.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { signTx } from "../../../../src/tx/signer.js";
import { TxType } from "../../../../src/tx/tx.js";
import { requireFixture } from "../../../utils/fixtures.js";
import { L1_CHAIN_ID, l1Genesis } from "../../../utils/genesis.js";
import { buildSuiteChain } from "../../../utils/rpcCompatChain.js";
import { buildOpDebugChain, HASHER, WRITER, WRITER_CODE } from "./opDebugChain.js";
import { rpcOver } from "./rpcHarness.js";

const hex = bytesToHex;

function blockAt(chain: Blockchain, n: number): DecodedBlock {
  return new ChainReader(chain).block(chain.store.canonicalHash(n)!)!;
}

/** Runs the stateless check; the error it throws, or null when the witness holds. */
function check(chain: Blockchain, b: DecodedBlock, w: ExecutionWitness): Error | null {
  try {
    verifyWitness(chain.config, b, w);
    return null;
  } catch (e) {
    return e as Error;
  }
}

/** xorshift32: deterministic pseudo-random bytes for the trie tests. */
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

function randomBytes(next: () => number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = next() & 0xff;
  return out;
}

describe("rpc/debug debug_executionWitness", function () {
  this.timeout(300_000);

  describe("rpc-compat chain (every fork from Homestead to Osaka)", () => {
    let chain: Blockchain;
    before(() => {
      chain = buildSuiteChain(requireFixture(defaultSuiteDir()));
    });

    it("every block re-executes from its witness alone to its state root", () => {
      for (let n = 1; n <= chain.head.number; n++) {
        const b = blockAt(chain, n);
        const w = executionWitness(chain, b);
        assert.equal(check(chain, b, w), null, `block ${n}`);
        assert.ok(equalBytes(w.headers.at(-1)!, chain.store.headerRlp(b.header.parentHash)!), "the parent header last");
        for (const node of w.state) assert.ok(node.length >= 32, "only nodes referenced by hash");
      }
    });

    it("dropping any one node fails the check", () => {
      let dropped = 0;
      for (const n of [2, 9, 27, 45, 54]) {
        const b = blockAt(chain, n);
        const w = executionWitness(chain, b);
        for (let i = 0; i < w.state.length; i++) {
          const e = check(chain, b, { ...w, state: w.state.filter((_, j) => j !== i) });
          assert.ok(e instanceof TrieError && e.code === "PROOF_MISSING_NODE", `block ${n} without node ${i}: ${e}`);
          dropped++;
        }
      }
      assert.ok(dropped > 50);
    });
  });

  describe("OP chain", () => {
    let chain: Blockchain;
    before(() => {
      chain = buildOpDebugChain().chain;
    });

    it("witnesses verify; codes read and BLOCKHASH headers are part of them", () => {
      for (let n = 1; n <= chain.head.number; n++) {
        const b = blockAt(chain, n);
        const w = executionWitness(chain, b);
        assert.equal(check(chain, b, w), null, `block ${n}`);
      }
      // Block 5's HASHER reads BLOCKHASH(2): headers 2, 3 and 4, oldest first.
      const b5 = blockAt(chain, 5);
      const w5 = executionWitness(chain, b5);
      assert.deepEqual(
        w5.headers.map((h) => decodeHeader(h).number),
        [2, 3, 4],
      );
      assert.ok(equalBytes(headerHash(decodeHeader(w5.headers[0]!)), chain.store.canonicalHash(2)!));
      const e = check(chain, b5, { ...w5, headers: w5.headers.slice(1) });
      assert.match(String(e), /BLOCKHASH\(2\) needs a header the witness lacks/);
      assert.match(String(check(chain, b5, { ...w5, headers: w5.headers.slice(0, 2) })), /not the block's parent/);
      // Block 2 calls WRITER: its code is in the witness and needed.
      const b2 = blockAt(chain, 2);
      const w2 = executionWitness(chain, b2);
      const writerCode = w2.codes.findIndex((c) => equalBytes(c, WRITER_CODE));
      assert.ok(writerCode >= 0);
      assert.match(
        String(check(chain, b2, { ...w2, codes: w2.codes.filter((_, i) => i !== writerCode) })),
        /missing code/,
      );
      // keys: the preimages (addresses, then their slots) of what the block touched.
      const keys = w2.keys.map(hex);
      assert.ok(keys.includes(hex(WRITER)) && keys.includes(hex(new Uint8Array(32))), "WRITER and its slot 0");
      assert.ok(!keys.includes(hex(HASHER)), "HASHER is not called in block 2");
    });

    it("an altered node, a forged state root or a missing node make the check fail", () => {
      const b = blockAt(chain, 3);
      const w = executionWitness(chain, b);
      for (let i = 0; i < w.state.length; i++) {
        const altered = w.state.map((n, j) =>
          j === i ? Uint8Array.from(n, (x, k) => (k === n.length - 1 ? x ^ 1 : x)) : n,
        );
        assert.notEqual(check(chain, b, { ...w, state: altered }), null, `node ${i} altered`);
        assert.notEqual(check(chain, b, { ...w, state: w.state.filter((_, j) => j !== i) }), null, `node ${i} dropped`);
      }
      const forged = { ...b, header: { ...b.header, stateRoot: new Uint8Array(32).fill(1) } };
      assert.match(String(check(chain, forged, w)), /state root/);
    });

    it("served as reth serves it: hex lists in reth's field order, -32001 for an unknown block", async () => {
      const rpc = rpcOver(chain);
      const r = await rpc("debug_executionWitness", ["0x3"]);
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      assert.deepEqual(Object.keys(r.result), ["state", "codes", "keys", "headers"]);
      const w: ExecutionWitness = {
        state: r.result.state.map(hexToBytes),
        codes: r.result.codes.map(hexToBytes),
        keys: r.result.keys.map(hexToBytes),
        headers: r.result.headers.map(hexToBytes),
      };
      assert.equal(check(chain, blockAt(chain, 3), w), null, "the JSON witness verifies");
      const byHash = await rpc("debug_executionWitnessByBlockHash", [hex(chain.store.canonicalHash(3)!)]);
      assert.deepEqual(byHash.result, r.result);
      assert.deepEqual((await rpc("debug_executionWitness", ["0x64"])).error, {
        code: -32001,
        message: "block not found: 0x64",
      });
      const latest = await rpc("debug_executionWitness", ["latest"]);
      assert.deepEqual(latest.result, (await rpc("debug_executionWitness", ["0x5"])).result);
    });
  });

  it("Shanghai: storage read by one tx and wiped by a later SELFDESTRUCT keeps its nodes in the witness", () => {
    // Empty calldata: SSTORE(NUMBER, SLOAD(0) + NUMBER). Any calldata: SELFDESTRUCT(CALLER).
    const code = hexToBytes("0x36600c5760005443014355005b33ff");
    const key = hexToBytes(`0x${"42".repeat(32)}`);
    const target = hexToBytes("0x00000000000000000000000000000000c0de00d5");
    const json = l1Genesis(
      new Map([
        [privateKeyToAddress(key), { balance: 10n ** 21n }],
        [target, { balance: 0n, code }],
      ]),
      { cancunTime: null },
    ) as { config: unknown };
    const chain = Blockchain.init(new MemoryKv(), parseGenesis(json), json.config);
    let nonce = 0n;
    const call = (data: Uint8Array) =>
      encodeTx(
        signTx(
          {
            type: TxType.FeeMarket,
            chainId: L1_CHAIN_ID,
            nonce: nonce++,
            maxPriorityFeePerGas: 1n,
            maxFeePerGas: 10n ** 10n,
            gasLimit: 200_000n,
            to: target,
            value: 0n,
            data,
            accessList: [],
            yParity: 0,
            r: 0n,
            s: 0n,
          },
          key,
        ),
      );
    for (const forced of [[call(new Uint8Array(0))], [call(new Uint8Array(0)), call(Uint8Array.of(1))]]) {
      const parent = chain.head;
      const built = chain.buildBlock({
        parentHash: chain.headBlockHash,
        timestamp: parent.timestamp + 12,
        feeRecipient: new Uint8Array(20),
        prevRandao: new Uint8Array(32),
        gasLimit: parent.gasLimit,
        extraData: new Uint8Array(0),
        withdrawals: [],
        parentBeaconBlockRoot: null,
        forced,
        pool: null,
      });
      assert.ok(!("error" in built) && built.body.transactions.length === forced.length);
      chain.setHead(built.hash);
    }
    const b = blockAt(chain, 2);
    assert.deepEqual(
      chain.store.receipts(b.hash)!.map((r) => r.status),
      [1, 1],
    );
    const w = executionWitness(chain, b);
    assert.equal(check(chain, b, w), null);
    // The target's storage root before block 2 (its one slot, written in block 1): the node the first
    // tx's SLOAD resolved, though the second tx then wiped that storage.
    const before = executionWitness(chain, blockAt(chain, 1));
    assert.equal(check(chain, blockAt(chain, 1), before), null);
    const account = new KvStateReader(chain.kv).account(keccak256(target));
    assert.equal(account, null, "destroyed in block 2");
    const parentRoot = chain.store.header(b.header.parentHash)!.stateRoot;
    const accountTrie = new SparseTrie(parentRoot, (h) => w.state.find((n) => equalBytes(keccak256(n), h)));
    const leaf = accountTrie.get(keccak256(target));
    assert.notEqual(leaf, null, "the target's account is proven by the witness");
    const storageRoot = decodeAccountRecord(leaf!).storageRoot;
    assert.ok(
      w.state.some((n) => equalBytes(keccak256(n), storageRoot)),
      "its storage root node is in the witness",
    );
    for (let i = 0; i < w.state.length; i++) {
      assert.notEqual(check(chain, b, { ...w, state: w.state.filter((_, j) => j !== i) }), null, `node ${i}`);
    }
  });

  describe("SparseTrie", () => {
    /** A MemoryTrie of `n` random 32-byte keys and every hashed node its proofs carry, by hash. */
    function fullTrie(next: () => number, n: number) {
      const t = new MemoryTrie();
      const keys: Uint8Array[] = [];
      for (let i = 0; i < n; i++) {
        const k = randomBytes(next, 32);
        keys.push(k);
        t.put(k, randomBytes(next, 1 + (next() % 40)));
      }
      const nodes = new Map<string, Uint8Array>();
      for (const k of keys) for (const p of t.proof(k)) nodes.set(bytesKey(keccak256(p)), p);
      return { t, keys, nodes };
    }

    it("agrees with MemoryTrie on random gets, puts and deletes, resolving nodes on demand", () => {
      for (const seed of [1, 7, 42, 1234]) {
        const next = rng(seed);
        const { t, keys, nodes } = fullTrie(next, 200);
        const s = new SparseTrie(t.rootHash(), (h) => nodes.get(bytesKey(h)));
        assert.ok(equalBytes(s.rootHash(), t.rootHash()));
        for (let op = 0; op < 400; op++) {
          const r = next() % 4;
          const k = r === 3 || keys.length === 0 ? randomBytes(next, 32) : keys[next() % keys.length]!;
          if (r === 0) {
            s.del(k);
            t.del(k);
          } else if (r === 1) {
            const got = s.get(k);
            const want = t.get(k);
            assert.ok(got === null ? want === null : want !== null && equalBytes(got, want));
          } else {
            const v = randomBytes(next, 1 + (next() % 40));
            s.put(k, v);
            t.put(k, v);
            keys.push(k);
          }
          assert.ok(equalBytes(s.rootHash(), t.rootHash()), `seed ${seed} op ${op}`);
        }
        // Emptied completely, it is the empty trie.
        for (const k of keys) {
          s.del(k);
          t.del(k);
        }
        assert.ok(equalBytes(s.rootHash(), EMPTY_TRIE_ROOT));
      }
    });

    it("the nodes it resolved are exactly what a second run needs: none may be missing", () => {
      const next = rng(99);
      const { t, keys, nodes } = fullTrie(next, 300);
      const ops: [number, Uint8Array, Uint8Array][] = [];
      for (let i = 0; i < 30; i++) ops.push([next() % 3, keys[next() % keys.length]!, randomBytes(next, 8)]);
      const run = (src: (h: Uint8Array) => Uint8Array | undefined): { root: Uint8Array; used: Uint8Array[] } => {
        const s = new SparseTrie(t.rootHash(), src);
        for (const [kind, k, v] of ops) {
          if (kind === 0) s.del(k);
          else if (kind === 1) s.get(k);
          else s.put(k, v);
        }
        return { root: s.rootHash(), used: s.resolved.map((n) => n.rlp) };
      };
      const first = run((h) => nodes.get(bytesKey(h)));
      const only = new Map(first.used.map((n) => [bytesKey(keccak256(n)), n]));
      assert.ok(equalBytes(run((h) => only.get(bytesKey(h))).root, first.root));
      for (const drop of only.keys()) {
        assert.throws(
          () => run((h) => (bytesKey(h) === drop ? undefined : only.get(bytesKey(h)))),
          (e: unknown) => e instanceof TrieError && e.code === "PROOF_MISSING_NODE",
        );
      }
      // A node that does not hash to what its parent holds is refused.
      const liar = (h: Uint8Array) => {
        const n = only.get(bytesKey(h));
        return n === undefined ? undefined : Uint8Array.from(n, (x, i) => (i === n.length - 1 ? x ^ 0xff : x));
      };
      assert.throws(
        () => run(liar),
        (e: unknown) => e instanceof TrieError && e.code === "PROOF_INVALID",
      );
    });
  });
});
