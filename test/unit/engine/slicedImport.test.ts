/**
 * Block import in slices (issue 25): engine_newPayload runs the block's txs a slice at a time, so a
 * read that arrives meanwhile is answered from the parent's state before the import ends; the
 * chain's mutations stay one at a time (a forkchoice to the block waits for its import, a direct
 * synchronous mutation is refused), and a block found invalid after its txs ran leaves the state
 * tables as they were. Ordered by events: with `importSliceMs = 0` an import gives the event loop a
 * turn after every tx, so a block of several txs is still under way when the read is answered.
 */
import { strict as assert } from "node:assert";
import { encodeBlock } from "../../../src/block/block.js";
import { type Blockchain, ChainError } from "../../../src/chain/blockchain.js";
import { META_PENDING } from "../../../src/chain/chainStore.js";
import { IMPORT_UNITS } from "../../../src/chain/importBlock.js";
import { stateViewAt } from "../../../src/chain/stateAt.js";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { EngineApi } from "../../../src/engine/engineApi.js";
import { engineMethods } from "../../../src/engine/methods.js";
import { blockToPayload } from "../../../src/engine/payload.js";
import { PiscinaPool } from "../../../src/node/pools.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import type { Dispatcher } from "../../../src/rpc/dispatch.js";
import { Registry } from "../../../src/rpc/registry.js";
import { KvStateReader } from "../../../src/state/kvStateReader.js";
import type { KvReader } from "../../../src/storage/kv.js";
import type { MemoryKv } from "../../../src/storage/memory.js";
import { OverlayKv } from "../../../src/storage/overlayKv.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import type { TableName } from "../../../src/storage/tables.js";
import { MIN_REMOTE_ROOT_KEYS } from "../../../src/trie/remoteStateRoot.js";
import { computeStateRoot } from "../../../src/trie/stateRoot.js";
import { buildForced } from "../../utils/blocks.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";
import { freshChain, transfer } from "../devp2p/sync/syncFixtures.js";
import { rpcOver } from "../rpc/debug/rpcHarness.js";

const TXS = 6;
const ZERO = `0x${"00".repeat(32)}`;
const STATE_TABLES: TableName[] = ["hashedAccounts", "hashedStorage", "accountTrie", "storageTrie", "code"];
/** The recipient of transfer(nonce, to) (syncFixtures). */
const recipient = (to: number): Uint8Array => hexToBytes(`0x${(0x1000 + to).toString(16).padStart(40, "0")}`);

/**
 * A block of `n` transfers (syncFixtures `transfer`), all to recipient(0) or each to its own
 * address when `spread`, built on another chain from the same genesis.
 */
function builtBlock(n = TXS, spread = false) {
  const a = freshChain();
  const forced: Uint8Array[] = [];
  for (let i = 0; i < n; i++) forced.push(transfer(i, spread ? i : 0));
  const built = buildForced(a, forced, {
    timestamp: 0x20,
    feeRecipient: hexToBytes(`0x${"11".repeat(20)}`),
    prevRandao: new Uint8Array(32).fill(3),
  });
  assert.equal(built.body.transactions.length, n);
  return built;
}

async function call(d: Dispatcher, method: string, params: unknown[]): Promise<{ result?: any; error?: unknown }> {
  const r = await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), {
    ctx: { transport: "http", remoteAddr: "" },
    subs: null,
  });
  return JSON.parse(r as string);
}

