/**
 * Limits of the tx pool at their edges (README "Limits"): the 128 KiB tx size, `--txpool.accountslots`,
 * `--txpool.globalslots`, `--txpool.accountqueue`, `--txpool.globalqueue` (what happens to the tx one
 * past each is geth legacypool's: a refusal for the size and the full pool, truncation otherwise,
 * and a tx the truncation drops at once is answered 'txpool is full') and `--txpool.lifetime`.
 * Every source is bounded alike: there is no local exemption.
 */
import { strict as assert } from "node:assert";
import { parseExecArgs } from "../../../../src/cli/execFlags.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import type { SignedTx } from "../../../../src/tx/tx.js";
import type { PooledTx } from "../../../../src/txpool/pooledTx.js";
import type { TxPool } from "../../../../src/txpool/txPool.js";
import { DEFAULT_TX_POOL_OPTIONS, TX_MAX_SIZE, TX_SLOT_SIZE } from "../../../../src/txpool/txPoolOptions.js";
import { type AllocEntry, addr, chainOf, dyn, ETHER, GWEI, l1Genesis, poolOf, raw } from "../../txpool/fixtures.js";

function chain(accounts = 6) {
  const alloc = new Map<Uint8Array, AllocEntry>();
  for (let i = 1; i <= accounts; i++) alloc.set(addr(i), { balance: 100n * ETHER });
  return chainOf(l1Genesis(alloc));
}

async function add(pool: TxPool, txs: SignedTx[]): Promise<(string | null)[]> {
  return (await pool.add(txs)).map((r) => (r.error === null ? null : r.error.message));
}

function nonces(pool: TxPool, which: "pending" | "queued", k: number): number[] {
  const g = pool[which]().find((x: readonly PooledTx[]) => bytesToHex(x[0]!.sender) === bytesToHex(addr(k)));
  return (g ?? []).map((p) => Number(p.nonce));
}

/** A transfer from account 1 carrying `n` zero bytes of data. */
const withData = (n: number, nonce = 0) => dyn(1, nonce, { data: new Uint8Array(n), gas: 21_000n + 4n * BigInt(n) });

