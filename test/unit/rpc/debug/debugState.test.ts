/**
 * debug_intermediateRoots, debug_storageRangeAt, debug_traceBlock, debug_setHead and debug_dbGet
 * through the dispatcher, on the OP chain of opDebugChain.ts (known txs, so the expected storage is
 * computed here) and on the rpc-compat chain (pre-Byzantium receipts carry geth's own root after
 * each tx). Expected values never come from the methods under test.
 */
import { strict as assert } from "node:assert";
import { defaultSuiteDir } from "../../../../scripts/rpcCompat.js";
import { decodeBlock, encodeBlock } from "../../../../src/block/block.js";
import { headerHash } from "../../../../src/block/header.js";
import type { HeadChange } from "../../../../src/chain/blockchain.js";
import { META_SAFE } from "../../../../src/chain/chainStore.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { bigintToBytes32 } from "../../../../src/primitives/u256.js";
import { WriteBatch } from "../../../../src/storage/kv.js";
import { decodeTx, txHash } from "../../../../src/tx/envelope.js";
import { requireFixture } from "../../../utils/fixtures.js";
import { buildSuiteChain } from "../../../utils/rpcCompatChain.js";
import {
  buildFields,
  buildOpDebugChain,
  importInto,
  type OpDebugChain,
  SENDER,
  WRITER,
  WRITER_CODE,
} from "./opDebugChain.js";
import { type Rpc, rpcOver } from "./rpcHarness.js";

const hex = bytesToHex;
const qty = (n: number): string => `0x${n.toString(16)}`;
const word = (v: bigint): string => hex(bigintToBytes32(v));

/** WRITER's storage before tx `txIndex` of block 2 (see opDebugChain.ts), slot → value. */
function writerStorageInBlock2(txIndex: number): Map<bigint, bigint> {
  const m = new Map<bigint, bigint>();
  for (let i = 0n; i < 40n; i++) m.set(i, 7n * (i + 1n));
  if (txIndex >= 2) {
    for (let i = 0n; i < 10n; i++) m.set(i, 1000n + i);
    for (let i = 10n; i < 15n; i++) m.delete(i);
  }
  if (txIndex >= 3) for (let i = 100n; i < 110n; i++) m.set(i, 5n);
  return m;
}

/** Every page of debug_storageRangeAt from the start, following nextKey. */
async function allPages(rpc: Rpc, block: string, txIndex: number, addr: string, max: number) {
  const pages: { storage: Record<string, { key: string | null; value: string }>; nextKey: string | null }[] = [];
  let start = "0x";
  for (;;) {
    const r = await rpc("debug_storageRangeAt", [block, txIndex, addr, start, max]);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    pages.push(r.result);
    if (r.result.nextKey === null) return pages;
    start = r.result.nextKey;
    assert.ok(pages.length < 100, "paging does not end");
  }
}

