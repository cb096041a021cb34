/**
 * The miner namespace (op-geth eth/api_miner.go) with its effect on block building:
 * - it is served only where `--http.api`/`--ws.api` name `miner`;
 * - miner_setMaxDASize (op-batcher's DA throttling): a built block leaves out the pool txs whose
 *   estimated DA size is above the per-tx limit, and stops taking pool txs at the per-block one;
 *   0 lifts a limit (op-geth legacypool `Pending` with MaxDATxSize, miner `commitTransactions`);
 * - miner_setGasPrice: the pool's price limit for every tx (pooled ones below it leave) and the
 *   least tip the builder takes;
 * - miner_setGasLimit and miner_setExtra: the gas limit L1 payloads move towards and their
 *   extraData (at most 32 bytes, else geth's error).
 *
 * The DA sizes come from op-geth's Fjord estimate: max(100, (836500 × fastLzSize − 42585600) / 1e6)
 * bytes, so a plain transfer is at its 100-byte floor and 2000 incompressible bytes of calldata are
 * well above 1000.
 */
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import type { Blockchain } from "../../../src/chain/blockchain.js";
import { EngineApi } from "../../../src/engine/engineApi.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import type { Dispatcher, RpcConnection } from "../../../src/rpc/dispatch.js";
import { minerApi } from "../../../src/rpc/miner.js";
import { Registry } from "../../../src/rpc/registry.js";
import { encodeTx, txHash } from "../../../src/tx/envelope.js";
import { TxType } from "../../../src/tx/tx.js";
import { TxPool } from "../../../src/txpool/txPool.js";
import { txSourceOf } from "../../../src/txpool/txsByPriceAndNonce.js";
import {
  addr,
  chainOf,
  dyn,
  ETHER,
  GWEI,
  l1Genesis,
  mine,
  OP_CHAIN_ID,
  opGenesis,
  opMine,
} from "../txpool/fixtures.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

async function rpc(d: Dispatcher, method: string, params: unknown[]): Promise<{ result?: any; error?: any }> {
  return JSON.parse((await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP)) as string);
}

const hex = (v: bigint | number): string => `0x${v.toString(16)}`;

/** The L1-info deposit that opens every block of the OP chain (Jovian format). */

function opSetup(): { chain: Blockchain; pool: TxPool; d: Dispatcher } {
  const alloc = new Map([1, 2, 3, 4].map((k) => [addr(k), { balance: 10n * ETHER }] as const));
  const chain = chainOf(opGenesis(alloc));
  const pool = new TxPool({}, { chain });
  const d = new Registry(minerApi({ miner: pool.miner, pool })).forApis(["miner"]);
  // A first block, so the pool prices txs with the head's L1 attributes.
  opMine(chain, pool);
  return { chain, pool, d };
}

const included = (b: { body: { transactions: Uint8Array[] } }): string[] =>
  b.body.transactions.slice(1).map((t) => bytesToHex(t));

