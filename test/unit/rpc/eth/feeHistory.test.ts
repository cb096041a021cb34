/**
 * eth_feeHistory on an OP chain (issue 23): a block opens with its L1-info deposit, whose fee fields
 * are all zero. op-geth's `Transaction.EffectiveGasTip` answers 0 for a deposit before looking at
 * the base fee (core/types/transaction.go), and `eth/gasprice/feehistory.go processBlock` sorts the
 * block's txs by that tip weighted by the gas each used: the deposit is a zero reward, never
 * `min(0, 0 - baseFee)`, which Opal used to render as `"0x-…"`.
 */
import { strict as assert } from "node:assert";
import type { Blockchain } from "../../../../src/chain/blockchain.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { ethApi } from "../../../../src/rpc/eth/api.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { TxPool } from "../../../../src/txpool/txPool.js";
import { addr, chainOf, dyn, ETHER, GWEI, OP_CHAIN_ID, opGenesis, opMine } from "../../txpool/fixtures.js";
import { ethDepsOf } from "./ethDeps.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

function setup(): { chain: Blockchain; pool: TxPool; d: Dispatcher } {
  const chain = chainOf(opGenesis(new Map([[addr(1), { balance: 10n * ETHER }]])));
  const pool = new TxPool({}, { chain });
  const deps = ethDepsOf(chain, pool, { networkId: 901n });
  return { chain, pool, d: new Registry(ethApi(deps)).forApis(["eth"]) };
}

async function rpc(d: Dispatcher, method: string, params: unknown[]): Promise<{ result?: any; error?: any }> {
  return JSON.parse((await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP)) as string);
}

describe("rpc/eth: eth_feeHistory on an OP chain", function () {
  this.timeout(60_000);

  it("deposits tip 0: rewards are valid quantities, weighted by gas as op-geth's processBlock", async () => {
    const { chain, pool, d } = setup();
    // An empty block first: the next base fee is then a known, non-zero value.
    opMine(chain, pool);
    const tip = 3n * GWEI;
    const tx = dyn(1, 0, { chainId: OP_CHAIN_ID, tip, maxFee: 100n * GWEI });
    assert.equal((await pool.add([tx]))[0].error, null);
    const built = opMine(chain, pool);
    assert.equal(built.body.transactions.length, 2, "the deposit and the user tx");
    const baseFee = built.header.baseFeePerGas as bigint;
    assert.ok(baseFee > 0n);
    const depositGas = built.receipts[0].cumulativeGasUsed;
    const userGas = built.receipts[1].cumulativeGasUsed - depositGas;

    const r = await rpc(d, "eth_feeHistory", ["0x1", "latest", [1, 50, 99]]);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    const rewards = r.result.reward[0] as string[];
    for (const v of rewards) assert.match(v, /^0x(0|[1-9a-f][0-9a-f]*)$/, `reward ${v} is not a quantity`);
    // Sorted by tip: the deposit (0) first, then the user tx (its tip: the fee cap is far above base fee).
    // A percentile's threshold is gasUsed × p / 100; the deposit covers it while its gas reaches it.
    const total = depositGas + userGas;
    const want = [1, 50, 99].map((p) => (depositGas >= (total * p) / 100 ? "0x0" : `0x${tip.toString(16)}`));
    assert.deepEqual(rewards, want);
    assert.equal(rewards[0], "0x0", "the deposit's zero reward");
    assert.equal(rewards[2], `0x${tip.toString(16)}`, "the user tx's tip");
  });
});
