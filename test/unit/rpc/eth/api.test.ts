/**
 * The eth namespace beyond what the rpc-compat suite covers: polling filters (block, log, pending,
 * expiry), WebSocket subscriptions through the dispatcher with a push connection, removed logs on a
 * reorg, sendRawTransaction errors and forwarding, the pending nonce, fee history shapes and errors,
 * net/web3/txpool basics. Runs over the rpc-compat chain (fixtures).
 */
import { strict as assert } from "node:assert";
import { defaultSuiteDir } from "../../../../scripts/rpcCompat.js";
import { headerHash } from "../../../../src/block/header.js";
import type { Blockchain, HeadChange } from "../../../../src/chain/blockchain.js";
import { privateKeyToAddress } from "../../../../src/crypto/secp256k1.js";
import { unpackRevert } from "../../../../src/evm/tracers/format.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { ethApi } from "../../../../src/rpc/eth/api.js";
import { ChainReader } from "../../../../src/rpc/eth/chainReader.js";
import { crc32Update } from "../../../../src/rpc/eth/config.js";
import { FILTER_TIMEOUT_MS, FilterManager } from "../../../../src/rpc/eth/filters.js";
import { EventHub } from "../../../../src/rpc/events.js";
import { netApi } from "../../../../src/rpc/net.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { ConnectionSubscriptions } from "../../../../src/rpc/subscriptions.js";
import { txpoolApi } from "../../../../src/rpc/txpoolApi.js";
import { web3Api } from "../../../../src/rpc/web3.js";
import { TxPool } from "../../../../src/txpool/txPool.js";
import { requireFixture } from "../../../utils/fixtures.js";
import { buildSuiteChain } from "../../../utils/rpcCompatChain.js";

// eth_sendRawTransaction/send-dynamic-fee-transaction.io (nonce 1) and its siblings (nonces 2, 3).
const RAW_N1 =
  "0x02f892870c72dd9d5e883e018201f48401a2158b82ea60802ab73d602d80600a3d3981f3363d3d373d3d3d363d734d11c446473105a02b5c1ab9ebe9b03f33902a295af43d82803e903d91602b57fd5bf3c080a09e9f032e932e6536bc8de35b5939814d5fe2c1bcb76f06e399583c8c745ea95fa04fae7d7df659a70471ddfed6dba493a4f044a074a0bba6198bb6e2be0977b299";
const HASH_N1 = "0x549cfaca862ca59157260fbe13b7ecf5cc353eb22632d10efbe5cca743871ef3";

interface Env {
  chain: Blockchain;
  reader: ChainReader;
  events: EventHub;
  pool: TxPool;
  d: Dispatcher;
  forwarded: Uint8Array[];
}

const DEV_KEY = hexToBytes(`0x${"42".repeat(32)}`);
const DEV_ADDR = bytesToHex(privateKeyToAddress(DEV_KEY));

function makeEnv(chain: Blockchain, forward = false): Env {
  const reader = new ChainReader(chain);
  const events = new EventHub();
  const pool = new TxPool({}, { chain });
  pool.onPending((txs) => events.emitPending(txs));
  const forwarded: Uint8Array[] = [];
  const deps = {
    chain,
    reader,
    pool,
    gasCap: 50_000_000n,
    txFeeCap: 1,
    evmTimeoutMs: 5000,
    networkId: 7n,
    clientVersion: "Opal/test",
    devAccounts: [{ address: hexToBytes(DEV_ADDR), privateKey: DEV_KEY }],
    forwardRawTx: forward
      ? async (raw: Uint8Array) => {
          forwarded.push(raw);
          return new Uint8Array(32);
        }
      : null,
    events,
  };
  const reg = new Registry([...ethApi(deps), ...netApi(deps), ...web3Api(deps), ...txpoolApi({ pool })]);
  return { chain, reader, events, pool, d: reg.forApis(["eth", "net", "web3", "txpool"]), forwarded };
}

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

async function rpc(d: Dispatcher, method: string, params: unknown[] = [], conn = HTTP): Promise<any> {
  const text = await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), conn);
  return JSON.parse(text as string);
}

/** A head change that re-announces canonical blocks `from..to` (the filters only read them). */
function changeOf(chain: Blockchain, added: number[], removed: number[] = []): HeadChange {
  const hdr = (n: number) => chain.store.header(chain.store.canonicalHash(n)!)!;
  return {
    oldHead: chain.head,
    newHead: chain.head,
    added: added.map(hdr),
    removed: removed.map(hdr),
  };
}

