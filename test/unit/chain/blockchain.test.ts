/**
 * Blockchain over a real chain: the execution-apis rpc-compat chain (genesis.json + chain.rlp,
 * Homestead → Osaka/BPO2 with every kind of tx) is initialised, imported block by block and made
 * canonical with the head the suite's headfcu.json names; then a restart, a crash in the middle of
 * an import, and a reorg onto a side branch built from the same blocks.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeBlock, encodeBlock } from "../../../src/block/block.js";
import { headerHash } from "../../../src/block/header.js";
import { Blockchain } from "../../../src/chain/blockchain.js";
import {
  META_FINALIZED,
  META_HEAD,
  META_PENDING,
  META_PENDING_TAIL,
  META_SAFE,
} from "../../../src/chain/chainStore.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { IMPORT_UNITS } from "../../../src/chain/importBlock.js";
import { stateViewAt } from "../../../src/chain/stateAt.js";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { CachedKv, CHAIN_CACHE } from "../../../src/storage/cachedKv.js";
import type { KvStore, WriteBatch } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import type { TableName } from "../../../src/storage/tables.js";
import { computeStateRoot } from "../../../src/trie/stateRoot.js";
import { startSharedRecovery } from "../../../src/tx/sharedRecovery.js";
import type { Tx } from "../../../src/tx/tx.js";
import { fixturePath } from "../../utils/fixtures.js";
import { PowerLossKv } from "../../utils/powerLoss.js";
import { blocksOf } from "../../utils/rpcCompatChain.js";

const DIR = fixturePath("execution-apis-rpc", "tests");

function genesisJson(): unknown {
  return JSON.parse(readFileSync(join(DIR, "genesis.json"), "utf8"));
}

function initChain(kv: KvStore): Blockchain {
  const json = genesisJson() as { config: unknown };
  return Blockchain.init(kv, parseGenesis(json), json.config);
}

/** A store whose Nth write throws, as a crash would cut the process. */
class CrashingKv extends MemoryKv {
  writesLeft = Number.POSITIVE_INFINITY;
  override write(batch: WriteBatch): void {
    if (this.writesLeft-- <= 0) throw new Error("simulated crash");
    super.write(batch);
  }
}

const STATE_TABLES: readonly TableName[] = ["meta", "hashedAccounts", "hashedStorage", "accountTrie", "storageTrie"];

/** Every row of the state tables and meta, as hex, to compare stores. */
function dumpStore(kv: KvStore): string[] {
  const rows: string[] = [];
  for (const t of STATE_TABLES) for (const [k, v] of kv.iterate(t)) rows.push(`${t} ${bytesToHex(k)} ${bytesToHex(v)}`);
  return rows;
}

/** Every row of the state and trie tables, as hex (to compare a store before and after). */
function dumpRows(kv: KvStore): string[] {
  return dumpStore(kv).filter((row) => !row.startsWith("meta "));
}

/** A store that counts point reads by table. */
class TableReadCountingKv extends MemoryKv {
  readonly reads = new Map<TableName, number>();
  readsOf(table: TableName): number {
    return this.reads.get(table) ?? 0;
  }
  override get(table: TableName, key: Uint8Array): Uint8Array | undefined {
    this.reads.set(table, this.readsOf(table) + 1);
    return super.get(table, key);
  }
  override getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    this.reads.set(table, this.readsOf(table) + keys.length);
    return super.getMany(table, keys);
  }
}

const MARKER_KEYS = new Set([bytesToHex(META_PENDING), bytesToHex(META_PENDING_TAIL)]);

/** A store that logs each write's sync flag, size, and whether it sets a crash-marker row. */
class SyncCountingKv extends MemoryKv {
  readonly log: { sync: boolean; ops: number; marker: boolean }[] = [];
  override write(batch: WriteBatch, opts?: { sync?: boolean }): void {
    const marker = batch.ops.some((o) => o.type === "put" && o.table === "meta" && MARKER_KEYS.has(bytesToHex(o.key)));
    this.log.push({ sync: opts?.sync === true, ops: batch.ops.length, marker });
    super.write(batch);
  }
}

/** A store that counts the trie-branch keys read by exact key. */
class TrieReadCountingKv extends MemoryKv {
  trieKeysRead = 0;
  override getMany(table: TableName, keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    if (table === "accountTrie" || table === "storageTrie") this.trieKeysRead += keys.length;
    return super.getMany(table, keys);
  }
}