describe("rpc/debug state methods", function () {
  this.timeout(120_000);
  let op: OpDebugChain;
  let rpc: Rpc;
  before(() => {
    op = buildOpDebugChain();
    rpc = rpcOver(op.chain);
  });
  const blockHash = (n: number): string => hex(op.chain.store.canonicalHash(n)!);

  describe("debug_intermediateRoots", () => {
    it("OP chain: one root per tx, each the root of the block cut after that tx (as import checks it), the last the block's", async () => {
      const twin = importInto(op.blocks);
      for (let n = 1; n <= op.headers.length; n++) {
        // Where each cut block is imported: a chain that holds its parent.
        const importer = importInto(op.blocks.slice(0, n - 1));
        const h = op.headers[n - 1]!;
        const r = await rpc("debug_intermediateRoots", [blockHash(n), null]);
        assert.equal(r.error, undefined, JSON.stringify(r.error));
        const txs = op.bodies[n - 1]!.transactions;
        assert.equal(r.result.length, txs.length, `block ${n}`);
        assert.equal(r.result.at(-1), hex(h.stateRoot), `block ${n}: last root is the state root`);
        for (let i = 0; i < txs.length; i++) {
          const built = twin.buildBlock({ ...buildFields(h), forced: txs.slice(0, i + 1), pool: null });
          assert.ok(!("error" in built), `block ${n} prefix ${i}`);
          const imported = importer.insertBlock(encodeBlock({ header: built.header, body: built.body }));
          assert.equal(imported.status, "VALID", `block ${n} cut after tx ${i} imports: ${imported.error}`);
          assert.equal(r.result[i], hex(built.header.stateRoot), `block ${n} root after tx ${i}`);
        }
      }
    });

    it("rpc-compat chain: before Byzantium each root equals geth's receipt postState", async () => {
      const chain = buildSuiteChain(requireFixture(defaultSuiteDir()));
      const compat = rpcOver(chain);
      let checked = 0;
      for (let n = 1; n <= chain.head.number; n++) {
        const h = chain.store.canonicalHash(n)!;
        const receipts = chain.store.receipts(h)!;
        const r = await compat("debug_intermediateRoots", [hex(h)]);
        assert.equal(r.error, undefined, JSON.stringify(r.error));
        assert.equal(r.result.length, receipts.length);
        receipts.forEach((rc, i) => {
          if (rc.postState === null) return;
          assert.equal(r.result[i], hex(rc.postState), `block ${n} tx ${i}`);
          checked++;
        });
      }
      assert.ok(checked >= 20, `only ${checked} receipts with a postState`);
    });

    it("a bad block is found among the kept bad blocks; unknown and genesis blocks fail as geth", async () => {
      const chain = importInto(op.blocks.slice(0, 1));
      const { header, body } = decodeBlock(op.blocks[1]!);
      const bad = encodeBlock({ header: { ...header, stateRoot: new Uint8Array(32).fill(0xbb) }, body });
      assert.equal(chain.insertBlock(bad).status, "INVALID");
      const r = await rpcOver(chain)("debug_intermediateRoots", [hex(headerHash(decodeBlock(bad).header))]);
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      assert.equal(r.result.at(-1), hex(header.stateRoot), "the txs reach the true root, not the forged one");
      const unknown = hex(new Uint8Array(32).fill(9));
      assert.deepEqual((await rpc("debug_intermediateRoots", [unknown])).error, {
        code: -32000,
        message: `block ${unknown} not found`,
      });
      assert.deepEqual((await rpc("debug_intermediateRoots", [blockHash(0)])).error, {
        code: -32000,
        message: "genesis is not traceable",
      });
    });
  });

  describe("debug_storageRangeAt", () => {
    it("pages cover every slot exactly once, in hashed order, at each tx of the block", async () => {
      for (const txIndex of [1, 2, 3]) {
        const want = writerStorageInBlock2(txIndex);
        const byHash = new Map<string, bigint>();
        for (const s of want.keys()) byHash.set(hex(keccak256(bigintToBytes32(s))), s);
        const pages = await allPages(rpc, blockHash(2), txIndex, hex(WRITER), 7);
        const seen: string[] = [];
        for (let p = 0; p < pages.length; p++) {
          const keys = Object.keys(pages[p]!.storage);
          assert.ok(keys.length <= 7);
          if (pages[p]!.nextKey !== null) {
            assert.equal(keys.length, 7, "a page with a next key is full");
            assert.equal(pages[p + 1] && Object.keys(pages[p + 1]!.storage)[0], pages[p]!.nextKey);
          }
          for (const k of keys) {
            const slot = byHash.get(k);
            assert.notEqual(slot, undefined, `unexpected slot ${k} at tx ${txIndex}`);
            assert.equal(pages[p]!.storage[k]!.value, word(want.get(slot!)!), `slot ${slot} at tx ${txIndex}`);
            seen.push(k);
          }
        }
        assert.equal(seen.length, want.size, `tx ${txIndex}: every slot`);
        assert.equal(new Set(seen).size, seen.length, "no slot twice");
        assert.deepEqual(seen, [...seen].sort(), "hashed-key order");
      }
    });

    it("key is the slot when the replay touched it, else null; start and maxResult as geth's iterator", async () => {
      const r = await rpc("debug_storageRangeAt", [blockHash(2), 2, hex(WRITER), "0x", 100]);
      const touched = new Set<bigint>();
      for (let i = 0n; i < 15n; i++) touched.add(i);
      for (const [k, e] of Object.entries(r.result.storage as Record<string, { key: string | null }>)) {
        const slot = [...writerStorageInBlock2(2).keys()].find((s) => hex(keccak256(bigintToBytes32(s))) === k)!;
        assert.equal(e.key, touched.has(slot) ? word(slot) : null, `slot ${slot}`);
      }
      const keys = Object.keys(r.result.storage);
      // A start inside the range: the page begins at the first key at or after it.
      const mid = keys[5]!;
      const from = await rpc("debug_storageRangeAt", [blockHash(2), 2, hex(WRITER), mid, 3]);
      assert.deepEqual(Object.keys(from.result.storage), keys.slice(5, 8));
      assert.equal(from.result.nextKey, keys[8]);
      const short = await rpc("debug_storageRangeAt", [blockHash(2), 2, hex(WRITER), mid.slice(0, 10), 1]);
      assert.ok(Object.keys(short.result.storage)[0]! >= mid.slice(0, 10).padEnd(66, "0"));
      // maxResult 0: no slot, the first key as the next one.
      const none = await rpc("debug_storageRangeAt", [blockHash(2), 2, hex(WRITER), "0x", 0]);
      assert.deepEqual(none.result, { storage: {}, nextKey: keys[0] });
      // An account without storage: geth's zero result.
      const empty = await rpc("debug_storageRangeAt", [blockHash(2), 1, hex(SENDER), "0x", 10]);
      assert.deepEqual(empty.result, { storage: null, nextKey: null });
      // By number as well as by hash.
      const byNumber = await rpc("debug_storageRangeAt", ["0x2", 2, hex(WRITER), "0x", 100]);
      assert.deepEqual(byNumber.result, r.result);
    });

    it("errors as geth words them", async () => {
      const n = op.bodies[1]!.transactions.length;
      assert.deepEqual((await rpc("debug_storageRangeAt", [blockHash(2), n, hex(WRITER), "0x", 1])).error, {
        code: -32000,
        message: `transaction index ${n} out of range for block ${blockHash(2)}`,
      });
      assert.equal(
        (await rpc("debug_storageRangeAt", ["0x0", 0, hex(WRITER), "0x", 1])).error?.message,
        "no transaction in genesis",
      );
      assert.equal(
        (await rpc("debug_storageRangeAt", ["0x63", 0, hex(WRITER), "0x", 1])).error?.message,
        "block 0x63 not found",
      );
      assert.equal(
        (await rpc("debug_storageRangeAt", [blockHash(2), "0x1", hex(WRITER), "0x", 1])).error?.code,
        -32602,
      );
      assert.equal((await rpc("debug_storageRangeAt", [blockHash(2), 1.5, hex(WRITER), "0x", 1])).error?.code, -32602);
    });
  });

  describe("debug_traceBlock", () => {
    it("a stored block's RLP traces as debug_traceBlockByNumber does", async () => {
      for (let n = 1; n <= op.headers.length; n++) {
        for (const cfg of [
          undefined,
          { tracer: "callTracer" },
          { tracer: "prestateTracer", tracerConfig: { diffMode: true } },
        ]) {
          const a = await rpc(
            "debug_traceBlock",
            cfg === undefined ? [hex(op.blocks[n - 1]!)] : [hex(op.blocks[n - 1]!), cfg],
          );
          const b = await rpc("debug_traceBlockByNumber", cfg === undefined ? [qty(n)] : [qty(n), cfg]);
          assert.equal(a.error, undefined, JSON.stringify(a.error));
          assert.deepEqual(a.result, b.result, `block ${n} ${JSON.stringify(cfg)}`);
          assert.deepEqual(
            a.result.map((t: { txHash: string }) => t.txHash),
            op.bodies[n - 1]!.transactions.map((t) => hex(txHash(decodeTx(t)))),
          );
        }
      }
    });

    it("traces a block the node never stored, on its stored parent's state", async () => {
      const short = importInto(op.blocks.slice(0, 3));
      const r = await rpcOver(short)("debug_traceBlock", [hex(op.blocks[3]!), { tracer: "callTracer" }]);
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      assert.equal(short.store.header(headerHash(op.headers[3]!)), null, "block 4 is not stored");
      const full = await rpc("debug_traceBlockByHash", [blockHash(4), { tracer: "callTracer" }]);
      assert.deepEqual(r.result, full.result);
      // Its child: the parent (block 4) is unknown there.
      assert.deepEqual((await rpcOver(short)("debug_traceBlock", [hex(op.blocks[4]!)])).error, {
        code: -32000,
        message: "block #4 not found",
      });
    });

    it("refuses what is not a block, and genesis", async () => {
      const r = await rpc("debug_traceBlock", ["0xc0"]);
      assert.equal(r.error?.code, -32000);
      assert.match(r.error!.message, /^could not decode block: /);
      const genesis = await rpc("debug_getRawBlock", ["0x0"]);
      assert.deepEqual((await rpc("debug_traceBlock", [genesis.result])).error, {
        code: -32000,
        message: "genesis is not traceable",
      });
      assert.equal((await rpc("debug_traceBlock", ["c0"])).error?.code, -32602);
    });
  });

  describe("debug_setHead", () => {
    it("rewinds the canonical head: eth_blockNumber follows, later blocks leave the canonical chain", async () => {
      const { chain } = buildOpDebugChain();
      const changes: HeadChange[] = [];
      const q = rpcOver(chain, (c) => changes.push(c));
      const balanceAt3 = (await q("eth_getBalance", [hex(SENDER), "0x3"])).result;
      const head5 = hex(chain.headBlockHash);
      chain.setSafeAndFinalized(chain.store.canonicalHash(4)!, chain.store.canonicalHash(2)!);
      assert.deepEqual(await q("debug_setHead", ["0x3"]), { jsonrpc: "2.0", id: 1, result: null });
      assert.equal((await q("eth_blockNumber")).result, "0x3");
      assert.equal((await q("eth_getBlockByNumber", ["0x4", false])).result, null);
      assert.equal(
        (await q("eth_getBlockByNumber", ["latest", false])).result.hash,
        hex(chain.store.canonicalHash(3)!),
      );
      assert.equal((await q("eth_getBalance", [hex(SENDER), "latest"])).result, balanceAt3);
      assert.equal(chain.store.meta(META_SAFE), null, "the safe block (4) was above the new head");
      assert.equal((await q("eth_getBlockByNumber", ["finalized", false])).result.number, "0x2");
      assert.equal(changes.length, 1);
      assert.deepEqual(
        changes[0]!.removed.map((h) => h.number),
        [5, 4],
      );
      // At or above the head: nothing happens.
      assert.equal((await q("debug_setHead", ["0x10"])).result, null);
      assert.equal((await q("eth_blockNumber")).result, "0x3");
      assert.equal(changes.length, 1);
      // The rewound blocks stay stored: a forkchoice can make them canonical again.
      chain.setHead(hexToBytes(head5));
      assert.equal((await q("eth_blockNumber")).result, "0x5");
      assert.equal((await q("debug_setHead", [3])).error?.code, -32602);
    });
  });

  describe("debug_dbGet", () => {
    it("maps geth's schema keys onto the tables", async () => {
      const chain = op.chain;
      const codeHash = keccak256(WRITER_CODE);
      const get = async (key: string) => (await rpc("debug_dbGet", [key])).result;
      assert.equal(await get(hex(Uint8Array.of(0x63, ...codeHash))), hex(WRITER_CODE));
      assert.equal(await get(hex(codeHash)), hex(WRITER_CODE));
      const h3 = chain.store.canonicalHash(3)!;
      const num3 = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 3);
      assert.equal(await get(hex(Uint8Array.of(0x68, ...num3, ...h3))), hex(chain.store.headerRlp(h3)!));
      assert.equal(await get(hex(Uint8Array.of(0x62, ...num3, ...h3))), hex(chain.store.bodyRlp(h3)!));
      assert.equal(await get(hex(Uint8Array.of(0x68, ...num3, 0x6e))), hex(h3));
      assert.equal(await get(hex(Uint8Array.of(0x48, ...h3))), hex(num3));
      const tx = txHash(decodeTx(op.bodies[2]!.transactions[1]!));
      assert.equal(await get(hex(Uint8Array.of(0x6c, ...tx))), "0x03");
      assert.equal(await get("LastBlock"), hex(chain.headBlockHash));
      assert.equal(await get(hex(new TextEncoder().encode("LastHeader"))), hex(chain.headBlockHash));
      // The header key with the wrong number is absent, as in geth's keyspace.
      const wrong = Uint8Array.of(0x68, 0, 0, 0, 0, 0, 0, 0, 4, ...h3);
      assert.deepEqual((await rpc("debug_dbGet", [hex(wrong)])).error, { code: -32000, message: "pebble: not found" });
      assert.deepEqual((await rpc("debug_dbGet", ["0x123"])).error, {
        code: -32000,
        message: "hex string of odd length",
      });
      assert.deepEqual((await rpc("debug_dbGet", [""])).error, { code: -32000, message: "empty hex string" });
      assert.deepEqual((await rpc("debug_dbGet", ["0xzz"])).error, { code: -32000, message: "invalid hex string" });
    });

    it("a value that changes with the store is read from it (not cached)", async () => {
      const { chain } = buildOpDebugChain(undefined, 2);
      const q = rpcOver(chain);
      const key = hex(new TextEncoder().encode("LastFinalized"));
      assert.equal((await q("debug_dbGet", [key])).result, hex(chain.store.canonicalHash(0)!));
      chain.kv.write(
        new WriteBatch().put("meta", new TextEncoder().encode("finalized"), chain.store.canonicalHash(2)!),
      );
      assert.equal((await q("debug_dbGet", [key])).result, hex(chain.store.canonicalHash(2)!));
    });
  });
});