function stateRows(kv: KvReader): string[] {
  const out: string[] = [];
  for (const t of STATE_TABLES) for (const [k, v] of kv.iterate(t)) out.push(`${t}:${bytesToHex(k)}=${bytesToHex(v)}`);
  return out;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("engine/slicedImport", function () {
  this.timeout(60_000);

  it("a read is answered from the parent's state while newPayload imports; forkchoice waits for the import", async () => {
    const built = builtBlock();
    const chain = freshChain();
    chain.importSliceMs = 0;
    const engine = new Registry(engineMethods(new EngineApi(chain))).forApis(["engine"]);
    const rpc = rpcOver(chain);
    const parent = chain.headBlockHash;
    const hash = bytesToHex(built.hash);
    const payload = blockToPayload(built.header, built.body, built.hash, 3, false);

    let imported = false;
    const np = call(engine, "engine_newPayloadV3", [payload, [], bytesToHex(new Uint8Array(32).fill(4))]).then((r) => {
      imported = true;
      return r;
    });
    await turn();
    assert.equal(chain.mutationsPending, 1, "the import is under way");
    // Queued behind the import: run now, it would find the block not executed yet.
    const fcu = call(engine, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: hash, safeBlockHash: ZERO, finalizedBlockHash: ZERO },
      null,
    ]);
    const during = await rpc("eth_getBalance", [bytesToHex(recipient(0)), "latest"]);
    assert.equal(imported, false, "the read was answered before the import ended");
    assert.equal(during.result, "0x0");
    assert.deepEqual(chain.headBlockHash, parent);
    assert.throws(() => chain.setHead(built.hash), ChainError);
    assert.throws(() => chain.insertBlock(encodeBlock(built)), ChainError);

    const st = await np;
    assert.equal(st.result.status, "VALID", st.result.validationError ?? "");
    const fc = await fcu;
    assert.equal(fc.result?.payloadStatus.status, "VALID", JSON.stringify(fc));
    assert.equal(bytesToHex(chain.headBlockHash), hash);
    assert.equal(chain.mutationsPending, 0);
    let sum = 0n;
    for (let i = 0; i < TXS; i++) sum += 1000n + BigInt(i);
    assert.equal(BigInt((await rpc("eth_getBalance", [bytesToHex(recipient(0)), "latest"])).result), sum);
  });

  it("a block found invalid after its txs ran in slices leaves the state tables as they were", async () => {
    const built = builtBlock();
    const chain = freshChain();
    chain.importSliceMs = 0;
    const kv = chain.kv as MemoryKv;
    const before = stateRows(kv);
    const bad = { ...built.header, stateRoot: new Uint8Array(32).fill(9) };
    const p = chain.insertBlockSliced(encodeBlock({ header: bad, body: built.body }));
    await turn();
    assert.equal(chain.mutationsPending, 1, "the import is under way");
    const r = await p;
    assert.equal(r.status, "INVALID");
    assert.match(r.error ?? "", /^STATE_ROOT/);
    assert.deepEqual(stateRows(kv), before);
    assert.equal(kv.get("meta", META_PENDING), undefined);
    assert.deepEqual(chain.stateBlockHash, chain.headBlockHash);
    // The chain takes the valid block afterwards, in slices again.
    assert.equal((await chain.insertBlockSliced(encodeBlock(built))).status, "VALID");
  });

  it("a wrong receipts root or bloom is reported before a wrong state root, and nothing is left written", () => {
    const built = builtBlock();
    const bloom = new Uint8Array(256);
    bloom[7] = 1;
    for (const [field, value, want] of [
      ["receiptsRoot", new Uint8Array(32).fill(5), /^RECEIPTS_ROOT/],
      ["logsBloom", bloom, /^LOGS_BLOOM/],
    ] as const) {
      const chain = freshChain();
      const kv = chain.kv as MemoryKv;
      const before = stateRows(kv);
      // The wrong state root too: the receipts' and bloom's checks come first.
      const bad = { ...built.header, [field]: value, stateRoot: new Uint8Array(32).fill(9) };
      const r = chain.insertBlock(encodeBlock({ header: bad, body: built.body }));
      assert.equal(r.status, "INVALID");
      assert.match(r.error ?? "", want);
      assert.deepEqual(stateRows(kv), before, field);
      assert.equal(kv.get("meta", META_PENDING), undefined);
    }
  });
});

/**
 * A chain on a RocksDB store whose trieHash pool (one worker) shares it, a block big enough for its
 * root to go to the worker, and `fn` run on them; everything is closed afterwards.
 */
