/**
 * The bad-block store (geth rawdb WriteBadBlock / ReadAllBadBlocks, served by debug_getBadBlocks):
 * a block refused by import is kept with its RLP as given, highest numbers first, at most
 * BAD_BLOCK_LIMIT (10) of them, each once; it survives closing and reopening the store (RocksDB
 * and LMDB), including a RocksDB store written before the table existed. debug_getBadBlocks answers
 * geth's BadBlockArgs: the hash, the block as RPCMarshalBlock(full txs) and the RLP.
 */
import { strict as assert } from "node:assert";
import { decodeBlock, encodeBlock } from "../../../src/block/block.js";
import { headerHash } from "../../../src/block/header.js";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { BAD_BLOCK_LIMIT, ChainStore } from "../../../src/chain/chainStore.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import type { KvStore } from "../../../src/storage/kv.js";
import { WriteBatch } from "../../../src/storage/kv.js";
import { LmdbKv } from "../../../src/storage/lmdb.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { rocksLevel } from "../../../src/storage/rocksBinding.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import { TABLE_NAMES } from "../../../src/storage/tables.js";
import { decodeTx, txHash } from "../../../src/tx/envelope.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";
import { buildOpDebugChain, SENDER } from "../rpc/debug/opDebugChain.js";
import { rpcOver } from "../rpc/debug/rpcHarness.js";

/** `rlp` with its header's state root replaced: it decodes, its parent is known, import refuses it. */
function forged(rlp: Uint8Array, tag: number): Uint8Array {
  const { header, body } = decodeBlock(rlp);
  return encodeBlock({ header: { ...header, stateRoot: new Uint8Array(32).fill(tag) }, body });
}

const hashOf = (rlp: Uint8Array): string => bytesToHex(headerHash(decodeBlock(rlp).header));