describe("limits: tx pool", function () {
  this.timeout(30_000);

  it("the flag defaults are geth legacypool's", () => {
    const r = parseExecArgs([], {});
    assert.ok(r.kind === "run");
    if (r.kind !== "run") return;
    const c = r.config;
    assert.deepEqual(
      [c["txpool.accountslots"], c["txpool.globalslots"], c["txpool.accountqueue"], c["txpool.globalqueue"]],
      [16, 5120, 64, 1024],
    );
    assert.equal(c["txpool.lifetime"], 3 * 3600 * 1000);
    assert.deepEqual(
      [DEFAULT_TX_POOL_OPTIONS.accountSlots, DEFAULT_TX_POOL_OPTIONS.globalSlots],
      [16, 5120],
      "the pool's own defaults agree",
    );
  });

  it("tx size: exactly 128 KiB encoded is taken, one byte more is 'oversized data'", async () => {
    assert.equal(TX_MAX_SIZE, 131_072);
    // Find the data length whose encoding is exactly the limit (the RLP headers do not change size here).
    const base = raw(withData(130_000)).length - 130_000;
    const at = withData(TX_MAX_SIZE - base);
    assert.equal(raw(at).length, TX_MAX_SIZE);
    const over = withData(TX_MAX_SIZE - base + 1);
    assert.equal(raw(over).length, TX_MAX_SIZE + 1);
    const { pool } = poolOf(chain());
    assert.deepEqual(await add(pool, [over]), ["oversized data: transaction size 131073, limit 131072"]);
    assert.deepEqual(await add(pool, [at]), [null]);
  });

  it("--txpool.accountqueue: N queued txs of one account stay, the N+1th (highest nonce) is refused 'txpool is full'", async () => {
    const { pool } = poolOf(chain(), { accountQueue: 3 });
    assert.deepEqual(await add(pool, [dyn(1, 1), dyn(1, 2), dyn(1, 3)]), [null, null, null]);
    assert.deepEqual(nonces(pool, "queued", 1), [1, 2, 3]);
    assert.deepEqual(await add(pool, [dyn(1, 4)]), ["txpool is full"]);
    assert.deepEqual(nonces(pool, "queued", 1), [1, 2, 3]);
  });

  it("a one-account flood of 3,000 queued 120 KB txs: past --txpool.accountqueue refused, the pool's bytes under its bound", async () => {
    const accountQueue = DEFAULT_TX_POOL_OPTIONS.accountQueue;
    const { pool } = poolOf(chain());
    const data = new Uint8Array(120_000).fill(1);
    const results: (string | null)[] = [];
    // Nonce 0 never comes: every tx is queued. One tx per add, as eth_sendRawTransaction pools them.
    for (let n = 1; n <= 3000; n++) {
      results.push(...(await add(pool, [dyn(1, n, { data, gas: 21_000n + 16n * 120_000n + 1_000_000n })])));
    }
    assert.deepEqual(results.slice(0, accountQueue), new Array(accountQueue).fill(null));
    assert.deepEqual(new Set(results.slice(accountQueue)), new Set(["txpool is full"]));
    const size = pool.size();
    assert.equal(size.txs, accountQueue);
    // Each tx takes 4 slots of 32 KiB; the pool's byte bound is its slot bound × 32 KiB.
    assert.ok(size.bytes > accountQueue * 120_000 && size.bytes <= accountQueue * 4 * TX_SLOT_SIZE, `${size.bytes}`);
    const { globalSlots, globalQueue } = DEFAULT_TX_POOL_OPTIONS;
    assert.ok(size.slots <= globalSlots + globalQueue);
  });

  it("--txpool.globalqueue: N queued txs in all stay; at N+1 the account heard from longest ago loses one", async () => {
    const { pool, clock } = poolOf(chain(), { globalQueue: 3 });
    await add(pool, [dyn(1, 1), dyn(1, 2)]);
    clock.t += 1000;
    await add(pool, [dyn(2, 1)]);
    assert.equal(pool.status().queued, 3);
    clock.t += 1000;
    await add(pool, [dyn(3, 1)]);
    assert.equal(pool.status().queued, 3);
    assert.deepEqual(nonces(pool, "queued", 1), [1]);
    assert.deepEqual(nonces(pool, "queued", 3), [1]);
  });

  it("--txpool.globalslots with --txpool.accountslots: at N pending nothing moves; at N+1 the largest account is cut", async () => {
    const { pool } = poolOf(chain(), { globalSlots: 4, accountSlots: 1, globalQueue: 100 });
    assert.deepEqual(await add(pool, [dyn(1, 0), dyn(1, 1), dyn(1, 2), dyn(2, 0)]), [null, null, null, null]);
    assert.equal(pool.status().pending, 4);
    assert.deepEqual(nonces(pool, "pending", 1), [0, 1, 2]);
    assert.deepEqual(await add(pool, [dyn(2, 1)]), [null]);
    assert.equal(pool.status().pending, 4);
    assert.deepEqual(nonces(pool, "pending", 1), [0, 1]);
    assert.deepEqual(nonces(pool, "pending", 2), [0, 1]);
  });

  it("a full pool (globalslots + globalqueue slots): the last slot is taken, then a cheaper tx is underpriced, a tx larger than the pool 'txpool is full'", async () => {
    const small = { globalSlots: 2, globalQueue: 1, accountSlots: 1 };
    const { pool } = poolOf(chain(), small);
    assert.deepEqual(
      await add(pool, [dyn(1, 0, { tip: 3n * GWEI }), dyn(2, 0, { tip: 3n * GWEI }), dyn(3, 0, { tip: 3n * GWEI })]),
      [null, null, null],
    );
    assert.deepEqual(await add(pool, [dyn(4, 0, { tip: 2n * GWEI })]), ["transaction underpriced"]);
    // 4 slots cannot be freed from a pool of 3.
    const big = dyn(4, 0, { tip: 50n * GWEI, maxFee: 60n * GWEI, data: new Uint8Array(100_000), gas: 2_000_000n });
    assert.deepEqual(await add(pool, [big]), ["txpool is full"]);
    // A better-paying one takes the place of a cheaper one.
    assert.deepEqual(await add(pool, [dyn(4, 0, { tip: 50n * GWEI, maxFee: 60n * GWEI })]), [null]);
    assert.equal(pool.size().slots, 3);
  });

  it("--txpool.lifetime: queued txs live exactly the lifetime, and go 1 ms later", async () => {
    const { pool, clock } = poolOf(chain(), { lifetime: 60_000 });
    await add(pool, [dyn(1, 2)]);
    clock.t += 60_000;
    assert.equal(pool.evictExpired(), 0);
    clock.t += 1;
    assert.equal(pool.evictExpired(), 1);
    assert.equal(pool.status().queued, 0);
  });
});
