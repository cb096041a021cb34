/**
 * Power loss (issue 26, point 6; docs/design/storage.md "Durability"): the chain store runs on PowerLossKv,
 * which keeps what a power cut would keep (every batch up to the last synced one, then any prefix of
 * the rest). At random writes of a run the test takes such images; each must reopen at a consistent
 * head (every canonical block stored with its body, receipts and tx index, nothing canonical above
 * the head, no half-applied state write, the flat state's root the state block's), keep every head
 * that was synced before the cut (for the Engine API: every forkchoice answered VALID), and go on:
 * dev sealing seals on top of it, and an Engine API client re-sending the lost payloads gets VALID
 * and the old head back. opal-node's safe-head DB, whose writes are all synced, keeps every entry.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { META_HEAD, META_PENDING, META_PENDING_TAIL } from "../../../src/chain/chainStore.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { blockToPayload } from "../../../src/engine/payload.js";
import { devAccounts } from "../../../src/node/exec/devGenesis.js";
import { ExecNode } from "../../../src/node/exec/execNode.js";
import { equalBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { SafeDb } from "../../../src/rollup/driver/safeDb.js";
import type { BlockId } from "../../../src/rollup/refs.js";
import type { KvStore } from "../../../src/storage/kv.js";
import type { MemoryKv } from "../../../src/storage/memory.js";
import { computeStateRoot } from "../../../src/trie/stateRoot.js";
import { EngineDriver, l2GenesisFile } from "../../reliability/crashHarness.js";
import { Prng } from "../../reliability/crashProcs.js";
import { call } from "../../utils/jsonRpc.js";
import { configOf, devTransfer, tempDir, waitFor } from "../../utils/node.js";
import { PowerLossKv } from "../../utils/powerLoss.js";

const SEED = Number(process.env.OPAL_POWERLOSS_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** The chain in `kv` is whole at its head; returns it opened. */
function checkConsistent(kv: KvStore, what: string): Blockchain {
  const chain = Blockchain.open(kv);
  const s = chain.store;
  assert.equal(kv.get("meta", META_PENDING), undefined, `${what}: a state write is still pending after open`);
  assert.equal(
    kv.get("meta", META_PENDING_TAIL),
    undefined,
    `${what}: a state write's tail is still pending after open`,
  );
  assert.equal(s.canonicalHash(chain.head.number + 1), null, `${what}: a canonical block above the head`);
  let hash = chain.headBlockHash;
  for (let n = chain.head.number; n >= 0; n--) {
    const canon = s.canonicalHash(n);
    assert.ok(canon !== null && equalBytes(canon, hash), `${what}: canonical #${n} is not the head's ancestor`);
    const header = s.header(hash);
    const body = s.body(hash);
    assert.ok(header !== null && body !== null, `${what}: block #${n} not stored`);
    assert.ok(chain.isExecuted(hash), `${what}: block #${n} has no receipts`);
    assert.equal(s.receipts(hash)?.length, body.transactions.length, `${what}: receipts of #${n}`);
    body.transactions.forEach((t, i) => {
      const at = s.txLocation(keccak256(t));
      assert.ok(at !== null && equalBytes(at.blockHash, hash) && at.index === i, `${what}: tx ${i} of #${n} unindexed`);
    });
    hash = header.parentHash;
  }
  const stateBlock = s.header(chain.stateBlockHash);
  assert.ok(stateBlock !== null, `${what}: the state block is not stored`);
  assert.equal(
    bytesToHex(computeStateRoot(kv).root),
    bytesToHex(stateBlock.stateRoot),
    `${what}: the flat state is not block #${stateBlock.number}'s`,
  );
  return chain;
}

/** A power-cut image and the head synced when it was taken (what must survive). */
interface Cut {
  readonly image: MemoryKv;
  readonly kept: number;
  readonly of: number;
  readonly synced: Uint8Array;
  /** The last forkchoice answered VALID before the cut (Engine API runs). */
  readonly acked?: { number: number; hash: string };
}