describe("rpc/eth api", function () {
  this.timeout(120_000);
  let chain: Blockchain;
  before(() => {
    chain = buildSuiteChain(requireFixture(defaultSuiteDir()));
  });

  it("block filter collects added block hashes until polled; uninstall", async () => {
    const e = makeEnv(chain);
    const id = (await rpc(e.d, "eth_newBlockFilter")).result as string;
    assert.match(id, /^0x[0-9a-f]+$/);
    e.events.emitHeadChange(changeOf(chain, [3, 4]));
    const got = (await rpc(e.d, "eth_getFilterChanges", [id])).result;
    assert.deepEqual(got, [bytesToHex(chain.store.canonicalHash(3)!), bytesToHex(chain.store.canonicalHash(4)!)]);
    assert.deepEqual((await rpc(e.d, "eth_getFilterChanges", [id])).result, []);
    assert.equal((await rpc(e.d, "eth_uninstallFilter", [id])).result, true);
    assert.equal((await rpc(e.d, "eth_uninstallFilter", [id])).result, false);
    assert.deepEqual((await rpc(e.d, "eth_getFilterChanges", [id])).error, {
      code: -32000,
      message: "filter not found",
    });
  });

  it("log filter: new logs, then removed ones on a reorg; getFilterLogs runs the query", async () => {
    const e = makeEnv(chain);
    const addr = "0x7dcd17433742f4c0ca53122ab541d0ba67fc27df";
    const id = (await rpc(e.d, "eth_newFilter", [{ address: addr, fromBlock: "0x1", toBlock: "0x4" }])).result;
    e.events.emitHeadChange(changeOf(chain, [4]));
    const logs = (await rpc(e.d, "eth_getFilterChanges", [id])).result as any[];
    assert.ok(logs.length > 0);
    assert.ok(logs.every((l) => l.address === addr && l.removed === false && l.blockNumber === "0x4"));
    e.events.emitHeadChange(changeOf(chain, [], [4]));
    const removed = (await rpc(e.d, "eth_getFilterChanges", [id])).result as any[];
    assert.equal(removed.length, logs.length);
    assert.ok(removed.every((l) => l.removed === true));
    const all = (await rpc(e.d, "eth_getFilterLogs", [id])).result as any[];
    const direct = (await rpc(e.d, "eth_getLogs", [{ address: addr, fromBlock: "0x1", toBlock: "0x4" }])).result;
    assert.deepEqual(all, direct);
    assert.equal(
      (await rpc(e.d, "eth_newFilter", [{ fromBlock: "pending" }])).error.message,
      "pending logs are not supported",
    );
  });

  it("filters expire after 5 minutes without a poll", () => {
    let now = 1_000;
    const e = makeEnv(chain);
    const fm = new FilterManager(e.reader, e.events, () => now);
    const id = fm.newBlockFilter();
    now += FILTER_TIMEOUT_MS - 1;
    assert.deepEqual(fm.changes(id), []); // polling pushes the deadline
    now += FILTER_TIMEOUT_MS - 1;
    assert.equal(fm.expire(), 0);
    now += 2;
    assert.equal(fm.expire(), 1);
    assert.throws(() => fm.changes(id), /filter not found/);
    assert.equal(e.events.listenerCount, 0);
    fm.close();
  });

  it("pending tx filter and newPendingTransactions subscription (hashes and full txs)", async () => {
    const e = makeEnv(chain);
    const fid = (await rpc(e.d, "eth_newPendingTransactionFilter")).result;
    const sent: string[] = [];
    const conn: RpcConnection = {
      ctx: { transport: "ws", remoteAddr: "t" },
      subs: new ConnectionSubscriptions((t) => sent.push(t)),
    };
    const subIds: string[] = [];
    for (const params of [["newPendingTransactions"], ["newPendingTransactions", true]]) {
      const proc = { created: [] as never[] };
      const r = JSON.parse(
        (await e.d.handleText(
          JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params }),
          conn,
          proc,
        )) as string,
      );
      subIds.push(r.result);
      conn.subs!.activate(proc.created);
    }
    // Feed the hub directly with a pool entry (the pool only announces executable txs).
    await e.pool.add([hexToBytes(RAW_N1)]);
    const p = e.pool.get(hexToBytes(HASH_N1));
    assert.ok(p !== null);
    e.events.emitPending([p!]);
    assert.deepEqual((await rpc(e.d, "eth_getFilterChanges", [fid])).result.includes(HASH_N1), true);
    const notes = sent.map((s) => JSON.parse(s));
    const bySub = (id: string) => notes.filter((n) => n.params.subscription === id).map((n) => n.params.result);
    assert.ok(bySub(subIds[0]).includes(HASH_N1));
    const full = bySub(subIds[1]).find((t) => t.hash === HASH_N1);
    assert.equal(full.blockHash, null);
    assert.equal(full.nonce, "0x1");
    assert.equal(notes[0].method, "eth_subscription");
  });

  it("newHeads and logs subscriptions through a push connection; unsubscribe stops them", async () => {
    const e = makeEnv(chain);
    const sent: string[] = [];
    const conn: RpcConnection = {
      ctx: { transport: "ws", remoteAddr: "t" },
      subs: new ConnectionSubscriptions((t) => sent.push(t)),
    };
    const sub = async (params: unknown[]) => {
      const proc = { created: [] as never[] };
      const r = JSON.parse(
        (await e.d.handleText(
          JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params }),
          conn,
          proc,
        )) as string,
      );
      conn.subs!.activate(proc.created);
      return r.result as string;
    };
    const heads = await sub(["newHeads"]);
    const logs = await sub(["logs", { address: "0x7dcd17433742f4c0ca53122ab541d0ba67fc27df" }]);
    e.events.emitHeadChange(changeOf(chain, [4]));
    const notes = sent.map((s) => JSON.parse(s).params);
    const head = notes.find((n) => n.subscription === heads).result;
    assert.equal(head.hash, bytesToHex(headerHash(chain.store.header(chain.store.canonicalHash(4)!)!)));
    assert.equal(head.number, "0x4");
    assert.equal("size" in head, false);
    assert.ok(notes.filter((n) => n.subscription === logs).length > 0);
    sent.length = 0;
    e.events.emitHeadChange(changeOf(chain, [], [4]));
    const removed = sent.map((s) => JSON.parse(s).params).filter((n) => n.subscription === logs);
    assert.ok(removed.length > 0 && removed.every((n) => n.result.removed === true));
    const un = JSON.parse(
      (await e.d.handleText(
        JSON.stringify({ jsonrpc: "2.0", id: 2, method: "eth_unsubscribe", params: [heads] }),
        conn,
      )) as string,
    );
    assert.equal(un.result, true);
    sent.length = 0;
    e.events.emitHeadChange(changeOf(chain, [5]));
    assert.equal(sent.map((s) => JSON.parse(s).params).filter((n) => n.subscription === heads).length, 0);
    // Subscriptions are not available over HTTP.
    assert.equal((await rpc(e.d, "eth_subscribe", ["newHeads"])).error.message, "notifications not supported");
  });

  it("sendRawTransaction: decode errors, duplicates, pool and RPC-level refusals", async () => {
    const e = makeEnv(chain);
    assert.equal((await rpc(e.d, "eth_sendRawTransaction", [RAW_N1])).result, HASH_N1);
    assert.deepEqual((await rpc(e.d, "eth_sendRawTransaction", [RAW_N1])).error, {
      code: -32000,
      message: "already known",
    });
    const bad = await rpc(e.d, "eth_sendRawTransaction", ["0x02c0"]);
    assert.equal(bad.error.code, -32000);
    const noPrefix = await rpc(e.d, "eth_sendRawTransaction", ["02"]);
    assert.equal(noPrefix.error.code, -32602);
    // The tx is visible in the pool views and by hash (pending shape).
    const t = (await rpc(e.d, "eth_getTransactionByHash", [HASH_N1])).result;
    assert.equal(t.blockHash, null);
    assert.equal(t.blockTimestamp, null);
    assert.equal((await rpc(e.d, "eth_getRawTransactionByHash", [HASH_N1])).result, RAW_N1);
  });

  it("sendTransaction signs with a dev account; unknown senders are refused", async () => {
    const e = makeEnv(chain);
    const unknown = await rpc(e.d, "eth_sendTransaction", [{ from: `0x${"12".repeat(20)}`, to: DEV_ADDR }]);
    assert.deepEqual(unknown.error, { code: -32000, message: "unknown account" });
    // The dev key holds nothing on this chain: the pool refuses it with geth's text, after signing.
    const r = await rpc(e.d, "eth_sendTransaction", [{ from: DEV_ADDR, to: DEV_ADDR, value: "0x1", gas: "0x5208" }]);
    assert.equal(r.error.code, -32000);
    assert.match(r.error.message, /^insufficient funds for gas \* price \+ value/);
  });

  it("forwards to the sequencer when configured, keeping a local copy", async () => {
    const e = makeEnv(chain, true);
    assert.equal((await rpc(e.d, "eth_sendRawTransaction", [RAW_N1])).result, HASH_N1);
    assert.equal(e.forwarded.length, 1);
    assert.equal(bytesToHex(e.forwarded[0]), RAW_N1);
  });

  it("pending nonce comes from the pool, latest from the state", async () => {
    const e = makeEnv(chain);
    const p0 = e.pool.get(hexToBytes(HASH_N1));
    assert.equal(p0, null);
    await rpc(e.d, "eth_sendRawTransaction", [RAW_N1]);
    const sender = bytesToHex(e.pool.get(hexToBytes(HASH_N1))!.sender);
    const latest = BigInt((await rpc(e.d, "eth_getTransactionCount", [sender, "latest"])).result);
    const pending = BigInt((await rpc(e.d, "eth_getTransactionCount", [sender, "pending"])).result);
    const st = e.pool.status();
    assert.equal(pending, latest + BigInt(st.pending));
  });

  it("feeHistory shapes and errors", async () => {
    const e = makeEnv(chain);
    const r = (await rpc(e.d, "eth_feeHistory", ["0x3", "latest", [10, 50]])).result;
    assert.equal(r.oldestBlock, `0x${(chain.head.number - 2).toString(16)}`);
    assert.equal(r.baseFeePerGas.length, 4);
    assert.equal(r.gasUsedRatio.length, 3);
    assert.equal(r.reward.length, 3);
    assert.ok(r.reward.every((x: string[]) => x.length === 2));
    assert.equal(r.baseFeePerBlobGas.length, 4);
    assert.equal(r.blobGasUsedRatio.length, 3);
    const noPct = (await rpc(e.d, "eth_feeHistory", [2, "0x5"])).result;
    assert.equal("reward" in noPct, false);
    assert.equal(noPct.oldestBlock, "0x4");
    assert.deepEqual((await rpc(e.d, "eth_feeHistory", ["0x0", "latest", []])).result, {
      oldestBlock: "0x0",
      gasUsedRatio: null,
    });
    const beyond = await rpc(e.d, "eth_feeHistory", ["0x1", "0x1000", []]);
    assert.equal(beyond.error.message, `request beyond head block: requested 4096, head ${chain.head.number}`);
    const badPct = await rpc(e.d, "eth_feeHistory", ["0x1", "latest", [50, 10]]);
    assert.equal(badPct.error.message, "invalid reward percentile: #0:50.000000 >= #1:10.000000");
    const outOfRange = await rpc(e.d, "eth_feeHistory", ["0x1", "latest", [101]]);
    assert.equal(outOfRange.error.message, "invalid reward percentile: 101.000000");
  });

  it("gas price suggestions, tags, uncles, net/web3", async () => {
    const e = makeEnv(chain);
    const tip = BigInt((await rpc(e.d, "eth_maxPriorityFeePerGas")).result);
    const price = BigInt((await rpc(e.d, "eth_gasPrice")).result);
    assert.equal(price, tip + (chain.head.baseFeePerGas ?? 0n));
    const pendingBlock = (await rpc(e.d, "eth_getBlockByNumber", ["pending", false])).result;
    assert.equal(pendingBlock.number, `0x${chain.head.number.toString(16)}`);
    assert.equal((await rpc(e.d, "eth_getUncleCountByBlockNumber", ["latest"])).result, "0x0");
    assert.equal((await rpc(e.d, "eth_getUncleByBlockNumberAndIndex", ["latest", "0x0"])).result, null);
    assert.equal(
      (await rpc(e.d, "eth_getBalance", ["0x7dcd17433742f4c0ca53122ab541d0ba67fc27df", "0x999"])).error.message,
      "header not found",
    );
    const unknownHash = `0x${"11".repeat(32)}`;
    assert.equal(
      (await rpc(e.d, "eth_getBalance", ["0x7dcd17433742f4c0ca53122ab541d0ba67fc27df", { blockHash: unknownHash }]))
        .error.message,
      "header for hash not found",
    );
    assert.equal((await rpc(e.d, "net_version")).result, "7");
    assert.equal((await rpc(e.d, "net_listening")).result, true);
    assert.equal((await rpc(e.d, "web3_clientVersion")).result, "Opal/test");
    assert.equal(
      (await rpc(e.d, "web3_sha3", ["0x"])).result,
      "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
    );
    assert.deepEqual((await rpc(e.d, "txpool_status")).result, { pending: "0x0", queued: "0x0" });
    assert.deepEqual((await rpc(e.d, "eth_accounts")).result, [DEV_ADDR]);
  });

  it("revert reasons and crc32", () => {
    assert.equal(
      unpackRevert(hexToBytes("0x4e487b710000000000000000000000000000000000000000000000000000000000000011")),
      "arithmetic underflow or overflow",
    );
    assert.equal(unpackRevert(hexToBytes("0x1234")), null);
    assert.equal(crc32Update(0, new TextEncoder().encode("123456789")), 0xcbf43926);
  });
});