describe("chain bad blocks", function () {
  this.timeout(120_000);

  it("ChainStore.putBadBlock: highest numbers first, at most BAD_BLOCK_LIMIT, a block once", () => {
    const kv = new MemoryKv();
    const store = new ChainStore(kv);
    const put = (n: number, tag: number): boolean => {
      const b = new WriteBatch();
      const kept = store.putBadBlock(b, n, new Uint8Array(32).fill(tag), Uint8Array.of(n, tag));
      kv.write(b);
      return kept;
    };
    for (let n = 1; n <= 12; n++) assert.equal(put(n, n), true);
    assert.deepEqual(
      store.badBlocks().map((b) => b.number),
      [12, 11, 10, 9, 8, 7, 6, 5, 4, 3],
    );
    assert.equal(BAD_BLOCK_LIMIT, 10);
    assert.equal(put(12, 12), false, "the same block is not kept twice");
    assert.equal(put(2, 99), false, "lower than all ten kept: dropped at once");
    assert.equal(put(20, 20), true);
    assert.deepEqual(
      store.badBlocks().map((b) => b.number),
      [20, 12, 11, 10, 9, 8, 7, 6, 5, 4],
    );
    assert.deepEqual(store.badBlock(new Uint8Array(32).fill(7))?.rlp, Uint8Array.of(7, 7));
    assert.equal(store.badBlock(new Uint8Array(32).fill(3)), null, "dropped");
  });

  it("import keeps a refused block; debug_getBadBlocks answers geth's shape", async () => {
    const op = buildOpDebugChain();
    const chain = op.chain;
    const bad = forged(op.blocks[2]!, 0xbb);
    const r = chain.insertBlock(bad);
    assert.equal(r.status, "INVALID");
    assert.match(r.error ?? "", /STATE_ROOT/);
    const reply = await rpcOver(chain)("debug_getBadBlocks");
    assert.equal(reply.error, undefined, JSON.stringify(reply.error));
    assert.equal(reply.result.length, 1);
    const [x] = reply.result;
    assert.deepEqual(Object.keys(x), ["hash", "block", "rlp"]);
    assert.equal(x.hash, hashOf(bad));
    assert.equal(x.rlp, bytesToHex(bad));
    const { header, body } = decodeBlock(bad);
    assert.equal(x.block.hash, x.hash);
    assert.equal(x.block.number, "0x3");
    assert.equal(x.block.stateRoot, bytesToHex(header.stateRoot));
    assert.equal(x.block.parentHash, bytesToHex(header.parentHash));
    assert.equal(x.block.size, `0x${bad.length.toString(16)}`);
    assert.deepEqual(x.block.uncles, []);
    assert.deepEqual(x.block.withdrawals, []);
    assert.deepEqual(Object.keys(x.block), [...Object.keys(x.block)].sort(), "a Go map: sorted keys");
    assert.equal(x.block.totalDifficulty, undefined, "RPCMarshalBlock has no totalDifficulty");
    // Full transactions, placed in the bad block.
    assert.equal(x.block.transactions.length, body.transactions.length);
    x.block.transactions.forEach((t: Record<string, unknown>, i: number) => {
      assert.equal(t.hash, bytesToHex(txHash(decodeTx(body.transactions[i]!))));
      assert.equal(t.blockHash, x.hash);
      assert.equal(t.transactionIndex, `0x${i.toString(16)}`);
      if (i > 0) assert.equal(t.from, bytesToHex(SENDER));
    });
    // Refused again (known invalid) it is not kept twice; a block that does not decode is not kept.
    assert.equal(chain.insertBlock(bad).status, "INVALID");
    assert.equal(chain.insertBlock(Uint8Array.of(0xc1, 0x80)).status, "INVALID");
    assert.equal((await rpcOver(chain)("debug_getBadBlocks")).result.length, 1);
  });

  for (const engine of ["rocksdb", "lmdb"] as const) {
    it(`${engine}: kept across a reopen, the ten highest of twelve, each once`, async () => {
      const dir = makeTmpDir("opal-bad-");
      const open = (): Promise<KvStore> => (engine === "rocksdb" ? RocksKv.open(dir) : LmdbKv.open(dir));
      try {
        let kv = await open();
        const op = buildOpDebugChain(kv);
        // Blocks 1..5 forged twice each, block 5 and block 1 once more: twelve bad blocks, three of
        // them at number 1.
        const bad: Uint8Array[] = [];
        for (const tag of [1, 2]) for (const rlp of op.blocks) bad.push(forged(rlp, tag));
        bad.push(forged(op.blocks[4]!, 3));
        bad.push(forged(op.blocks[0]!, 4));
        for (const rlp of bad) assert.equal(op.chain.insertBlock(rlp).status, "INVALID");
        await kv.close();

        kv = await open();
        const chain = Blockchain.open(kv);
        const kept = chain.store.badBlocks();
        assert.equal(kept.length, 10);
        assert.deepEqual(
          kept.map((b) => b.number),
          [5, 5, 5, 4, 4, 3, 3, 2, 2, 1],
        );
        const served = (await rpcOver(chain)("debug_getBadBlocks")).result as { hash: string; rlp: string }[];
        assert.deepEqual(
          served.map((b) => b.hash),
          kept.map((b) => bytesToHex(b.hash)),
        );
        const byHash = new Map(bad.map((rlp) => [hashOf(rlp), bytesToHex(rlp)]));
        for (const b of served) assert.equal(b.rlp, byHash.get(b.hash), "the RLP as it was given");
        // The two dropped are two of the three forgeries of block 1.
        const ones = [bad[0]!, bad[5]!, bad[11]!].map(hashOf);
        assert.equal(served.filter((b) => ones.includes(b.hash)).length, 1);
        // After the reopen the node no longer remembers them as invalid: a refused block is
        // re-executed, refused, and still kept once.
        assert.equal(chain.insertBlock(bad[4]!).status, "INVALID");
        assert.equal(chain.store.badBlocks().length, 10);
        await kv.close();
      } finally {
        removeDir(dir);
      }
    });
  }

  it("a RocksDB store written before the badBlocks table existed opens and keeps bad blocks", async () => {
    const dir = makeTmpDir("opal-bad-old-");
    try {
      // The column families of a store from before the table: every other one.
      const raw = new (rocksLevel())(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
      const columns: Record<string, object> = { default: {} };
      for (const t of TABLE_NAMES) if (t !== "badBlocks") columns[t] = {};
      await raw.open({ columns });
      await raw.close();
      const kv = await RocksKv.open(dir);
      const store = new ChainStore(kv);
      assert.deepEqual(store.badBlocks(), []);
      const b = new WriteBatch();
      store.putBadBlock(b, 1, new Uint8Array(32).fill(1), Uint8Array.of(1));
      kv.write(b);
      assert.equal(store.badBlocks().length, 1);
      await kv.close();
    } finally {
      removeDir(dir);
    }
  });
});
