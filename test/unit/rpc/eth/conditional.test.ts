/**
 * eth_sendRawTransactionConditional as op-geth serves it (internal/sequencerapi/api.go,
 * core/types/transaction_conditional.go, params/conditional_tx_params.go, miner/worker.go):
 * - not registered without `--rollup.sequencertxconditionalenabled`: an unknown method (-32601);
 * - refusals in op-geth's order and words: cost above 1000 (-32005), inverted ranges, the head's
 *   header, the head's state, the head's parent's state (-32003 each), the cost rate limit (-32005);
 * - an accepted tx is pooled with its conditions, which the builder checks again at the tx's turn in
 *   the block being built (header and the state so far): a tx failing them there is left out and
 *   leaves the pool at the next head;
 * - with a sequencer to forward to, the tx and its conditions go there and nowhere else.
 */
import { strict as assert } from "node:assert";
import type { Blockchain } from "../../../../src/chain/blockchain.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import type { JsonValue } from "../../../../src/primitives/json.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { ethApi } from "../../../../src/rpc/eth/api.js";
import { CostRateLimiter } from "../../../../src/rpc/eth/conditional.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { encodeTx, txHash } from "../../../../src/tx/envelope.js";
import { TxPool } from "../../../../src/txpool/txPool.js";
import { type AllocEntry, addr, chainOf, dyn, ETHER, GWEI, l1Genesis, mine } from "../../txpool/fixtures.js";
import { ethDepsOf } from "./ethDeps.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

/** PUSH1 1; PUSH1 0; SSTORE; STOP — any call sets slot 0 to 1. */
const SETTER = hexToBytes("0x00000000000000000000000000000000005e7700");
const SETTER_CODE = hexToBytes("0x600160005500");
/** keccak256(rlp("")): the storage root of an account without storage (types.EmptyRootHash). */
const EMPTY_ROOT = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";
const word = (v: number): string => `0x${v.toString(16).padStart(64, "0")}`;
const hex = (v: bigint | number): string => `0x${v.toString(16)}`;

interface Env {
  chain: Blockchain;
  pool: TxPool;
  d: Dispatcher;
  forwarded: { raw: Uint8Array; conditional: JsonValue }[];
}

function setup(opts: { enabled?: boolean; costRateLimit?: number; forward?: boolean } = {}): Env {
  const alloc = new Map<Uint8Array, AllocEntry>([1, 2, 3, 4].map((k) => [addr(k), { balance: 10n * ETHER }]));
  alloc.set(SETTER, { balance: 0n, code: SETTER_CODE });
  const chain = chainOf(l1Genesis(alloc));
  const pool = new TxPool({}, { chain });
  const forwarded: Env["forwarded"] = [];
  const deps = ethDepsOf(chain, pool, {
    forwardRawTx: opts.forward === true ? async () => new Uint8Array(32).fill(1) : null,
    forwardRawTxConditional:
      opts.forward === true
        ? async (raw: Uint8Array, conditional: JsonValue) => {
            forwarded.push({ raw, conditional });
            return new Uint8Array(32).fill(0xab);
          }
        : null,
    txConditional: opts.enabled === false ? null : { costRateLimit: opts.costRateLimit ?? 5000 },
  });
  // A first block, so the head has a parent with state.
  mine(chain);
  return { chain, pool, d: new Registry(ethApi(deps)).forApis(["eth"]), forwarded };
}

async function rpc(d: Dispatcher, method: string, params: unknown[]): Promise<{ result?: any; error?: any }> {
  return JSON.parse((await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP)) as string);
}

async function setSlot(e: Env): Promise<void> {
  const tx = dyn(4, 0, { to: SETTER, gas: 60_000n });
  assert.equal((await e.pool.add([tx]))[0].error, null);
  mine(e.chain, { pool: e.pool });
  e.pool.onNewHead(e.chain.head);
}

const send = (e: Env, raw: Uint8Array, cond: unknown) =>
  rpc(e.d, "eth_sendRawTransactionConditional", [bytesToHex(raw), cond]);

