/**
 * The pool's pieces on their own: option defaults and sanitizing, the replacement rule's bounds,
 * NonceList operations, the builder iterator and its TxSource adapter, and the RPC fee-cap helper.
 */
import { strict as assert } from "node:assert";
import type { SignedTx } from "../../../src/tx/tx.js";
import { reject } from "../../../src/txpool/errors.js";
import { NonceList } from "../../../src/txpool/nonceList.js";
import {
  comparePrice,
  effectiveTip,
  numSlots,
  type PooledTx,
  replacementAllowed,
} from "../../../src/txpool/pooledTx.js";
import { checkTxFee, checkTxFeeOf } from "../../../src/txpool/txFeeCap.js";
import { DEFAULT_TX_POOL_OPTIONS, sanitizeTxPoolOptions, TX_MAX_SIZE } from "../../../src/txpool/txPoolOptions.js";
import { TxsByPriceAndNonce, txSourceOf } from "../../../src/txpool/txsByPriceAndNonce.js";
import { dyn, GWEI } from "./fixtures.js";

let seq = 0;

function fake(sender: number, nonce: number, maxFee: bigint, tip: bigint, cost = 0n, gasLimit = 21_000n): PooledTx {
  const s = new Uint8Array(20).fill(sender);
  const h = new Uint8Array(32);
  h[0] = sender;
  h[1] = nonce;
  h[2] = seq++ & 0xff;
  return {
    tx: dyn(1, nonce),
    hash: h,
    hashKey: String.fromCharCode(...h),
    sender: s,
    senderKey: String.fromCharCode(...s),
    encoded: new Uint8Array(0),
    nonce: BigInt(nonce),
    gasLimit,
    maxFee,
    tip,
    slots: 1,
    l2Cost: cost,
    rollup: null,
    cost,
    time: seq,
    conditional: null,
    rejected: false,
  };
}

