/**
 * tx/rawSigning: the signing hash and packed signature read from a tx's envelope bytes equal what
 * packSignatures computes from the decoded tx, for every tx that decodes: each signed type, the
 * signature edge values (r, s at 0, N-1, N; v and yParity out of range; large EIP-155 chain ids),
 * and seeded random mutations of valid envelopes. Bytes the decoder refuses never throw. The corpora
 * (TransactionTests, EEST tx bytes) run the same check in test/spec/transactionTests.test.ts.
 */
import { strict as assert } from "node:assert";
import { SECP256K1_N } from "../../../src/crypto/secp256k1.js";
import { decodeTx, encodeTx } from "../../../src/tx/envelope.js";
import { packRawSignature } from "../../../src/tx/rawSigning.js";
import { NO_SIGNATURE, packSignatures } from "../../../src/tx/recoverPacked.js";
import { signTx } from "../../../src/tx/signer.js";
import type { SignedTx, Tx } from "../../../src/tx/tx.js";
import { mulberry32 } from "../../utils/prng.js";
import { DEV_KEY, depositTx, feeMarketTx, legacy, signedSamples } from "./builders.js";

/** Item 0 from the raw path. */
function raw(bytes: Uint8Array): { hash: Uint8Array; sig: Uint8Array } {
  const hash = new Uint8Array(32).fill(0xee);
  const sig = new Uint8Array(65).fill(0xee);
  packRawSignature(bytes, hash, sig, 0);
  return { hash, sig };
}

/** The raw path agrees with the decoded path on `bytes` (which must decode). */
function agrees(bytes: Uint8Array): void {
  const tx = decodeTx(bytes);
  const want = packSignatures([tx]);
  const got = raw(bytes);
  assert.equal(got.sig[64], want.sigs[64], "recid");
  if (want.sigs[64] === NO_SIGNATURE) return; // nothing else is read for an unsigned item
  assert.deepEqual(got.sig, want.sigs, "r ‖ s ‖ recid");
  assert.deepEqual(got.hash, want.hashes, "signing hash");
}

function withSig(tx: SignedTx, over: Partial<{ r: bigint; s: bigint; v: bigint; yParity: number }>): Uint8Array {
  return encodeTx({ ...tx, ...over, memo: {} } as Tx);
}

describe("tx/rawSigning", () => {
  for (const { name, tx } of signedSamples()) {
    it(`${name}: the signing hash and signature from the bytes equal the decoded path's`, () => {
      const bytes = encodeTx(tx);
      agrees(bytes);
      assert.notEqual(raw(bytes).sig[64], NO_SIGNATURE);
    });
  }

  it("signature edge values: r or s at 0 or N are unsigned, N-1 is kept; v and yParity out of range", () => {
    const typed = signTx(feeMarketTx(), DEV_KEY) as SignedTx;
    const old = signTx(legacy(), DEV_KEY, 5n) as SignedTx;
    const cases: Uint8Array[] = [];
    for (const base of [typed, old]) {
      for (const v of [0n, 1n, SECP256K1_N - 1n, SECP256K1_N, (1n << 256n) - 1n]) {
        cases.push(withSig(base, { r: v }), withSig(base, { s: v }));
      }
    }
    for (const yParity of [0, 1, 2, 255]) cases.push(withSig(typed, { yParity }));
    // Legacy v: pre-155, the gap 29..34, 155 with chain id 0, a large chain id, and a 32-byte v.
    for (const v of [27n, 28n, 29n, 34n, 35n, 36n, 2n * 11_155_420n + 35n, (1n << 255n) + 35n]) {
      cases.push(withSig(old, { v }));
    }
    let unsigned = 0;
    for (const bytes of cases) {
      agrees(bytes);
      if (raw(bytes).sig[64] === NO_SIGNATURE) unsigned++;
    }
    // r or s at 0, N or 2^256-1 (3 values × 2 fields × 2 txs), yParity 2 and 255, legacy v 29 and 34.
    assert.equal(unsigned, 16);
  });

  it("deposits and bytes the decoder refuses are unsigned, never a throw", () => {
    assert.equal(raw(encodeTx(depositTx())).sig[64], NO_SIGNATURE);
    for (const bad of [new Uint8Array(0), Uint8Array.of(0x02), Uint8Array.of(0x05, 0xc0), Uint8Array.of(0x81)]) {
      const got = raw(bad);
      assert.equal(got.sig[64], NO_SIGNATURE);
      assert.deepEqual(got.hash, new Uint8Array(32));
    }
  });

  it("writes item i at its own offsets and leaves the others", () => {
    const bytes = encodeTx(signedSamples()[4]!.tx);
    const hashes = new Uint8Array(96).fill(7);
    const sigs = new Uint8Array(195).fill(7);
    packRawSignature(bytes, hashes, sigs, 1);
    const one = raw(bytes);
    assert.deepEqual(hashes.subarray(32, 64), one.hash);
    assert.deepEqual(sigs.subarray(65, 130), one.sig);
    assert.ok(hashes.subarray(0, 32).every((b) => b === 7) && hashes.subarray(64).every((b) => b === 7));
    assert.ok(sigs.subarray(0, 65).every((b) => b === 7) && sigs.subarray(130).every((b) => b === 7));
  });

  it("fuzz: random byte changes to valid envelopes: agrees whenever the result decodes", () => {
    const rand = mulberry32(2026);
    const bases = signedSamples().map((s) => encodeTx(s.tx));
    let decoded = 0;
    for (let round = 0; round < 3000; round++) {
      const bytes = bases[round % bases.length]!.slice();
      const edits = 1 + Math.floor(rand() * 3);
      for (let e = 0; e < edits; e++) bytes[Math.floor(rand() * bytes.length)] = Math.floor(rand() * 256);
      let ok = true;
      try {
        decodeTx(bytes);
      } catch {
        ok = false;
      }
      if (ok) {
        agrees(bytes);
        decoded++;
      } else {
        raw(bytes); // must not throw
      }
    }
    assert.ok(decoded > 300, `only ${decoded} mutations decoded`);
  });
});
