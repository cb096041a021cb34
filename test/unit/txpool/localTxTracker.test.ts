/**
 * The locals tracker behind eth_sendRawTransaction (geth ≥ 1.15 core/txpool/locals with
 * eth/api_backend.go `SendTx`): RPC txs get no exemption from the pool's limits, the tracker
 * re-submits the ones the pool let go once there is room, forgets the included ones, and is itself
 * bounded (an account's accountslots + accountqueue txs, the pool's slot total), so a flood from one
 * account is refused past the bound instead of growing memory.
 */
import { strict as assert } from "node:assert";
import type { Blockchain } from "../../../src/chain/blockchain.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import type { Dispatcher, RpcConnection } from "../../../src/rpc/dispatch.js";
import { ethApi } from "../../../src/rpc/eth/api.js";
import { Registry } from "../../../src/rpc/registry.js";
import { txHash } from "../../../src/tx/envelope.js";
import type { SignedTx } from "../../../src/tx/tx.js";
import { LocalTxTracker } from "../../../src/txpool/localTxTracker.js";
import type { TxPool } from "../../../src/txpool/txPool.js";
import { DEFAULT_TX_POOL_OPTIONS, TX_SLOT_SIZE, type TxPoolOptions } from "../../../src/txpool/txPoolOptions.js";
import { ethDepsOf } from "../rpc/eth/ethDeps.js";
import { addr, chainOf, dyn, ETHER, GWEI, l1Genesis, mine, poolOf, raw } from "./fixtures.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

interface Env {
  chain: Blockchain;
  pool: TxPool;
  tracker: LocalTxTracker | null;
  d: Dispatcher;
}

/** The node's wiring (execNode): the tracker's bounds follow the pool's options; `nolocals`: none. */
function envOf(opts: Partial<TxPoolOptions> = {}, nolocals = false): Env {
  const alloc = new Map([1, 2, 3, 4].map((k) => [addr(k), { balance: 1000n * ETHER }] as const));
  const chain = chainOf(l1Genesis(alloc));
  const { pool } = poolOf(chain, opts);
  const o = pool.opts;
  const tracker = nolocals
    ? null
    : new LocalTxTracker(pool, { perAccount: o.accountSlots + o.accountQueue, slots: o.globalSlots + o.globalQueue });
  const deps = ethDepsOf(chain, pool, { localTxs: tracker, txFeeCap: 0 });
  return { chain, pool, tracker, d: new Registry(ethApi(deps)).forApis(["eth"]) };
}

async function send(
  d: Dispatcher,
  tx: SignedTx,
): Promise<{ result?: string; error?: { code: number; message: string } }> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "eth_sendRawTransaction",
    params: [bytesToHex(raw(tx))],
  });
  return JSON.parse((await d.handleText(body, HTTP)) as string);
}

/** Mines the pool's executable txs and moves the pool onto the new head, as the node's fan-out does. */
function mineAndReset(env: Env): number {
  const built = mine(env.chain, { pool: env.pool });
  env.pool.onNewHead(env.chain.head);
  return built.body.transactions.length;
}

