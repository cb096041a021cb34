import { strict as assert } from "node:assert";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { privateKeyToAddress, SECP256K1_N, sign } from "../../../src/crypto/secp256k1.js";
import { encodeRlp, uintToRlpBytes } from "../../../src/rlp/encode.js";
import { authoritySigningHash, recoverAuthority } from "../../../src/tx/authorization.js";
import { decodeTx, encodeTx } from "../../../src/tx/envelope.js";
import { TxError } from "../../../src/tx/errors.js";
import { legacyChainId, legacyRecoveryId, legacyV } from "../../../src/tx/legacy.js";
import {
  recoverSender,
  setTxSender,
  signingPayload,
  signTx,
  txRecoveryId,
  txSigningHash,
} from "../../../src/tx/signer.js";
import { type Authorization, type LegacyTx, TxType } from "../../../src/tx/tx.js";
import { accessListTx, DEV_KEY, DEV_KEY_2, depositTx, feeMarketTx, legacy, signedSamples, TO } from "./builders.js";

const DEV_ADDR = privateKeyToAddress(DEV_KEY);

describe("tx/signer", () => {
  for (const { name, tx } of signedSamples()) {
    it(`${name}: sign, encode, decode, recover the dev address`, () => {
      const decoded = decodeTx(encodeTx(tx));
      assert.equal(decoded.memo?.sender, undefined);
      assert.deepEqual(recoverSender(decoded), DEV_ADDR);
      assert.deepEqual(txSigningHash(decoded), txSigningHash(tx));
    });
  }

  it("legacy v: 27/28 without a chain id, chainId*2+35/36 with one (EIP-155)", () => {
    const pre = signTx(legacy(), DEV_KEY);
    assert.ok(pre.v === 27n || pre.v === 28n);
    const prot = signTx(legacy(), DEV_KEY, 1n);
    assert.ok(prot.v === 37n || prot.v === 38n);
    const big = signTx(legacy(), DEV_KEY, 2n ** 40n);
    assert.equal(legacyChainId(big.v), 2n ** 40n);
    assert.deepEqual(recoverSender(decodeTx(encodeTx(big))), DEV_ADDR);
    assert.equal(legacyChainId(27n), null);
    assert.equal(legacyChainId(36n), 0n);
    assert.equal(legacyChainId(26n), undefined);
    assert.equal(legacyChainId(34n), undefined);
    assert.equal(legacyRecoveryId(28n), 1);
    assert.equal(legacyRecoveryId(38n), 1);
    assert.equal(legacyRecoveryId(29n), -1);
    assert.equal(legacyV(1, 5n), 46n);
  });

  it("signing payloads follow the spec forms", () => {
    const tx = legacy();
    const fields = [
      uintToRlpBytes(tx.nonce),
      uintToRlpBytes(tx.gasPrice),
      uintToRlpBytes(tx.gasLimit),
      tx.to!,
      uintToRlpBytes(tx.value),
      tx.data,
    ];
    assert.deepEqual(signingPayload(tx, null), encodeRlp(fields));
    assert.deepEqual(
      signingPayload(tx, 1n),
      encodeRlp([...fields, uintToRlpBytes(1n), new Uint8Array(0), new Uint8Array(0)]),
    );
    const t2 = accessListTx();
    const p2 = signingPayload(t2)!;
    assert.equal(p2[0], 0x01);
    assert.deepEqual(
      p2.subarray(1),
      encodeRlp([
        uintToRlpBytes(t2.chainId),
        uintToRlpBytes(t2.nonce),
        uintToRlpBytes(t2.gasPrice),
        uintToRlpBytes(t2.gasLimit),
        t2.to!,
        uintToRlpBytes(t2.value),
        t2.data,
        t2.accessList.map((e) => [e.address, [...e.storageKeys]]),
      ]),
    );
  });

  it("a deposit's sender is `from` and it has no signing form", () => {
    const d = depositTx();
    assert.deepEqual(recoverSender(d), d.from);
    assert.equal(txSigningHash(d), null);
    assert.equal(txRecoveryId(d), -1);
    assert.throws(
      () => signTx(d as unknown as LegacyTx, DEV_KEY),
      (e: unknown) => e instanceof TxError && e.code === "UNSIGNABLE",
    );
  });

  it("rejects an invalid private key with a typed error", () => {
    assert.throws(
      () => signTx(feeMarketTx(), new Uint8Array(32)),
      (e: unknown) => e instanceof TxError && e.code === "UNSIGNABLE",
    );
  });

  it("malformed signatures recover to null, never throw", () => {
    const good = signTx(feeMarketTx(), DEV_KEY);
    const cases = [
      { ...good, r: 0n, memo: {} },
      { ...good, s: 0n, memo: {} },
      { ...good, r: SECP256K1_N, memo: {} },
      { ...good, s: SECP256K1_N + 1n, memo: {} },
      { ...good, yParity: 2, memo: {} },
      { ...good, r: 2n ** 256n - 1n, memo: {} },
    ];
    for (const tx of cases) assert.equal(recoverSender(tx), null);
    const badV = { ...signTx(legacy(), DEV_KEY), v: 30n, memo: {} };
    assert.equal(txSigningHash(badV), null);
    assert.equal(recoverSender(badV), null);
  });

  it("a flipped parity recovers a different address (not the signer)", () => {
    const good = signTx(feeMarketTx(), DEV_KEY);
    const flipped = { ...good, yParity: 1 - good.yParity, memo: {} };
    const who = recoverSender(flipped);
    assert.ok(who === null || !Buffer.from(who).equals(Buffer.from(DEV_ADDR)));
  });

  it("memoizes and accepts an externally recovered sender", () => {
    const tx = decodeTx(encodeTx(signTx(feeMarketTx(), DEV_KEY)));
    const other = privateKeyToAddress(DEV_KEY_2);
    setTxSender(tx, other);
    assert.deepEqual(recoverSender(tx), other);
  });

  it("EIP-7702 authority recovery: keccak(0x05 ‖ rlp([chainId, address, nonce]))", () => {
    const base = { chainId: 1n, address: TO, nonce: 9n };
    const digest = authoritySigningHash(base);
    assert.deepEqual(
      digest,
      keccak256(Uint8Array.of(0x05, ...encodeRlp([uintToRlpBytes(1n), TO, uintToRlpBytes(9n)]))),
    );
    const sig = sign(digest, DEV_KEY_2);
    const auth: Authorization = { ...base, yParity: sig.recid, r: sig.r, s: sig.s };
    assert.deepEqual(recoverAuthority(auth), privateKeyToAddress(DEV_KEY_2));
    // Invalid tuples recover to null (the executor skips them).
    assert.equal(recoverAuthority({ ...auth, yParity: 2 }), null);
    assert.equal(recoverAuthority({ ...auth, r: 0n }), null);
    assert.equal(recoverAuthority({ ...auth, s: SECP256K1_N - sig.s }), null, "high s is rejected for authorizations");
    const other = recoverAuthority({ ...auth, nonce: 10n });
    assert.ok(other === null || !Buffer.from(other).equals(Buffer.from(privateKeyToAddress(DEV_KEY_2))));
  });

  it("typed signing covers every field: changing one changes the recovered sender", () => {
    const tx = signTx(feeMarketTx(), DEV_KEY);
    const bytes = encodeTx({ ...tx, value: tx.value + 1n, memo: {} });
    const who = recoverSender(decodeTx(bytes));
    assert.ok(who === null || !Buffer.from(who).equals(Buffer.from(DEV_ADDR)));
    assert.equal(decodeTx(bytes).type, TxType.FeeMarket);
  });
});