async function withWorkerChain(
  fn: (chain: Blockchain, kv: RocksKv, built: ReturnType<typeof builtBlock>, n: number) => Promise<void>,
): Promise<void> {
  const n = MIN_REMOTE_ROOT_KEYS + 12;
  const built = builtBlock(n, true);
  const dir = makeTmpDir();
  const kv = await RocksKv.open(dir);
  const pool = new PiscinaPool("trieHash", { threads: 1 }, { store: { engine: "rocksdb", handle: kv.shareHandle() } });
  try {
    await pool.warm();
    const chain = freshChain(kv);
    chain.storagePool = pool;
    await fn(chain, kv, built, n);
  } finally {
    await pool.destroy();
    kv.releaseHandle();
    await kv.close();
    removeDir(dir);
  }
}

describe("engine/slicedImport: the state root on a trieHash worker", function () {
  this.timeout(120_000);
  const units = { ...IMPORT_UNITS };
  afterEach(() => Object.assign(IMPORT_UNITS, units));

  it("the flat rows are written, readers see the parent's state through their undo, the worker's root checks", async () => {
    await withWorkerChain(async (chain, kv, built, n) => {
      const hashed = keccak256(recipient(n - 1));
      let settled = false;
      const p = chain.insertBlockSliced(encodeBlock(built)).finally(() => {
        settled = true;
      });
      let sawWorkerPhase = false;
      // Event order: while the job is parked on the worker, every turn of the loop finds the overlay.
      while (!settled) {
        await turn();
        if (settled || !(chain.store.kv instanceof OverlayKv)) continue;
        sawWorkerPhase = true;
        assert.notEqual(kv.get("hashedAccounts", hashed), undefined, "the flat rows are written");
        const view = stateViewAt(chain.store, chain.stateBlockHash, chain.headBlockHash);
        assert.ok(view !== null);
        assert.equal(new KvStateReader(view).account(hashed), null, "readers see the parent's state");
      }
      assert.ok(sawWorkerPhase, "the root was computed on the worker");
      const r = await p;
      assert.equal(r.status, "VALID", r.error ?? "");
      assert.equal(chain.store.kv, kv);
      assert.deepEqual(computeStateRoot(kv).root, built.header.stateRoot);
      assert.equal(kv.get("meta", META_PENDING), undefined);
    });
  });

  it("a wrong receipts root, found while the root is on the worker, leaves the state tables as they were", async () => {
    await withWorkerChain(async (chain, kv, built) => {
      const before = stateRows(kv);
      const bad = { ...built.header, receiptsRoot: new Uint8Array(32).fill(5) };
      const r = await chain.insertBlockSliced(encodeBlock({ header: bad, body: built.body }));
      assert.equal(r.status, "INVALID");
      assert.match(r.error ?? "", /^RECEIPTS_ROOT/);
      assert.deepEqual(stateRows(kv), before);
      assert.equal(kv.get("meta", META_PENDING), undefined);
      assert.equal((await chain.insertBlockSliced(encodeBlock(built))).status, "VALID");
      assert.deepEqual(computeStateRoot(kv).root, built.header.stateRoot);
    });
  });

  it("at every turn of an import, readers see exactly the parent's rows (flat state and tries) until the block's last write", async () => {
    await withWorkerChain(async (chain, kv, built) => {
      chain.importSliceMs = 0;
      // Units small enough that the flat rows' inverse is read in parts and the trie written in parts.
      IMPORT_UNITS.trieOpsPerWrite = 4;
      IMPORT_UNITS.inverseKeysPerStep = 16;
      const parent = chain.stateBlockHash;
      const before = stateRows(kv);
      let settled = false;
      const p = chain.insertBlockSliced(encodeBlock(built)).finally(() => {
        settled = true;
      });
      let turns = 0;
      let written = 0;
      while (!settled) {
        await turn();
        if (settled) break;
        turns++;
        assert.deepEqual(chain.stateBlockHash, parent);
        if (stateRows(kv).join() !== before.join()) written++;
        assert.deepEqual(stateRows(chain.store.kv), before, `turn ${turns}: the readers' rows are the parent's`);
      }
      assert.ok(written > 5, `the store held the block's rows during several turns (${written} of ${turns})`);
      const r = await p;
      assert.equal(r.status, "VALID", r.error ?? "");
      assert.notDeepEqual(stateRows(chain.store.kv), before);
      assert.deepEqual(computeStateRoot(kv).root, built.header.stateRoot);
    });
  });
});
