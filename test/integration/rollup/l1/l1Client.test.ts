/**
 * The L1 client against a local JSON-RPC server serving a small consistent chain built here (real
 * header hashes, signed txs, real receipts and roots, a state trie for proofs): the receipts method
 * of each `--l1.rpckind`, op-node's fallback when a method is missing, batch sizes, the rate limit
 * counting batch items, the concurrency cap, cache hits, receipts / header / proof verification
 * (rejected when untrusted, accepted when trusted), and the head poller over HTTP and WebSocket.
 */
import { strict as assert } from "node:assert";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import { type Header, headerHash } from "../../../../src/block/header.js";
import { encodeReceipt, type Receipt } from "../../../../src/block/receipt.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { sha256 } from "../../../../src/crypto/sha256.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import type { JsonValue } from "../../../../src/primitives/json.js";
import { encodeRlp, uintToRlpBytes } from "../../../../src/rlp/encode.js";
import {
  availableReceiptsMethods,
  L1Client,
  type L1ClientOptions,
  L1NotFoundError,
  RPC_PROVIDER_KINDS,
  type RpcProviderKind,
} from "../../../../src/rollup/l1/l1Client.js";
import { L1HeadPoller } from "../../../../src/rollup/l1/l1HeadPoller.js";
import type { L1BlockRef } from "../../../../src/rollup/refs.js";
import { L1VerifyError, receiptsRoot } from "../../../../src/rollup/transport/ethJson.js";
import { RpcCallError } from "../../../../src/rollup/transport/rpcClient.js";
import { blockJson, headerJson, qty, receiptJson, txJson } from "../../../../src/rpc/format.js";
import { encodeAccount } from "../../../../src/trie/account.js";
import { MemoryTrie } from "../../../../src/trie/memoryTrie.js";
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from "../../../../src/trie/orderedRoot.js";
import { encodeTx, txHash } from "../../../../src/tx/envelope.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type Tx, TxType } from "../../../../src/tx/tx.js";
import { testHeader } from "../../../utils/blocks.js";

const KEY = hexToBytes("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318");
const FROM = hexToBytes("0x2c7536e3605d9c16a7a3d7b1898e529396a65c23");
const TO = hexToBytes("0x00000000000000000000000000000000000000bb");
const LOG_ADDR = hexToBytes("0x00000000000000000000000000000000000000aa");

interface ChainBlock {
  header: Header;
  hash: Uint8Array;
  txs: Tx[];
  receipts: Receipt[];
}

/** The state every block commits to: one account with one storage slot. */
const SLOT = new Uint8Array(32).fill(1);
const storage = new MemoryTrie({ secure: true });
storage.put(SLOT, encodeRlp(uintToRlpBytes(0x2an)));
const state = new MemoryTrie({ secure: true });
state.put(LOG_ADDR, encodeAccount(3n, 1000n, storage.rootHash(), keccak256(Uint8Array.of(0x00))));

let nonce = 0n;
function makeBlock(parent: Uint8Array, number: number, txCount: number, badReceiptsRoot = false): ChainBlock {
  const txs: Tx[] = [];
  const receipts: Receipt[] = [];
  for (let i = 0; i < txCount; i++) {
    const tx =
      i % 2 === 0
        ? signTx(
            {
              type: TxType.FeeMarket,
              chainId: 1n,
              nonce: nonce++,
              maxPriorityFeePerGas: 1n,
              maxFeePerGas: 100n,
              gasLimit: 30_000n,
              to: TO,
              value: 1n,
              data: Uint8Array.of(i),
              accessList: [],
              yParity: 0,
              r: 0n,
              s: 0n,
            },
            KEY,
          )
        : signTx(
            {
              type: TxType.Legacy,
              nonce: nonce++,
              gasPrice: 50n,
              gasLimit: 30_000n,
              to: TO,
              value: 2n,
              data: new Uint8Array(0),
              v: 0n,
              r: 0n,
              s: 0n,
            },
            KEY,
            1n,
          );
    txs.push(tx);
    const logs =
      i % 3 === 0 ? [{ address: LOG_ADDR, topics: [new Uint8Array(32).fill(i)], data: Uint8Array.of(i) }] : [];
    receipts.push({
      type: tx.type,
      status: i % 5 === 4 ? 0 : 1,
      postState: null,
      cumulativeGasUsed: 21_000 * (i + 1),
      logsBloom: new Uint8Array(256).fill(i % 2),
      logs,
      depositNonce: null,
      depositReceiptVersion: null,
    });
  }
  const rRoot = receiptsRoot(receipts);
  if (badReceiptsRoot) rRoot[0] ^= 1;
  const header = testHeader({
    parentHash: parent,
    stateRoot: state.rootHash(),
    transactionsRoot: orderedTrieRoot(txs.map((t) => encodeTx(t))),
    receiptsRoot: rRoot,
    number,
    gasUsed: 21_000 * txCount,
    timestamp: 1000 + 12 * number,
    baseFeePerGas: 7n,
    withdrawalsRoot: EMPTY_TRIE_ROOT,
    blobGasUsed: 0,
    excessBlobGas: 0,
    parentBeaconBlockRoot: new Uint8Array(32).fill(number),
    requestsHash: sha256(new Uint8Array(0)),
  });
  return { header, hash: headerHash(header), txs, receipts };
}

