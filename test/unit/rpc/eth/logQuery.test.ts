/**
 * What a log query reads (issue 26, the soak's whole-chain eth_getLogs): a block's header, and when
 * its bloom may match the criteria its receipts and the hashes of the txs with logs — no tx decoded,
 * no sender recovered (the soak's profile of the verifier's node: 61% of its time in ecdsaRecover
 * under `ChainReader.block` for the query), and nothing put in the decoded-block cache the other
 * reads use; the logs read are kept in a cache bounded in bytes, so the next query reads no
 * receipts. The logs answered are those the full decode gives.
 */
import { strict as assert } from "node:assert";
import type { ChainView } from "../../../../src/chain/blockchain.js";
import { ChainStore } from "../../../../src/chain/chainStore.js";
import { concatBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { ChainReader } from "../../../../src/rpc/eth/chainReader.js";
import { DEFAULT_LOG_QUERY_LIMITS, type FilterCriteria, getLogs } from "../../../../src/rpc/eth/filters.js";
import type { KvReader } from "../../../../src/storage/kv.js";
import type { TableName } from "../../../../src/storage/tables.js";
import { L1Miner, PORTAL, SYSTEM_CONFIG } from "../../../utils/actions/l1Miner.js";

const topic = (i: number) => {
  const t = new Uint8Array(32);
  t[31] = i;
  t[0] = 0xaa;
  return t;
};
const OTHER = new Uint8Array(20).fill(0x33);

/** Reads of each table through `kv`. */
function counting(kv: KvReader): { kv: KvReader; reads: Map<TableName, number> } {
  const reads = new Map<TableName, number>();
  const count = (t: TableName, n: number) => reads.set(t, (reads.get(t) ?? 0) + n);
  return {
    reads,
    kv: {
      get: (t, k) => {
        count(t, 1);
        return kv.get(t, k);
      },
      getMany: (t, ks) => {
        count(t, ks.length);
        return kv.getMany(t, ks);
      },
      iterate: (t, r) => kv.iterate(t, r),
      cursor: (t, o) => kv.cursor(t, o),
    },
  };
}

function criteria(c: Partial<FilterCriteria>): FilterCriteria {
  return { blockHash: null, fromBlock: null, toBlock: null, addresses: [], topics: [], ...c };
}
const WHOLE = { fromBlock: { kind: "tag", tag: "earliest" }, toBlock: { kind: "tag", tag: "latest" } } as const;

async function logs(reader: ChainReader, crit: FilterCriteria): Promise<unknown[]> {
  return JSON.parse(String(await getLogs(reader, crit, DEFAULT_LOG_QUERY_LIMITS)));
}

/** The matching logs of blocks 0..head as the full decode (`ChainReader.block`) gives them. */
function decodedLogs(chain: ChainView, crit: FilterCriteria): unknown[] {
  const reader = new ChainReader(chain);
  const out: unknown[] = [];
  for (let n = 0; n <= chain.head.number; n++) {
    const b = reader.block(chain.store.canonicalHash(n)!)!;
    out.push(...reader.blockLogs(b, crit.addresses, crit.topics));
  }
  return out;
}

describe("rpc/eth log queries read no more than they need", function () {
  this.timeout(30_000);
  let miner: L1Miner;
  let chain: ChainView;

  before(async () => {
    miner = new L1Miner();
    const [a, b] = miner.accounts;
    const log4 = (i: number) => concatBytes(topic(i), topic(i + 1), topic(i + 2), topic(i + 3), Uint8Array.of(i));
    const log3 = (i: number) => concatBytes(topic(i), topic(i + 1), topic(i + 2), Uint8Array.of(i));
    // 1: a transfer, then a PORTAL log (tx index 1); 2: transfers only (an empty bloom);
    // 3: a SYSTEM_CONFIG log; 4: two PORTAL logs around a transfer.
    await miner.mine([miner.tx(a!, OTHER, new Uint8Array(0)), miner.tx(b!, PORTAL, log4(1))]);
    await miner.mine([miner.tx(a!, OTHER, new Uint8Array(0)), miner.tx(b!, OTHER, new Uint8Array(0))]);
    await miner.mine([miner.tx(a!, SYSTEM_CONFIG, log3(20))]);
    await miner.mine([
      miner.tx(a!, PORTAL, log4(40)),
      miner.tx(b!, OTHER, new Uint8Array(0)),
      miner.tx(b!, PORTAL, log4(50)),
    ]);
    chain = miner.exec.chain;
    assert.equal(chain.head.number, 4);
  });

  /** A reader over `chain` whose store counts its reads. */
  function countingReader(
    logBytes?: number,
    logBlockBytes?: number,
  ): { reader: ChainReader; reads: Map<TableName, number> } {
    const { kv, reads } = counting(chain.store.kv);
    const view: ChainView = {
      store: new ChainStore(kv),
      config: chain.config,
      head: chain.head,
      headBlockHash: chain.headBlockHash,
      stateBlockHash: chain.stateBlockHash,
    };
    const limits = logBytes === undefined || logBlockBytes === undefined ? {} : { logBytes, logBlockBytes };
    return { reader: new ChainReader(view, limits), reads };
  }

  it("every log of the chain: the full decode's logs, tx hashes included, and the decoded-block cache left alone", async () => {
    const { reader, reads } = countingReader();
    const crit = criteria(WHOLE);
    const got = await logs(reader, crit);
    assert.equal(got.length, 4);
    assert.deepEqual(got, decodedLogs(chain, crit));
    assert.deepEqual(
      got.map((l) => (l as { transactionIndex: string }).transactionIndex),
      ["0x1", "0x0", "0x0", "0x2"],
    );
    // Nothing decoded into the decoded-block cache; only blocks with logs had their receipts and
    // bodies read, once: the reply is measured, then built from the log cache.
    assert.deepEqual(reader.cacheStats(), { blocks: 0, txs: 0, logs: 0 });
    assert.equal(reads.get("receipts"), 3);
    assert.equal(reads.get("bodies"), 3);
    assert.equal(reader.logCacheStats().blocks, 3);
    // The next query reads no receipts or bodies and answers the same.
    assert.deepEqual(await logs(reader, crit), got);
    assert.equal(reads.get("receipts"), 3);
    assert.equal(reads.get("bodies"), 3);
    // With an address the cached blocks are bloom-checked too.
    assert.deepEqual(
      await logs(reader, criteria({ ...WHOLE, addresses: [SYSTEM_CONFIG] })),
      decodedLogs(chain, criteria({ ...WHOLE, addresses: [SYSTEM_CONFIG] })),
    );
    assert.equal(reads.get("receipts"), 3);
  });

  it("the log cache is held to its bytes, least recently used out first; a block over its most is not kept", async () => {
    const { reader: probe } = countingReader();
    await logs(probe, criteria(WHOLE));
    const total = probe.logCacheStats().bytes;
    // Room for two of the three blocks with logs: each read pushes out the least recently used.
    const { reader, reads } = countingReader(total - 1, total);
    await logs(reader, criteria(WHOLE));
    const held = reader.logCacheStats();
    assert.equal(held.blocks, 2);
    assert.ok(held.bytes <= total - 1);
    // A scan over more than the cache holds: the build reads each block again.
    assert.equal(reads.get("receipts"), 6);
    // A block over the most one may take is not kept; the answer is the same.
    const tiny = countingReader(total, 100);
    assert.deepEqual(await logs(tiny.reader, criteria(WHOLE)), decodedLogs(chain, criteria(WHOLE)));
    assert.deepEqual(tiny.reader.logCacheStats(), { blocks: 0, bytes: 0 });
    assert.equal(tiny.reads.get("receipts"), 6);
  });

  it("a block is read past its header only when its bloom may hold the address or topics asked for", async () => {
    for (const [crit, blocks] of [
      [criteria({ ...WHOLE, addresses: [PORTAL] }), [1, 4]],
      [criteria({ ...WHOLE, addresses: [SYSTEM_CONFIG] }), [3]],
      [criteria({ ...WHOLE, topics: [null, [topic(51), topic(21)]] }), [3, 4]],
      [criteria({ ...WHOLE, addresses: [PORTAL], topics: [[topic(20)]] }), []],
      [criteria({ ...WHOLE, addresses: [OTHER] }), []],
    ] as const) {
      const { reader, reads } = countingReader();
      const got = await logs(reader, crit);
      assert.deepEqual(got, decodedLogs(chain, crit));
      const matched = new Set(got.map((l) => Number((l as { blockNumber: string }).blockNumber)));
      assert.deepEqual(
        [...matched].sort((x, y) => x - y),
        blocks,
      );
      // Blocks ruled out by their bloom: neither receipts nor body read; the others once.
      const label = `${crit.addresses.map((a) => bytesToHex(a)).join(",")} ${crit.topics.length}`;
      assert.equal(reads.get("receipts") ?? 0, blocks.length, label);
      assert.equal(reads.get("bodies") ?? 0, blocks.length, label);
    }
  });
});
