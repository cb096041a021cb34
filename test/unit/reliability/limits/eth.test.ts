/**
 * Limits of the eth namespace at their edges (README "Limits"): the log query limits
 * (`--rpc.logquerylimit`, `--rpc.rangelimit`, geth's topic caps), the lifetime of installed filters,
 * `--rpc.gascap`, `--rpc.txfeecap`, `--rpc.evmtimeout` of the offloaded calls, and the fixed caps of
 * eth_getProof, eth_feeHistory and eth_simulateV1. Runs on an in-process L1 chain of four blocks,
 * each with one log.
 */
import { strict as assert } from "node:assert";
import { buildPreState } from "../../../../src/cli/evmTool/preState.js";
import { parseExecArgs } from "../../../../src/cli/execFlags.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { Evm } from "../../../../src/evm/evm.js";
import { Halt } from "../../../../src/evm/status.js";
import { coreApis } from "../../../../src/node/exec/execNode.js";
import { PiscinaPool } from "../../../../src/node/pools.js";
import { concatBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { type AbortablePool, offloadCalls } from "../../../../src/rpc/callOffload.js";
import { DEFAULT_TRACE_TIMEOUT_MS, traceTimeoutMs } from "../../../../src/rpc/debug/params.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { ChainReader } from "../../../../src/rpc/eth/chainReader.js";
import {
  DEFAULT_LOG_QUERY_LIMITS,
  FILTER_TIMEOUT_MS,
  FilterManager,
  type LogQueryLimits,
} from "../../../../src/rpc/eth/filters.js";
import { EventHub } from "../../../../src/rpc/events.js";
import { type AnyMethod, defineMethod, Registry } from "../../../../src/rpc/registry.js";
import { ConnectionSubscriptions } from "../../../../src/rpc/subscriptions.js";
import { Fork, l1Rules } from "../../../../src/spec/forks.js";
import { KvStateReader } from "../../../../src/state/kvStateReader.js";
import { bigintToAddress, WorldState } from "../../../../src/state/worldState.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../../../src/tx/tx.js";
import { L1Miner, PORTAL } from "../../../utils/actions/l1Miner.js";
import { TEST_BLOCK } from "../../../utils/blocks.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

async function call(d: Dispatcher, method: string, params: unknown[], conn = HTTP): Promise<any> {
  const text = await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), conn);
  return JSON.parse(text as string);
}

const addrN = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;
const topicN = (i: number) => `0x${i.toString(16).padStart(64, "0")}`;
const range = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i + 1));