/**
 * Takes images at random writes of `kv`: with probability `p` per write, an image keeping a random
 * number of the unsynced batches (0 in a third of them: everything since the last sync is lost).
 */
function takeCuts(kv: PowerLossKv, prng: Prng, p: number, acked: () => Cut["acked"]): Cut[] {
  const cuts: Cut[] = [];
  kv.onWrite = (k) => {
    const synced = k.durableRow("meta", META_HEAD);
    if (synced === undefined || !prng.chance(p)) return;
    const of = k.unsyncedBatches;
    const kept = prng.chance(1 / 3) ? 0 : prng.int(0, of);
    const a = acked();
    cuts.push({ image: k.image(kept), kept, of, synced, ...(a === undefined ? {} : { acked: a }) });
  };
  return cuts;
}

/** Checks a cut: consistent, and the synced head (and the acked forkchoice) still canonical. */
function checkCut(c: Cut, i: number): void {
  const what = `cut ${i} (seed ${SEED}; ${c.kept} of ${c.of} unsynced batches kept)`;
  const chain = checkConsistent(c.image, what);
  const synced = chain.store.header(c.synced);
  assert.ok(synced !== null, `${what}: the synced head is gone`);
  assert.ok(chain.head.number >= synced.number, `${what}: head ${chain.head.number} below the synced ${synced.number}`);
  assert.ok(equalBytes(chain.store.canonicalHash(synced.number)!, c.synced), `${what}: the synced head left the chain`);
  if (c.acked !== undefined) {
    const at = chain.store.canonicalHash(c.acked.number);
    assert.equal(at === null ? null : bytesToHex(at), c.acked.hash, `${what}: VALID head #${c.acked.number} lost`);
  }
}

const QUIET = { print: () => undefined };
/** The node syncs its log off its thread, as on RocksDB (Blockchain.logSync). */
const LOG_SYNC = { logSync: true } as const;

