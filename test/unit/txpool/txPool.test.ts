/**
 * TxPool on a real L1 chain (Cancun genesis on a MemoryKv, blocks built and made canonical through
 * Blockchain): admission rules and geth's exact error strings, replacement, pending/queued,
 * per-account and global limits with eviction, lifetime, head changes (inclusion, demotion,
 * promotion, reorg reinjection), queries and the builder's iterator.
 */
import { strict as assert } from "node:assert";
import { toChecksumAddress } from "../../../src/primitives/address.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { encodeTx, txHash } from "../../../src/tx/envelope.js";
import { recoverSendersPacked } from "../../../src/tx/recoverPacked.js";
import { signTx } from "../../../src/tx/signer.js";
import { type BlobTx, type DepositTx, type SignedTx, TxType } from "../../../src/tx/tx.js";
import type { PooledTx } from "../../../src/txpool/pooledTx.js";
import type { AddResult, TxPool } from "../../../src/txpool/txPool.js";
import type { TaskPool } from "../../../src/util/taskPool.js";
import {
  type AllocEntry,
  addr,
  chainOf,
  dyn,
  ETHER,
  GWEI,
  key,
  L1_CHAIN_ID,
  l1Genesis,
  legacy,
  mine,
  poolOf,
  raw,
  TO,
} from "./fixtures.js";

const RICH = 100n * ETHER;

function alloc(entries: [number, AllocEntry][]): Map<Uint8Array, AllocEntry> {
  return new Map(entries.map(([k, e]) => [addr(k), e]));
}

function richChain(n = 6, extra: [number, AllocEntry][] = []) {
  const entries: [number, AllocEntry][] = [];
  for (let i = 1; i <= n; i++) entries.push([i, { balance: RICH }]);
  return chainOf(l1Genesis(alloc([...entries, ...extra])));
}

function errOf(r: AddResult): string | null {
  return r.error === null ? null : r.error.message;
}

async function add1(pool: TxPool, tx: SignedTx | Uint8Array): Promise<string | null> {
  const [r] = await pool.add([tx]);
  return errOf(r);
}

function nonces(txs: readonly PooledTx[] | undefined): number[] {
  return (txs ?? []).map((p) => Number(p.nonce));
}

function pendingOf(pool: TxPool, k: number): readonly PooledTx[] | undefined {
  return pool.pending().find((g) => bytesToHex(g[0].sender) === bytesToHex(addr(k)));
}

function queuedOf(pool: TxPool, k: number): readonly PooledTx[] | undefined {
  return pool.queued().find((g) => bytesToHex(g[0].sender) === bytesToHex(addr(k)));
}