describe("chain/blockchain", function () {
  this.timeout(120_000);
  const blocks = blocksOf(join(DIR, "chain.rlp"));
  const fcu = JSON.parse(readFileSync(join(DIR, "headfcu.json"), "utf8")) as {
    params: [{ headBlockHash: string }];
  };

  /** A chain on `kv` whose head and state are block 10 (blocks[9]); blocks[10] is after Byzantium. */
  function chainAt10(kv: KvStore): Blockchain {
    const chain = initChain(kv);
    for (const rlp of blocks.slice(0, 10)) chain.insertBlock(rlp);
    chain.setHead(headerHash(decodeBlock(blocks[9]).header));
    return chain;
  }

  /** After a crash cut the import of blocks[10]: the store reopens as `before` and imports it. */
  function assertReopensAt10(kv: KvStore, before: string[], cut: number): void {
    const reopened = Blockchain.open(kv);
    // The flat rows, the trie nodes and patched account rows of a later write too, as before.
    assert.deepEqual(dumpStore(kv), before, `cut ${cut}: the store is back as it was`);
    assert.equal(kv.get("meta", META_PENDING), undefined, `cut ${cut}: the marker is gone`);
    assert.equal(kv.get("meta", META_PENDING_TAIL), undefined, `cut ${cut}: its tail is gone`);
    assert.equal(reopened.head.number, 10, `cut ${cut}`);
    assert.deepEqual(computeStateRoot(kv).root, reopened.head.stateRoot, `cut ${cut}`);
    // The interrupted block imports normally afterwards.
    assert.equal(reopened.insertBlock(blocks[10]).status, "VALID", `cut ${cut}`);
  }

  it("imports the whole rpc-compat chain and takes the forkchoice head", () => {
    const chain = initChain(new MemoryKv());
    for (const rlp of blocks) {
      const r = chain.insertBlock(rlp);
      assert.equal(r.status, "VALID", `block ${r.header?.number}: ${r.error}`);
    }
    const head = hexToBytes(fcu.params[0].headBlockHash);
    chain.setHead(head);
    assert.equal(bytesToHex(chain.headBlockHash), fcu.params[0].headBlockHash);
    assert.equal(chain.head.number, blocks.length);
    for (let n = 0; n <= chain.head.number; n++) assert.ok(chain.store.canonicalHash(n), `canonical ${n}`);
    // Known blocks are recognised, not re-executed.
    assert.equal(chain.insertBlock(blocks[3]).status, "KNOWN");
  });

  it("senders given as a source asked tx by tx (the Engine API's overlapped recovery) import the same chain", () => {
    const plain = initChain(new MemoryKv());
    const shared = initChain(new MemoryKv());
    let asked = 0;
    for (const rlp of blocks.slice(0, 30)) {
      const src = startSharedRecovery(decodeBlock(rlp).body.transactions, null);
      const counting = {
        count: src.count,
        sender: (i: number, tx: Tx) => {
          asked++;
          return src.sender(i, tx);
        },
      };
      const a = plain.insertBlock(rlp);
      const b = shared.insertBlock(rlp, { senders: counting });
      assert.equal(b.status, a.status, `block ${a.header?.number}: ${b.error}`);
      assert.deepEqual(b.hash, a.hash);
    }
    assert.ok(asked > 0);
  });

  it("a source without a sender for a tx: INVALID with the error of a failed recovery, state untouched", () => {
    const chain = initChain(new MemoryKv());
    const withTxs = blocks.findIndex((rlp) => decodeBlock(rlp).body.transactions.length > 0);
    assert.ok(withTxs >= 0);
    for (const rlp of blocks.slice(0, withTxs)) assert.equal(chain.insertBlock(rlp).status, "VALID");
    const rlp = blocks[withTxs]!;
    const n = decodeBlock(rlp).body.transactions.length;
    const r = chain.insertBlock(rlp, { senders: { count: n, sender: () => null } });
    assert.equal(r.status, "INVALID");
    assert.equal(r.error, "TX_INVALID[0]: SENDER_RECOVERY_FAILED");
  });

  it("a restart finds the same head, and the state root is the head's", () => {
    const kv = new MemoryKv();
    const chain = initChain(kv);
    for (const rlp of blocks.slice(0, 20)) chain.insertBlock(rlp);
    const want = headerHash(decodeBlock(blocks[19]).header);
    chain.setHead(want);
    const again = Blockchain.open(kv);
    assert.equal(bytesToHex(again.headBlockHash), bytesToHex(want));
    assert.deepEqual(computeStateRoot(kv).root, again.head.stateRoot);
  });

  it("applyForkchoice: the head move and the labels in one synced write, the same rows as setHead + setSafeAndFinalized", () => {
    const plain = initChain(new MemoryKv());
    const kv = new SyncCountingKv();
    const chain = initChain(kv);
    for (const rlp of blocks.slice(0, 12)) {
      assert.equal(plain.insertBlock(rlp).status, "VALID");
      assert.equal(chain.insertBlock(rlp).status, "VALID");
    }
    const hashes = blocks.slice(0, 12).map((rlp) => headerHash(decodeBlock(rlp).header));
    const [head, safe, finalized] = [hashes[11]!, hashes[9]!, hashes[5]!];
    plain.setHead(head);
    plain.setSafeAndFinalized(safe, finalized);
    kv.log.length = 0;
    const change = chain.applyForkchoice(head, safe, finalized);
    assert.deepEqual(
      kv.log.map((w) => w.sync),
      [true],
    );
    assert.equal(change?.added.length, 12);
    assert.equal(change?.newHead.number, 12);
    assert.deepEqual(chain.headBlockHash, head);
    for (const t of ["meta", "canonical", "txLookup"] as const) {
      assert.deepEqual([...chain.kv.iterate(t)], [...plain.kv.iterate(t)], t);
    }
    // Nothing moved and nothing unsynced: no write; a head moved by setHead is synced by the next one.
    kv.log.length = 0;
    assert.equal(chain.applyForkchoice(head, safe, finalized), null);
    assert.equal(kv.log.length, 0);
    chain.setHead(hashes[10]!);
    kv.log.length = 0;
    assert.equal(chain.applyForkchoice(hashes[10]!, null, null), null);
    assert.deepEqual(
      kv.log.map((w) => [w.sync, w.ops]),
      [[true, 1]],
    );
    assert.deepEqual(Blockchain.open(kv).headBlockHash, hashes[10]);
  });

  it("with logSync: forkchoice writes unsynced and is answered, and the queue goes on, once the log sync has run; a failed sync fails it", async () => {
    const kv = new PowerLossKv();
    const chain = initChain(kv);
    const hashes = blocks.slice(0, 4).map((rlp) => {
      assert.equal(chain.insertBlock(rlp).status, "VALID");
      return headerHash(decodeBlock(rlp).header);
    });
    const durableHead = (): string => bytesToHex(kv.durableRow("meta", META_HEAD)!);
    const genesis = durableHead();
    let fail = false;
    chain.logSync = async () => {
      if (fail) throw new Error("disk gone");
      await kv.syncLog();
    };
    const answer = chain.exclusiveDurable(() => chain.applyForkchoice(hashes[3]!, null, null));
    assert.ok(answer instanceof Promise, "answered before the log sync");
    assert.equal(durableHead(), genesis, "the forkchoice's own write was a synced one");
    const seenByNext: string[] = [];
    const next = chain.exclusive(() => seenByNext.push(durableHead()));
    assert.equal((await answer)?.newHead.number, 4);
    assert.equal(durableHead(), bytesToHex(hashes[3]!));
    await next;
    assert.deepEqual(seenByNext, [bytesToHex(hashes[3]!)]);
    // A failed sync fails the call; the head stays unsynced until a later sync.
    fail = true;
    await assert.rejects(
      Promise.resolve(chain.exclusiveDurable(() => chain.applyForkchoice(hashes[2]!, null, null))),
      /disk gone/,
    );
    assert.equal(durableHead(), bytesToHex(hashes[3]!));
    fail = false;
    // A call that fails after its forkchoice (as bad payload attributes do) fails once it is durable.
    await assert.rejects(
      Promise.resolve(
        chain.exclusiveDurable(() => {
          chain.applyForkchoice(hashes[1]!, null, null);
          throw new Error("bad attributes");
        }),
      ),
      /bad attributes/,
    );
    assert.equal(durableHead(), bytesToHex(hashes[1]!));
    // The timer's sync goes through logSync too; stopLogSync waits for it and turns logSync off.
    chain.setHead(hashes[2]!);
    chain.persistSoon();
    await chain.stopLogSync();
    assert.equal(chain.logSync, null);
    assert.equal(durableHead(), bytesToHex(hashes[2]!));
    assert.deepEqual(Blockchain.open(kv.image(0)).headBlockHash, hashes[2]);
  });

  it("init on a store that holds a chain writes nothing: same genesis reopens, another is refused", () => {
    const kv = new MemoryKv();
    const chain = initChain(kv);
    for (const rlp of blocks.slice(0, 6)) chain.insertBlock(rlp);
    chain.setHead(headerHash(decodeBlock(blocks[5]).header));
    const again = initChain(kv);
    assert.equal(again.head.number, 6);
    assert.deepEqual(computeStateRoot(kv).root, again.head.stateRoot);
    const other = genesisJson() as { config: unknown; extraData?: string };
    other.extraData = "0x01";
    assert.throws(() => Blockchain.init(kv, parseGenesis(other), other.config), /another genesis/);
    assert.deepEqual(computeStateRoot(kv).root, again.head.stateRoot);
  });

  it("an import writes twice: the flat rows with the crash marker, then the tries with the block in one batch", async () => {
    // Synchronous, and sliced with a trie batch of at most IMPORT_UNITS.trieOpsPerWrite rows.
    for (const sliced of [false, true]) {
      const kv = new SyncCountingKv();
      const chain = initChain(kv);
      // Block 11: after Byzantium (before it every tx writes the state for its receipt's root).
      for (const rlp of blocks.slice(0, 10)) chain.insertBlock(rlp);
      kv.log.length = 0;
      const r = sliced ? await chain.insertBlockSliced(blocks[10]) : chain.insertBlock(blocks[10]);
      assert.equal(r.status, "VALID");
      assert.deepEqual(
        kv.log.map((w) => [w.sync, w.marker]),
        [
          [false, true],
          [false, false],
        ],
        `sliced ${sliced}`,
      );
      assert.deepEqual(computeStateRoot(kv).root, decodeBlock(blocks[10]).header.stateRoot);
      assert.equal(kv.get("meta", META_PENDING), undefined);
    }
  });

  describe("a sliced import's trie batch of more than IMPORT_UNITS.trieOpsPerWrite rows", () => {
    const units = { ...IMPORT_UNITS };
    afterEach(() => Object.assign(IMPORT_UNITS, units));

    it("is written in parts before the block's write, the first part carrying the crash marker's tail", async () => {
      const kv = new SyncCountingKv();
      const chain = initChain(kv);
      for (const rlp of blocks.slice(0, 10)) chain.insertBlock(rlp);
      IMPORT_UNITS.trieOpsPerWrite = 2;
      kv.log.length = 0;
      assert.equal((await chain.insertBlockSliced(blocks[10])).status, "VALID");
      const n = kv.log.length;
      assert.ok(n > 4, `the flat rows, several trie parts and the block: ${n} writes`);
      // The flat rows (pendingUndo), the first trie part (pendingUndoTail), later parts, the block.
      assert.deepEqual(
        kv.log.map((w) => w.marker),
        [true, true, ...new Array<boolean>(n - 3).fill(false), false],
      );
      assert.ok(kv.log[1]!.ops <= 2 + 1 && kv.log.slice(2, -1).every((w) => w.ops <= 2));
      assert.ok(kv.log.every((w) => !w.sync));
      assert.deepEqual(computeStateRoot(kv).root, decodeBlock(blocks[10]).header.stateRoot);
      assert.equal(kv.get("meta", META_PENDING), undefined);
      assert.equal(kv.get("meta", META_PENDING_TAIL), undefined);
    });

    it("a crash after any of its writes reopens at the parent; a failed check undoes the parts", async () => {
      IMPORT_UNITS.trieOpsPerWrite = 2;
      let cut = 0;
      for (; ; cut++) {
        const kv = new CrashingKv();
        const chain = chainAt10(kv);
        const before = dumpStore(kv);
        kv.writesLeft = cut;
        let crashed = false;
        try {
          await chain.insertBlockSliced(blocks[10]);
        } catch (e) {
          if (!/simulated crash/.test((e as Error).message)) throw e;
          crashed = true;
        }
        kv.writesLeft = Number.POSITIVE_INFINITY;
        if (!crashed) break;
        assertReopensAt10(kv, before, cut);
      }
      assert.ok(cut > 4, `crashed at each of ${cut} writes`);

      const kv = new MemoryKv();
      const chain = chainAt10(kv);
      const before = dumpStore(kv);
      const { header, body } = decodeBlock(blocks[10]);
      const bad = encodeBlock({ header: { ...header, stateRoot: new Uint8Array(32).fill(1) }, body });
      const r = await chain.insertBlockSliced(bad);
      assert.equal(r.status, "INVALID");
      assert.match(r.error ?? "", /STATE_ROOT/);
      assert.deepEqual(dumpStore(kv), before);
      assert.equal((await chain.insertBlockSliced(blocks[10])).status, "VALID");
    });
  });

  it("import and forkchoice read back none of the block's rows but the absent receipts: what was imported is remembered", () => {
    const kv = new TableReadCountingKv();
    const chain = initChain(kv);
    // Block 1: the genesis, its parent, is found in the store.
    chain.applyForkchoice(chain.insertBlock(blocks[0]).hash, null, null);
    for (const rlp of blocks.slice(1, 10)) {
      const before = {
        receipts: kv.readsOf("receipts"),
        bodies: kv.readsOf("bodies"),
        headers: kv.readsOf("headers"),
        difficulty: kv.readsOf("difficulty"),
      };
      const r = chain.insertBlock(rlp);
      assert.equal(r.status, "VALID");
      assert.ok(chain.isExecuted(r.hash));
      assert.ok(chain.isExecuted(decodeBlock(rlp).header.parentHash));
      chain.applyForkchoice(r.hash, null, null);
      // The new block's own lookup before its import (absent); the rest from memory.
      assert.equal(kv.readsOf("receipts") - before.receipts, 1, `block ${r.header?.number}`);
      assert.equal(kv.readsOf("bodies") - before.bodies, 0, `block ${r.header?.number}`);
      assert.equal(kv.readsOf("headers") - before.headers, 0, `block ${r.header?.number}`);
      assert.equal(kv.readsOf("difficulty") - before.difficulty, 0, `block ${r.header?.number}`);
    }
    // The canonical tx index the head moves wrote.
    const body = decodeBlock(blocks[9]).body;
    assert.ok(body.transactions.length > 0);
    body.transactions.forEach((t, i) => {
      const at = chain.store.txLocation(keccak256(t));
      assert.deepEqual([at?.blockHash, at?.index], [chain.headBlockHash, i]);
    });
    // A chain opened on the same store finds executed blocks in the store.
    const again = Blockchain.open(kv);
    assert.ok(again.isExecuted(again.headBlockHash));
  });

  it("over the node's cache (CHAIN_CACHE) forkchoice reads no meta row from the store", () => {
    const inner = new TableReadCountingKv();
    const chain = initChain(new CachedKv(inner, CHAIN_CACHE));
    const { hash: first } = chain.insertBlock(blocks[0]);
    chain.applyForkchoice(first, first, first);
    const before = inner.readsOf("meta");
    for (const rlp of blocks.slice(1, 10)) {
      const { hash } = chain.insertBlock(rlp);
      chain.applyForkchoice(hash, hash, first);
    }
    assert.equal(inner.readsOf("meta") - before, 0);
    assert.deepEqual(chain.store.meta(META_SAFE), chain.headBlockHash);
    assert.deepEqual(Blockchain.open(inner).store.meta(META_FINALIZED), first);
  });

  it("a block handed over decoded (insertBlockSliced's `decoded`) is stored as the same block decoded from its RLP", async () => {
    const plain = new MemoryKv();
    const given = new MemoryKv();
    const a = initChain(plain);
    const b = initChain(given);
    for (const rlp of blocks.slice(0, 12)) {
      const { header, body } = decodeBlock(rlp);
      const hash = headerHash(header);
      const want = a.insertBlock(rlp);
      const got = await b.insertBlockSliced(rlp, { decoded: { header, body, hash } });
      assert.equal(got.status, want.status);
      assert.deepEqual(got.hash, want.hash);
      for (const t of ["headers", "bodies", "receipts", "history"] as TableName[]) {
        assert.deepEqual(given.get(t, hash), plain.get(t, hash), `${t} of block ${header.number}`);
      }
      a.applyForkchoice(hash, null, null);
      await b.exclusive(() => b.applyForkchoice(hash, null, null));
    }
    assert.deepEqual(dumpRows(given), dumpRows(plain));
  });

  it("a block whose state root does not match leaves the parent's state and tries as they were", () => {
    const kv = new SyncCountingKv();
    const chain = initChain(kv);
    for (const rlp of blocks.slice(0, 10)) chain.insertBlock(rlp);
    const before = dumpRows(kv);
    const { header, body } = decodeBlock(blocks[10]);
    const bad = encodeBlock({ header: { ...header, stateRoot: new Uint8Array(32).fill(1) }, body });
    const r = chain.insertBlock(bad);
    assert.equal(r.status, "INVALID");
    assert.match(r.error ?? "", /STATE_ROOT/);
    assert.deepEqual(dumpRows(kv), before);
    assert.equal(chain.insertBlock(blocks[10]).status, "VALID");
  });

  it("a crash in the middle of an import leaves a store that reopens at the last stored block", () => {
    for (const cut of [0, 1]) {
      const kv = new CrashingKv();
      const chain = chainAt10(kv);
      const before = dumpStore(kv);
      kv.writesLeft = cut;
      assert.throws(() => chain.insertBlock(blocks[10]), /simulated crash/);
      kv.writesLeft = Number.POSITIVE_INFINITY;
      assertReopensAt10(kv, before, cut);
    }
  });

  it("reorgs: a side branch inserted later becomes canonical, and back", () => {
    const kv = new MemoryKv();
    const chain = initChain(kv);
    for (const rlp of blocks.slice(0, 12)) chain.insertBlock(rlp);
    const a = headerHash(decodeBlock(blocks[11]).header);
    const b = headerHash(decodeBlock(blocks[7]).header);
    chain.setHead(a);
    // Moving the head back to block 8 unwinds 9..12 from the canonical chain and the state.
    const change = chain.setHead(b);
    assert.deepEqual(
      change.removed.map((h) => h.number),
      [12, 11, 10, 9],
    );
    assert.equal(chain.store.canonicalHash(12), null);
    assert.deepEqual(computeStateRoot(kv).root, chain.head.stateRoot);
    // And forward again: the stored blocks are re-executed onto the state.
    const back = chain.setHead(a);
    assert.deepEqual(
      back.added.map((h) => h.number),
      [9, 10, 11, 12],
    );
    assert.deepEqual(computeStateRoot(kv).root, chain.head.stateRoot);
  });

  it("over CachedKv(CHAIN_CACHE), trie branches cached: the chain, a move back and forward again keep every state root right", () => {
    const inner = new TrieReadCountingKv();
    const kv = new CachedKv(inner, CHAIN_CACHE);
    const chain = initChain(kv);
    for (const rlp of blocks) assert.equal(chain.insertBlock(rlp).status, "VALID");
    const tip = headerHash(decodeBlock(blocks[blocks.length - 1]).header);
    chain.setHead(tip);
    const back = headerHash(decodeBlock(blocks[7]).header);
    // The undo batches rewrite trie rows the cache holds; a stale one would break the roots below.
    chain.setHead(back);
    assert.deepEqual(computeStateRoot(inner).root, chain.head.stateRoot);
    chain.setHead(tip);
    assert.deepEqual(computeStateRoot(inner).root, chain.head.stateRoot);
    assert.ok(
      inner.trieKeysRead > 0 && kv.hits > inner.trieKeysRead,
      `${kv.hits} hits, ${inner.trieKeysRead} trie reads`,
    );
  });

  it("stateViewAt: the state of every ancestor reads back with that block's state root", () => {
    const kv = new MemoryKv();
    const chain = initChain(kv);
    for (const rlp of blocks.slice(0, 16)) chain.insertBlock(rlp);
    chain.setHead(headerHash(decodeBlock(blocks[15]).header));
    for (const n of [0, 1, 7, 15, 16]) {
      const hash = chain.store.canonicalHash(n) as Uint8Array;
      const view = stateViewAt(chain.store, chain.stateBlockHash, hash);
      assert.ok(view, `view at ${n}`);
      assert.deepEqual(computeStateRoot(view).root, chain.store.header(hash)?.stateRoot, `root at ${n}`);
    }
    const bogus = new Uint8Array(32).fill(1);
    assert.equal(stateViewAt(chain.store, chain.stateBlockHash, bogus), null);
  });

  it("rejects an invalid block without touching the state", () => {
    const kv = new MemoryKv();
    const chain = initChain(kv);
    for (const rlp of blocks.slice(0, 5)) chain.insertBlock(rlp);
    chain.setHead(headerHash(decodeBlock(blocks[4]).header));
    const bad = decodeBlock(blocks[5]);
    bad.header.stateRoot = new Uint8Array(32).fill(7);
    const r = chain.insertBlock(encodeBlock(bad));
    assert.equal(r.status, "INVALID");
    assert.match(r.error ?? "", /STATE_ROOT/);
    assert.deepEqual(computeStateRoot(kv).root, chain.head.stateRoot);
    assert.equal(chain.insertBlock(blocks[5]).status, "VALID");
  });
});