describe("limits: eth namespace", function () {
  this.timeout(30_000);
  let miner: L1Miner;

  /** The eth namespace of the miner's chain with these limits. */
  function eth(opts: { logs?: LogQueryLimits; gasCap?: bigint; txFeeCap?: number } = {}): Dispatcher {
    const apis = coreApis({
      chain: miner.exec.chain,
      pool: miner.exec.pool,
      networkId: miner.chainId,
      clientVersion: "opal/test",
      gasCap: opts.gasCap ?? 50_000_000n,
      txFeeCap: opts.txFeeCap ?? 1,
      evmTimeoutMs: 5000,
      ...(opts.logs === undefined ? {} : { logQueryLimits: opts.logs }),
      devAccounts: [],
      forwardRawTx: null,
    });
    return new Registry(apis.methods).forApis(["eth"]);
  }

  before(async () => {
    miner = new L1Miner();
    for (let i = 1; i <= 4; i++) {
      const topics = concatBytes(...[1, 2, 3, 4].map((t) => keccak256(Uint8Array.of(i, t))));
      await miner.mine([miner.tx(miner.accounts[0]!, PORTAL, concatBytes(topics, Uint8Array.of(i)))]);
    }
    assert.equal(miner.exec.chain.head.number, 4);
  });

  describe("the flag defaults are geth's", () => {
    it("--rpc.logquerylimit 1000, --rpc.rangelimit 0, --rpc.gascap 50M, --rpc.txfeecap 1, --rpc.evmtimeout 5s", () => {
      const r = parseExecArgs([], {});
      assert.equal(r.kind, "run");
      if (r.kind !== "run") return;
      assert.equal(r.config["rpc.logquerylimit"], 1000);
      assert.equal(r.config["rpc.rangelimit"], 0);
      assert.equal(r.config["rpc.gascap"], 50_000_000n);
      assert.equal(r.config["rpc.txfeecap"], 1);
      assert.equal(r.config["rpc.evmtimeout"], 5000);
      assert.deepEqual(DEFAULT_LOG_QUERY_LIMITS, { logQueryLimit: 1000, rangeLimit: 0, resultSizeLimit: 25_000_000 });
      const set = parseExecArgs(["--rpc.logquerylimit", "3", "--rpc.rangelimit", "2"], {});
      assert.ok(set.kind === "run" && set.config["rpc.logquerylimit"] === 3 && set.config["rpc.rangelimit"] === 2);
    });
  });

  describe("--rpc.logquerylimit (addresses, and alternatives per topic position)", () => {
    const EXCEED = { code: -32000, message: "exceed max addresses or topics per search position" };

    it("default 1000: 1000 addresses are queried, 1001 refused", async () => {
      const d = eth();
      const at = await call(d, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x4", address: range(1000, addrN) }]);
      assert.deepEqual(at.result, []);
      const over = await call(d, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x4", address: range(1001, addrN) }]);
      assert.deepEqual(over.error, EXCEED);
    });

    it("set to 3: eth_getLogs, eth_newFilter and the logs subscription take 3 and refuse 4", async () => {
      const d = eth({ logs: { logQueryLimit: 3, rangeLimit: 0, resultSizeLimit: 0 } });
      const portal = bytesToHex(PORTAL);
      const at = await call(d, "eth_getLogs", [
        { fromBlock: "0x1", toBlock: "0x4", address: [portal, addrN(1), addrN(2)] },
      ]);
      assert.equal(at.result.length, 4);
      const t0 = at.result.map((l: { topics: string[] }) => l.topics[0]);
      const topicsAt = await call(d, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x4", topics: [t0.slice(0, 3)] }]);
      assert.equal(topicsAt.result.length, 3);
      assert.deepEqual(
        (await call(d, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x4", topics: [t0] }])).error,
        EXCEED,
      );
      const four = { address: [portal, addrN(1), addrN(2), addrN(3)] };
      assert.deepEqual((await call(d, "eth_getLogs", [four])).error, EXCEED);
      assert.deepEqual((await call(d, "eth_newFilter", [four])).error, EXCEED);
      assert.equal(typeof (await call(d, "eth_newFilter", [{ address: four.address.slice(1) }])).result, "string");
      const ws: RpcConnection = {
        ctx: { transport: "ws", remoteAddr: "t" },
        subs: new ConnectionSubscriptions(() => undefined),
      };
      assert.deepEqual((await call(d, "eth_subscribe", ["logs", four], ws)).error, EXCEED);
      assert.equal(
        typeof (await call(d, "eth_subscribe", ["logs", { address: four.address.slice(1) }], ws)).result,
        "string",
      );
    });

    it("0 lifts the cap (1001 addresses are queried)", async () => {
      const d = eth({ logs: { logQueryLimit: 0, rangeLimit: 0, resultSizeLimit: 0 } });
      const r = await call(d, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x4", address: range(1001, addrN) }]);
      assert.deepEqual(r.result, []);
    });
  });

  describe("topic caps (geth maxTopics 4, maxSubTopics 1000; no option)", () => {
    it("4 topic positions pass, 5 are refused; 1000 alternatives in one position pass, 1001 are refused", async () => {
      const d = eth();
      const q = (topics: unknown[]) => call(d, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x4", topics }]);
      assert.deepEqual((await q([null, null, null, null])).result.length, 4);
      assert.deepEqual((await q([null, null, null, null, null])).error, {
        code: -32602,
        message: "invalid argument 0: exceed max topics",
      });
      assert.deepEqual((await q([range(1000, topicN)])).result, []);
      assert.deepEqual((await q([range(1001, topicN)])).error, {
        code: -32602,
        message: "invalid argument 0: exceed max topics",
      });
    });
  });

  describe("quantities at their edges (issue 26): read exactly or refused", () => {
    it("a block number of 2^53-1 is that block (beyond the head), never 'latest'; above 2^53-1 it is refused", async () => {
      const d = eth();
      const top = "0x1fffffffffffff";
      const at = await call(d, "eth_getLogs", [{ fromBlock: top, toBlock: top }]);
      assert.deepEqual(at.error, { code: -32602, message: "block range extends beyond current head block" });
      assert.deepEqual((await call(d, "eth_getLogs", [{ toBlock: top }])).error, {
        code: -32602,
        message: "block range extends beyond current head block",
      });
      assert.equal((await call(d, "eth_getBlockByNumber", [top, false])).result, null);
      for (const over of ["0x20000000000000", "0x7fffffffffffffff"]) {
        const r = await call(d, "eth_getLogs", [{ fromBlock: over, toBlock: over }]);
        assert.equal(r.error?.code, -32602, over);
        assert.match(r.error.message, /block number larger than 2\^53-1$/);
        const b = await call(d, "eth_getBlockByNumber", [over, false]);
        assert.deepEqual(b.error, { code: -32602, message: "invalid argument 0: block number larger than 2^53-1" });
      }
    });

    it('"" is not a quantity', async () => {
      const d = eth();
      const r = await call(d, "eth_getTransactionByBlockNumberAndIndex", ["latest", ""]);
      assert.deepEqual(r.error, {
        code: -32602,
        message: "invalid argument 1: json: cannot unmarshal empty hex string into Go value of type hexutil.Uint64",
      });
      const fh = await call(d, "eth_feeHistory", ["", "latest", []]);
      assert.deepEqual(fh.error, { code: -32602, message: 'invalid argument 0: invalid hex or decimal integer ""' });
    });

    it("eth_feeHistory: any uint64 block count is cut to geth's 1024; past 2^64-1 refused", async () => {
      const d = eth();
      const blocks = (r: any) => r.result.gasUsedRatio.length;
      // The chain has blocks 0..4: 1024 asks for all five.
      assert.equal(blocks(await call(d, "eth_feeHistory", ["0x400", "latest", []])), 5);
      for (const n of ["0x401", "0x20000000000000", "0xffffffffffffffff", "18446744073709551615"]) {
        const r = await call(d, "eth_feeHistory", [n, "latest", []]);
        assert.equal(blocks(r), 5, n);
      }
      for (const n of ["0x10000000000000000", "18446744073709551616", 1e21]) {
        const r = await call(d, "eth_feeHistory", [n, "latest", []]);
        assert.equal(r.error?.code, -32602, String(n));
        assert.match(r.error.message, /^invalid argument 0: invalid hex or decimal integer/);
      }
    });
  });

  describe("reply size of a log query (--rpc.batch-response-max-size held to one query)", () => {
    it("a limit of exactly the reply's length answers; one less is geth's -32003 response too large", async () => {
      const all = await call(eth(), "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x4" }]);
      assert.equal(all.result.length, 4);
      const len = JSON.stringify(all.result).length;
      const limits = (resultSizeLimit: number) => ({ logs: { logQueryLimit: 1000, rangeLimit: 0, resultSizeLimit } });
      const at = await call(eth(limits(len)), "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x4" }]);
      assert.deepEqual(at.result, all.result);
      const d = eth(limits(len - 1));
      const over = { code: -32003, message: "response too large" };
      assert.deepEqual((await call(d, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x4" }])).error, over);
      const id = (await call(d, "eth_newFilter", [{ fromBlock: "0x1", toBlock: "0x4" }])).result;
      assert.deepEqual((await call(d, "eth_getFilterLogs", [id])).error, over);
      // One block's logs stay under it.
      assert.equal((await call(d, "eth_getLogs", [{ fromBlock: "0x2", toBlock: "0x2" }])).result.length, 1);
    });
  });

  describe("--rpc.rangelimit (end - begin of a range query)", () => {
    it("set to 2: blocks 1..3 are queried, 1..4 refused with geth's -32602", async () => {
      const d = eth({ logs: { logQueryLimit: 1000, rangeLimit: 2, resultSizeLimit: 0 } });
      assert.equal((await call(d, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x3" }])).result.length, 3);
      const over = await call(d, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x4" }]);
      assert.deepEqual(over.error, { code: -32602, message: "exceed maximum block range 2" });
      // As geth resolves "latest" to the largest number before comparing, only latest..latest passes.
      assert.equal((await call(d, "eth_getLogs", [{}])).result.length, 1);
      assert.equal(
        (await call(d, "eth_getLogs", [{ fromBlock: "0x3" }])).error.message,
        "exceed maximum block range 2",
      );
      // eth_getFilterLogs runs the same query.
      const at = (await call(d, "eth_newFilter", [{ fromBlock: "0x2", toBlock: "0x4" }])).result;
      assert.equal((await call(d, "eth_getFilterLogs", [at])).result.length, 3);
      const wide = (await call(d, "eth_newFilter", [{ fromBlock: "0x1", toBlock: "0x4" }])).result;
      assert.equal((await call(d, "eth_getFilterLogs", [wide])).error.message, "exceed maximum block range 2");
    });

    it("default 0: no range limit", async () => {
      assert.equal((await call(eth(), "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest" }])).result.length, 4);
    });
  });

  describe("filter lifetime (geth filters.Config.Timeout, 5 min, no option)", () => {
    it("a filter polled within 5 minutes lives on; 5 minutes without a poll removes it", () => {
      assert.equal(FILTER_TIMEOUT_MS, 300_000);
      let now = 1_000_000;
      const fm = new FilterManager(new ChainReader(miner.exec.chain), new EventHub(), () => now);
      try {
        const id = fm.newBlockFilter();
        now += FILTER_TIMEOUT_MS - 1;
        assert.deepEqual(fm.changes(id), []); // the poll renews the deadline
        now += FILTER_TIMEOUT_MS - 1;
        assert.deepEqual(fm.changes(id), []);
        now += FILTER_TIMEOUT_MS;
        assert.throws(
          () => fm.changes(id),
          (e: { code?: number; message?: string }) => e.code === -32000 && e.message === "filter not found",
        );
        assert.equal(fm.size, 0);
      } finally {
        fm.close();
      }
    });
  });

  describe("--rpc.gascap", () => {
    // Returns GAS (what is left when it runs) as a 32-byte word.
    const GAS_LEFT = "0x5a60005260206000f3";
    const TARGET = addrN(0xaa);
    const override = { [TARGET]: { code: GAS_LEFT } };
    const gasSeen = (gas: number) => 100_000 - 21_000 - 2 + (gas - 100_000);

    it("set to 100000: a call asking exactly the cap gets it, one more gas is cut to the cap", async () => {
      const d = eth({ gasCap: 100_000n });
      const run = async (gas?: string) =>
        BigInt(
          (await call(d, "eth_call", [{ to: TARGET, ...(gas === undefined ? {} : { gas }) }, "latest", override]))
            .result,
        );
      assert.equal(await run("0x1869f"), BigInt(gasSeen(99_999)));
      assert.equal(await run("0x186a0"), BigInt(gasSeen(100_000)));
      assert.equal(await run("0x186a1"), BigInt(gasSeen(100_000)));
      assert.equal(await run(), BigInt(gasSeen(100_000)), "no gas given: the block's gas limit, capped");
      // An estimate needing more than the cap fails with the cap in geth's text.
      const loop = await call(d, "eth_estimateGas", [{ to: TARGET }, "latest", { [TARGET]: { code: "0x5b600056" } }]);
      assert.deepEqual(loop.error, { code: -32000, message: "gas required exceeds allowance (100000)" });
    });
  });

  describe("--rpc.txfeecap (ether)", () => {
    function raw(from: number, maxFeePerGas: bigint): string {
      const tx: FeeMarketTx = {
        type: TxType.FeeMarket,
        chainId: miner.chainId,
        nonce: 1n,
        maxPriorityFeePerGas: 1_000_000_000n,
        maxFeePerGas,
        gasLimit: 25_000n,
        to: PORTAL,
        value: 0n,
        data: new Uint8Array(0),
        accessList: [],
        yParity: 0,
        r: 0n,
        s: 0n,
      };
      return bytesToHex(encodeTx(signTx(tx, miner.accounts[from]!.privateKey)));
    }

    it("default 1: a fee of exactly 1 ether is sent, 1 ether + 25000 wei refused", async () => {
      const d = eth();
      // 4e13 wei × 25000 gas = 1e18 wei.
      const at = await call(d, "eth_sendRawTransaction", [raw(1, 40_000_000_000_000n)]);
      assert.match(at.result, /^0x[0-9a-f]{64}$/);
      const over = await call(d, "eth_sendRawTransaction", [raw(2, 40_000_000_000_001n)]);
      assert.deepEqual(over.error, {
        code: -32000,
        message: "tx fee (1.00 ether) exceeds the configured cap (1.00 ether)",
      });
      // 0 turns the cap off.
      const off = await call(eth({ txFeeCap: 0 }), "eth_sendRawTransaction", [raw(2, 40_000_000_000_001n)]);
      assert.match(off.result, /^0x[0-9a-f]{64}$/);
    });
  });

  describe("--rpc.evmtimeout (read-only calls in the evmCall pool)", () => {
    /** A pool whose task takes `ms`, unless its signal aborts it first (as Piscina does). */
    function slowPool(ms: number): AbortablePool {
      return {
        threads: 1,
        queueSize: 0,
        busy: 0,
        canAcceptWork: () => true,
        run: <T>(_task: unknown, _t?: readonly ArrayBufferLike[], signal?: AbortSignal) =>
          new Promise<T>((resolve, reject) => {
            const t = setTimeout(() => resolve({ result: "0x01" } as T), ms);
            signal?.addEventListener("abort", () => {
              clearTimeout(t);
              reject(new Error("aborted"));
            });
          }),
      };
    }
    const method = defineMethod({ name: "eth_call", params: [], handler: () => "0x01" }) as AnyMethod;
    const d = (pool: AbortablePool, timeoutMs: number) =>
      new Registry(
        offloadCalls([method], { pool, head: () => new Uint8Array(32), timeoutMs, cacheEntries: 0 }) as AnyMethod[],
      ).forApis(["eth"]);

    it("a call done inside the timeout is answered; one past it is aborted with geth's text", async () => {
      assert.equal((await call(d(slowPool(20), 200), "eth_call", [])).result, "0x01");
      assert.deepEqual((await call(d(slowPool(400), 200), "eth_call", [])).error, {
        code: -32000,
        message: "execution aborted (timeout = 200ms)",
      });
      // 0 = no timeout.
      assert.equal((await call(d(slowPool(250), 0), "eth_call", [])).result, "0x01");
    });

    it("--workers.evmcall.queue (64): with a queue of 2 on one thread, 1 running + 2 waiting are taken, the next is -32005", async () => {
      // A real Piscina pool (the worker does not matter: what is tested is who gets in).
      const pool = new PiscinaPool("sigRecover", { threads: 1, maxQueue: 2 });
      try {
        const disp = d(pool, 0);
        const text = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "eth_call", params: [] });
        const replies = [1, 2, 3, 4].map((id) => disp.handleText(text(id), HTTP));
        const answers = (await Promise.all(replies)).map((r) => JSON.parse(r as string));
        assert.ok(answers.slice(0, 3).every((a) => a.error?.code !== -32005));
        assert.deepEqual(answers[3].error, {
          code: -32005,
          message: "too many calls in flight: the eth_call queue is full",
        });
      } finally {
        await pool.destroy();
      }
      const r = parseExecArgs([], {});
      assert.ok(r.kind === "run" && r.config["workers.evmcall.queue"] === 64);
    });
  });

  describe("time limits of calls and traces run on the main thread", () => {
    // Contract C: without calldata it counts down from 450,000 (64 gas a round, ~29M gas; a
    // KECCAK256 of nothing in each round, so the interpreter's native core does not finish the loop
    // inside the 50 ms timeouts below) and then stores 1 at slot 0; with calldata it returns slot 0.
    const C = addrN(0xcc);
    const ROUNDS = 450_000;
    const CODE =
      `0x36601e5762${ROUNDS.toString(16).padStart(6, "0")}5b600060002050600190038060085750600160005500` +
      "5b60005460005260206000f3";
    let chainOf: L1Miner;
    let d: (evmTimeoutMs: number) => Dispatcher;
    let slowTx: string;
    let readTx: string;
    const ONE = `0x${"0".repeat(63)}1`;

    before(async () => {
      // A Prague L1: the slow tx needs 29.5M gas, above Osaka's EIP-7825 cap of 2^24 a tx.
      chainOf = new L1Miner({ [C]: { balance: "0x0", code: CODE } }, 100, { osakaTime: null });
      const from = chainOf.accounts[0]!;
      const a = chainOf.tx(from, hexToBytes(C), new Uint8Array(0), 29_500_000n);
      const b = chainOf.tx(from, hexToBytes(C), Uint8Array.of(1), 100_000n);
      await chainOf.mine([a, b]);
      slowTx = bytesToHex(keccak256(a));
      readTx = bytesToHex(keccak256(b));
      d = (evmTimeoutMs) => {
        const apis = coreApis({
          chain: chainOf.exec.chain,
          pool: chainOf.exec.pool,
          networkId: chainOf.chainId,
          clientVersion: "opal/test",
          gasCap: 50_000_000n,
          txFeeCap: 1,
          evmTimeoutMs,
          devAccounts: [],
          forwardRawTx: null,
        });
        return new Registry(apis.methods).forApis(["eth", "debug"]);
      };
    });

    it("the EVM stops at its deadline: the next JUMP or JUMPI ends every frame as STOP, gas left unspent", () => {
      const CALLER = 0xca11e4n;
      const TARGET = 0xc0den;
      for (const loop of ["5b600056", "5b6001600057"]) {
        const { kv } = buildPreState({
          [bytesToHex(bigintToAddress(CALLER))]: { balance: "0x1" },
          [bytesToHex(bigintToAddress(TARGET))]: { balance: "0x0", code: `0x${loop}` },
        });
        const evm = new Evm(l1Rules(Fork.Cancun), TEST_BLOCK, new WorldState(new KvStateReader(kv), kv));
        evm.setDeadline(1);
        const r = evm.call(CALLER, TARGET, 0n, new Uint8Array(0), 30_000_000);
        assert.equal(r.halt, Halt.Stop, loop);
        assert.ok(r.gasLeft > 1_000_000, `${loop}: stopped early, ${r.gasLeft} gas left`);
        assert.ok(evm.aborted && evm.timedOut());
        // Without a deadline the same loop runs out of gas.
        evm.setDeadline(0);
        const full = evm.call(CALLER, TARGET, 0n, new Uint8Array(0), 3_000_000);
        assert.equal(full.halt, Halt.OutOfGas);
        assert.ok(!evm.aborted && !evm.timedOut());
      }
    });

    it("--rpc.evmtimeout: eth_call inside the timeout is answered; past it, geth's 'execution aborted'", async () => {
      const fast = await call(d(50), "eth_call", [{ to: C, data: "0x01" }, "latest"]);
      assert.equal(fast.result, ONE);
      const slow = await call(d(50), "eth_call", [{ to: C, gas: "0x1c9c380" }, "latest"]);
      assert.deepEqual(slow.error, { code: -32000, message: "execution aborted (timeout = 50ms)" });
      // 0: no timeout; the whole loop runs.
      assert.equal((await call(d(0), "eth_call", [{ to: C, gas: "0x1c9c380" }, "latest"])).result, "0x");
    });

    it("trace timeout (TraceConfig.timeout, geth's 5 s by default): inside it a result, past it 'execution timeout'", async () => {
      assert.equal(DEFAULT_TRACE_TIMEOUT_MS, 5000);
      assert.deepEqual(
        ["500ms", "1.5s", "1m30s", "250us"].map((t) => traceTimeoutMs(t)),
        [500, 1500, 90_000, 0.25],
      );
      const cfg = (timeout?: string) => ({ tracer: "callTracer", ...(timeout === undefined ? {} : { timeout }) });
      const done = await call(d(0), "debug_traceTransaction", [slowTx, cfg()]);
      assert.equal(done.result.type, "CALL");
      assert.deepEqual((await call(d(0), "debug_traceTransaction", [slowTx, cfg("30ms")])).error, {
        code: -32000,
        message: "execution timeout",
      });
      const call1 = await call(d(0), "debug_traceCall", [{ to: C, gas: "0x1c9c380" }, "latest", cfg("30ms")]);
      assert.deepEqual(call1.error, { code: -32000, message: "execution timeout" });
      assert.equal(
        (await call(d(0), "debug_traceCall", [{ to: C, data: "0x01" }, "latest", cfg("30ms")])).result.output,
        ONE,
      );
    });

    it("a block trace reports the slow tx as timed out and traces the next one on the right state", async () => {
      const r = (await call(d(0), "debug_traceBlockByNumber", ["latest", { tracer: "callTracer", timeout: "30ms" }]))
        .result;
      assert.deepEqual(r[0], { txHash: slowTx, error: "execution timeout" });
      assert.equal(r[1].txHash, readTx);
      // The slow tx's store is seen: it was run again, untraced, to the end.
      assert.equal(r[1].result.output, ONE);
      const whole = (await call(d(0), "debug_traceBlockByNumber", ["latest", { tracer: "callTracer" }])).result;
      assert.equal(whole[0].result.type, "CALL");
      assert.equal(whole[1].result.output, ONE);
    });
  });

  describe("Engine API request sizes (execution-apis: 1024 bodies)", () => {
    const engineCall = async (method: string, params: unknown[]) => {
      try {
        return { result: await miner.exec.rpc.call<unknown[]>(method, params) };
      } catch (e) {
        return { error: { code: (e as { code: number }).code, message: (e as Error).message } };
      }
    };
    const TOO_LARGE = { code: -38004, message: "Too large request" };

    it("engine_getPayloadBodiesByHashV1: 1024 hashes are answered, 1025 refused with -38004", async () => {
      const at = await engineCall("engine_getPayloadBodiesByHashV1", [range(1024, topicN)]);
      assert.equal(at.result?.length, 1024);
      assert.deepEqual((await engineCall("engine_getPayloadBodiesByHashV1", [range(1025, topicN)])).error, TOO_LARGE);
    });

    it("engine_getPayloadBodiesByRangeV1: a count of 1024 is answered, 1025 refused with -38004", async () => {
      const at = await engineCall("engine_getPayloadBodiesByRangeV1", ["0x1", "0x400"]);
      assert.equal(at.result?.length, 4, "the bodies the chain has");
      assert.deepEqual((await engineCall("engine_getPayloadBodiesByRangeV1", ["0x1", "0x401"])).error, TOO_LARGE);
    });
  });

  describe("fixed caps of single methods (geth's constants)", () => {
    it("eth_getProof: 1024 storage keys are proven, 1025 refused", async () => {
      const d = eth();
      const who = bytesToHex(miner.accounts[0]!.address);
      const at = await call(d, "eth_getProof", [who, range(1024, topicN), "latest"]);
      assert.equal(at.result.storageProof.length, 1024);
      assert.deepEqual((await call(d, "eth_getProof", [who, range(1025, topicN), "latest"])).error, {
        code: -32602,
        message: "too many storage keys requested (max 1024, got 1025)",
      });
    });

    it("eth_getStorageValues: 1024 slots (over all accounts) are read, 1025 refused with -32005", async () => {
      const d = eth();
      const req = (n: number) => ({ [addrN(1)]: range(512, topicN), [addrN(2)]: range(n - 512, topicN) });
      const at = await call(d, "eth_getStorageValues", [req(1024), "latest"]);
      assert.equal(at.result[addrN(2)].length, 512);
      assert.deepEqual((await call(d, "eth_getStorageValues", [req(1025), "latest"])).error, {
        code: -32005,
        message: "too many slots (max 1024)",
      });
    });

    it("eth_feeHistory: 100 reward percentiles pass, 101 are refused", async () => {
      const d = eth();
      const pct = (n: number) => Array.from({ length: n }, (_, i) => i * (100 / n));
      assert.equal((await call(d, "eth_feeHistory", ["0x2", "latest", pct(100)])).result.reward[0].length, 100);
      assert.deepEqual((await call(d, "eth_feeHistory", ["0x2", "latest", pct(101)])).error, {
        code: -32602,
        message: "invalid reward percentile: too many percentiles (max 100)",
      });
    });

    it("eth_simulateV1: a block 256 past the base is simulated, 257 refused with -38026", async () => {
      const d = eth();
      const sim = (n: number) =>
        call(d, "eth_simulateV1", [
          { blockStateCalls: [{ blockOverrides: { number: `0x${(4 + n).toString(16)}` } }] },
          "latest",
        ]);
      const at = await sim(256);
      assert.equal(at.result.length, 256);
      assert.deepEqual((await sim(257)).error, { code: -38026, message: "too many blocks" });
    });
  });
});