const chain: ChainBlock[] = [];
{
  const counts = [0, 3, 40, 2, 1];
  let parent: Uint8Array = new Uint8Array(32);
  for (let n = 0; n < counts.length; n++) {
    const b = makeBlock(parent, n, counts[n]!);
    chain.push(b);
    parent = b.hash;
  }
}
/** A side block whose header commits to receipts other than the ones served. */
const BAD = makeBlock(chain[1]!.hash, 99, 3, true);

const byHash = new Map<string, ChainBlock>();
for (const b of [...chain, BAD]) byHash.set(bytesToHex(b.hash), b);
const txIndex = new Map<string, { b: ChainBlock; i: number }>();
for (const b of [...chain, BAD]) {
  for (let i = 0; i < b.txs.length; i++) txIndex.set(bytesToHex(txHash(b.txs[i]!)), { b, i });
}

function blockObj(b: ChainBlock, full: boolean): Record<string, JsonValue> {
  return blockJson({
    header: b.header,
    hash: b.hash,
    size: 1000,
    transactions: b.txs.map((tx, i) =>
      full
        ? txJson(
            tx,
            { hash: txHash(tx), from: FROM },
            {
              blockHash: b.hash,
              blockNumber: b.header.number,
              blockTimestamp: b.header.timestamp,
              index: i,
              baseFee: 7n,
            },
          )
        : bytesToHex(txHash(tx)),
    ),
    uncleHashes: [],
    withdrawals: [],
  });
}

function receiptObj(b: ChainBlock, i: number): Record<string, JsonValue> {
  let firstLogIndex = 0;
  for (let k = 0; k < i; k++) firstLogIndex += b.receipts[k]!.logs.length;
  return receiptJson(
    b.receipts[i]!,
    b.txs[i]!,
    { hash: txHash(b.txs[i]!), from: FROM },
    {
      blockHash: b.hash,
      blockNumber: b.header.number,
      blockTimestamp: b.header.timestamp,
      index: i,
      firstLogIndex,
      previousCumulativeGas: i === 0 ? 0 : b.receipts[i - 1]!.cumulativeGasUsed,
      baseFee: 7n,
      blobBaseFee: null,
      l1: null,
    },
  );
}

interface Call {
  method: string;
  params: unknown[];
}