describe("txpool/TxPool (L1)", function () {
  this.timeout(60_000);

  describe("admission", () => {
    it("pools a valid tx as pending and announces it", async () => {
      const chain = richChain();
      const { pool } = poolOf(chain);
      const seen: string[] = [];
      const off = pool.onPending((txs) => {
        for (const p of txs) seen.push(bytesToHex(p.hash));
      });
      const tx = dyn(1, 0);
      const [r] = await pool.add([raw(tx)]);
      assert.equal(r.error, null);
      assert.ok(r.hash !== null);
      assert.deepEqual(seen, [bytesToHex(r.hash)]);
      assert.deepEqual(pool.status(), { pending: 1, queued: 0 });
      assert.equal(pool.txStatus(r.hash), "pending");
      assert.equal(pool.get(r.hash)?.nonce, 0n);
      assert.equal(bytesToHex(pool.get(r.hash)!.encoded), bytesToHex(raw(tx)));
      assert.equal(pool.nonceAt(addr(1)), 1n);
      assert.equal(pool.nonceAt(addr(2)), 0n);
      off();
      await pool.add([dyn(1, 1)]);
      assert.equal(seen.length, 1, "unsubscribed");
    });

    it("already known, also within one batch", async () => {
      const { pool } = poolOf(richChain());
      const tx = dyn(1, 0);
      const rs = await pool.add([raw(tx), raw(tx)]);
      assert.deepEqual(rs.map(errOf), [null, "already known"]);
      assert.equal(await add1(pool, tx), "already known");
    });

    it("rejects undecodable bytes, deposits and blob txs", async () => {
      const { pool } = poolOf(richChain());
      const [bad] = await pool.add([Uint8Array.of(0x02, 0xc0)]);
      assert.equal(bad.hash, null);
      assert.equal(bad.error?.code, "DECODE");
      const deposit: DepositTx = {
        type: TxType.Deposit,
        sourceHash: new Uint8Array(32).fill(1),
        from: addr(1),
        to: TO,
        mint: 0n,
        value: 0n,
        gasLimit: 100_000n,
        isSystemTx: false,
        data: new Uint8Array(0),
      };
      assert.equal(await add1(pool, encodeTx(deposit)), "transaction type not supported");
      const blob = signTx(
        {
          type: TxType.Blob,
          chainId: L1_CHAIN_ID,
          nonce: 0n,
          maxPriorityFeePerGas: GWEI,
          maxFeePerGas: 10n * GWEI,
          gasLimit: 21_000n,
          to: TO,
          value: 0n,
          data: new Uint8Array(0),
          accessList: [],
          maxFeePerBlobGas: GWEI,
          blobVersionedHashes: [new Uint8Array(32).fill(1).fill(1, 0, 1)],
          yParity: 0,
          r: 0n,
          s: 0n,
        } satisfies BlobTx,
        key(1),
      );
      assert.equal(await add1(pool, blob), "transaction type not supported: received type 3");
      assert.deepEqual(pool.status(), { pending: 0, queued: 0 });
    });

    it("rejects txs of types the head's fork lacks", async () => {
      // London not active: a 1559 tx is refused with geth's wording.
      const json = l1Genesis(alloc([[1, { balance: RICH }]])) as {
        baseFeePerGas?: string;
        config: Record<string, unknown>;
      };
      delete json.baseFeePerGas;
      for (const k of ["londonBlock", "mergeNetsplitBlock", "terminalTotalDifficulty", "shanghaiTime", "cancunTime"]) {
        delete json.config[k];
      }
      const { pool } = poolOf(chainOf(json));
      assert.equal(
        await add1(pool, dyn(1, 0)),
        "transaction type not supported: type 2 rejected, pool not yet in London",
      );
      assert.equal(await add1(pool, legacy(1, 0, 2n * GWEI)), null);
    });

    it("oversized data, block gas limit, intrinsic gas, floor and init code", async () => {
      const { pool } = poolOf(richChain());
      const big = dyn(1, 0, { data: new Uint8Array(128 * 1024).fill(1), gas: 25_000_000n });
      assert.equal(await add1(pool, big), `oversized data: transaction size ${raw(big).length}, limit 131072`);
      assert.equal(await add1(pool, dyn(1, 0, { gas: 30_000_001n })), "exceeds block gas limit");
      assert.equal(
        await add1(pool, dyn(1, 0, { gas: 20_000n })),
        "intrinsic gas too low: gas 20000, minimum needed 21000",
      );
      const initcode = new Uint8Array(49_153);
      assert.equal(
        await add1(pool, dyn(1, 0, { to: null, data: initcode, gas: 1_000_000n })),
        "max initcode size exceeded: code size 49153, limit 49152",
      );
    });

    it("Prague floor data gas; gas × price beyond 256 bits is reported as insufficient funds", async () => {
      const prague = chainOf(l1Genesis(alloc([[1, { balance: RICH }]]), { pragueTime: 0 }));
      const { pool } = poolOf(prague);
      assert.equal(
        await add1(pool, dyn(1, 0, { data: new Uint8Array(1000).fill(1), gas: 50_000n })),
        "insufficient gas for floor data gas cost: gas 50000, minimum needed 61000",
      );
      const huge = 1n << 255n;
      assert.equal(
        await add1(pool, legacy(1, 0, huge)),
        `insufficient funds for gas * price + value: balance ${RICH}, tx cost ${21_000n * huge + 1000n}, overshot ${21_000n * huge + 1000n - RICH}`,
      );
    });

    it("invalid sender (other chain id), tip above fee cap", async () => {
      const { pool } = poolOf(richChain());
      assert.equal(
        await add1(pool, dyn(1, 0, { chainId: 1n })),
        "invalid sender: invalid chain id for signer: have 1 want 1337",
      );
      assert.equal(
        await add1(pool, legacy(1, 0, GWEI, { chainId: 5n })),
        "invalid sender: invalid chain id for signer: have 5 want 1337",
      );
      assert.equal(
        await add1(pool, dyn(1, 0, { tip: 3n * GWEI, maxFee: 2n * GWEI })),
        "max priority fee per gas higher than max fee per gas",
      );
    });

    it("price limit: tips below it are refused, whatever the source (geth ≥ 1.15 has no local exemption)", async () => {
      const chain = richChain();
      const { pool } = poolOf(chain, { priceLimit: 2n * GWEI });
      assert.equal(
        await add1(pool, dyn(1, 0, { tip: GWEI })),
        `transaction gas price below minimum: gas tip cap ${GWEI}, minimum needed ${2n * GWEI}`,
      );
      // Tip 0 is below the default limit of 1 wei.
      const { pool: def } = poolOf(chain);
      assert.equal(
        await add1(def, dyn(2, 0, { tip: 0n })),
        "transaction gas price below minimum: gas tip cap 0, minimum needed 1",
      );
    });

    it("nonce too low against the state", async () => {
      const chain = chainOf(l1Genesis(alloc([[1, { balance: RICH, nonce: 5n }]])));
      const { pool } = poolOf(chain);
      assert.equal(await add1(pool, dyn(1, 3)), "nonce too low: next nonce 5, tx nonce 3");
      assert.equal(await add1(pool, dyn(1, 5)), null);
      assert.equal(pool.nonceAt(addr(1)), 6n);
    });

    it("insufficient funds, with the overdraft check over pending txs", async () => {
      const cost = 21_000n * 10n * GWEI + 1000n;
      const chain = chainOf(
        l1Genesis(
          alloc([
            [1, { balance: cost - 1n }],
            [2, { balance: 2n * cost - 1n }],
          ]),
        ),
      );
      const { pool } = poolOf(chain);
      assert.equal(
        await add1(pool, dyn(1, 0)),
        `insufficient funds for gas * price + value: balance ${cost - 1n}, tx cost ${cost}, overshot 1`,
      );
      assert.equal(await add1(pool, dyn(2, 0)), null);
      assert.equal(
        await add1(pool, dyn(2, 1)),
        `insufficient funds for gas * price + value: balance ${2n * cost - 1n}, queued cost ${cost}, tx cost ${cost}, overshot 1`,
      );
      // A replacement is checked by its increase over the tx it replaces, on top of the other pending txs.
      const bump = 21_000n * GWEI;
      const chain3 = chainOf(l1Genesis(alloc([[3, { balance: 2n * cost + bump - 1n }]])));
      const { pool: p3 } = poolOf(chain3);
      assert.deepEqual((await p3.add([dyn(3, 0), dyn(3, 1)])).map(errOf), [null, null]);
      assert.equal(
        await add1(p3, dyn(3, 0, { tip: 3n * GWEI, maxFee: 11n * GWEI })),
        `insufficient funds for gas * price + value: balance ${2n * cost + bump - 1n}, queued cost ${2n * cost}, tx bumped ${bump}, overshot 1`,
      );
    });
  });

  describe("replacement", () => {
    it("needs the price bump on both fee cap and tip, in pending and in the queue", async () => {
      const { pool } = poolOf(richChain());
      const seen: bigint[] = [];
      pool.onPending((txs) => {
        for (const p of txs) seen.push(p.maxFee);
      });
      const base = dyn(1, 0, { tip: 100n * GWEI, maxFee: 100n * GWEI });
      assert.equal(await add1(pool, base), null);
      // +9%: refused.
      assert.equal(
        await add1(pool, dyn(1, 0, { tip: 109n * GWEI, maxFee: 109n * GWEI })),
        "replacement transaction underpriced",
      );
      // Fee cap +10% but tip unchanged: refused.
      assert.equal(
        await add1(pool, dyn(1, 0, { tip: 100n * GWEI, maxFee: 110n * GWEI })),
        "replacement transaction underpriced",
      );
      // +10% on both: replaces.
      const better = dyn(1, 0, { tip: 110n * GWEI, maxFee: 110n * GWEI });
      const [r] = await pool.add([better]);
      assert.equal(r.error, null);
      assert.equal(pool.get(r.hash!)?.maxFee, 110n * GWEI);
      assert.equal(pool.has(txHash(base)), false);
      assert.deepEqual(pool.status(), { pending: 1, queued: 0 });
      assert.deepEqual(seen, [100n * GWEI, 110n * GWEI]);

      // Queued (nonce gap) replacement follows the same rule.
      assert.equal(await add1(pool, dyn(1, 5, { tip: 10n * GWEI, maxFee: 10n * GWEI })), null);
      assert.equal(
        await add1(pool, dyn(1, 5, { tip: 10n * GWEI, maxFee: 10n * GWEI + 1n })),
        "replacement transaction underpriced",
      );
      assert.equal(await add1(pool, dyn(1, 5, { tip: 11n * GWEI, maxFee: 11n * GWEI })), null);
      assert.deepEqual(nonces(queuedOf(pool, 1)), [5]);
      assert.equal(queuedOf(pool, 1)?.[0].maxFee, 11n * GWEI);
      assert.deepEqual(pool.status(), { pending: 1, queued: 1 });
    });

    it("a replaced tx leaves the pool (get/has)", async () => {
      const { pool } = poolOf(richChain());
      const [a] = await pool.add([legacy(1, 0, 10n * GWEI)]);
      const [b] = await pool.add([legacy(1, 0, 11n * GWEI)]);
      assert.equal(b.error, null);
      assert.equal(pool.get(a.hash!), null);
      assert.equal(pool.txStatus(a.hash!), "unknown");
      assert.equal(pool.txStatus(b.hash!), "pending");
    });
  });

  describe("pending and queued", () => {
    it("a nonce gap queues; filling it promotes the run", async () => {
      const { pool } = poolOf(richChain());
      const promoted: number[] = [];
      pool.onPending((txs) => {
        for (const p of txs) promoted.push(Number(p.nonce));
      });
      assert.equal(await add1(pool, dyn(1, 2)), null);
      assert.equal(await add1(pool, dyn(1, 1)), null);
      assert.deepEqual(pool.status(), { pending: 0, queued: 2 });
      assert.equal(pool.nonceAt(addr(1)), 0n);
      assert.deepEqual(promoted, []);
      assert.equal(await add1(pool, dyn(1, 0)), null);
      assert.deepEqual(pool.status(), { pending: 3, queued: 0 });
      assert.deepEqual(nonces(pendingOf(pool, 1)), [0, 1, 2]);
      assert.deepEqual(promoted, [0, 1, 2]);
      assert.equal(pool.nonceAt(addr(1)), 3n);
    });

    it("accountqueue caps an account's queued txs (highest nonces go, refused when they came in the batch)", async () => {
      const { pool } = poolOf(richChain(), { accountQueue: 2 });
      const rs = await pool.add([dyn(1, 3), dyn(1, 5), dyn(1, 4)]);
      assert.deepEqual(rs.map(errOf), [null, "txpool is full", null]);
      assert.deepEqual(nonces(queuedOf(pool, 1)), [3, 4]);
      assert.equal(pool.get(rs[1].hash!), null);
    });
  });

  describe("global limits", () => {
    // globalslots 2 + globalqueue 1: three slots in all.
    const small = { globalSlots: 2, globalQueue: 1, accountSlots: 1 };

    it("full pool: a cheaper remote is underpriced, a better one evicts the cheapest remote", async () => {
      const { pool } = poolOf(richChain(), small);
      const rs = await pool.add([
        dyn(1, 0, { tip: 2n * GWEI }),
        dyn(2, 0, { tip: 3n * GWEI }),
        dyn(3, 0, { tip: 4n * GWEI }),
      ]);
      assert.deepEqual(rs.map(errOf), [null, null, null]);
      assert.equal(await add1(pool, dyn(4, 0, { tip: 2n * GWEI })), "transaction underpriced");
      assert.equal(await add1(pool, dyn(4, 0, { tip: GWEI })), "transaction underpriced");
      const [r] = await pool.add([dyn(4, 0, { tip: 5n * GWEI })]);
      assert.equal(r.error, null);
      assert.equal(pool.get(rs[0].hash!), null, "the cheapest remote was evicted");
      assert.equal(pool.status().pending, 3);
    });

    it("a gapped tx may not evict pending ones", async () => {
      const { pool } = poolOf(richChain(), small);
      await pool.add([dyn(1, 0, { tip: GWEI }), dyn(2, 0, { tip: GWEI }), dyn(3, 0, { tip: GWEI })]);
      assert.equal(await add1(pool, dyn(4, 7, { tip: 9n * GWEI })), "future transaction tries to replace pending");
      assert.equal(pool.status().pending, 3);
    });

    it("globalslots: accounts above accountslots are evened out", async () => {
      const { pool } = poolOf(richChain(), { globalSlots: 4, accountSlots: 1 });
      const txs = [dyn(1, 0), dyn(1, 1), dyn(1, 2), dyn(1, 3), dyn(2, 0), dyn(2, 1)];
      const rs = await pool.add(txs);
      assert.deepEqual(rs.map(errOf), [null, null, "txpool is full", "txpool is full", null, null]);
      assert.deepEqual(nonces(pendingOf(pool, 1)), [0, 1]);
      assert.deepEqual(nonces(pendingOf(pool, 2)), [0, 1]);
      assert.equal(pool.status().pending, 4);
      assert.equal(pool.nonceAt(addr(1)), 2n);
    });

    it("globalqueue: the account heard from longest ago loses queued txs first", async () => {
      const { pool, clock } = poolOf(richChain(), { globalQueue: 2 });
      await pool.add([dyn(1, 3), dyn(1, 4)]);
      clock.t += 1000;
      await pool.add([dyn(2, 3)]);
      assert.deepEqual(nonces(queuedOf(pool, 1)), [3]);
      assert.deepEqual(nonces(queuedOf(pool, 2)), [3]);
      assert.equal(pool.status().queued, 2);
    });

    it("lifetime: queued txs of accounts quiet for longer expire", async () => {
      const { pool, clock } = poolOf(richChain(), { lifetime: 60_000 });
      await pool.add([dyn(1, 3)]);
      clock.t += 30_000;
      await pool.add([dyn(2, 3)]);
      await pool.add([dyn(3, 0)]);
      clock.t += 30_000;
      assert.equal(pool.evictExpired(), 0);
      clock.t += 1;
      assert.equal(pool.evictExpired(), 1);
      assert.equal(queuedOf(pool, 1), undefined);
      assert.deepEqual(nonces(queuedOf(pool, 2)), [3]);
      assert.deepEqual(nonces(pendingOf(pool, 3)), [0]);
    });
  });

  describe("head changes on a real chain", () => {
    it("included txs leave; the pool refills the block builder", async () => {
      const chain = richChain();
      const { pool } = poolOf(chain);
      await pool.add([dyn(1, 0), dyn(1, 1), dyn(2, 0), dyn(1, 3)]);
      const built = mine(chain, { pool });
      assert.equal(built.body.transactions.length, 3);
      pool.onNewHead(chain.head);
      assert.deepEqual(pool.status(), { pending: 0, queued: 1 });
      assert.equal(pool.nonceAt(addr(1)), 2n);
      assert.equal(pool.nonceAt(addr(2)), 1n);
      assert.equal(await add1(pool, dyn(1, 1, { tip: 5n * GWEI })), "nonce too low: next nonce 2, tx nonce 1");
    });

    it("demotes unaffordable pending txs and promotes queued ones that became executable", async () => {
      const chain = richChain();
      const { pool } = poolOf(chain);
      const events: string[] = [];
      pool.onPending((txs) => {
        for (const p of txs) events.push(`${toChecksumAddress(p.sender)}:${p.nonce}`);
      });
      // Account 1: nonce 1 queued, nonce 0 arrives in a block from elsewhere.
      await pool.add([dyn(1, 1)]);
      // Account 2: 0 small, 1 expensive, 2 small; the block spends most of its balance at nonce 0.
      const r2 = await pool.add([dyn(2, 0), dyn(2, 1, { value: 50n * ETHER }), dyn(2, 2)]);
      assert.deepEqual(r2.map(errOf), [null, null, null]);
      // Account 3: pending 0 and 1; the block leaves too little for both.
      await pool.add([dyn(3, 0, { value: ETHER }), dyn(3, 1, { value: ETHER })]);
      events.length = 0;

      const other2 = dyn(2, 0, { value: 60n * ETHER, tip: 3n * GWEI });
      const other1 = dyn(1, 0, { tip: 3n * GWEI });
      const other3 = dyn(3, 0, { value: RICH - ETHER, tip: 3n * GWEI });
      mine(chain, { forced: [raw(other1), raw(other2), raw(other3)] });
      pool.onNewHead(chain.head);

      // 1: nonce 1 promoted.
      assert.deepEqual(nonces(pendingOf(pool, 1)), [1]);
      assert.deepEqual(events, [`${toChecksumAddress(addr(1))}:1`]);
      // 2: pool's nonce 0 included-by-nonce (dropped), 1 unaffordable (dropped), 2 kept but queued behind the gap.
      assert.equal(pendingOf(pool, 2), undefined);
      assert.deepEqual(nonces(queuedOf(pool, 2)), [2]);
      // 3: pool's nonce 0 gone, nonce 1 (cost ≈ 1 ether + gas) above the remaining balance: dropped.
      assert.equal(pendingOf(pool, 3), undefined);
      assert.equal(queuedOf(pool, 3), undefined);
      assert.equal(pool.nonceAt(addr(2)), 1n);
    });

    it("a reorg brings the txs of dropped blocks back", async () => {
      const chain = richChain();
      const { pool } = poolOf(chain);
      const genesisHash = chain.headBlockHash;
      await pool.add([dyn(1, 0), dyn(2, 0)]);
      const a1 = mine(chain, { pool });
      assert.equal(a1.body.transactions.length, 2);
      pool.onNewHead(chain.head);
      assert.deepEqual(pool.status(), { pending: 0, queued: 0 });
      // A heavier branch without account 1's tx but with account 2's.
      const b1 = mine(chain, { parentHash: genesisHash, forced: [raw(dyn(2, 0))], timestampDelta: 3 });
      mine(chain, { parentHash: b1.hash });
      pool.onNewHead(chain.head);
      assert.deepEqual(nonces(pendingOf(pool, 1)), [0]);
      assert.equal(pendingOf(pool, 2), undefined);
    });
  });

  describe("queries", () => {
    it("content, contentFrom and inspect in geth's nesting and format", async () => {
      const { pool } = poolOf(richChain());
      await pool.add([
        legacy(1, 0, 3n * GWEI),
        dyn(1, 2),
        dyn(2, 0, { to: null, data: Uint8Array.of(0), gas: 60_000n }),
      ]);
      const a1 = toChecksumAddress(addr(1));
      const a2 = toChecksumAddress(addr(2));
      const c = pool.content();
      assert.deepEqual(Object.keys(c.pending).sort(), [a1, a2].sort());
      assert.deepEqual(Object.keys(c.pending[a1]), ["0"]);
      assert.deepEqual(Object.keys(c.queued[a1]), ["2"]);
      assert.equal(c.queued[a1]["2"].nonce, 2n);
      const from = pool.contentFrom(addr(1));
      assert.deepEqual(Object.keys(from.pending), ["0"]);
      assert.deepEqual(Object.keys(from.queued), ["2"]);
      assert.deepEqual(pool.contentFrom(addr(9)), { pending: {}, queued: {} });
      const i = pool.inspect();
      assert.equal(i.pending[a1]["0"], `${toChecksumAddress(TO)}: 1000 wei + 21000 gas × 3000000000 wei`);
      assert.equal(i.queued[a1]["2"], `${toChecksumAddress(TO)}: 1000 wei + 21000 gas × 10000000000 wei`);
      assert.equal(i.pending[a2]["0"], "contract creation: 1000 wei + 60000 gas × 10000000000 wei");
    });

    it("byPriceAndNonce: highest effective tip first, nonce order per sender, shift and pop", async () => {
      const { pool } = poolOf(richChain());
      const rs = await pool.add([
        dyn(1, 0, { tip: 5n * GWEI, maxFee: 20n * GWEI }),
        dyn(1, 1, { tip: GWEI, maxFee: 20n * GWEI }),
        dyn(2, 0, { tip: 3n * GWEI, maxFee: 20n * GWEI }),
        // tip 3 gwei but fee cap only 2 gwei above a 1 gwei base fee → effective tip 2 gwei.
        dyn(3, 0, { tip: 3n * GWEI, maxFee: 3n * GWEI }),
        // fee cap below the base fee: never offered.
        legacy(4, 0, GWEI / 2n),
      ]);
      assert.deepEqual(rs.map(errOf), [null, null, null, null, null]);
      const it = pool.byPriceAndNonce(GWEI);
      const who = new Map([1, 2, 3, 4].map((k) => [bytesToHex(addr(k)), k]));
      const order: string[] = [];
      for (let p = it.peek(); p !== null; p = it.peek()) {
        order.push(`${who.get(bytesToHex(p.sender))}:${p.nonce}`);
        it.shift();
      }
      assert.deepEqual(order, ["1:0", "2:0", "3:0", "1:1"]);
      // pop drops the sender's later nonces.
      const it2 = pool.byPriceAndNonce(GWEI);
      assert.equal(it2.peek()?.nonce, 0n);
      assert.equal(it2.peekFee(), 5n * GWEI);
      it2.pop();
      const rest: bigint[] = [];
      for (let p = it2.peek(); p !== null; p = it2.peek()) {
        rest.push(p.tip);
        it2.shift();
      }
      assert.deepEqual(rest, [3n * GWEI, 3n * GWEI]);
      // minTip cuts senders whose next tx tips less.
      const it3 = pool.byPriceAndNonce(GWEI, { minTip: 3n * GWEI });
      assert.equal(it3.size, 2);
    });

    it("recovers senders of a batch through the TaskPool", async () => {
      let runs = 0;
      const workers: TaskPool = {
        threads: 2,
        queueSize: 0,
        busy: 0,
        canAcceptWork: () => true,
        run: async <T>(task: unknown): Promise<T> => {
          runs++;
          const t = task as { hashes: Uint8Array; sigs: Uint8Array };
          return recoverSendersPacked(t.hashes, t.sigs) as T;
        },
      };
      const { pool } = poolOf(richChain(), {}, { recoveryPool: workers });
      const txs: Uint8Array[] = [];
      for (let n = 0; n < 20; n++) txs.push(raw(dyn(1 + (n % 4), Math.floor(n / 4))));
      const rs = await pool.add(txs);
      assert.deepEqual(
        rs.map(errOf),
        txs.map(() => null),
      );
      assert.equal(runs, 2);
      assert.equal(pool.status().pending, 20);
    });
  });

  describe("EIP-7702 delegated senders", () => {
    it("one in-flight tx at the next nonce", async () => {
      const designator = new Uint8Array(23);
      designator.set([0xef, 0x01, 0x00]);
      designator.set(addr(9), 3);
      const chain = richChain(2, [[7, { balance: RICH, code: designator }]]);
      const { pool } = poolOf(chain);
      assert.equal(await add1(pool, dyn(7, 1)), "gapped-nonce tx from delegated accounts");
      assert.equal(await add1(pool, dyn(7, 0)), null);
      assert.equal(await add1(pool, dyn(7, 1)), "in-flight transaction limit reached for delegated accounts");
      // Replacing the in-flight one is allowed.
      assert.equal(await add1(pool, dyn(7, 0, { tip: 3n * GWEI, maxFee: 11n * GWEI })), null);
    });
  });
});
