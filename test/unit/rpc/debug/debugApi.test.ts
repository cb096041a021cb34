/**
 * The debug_* methods against the execution-apis rpc-compat exchanges, through the dispatcher (so
 * parameter errors are checked too), on the chain the fixtures were recorded on. The `speconly`
 * exchanges are geth's own outputs; they are compared in full here as well.
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Blockchain } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { StructLogger, TraceBudget } from "../../../../src/evm/tracers/structLogger.js";
import { hexToBytes } from "../../../../src/primitives/hex.js";
import { decodeHeader } from "../../../../src/rlp/decode.js";
import { debugApi } from "../../../../src/rpc/debug/api.js";
import { replayBlock } from "../../../../src/rpc/debug/replay.js";
import { traceApi } from "../../../../src/rpc/debug/traceApi.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { ChainReader } from "../../../../src/rpc/eth/chainReader.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { fixturePath } from "../../../utils/fixtures.js";

const DIR = fixturePath("execution-apis-rpc", "tests");
const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "127.0.0.1" }, subs: null };

function loadChain(): { chain: Blockchain; reader: ChainReader } {
  const json = JSON.parse(readFileSync(join(DIR, "genesis.json"), "utf8"));
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(json), json.config);
  const all = new Uint8Array(readFileSync(join(DIR, "chain.rlp")));
  for (let pos = 0; pos < all.length; ) {
    const h = decodeHeader(all, pos);
    const r = chain.insertBlock(all.subarray(pos, h.start + h.length));
    if (r.status !== "VALID" && r.status !== "KNOWN") throw new Error(`block import failed: ${r.error}`);
    pos = h.start + h.length;
  }
  const fcu = JSON.parse(readFileSync(join(DIR, "headfcu.json"), "utf8"));
  const f = fcu.params[0];
  chain.setHead(hexToBytes(f.headBlockHash));
  chain.setSafeAndFinalized(hexToBytes(f.safeBlockHash), hexToBytes(f.finalizedBlockHash));
  return { chain, reader: new ChainReader(chain) };
}

interface Exchange {
  file: string;
  request: string;
  response: unknown;
}

function exchanges(method: string): Exchange[] {
  const out: Exchange[] = [];
  for (const f of readdirSync(join(DIR, method)).sort()) {
    const lines = readFileSync(join(DIR, method, f), "utf8").split("\n");
    const req = lines.find((l) => l.startsWith(">> "));
    const res = lines.find((l) => l.startsWith("<< "));
    if (req === undefined || res === undefined) continue;
    out.push({ file: f, request: req.slice(3), response: JSON.parse(res.slice(3)) });
  }
  return out;
}

const DEBUG_METHODS = [
  "debug_getRawBlock",
  "debug_getRawHeader",
  "debug_getRawReceipts",
  "debug_getRawTransaction",
  "debug_traceBlockByHash",
  "debug_traceBlockByNumber",
  "debug_traceTransaction",
];

describe("rpc/debug vs rpc-compat", function () {
  this.timeout(120_000);
  let d: Dispatcher;
  let chain: Blockchain;
  let reader: ChainReader;
  const q = async (method: string, params: unknown[]): Promise<any> => {
    const reply = await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP);
    return JSON.parse(reply as string);
  };
  before(() => {
    ({ chain, reader } = loadChain());
    d = new Registry([
      ...debugApi({ chain, reader, gasCap: 50_000_000n }),
      ...traceApi({ chain, reader, gasCap: 50_000_000n }),
    ]).forApis(["debug", "trace"]);
  });

  for (const method of DEBUG_METHODS) {
    for (const x of exchanges(method)) {
      it(`${method}/${x.file}`, async () => {
        const reply = await d.handleText(x.request, HTTP);
        assert.notEqual(reply, null);
        assert.deepEqual(JSON.parse(reply as string), x.response);
      });
    }
  }

  it("every tracer replays every block; callTracer gasUsed matches the receipts", async () => {
    for (let n = 1; n <= chain.head.number; n++) {
      const num = `0x${n.toString(16)}`;
      const r = await q("debug_traceBlockByNumber", [num, { tracer: "callTracer", tracerConfig: { withLog: true } }]);
      assert.equal(r.error, undefined, `block ${n}`);
      const b = reader.block(reader.resolve({ kind: "number", number: n }) as Uint8Array);
      const receipts = b?.receipts ?? [];
      assert.equal(r.result.length, receipts.length);
      r.result.forEach((x: any, i: number) => {
        const prev = i === 0 ? 0 : receipts[i - 1].cumulativeGasUsed;
        assert.equal(Number(x.result.gasUsed), receipts[i].cumulativeGasUsed - prev, `block ${n} tx ${i}`);
      });
      for (const tracer of ["prestateTracer", "4byteTracer"]) {
        const z = await q("debug_traceBlockByNumber", [num, { tracer, tracerConfig: { diffMode: true } }]);
        assert.equal(z.error, undefined, `${tracer} block ${n}`);
      }
      const pt = await q("trace_block", [num]);
      assert.equal(pt.error, undefined);
    }
  });

  it("debug_traceTransaction of a later tx in a block equals its entry of the block trace", async () => {
    const block = await q("debug_traceBlockByNumber", ["0x1"]);
    const last = block.result.at(-1);
    const one = await q("debug_traceTransaction", [last.txHash]);
    assert.deepEqual(one.result, last.result);
  });

  it("debug_traceCall, trace_call, trace_filter and the errors", async () => {
    const from = "0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f";
    const identity = "0x0000000000000000000000000000000000000004";
    const c = await q("debug_traceCall", [{ from, to: identity, data: "0x1234" }, "latest", { tracer: "callTracer" }]);
    assert.deepEqual(c.result, {
      from,
      gas: "0x2faf080",
      gasUsed: "0x5258",
      to: identity,
      input: "0x1234",
      output: "0x1234",
      value: "0x0",
      type: "CALL",
    });
    const p = await q("trace_call", [{ from, to: identity, data: "0x1234" }, ["trace"], "latest"]);
    assert.equal(p.result.output, "0x1234");
    assert.equal(p.result.trace[0].action.callType, "call");
    const f = await q("trace_filter", [{ fromBlock: "0x1", toBlock: "0x8", count: 3, after: 1 }]);
    assert.equal(f.result.length, 3);
    const all = await q("trace_filter", [{ fromBlock: "0x1", toBlock: "0x8" }]);
    assert.deepEqual(f.result, all.result.slice(1, 4));
    const tx = await q("trace_transaction", [all.result[0].transactionHash]);
    assert.deepEqual(tx.result[0], all.result[0]);
    const replay = await q("trace_replayBlockTransactions", ["0x1", ["trace"]]);
    assert.equal(replay.result[0].transactionHash, all.result[0].transactionHash);
    assert.deepEqual((await q("debug_traceBlockByNumber", ["0x1", { tracer: "nope" }])).error, {
      code: -32000,
      message: "tracer not found",
    });
    assert.equal((await q("debug_traceBlockByNumber", ["0x1", { timeout: "10s" }])).error, undefined);
    assert.equal((await q("debug_traceBlockByNumber", ["0x1", { timeout: "soon" }])).error.code, -32000);
  });

  it("trace_filter's reply is held to its cap: exactly its length answers, one less is -32003", async () => {
    const all = await q("trace_filter", [{ fromBlock: "0x1", toBlock: "0x8" }]);
    assert.ok(all.result.length >= 2);
    const len = JSON.stringify(all.result).length;
    const capped = (resultSizeLimit: number) =>
      new Registry(traceApi({ chain, reader, gasCap: 50_000_000n, resultSizeLimit })).forApis(["trace"]);
    const ask = async (d2: Dispatcher) =>
      JSON.parse(
        (await d2.handleText(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "trace_filter",
            params: [{ fromBlock: "0x1", toBlock: "0x8" }],
          }),
          HTTP,
        )) as string,
      );
    assert.deepEqual((await ask(capped(len))).result, all.result);
    assert.deepEqual((await ask(capped(len - 1))).error, { code: -32003, message: "response too large" });
  });

  /** The block of the chain whose struct-log trace is longest, and that trace. */
  let longest: { num: string; result: any[]; logs: number } | null = null;
  async function longestStructTrace(): Promise<{ num: string; result: any[]; logs: number }> {
    if (longest !== null) return longest;
    let best = { num: "0x1", result: [] as any[], logs: -1 };
    for (let n = 1; n <= chain.head.number; n++) {
      const num = `0x${n.toString(16)}`;
      const r = (await q("debug_traceBlockByNumber", [num, { enableMemory: true, enableReturnData: true }])).result;
      const logs = r.reduce((a: number, x: any) => a + x.result.structLogs.length, 0);
      if (logs > best.logs) best = { num, result: r, logs };
    }
    longest = best;
    return best;
  }

  it("struct logs are held to the reply cap as they are recorded: exactly the reply answers, less is -32003 (issue 26)", async () => {
    const { num, result, logs } = await longestStructTrace();
    assert.ok(logs >= 50, `${logs} struct logs`);
    const opts = { enableMemory: true, enableReturnData: true };
    const len = JSON.stringify(result).length;
    const capped = (resultSizeLimit: number) =>
      new Registry(debugApi({ chain, reader, gasCap: 50_000_000n, resultSizeLimit })).forApis(["debug"]);
    const ask = async (d2: Dispatcher, method: string, params: unknown[]) =>
      JSON.parse((await d2.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP)) as string);
    assert.deepEqual((await ask(capped(len), "debug_traceBlockByNumber", [num, opts])).result, result);
    const over = { code: -32003, message: "response too large" };
    assert.deepEqual((await ask(capped(len >> 2), "debug_traceBlockByNumber", [num, opts])).error, over);
    const txHash = result[result.length - 1].txHash;
    assert.deepEqual((await ask(capped(100), "debug_traceTransaction", [txHash, opts])).error, over);
    // Other tracers are bounded by gas, and held to the cap by the dispatcher.
    assert.equal(
      (await ask(capped(100), "debug_traceTransaction", [txHash, { tracer: "callTracer" }])).error,
      undefined,
    );
  });

  it("a struct logger's count is a lower bound of its logs' JSON, and it stops recording past its budget", async () => {
    const { num } = await longestStructTrace();
    const b = reader.block(reader.resolve({ kind: "number", number: Number(num) }) as Uint8Array)!;
    const opts = { enableMemory: true, enableReturnData: true };
    const run = (budget: TraceBudget) => {
      const loggers = b.txs.map(() => new StructLogger({ ...opts, budget }));
      replayBlock(chain, b, (i) => loggers[i]!);
      return loggers.map((l) => l.result().structLogs);
    };
    const free = new TraceBudget(Number.MAX_SAFE_INTEGER);
    const all = run(free);
    const chars = all.reduce((a, logs) => a + logs.reduce((c, e) => c + JSON.stringify(e).length + 1, 0), 0);
    assert.ok(free.used > 0 && free.used <= chars, `${free.used} counted, ${chars} in JSON`);
    // A budget of a tenth: recording stops once it is spent, one log past it at most.
    const tenth = new TraceBudget(Math.floor(free.used / 10));
    const cut = run(tenth);
    assert.ok(tenth.over);
    const largest = Math.max(...all.flat().map((e) => JSON.stringify(e).length + 1));
    assert.ok(tenth.used <= tenth.max + largest, `${tenth.used} counted for a budget of ${tenth.max}`);
    const kept = cut.reduce((a, logs) => a + logs.length, 0);
    const total = all.reduce((a, logs) => a + logs.length, 0);
    assert.ok(kept < total, `${kept} of ${total} logs kept`);
  });

  it("trace_replayBlockTransactions with stateDiff: the created contract is born, the sender changes", async () => {
    const r = await q("trace_replayBlockTransactions", ["0x1", ["trace", "stateDiff"]]);
    const first = r.result[0];
    const created = first.trace[0].result.address;
    const born = first.stateDiff[created];
    assert.deepEqual(born.code, { "+": first.trace[0].result.code });
    assert.deepEqual(born.nonce, { "+": "0x0" }, "block 1 is before EIP-158");
    const sender = first.stateDiff[first.trace[0].action.from];
    assert.deepEqual(Object.keys(sender.nonce), ["*"]);
    assert.equal(sender.code, "=");
  });

  it("trace_block lists the block reward of a pre-merge block after the tx traces", async () => {
    const r = await q("trace_block", ["0x1"]);
    const last = r.result.at(-1);
    assert.equal(last.type, "reward");
    assert.equal(last.action.rewardType, "block");
    assert.equal(last.action.value, "0x4563918244f40000", "5 ETH before Byzantium");
    assert.equal(r.result.filter((t: any) => t.type === "reward").length, 1);
  });
});