/** The mock L1: what it serves, what it records. */
class MockL1 {
  /** Every call, batches flattened. */
  calls: Call[] = [];
  /** One entry per HTTP request: its size (1 for a single call). */
  requests: number[] = [];
  unsupported = new Set<string>();
  head = 4;
  safe = 2;
  finalized = 1;
  /** Serve `latest` with a header whose hash does not match. */
  tamperLatest = false;
  delayMs = 0;
  inFlight = 0;
  maxInFlight = 0;
  server!: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let data = "";
      req.on("data", (c) => (data += c));
      req.on("end", async () => {
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
        const body = JSON.parse(data) as Call & { id: number };
        const one = (c: Call & { id: number }): unknown => {
          this.calls.push({ method: c.method, params: c.params });
          try {
            return { jsonrpc: "2.0", id: c.id, result: this.answer(c.method, c.params) };
          } catch (e) {
            const err = e as { code?: number; message: string };
            return { jsonrpc: "2.0", id: c.id, error: { code: err.code ?? -32000, message: err.message } };
          }
        };
        let out: unknown;
        if (Array.isArray(body)) {
          this.requests.push(body.length);
          out = body.map(one);
        } else {
          this.requests.push(1);
          out = one(body);
        }
        this.inFlight--;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(out));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(() => r(undefined)));
  }

  reset(): void {
    this.calls = [];
    this.requests = [];
    this.maxInFlight = 0;
  }

  methods(): string[] {
    return this.calls.map((c) => c.method);
  }

  private answer(method: string, params: unknown[]): unknown {
    if (this.unsupported.has(method))
      throw { code: -32601, message: `the method ${method} does not exist/is not available` };
    const block = (h: unknown): ChainBlock | undefined => byHash.get(String(h));
    switch (method) {
      case "eth_getBlockByNumber": {
        const tag = String(params[0]);
        const n =
          tag === "latest"
            ? this.head
            : tag === "safe"
              ? this.safe
              : tag === "finalized"
                ? this.finalized
                : Number(tag);
        const b = chain[n];
        if (b === undefined) return null;
        const o = blockObj(b, params[1] === true);
        if (tag === "latest" && this.tamperLatest) o.gasUsed = qty(b.header.gasUsed + 1);
        return o;
      }
      case "eth_getBlockByHash": {
        const b = block(params[0]);
        return b === undefined ? null : blockObj(b, params[1] === true);
      }
      case "eth_getTransactionReceipt": {
        const t = txIndex.get(String(params[0]));
        return t === undefined ? null : receiptObj(t.b, t.i);
      }
      case "eth_getBlockReceipts":
      case "parity_getBlockReceipts":
      case "erigon_getBlockReceiptsByBlockHash": {
        const b = block(params[0]);
        return b === undefined ? null : b.receipts.map((_, i) => receiptObj(b, i));
      }
      case "alchemy_getTransactionReceipts": {
        const b = block((params[0] as { blockHash: string }).blockHash);
        return b === undefined ? null : { receipts: b.receipts.map((_, i) => receiptObj(b, i)) };
      }
      case "debug_getRawReceipts": {
        const b = block(params[0]);
        return b === undefined ? null : b.receipts.map((r) => bytesToHex(encodeReceipt(r)));
      }
      case "eth_getProof": {
        const slots = params[1] as string[];
        return {
          address: bytesToHex(LOG_ADDR),
          nonce: "0x3",
          balance: "0x3e8",
          storageHash: bytesToHex(storage.rootHash()),
          codeHash: bytesToHex(keccak256(Uint8Array.of(0x00))),
          accountProof: state.proof(LOG_ADDR).map(bytesToHex),
          storageProof: slots.map((s) => ({
            key: s,
            value: s === bytesToHex(SLOT) ? "0x2a" : "0x0",
            proof: storage.proof(hexToBytes(s)).map(bytesToHex),
          })),
        };
      }
      default:
        throw { code: -32601, message: `the method ${method} does not exist/is not available` };
    }
  }
}

