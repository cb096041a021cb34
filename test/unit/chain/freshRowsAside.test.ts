/**
 * A block that fills a contract's first slots (1,050 of them, past MIN_SHARED_ROWS) imported with a
 * trieHash pool that writes through the store (storage/sharedRows.ts): the rows are handed to the
 * worker, and the store ends exactly as an import without workers leaves it — synchronous and
 * sliced. A block with a wrong state root, or an import cut by a crash at any of its writes,
 * leaves the state tables as they were once the chain reopens: the crash marker undoes the rows
 * the worker wrote.
 */
import { strict as assert } from "node:assert";
import { encodeBlock } from "../../../src/block/block.js";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { META_PENDING } from "../../../src/chain/chainStore.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { undoBatch } from "../../../src/chain/stateAt.js";
import { privateKeyToAddress } from "../../../src/crypto/secp256k1.js";
import type { PiscinaPool } from "../../../src/node/pools.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { decodeUndo, encodeBatch, encodeRangeDeletes, joinEncodedBatches } from "../../../src/storage/batchCodec.js";
import { type KvStore, WriteBatch } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import { MIN_SHARED_ROWS } from "../../../src/storage/sharedRows.js";
import type { TableName } from "../../../src/storage/tables.js";
import { computeStateRoot } from "../../../src/trie/stateRoot.js";
import { encodeTx } from "../../../src/tx/envelope.js";
import { signTx } from "../../../src/tx/signer.js";
import { TxType } from "../../../src/tx/tx.js";
import type { TaskPool } from "../../../src/util/taskPool.js";
import { buildForced } from "../../utils/blocks.js";
import { DelegatingKv } from "../../utils/delegatingKv.js";
import { l1Genesis } from "../../utils/genesis.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";
import { sharedTrieHashPool } from "../../utils/trieHashPool.js";

const KEY = hexToBytes(`0x${"42".repeat(32)}`);
const SLOTS = 1050;
const FILLER = hexToBytes(`0x${"c0".repeat(20)}`);
/** for (i = SLOTS; i > 0; i--) sstore(i, i) */
const FILL_CODE = Uint8Array.of(
  0x61,
  SLOTS >> 8,
  SLOTS & 0xff,
  0x5b,
  0x80,
  0x80,
  0x55,
  0x60,
  0x01,
  0x90,
  0x03,
  0x80,
  0x60,
  0x03,
  0x57,
  0x00,
);
const GENESIS = l1Genesis(
  new Map([
    [privateKeyToAddress(KEY), { balance: 10n ** 21n }],
    [FILLER, { balance: 0n, code: FILL_CODE }],
  ]),
);
const STATE_TABLES: readonly TableName[] = ["meta", "hashedAccounts", "hashedStorage", "accountTrie", "storageTrie"];

function dump(kv: KvStore): string[] {
  const rows: string[] = [];
  for (const t of STATE_TABLES) for (const [k, v] of kv.iterate(t)) rows.push(`${t} ${bytesToHex(k)} ${bytesToHex(v)}`);
  return rows;
}

const chainOn = (kv: KvStore): Blockchain =>
  Blockchain.init(kv, parseGenesis(GENESIS), (GENESIS as { config: unknown }).config);

/** The block filling the contract's slots, built on another chain from the same genesis. */
function fillBlock() {
  const tx = encodeTx(
    signTx(
      {
        type: TxType.FeeMarket,
        chainId: 1337n,
        nonce: 0n,
        maxPriorityFeePerGas: 2n,
        maxFeePerGas: 10n ** 10n,
        gasLimit: 29_000_000n,
        to: FILLER,
        value: 0n,
        data: new Uint8Array(0),
        accessList: [],
        yParity: 0,
        r: 0n,
        s: 0n,
      },
      KEY,
    ),
  );
  const built = buildForced(chainOn(new MemoryKv()), [tx], {
    timestamp: 0x20,
    feeRecipient: hexToBytes(`0x${"11".repeat(20)}`),
    prevRandao: new Uint8Array(32).fill(3),
  });
  assert.equal(built.body.transactions.length, 1);
  return built;
}

/** The store, its writes cut (a throw, as a crash) once `writesLeft` runs out. */
class CutKv extends DelegatingKv {
  writesLeft = Number.POSITIVE_INFINITY;
  override write(b: WriteBatch, o?: { sync?: boolean }): void {
    if (this.writesLeft-- <= 0) throw new Error("simulated crash");
    super.write(b, o);
  }
}

/** The pool, its tasks' kinds recorded. */
function recording(pool: PiscinaPool): TaskPool & { kinds: string[] } {
  const kinds: string[] = [];
  return {
    kinds,
    get threads() {
      return pool.threads;
    },
    get busy() {
      return pool.busy;
    },
    get queueSize() {
      return pool.queueSize;
    },
    canAcceptWork: () => pool.canAcceptWork(),
    run<T>(task: unknown, transfer?: readonly ArrayBufferLike[]): Promise<T> {
      kinds.push((task as { kind: string }).kind);
      return pool.run<T>(task, transfer);
    },
  };
}

async function withStore(fn: (kv: CutKv, pool: TaskPool & { kinds: string[] }) => Promise<void>): Promise<void> {
  const dir = makeTmpDir();
  const rocks = await RocksKv.open(dir);
  const pool = await sharedTrieHashPool(rocks);
  try {
    await fn(new CutKv(rocks), recording(pool));
  } finally {
    await pool.destroy();
    rocks.releaseHandle();
    await rocks.close();
    removeDir(dir);
  }
}

