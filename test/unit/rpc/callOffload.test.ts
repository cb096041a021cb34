/**
 * Read-only execution in the evmCall worker pool (rpc/callOffload.ts): every eth_call,
 * eth_estimateGas, eth_createAccessList and eth_simulateV1 request of the execution-apis rpc-compat
 * suite, plus debug_traceCall and trace_call, answered through a pool of one worker over a shared
 * RocksDB handle must equal, byte for byte, the answer of the same methods on the main thread.
 * Then: bad arguments decoded in the worker, a full queue (-32005), a call past the timeout
 * (aborted), a call that raced a block commit (run again), the committed view of a store caught
 * between an import's writes, and eth_call run on the main thread first within a time budget
 * (the same answers, synchronously; past the budget, the pool; a shape over it time after time
 * goes to the pool directly).
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { META_PENDING } from "../../../src/chain/chainStore.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { committedView } from "../../../src/chain/stateAt.js";
import { PiscinaPool } from "../../../src/node/pools.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { decodeHeader } from "../../../src/rlp/decode.js";
import {
  CallWorker,
  HEAVY_STRIKES,
  InlineRunner,
  OFFLOADED_METHODS,
  offloadCalls,
  TRACE_METHODS,
} from "../../../src/rpc/callOffload.js";
import { debugApi } from "../../../src/rpc/debug/api.js";
import { traceApi } from "../../../src/rpc/debug/traceApi.js";
import type { Dispatcher, RpcConnection } from "../../../src/rpc/dispatch.js";
import { ethCallMethods } from "../../../src/rpc/eth/api.js";
import { EthBackend } from "../../../src/rpc/eth/backend.js";
import { ChainReader } from "../../../src/rpc/eth/chainReader.js";
import { type AnyMethod, Registry } from "../../../src/rpc/registry.js";
import { encodeBatch, encodeRangeDeletes, joinEncodedBatches } from "../../../src/storage/batchCodec.js";
import { getShared, type KvStore, WriteBatch } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import type { TableName } from "../../../src/storage/tables.js";
import { fixturePath } from "../../utils/fixtures.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";

const DIR = fixturePath("execution-apis-rpc", "tests");
const genesis = JSON.parse(readFileSync(join(DIR, "genesis.json"), "utf8"));
const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "127.0.0.1" }, subs: null };
const GAS_CAP = 50_000_000n;

function load(kv: KvStore): Blockchain {
  const chain = Blockchain.init(kv, parseGenesis(genesis), genesis.config);
  const all = new Uint8Array(readFileSync(join(DIR, "chain.rlp")));
  let last: Uint8Array | null = null;
  for (let pos = 0; pos < all.length; ) {
    const h = decodeHeader(all, pos);
    last = chain.insertBlock(all.subarray(pos, h.start + h.length)).hash;
    pos = h.start + h.length;
  }
  chain.setHead(last as Uint8Array);
  return chain;
}

function callMethods(chain: Blockchain): AnyMethod[] {
  const deps = { chain, reader: new ChainReader(chain), gasCap: GAS_CAP };
  return [...ethCallMethods(new EthBackend(deps)), ...debugApi(deps), ...traceApi(deps)].filter((m) =>
    OFFLOADED_METHODS.includes(m.name),
  );
}

/** Init code deploying a runtime that answers 42 (CODECOPY of the 10 bytes after it, RETURN). */
const CREATE_42 = "0x600a600c600039600a6000f3602a60005260206000f3";

