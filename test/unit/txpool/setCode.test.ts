/**
 * EIP-7702 in the pool on a Prague chain: set-code txs are admitted, their authorities may not hold
 * more than one pooled tx ("authority already reserved"), and a sender with a pooled authorization
 * gets a single in-flight tx; before Prague the type is refused with geth's wording.
 */
import { strict as assert } from "node:assert";
import { sign } from "../../../src/crypto/secp256k1.js";
import { authoritySigningHash } from "../../../src/tx/authorization.js";
import { signTx } from "../../../src/tx/signer.js";
import { type Authorization, type SetCodeTx, TxType } from "../../../src/tx/tx.js";
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
  poolOf,
  TO,
} from "./fixtures.js";

function authorization(k: number, nonce: bigint): Authorization {
  const fields = { chainId: L1_CHAIN_ID, address: addr(9), nonce };
  const sig = sign(authoritySigningHash(fields), key(k));
  return { ...fields, yParity: sig.recid, r: sig.r, s: sig.s };
}

function setCode(k: number, nonce: number, auths: Authorization[]): SetCodeTx {
  return signTx(
    {
      type: TxType.SetCode,
      chainId: L1_CHAIN_ID,
      nonce: BigInt(nonce),
      maxPriorityFeePerGas: 2n * GWEI,
      maxFeePerGas: 10n * GWEI,
      gasLimit: 100_000n,
      to: TO,
      value: 0n,
      data: new Uint8Array(0),
      accessList: [],
      authorizationList: auths,
      yParity: 0,
      r: 0n,
      s: 0n,
    },
    key(k),
  );
}

function funded(): Map<Uint8Array, AllocEntry> {
  return new Map([1, 2, 3].map((k) => [addr(k), { balance: 10n * ETHER }]));
}

describe("txpool/TxPool (EIP-7702)", () => {
  it("refuses set-code txs before Prague", async () => {
    const { pool } = poolOf(chainOf(l1Genesis(funded())));
    const [r] = await pool.add([setCode(1, 0, [authorization(2, 0n)])]);
    assert.equal(r.error?.message, "transaction type not supported: type 4 rejected, pool not yet in Prague");
  });

  it("authority reserved; pooled authorizations limit their authority to one in-flight tx", async () => {
    const { pool } = poolOf(chainOf(l1Genesis(funded(), { pragueTime: 0 })));
    // Account 2 has two pooled txs: an authorization from it is refused.
    assert.deepEqual(
      (await pool.add([dyn(2, 0), dyn(2, 1)])).map((r) => r.error),
      [null, null],
    );
    const [busy] = await pool.add([setCode(1, 0, [authorization(2, 2n)])]);
    assert.equal(busy.error?.message, "authority already reserved");
    // Account 3 has none: accepted, and account 3 is now limited to one in-flight tx.
    const [ok] = await pool.add([setCode(1, 0, [authorization(3, 0n)])]);
    assert.equal(ok.error, null);
    assert.equal((await pool.add([dyn(3, 0)]))[0].error, null);
    assert.equal(
      (await pool.add([dyn(3, 1)]))[0].error?.message,
      "in-flight transaction limit reached for delegated accounts",
    );
    // Once the set-code tx leaves (replaced by a plain one), account 3 is unrestricted again.
    assert.equal((await pool.add([dyn(1, 0, { tip: 3n * GWEI, maxFee: 11n * GWEI })]))[0].error, null);
    assert.equal((await pool.add([dyn(3, 1)]))[0].error, null);
  });
});