describe("rpc/eth: eth_sendRawTransactionConditional", function () {
  this.timeout(60_000);

  it("is not served unless enabled (op-geth does not register it)", async () => {
    const e = setup({ enabled: false });
    const r = await send(e, encodeTx(dyn(1, 0)), {});
    assert.deepEqual(r.error, {
      code: -32601,
      message: "the method eth_sendRawTransactionConditional does not exist/is not available",
    });
  });

  it("refuses in op-geth's order with its codes and texts", async () => {
    const e = setup();
    const raw = encodeTx(dyn(1, 0));
    const head = e.chain.head;
    // Cost: one per account, one per slot; 999 slots on one account is 1000 (allowed), 1000 slots is 1001.
    const slots = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [word(i + 1), word(0)]));
    const tooCostly = await send(e, raw, { knownAccounts: { [bytesToHex(SETTER)]: slots(1000) } });
    assert.deepEqual(tooCostly.error, { code: -32005, message: "conditional cost, 1001, exceeded max: 1000" });
    const inverted = await send(e, raw, { blockNumberMin: "0x5", blockNumberMax: "0x4" });
    assert.deepEqual(inverted.error, {
      code: -32003,
      message: "failed conditional validation: block number minimum constraint must be less than the maximum",
    });
    const invertedTime = await send(e, raw, { timestampMin: "0x5", timestampMax: "0x4" });
    assert.equal(
      invertedTime.error?.message,
      "failed conditional validation: timestamp minimum constraint must be less than the maximum",
    );
    const past = await send(e, raw, { blockNumberMax: hex(head.number - 1) });
    assert.deepEqual(past.error, {
      code: -32003,
      message: "failed header check: failed block number maximmum constraint",
    });
    const future = await send(e, raw, { blockNumberMin: hex(head.number + 1) });
    assert.equal(future.error?.message, "failed header check: failed block number minimum constraint");
    const early = await send(e, raw, { timestampMin: hex(head.timestamp + 1) });
    assert.equal(early.error?.message, "failed header check: failed timestamp minimum constraint");
    const late = await send(e, raw, { timestampMax: hex(head.timestamp - 1) });
    assert.equal(late.error?.message, "failed header check: failed timestamp maximum constraint");
    const slot = await send(e, raw, { knownAccounts: { [bytesToHex(SETTER)]: { [word(0)]: word(7) } } });
    assert.deepEqual(slot.error, {
      code: -32003,
      message: `failed state check: failed account storage slot key ${word(0)} constraint. Got ${word(0)}, Expected ${word(7)}`,
    });
    const root = await send(e, raw, { knownAccounts: { [bytesToHex(addr(1))]: word(1) } });
    assert.deepEqual(root.error, {
      code: -32003,
      message: `failed state check: failed account storage root constraint. Got ${EMPTY_ROOT}, Expected ${word(1)}`,
    });
    // Nothing was pooled by any refusal.
    assert.deepEqual(e.pool.status(), { pending: 0, queued: 0 });
  });

  it("checks the state of the head's parent too", async () => {
    const e = setup();
    await setSlot(e);
    const head = e.chain.head;
    const cond = { knownAccounts: { [bytesToHex(SETTER)]: { [word(0)]: word(1) } } };
    const r = await send(e, encodeTx(dyn(1, 0)), cond);
    assert.deepEqual(r.error, {
      code: -32003,
      message: `failed parent block ${bytesToHex(head.parentHash)} state check: failed account storage slot key ${word(0)} constraint. Got ${word(0)}, Expected ${word(1)}`,
    });
    // One block later the parent holds the value too.
    mine(e.chain);
    e.pool.onNewHead(e.chain.head);
    const ok = await send(e, encodeTx(dyn(1, 0)), cond);
    assert.equal(ok.error, undefined, JSON.stringify(ok.error));
  });

  it("pools an accepted tx with its conditions; the builder includes it while they hold", async () => {
    const e = setup();
    const tx = dyn(1, 0);
    const head = e.chain.head;
    const cond = {
      knownAccounts: { [bytesToHex(SETTER)]: { [word(0)]: word(0) }, [bytesToHex(addr(1))]: EMPTY_ROOT },
      blockNumberMin: hex(head.number),
      blockNumberMax: hex(head.number + 1),
      timestampMax: hex(head.timestamp + 2),
    };
    const r = await send(e, encodeTx(tx), cond);
    assert.equal(r.result, bytesToHex(txHash(tx)));
    assert.notEqual(e.pool.get(txHash(tx))?.conditional, null);
    const b = mine(e.chain, { pool: e.pool, timestampDelta: 2 });
    assert.deepEqual(b.body.transactions.map(bytesToHex), [bytesToHex(encodeTx(tx))]);
  });

  it("a tx whose conditions fail when its block is built is left out and dropped from the pool", async () => {
    const e = setup();
    const head = e.chain.head;
    const conditional = dyn(1, 0);
    const other = dyn(2, 0);
    assert.equal((await send(e, encodeTx(conditional), { timestampMax: hex(head.timestamp + 1) })).error, undefined);
    assert.equal((await e.pool.add([other]))[0].error, null);
    // The next block is 2 s later: past the tx's timestampMax.
    const b = mine(e.chain, { pool: e.pool, timestampDelta: 2 });
    assert.deepEqual(b.body.transactions.map(bytesToHex), [bytesToHex(encodeTx(other))]);
    assert.equal(e.pool.get(txHash(conditional))?.rejected, true);
    e.pool.onNewHead(e.chain.head);
    assert.equal(e.pool.get(txHash(conditional)), null, "dropped at the next head");
    assert.deepEqual(e.pool.status(), { pending: 0, queued: 0 });
  });

  it("the builder reads the state as the block has it so far", async () => {
    const e = setup();
    const cond = { knownAccounts: { [bytesToHex(SETTER)]: { [word(0)]: word(0) } } };
    const conditional = dyn(1, 0, { tip: GWEI });
    assert.equal((await send(e, encodeTx(conditional), cond)).error, undefined);
    // A better-paying tx ahead of it in the same block sets the slot the condition reads.
    const setter = dyn(4, 0, { to: SETTER, gas: 60_000n, tip: 3n * GWEI });
    assert.equal((await e.pool.add([setter]))[0].error, null);
    const b = mine(e.chain, { pool: e.pool });
    assert.deepEqual(b.body.transactions.map(bytesToHex), [bytesToHex(encodeTx(setter))]);
    e.pool.onNewHead(e.chain.head);
    assert.equal(e.pool.get(txHash(conditional)), null);
  });

  it("charges the cost to a rate limiter before the tx is decoded", async () => {
    // Rate 0: the burst (3 × 1000) is all there is.
    const e = setup({ costRateLimit: 0 });
    const costly = {
      knownAccounts: {
        [bytesToHex(SETTER)]: Object.fromEntries(Array.from({ length: 999 }, (_, i) => [word(i + 1), word(0)])),
      },
    };
    for (let i = 0; i < 3; i++) {
      const r = await send(e, Uint8Array.of(0x02, 0xc0), costly);
      assert.equal(r.error?.code, -32000, "past the limiter, the undecodable tx is refused");
    }
    const r = await send(e, Uint8Array.of(0x02, 0xc0), costly);
    assert.deepEqual(r.error, { code: -32005, message: "cost 1000 rate limited" });
  });

  it("the limiter refills at its rate and makes a caller wait for what is missing", () => {
    let now = 0;
    const l = new CostRateLimiter(1000, 3000, () => now);
    assert.equal(l.reserve(1000), 0);
    assert.equal(l.reserve(1000), 0);
    assert.equal(l.reserve(1000), 0);
    assert.equal(l.reserve(500), 500, "500 tokens at 1000/s: half a second");
    now = 2000;
    assert.equal(l.reserve(1000), 0, "refilled: 1500 tokens after the 500 owed");
    assert.equal(l.reserve(3001), null, "above the burst: never");
  });

  it("with a sequencer, the tx and its conditions are forwarded there only", async () => {
    const e = setup({ forward: true });
    const tx = dyn(1, 0);
    const r = await send(e, encodeTx(tx), {
      knownAccounts: { [bytesToHex(addr(1))]: EMPTY_ROOT },
      timestampMin: "0x1",
      blockNumberMax: "0x100",
    });
    assert.equal(r.result, bytesToHex(new Uint8Array(32).fill(0xab)), "the sequencer's answer");
    assert.equal(e.forwarded.length, 1);
    assert.deepEqual(e.forwarded[0].raw, encodeTx(tx));
    assert.deepEqual(e.forwarded[0].conditional, {
      knownAccounts: { [bytesToHex(addr(1))]: EMPTY_ROOT },
      blockNumberMax: "0x100",
      timestampMin: "0x1",
    });
    assert.equal(e.pool.get(txHash(tx)), null);
  });

  it("decodes the conditional as Go's encoding/json does", async () => {
    const e = setup();
    const raw = encodeTx(dyn(1, 0));
    const noPrefix = await send(e, raw, { blockNumberMin: "5" });
    assert.deepEqual(noPrefix.error, {
      code: -32602,
      message:
        "invalid argument 1: json: cannot unmarshal hex string without 0x prefix into Go struct field TransactionConditional.blockNumberMin of type *hexutil.Big",
    });
    const notObject = await send(e, raw, "x");
    assert.equal(
      notObject.error?.message,
      "invalid argument 1: json: cannot unmarshal string into Go value of type types.TransactionConditional",
    );
    const missing = await rpc(e.d, "eth_sendRawTransactionConditional", [bytesToHex(raw)]);
    assert.equal(missing.error?.message, "missing value for required argument 1");
    // Field names match case-insensitively; null is an empty conditional.
    const ok = await send(e, raw, { TIMESTAMPMIN: "0x1" });
    assert.equal(ok.error, undefined, JSON.stringify(ok.error));
    const again = await send(e, encodeTx(dyn(2, 0)), null);
    assert.equal(again.error, undefined, JSON.stringify(again.error));
  });
});
