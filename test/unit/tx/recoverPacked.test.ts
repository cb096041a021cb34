import { strict as assert } from "node:assert";
import { privateKeyToAddress } from "../../../src/crypto/secp256k1.js";
import { decodeTx, encodeTx } from "../../../src/tx/envelope.js";
import {
  applyPackedSenders,
  NO_SIGNATURE,
  packSignatures,
  recoverSenders,
  recoverSendersPacked,
} from "../../../src/tx/recoverPacked.js";
import { recoverSender, signTx, txSigningHash } from "../../../src/tx/signer.js";
import type { Tx } from "../../../src/tx/tx.js";
import { DEV_KEY, DEV_KEY_2, depositTx, feeMarketTx, legacy, signedSamples } from "./builders.js";

/** Decoded copies, so nothing is memoized yet. */
function batch(): Tx[] {
  const signed: Tx[] = signedSamples().map((s) => s.tx);
  signed.push(signTx(feeMarketTx({ nonce: 99n }), DEV_KEY_2));
  return signed.map((tx) => decodeTx(encodeTx(tx)));
}

describe("tx/recoverPacked", () => {
  it("packs signing hashes and r ‖ s ‖ recid, and recovers the same senders as recoverSender", () => {
    const txs = batch();
    const { hashes, sigs } = packSignatures(txs);
    assert.equal(hashes.length, 32 * txs.length);
    assert.equal(sigs.length, 65 * txs.length);
    for (let i = 0; i < txs.length; i++) assert.deepEqual(hashes.subarray(32 * i, 32 * i + 32), txSigningHash(txs[i]));
    const out = recoverSendersPacked(hashes, sigs);
    assert.equal(out.length, 21 * txs.length);
    for (let i = 0; i < txs.length; i++) {
      assert.equal(out[21 * i], 1);
      assert.deepEqual(out.subarray(21 * i + 1, 21 * i + 21), recoverSender(decodeTx(encodeTx(txs[i]))));
    }
    assert.deepEqual(out.subarray(21 * (txs.length - 1) + 1, 21 * txs.length), privateKeyToAddress(DEV_KEY_2));
  });

  it("flags deposits and malformed signatures with 0 and a zero address", () => {
    const good = signTx(legacy(), DEV_KEY);
    const txs: Tx[] = [depositTx(), { ...good, v: 30n, memo: {} }, { ...good, r: 0n, memo: {} }, good];
    const { hashes, sigs } = packSignatures(txs);
    for (const i of [0, 1, 2]) assert.equal(sigs[65 * i + 64], NO_SIGNATURE);
    const out = recoverSendersPacked(hashes, sigs);
    for (const i of [0, 1, 2]) assert.deepEqual(out.subarray(21 * i, 21 * i + 21), new Uint8Array(21));
    assert.equal(out[21 * 3], 1);
  });

  it("reports a failed recovery (invalid point) as 0 without throwing", () => {
    const hashes = new Uint8Array(64).fill(7);
    const sigs = new Uint8Array(130);
    sigs[31] = 5; // r = 5 (no curve point), s = 1
    sigs[63] = 1;
    sigs[64] = 0;
    sigs[65 + 64] = 1; // r = s = 0
    const out = recoverSendersPacked(hashes, sigs, new Uint8Array(42).fill(9));
    assert.deepEqual(out, new Uint8Array(42));
  });

  it("writes into a caller buffer and rejects mismatched sizes", () => {
    const { hashes, sigs } = packSignatures(batch());
    const out = new Uint8Array((hashes.length / 32) * 21);
    assert.equal(recoverSendersPacked(hashes, sigs, out), out);
    assert.throws(() => recoverSendersPacked(hashes, sigs.subarray(1)), RangeError);
    assert.throws(() => recoverSendersPacked(hashes.subarray(1), sigs), RangeError);
  });

  it("applyPackedSenders / recoverSenders install memoized senders", () => {
    const txs = batch();
    const { hashes, sigs } = packSignatures(txs);
    const out = recoverSendersPacked(hashes, sigs);
    applyPackedSenders(txs, out);
    out.fill(0);
    assert.deepEqual(txs[0].memo?.sender, privateKeyToAddress(DEV_KEY));
    const again = batch();
    const senders = recoverSenders(again);
    assert.deepEqual(senders[0], privateKeyToAddress(DEV_KEY));
    assert.equal(recoverSenders([]).length, 0);
  });
});
