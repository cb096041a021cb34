/**
 * TxPool on a real OP Jovian chain: the balance check adds the L1 data fee and the worst-case
 * operator fee of the head's L1 attributes (op-stack.md §3.4, §3.6), pooled txs are re-priced when a
 * new head brings L1 attributes, and deposits and blob txs are refused.
 */
import { strict as assert } from "node:assert";
import { encodeJovianExtraData } from "../../../src/block/opExtraData.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { l1Cost } from "../../../src/executor/op/l1Cost.js";
import { operatorFee } from "../../../src/executor/op/operatorFee.js";
import { rulesAt } from "../../../src/spec/chainConfig.js";
import { encodeL1BlockInfo } from "../../../src/tx/l1BlockInfo.js";
import { signTx } from "../../../src/tx/signer.js";
import { type BlobTx, type SignedTx, TxType } from "../../../src/tx/tx.js";
import {
  type AllocEntry,
  addr,
  chainOf,
  dyn,
  ETHER,
  GWEI,
  jovianL1Info,
  key,
  l1InfoDeposit,
  mine,
  OP_CHAIN_ID,
  opGenesis,
  poolOf,
  raw,
  TO,
} from "./fixtures.js";

const INFO = jovianL1Info({ operatorFeeScalar: 7, operatorFeeConstant: 12_345n });

const L1_INFO_DEPOSIT = l1InfoDeposit(encodeL1BlockInfo(INFO));

const EXTRA = encodeJovianExtraData(250, 6, 0n);
const DATA = new Uint8Array(300).map((_, i) => (i * 7) & 0xff);

function opTx(k: number, nonce: number): SignedTx {
  return dyn(k, nonce, { chainId: OP_CHAIN_ID, data: DATA, gas: 100_000n });
}

/** The cost the pool must charge at block 1 (Jovian, with INFO as its L1 attributes). */
function fullCost(tx: SignedTx, json: unknown): { l2: bigint; total: bigint } {
  const cfg = parseGenesis(json).config;
  const rules = rulesAt(cfg, 1, 0x12);
  const maxFee = tx.type === TxType.Legacy || tx.type === TxType.AccessList ? tx.gasPrice : tx.maxFeePerGas;
  const l2 = tx.gasLimit * maxFee + tx.value;
  return { l2, total: l2 + l1Cost(raw(tx), INFO, rules) + operatorFee(Number(tx.gasLimit), INFO, rules) };
}

describe("txpool/TxPool (OP)", function () {
  this.timeout(60_000);

  it("balance must cover gas × price + value + L1 fee + max operator fee; pooled txs are re-priced on a new head", async () => {
    const a = opTx(1, 0);
    const b = opTx(2, 0);
    const c = opTx(3, 0);
    // Costs do not depend on balances, so compute them with a placeholder genesis first.
    const probe = opGenesis(new Map());
    const ca = fullCost(a, probe);
    const cb = fullCost(b, probe);
    const cc = fullCost(c, probe);
    assert.ok(ca.total - ca.l2 > 100_000n * 7n * 100n, "L1 fee and operator fee are part of the cost");
    const json = opGenesis(
      new Map<Uint8Array, AllocEntry>([
        [addr(1), { balance: ca.total }],
        [addr(2), { balance: cb.total - 1n }],
        [addr(3), { balance: cc.total - 1n }],
        [addr(4), { balance: 10n * ETHER }],
      ]),
    );
    const chain = chainOf(json);
    const { pool } = poolOf(chain);

    // Genesis has no L1 attributes: only the L2 cost counts, so account 3's tx gets in for now.
    assert.equal((await pool.add([c]))[0].error, null);
    assert.equal(pool.status().pending, 1);

    mine(chain, { forced: [L1_INFO_DEPOSIT], extraData: EXTRA });
    pool.onNewHead(chain.head);
    // Re-priced with the head's L1 attributes, account 3 can no longer pay for it.
    assert.deepEqual(pool.status(), { pending: 0, queued: 0 });

    const [ra] = await pool.add([a]);
    assert.equal(ra.error, null, "exactly enough");
    assert.equal(pool.get(ra.hash)?.cost, ca.total);
    const [rb] = await pool.add([b]);
    assert.equal(
      rb.error?.message,
      `insufficient funds for gas * price + value: balance ${cb.total - 1n}, tx cost ${cb.total}, overshot 1`,
    );
    assert.equal(rb.error?.code, "INSUFFICIENT_FUNDS");
  });

  it("the overdraft check sums the OP costs of the pending txs", async () => {
    const t0 = opTx(5, 0);
    const t1 = opTx(5, 1);
    const probe = opGenesis(new Map());
    const c0 = fullCost(t0, probe).total;
    const c1 = fullCost(t1, probe).total;
    const chain = chainOf(opGenesis(new Map([[addr(5), { balance: c0 + c1 - 1n }]])));
    mine(chain, { forced: [L1_INFO_DEPOSIT], extraData: EXTRA });
    const { pool } = poolOf(chain);
    assert.equal((await pool.add([t0]))[0].error, null);
    const [r1] = await pool.add([t1]);
    assert.equal(
      r1.error?.message,
      `insufficient funds for gas * price + value: balance ${c0 + c1 - 1n}, queued cost ${c0}, tx cost ${c1}, overshot 1`,
    );
  });

  it("refuses deposits and blob txs", async () => {
    const chain = chainOf(opGenesis(new Map([[addr(1), { balance: ETHER }]])));
    const { pool } = poolOf(chain);
    const [d] = await pool.add([L1_INFO_DEPOSIT]);
    assert.equal(d.error?.message, "transaction type not supported");
    const blob: BlobTx = signTx(
      {
        type: TxType.Blob,
        chainId: OP_CHAIN_ID,
        nonce: 0n,
        maxPriorityFeePerGas: GWEI,
        maxFeePerGas: 10n * GWEI,
        gasLimit: 21_000n,
        to: TO,
        value: 0n,
        data: new Uint8Array(0),
        accessList: [],
        maxFeePerBlobGas: GWEI,
        blobVersionedHashes: [new Uint8Array(32).fill(1)],
        yParity: 0,
        r: 0n,
        s: 0n,
      },
      key(1),
    );
    const [bl] = await pool.add([blob]);
    assert.equal(bl.error?.code, "TX_TYPE_NOT_SUPPORTED");
    assert.equal(pool.status().pending + pool.status().queued, 0);
  });
});
