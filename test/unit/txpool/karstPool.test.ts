/**
 * The tx pool and EIP-7825 on an OP chain at Karst: a tx above 2^24 gas is refused with op-reth's
 * answer (reth 88505c7 transaction-pool validate/eth.rs `validate_stateless`: InvalidTransactionError::
 * GasLimitTooHigh, shown by rpc-eth-types as "gas limit too high" with EthRpcErrorCode::
 * TransactionRejected, -32003), while the same tx is taken at Jovian; 2^24 itself is fine. L1 Osaka
 * keeps geth's "transaction gas limit too high (cap: 16777216, tx: N)" (core/txpool/validation.go).
 * When the head enters Karst (Osaka on L1), pooled txs above the cap leave (geth legacypool
 * `runReorg` drops them at the Osaka transition). Deposits never enter the pool.
 */
import { strict as assert } from "node:assert";
import { encodeTx } from "../../../src/tx/envelope.js";
import { TxType } from "../../../src/tx/tx.js";
import { addr, chainOf, dyn, ETHER, l1Genesis, mine, opGenesis, poolOf } from "./fixtures.js";

const CAP = 16_777_216n;

function opJson(karst: boolean): unknown {
  const json = opGenesis(new Map([[addr(1), { balance: 1000n * ETHER }]])) as { config: Record<string, unknown> };
  if (karst) Object.assign(json.config, { karstTime: 0, osakaTime: 0 });
  return json;
}

const opTx = (gas: bigint, nonce = 0) => dyn(1, nonce, { chainId: 901n, gas });

describe("txpool: EIP-7825 at Karst (OP) and Osaka (L1)", () => {
  it("OP Karst: above 2^24 is refused with op-reth's text and code; 2^24 is taken", async () => {
    const { pool } = poolOf(chainOf(opJson(true)));
    const [over] = await pool.add([opTx(CAP + 1n)]);
    assert.deepEqual(over.error, { code: "OP_GAS_LIMIT_TOO_HIGH", message: "gas limit too high", rpcCode: -32003 });
    const [at] = await pool.add([opTx(CAP)]);
    assert.equal(at.error, null);
    assert.equal(pool.status().pending, 1);
  });

  it("OP Jovian: the same tx is taken", async () => {
    const { pool } = poolOf(chainOf(opJson(false)));
    const [r] = await pool.add([opTx(CAP + 1n)]);
    assert.equal(r.error, null);
  });

  it("OP Karst: the block gas limit is checked first, as reth does", async () => {
    const { pool } = poolOf(chainOf(opJson(true)));
    const [r] = await pool.add([opTx(31_000_000n)]);
    assert.equal(r.error?.code, "GAS_LIMIT");
  });

  it("L1 Osaka keeps geth's text", async () => {
    const json = l1Genesis(new Map([[addr(1), { balance: 1000n * ETHER }]]), { pragueTime: 0, osakaTime: 0 });
    const { pool } = poolOf(chainOf(json));
    const [r] = await pool.add([dyn(1, 0, { gas: CAP + 1n })]);
    assert.deepEqual(r.error, {
      code: "GAS_LIMIT_TOO_HIGH",
      message: `transaction gas limit too high (cap: ${CAP}, tx: ${CAP + 1n})`,
    });
  });

  it("when Karst activates, pooled txs above 2^24 leave and their sender's later nonces go back to the queue", async () => {
    // Genesis at 0x10 under Jovian; the first mined block (timestamp 0x12) is Karst's first.
    const json = opGenesis(
      new Map([
        [addr(1), { balance: 1000n * ETHER }],
        [addr(2), { balance: 1000n * ETHER }],
      ]),
    ) as { config: Record<string, unknown> };
    Object.assign(json.config, { karstTime: 0x12, osakaTime: 0x12 });
    const chain = chainOf(json);
    const { pool } = poolOf(chain);
    const added = await pool.add([opTx(CAP + 1n, 0), opTx(21_000n, 1), dyn(2, 0, { chainId: 901n, gas: CAP })]);
    assert.deepEqual(
      added.map((r) => r.error),
      [null, null, null],
    );
    assert.deepEqual(pool.status(), { pending: 3, queued: 0 });
    mine(chain);
    pool.onNewHead(chain.head);
    assert.equal(pool.get(added[0]!.hash!), null, "the over-cap tx left");
    assert.deepEqual(pool.status(), { pending: 1, queued: 1 });
  });

  it("a deposit is not a pool tx at all", async () => {
    const { pool } = poolOf(chainOf(opJson(true)));
    const dep = encodeTx({
      type: TxType.Deposit,
      sourceHash: new Uint8Array(32).fill(1),
      from: addr(1),
      to: addr(2),
      mint: 0n,
      value: 0n,
      gasLimit: 20_000_000n,
      isSystemTx: false,
      data: new Uint8Array(0),
    });
    const [r] = await pool.add([dep]);
    assert.equal(r.error?.code, "TX_TYPE_NOT_SUPPORTED");
  });
});
