/**
 * WorldState: journal semantics (nested checkpoints, revert/commit of every journaled field), EIP-2200
 * original values across writes and tx boundaries, the end-of-tx rules (EIP-161 deletion of touched
 * empty accounts, the RIPEMD-160 touch that survives a revert, self-destructs), CREATE over earlier
 * storage, and the block commit: the incremental root after `commitBlock` must equal the full
 * recomputation and the root of the expected post-state built independently (buildPreState).
 */
import { strict as assert } from "node:assert";
import { buildPreState, type FixtureAccount } from "../../../src/cli/evmTool/preState.js";
import { KECCAK256_EMPTY, keccak256 } from "../../../src/crypto/keccak.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { bigintToBytes32 } from "../../../src/primitives/u256.js";
import type { Account } from "../../../src/state/account.js";
import { KvStateReader } from "../../../src/state/kvStateReader.js";
import { addressToBigint, bigintToAddress, WorldState } from "../../../src/state/worldState.js";
import type { KvStore } from "../../../src/storage/kv.js";
import { inverseBatch } from "../../../src/storage/undo.js";
import { EMPTY_TRIE_ROOT } from "../../../src/trie/node.js";
import { computeStateRoot, updateStateRoot } from "../../../src/trie/stateRoot.js";
import { mulberry32 } from "../../utils/prng.js";

const A = 0xaa00000000000000000000000000000000000001n;
const B = 0xbb00000000000000000000000000000000000002n;
const C = 0xcc00000000000000000000000000000000000003n;
const D = 0xdd00000000000000000000000000000000000004n;
const hexAddr = (a: bigint): string => bytesToHex(bigintToAddress(a));

function setup(alloc: Record<string, FixtureAccount> = {}): { kv: KvStore; st: WorldState; root: Uint8Array } {
  const { kv, root } = buildPreState(alloc);
  return { kv, st: new WorldState(new KvStateReader(kv), kv), root };
}

/** commitBlock → write → incremental root (written, storage roots fed back); checked against a full rebuild. */
function commit(kv: KvStore, st: WorldState): string {
  const c = st.commitBlock();
  kv.write(c.batch);
  const inc = updateStateRoot(kv, c.changeset);
  kv.write(inc.batch);
  st.setStorageRoots(inc.storageRoots);
  const full = computeStateRoot(kv);
  assert.equal(bytesToHex(inc.root), bytesToHex(full.root), "incremental root differs from the full rebuild");
  return bytesToHex(inc.root);
}

const rootOf = (alloc: Record<string, FixtureAccount>): string => bytesToHex(buildPreState(alloc).root);

function storageRows(kv: KvStore, address: bigint): number {
  const h = keccak256(bigintToAddress(address));
  let n = 0;
  for (const [k] of kv.iterate("hashedStorage")) if (bytesToHex(k.subarray(0, 32)) === bytesToHex(h)) n++;
  return n;
}