describe("reliability: power loss (writes since the last sync point discarded)", function () {
  this.timeout(180_000);

  it("opal-exec dev sealing (timer's log sync off the thread): every cut reopens consistent with its synced head, and sealing goes on", async () => {
    const dir = tempDir("powerloss-dev");
    const prng = new Prng(SEED);
    const kv = new PowerLossKv();
    const cuts = takeCuts(kv, prng, 0.4, () => undefined);
    const argv = ["--dev", "--dev.period", "0", "--datadir", dir.path, "--http"];
    const node = await ExecNode.start(configOf(argv), {
      ...QUIET,
      openStore: async () => kv.opened("rocksdb", LOG_SYNC),
    });
    try {
      const url = `http://127.0.0.1:${node.endpoints.http!.port}/`;
      for (let i = 0; i < 12; i++) {
        const h = (await call(url, "eth_sendRawTransaction", [devTransfer(BigInt(i))])) as string;
        await waitFor(async () => (await call(url, "eth_getTransactionReceipt", [h])) !== null, 10_000, `receipt ${i}`);
      }
      // Sealing has stopped: the node's timer syncs the head within DURABLE_INTERVAL_MS.
      await waitFor(() => kv.unsyncedBatches === 0, 10_000, "the sealed head to be synced");
      kv.onWrite = null;
      assert.ok(cuts.length >= 3, `only ${cuts.length} cuts taken (seed ${SEED})`);
      assert.equal(checkConsistent(kv.image(0), "after the last sync").head.number, node.chain.head.number);
    } finally {
      await node.stop();
    }
    for (const [i, c] of cuts.entries()) checkCut(c, i);
    // A node on a cut that lost blocks seals on top of what it kept.
    const cut = cuts.find((c) => c.kept < c.of) ?? cuts[cuts.length - 1]!;
    const kv2 = new PowerLossKv(cut.image);
    const node2 = await ExecNode.start(configOf(argv), {
      ...QUIET,
      openStore: async () => kv2.opened("rocksdb", LOG_SYNC),
    });
    try {
      const url = `http://127.0.0.1:${node2.endpoints.http!.port}/`;
      const before = node2.chain.head.number;
      const nonce = BigInt(
        (await call(url, "eth_getTransactionCount", [bytesToHex(devAccounts(1)[0]!.address), "latest"])) as string,
      );
      const h = (await call(url, "eth_sendRawTransaction", [devTransfer(nonce)])) as string;
      await waitFor(async () => (await call(url, "eth_getTransactionReceipt", [h])) !== null, 10_000, "a receipt");
      assert.ok(node2.chain.head.number > before);
    } finally {
      await node2.stop();
      dir.remove();
    }
    checkConsistent(kv2.image(0), "after sealing on a cut");
  });

  // With --engine.fsync-forkchoice every answered head is durable; without (the default, as op-geth
  // and op-reth) the node's timer syncs heads within DURABLE_INTERVAL_MS and a cut may take the
  // newest ones, which the rollup node sends again.
  const modes = [
    { logSync: true, fsync: true },
    { logSync: false, fsync: true },
    { logSync: true, fsync: false },
  ];
  for (const { logSync, fsync } of modes) {
    const title = fsync
      ? `(--engine.fsync-forkchoice, log sync ${logSync ? "off the thread" : "inline"}): every forkchoice answered VALID survives`
      : "(heads synced by the timer): every cut keeps its synced head, and the timer syncs the last";
    it(`opal-exec under the Engine API ${title}; lost payloads re-sent are VALID`, async () => {
      const opened = (k: PowerLossKv) => k.opened("rocksdb", { logSync });
      const dir = tempDir("powerloss-engine");
      const prng = new Prng(SEED ^ 0x2545f491);
      const g = l2GenesisFile(dir.path);
      const kv = new PowerLossKv();
      const gj = JSON.parse(readFileSync(g.file, "utf8"));
      Blockchain.init(kv, parseGenesis(gj), gj.config);
      let driver: EngineDriver | null = null;
      // Without the flag an answered head need not survive a cut: only the synced one is checked.
      const cuts = takeCuts(kv, prng, 0.25, () => (fsync ? driver?.acked?.head : undefined));
      const argv = [
        "--datadir",
        dir.path,
        "--http",
        "--maxpeers",
        "0",
        ...(fsync ? ["--engine.fsync-forkchoice"] : []),
      ];
      const node = await ExecNode.start(configOf(argv), { ...QUIET, openStore: async () => opened(kv) });
      // Every canonical block's payload, by number - 1.
      const blocks: { payload: ReturnType<typeof blockToPayload>; beaconRoot: string }[] = [];
      try {
        const http = `http://127.0.0.1:${node.endpoints.http!.port}`;
        const auth = `http://127.0.0.1:${node.endpoints.auth.port}`;
        driver = new EngineDriver(auth, http, node.jwtSecret, g.chainId, prng);
        await driver.run(2, () => false, 16, 0);
        if (!fsync) await waitFor(() => kv.unsyncedBatches === 0, 10_000, "the timer to sync the last head");
        kv.onWrite = null;
        assert.equal(checkConsistent(kv.image(0), "after the last sync").head.number, node.chain.head.number);
        for (let n = 1; n <= node.chain.head.number; n++) {
          const hash = node.chain.store.canonicalHash(n)!;
          const header = node.chain.store.header(hash)!;
          blocks.push({
            payload: blockToPayload(header, node.chain.store.body(hash)!, hash, 4, true),
            beaconRoot: bytesToHex(header.parentBeaconBlockRoot!),
          });
        }
        assert.ok(cuts.length >= 3, `only ${cuts.length} cuts taken (seed ${SEED})`);
        if (fsync) assert.ok(cuts.some((c) => c.acked !== undefined));
      } finally {
        await node.stop();
      }
      const final = blocks.length;
      for (const [i, c] of cuts.entries()) checkCut(c, i);
      // As op-node does after a restart: the payloads past the EL's head are sent again, then forkchoice.
      for (const cut of [cuts[0]!, cuts[cuts.length - 1]!]) {
        const kv2 = new PowerLossKv(cut.image);
        const node2 = await ExecNode.start(configOf(argv), { ...QUIET, openStore: async () => opened(kv2) });
        try {
          for (let n = node2.chain.head.number + 1; n <= final; n++) {
            const b = blocks[n - 1]!;
            const st = await node2.engine.newPayload(4, b.payload, [], b.beaconRoot, []);
            assert.equal(st.status, "VALID", `re-sent payload #${n}: ${JSON.stringify(st)}`);
          }
          const head = blocks[final - 1]!.payload.blockHash as string;
          // As engine_forkchoiceUpdated runs it: answered once the forkchoice is durable.
          const r = await node2.chain.exclusiveDurable(() =>
            node2.engine.forkchoiceUpdated(
              3,
              { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: `0x${"00".repeat(32)}` },
              null,
            ),
          );
          assert.equal(r.payloadStatus.status, "VALID");
          assert.equal(node2.chain.head.number, final);
          if (fsync) {
            // The VALID answer was synced: a power cut right after it keeps it.
            assert.equal(checkConsistent(kv2.image(0), "after the re-sent forkchoice").head.number, final);
          } else {
            // Answered before the disk (the head move is still unsynced), then synced by the timer.
            assert.ok(kv2.unsyncedBatches > 0, "the forkchoice waited for the disk");
            await waitFor(() => kv2.unsyncedBatches === 0, 10_000, "the timer to sync the re-sent head");
            assert.equal(checkConsistent(kv2.image(0), "after the timer's sync").head.number, final);
          }
        } finally {
          await node2.stop();
        }
      }
      dir.remove();
    });
  }

  it("opal-node's safe-head DB: a cut after any write keeps every entry written before it", () => {
    const prng = new Prng(SEED ^ 0x68e31da4);
    const kv = new PowerLossKv();
    const db = new SafeDb(kv);
    const model = new Map<number, BlockId>();
    const cuts: { image: MemoryKv; kept: number; model: Map<number, BlockId> }[] = [];
    kv.onWrite = (k) => {
      const kept = prng.int(0, k.unsyncedBatches);
      cuts.push({ image: k.image(kept), kept, model: new Map(model) });
    };
    const id = (n: number): BlockId => ({ number: n, hash: keccak256(new Uint8Array([n & 255, n >> 8, 7])) });
    let safe = 0;
    for (let l1 = 1; l1 <= 60; l1++) {
      if (prng.chance(0.15) && safe > 3) {
        // A reset back to an earlier safe head: the model follows op-node's SafeHeadReset.
        const to = safe - prng.int(1, 3);
        const l1origin = [...model].find(([, s]) => s.number >= to)?.[0] ?? l1;
        const drop = [...model].filter(([k, s]) => k >= l1origin && s.number >= to).map(([k]) => k);
        const earlier = [...model.keys()].some((k) => k < (drop[0] ?? Number.POSITIVE_INFINITY));
        const ref = {
          ...id(to),
          parentHash: id(to - 1).hash,
          timestamp: to,
          l1origin: id(l1origin),
          sequenceNumber: 0,
        };
        for (const k of drop) model.delete(k);
        if (drop.length > 0 && earlier) model.set(drop[0]!, id(to));
        db.safeHeadReset(ref);
        safe = to;
        continue;
      }
      safe += prng.int(1, 3);
      model.set(l1, id(safe));
      db.safeHeadUpdated(id(safe), id(l1));
    }
    kv.onWrite = null;
    assert.ok(cuts.length > 40);
    for (const [i, c] of cuts.entries()) {
      const reopened = new SafeDb(c.image);
      for (let l1 = 0; l1 <= 61; l1++) {
        const want = [...c.model].filter(([k]) => k <= l1).sort((a, b) => b[0] - a[0])[0];
        const got = reopened.safeHeadAtL1(l1);
        assert.equal(
          got === null ? null : `${got.l1Block.number}:${got.safeHead.number}`,
          want === undefined ? null : `${want[0]}:${want[1].number}`,
          `cut ${i} (seed ${SEED}), L1 ${l1}`,
        );
      }
    }
  });
});