describe("rpc/miner: the miner namespace and its effect on block building", function () {
  this.timeout(60_000);

  it("is served only where the API list names it", async () => {
    const chain = chainOf(l1Genesis());
    const pool = new TxPool({}, { chain });
    const reg = new Registry(minerApi({ miner: pool.miner, pool }));
    const off = await rpc(reg.forApis(["eth", "net", "web3"]), "miner_setMaxDASize", ["0x1", "0x1"]);
    assert.equal(off.error?.code, -32601);
    assert.equal(off.error?.message, "the method miner_setMaxDASize does not exist/is not available");
    const on = await rpc(reg.forApis(["miner"]), "miner_setMaxDASize", ["0x1", "0x1"]);
    assert.equal(on.result, true);
    // Its arguments are hexutil.Big: geth's decoding errors.
    const bad = await rpc(reg.forApis(["miner"]), "miner_setMaxDASize", [1000, "0x0"]);
    assert.equal(bad.error?.code, -32602);
    assert.equal(
      bad.error?.message,
      "invalid argument 0: json: cannot unmarshal non-string into Go value of type *hexutil.Big",
    );
    const missing = await rpc(reg.forApis(["miner"]), "miner_setMaxDASize", ["0x1"]);
    assert.equal(missing.error?.message, "missing value for required argument 1");
  });

  it("miner_setMaxDASize: a tx above the per-tx DA limit stays out of the block until the limit is lifted", async () => {
    const { chain, pool, d } = opSetup();
    const big = dyn(1, 0, { chainId: OP_CHAIN_ID, data: new Uint8Array(randomBytes(2000)), gas: 200_000n });
    const small = dyn(2, 0, { chainId: OP_CHAIN_ID });
    for (const r of await pool.add([big, small])) assert.equal(r.error, null);

    assert.equal((await rpc(d, "miner_setMaxDASize", [hex(1000), "0x0"])).result, true);
    const b1 = opMine(chain, pool);
    assert.deepEqual(included(b1), [bytesToHex(encodeTx(small))], "only the small tx");
    assert.equal(pool.get(txHash(big)) !== null, true, "the big tx waits in the pool");

    assert.equal((await rpc(d, "miner_setMaxDASize", ["0x0", "0x0"])).result, true);
    const b2 = opMine(chain, pool);
    assert.deepEqual(included(b2), [bytesToHex(encodeTx(big))], "lifted: the big tx goes in");
  });

  it("miner_setMaxDASize: the per-tx limit stops a sender's later nonces too", async () => {
    const { chain, pool, d } = opSetup();
    const first = dyn(1, 0, { chainId: OP_CHAIN_ID, data: new Uint8Array(randomBytes(2000)), gas: 200_000n });
    const second = dyn(1, 1, { chainId: OP_CHAIN_ID });
    for (const r of await pool.add([first, second])) assert.equal(r.error, null);
    await rpc(d, "miner_setMaxDASize", [hex(1000), "0x0"]);
    assert.deepEqual(included(opMine(chain, pool)), [], "nonce 1 cannot run before nonce 0");
  });

  it("miner_setMaxDASize: a block takes pool txs up to the per-block DA limit", async () => {
    const { chain, pool, d } = opSetup();
    const txs = [1, 2, 3].map((k) => dyn(k, 0, { chainId: OP_CHAIN_ID, tip: BigInt(4 - k) * GWEI }));
    for (const r of await pool.add(txs)) assert.equal(r.error, null);
    // Each transfer counts 100 bytes (the estimate's floor): 250 bytes hold two of them.
    await rpc(d, "miner_setMaxDASize", ["0x0", hex(250)]);
    const b1 = opMine(chain, pool);
    assert.deepEqual(included(b1), [encodeTx(txs[0]), encodeTx(txs[1])].map(bytesToHex), "the two best tips");
    const b2 = opMine(chain, pool);
    assert.deepEqual(included(b2), [bytesToHex(encodeTx(txs[2]))], "the next block takes the third");
    // The deposit is not counted: a limit below one transfer leaves the block with the deposit alone.
    const late = dyn(4, 0, { chainId: OP_CHAIN_ID });
    assert.equal((await pool.add([late]))[0].error, null);
    await rpc(d, "miner_setMaxDASize", ["0x0", hex(99)]);
    const b3 = opMine(chain, pool);
    assert.equal(b3.body.transactions.length, 1);
    assert.equal(b3.body.transactions[0][0], TxType.Deposit);
  });

  it("miner_setGasPrice: pooled txs below it leave and new ones are refused, whatever their source (geth ≥ 1.15)", async () => {
    const chain = chainOf(l1Genesis(new Map([1, 2, 3].map((k) => [addr(k), { balance: 10n * ETHER }] as const))));
    const pool = new TxPool({}, { chain });
    const d = new Registry(minerApi({ miner: pool.miner, pool })).forApis(["miner"]);
    const cheap = [dyn(1, 0, { tip: GWEI }), dyn(2, 0, { tip: GWEI })];
    for (const tx of cheap) assert.equal((await pool.add([tx]))[0].error, null);

    assert.equal((await rpc(d, "miner_setGasPrice", [hex(2n * GWEI)])).result, true);
    assert.equal(pool.priceLimit, 2n * GWEI);
    for (const tx of cheap) assert.equal(pool.get(txHash(tx)), null, "the cheap txs left the pool");
    const refused = (await pool.add([dyn(3, 0, { tip: GWEI })]))[0].error;
    assert.equal(
      refused?.message,
      `transaction gas price below minimum: gas tip cap ${GWEI}, minimum needed ${2n * GWEI}`,
    );
    assert.equal(mine(chain, { pool }).body.transactions.length, 0);
    // Lowered again: taken and built.
    await rpc(d, "miner_setGasPrice", [hex(GWEI)]);
    assert.equal((await pool.add([dyn(3, 0, { tip: GWEI })]))[0].error, null);
    assert.equal(mine(chain, { pool }).body.transactions.length, 1);
  });

  it("miner_setGasLimit and miner_setExtra shape the L1 payloads the Engine API builds", async () => {
    const chain = chainOf(l1Genesis(new Map([[addr(1), { balance: 10n * ETHER }]])));
    const pool = new TxPool({}, { chain });
    const engine = new EngineApi(chain, (baseFee) => txSourceOf(pool.byPriceAndNonce(baseFee)), {
      miner: pool.miner,
    });
    const d = new Registry(minerApi({ miner: pool.miner, pool })).forApis(["miner"]);
    const parent = chain.head;
    const target = parent.gasLimit - 10_000n; // within one block's move (parent / 1024)
    assert.equal((await rpc(d, "miner_setGasLimit", [hex(target)])).result, true);
    assert.equal((await rpc(d, "miner_setExtra", ["opal builder"])).result, true);
    const tooLong = await rpc(d, "miner_setExtra", ["x".repeat(33)]);
    assert.deepEqual(tooLong.error, { code: -32000, message: "extra exceeds max length. 33 > 32" });

    const head = bytesToHex(chain.headBlockHash);
    const fcu = engine.forkchoiceUpdated(
      3,
      { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: head },
      {
        timestamp: hex(parent.timestamp + 12),
        prevRandao: bytesToHex(new Uint8Array(32)),
        suggestedFeeRecipient: bytesToHex(addr(1)),
        withdrawals: [],
        parentBeaconBlockRoot: bytesToHex(new Uint8Array(32)),
      },
    );
    const env = engine.getPayload(3, fcu.payloadId as string) as { executionPayload: Record<string, string> };
    assert.equal(BigInt(env.executionPayload.gasLimit), target);
    assert.equal(env.executionPayload.extraData, bytesToHex(new TextEncoder().encode("opal builder")));
  });
});