describe("chain: a new contract's rows written by a worker", function () {
  this.timeout(120_000);
  const built = fillBlock();
  const rlp = encodeBlock(built);
  const plain = chainOn(new MemoryKv());
  assert.equal(plain.insertBlock(rlp).status, "VALID");
  const want = dump(plain.kv);
  assert.ok(SLOTS >= MIN_SHARED_ROWS);

  for (const sliced of [false, true]) {
    it(`${sliced ? "sliced" : "synchronous"} import: the worker writes them, the store ends as without workers`, async () => {
      await withStore(async (kv, pool) => {
        const chain = chainOn(kv);
        chain.storagePool = pool;
        const parent = dump(kv).filter((row) => !row.startsWith("meta"));
        const r = sliced ? await chain.insertBlockSliced(rlp) : chain.insertBlock(rlp);
        assert.equal(r.status, "VALID", r.error ?? "");
        assert.ok(pool.kinds.includes("writeRows"), `tasks: ${pool.kinds.join()}`);
        assert.deepEqual(dump(kv), want);
        let rows = 0;
        for (const _ of kv.iterate("hashedStorage")) rows++;
        assert.equal(rows, SLOTS);
        assert.deepEqual(computeStateRoot(kv).root, built.header.stateRoot);
        // The block's undo record (a reorg's way back) restores the parent's state.
        // Its new rows are undone by one range delete, not a key each: the record is a fraction of
        // the rows' keys (a list of deletes alone would run to ~70 bytes a row).
        const record = kv.get("history", built.hash);
        assert.ok(record !== undefined);
        assert.ok(record.length < SLOTS * 8, `history record of ${record.length} bytes for ${SLOTS} new rows`);
        // Sliced, the root is the trieHash worker's, which undoes the contract's new storage-trie
        // records by a range too (remoteStateRoot.ts `rangedUndo`); synchronous, the root here lists them.
        const ranged = decodeUndo(record)
          .ops.filter((o) => o.type === "range")
          .map((o) => o.table);
        assert.deepEqual(ranged.sort(), sliced ? ["hashedStorage", "storageTrie"] : ["hashedStorage"]);
        kv.write(undoBatch(kv, record));
        assert.deepEqual(
          dump(kv).filter((row) => !row.startsWith("meta")),
          parent,
        );
      });
    });
  }

  it("a wrong state root: INVALID, and the rows the worker wrote are undone", async () => {
    await withStore(async (kv, pool) => {
      const chain = chainOn(kv);
      chain.storagePool = pool;
      const before = dump(kv);
      const bad = encodeBlock({ header: { ...built.header, stateRoot: new Uint8Array(32).fill(7) }, body: built.body });
      const r = chain.insertBlock(bad);
      assert.equal(r.status, "INVALID");
      assert.match(r.error ?? "", /^STATE_ROOT/);
      assert.ok(pool.kinds.includes("writeRows"));
      assert.deepEqual(dump(kv), before);
      assert.equal(chain.insertBlock(rlp).status, "VALID");
      assert.deepEqual(dump(kv), want);
    });
  });

  it("a crash marker's range delete: reopening deletes every row under the prefix, and only those", () => {
    const kv = new MemoryKv();
    chainOn(kv);
    const owner = new Uint8Array(32).fill(0xab);
    const other = new Uint8Array(32).fill(0xac);
    const row = (h: Uint8Array, i: number): Uint8Array => {
      const k = new Uint8Array(64);
      k.set(h);
      k[63] = i;
      return k;
    };
    const before = dump(kv);
    const w = new WriteBatch().put("hashedStorage", row(other, 1), Uint8Array.of(1));
    kv.write(w);
    const kept = dump(kv);
    // The import had written rows under `owner` (all new) and one account row when it stopped.
    const acct = new Uint8Array(32).fill(0x01);
    kv.write(
      new WriteBatch()
        .put("hashedStorage", row(owner, 1), Uint8Array.of(5))
        .put("hashedStorage", row(owner, 2), Uint8Array.of(6))
        .put("hashedAccounts", acct, Uint8Array.of(7))
        .put(
          "meta",
          META_PENDING,
          joinEncodedBatches([
            encodeRangeDeletes("hashedStorage", [owner]),
            encodeBatch(new WriteBatch().del("hashedAccounts", acct)),
          ]),
        ),
    );
    Blockchain.open(kv);
    assert.deepEqual(dump(kv), kept);
    assert.notDeepEqual(kept, before);
  });

  it("a crash at any write of the import: the reopened chain is back at the parent, then imports the block", async () => {
    let cut = 0;
    for (; ; cut++) {
      const done = await new Promise<boolean>((resolve, reject) => {
        withStore(async (kv, pool) => {
          const chain = chainOn(kv);
          chain.storagePool = pool;
          const before = dump(kv);
          kv.writesLeft = cut;
          let crashed = false;
          try {
            chain.insertBlock(rlp);
          } catch (e) {
            assert.match(String(e), /simulated crash/);
            crashed = true;
          }
          kv.writesLeft = Number.POSITIVE_INFINITY;
          if (!crashed) {
            resolve(true);
            return;
          }
          const reopened = Blockchain.open(kv);
          assert.deepEqual(dump(kv), before, `cut ${cut}: the store is back as it was`);
          assert.equal(kv.get("meta", META_PENDING), undefined);
          reopened.storagePool = pool;
          assert.equal(reopened.insertBlock(rlp).status, "VALID", `cut ${cut}`);
          assert.deepEqual(dump(kv), want, `cut ${cut}`);
          resolve(false);
        }).catch(reject);
      });
      if (done) break;
    }
    assert.ok(cut >= 2, `crashed at each of ${cut} writes`);
  });
});