describe("txpool/LocalTxTracker: locals re-submitted, not exempt, and bounded", function () {
  this.timeout(120_000);

  it("a one-account flood of queued 120 KB txs over RPC: refused past accountslots + accountqueue; pool and tracker bytes bounded", async () => {
    const env = envOf();
    const { accountSlots, accountQueue, globalSlots, globalQueue } = DEFAULT_TX_POOL_OPTIONS;
    const data = new Uint8Array(120_000).fill(7);
    const answers: (string | null)[] = [];
    // Nonce 0 never comes, so every tx is queued.
    for (let n = 1; n <= 300; n++) {
      const r = await send(env.d, dyn(1, n, { data, gas: 3_000_000n }));
      answers.push(r.error === undefined ? null : `${r.error.code} ${r.error.message}`);
    }
    const bound = accountSlots + accountQueue;
    assert.deepEqual(answers.slice(0, bound), new Array(bound).fill(null), "answered with the hash up to the bound");
    assert.deepEqual(new Set(answers.slice(bound)), new Set(["-32000 txpool is full"]));
    const pool = env.pool.size();
    const tracked = env.tracker!.size();
    assert.equal(pool.txs, accountQueue, "the pool keeps accountqueue of them");
    assert.equal(tracked.txs, bound);
    // 4 slots of 32 KiB each.
    assert.ok(pool.bytes <= accountQueue * 4 * TX_SLOT_SIZE, `pool ${pool.bytes} B`);
    assert.ok(tracked.bytes <= bound * 4 * TX_SLOT_SIZE, `tracker ${tracked.bytes} B`);
    assert.ok(tracked.slots <= globalSlots + globalQueue);
    // The tracked txs the pool holds share its bytes: the tracker adds 16 txs' worth at most.
    let extra = 0;
    for (let n = 1; n <= bound; n++) if (!env.pool.has(txHash(dyn(1, n, { data, gas: 3_000_000n })))) extra++;
    assert.equal(extra, accountSlots);
  });

  it("with --txpool.nolocals (no tracker) the pool's refusal is the answer", async () => {
    const env = envOf({ accountQueue: 2 }, true);
    for (const n of [1, 2]) assert.equal((await send(env.d, dyn(1, n))).error, undefined);
    assert.deepEqual((await send(env.d, dyn(1, 3))).error, { code: -32000, message: "txpool is full" });
  });

  it("a local tx evicted by better-paying ones is re-submitted once there is room, and forgotten once included", async () => {
    const env = envOf({ globalSlots: 1, globalQueue: 1, accountSlots: 1 });
    const local = dyn(1, 0, { tip: GWEI });
    const h = bytesToHex(txHash(local));
    assert.equal((await send(env.d, local)).result, h);
    // Two better-paying txs from elsewhere fill the 2 slots: the local one is evicted like any other.
    const rs = await env.pool.add([dyn(2, 0, { tip: 5n * GWEI }), dyn(3, 0, { tip: 5n * GWEI })]);
    assert.deepEqual(
      rs.map((r) => r.error),
      [null, null],
    );
    assert.equal(env.pool.has(txHash(local)), false);
    assert.equal(env.tracker!.has(txHash(local)), true);
    // Still no room: re-submitted, refused underpriced, still tracked.
    assert.equal(await env.tracker!.recheck(), 1);
    assert.equal(env.pool.has(txHash(local)), false);
    // A block takes the two: the recheck brings the local one back, the next block includes it.
    assert.equal(mineAndReset(env), 2);
    assert.equal(await env.tracker!.recheck(), 1);
    assert.equal(env.pool.has(txHash(local)), true);
    assert.equal(mineAndReset(env), 1);
    assert.equal(await env.tracker!.recheck(), 0);
    assert.deepEqual(env.tracker!.size(), { txs: 0, slots: 0, bytes: 0 });
  });

  it("a temporary refusal is tracked and answered with the hash; a lasting one is answered with the error", async () => {
    const env = envOf({ globalSlots: 1, globalQueue: 1, accountSlots: 1 });
    await env.pool.add([dyn(2, 0, { tip: 5n * GWEI }), dyn(3, 0, { tip: 5n * GWEI })]);
    const cheap = dyn(1, 0, { tip: GWEI });
    // Underpriced in a full pool: geth's IsTemporaryReject, so kept for later.
    assert.equal((await send(env.d, cheap)).result, bytesToHex(txHash(cheap)));
    assert.equal(env.pool.has(txHash(cheap)), false);
    assert.equal(env.tracker!.has(txHash(cheap)), true);
    // More than the balance: not temporary.
    const broke = dyn(4, 0, { value: 2000n * ETHER });
    const r = await send(env.d, broke);
    assert.match(r.error?.message ?? "", /^insufficient funds for gas \* price \+ value/);
    assert.equal(env.tracker!.has(txHash(broke)), false);
  });

  it("bounds: an account's txs past perAccount and txs past the slot total are not tracked; a replacement takes its nonce's place", () => {
    const alloc = new Map([[addr(1), { balance: ETHER }]] as const);
    const { pool } = poolOf(chainOf(l1Genesis(alloc)));
    const tracker = new LocalTxTracker(pool, { perAccount: 2, slots: 3 });
    const entry = (tx: SignedTx) => ({ hash: txHash(tx), sender: addr(1), nonce: tx.nonce, encoded: raw(tx) });
    assert.equal(tracker.track(entry(dyn(1, 0))), true);
    assert.equal(tracker.track(entry(dyn(1, 1))), true);
    assert.equal(tracker.track(entry(dyn(1, 2))), false, "a third nonce of the account");
    assert.equal(tracker.track(entry(dyn(1, 1, { tip: 3n * GWEI }))), true, "a replacement of nonce 1");
    assert.equal(tracker.has(txHash(dyn(1, 1))), false);
    assert.deepEqual(tracker.size().txs, 2);
    const big = dyn(1, 0, { data: new Uint8Array(40_000), gas: 1_000_000n });
    // 2 slots in place of nonce 0's 1: 3 in all, at the bound.
    assert.equal(tracker.track(entry(big)), true);
    assert.equal(tracker.size().slots, 3);
    assert.equal(tracker.track(entry(dyn(1, 1, { data: new Uint8Array(40_000), gas: 1_000_000n }))), false);
  });
});