describe("rollup/l1Client", () => {
  const mock = new MockL1();
  before(() => mock.start());
  after(() => mock.stop());
  beforeEach(() => {
    mock.reset();
    mock.unsupported.clear();
    mock.tamperLatest = false;
    mock.delayMs = 0;
  });

  const client = (o: Partial<L1ClientOptions> = {}): L1Client => new L1Client({ url: mock.url, ...o });

  it("refs by label, number and hash; the header hash is checked; a missing block is L1NotFoundError", async () => {
    const c = client();
    const head = await c.l1BlockRefByLabel("latest");
    assert.deepEqual(
      [bytesToHex(head.hash), head.number, bytesToHex(head.parentHash), head.timestamp],
      [bytesToHex(chain[4]!.hash), 4, bytesToHex(chain[3]!.hash), 1048],
    );
    assert.equal((await c.l1BlockRefByLabel("safe")).number, 2);
    assert.equal((await c.l1BlockRefByLabel("finalized")).number, 1);
    assert.equal(bytesToHex((await c.l1BlockRefByNumber(3)).hash), bytesToHex(chain[3]!.hash));
    assert.equal((await c.l1BlockRefByHash(chain[2]!.hash)).number, 2);
    await assert.rejects(c.l1BlockRefByNumber(50), L1NotFoundError);
    await assert.rejects(c.l1BlockRefByHash(new Uint8Array(32).fill(5)), L1NotFoundError);
    mock.tamperLatest = true;
    await assert.rejects(
      c.l1BlockRefByLabel("latest"),
      (e: unknown) => e instanceof L1VerifyError && e.field === "hash",
    );
    const trusted = client({ trustRpc: true });
    assert.equal((await trusted.l1BlockRefByLabel("latest")).number, 4);
  });

  it("infoAndTxsByHash rebuilds and verifies the txs", async () => {
    const { info, txs } = await client().infoAndTxsByHash(chain[2]!.hash);
    assert.equal(info.header.number, 2);
    assert.deepEqual(
      txs.map((t) => bytesToHex(txHash(t))),
      chain[2]!.txs.map((t) => bytesToHex(txHash(t))),
    );
    assert.deepEqual(mock.methods(), ["eth_getBlockByHash"]);
    assert.equal(mock.calls[0]!.params[1], true);
  });

  it("each rpc kind fetches receipts with op-node's method", async () => {
    const want: Record<RpcProviderKind, [string, string]> = {
      // [method for 40 txs, method for 3 txs]
      alchemy: ["alchemy_getTransactionReceipts", "eth_getTransactionReceipt"],
      quicknode: ["debug_getRawReceipts", "debug_getRawReceipts"],
      infura: ["eth_getTransactionReceipt", "eth_getTransactionReceipt"],
      parity: ["parity_getBlockReceipts", "parity_getBlockReceipts"],
      nethermind: ["parity_getBlockReceipts", "parity_getBlockReceipts"],
      debug_geth: ["debug_getRawReceipts", "debug_getRawReceipts"],
      erigon: ["erigon_getBlockReceiptsByBlockHash", "erigon_getBlockReceiptsByBlockHash"],
      basic: ["eth_getTransactionReceipt", "eth_getTransactionReceipt"],
      any: ["alchemy_getTransactionReceipts", "alchemy_getTransactionReceipts"],
      standard: ["eth_getBlockReceipts", "eth_getBlockReceipts"],
    };
    assert.equal(RPC_PROVIDER_KINDS.length, 10);
    for (const kind of RPC_PROVIDER_KINDS) {
      for (const [block, expected] of [
        [chain[2]!, want[kind][0]],
        [chain[1]!, want[kind][1]],
      ] as const) {
        const c = client({ rpcKind: kind });
        mock.reset();
        const { info, receipts } = await c.fetchReceipts(block.hash);
        assert.equal(bytesToHex(info.hash), bytesToHex(block.hash));
        assert.deepEqual(
          receipts.map((r) => bytesToHex(encodeReceipt(r))),
          block.receipts.map((r) => bytesToHex(encodeReceipt(r))),
          kind,
        );
        const used = [...new Set(mock.methods().filter((m) => m !== "eth_getBlockByHash"))];
        assert.deepEqual(used, [expected], `${kind} with ${block.txs.length} txs`);
      }
    }
  });

  it("drops a method the server lacks and falls back on the next fetch, like op-node; resets after a while", async () => {
    let now = 0;
    const c = client({ rpcKind: "any", now: () => now, cacheSize: 0 });
    mock.unsupported = new Set([
      "alchemy_getTransactionReceipts",
      "debug_getRawReceipts",
      "erigon_getBlockReceiptsByBlockHash",
      "eth_getBlockReceipts",
      "parity_getBlockReceipts",
    ]);
    const tried: string[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      mock.reset();
      try {
        await c.fetchReceipts(chain[1]!.hash);
        tried.push("ok");
        break;
      } catch (e) {
        assert.ok(e instanceof RpcCallError && e.code === -32601);
        tried.push(mock.methods().find((m) => m !== "eth_getBlockByHash")!);
      }
    }
    assert.deepEqual(tried, [
      "alchemy_getTransactionReceipts",
      "debug_getRawReceipts",
      "erigon_getBlockReceiptsByBlockHash",
      "eth_getBlockReceipts",
      "parity_getBlockReceipts",
      "ok",
    ]);
    assert.equal(c.availableReceiptsMethods, 1);
    now = 61_000;
    mock.unsupported.clear();
    mock.reset();
    await c.fetchReceipts(chain[1]!.hash);
    assert.equal(c.availableReceiptsMethods, availableReceiptsMethods("any"));
    assert.ok(mock.methods().includes("alchemy_getTransactionReceipts"));
    // A standard node without eth_getBlockReceipts: the same fallback.
    const s = client({ rpcKind: "standard" });
    mock.unsupported.add("eth_getBlockReceipts");
    await assert.rejects(s.fetchReceipts(chain[3]!.hash), RpcCallError);
    await s.fetchReceipts(chain[3]!.hash);
  });

  it("a block without txs has no receipts (and no receipt requests for per-tx fetching)", async () => {
    assert.deepEqual((await client({ rpcKind: "basic" }).fetchReceipts(chain[0]!.hash)).receipts, []);
    assert.deepEqual(mock.methods(), ["eth_getBlockByHash"]);
    assert.deepEqual((await client({ rpcKind: "standard" }).fetchReceipts(chain[0]!.hash)).receipts, []);
    assert.throws(() => client({ rpcKind: "bogus" as RpcProviderKind }), RangeError);
  });

  it("per-tx receipts go in batches of maxBatchSize; maxBatchSize 1 sends single calls", async () => {
    await client({ rpcKind: "basic", maxBatchSize: 7 }).fetchReceipts(chain[2]!.hash);
    // The block (1), then 40 receipts as 7+7+7+7+7+5.
    assert.deepEqual(mock.requests, [1, 7, 7, 7, 7, 7, 5]);
    mock.reset();
    await client({ rpcKind: "basic", maxBatchSize: 1 }).fetchReceipts(chain[1]!.hash);
    assert.deepEqual(mock.requests, [1, 1, 1, 1]);
  });

  it("at most maxConcurrency requests in flight", async () => {
    mock.delayMs = 20;
    await client({ rpcKind: "basic", maxBatchSize: 5, maxConcurrency: 2 }).fetchReceipts(chain[2]!.hash);
    assert.equal(mock.maxInFlight, 2);
    assert.deepEqual(mock.requests, [1, 5, 5, 5, 5, 5, 5, 5, 5]);
  });

  it("the rate limit counts every item of a batch", async () => {
    // 20 req/s, burst 10 (= batch size): the block (1) and 40 receipts (4 batches of 10) need 41
    // tokens, 31 beyond the burst: about 1.55 s. Were a batch one token, it would take no time.
    const start = performance.now();
    await client({ rpcKind: "basic", maxBatchSize: 10, rateLimit: 20 }).fetchReceipts(chain[2]!.hash);
    const took = performance.now() - start;
    assert.deepEqual(mock.requests, [1, 10, 10, 10, 10]);
    assert.ok(took >= 1400, `took ${took} ms`);
  });

  it("cache hits avoid calls; labels are never cached", async () => {
    const c = client({ rpcKind: "standard" });
    await c.fetchReceipts(chain[2]!.hash);
    const n = mock.calls.length;
    await c.fetchReceipts(chain[2]!.hash);
    await c.infoAndTxsByHash(chain[2]!.hash);
    await c.l1BlockRefByHash(chain[2]!.hash);
    await c.infoByHash(chain[2]!.hash);
    assert.equal(mock.calls.length, n);
    await c.l1BlockRefByNumber(3);
    await c.l1BlockRefByHash(chain[3]!.hash);
    assert.equal(mock.calls.length, n + 1);
    await c.l1BlockRefByLabel("latest");
    await c.l1BlockRefByLabel("latest");
    assert.equal(mock.calls.length, n + 3);
    // Concurrent fetches of one block share one request.
    const d = client({ rpcKind: "standard" });
    mock.reset();
    await Promise.all([d.fetchReceipts(chain[3]!.hash), d.fetchReceipts(chain[3]!.hash)]);
    assert.deepEqual(mock.methods(), ["eth_getBlockByHash", "eth_getBlockReceipts"]);
    // A cache of 1 entry evicts the older block.
    const e = client({ cacheSize: 1 });
    await e.l1BlockRefByHash(chain[1]!.hash);
    await e.l1BlockRefByHash(chain[2]!.hash);
    mock.reset();
    await e.l1BlockRefByHash(chain[1]!.hash);
    assert.equal(mock.calls.length, 1);
  });

  it("receipts that do not match the receipts root: rejected when untrusted, accepted when trusted", async () => {
    for (const kind of ["basic", "standard", "debug_geth", "alchemy"] as const) {
      await assert.rejects(
        client({ rpcKind: kind }).fetchReceipts(BAD.hash),
        (e: unknown) => e instanceof L1VerifyError && e.field === "receiptsRoot",
        kind,
      );
      const { receipts } = await client({ rpcKind: kind, trustRpc: true }).fetchReceipts(BAD.hash);
      assert.equal(receipts.length, 3);
    }
    // Not cached after the rejection.
    const c = client();
    await assert.rejects(c.fetchReceipts(BAD.hash), L1VerifyError);
    mock.reset();
    await assert.rejects(c.fetchReceipts(BAD.hash), L1VerifyError);
    assert.deepEqual(mock.methods(), ["eth_getBlockReceipts"]);
  });

  it("getProof verifies against the block's state root unless trusted", async () => {
    const c = client();
    const other = new Uint8Array(32).fill(2);
    const p = await c.getProof(LOG_ADDR, [SLOT, other], chain[3]!.hash);
    assert.deepEqual(
      p.storageProof.map((e) => e.value),
      [0x2an, 0n],
    );
    assert.equal(p.nonce, 3n);
    // A block with another state root: the same proof fails.
    const wrong = makeBlock(chain[0]!.hash, 7, 0);
    wrong.header.stateRoot = new Uint8Array(32).fill(3);
    wrong.hash = headerHash(wrong.header);
    byHash.set(bytesToHex(wrong.hash), wrong);
    await assert.rejects(c.getProof(LOG_ADDR, [SLOT], wrong.hash), L1VerifyError);
    mock.reset();
    await client({ trustRpc: true }).getProof(LOG_ADDR, [SLOT], wrong.hash);
    assert.deepEqual(mock.methods(), ["eth_getProof"]);
  });

  it("head poller over HTTP: polls latest, safe and finalized, calls back only on change", async () => {
    const heads: number[] = [];
    const safes: number[] = [];
    const finals: number[] = [];
    const c = client();
    const poller = new L1HeadPoller({
      source: c,
      httpPollIntervalMs: 20,
      epochPollIntervalMs: 30,
      onHead: (r) => heads.push(r.number),
      onSafe: (r) => safes.push(r.number),
      onFinalized: (r) => finals.push(r.number),
    });
    mock.head = 2;
    poller.start();
    await sleep(100);
    mock.head = 3;
    mock.safe = 3;
    await sleep(100);
    mock.head = 4;
    mock.finalized = 2;
    await sleep(100);
    poller.stop();
    // Requests already on the wire when it stopped may still land; after that, none.
    await sleep(40);
    const after = mock.calls.length;
    await sleep(100);
    assert.equal(mock.calls.length, after, "stopped");
    assert.deepEqual(heads, [2, 3, 4]);
    assert.deepEqual(safes, [2, 3]);
    assert.deepEqual(finals, [1, 2]);
    mock.head = 4;
    mock.safe = 2;
    mock.finalized = 1;
  });

  it("head poller over WebSocket: newHeads, then polling when the socket goes away", async () => {
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((r) => wss.once("listening", r));
    const wsUrl = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
    const sockets: WebSocket[] = [];
    wss.on("connection", (s) => {
      sockets.push(s);
      s.on("message", (m) => {
        const req = JSON.parse(String(m)) as { id: number; method: string };
        assert.equal(req.method, "eth_subscribe");
        s.send(JSON.stringify({ jsonrpc: "2.0", id: req.id, result: "0xabc" }));
        for (const n of [1, 1, 2]) {
          const b = chain[n]!;
          const header = headerJson(b.header, b.hash, 500);
          s.send(
            JSON.stringify({
              jsonrpc: "2.0",
              method: "eth_subscription",
              params: { subscription: "0xabc", result: header },
            }),
          );
        }
        // A header whose hash does not verify is reported, not emitted.
        const bad = headerJson(chain[3]!.header, chain[4]!.hash, 500);
        s.send(
          JSON.stringify({
            jsonrpc: "2.0",
            method: "eth_subscription",
            params: { subscription: "0xabc", result: bad },
          }),
        );
      });
    });
    const heads: L1BlockRef[] = [];
    const errors: string[] = [];
    const c = client();
    const poller = new L1HeadPoller({
      source: c,
      wsUrl,
      httpPollIntervalMs: 20,
      epochPollIntervalMs: 10_000,
      wsRetryMs: 10_000,
      onHead: (r) => heads.push(r),
      onError: (_e, what) => errors.push(what),
    });
    try {
      mock.reset();
      poller.start();
      await sleep(150);
      assert.ok(poller.subscribed);
      assert.deepEqual(
        heads.map((h) => h.number),
        [1, 2],
      );
      assert.ok(errors.includes("newHeads header"));
      assert.ok(!mock.methods().some((m, i) => m === "eth_getBlockByNumber" && mock.calls[i]!.params[0] === "latest"));
      for (const s of sockets) s.terminate();
      await sleep(150);
      assert.ok(!poller.subscribed);
      assert.equal(heads.at(-1)!.number, 4, "polled latest after the socket closed");
    } finally {
      poller.stop();
      await new Promise((r) => wss.close(r));
    }
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