describe("state/worldState", () => {
  it("addressToBigint reads 20 bytes big-endian (six bytes a step) and other lengths byte by byte", () => {
    const rand = mulberry32(160);
    const cases: Uint8Array[] = [new Uint8Array(20), new Uint8Array(20).fill(0xff), new Uint8Array(32).fill(0xa5)];
    for (let i = 0; i < 20; i++) {
      const one = new Uint8Array(20);
      one[i] = 0x80; // the top bit of every byte, where a signed 32-bit shift would go negative
      cases.push(one);
    }
    for (let k = 0; k < 500; k++) cases.push(Uint8Array.from({ length: 20 }, () => Math.floor(rand() * 256)));
    for (const a of cases) {
      let want = 0n;
      for (const b of a) want = (want << 8n) | BigInt(b);
      assert.equal(addressToBigint(a), want, bytesToHex(a));
      if (a.length === 20) assert.deepEqual(bigintToAddress(want), a);
    }
  });

  describe("journal", () => {
    it("revert of an inner checkpoint restores every journaled field; the outer commit keeps its own", () => {
      const { st } = setup({ [hexAddr(A)]: { balance: "0x64", nonce: "0x2", storage: { "0x01": "0x07" } } });
      const a = st.account(A);
      const outer = st.checkpoint();
      st.setBalance(a, 500n);
      st.sstore(a, 1n, 8n);
      st.refund += 10;
      st.logs.push({ address: a.addressBytes, topics: [], data: new Uint8Array([1]) });

      const inner = st.checkpoint();
      st.setBalance(a, 900n);
      st.setNonce(a, 3n);
      st.setCode(a, new Uint8Array([0x60, 0x00]));
      st.sstore(a, 1n, 9n);
      st.sstore(a, 2n, 10n);
      const b = st.account(B);
      assert.equal(b.exists, false);
      st.addBalance(b, 1n);
      assert.equal(st.warmAddress(C), false);
      assert.equal(st.warmSlot(C, 5n), false);
      st.tstore(A, 4n, 44n);
      st.refund += 100;
      st.logs.push({ address: a.addressBytes, topics: [], data: new Uint8Array([2]) });
      assert.equal(st.isWarmAddress(C), true);
      assert.equal(st.tload(A, 4n), 44n);
      st.revert(inner);

      assert.equal(a.balance, 500n);
      assert.equal(a.nonce, 2n);
      assert.equal(a.codeHash, KECCAK256_EMPTY);
      assert.equal(st.code(a).length, 0);
      assert.equal(st.sload(a, 1n), 8n);
      assert.equal(st.sload(a, 2n), 0n);
      assert.equal(b.exists, false);
      assert.equal(b.balance, 0n);
      assert.equal(st.isWarmAddress(C), false);
      assert.equal(st.warmSlot(C, 5n), false, "slot must be cold again after the revert");
      assert.equal(st.tload(A, 4n), 0n);
      assert.equal(st.refund, 10);
      assert.equal(st.logs.length, 1);
      assert.deepEqual([...st.logs[0].data], [1]);

      st.commit(outer);
      assert.equal(a.balance, 500n);
      assert.equal(st.sload(a, 1n), 8n);
      assert.equal(st.refund, 10);
      assert.equal(st.logs.length, 1);
    });

    it("an inner commit folds into the outer checkpoint: reverting the outer undoes both", () => {
      const { st } = setup({ [hexAddr(A)]: { balance: "0x64" } });
      const a = st.account(A);
      const outer = st.checkpoint();
      st.setBalance(a, 1n);
      const inner = st.checkpoint();
      st.setBalance(a, 2n);
      st.setNonce(a, 9n);
      st.sstore(a, 3n, 3n);
      st.warmAddress(B);
      st.tstore(A, 1n, 1n);
      st.refund += 7;
      st.commit(inner);
      assert.equal(a.balance, 2n);
      st.revert(outer);
      assert.equal(a.balance, 100n);
      assert.equal(a.nonce, 0n);
      assert.equal(st.sload(a, 3n), 0n);
      assert.equal(st.isWarmAddress(B), false);
      assert.equal(st.tload(A, 1n), 0n);
      assert.equal(st.refund, 0);
    });

    it("transient storage: a revert restores the earlier non-zero value, not zero", () => {
      const { st } = setup();
      st.tstore(A, 1n, 5n);
      const cp = st.checkpoint();
      st.tstore(A, 1n, 6n);
      st.tstore(A, 1n, 7n);
      st.revert(cp);
      assert.equal(st.tload(A, 1n), 5n);
      assert.equal(st.tload(B, 1n), 0n);
    });

    it("createContract and selfDestruct are undone by a revert", () => {
      const { st } = setup({
        [hexAddr(A)]: { nonce: "0x1", balance: "0x5", code: "0x6001", storage: { "0x01": "0x02" } },
      });
      const a = st.account(A);
      const cp = st.checkpoint();
      st.createContract(a);
      assert.equal(st.sload(a, 1n), 0n);
      assert.equal(a.nonce, 0n);
      st.selfDestruct(a);
      assert.equal(a.destructed, true);
      st.revert(cp);
      assert.equal(a.destructed, false);
      assert.equal(a.nonce, 1n);
      assert.equal(a.balance, 5n);
      assert.deepEqual([...st.code(a)], [0x60, 0x01]);
      assert.equal(st.sload(a, 1n), 2n);
    });

    it("commit/revert of a checkpoint that is not the innermost throws", () => {
      const { st } = setup();
      const outer = st.checkpoint();
      st.checkpoint();
      assert.throws(() => st.revert(outer), /BAD_CHECKPOINT|innermost/);
      assert.throws(() => st.commit(outer), /BAD_CHECKPOINT|innermost/);
    });
  });

  describe("EIP-2200 original values", () => {
    it("stay the value at the start of the tx across writes and reverts, and move on at the tx boundary", () => {
      const { st } = setup({ [hexAddr(A)]: { nonce: "0x1", storage: { "0x01": "0x05" } } });
      const a = st.account(A);
      assert.equal(st.originalStorage(a, 1n), 5n);
      st.sstore(a, 1n, 6n);
      st.sstore(a, 1n, 7n);
      assert.equal(st.originalStorage(a, 1n), 5n);
      assert.equal(st.sload(a, 1n), 7n);
      const cp = st.checkpoint();
      st.sstore(a, 1n, 8n);
      st.revert(cp);
      assert.equal(st.originalStorage(a, 1n), 5n);
      assert.equal(st.originalStorage(a, 2n), 0n);
      st.finalizeTx(true);
      // EIP-2200: "original value ... if a reversion happens on the current transaction" — the next tx starts from 7.
      assert.equal(st.originalStorage(a, 1n), 7n);
      st.sstore(a, 1n, 9n);
      assert.equal(st.originalStorage(a, 1n), 7n);
    });

    it("a slot first written inside a reverted call keeps its tx-start original", () => {
      const { st } = setup({ [hexAddr(A)]: { nonce: "0x1", storage: { "0x01": "0x05" } } });
      const a = st.account(A);
      const cp = st.checkpoint();
      st.sstore(a, 1n, 6n);
      st.revert(cp);
      st.sstore(a, 1n, 0n);
      assert.equal(st.originalStorage(a, 1n), 5n);
    });
  });

  describe("end-of-tx rules", () => {
    const EMPTY_PRE = {
      [hexAddr(A)]: { balance: "0x0" },
      [hexAddr(B)]: { balance: "0x0" },
      [hexAddr(C)]: { balance: "0x9" },
    };

    it("EIP-161: touched empty accounts are deleted (eip158), untouched ones and non-empty ones stay", () => {
      const { kv, st } = setup(EMPTY_PRE);
      st.addBalance(st.account(A), 0n); // touched, empty
      st.account(B); // loaded only
      st.addBalance(st.account(C), 0n); // touched, not empty
      st.finalizeTx(true);
      assert.equal(st.account(A).exists, false);
      assert.equal(st.account(B).exists, true);
      assert.equal(st.account(C).exists, true);
      const root = commit(kv, st);
      assert.equal(root, rootOf({ [hexAddr(B)]: { balance: "0x0" }, [hexAddr(C)]: { balance: "0x9" } }));
    });

    it("EIP-161 deletion does not apply before Spurious Dragon (eip158 false)", () => {
      const { kv, st, root: pre } = setup(EMPTY_PRE);
      st.addBalance(st.account(A), 0n);
      st.finalizeTx(false);
      assert.equal(st.account(A).exists, true);
      assert.equal(commit(kv, st), bytesToHex(pre));
    });

    it("a touch of RIPEMD-160 (0x03) survives a revert (geth journal.go, mainnet block 2675119); others do not", () => {
      const pre = {
        "0x0000000000000000000000000000000000000003": { balance: "0x0" },
        "0x0000000000000000000000000000000000000004": { balance: "0x0" },
      };
      const { kv, st } = setup(pre);
      const cp = st.checkpoint();
      st.addBalance(st.account(3n), 0n);
      st.addBalance(st.account(4n), 0n);
      st.revert(cp);
      assert.equal(st.account(3n).touched, true);
      assert.equal(st.account(4n).touched, false);
      st.finalizeTx(true);
      assert.equal(st.account(3n).exists, false);
      assert.equal(st.account(4n).exists, true);
      assert.equal(commit(kv, st), rootOf({ "0x0000000000000000000000000000000000000004": { balance: "0x0" } }));
    });

    it("selfDestruct deletes the account (and its storage rows) at finalizeTx, not before", () => {
      const pre = {
        [hexAddr(A)]: {
          nonce: "0x1",
          balance: "0x10",
          code: "0x600160015500",
          storage: { "0x01": "0x01", "0x02": "0x03" },
        },
        [hexAddr(B)]: { balance: "0x1" },
      };
      const { kv, st } = setup(pre);
      const a = st.account(A);
      st.addBalance(st.account(B), a.balance);
      st.setBalance(a, 0n);
      st.selfDestruct(a);
      assert.equal(a.exists, true);
      assert.equal(st.sload(a, 2n), 3n);
      st.finalizeTx(true);
      assert.equal(a.exists, false);
      assert.equal(st.sload(a, 2n), 0n);
      const root = commit(kv, st);
      assert.equal(storageRows(kv, A), 0);
      assert.equal(root, rootOf({ [hexAddr(B)]: { balance: "0x11" } }));
    });
  });

  describe("storage of an account whose row says its storage is empty", () => {
    it("a contract without slots fills them over two blocks, each from a fresh WorldState", () => {
      const pre = { [hexAddr(A)]: { nonce: "0x1", code: "0x00" } };
      const { kv } = setup(pre);
      const want: Record<string, string> = {};
      for (let block = 0; block < 2; block++) {
        const st = new WorldState(new KvStateReader(kv), kv);
        const a = st.account(A);
        for (let i = 0; i < 40; i++) {
          const slot = BigInt(40 * block + i);
          assert.equal(st.sload(a, slot), 0n);
          st.sstore(a, slot, slot * 1000n + 1n);
          want[bytesToHex(bigintToBytes32(slot))] = bytesToHex(bigintToBytes32(slot * 1000n + 1n));
        }
        // Written in the first block, cleared in the second.
        if (block === 1) {
          assert.equal(st.sload(a, 3n), 3001n, "a slot of the first block is read from its row");
          st.sstore(a, 3n, 0n);
          delete want[bytesToHex(bigintToBytes32(3n))];
        }
        st.finalizeTx(true);
        assert.equal(commit(kv, st), rootOf({ [hexAddr(A)]: { nonce: "0x1", code: "0x00", storage: want } }));
      }
      assert.equal(storageRows(kv, A), 79);
    });

    it("only rows known to be new are inserts; the block's undo restores the store", () => {
      const pre = {
        [hexAddr(A)]: { nonce: "0x1", code: "0x00" },
        [hexAddr(B)]: { nonce: "0x1", code: "0x00", storage: { "0x01": "0x01" } },
      };
      const { kv, st } = setup(pre);
      const dump = (): string[] =>
        (["hashedAccounts", "hashedStorage"] as const).flatMap((t) =>
          [...kv.iterate(t)].map(([k, v]) => `${t} ${bytesToHex(k)} ${bytesToHex(v)}`),
        );
      const before = dump();
      const a = st.account(A);
      const b = st.account(B);
      const c = st.account(C);
      st.sstore(a, 1n, 5n);
      st.sstore(a, 2n, 6n);
      st.sstore(b, 1n, 7n);
      st.sstore(b, 2n, 8n);
      st.createContract(c);
      st.setNonce(c, 1n);
      st.sstore(c, 3n, 9n);
      st.finalizeTx(true);
      const commit = st.commitBlock();
      const inserts = (table: string): string[] =>
        commit.batch.ops
          .filter((o) => o.table === table && o.type === "put" && o.fresh === true)
          .map((o) => bytesToHex(o.key))
          .sort();
      const slotKey = (x: Account, slot: bigint): string =>
        bytesToHex(x.hashedAddress) + bytesToHex(keccak256(bigintToBytes32(slot))).slice(2);
      assert.deepEqual(
        inserts("hashedStorage"),
        [slotKey(a, 1n), slotKey(a, 2n), slotKey(b, 2n), slotKey(c, 3n)].sort(),
        "A (stored, no rows) and C (new) insert every slot; B (has rows) inserts the slot it read as absent and puts slot 1",
      );
      assert.deepEqual(inserts("hashedAccounts"), [bytesToHex(c.hashedAddress)], "only C's account row is new");
      const undo = inverseBatch(kv, commit.batch);
      kv.write(commit.batch);
      assert.notDeepEqual(dump(), before);
      kv.write(undo);
      assert.deepEqual(dump(), before);
    });

    it("rows under a row whose storage root is still the empty one (an overlay written without a root) are read", () => {
      // eth_call's state overrides write slots into an overlay and compute no root.
      const { kv } = setup({ [hexAddr(A)]: { nonce: "0x1", code: "0x00" } });
      const st = new WorldState(new KvStateReader(kv), kv);
      const a = st.account(A);
      st.sstore(a, 7n, 42n);
      st.finalizeTx(false);
      kv.write(st.commitBlock().batch);
      const st2 = new WorldState(new KvStateReader(kv), kv);
      const a2 = st2.account(A);
      assert.equal(bytesToHex(a2.storageRoot), bytesToHex(EMPTY_TRIE_ROOT));
      assert.equal(st2.sload(a2, 7n), 42n);
      assert.equal(st2.sload(a2, 8n), 0n);
    });
  });

  describe("createContract", () => {
    it("voids storage still in the reader; only the new writes survive the commit", () => {
      // EIP-7610 makes this a collision for CREATE; createContract itself must still wipe (geth CreateContract).
      const pre = { [hexAddr(A)]: { balance: "0x7", storage: { "0x01": "0x01", "0x02": "0x02" } } };
      const { kv, st } = setup(pre);
      const a = st.account(A);
      st.createContract(a);
      assert.equal(st.sload(a, 1n), 0n, "slot 1 of the earlier incarnation must read 0");
      assert.equal(st.hasStorage(a), false);
      st.setNonce(a, 1n);
      st.sstore(a, 2n, 9n);
      st.setCode(a, new Uint8Array([0x60, 0x2a]));
      st.finalizeTx(true);
      const root = commit(kv, st);
      assert.equal(storageRows(kv, A), 1);
      assert.equal(
        root,
        rootOf({ [hexAddr(A)]: { nonce: "0x1", balance: "0x7", code: "0x602a", storage: { "0x02": "0x09" } } }),
      );
      // A fresh reader over the committed store sees the same.
      const st2 = new WorldState(new KvStateReader(kv), kv);
      const a2 = st2.account(A);
      assert.equal(st2.sload(a2, 1n), 0n);
      assert.equal(st2.sload(a2, 2n), 9n);
      assert.deepEqual([...st2.code(a2)], [0x60, 0x2a]);
    });

    it("destroyed in one tx, re-created in the next (same block): earlier storage is gone", () => {
      const pre = {
        [hexAddr(A)]: { nonce: "0x1", code: "0x00", storage: { "0x01": "0x01", "0x03": "0x03" } },
        [hexAddr(B)]: { balance: "0x64" },
      };
      const { kv, st } = setup(pre);
      const a = st.account(A);
      st.sstore(a, 3n, 4n);
      st.selfDestruct(a);
      st.finalizeTx(true);
      st.createContract(a);
      st.setNonce(a, 1n);
      assert.equal(st.sload(a, 1n), 0n);
      assert.equal(st.sload(a, 3n), 0n);
      st.sstore(a, 5n, 5n);
      st.setCode(a, new Uint8Array([0xfe]));
      st.finalizeTx(true);
      const root = commit(kv, st);
      assert.equal(
        root,
        rootOf({
          [hexAddr(A)]: { nonce: "0x1", code: "0xfe", storage: { "0x05": "0x05" } },
          [hexAddr(B)]: { balance: "0x64" },
        }),
      );
    });
  });

  describe("commitBlock", () => {
    it("a block of mixed changes commits to the root of the independently built post-state", () => {
      const pre = {
        [hexAddr(A)]: { nonce: "0x1", balance: "0x100", storage: { "0x01": "0x11", "0x02": "0x22" } },
        [hexAddr(B)]: { nonce: "0x1", balance: "0x1", code: "0x00", storage: { "0x07": "0x07" } },
        [hexAddr(C)]: { balance: "0x5" },
      };
      const { kv, st } = setup(pre);
      const a = st.account(A);
      st.subBalance(a, 0x10n);
      st.setNonce(a, 2n);
      st.sstore(a, 1n, 0n); // cleared
      st.sstore(a, 2n, 0x23n); // changed
      st.sstore(a, 3n, 0x33n); // new
      st.sstore(a, 4n, 0x44n);
      st.sstore(a, 4n, 0n); // written and cleared in the block: no row
      const d = st.account(D);
      st.addBalance(d, 0x10n);
      st.setCode(d, new Uint8Array([0x60, 0x00, 0x60, 0x00, 0xf3]));
      const b = st.account(B);
      st.selfDestruct(b);
      st.finalizeTx(true);
      const root = commit(kv, st);
      assert.equal(
        root,
        rootOf({
          [hexAddr(A)]: { nonce: "0x2", balance: "0xf0", storage: { "0x02": "0x23", "0x03": "0x33" } },
          [hexAddr(C)]: { balance: "0x5" },
          [hexAddr(D)]: { balance: "0x10", code: "0x60006000f3" },
        }),
      );
      assert.equal(storageRows(kv, B), 0);
      assert.deepEqual(
        [...(kv.get("code", keccak256(new Uint8Array([0x60, 0x00, 0x60, 0x00, 0xf3]))) ?? [])],
        [0x60, 0x00, 0x60, 0x00, 0xf3],
      );
    });

    it("an unchanged block commits to the same root and writes nothing", () => {
      const { kv, st, root } = setup({ [hexAddr(A)]: { balance: "0x1", storage: { "0x01": "0x01" } } });
      st.sload(st.account(A), 1n);
      st.account(B);
      const c = st.commitBlock();
      assert.equal(c.batch.size, 0);
      kv.write(c.batch);
      assert.equal(bytesToHex(updateStateRoot(kv, c.changeset).root), bytesToHex(root));
    });

    it("an account destroyed in one block and re-created with other storage in the next", () => {
      const pre = {
        [hexAddr(A)]: { nonce: "0x1", balance: "0x3", code: "0x00", storage: { "0x01": "0x01", "0x02": "0x02" } },
        [hexAddr(B)]: { balance: "0x1" },
      };
      const { kv, st } = setup(pre);
      const a = st.account(A);
      st.addBalance(st.account(B), a.balance);
      st.setBalance(a, 0n);
      st.selfDestruct(a);
      st.finalizeTx(true);
      assert.equal(commit(kv, st), rootOf({ [hexAddr(B)]: { balance: "0x4" } }));
      assert.equal(storageRows(kv, A), 0);
      // Block 2: CREATE2-style re-creation at the same address.
      st.createContract(a);
      st.setNonce(a, 1n);
      assert.equal(st.sload(a, 1n), 0n);
      st.sstore(a, 2n, 5n);
      st.sstore(a, 3n, 6n);
      st.setCode(a, new Uint8Array([0x5f, 0x00]));
      st.finalizeTx(true);
      const want = {
        [hexAddr(A)]: { nonce: "0x1", code: "0x5f00", storage: { "0x02": "0x05", "0x03": "0x06" } },
        [hexAddr(B)]: { balance: "0x4" },
      };
      assert.equal(commit(kv, st), rootOf(want));
      // Block 3 from a cold cache: the re-created storage is what the reader serves.
      st.clearCache();
      const a3 = st.account(A);
      assert.equal(st.sload(a3, 1n), 0n);
      assert.equal(st.sload(a3, 2n), 5n);
      st.sstore(a3, 2n, 0n);
      st.finalizeTx(true);
      assert.equal(
        commit(kv, st),
        rootOf({ ...want, [hexAddr(A)]: { nonce: "0x1", code: "0x5f00", storage: { "0x03": "0x06" } } }),
      );
    });

    it("several blocks (commit, setStorageRoots, more changes) each match a from-scratch root", () => {
      const pre = { [hexAddr(A)]: { nonce: "0x1", balance: "0x10", storage: { "0x01": "0x01" } } };
      const { kv, st } = setup(pre);
      const a = st.account(A);
      // Block 1: storage grows, a new account appears.
      st.sstore(a, 2n, 2n);
      st.addBalance(st.account(B), 3n);
      st.finalizeTx(true);
      assert.equal(
        commit(kv, st),
        rootOf({
          [hexAddr(A)]: { nonce: "0x1", balance: "0x10", storage: { "0x01": "0x01", "0x02": "0x02" } },
          [hexAddr(B)]: { balance: "0x3" },
        }),
      );
      // Block 2: only the balance of A changes; its account row must carry the storage root of block 1.
      st.addBalance(a, 1n);
      st.finalizeTx(true);
      assert.equal(
        commit(kv, st),
        rootOf({
          [hexAddr(A)]: { nonce: "0x1", balance: "0x11", storage: { "0x01": "0x01", "0x02": "0x02" } },
          [hexAddr(B)]: { balance: "0x3" },
        }),
      );
      // Block 3: a slot cleared, B emptied and touched (deleted), C created with storage.
      st.sstore(a, 1n, 0n);
      st.setBalance(st.account(B), 0n);
      const c = st.account(C);
      st.createContract(c);
      st.setNonce(c, 1n);
      st.sstore(c, 9n, 9n);
      st.finalizeTx(true);
      const want3 = {
        [hexAddr(A)]: { nonce: "0x1", balance: "0x11", storage: { "0x02": "0x02" } },
        [hexAddr(C)]: { nonce: "0x1", storage: { "0x09": "0x09" } },
      };
      assert.equal(commit(kv, st), rootOf(want3));
      // Block 4, from a cold cache: nothing cached may be needed for correctness.
      st.clearCache();
      const c4 = st.account(C);
      st.sstore(c4, 10n, 10n);
      st.finalizeTx(true);
      assert.equal(
        commit(kv, st),
        rootOf({ ...want3, [hexAddr(C)]: { nonce: "0x1", storage: { "0x09": "0x09", "0x0a": "0x0a" } } }),
      );
    });
  });

  describe("prefetchAccounts", () => {
    it("loads the accounts with one batched read, as `account` would, journals nothing and writes nothing unchanged", () => {
      const alloc = {
        [hexAddr(A)]: { nonce: "0x3", balance: "0x11", storage: { "0x01": "0x05" } },
        [hexAddr(B)]: { balance: "0x7", code: "0x6001" },
      };
      const { kv } = buildPreState(alloc);
      const reader = new KvStateReader(kv);
      let batches = 0;
      let singles = 0;
      const counting = {
        account: (h: Uint8Array) => {
          singles++;
          return reader.account(h);
        },
        accountBatch: (hs: readonly Uint8Array[]) => {
          batches++;
          return reader.accountBatch(hs);
        },
        storage: reader.storage.bind(reader),
        code: reader.code.bind(reader),
        hasStorage: reader.hasStorage.bind(reader),
      };
      const st = new WorldState(counting, kv);
      // A twice, C absent: one read for the three distinct addresses.
      st.prefetchAccounts([bigintToAddress(A), bigintToAddress(B), bigintToAddress(A), bigintToAddress(C)]);
      assert.equal(batches, 1);
      const plain = new WorldState(new KvStateReader(kv), kv);
      for (const x of [A, B, C]) {
        const got = st.account(x);
        const want = plain.account(x);
        assert.equal(got.exists, want.exists, hexAddr(x));
        assert.equal(got.stored, want.stored, hexAddr(x));
        assert.equal(got.nonce, want.nonce, hexAddr(x));
        assert.equal(got.balance, want.balance, hexAddr(x));
        assert.equal(bytesToHex(got.codeHash), bytesToHex(want.codeHash), hexAddr(x));
        assert.equal(bytesToHex(got.storageRoot), bytesToHex(want.storageRoot), hexAddr(x));
        assert.equal(bytesToHex(got.hashedAddress), bytesToHex(keccak256(bigintToAddress(x))), hexAddr(x));
        assert.equal(bytesToHex(got.addressBytes), hexAddr(x));
      }
      assert.equal(singles, 0, "every account came from the batch");
      assert.equal(st.sload(st.account(A), 1n), 5n);
      assert.deepEqual([...st.code(st.account(B))], [0x60, 0x01]);
      // Loaded, not changed: no row to write; a revert has nothing of the prefetch to undo.
      assert.equal(st.commitBlock().batch.ops.length, 0);
      // A second prefetch of loaded accounts reads nothing.
      st.prefetchAccounts([bigintToAddress(A), bigintToAddress(C)]);
      assert.equal(batches, 1);
      // Changed after the prefetch, committed like any other account.
      st.setBalance(st.account(C), 9n);
      st.finalizeTx(true);
      assert.equal(commit(kv, st), rootOf({ ...alloc, [hexAddr(C)]: { balance: "0x9" } }));
    });

    it("does nothing for a reader without batch reads", () => {
      const { kv } = buildPreState({ [hexAddr(A)]: { balance: "0x1" } });
      const reader = new KvStateReader(kv);
      const single = {
        account: reader.account.bind(reader),
        storage: reader.storage.bind(reader),
        code: reader.code.bind(reader),
        hasStorage: reader.hasStorage.bind(reader),
      };
      const st = new WorldState(single, kv);
      st.prefetchAccounts([bigintToAddress(A)]);
      assert.equal(st.account(A).balance, 1n);
    });
  });
});