describe("rpc/eth call overrides and simulateV1", function () {
  this.timeout(120_000);
  let chain: Blockchain;
  before(() => {
    chain = buildSuiteChain(requireFixture(defaultSuiteDir()));
  });

  // Code: NUMBER PUSH0 MSTORE PUSH1 32 PUSH0 RETURN → returns the block number as a word.
  const RETURN_NUMBER = "0x435f5260205ff3";
  const target = "0xc100000000000000000000000000000000000000";

  it("eth_call applies state and block overrides; bad overrides are argument errors", async () => {
    const e = makeEnv(chain);
    const call = { from: "0xc000000000000000000000000000000000000000", to: target };
    const plain = await rpc(e.d, "eth_call", [call, "latest"]);
    assert.equal(plain.result, "0x");
    const withCode = await rpc(e.d, "eth_call", [call, "latest", { [target]: { code: RETURN_NUMBER } }]);
    assert.equal(BigInt(withCode.result), BigInt(chain.head.number));
    const withBlock = await rpc(e.d, "eth_call", [
      call,
      "latest",
      { [target]: { code: RETURN_NUMBER } },
      { number: "0x1234" },
    ]);
    assert.equal(BigInt(withBlock.result), 0x1234n);
    // Balance override is visible to BALANCE (SELFBALANCE via code: SELFBALANCE PUSH0 MSTORE PUSH1 32 PUSH0 RETURN).
    const bal = await rpc(e.d, "eth_call", [
      call,
      "latest",
      { [target]: { code: "0x475f5260205ff3", balance: "0x1234" } },
    ]);
    assert.equal(BigInt(bal.result), 0x1234n);
    const bad = await rpc(e.d, "eth_call", [call, "latest", { [target]: { balance: "1234" } }]);
    assert.equal(bad.error.code, -32602);
    assert.match(bad.error.message, /^invalid argument 2: /);
    // The overrides never reach the chain's state.
    assert.equal((await rpc(e.d, "eth_getCode", [target, "latest"])).result, "0x");
  });

  it("simulateV1: chained blocks see each other's state; ordering errors", async () => {
    const e = makeEnv(chain);
    const from = "0xc000000000000000000000000000000000000000";
    const r = await rpc(e.d, "eth_simulateV1", [
      {
        blockStateCalls: [
          { stateOverrides: { [from]: { balance: "0x3e8" } }, calls: [{ from, to: target, value: "0x3e8" }] },
          { calls: [{ from: target, to: from, value: "0x1" }] },
        ],
      },
      "latest",
    ]);
    assert.equal(r.result.length, 2);
    assert.equal(r.result[0].number, `0x${(chain.head.number + 1).toString(16)}`);
    assert.equal(r.result[1].parentHash, r.result[0].hash);
    assert.deepEqual(
      r.result.map((b: any) => b.calls[0].status),
      ["0x1", "0x1"],
    );
    const order = await rpc(e.d, "eth_simulateV1", [
      { blockStateCalls: [{ blockOverrides: { number: "0x100" } }, { blockOverrides: { number: "0x90" } }] },
      "latest",
    ]);
    assert.deepEqual(order.error, { code: -38020, message: "block numbers must be in order: 144 <= 256" });
    const empty = await rpc(e.d, "eth_simulateV1", [{ blockStateCalls: [] }, "latest"]);
    assert.equal(empty.error.code, -32602);
  });

  it("eth_config names the fork in force with its fork id", async () => {
    const e = makeEnv(chain);
    const c = (await rpc(e.d, "eth_config")).result;
    assert.equal(c.current.chainId, `0x${chain.config.chainId.toString(16)}`);
    assert.match(c.current.forkId, /^0x[0-9a-f]{8}$/);
    assert.equal(c.next, null);
  });
});