/** The rpc-compat requests of the offloaded methods, and a few of our own. */
function requests(): string[] {
  const out: string[] = [];
  for (const m of ["eth_call", "eth_estimateGas", "eth_createAccessList", "eth_simulateV1"]) {
    for (const f of readdirSync(join(DIR, m)).sort()) {
      for (const line of readFileSync(join(DIR, m, f), "utf8").split("\n")) {
        if (line.startsWith(">> ")) out.push(line.slice(3));
      }
    }
  }
  const req = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: "2.0", id: 7, method, params });
  const call = {
    from: "0x0000000000000000000000000000000000000000",
    to: "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667",
    input: "0xff01",
  };
  out.push(
    req("debug_traceCall", [call, "latest", { tracer: "callTracer" }]),
    req("debug_traceCall", [call, "0x5", {}]),
    req("trace_call", [call, ["trace", "stateDiff"], "latest"]),
    req("eth_call", [call, "safe"]),
    req("eth_call", [{ ...call, to: "0x12" }, "latest"]),
    req("eth_call", []),
    req("eth_call", [call, "latest", null, null, 5]),
    req("eth_estimateGas", [call, "0xffffff"]),
    req("trace_call", [call]),
    // `data` and `input` differ: invalid params decoded in the worker as on the main thread (issue 23).
    req("eth_call", [{ ...call, data: "0x01" }, "latest"]),
    req("eth_estimateGas", [{ ...call, data: "0x01" }]),
    req("eth_createAccessList", [{ ...call, data: "0x01" }]),
    req("debug_traceCall", [{ ...call, data: "0x01" }, "latest", {}]),
    // Creation calls (no `to`): the init code runs, on both sides of the hop (issue 23).
    req("eth_call", [{ from: call.from, input: CREATE_42 }, "latest"]),
    req("eth_estimateGas", [{ from: call.from, input: CREATE_42 }]),
    req("eth_createAccessList", [{ from: call.from, input: CREATE_42 }, "latest"]),
  );
  return out;
}

/**
 * An endless loop put in place by a state override: JUMPDEST, eight times KECCAK256 of nothing
 * (PUSH0 PUSH0 KECCAK256 POP), PUSH1 0 JUMP. A hash per 36 gas keeps the 50M gas busy for ~0.3 s
 * or more even in the interpreter's native core, where a bare JUMPDEST PUSH1 0 JUMP ran out of gas
 * in well under the 100 ms timeouts these tests need it to outlast.
 */
const LOOP_CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "eth_call",
  params: [
    { to: "0x00000000000000000000000000000000000000aa", gas: "0x2faf080" },
    "latest",
    { "0x00000000000000000000000000000000000000aa": { code: `0x5b${"5f5f2050".repeat(8)}600056` } },
  ],
});

async function answer(d: Dispatcher, text: string): Promise<string> {
  return String(await d.handleText(text, HTTP));
}