describe("txpool parts", () => {
  it("options: geth defaults, values below 1 sanitized", () => {
    assert.deepEqual(sanitizeTxPoolOptions(), DEFAULT_TX_POOL_OPTIONS);
    assert.equal(DEFAULT_TX_POOL_OPTIONS.globalSlots, 5120);
    assert.equal(DEFAULT_TX_POOL_OPTIONS.lifetime, 3 * 3600 * 1000);
    assert.equal(TX_MAX_SIZE, 131_072);
    const o = sanitizeTxPoolOptions({ priceLimit: 0n, priceBump: 0, accountSlots: 3, globalQueue: -1 });
    assert.equal(o.priceLimit, 1n);
    assert.equal(o.priceBump, 10);
    assert.equal(o.accountSlots, 3);
    assert.equal(o.globalQueue, 1024);
    // --txpool.lifetime=0 or below: the default (geth sanitize), never an expiry of every queued tx.
    for (const lifetime of [0, -60_000]) {
      assert.equal(sanitizeTxPoolOptions({ lifetime }).lifetime, DEFAULT_TX_POOL_OPTIONS.lifetime);
    }
    assert.equal(numSlots(1), 1);
    assert.equal(numSlots(32 * 1024), 1);
    assert.equal(numSlots(32 * 1024 + 1), 2);
  });

  it("errors: geth's %w wrapping", () => {
    assert.deepEqual(reject("ALREADY_KNOWN"), { code: "ALREADY_KNOWN", message: "already known" });
    assert.equal(
      reject("NONCE_TOO_LOW", "next nonce 2, tx nonce 1").message,
      "nonce too low: next nonce 2, tx nonce 1",
    );
  });

  it("replacement: strictly higher caps, each ≥ old × (100+bump)/100 (integer division)", () => {
    const old = fake(1, 0, 105n, 15n);
    // 105*110/100 = 115 (115.5 floored), 15*110/100 = 16 (16.5 floored)
    assert.equal(replacementAllowed(old, fake(1, 0, 115n, 16n), 10), true);
    assert.equal(replacementAllowed(old, fake(1, 0, 114n, 16n), 10), false);
    assert.equal(replacementAllowed(old, fake(1, 0, 115n, 15n), 10), false);
    // Zero caps: the threshold is 0, but the new caps must still be strictly higher.
    const zero = fake(1, 0, 0n, 0n);
    assert.equal(replacementAllowed(zero, fake(1, 0, 1n, 1n), 10), true);
    assert.equal(replacementAllowed(zero, fake(1, 0, 1n, 0n), 10), false);
  });

  it("price order: effective tip, then fee cap, then tip", () => {
    const a = fake(1, 0, 10n, 5n);
    const b = fake(2, 0, 7n, 5n);
    assert.equal(effectiveTip(a, 4n), 5n);
    assert.equal(effectiveTip(b, 4n), 3n);
    assert.equal(effectiveTip(b, 8n), -1n);
    assert.equal(effectiveTip(b, null), 5n);
    assert.ok(comparePrice(b, a, 4n) < 0);
    assert.ok(comparePrice(b, a, null) < 0, "equal tips: the lower fee cap is cheaper");
    assert.equal(comparePrice(a, fake(3, 0, 10n, 5n), 4n), 0);
  });

  it("NonceList: add/replace, forward, filter (strict), ready, cap, totalCost", () => {
    const l = new NonceList();
    for (const n of [3, 1, 2, 5]) assert.equal(l.add(fake(1, n, 10n, 1n, BigInt(n)), 10).inserted, true);
    assert.deepEqual(
      l.flatten().map((p) => p.nonce),
      [1n, 2n, 3n, 5n],
    );
    const r = l.add(fake(1, 2, 10n, 1n), 10);
    assert.equal(r.inserted, false);
    assert.equal(l.totalCost(), 11n);
    assert.deepEqual(
      l.forward(2n).map((p) => p.nonce),
      [1n],
    );
    assert.deepEqual(
      l.ready(2n).map((p) => p.nonce),
      [2n, 3n],
    );
    assert.deepEqual(
      l.flatten().map((p) => p.nonce),
      [5n],
    );
    assert.deepEqual(l.ready(4n), [], "first nonce above start");

    const m = new NonceList();
    for (const [n, cost] of [
      [0, 1n],
      [1, 9n],
      [2, 1n],
      [3, 1n],
    ] as const) {
      m.add(fake(2, n, 10n, 1n, cost), 10);
    }
    const loose = new NonceList();
    for (const p of m.flatten()) loose.add(p, 10);
    const f = m.filter(5n, 21_000n, true);
    assert.deepEqual(
      f.drops.map((p) => p.nonce),
      [1n],
    );
    assert.deepEqual(
      f.invalids.map((p) => p.nonce),
      [2n, 3n],
    );
    assert.equal(m.size, 1);
    const g = loose.filter(5n, 21_000n, false);
    assert.equal(g.invalids.length, 0);
    assert.equal(loose.size, 3);
    assert.deepEqual(
      loose.cap(1).map((p) => p.nonce),
      [2n, 3n],
    );
    assert.deepEqual(
      loose.filter(100n, 20_000n, false).drops.map((p) => p.nonce),
      [0n],
      "gas above the block gas limit",
    );
  });

  it("TxsByPriceAndNonce and its TxSource", () => {
    const a = [fake(1, 0, 100n, 9n), fake(1, 1, 100n, 1n)];
    const b = [fake(2, 0, 100n, 5n), fake(2, 1, 100n, 4n)];
    const c = [fake(3, 0, 100n, 5n)];
    const it = new TxsByPriceAndNonce([a, b, c], 10n);
    // b and c tie at 5: the earlier arrival (b) first.
    const order: string[] = [];
    for (let p = it.peek(); p !== null; p = it.peek()) {
      order.push(`${p.sender[0]}:${p.nonce}`);
      it.shift();
    }
    assert.deepEqual(order, ["1:0", "2:0", "3:0", "2:1", "1:1"]);

    const src = txSourceOf(new TxsByPriceAndNonce([a, b, c], 10n));
    const got: string[] = [];
    for (let x = src.next(); x !== null; x = src.next()) {
      got.push(`${x.sender[0]}:${(x.tx as SignedTx).nonce}`);
      if (x.sender[0] === 2) src.reject();
    }
    assert.deepEqual(got, ["1:0", "2:0", "3:0", "1:1"]);

    const empty = new TxsByPriceAndNonce([], null);
    assert.equal(empty.peek(), null);
    empty.shift();
    empty.pop();
    assert.equal(empty.size, 0);
    // Pre-London: the tip is the gas price.
    assert.equal(new TxsByPriceAndNonce([[fake(4, 0, 7n, 7n)]], null).peekFee(), 7n);
  });

  it("txfeecap: geth's message, 0 disables", () => {
    assert.equal(checkTxFee(100n * GWEI, 10_000_000n, 1), null);
    assert.equal(
      checkTxFee(105n * GWEI, 10_000_000n, 1),
      "tx fee (1.05 ether) exceeds the configured cap (1.00 ether)",
    );
    assert.equal(checkTxFee(10n ** 30n, 21_000n, 0), null);
    assert.equal(
      checkTxFeeOf(dyn(1, 0, { maxFee: 100_000n * GWEI, tip: GWEI })),
      "tx fee (2.10 ether) exceeds the configured cap (1.00 ether)",
    );
    assert.equal(checkTxFeeOf(dyn(1, 0)), null);
  });
});