describe("rpc/callOffload: read-only execution in the evmCall pool", function () {
  this.timeout(180_000);
  let dir: string;
  let kv: RocksKv;
  let chain: Blockchain;
  let pool: PiscinaPool;
  let main: Dispatcher;
  let offloaded: Dispatcher;

  before(async () => {
    dir = makeTmpDir();
    kv = await RocksKv.open(dir);
    chain = load(kv);
    pool = new PiscinaPool(
      "evmCall",
      { threads: 1, maxQueue: 16 },
      { store: { engine: "rocksdb", handle: kv.shareHandle() }, gasCap: GAS_CAP },
    );
    const methods = callMethods(chain);
    main = new Registry(methods).forApis(["eth", "debug", "trace"]);
    offloaded = new Registry(
      offloadCalls(methods, { pool, head: () => chain.headBlockHash, timeoutMs: 0 }) as AnyMethod[],
    ).forApis(["eth", "debug", "trace"]);
  });

  after(async () => {
    await pool.destroy();
    kv.releaseHandle();
    await kv.close();
    removeDir(dir);
  });

  /** The pool, counting the tasks it runs; `hold(n)` may make the n-th wait. */
  function countingPool(hold: (n: number) => Promise<void> | undefined = () => undefined) {
    const p = {
      runs: 0,
      threads: 1,
      queueSize: 0,
      busy: 0,
      canAcceptWork: () => true,
      run: async <T>(task: unknown, transfer?: readonly ArrayBufferLike[], signal?: AbortSignal): Promise<T> => {
        p.runs++;
        await hold(p.runs);
        return (await pool.run(task, transfer, signal)) as T;
      },
    };
    return p;
  }

  /** Traces of stored blocks (issue 26): of a block with txs, its first tx, and trace_filter over all. */
  function traceRequests(): string[] {
    const reader = new ChainReader(chain);
    let n = chain.head.number;
    while (n > 1 && (reader.block(chain.store.canonicalHash(n)!)?.txs.length ?? 0) === 0) n--;
    const b = reader.block(chain.store.canonicalHash(n)!)!;
    const num = `0x${n.toString(16)}`;
    const req = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: "2.0", id: 9, method, params });
    return [
      req("debug_traceBlockByNumber", [num]),
      req("debug_traceBlockByNumber", [num, { tracer: "callTracer", tracerConfig: { withLog: true } }]),
      req("debug_traceBlockByHash", [bytesToHex(b.hash), { tracer: "prestateTracer" }]),
      req("debug_traceTransaction", [bytesToHex(b.txHashes[0]!), { enableMemory: true }]),
      req("debug_traceTransaction", [`0x${"11".repeat(32)}`]),
      req("debug_intermediateRoots", [bytesToHex(b.hash)]),
      req("trace_block", [num]),
      req("trace_transaction", [bytesToHex(b.txHashes[0]!)]),
      req("trace_replayBlockTransactions", [num, ["trace", "stateDiff"]]),
      req("trace_filter", [{ fromBlock: "0x1", toBlock: num }]),
      req("debug_traceBlockByNumber", ["0x0"]),
    ];
  }

  it("answers every request exactly as the main thread does", async () => {
    const reqs = [...requests(), ...traceRequests()];
    assert.ok(reqs.length > 80, `${reqs.length} requests`);
    let errors = 0;
    for (const r of reqs) {
      const want = await answer(main, r);
      const got = await answer(offloaded, r);
      assert.equal(got, want, r);
      if (want.includes('"error"')) errors++;
    }
    // The set covers refusals as well as results.
    assert.ok(errors >= 10, `${errors} error answers`);
  });

  it("traces of stored blocks run in the pool, as one task each, and answer text held to the reply cap (issue 26)", async () => {
    const counting = countingPool();
    const d = new Registry(
      offloadCalls(callMethods(chain), {
        pool: counting,
        head: () => chain.headBlockHash,
        timeoutMs: 0,
        cacheEntries: 0,
      }) as AnyMethod[],
    ).forApis(["eth", "debug", "trace"]);
    const reqs = traceRequests();
    for (const r of reqs) assert.equal(await answer(d, r), await answer(main, r), r);
    assert.equal(counting.runs, reqs.length);
    for (const m of TRACE_METHODS) assert.ok(OFFLOADED_METHODS.includes(m), m);
    // A worker whose reply cap is under a trace's text answers -32003 for it, the rest as before.
    const w = CallWorker.open(kv, GAS_CAP, 200);
    const task = (method: string, params: unknown[]) => ({
      kind: "rpc" as const,
      method,
      params,
      head: chain.headBlockHash,
    });
    const traced = JSON.parse(reqs[1]!).params as unknown[];
    assert.deepEqual(await w.run(task("debug_traceBlockByNumber", traced)), {
      error: { code: -32003, message: "response too large" },
    });
    assert.deepEqual(
      await w.run(task("eth_call", [{ to: "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", input: "0xff01" }, "latest"])),
      {
        result: "0xffee",
      },
    );
  });

  it("no answer names a worker, a class or a stack: argument errors, a dead worker, a missing head", async () => {
    // The same invalid-params answer on both sides of the hop.
    const both = JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "eth_call",
      params: [{ to: "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", input: "0xff01", data: "0x01" }, "latest"],
    });
    const r = JSON.parse(await answer(offloaded, both));
    assert.deepEqual(r.error, {
      code: -32602,
      message:
        'invalid argument 0: both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
    });
    // Every answer of the suite through the pool: nothing internal in an error message.
    for (const q of requests()) {
      const a = JSON.parse(await answer(offloaded, q));
      if (a.error !== undefined) {
        assert.doesNotMatch(a.error.message, /worker|piscina|thread|\.ts:|\n\s+at /i, q);
        assert.doesNotMatch(a.error.message, /\b[A-Z]\w*Error\b/, q);
      }
    }
    // The hop itself fails (the worker died): -32603 with geth's text; the cause goes to the log.
    const logged: string[] = [];
    const dying = {
      threads: 1,
      queueSize: 0,
      busy: 0,
      canAcceptWork: () => true,
      run: async () => {
        throw new TypeError("Cannot read properties of undefined (reading 'x') at workers/evmCall.ts:27");
      },
    };
    const d = new Registry(
      offloadCalls(callMethods(chain), {
        pool: dying,
        head: () => chain.headBlockHash,
        timeoutMs: 0,
        onWorkerError: (m, e) => logged.push(`${m}: ${e.message}`),
      }) as AnyMethod[],
    ).forApis(["eth"]);
    const dead = JSON.parse(await answer(d, requests()[0]!));
    assert.deepEqual(dead.error, { code: -32603, message: "method handler crashed" });
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /^eth_\w+: Cannot read properties/);
    // A head the worker's view does not hold: geth's "header not found", not the worker's internals.
    const w = CallWorker.open(kv, GAS_CAP);
    const missing = await w.run({
      kind: "rpc",
      method: "eth_call",
      params: [{ to: "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667" }, "latest"],
      head: new Uint8Array(32).fill(0xee),
    });
    assert.deepEqual(missing, { error: { code: -32000, message: "header not found" } });
  });

  it("refuses at once when the queue is full (-32005)", async () => {
    const full = {
      threads: 1,
      queueSize: 16,
      busy: 1,
      canAcceptWork: () => false,
      run: async () => assert.fail("must not run"),
    };
    const d = new Registry(
      offloadCalls(callMethods(chain), { pool: full, head: () => chain.headBlockHash, timeoutMs: 0 }) as AnyMethod[],
    ).forApis(["eth"]);
    const r = JSON.parse(await answer(d, requests()[0]!));
    assert.equal(r.error.code, -32005);
    assert.match(r.error.message, /queue is full/);
  });

  it("answers a repeated request under the same head from the reply cache, and only then", async () => {
    const counting = countingPool();
    let head = chain.headBlockHash;
    const d = new Registry(
      offloadCalls(callMethods(chain), { pool: counting, head: () => head, timeoutMs: 0 }) as AnyMethod[],
    ).forApis(["eth"]);
    const req = (sel: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_call",
        params: [{ to: "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", input: "0xff01" }, sel],
      });
    const first = await answer(d, req("latest"));
    assert.equal(await answer(d, req("latest")), first);
    assert.equal(counting.runs, 1, "the second came from the cache");
    await answer(d, req("safe"));
    await answer(d, req("safe"));
    assert.equal(counting.runs, 3, "safe is never cached");
    head = chain.store.canonicalHash(chain.head.number - 1)!;
    await answer(d, req("latest"));
    assert.equal(counting.runs, 4, "a new head empties the cache");
    const none = new Registry(
      offloadCalls(callMethods(chain), {
        pool: counting,
        head: () => head,
        timeoutMs: 0,
        cacheEntries: 0,
      }) as AnyMethod[],
    ).forApis(["eth"]);
    await answer(none, req("latest"));
    await answer(none, req("latest"));
    assert.equal(counting.runs, 6, "cacheEntries 0: no cache");
  });

  it("a reply computed under an old head is not kept for the new one", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = countingPool((n) => (n === 1 ? gate : undefined));
    let head = chain.headBlockHash;
    const d = new Registry(
      offloadCalls(callMethods(chain), { pool: slow, head: () => head, timeoutMs: 0 }) as AnyMethod[],
    ).forApis(["eth"]);
    const req = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "eth_call",
      params: [{ to: "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", input: "0xff01" }, "latest"],
    });
    const other = req.replace("0xff01", "0xff02");
    const first = answer(d, req); // starts under the old head and waits
    head = chain.store.canonicalHash(chain.head.number - 1)!;
    await answer(d, other); // another request under the new head empties the cache
    release();
    await first; // its reply belongs to the old head: not kept
    await answer(d, req);
    assert.equal(slow.runs, 3, "the request ran again under the new head");
  });

  it("aborts a call past --rpc.evmtimeout with geth's message, and the pool still serves", async () => {
    const d = new Registry(
      offloadCalls(callMethods(chain), { pool, head: () => chain.headBlockHash, timeoutMs: 100 }) as AnyMethod[],
    ).forApis(["eth"]);
    const r = JSON.parse(await answer(d, LOOP_CALL));
    assert.deepEqual(r.error, { code: -32000, message: "execution aborted (timeout = 100ms)" });
    // The worker that ran it was replaced; the next call is served as usual.
    const next = requests()[0]!;
    assert.equal(await answer(offloaded, next), await answer(main, next));
  });

  it("runs a call again when a block was committed while it ran", async () => {
    const mem = new MemoryKv();
    const c = load(mem);
    let seq = 0;
    let reads = 0;
    // A view whose sequence moves once, mid-call, as if the main thread committed a block.
    const racing = new Proxy(mem, {
      get(target, prop, recv) {
        if (prop === "sequence") return seq;
        if (prop === "get") {
          return (table: never, key: Uint8Array) => {
            if (++reads === 5) seq++;
            return target.get(table, key);
          };
        }
        return Reflect.get(target, prop, recv);
      },
    }) as MemoryKv & { sequence: number };
    const w = CallWorker.open(racing, GAS_CAP);
    const r = await w.run({
      kind: "rpc",
      method: "eth_call",
      params: [{ to: "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", input: "0xff01" }, "latest"],
      head: c.headBlockHash,
    });
    assert.deepEqual(r, { result: "0xffee" });
    assert.equal(w.retries, 1);
  });

  it("a trace keeps its answer when the blocks committed meanwhile wrote none of its keys, else runs again (issue 26)", async () => {
    const mem = new MemoryKv();
    const c = load(mem);
    const [, traced] = traceRequests().map((r) => JSON.parse(r));
    const want = JSON.parse(await answer(main, JSON.stringify(traced))).result;
    /**
     * A worker over `mem` whose sequence moves at the 5th read after the first one outside `meta`;
     * `write` runs then, with that read's table and key.
     */
    const racing = async (write: (table: TableName, key: Uint8Array) => void) => {
      let seq = 0;
      let reads = 0;
      let first: [TableName, Uint8Array] | null = null;
      const view = new Proxy(mem, {
        get(target, prop, recv) {
          if (prop === "sequence") return seq;
          if (prop === "get") {
            return (table: TableName, key: Uint8Array) => {
              if (first === null && table !== "meta") first = [table, key];
              if (first !== null && ++reads === 5) {
                seq++;
                write(...first);
              }
              return target.get(table, key);
            };
          }
          return Reflect.get(target, prop, recv);
        },
      }) as MemoryKv & { sequence: number };
      const w = CallWorker.open(view, GAS_CAP);
      const r = await w.run({ kind: "rpc", method: traced.method, params: traced.params, head: c.headBlockHash });
      assert.ok("json" in r, JSON.stringify(r));
      assert.deepEqual(JSON.parse(r.json), want);
      return w;
    };
    // The sequence moved, nothing the trace read was written: kept, not run again.
    const quiet = await racing(() => undefined);
    assert.deepEqual([quiet.retries, quiet.held], [0, 1]);
    // An import between its writes, whose undo record holds a key the trace read: run again.
    const touched = await racing((table, key) => {
      const undo = new WriteBatch().put(table, key, mem.get(table, key)!);
      mem.write(new WriteBatch().put("meta", META_PENDING, encodeBatch(undo)));
    });
    assert.deepEqual([touched.retries, touched.held], [1, 0]);
  });

  it("a trace after a commit reads through a cache of the new sequence, not the one filled before it (issue 26)", async () => {
    const mem = new MemoryKv();
    const c = load(mem);
    const [, traced] = traceRequests().map((r) => JSON.parse(r));
    const want = JSON.parse(await answer(main, JSON.stringify(traced))).result;
    let seq = 0;
    let first: Uint8Array | null = null;
    const view = new Proxy(mem, {
      get(target, prop, recv) {
        if (prop === "sequence") return seq;
        if (prop === "get") {
          return (table: TableName, key: Uint8Array) => {
            if (first === null && table === "canonical") first = key.slice();
            return target.get(table, key);
          };
        }
        return Reflect.get(target, prop, recv);
      },
    }) as MemoryKv & { sequence: number };
    const task = { kind: "rpc" as const, method: traced.method, params: traced.params, head: c.headBlockHash };
    const w = CallWorker.open(view, GAS_CAP);
    // Twice at this sequence, so the worker's cache for it is the one filled.
    await w.run(task);
    const before = await w.run(task);
    assert.ok("json" in before, JSON.stringify(before));
    assert.deepEqual(JSON.parse(before.json), want);
    // A write removes the canonical-index row the trace read (a row the worker's cache keeps), and
    // the DB's sequence moves: the answer is now what a worker that never saw the old row gives, not
    // the one the old cache still holds.
    assert.ok(first !== null, "the trace read no canonical-index row");
    mem.write(new WriteBatch().del("canonical", first));
    seq++;
    const fresh = await CallWorker.open(view, GAS_CAP).run(task);
    assert.notDeepEqual(fresh, before);
    assert.deepEqual(await w.run(task), fresh);
  });

  /** A dispatcher whose eth_calls run inline first within `budgetMs`, over a counting pool. */
  function inlineFirst(budgetMs: number, timeoutMs: number) {
    const counting = countingPool();
    const deps = { chain, reader: new ChainReader(chain), gasCap: GAS_CAP };
    const d = new Registry(
      offloadCalls(callMethods(chain), {
        pool: counting,
        head: () => chain.headBlockHash,
        timeoutMs,
        cacheEntries: 0,
        inline: { deps, budgetMs },
      }) as AnyMethod[],
    ).forApis(["eth", "debug", "trace"]);
    return { counting, d };
  }

  it("inline: eth_call within the budget answers on the main thread, synchronously, as the pool would", async () => {
    const { counting, d } = inlineFirst(60_000, 0);
    let calls = 0;
    for (const r of requests()) {
      const method = (JSON.parse(r) as { method: string }).method;
      const runs = counting.runs;
      const got = d.handleText(r, HTTP);
      if (method === "eth_call") {
        calls++;
        assert.equal(typeof got, "string", `answered synchronously: ${r} ${String(await got)}`);
        assert.equal(counting.runs, runs, `not sent to the pool: ${r}`);
      }
      assert.equal(String(await got), await answer(main, r), r);
    }
    assert.ok(calls >= 8, `${calls} eth_calls`);
    // A budget of 0 (or less) sends every call to the pool.
    for (const budget of [0, -1]) {
      const none = inlineFirst(budget, 0);
      const call = requests().find((r) => r.includes('"eth_call"'))!;
      const got = none.d.handleText(call, HTTP);
      assert.equal(typeof got, "object");
      assert.equal(String(await got), await answer(main, call));
      assert.equal(none.counting.runs, 1);
    }
  });

  it("inline: a call past the budget is stopped and run in the pool, whose timeout answers it", async () => {
    const { counting, d } = inlineFirst(5, 100);
    const r = JSON.parse(await answer(d, LOOP_CALL));
    assert.deepEqual(r.error, { code: -32000, message: "execution aborted (timeout = 100ms)" });
    assert.equal(counting.runs, 1);
  });

  it("inline: a call shape over the budget time after time goes to the pool directly, until it fits again", () => {
    const deps = { chain, reader: new ChainReader(chain), gasCap: GAS_CAP };
    const runner = new InlineRunner(deps, 1);
    const heavy = [{ to: "0x00000000000000000000000000000000000000AA", input: "0x12345678ff" }, "latest"];
    const sameShape = [{ to: "0x00000000000000000000000000000000000000aa", data: "0x12345678" }];
    const other = [{ to: "0x00000000000000000000000000000000000000aa", input: "0x87654321" }];
    assert.equal(runner.candidate("eth_call", heavy)?.name, "eth_call");
    assert.equal(runner.candidate("eth_estimateGas", heavy), undefined, "only eth_call runs inline");
    for (let i = 1; i < HEAVY_STRIKES; i++) {
      runner.overBudget(heavy);
      assert.ok(runner.candidate("eth_call", heavy) !== undefined, `${i} overrun(s) are not enough`);
    }
    runner.overBudget(sameShape);
    assert.equal(runner.candidate("eth_call", heavy), undefined);
    assert.equal(runner.candidate("eth_call", sameShape), undefined, "target and selector make the shape");
    assert.ok(runner.candidate("eth_call", other) !== undefined, "another selector still runs inline");
    runner.inBudget(heavy);
    assert.ok(runner.candidate("eth_call", heavy) !== undefined, "a call that fit clears the shape");
  });

  it("the committed view undoes an import caught between its writes", () => {
    const mem = new MemoryKv();
    const key = new Uint8Array([1, 2, 3]);
    mem.write(new WriteBatch().put("hashedAccounts", key, new Uint8Array([9])));
    assert.equal(committedView(mem), mem, "nothing pending: the store itself");
    // The import wrote the new value and left the undo record that restores the old one.
    const fresh = new Uint8Array([4, 4]);
    const undo = new WriteBatch().put("hashedAccounts", key, new Uint8Array([1])).del("hashedAccounts", fresh);
    mem.write(
      new WriteBatch()
        .put("hashedAccounts", key, new Uint8Array([2]))
        .put("hashedAccounts", fresh, new Uint8Array([7]))
        .put("meta", META_PENDING, encodeBatch(undo)),
    );
    const v = committedView(mem);
    assert.deepEqual(v.get("hashedAccounts", key), new Uint8Array([1]));
    assert.equal(v.get("hashedAccounts", fresh), undefined);
    // A range delete hides every row under its prefix, as the store shows it now or later, point
    // reads and scans alike; an op after it in the record may put a row under it again.
    const p = new Uint8Array([5]);
    const rows = [new Uint8Array([5, 1]), new Uint8Array([5, 2]), new Uint8Array([6, 1])];
    const record = joinEncodedBatches([
      encodeRangeDeletes("hashedStorage", [p]),
      encodeBatch(new WriteBatch().put("hashedStorage", new Uint8Array([5, 9]), new Uint8Array([3]))),
    ]);
    const w = new WriteBatch().put("meta", META_PENDING, record);
    for (const r of rows) w.put("hashedStorage", r, new Uint8Array([1]));
    mem.write(w);
    const r = committedView(mem);
    assert.equal(r.get("hashedStorage", rows[0]!), undefined);
    assert.equal(getShared(r, "hashedStorage", rows[1]!), undefined);
    assert.deepEqual(r.get("hashedStorage", rows[2]!), new Uint8Array([1]), "outside the prefix");
    mem.write(new WriteBatch().put("hashedStorage", new Uint8Array([5, 3]), new Uint8Array([1])));
    assert.equal(r.get("hashedStorage", new Uint8Array([5, 3])), undefined, "written after the view was made");
    assert.deepEqual(
      [...r.iterate("hashedStorage")].map(([k]) => bytesToHex(k)),
      ["0x0509", "0x0601"],
    );
  });
});
