import { strict as assert } from "node:assert";
import { SECP256K1_HALF_N, SECP256K1_N } from "../../../src/crypto/secp256k1.js";
import { Fork, l1Rules, OpFork, opRules } from "../../../src/spec/forks.js";
import { decodeTx, encodeTx } from "../../../src/tx/envelope.js";
import { floorDataGas, intrinsicGas, MAX_INITCODE_SIZE } from "../../../src/tx/intrinsicGas.js";
import { signTx } from "../../../src/tx/signer.js";
import type { Tx } from "../../../src/tx/tx.js";
import { maxBlobsPerTx, type TxValidationContext, validateTx } from "../../../src/tx/validateTx.js";
import { accessListTx, blobHash, blobTx, DEV_KEY, depositTx, feeMarketTx, legacy, setCodeTx } from "./builders.js";

const at = (fork: Fork, over: Partial<TxValidationContext> = {}): TxValidationContext => ({
  rules: l1Rules(fork),
  chainId: 1n,
  ...over,
});

/** Fresh copy without memo, so each validation recovers again. */
const fresh = <T extends Tx>(tx: T): T => ({ ...tx, memo: {} });

describe("tx/validateTx", () => {
  it("accepts each signed type from its fork", () => {
    assert.equal(validateTx(signTx(legacy(), DEV_KEY), at(Fork.Frontier)), null);
    assert.equal(validateTx(signTx(legacy(), DEV_KEY, 1n), at(Fork.SpuriousDragon)), null);
    assert.equal(validateTx(signTx(accessListTx(), DEV_KEY), at(Fork.Berlin)), null);
    assert.equal(validateTx(signTx(feeMarketTx(), DEV_KEY), at(Fork.London)), null);
    assert.equal(validateTx(signTx(blobTx(), DEV_KEY), at(Fork.Cancun)), null);
    assert.equal(validateTx(signTx(setCodeTx(), DEV_KEY), at(Fork.Prague)), null);
  });

  it("type allowed at fork: 2930 Berlin, 1559 London, 4844 Cancun, 7702 Prague", () => {
    assert.equal(validateTx(signTx(accessListTx(), DEV_KEY), at(Fork.MuirGlacier)), "TYPE_NOT_SUPPORTED");
    assert.equal(validateTx(signTx(feeMarketTx(), DEV_KEY), at(Fork.Berlin)), "TYPE_NOT_SUPPORTED");
    assert.equal(validateTx(signTx(blobTx(), DEV_KEY), at(Fork.Shanghai)), "TYPE_NOT_SUPPORTED");
    assert.equal(validateTx(signTx(setCodeTx(), DEV_KEY), at(Fork.Cancun)), "TYPE_NOT_SUPPORTED");
  });

  it("OP rules: no blob txs; 7702 from Isthmus; deposits only where allowed", () => {
    const ecotone = opRules(OpFork.Ecotone);
    const isthmus = opRules(OpFork.Isthmus);
    assert.equal(validateTx(signTx(blobTx(), DEV_KEY), { rules: ecotone, chainId: 1n }), "TYPE_NOT_SUPPORTED");
    assert.equal(validateTx(signTx(setCodeTx(), DEV_KEY), { rules: ecotone, chainId: 1n }), "TYPE_NOT_SUPPORTED");
    assert.equal(validateTx(signTx(setCodeTx(), DEV_KEY), { rules: isthmus, chainId: 1n }), null);
    assert.equal(validateTx(depositTx(), { rules: ecotone, chainId: 10n }), "DEPOSIT_NOT_ALLOWED");
    assert.equal(validateTx(depositTx(), { rules: ecotone, chainId: 10n, allowDeposit: false }), "DEPOSIT_NOT_ALLOWED");
    assert.equal(validateTx(depositTx(), { rules: ecotone, chainId: 10n, allowDeposit: true }), null);
    assert.equal(validateTx(depositTx(), at(Fork.Cancun, { allowDeposit: true })), "TYPE_NOT_SUPPORTED");
  });

  it("EIP-155: v = 27/28 always; chainId*2+35/36 only from Spurious Dragon and for this chain", () => {
    const protected1 = signTx(legacy(), DEV_KEY, 1n);
    assert.equal(validateTx(fresh(protected1), at(Fork.TangerineWhistle)), "INVALID_SIGNATURE");
    assert.equal(validateTx(fresh(protected1), at(Fork.SpuriousDragon)), null);
    assert.equal(validateTx(fresh(protected1), at(Fork.Cancun, { chainId: 5n })), "INVALID_CHAIN_ID");
    assert.equal(validateTx(signTx(legacy(), DEV_KEY), at(Fork.Cancun, { chainId: 5n })), null);
    const badV = { ...signTx(legacy(), DEV_KEY), v: 29n };
    assert.equal(validateTx(fresh(badV), at(Fork.Frontier)), "INVALID_SIGNATURE");
    assert.equal(validateTx(fresh(badV), at(Fork.Cancun)), "INVALID_CHAIN_ID");
  });

  it("typed chainId must equal the chain's", () => {
    assert.equal(validateTx(signTx(feeMarketTx({ chainId: 2n }), DEV_KEY), at(Fork.London)), "INVALID_CHAIN_ID");
    assert.equal(validateTx(signTx(accessListTx({ chainId: 0n }), DEV_KEY), at(Fork.Berlin)), "INVALID_CHAIN_ID");
  });

  it("signature ranges: r,s in [1, n-1]; s ≤ n/2 from Homestead; yParity 0/1", () => {
    const tx = signTx(legacy(), DEV_KEY);
    const high = { ...tx, s: SECP256K1_N - tx.s, v: tx.v === 27n ? 28n : 27n };
    assert.equal(validateTx(fresh(high), at(Fork.Frontier)), null, "high s is valid in Frontier");
    assert.equal(validateTx(fresh(high), at(Fork.Homestead)), "INVALID_SIGNATURE");
    assert.equal(validateTx(fresh({ ...tx, r: 0n }), at(Fork.Frontier)), "INVALID_SIGNATURE");
    assert.equal(validateTx(fresh({ ...tx, s: 0n }), at(Fork.Frontier)), "INVALID_SIGNATURE");
    assert.equal(validateTx(fresh({ ...tx, r: SECP256K1_N }), at(Fork.Frontier)), "INVALID_SIGNATURE");
    assert.equal(validateTx(fresh({ ...tx, s: SECP256K1_N }), at(Fork.Frontier)), "INVALID_SIGNATURE");
    assert.notEqual(validateTx(fresh({ ...tx, s: SECP256K1_HALF_N }), at(Fork.Cancun)), "INVALID_SIGNATURE");
    const typed = signTx(feeMarketTx(), DEV_KEY);
    assert.equal(validateTx(fresh({ ...typed, yParity: 2 }), at(Fork.London)), "INVALID_SIGNATURE");
  });

  it("recovery failure is its own code", () => {
    // r = 5 is not the x coordinate of a curve point with an existing y: no key recovers.
    const tx = signTx(legacy(), DEV_KEY);
    const codes = [];
    for (let r = 1n; r < 20n; r++) codes.push(validateTx(fresh({ ...tx, r }), at(Fork.Cancun)));
    assert.ok(codes.includes("SENDER_RECOVERY_FAILED"));
  });

  it("gasLimit ≥ intrinsic gas, at the edge", () => {
    const base = legacy({ data: Uint8Array.of(1, 0) });
    const need = BigInt(intrinsicGas(base, Fork.Cancun));
    assert.equal(validateTx(signTx(legacy({ ...base, gasLimit: need }), DEV_KEY), at(Fork.Cancun)), null);
    assert.equal(
      validateTx(signTx(legacy({ ...base, gasLimit: need - 1n }), DEV_KEY), at(Fork.Cancun)),
      "INTRINSIC_GAS_TOO_LOW",
    );
  });

  it("EIP-7623 floor applies from Prague, at the edge", () => {
    const data = new Uint8Array(100).fill(1);
    const floor = BigInt(floorDataGas(legacy({ data })));
    assert.ok(floor > BigInt(intrinsicGas(legacy({ data }), Fork.Prague)));
    const ok = signTx(legacy({ data, gasLimit: floor }), DEV_KEY);
    const low = signTx(legacy({ data, gasLimit: floor - 1n }), DEV_KEY);
    assert.equal(validateTx(ok, at(Fork.Prague)), null);
    assert.equal(validateTx(low, at(Fork.Prague)), "FLOOR_DATA_GAS_TOO_LOW");
    assert.equal(validateTx(fresh(low), at(Fork.Cancun)), null);
  });

  it("EIP-7825 (Osaka): gasLimit ≤ 2^24", () => {
    const ok = signTx(feeMarketTx({ gasLimit: 16_777_216n }), DEV_KEY);
    const over = signTx(feeMarketTx({ gasLimit: 16_777_217n }), DEV_KEY);
    assert.equal(validateTx(ok, at(Fork.Osaka)), null);
    assert.equal(validateTx(over, at(Fork.Osaka)), "GAS_LIMIT_CAP_EXCEEDED");
    assert.equal(validateTx(fresh(over), at(Fork.Prague)), null);
  });

  it("EIP-2681: nonce < 2^64-1", () => {
    assert.equal(validateTx(signTx(legacy({ nonce: 2n ** 64n - 2n }), DEV_KEY), at(Fork.Cancun)), null);
    assert.equal(validateTx(signTx(legacy({ nonce: 2n ** 64n - 1n }), DEV_KEY), at(Fork.Frontier)), "NONCE_TOO_BIG");
  });

  it("EIP-3860 (Shanghai): initcode ≤ 49152 bytes", () => {
    const mk = (n: number) => signTx(legacy({ to: null, data: new Uint8Array(n), gasLimit: 10_000_000n }), DEV_KEY);
    assert.equal(validateTx(mk(MAX_INITCODE_SIZE), at(Fork.Shanghai)), null);
    assert.equal(validateTx(mk(MAX_INITCODE_SIZE + 1), at(Fork.Shanghai)), "INITCODE_SIZE_EXCEEDED");
    assert.equal(validateTx(mk(MAX_INITCODE_SIZE + 1), at(Fork.Paris)), null);
    // Calls are not limited.
    const call = signTx(legacy({ data: new Uint8Array(MAX_INITCODE_SIZE + 1), gasLimit: 10_000_000n }), DEV_KEY);
    assert.equal(validateTx(call, at(Fork.Shanghai)), null);
  });

  it("EIP-1559: maxPriorityFee ≤ maxFee; gasLimit × maxFee < 2^256", () => {
    assert.equal(
      validateTx(signTx(feeMarketTx({ maxPriorityFeePerGas: 100n, maxFeePerGas: 100n }), DEV_KEY), at(Fork.London)),
      null,
    );
    assert.equal(
      validateTx(signTx(feeMarketTx({ maxPriorityFeePerGas: 101n, maxFeePerGas: 100n }), DEV_KEY), at(Fork.London)),
      "PRIORITY_FEE_GREATER_THAN_MAX_FEE",
    );
    const gasLimit = 50_000n;
    const edge = (2n ** 256n - 1n) / gasLimit;
    assert.equal(
      validateTx(
        signTx(feeMarketTx({ gasLimit, maxFeePerGas: edge, maxPriorityFeePerGas: 0n }), DEV_KEY),
        at(Fork.London),
      ),
      null,
    );
    assert.equal(
      validateTx(
        signTx(feeMarketTx({ gasLimit, maxFeePerGas: edge + 1n, maxPriorityFeePerGas: 0n }), DEV_KEY),
        at(Fork.London),
      ),
      "GAS_PRICE_PRODUCT_OVERFLOW",
    );
    assert.equal(
      validateTx(signTx(legacy({ gasLimit, gasPrice: edge + 1n }), DEV_KEY), at(Fork.Frontier)),
      "GAS_PRICE_PRODUCT_OVERFLOW",
    );
  });

  it("fields beyond their width (constructed objects)", () => {
    const tx = signTx(legacy(), DEV_KEY);
    assert.equal(validateTx(fresh({ ...tx, value: 2n ** 256n }), at(Fork.Cancun)), "FIELD_OVERFLOW");
    assert.equal(validateTx(fresh({ ...tx, gasLimit: 2n ** 64n }), at(Fork.Cancun)), "FIELD_OVERFLOW");
    assert.equal(validateTx(fresh({ ...tx, nonce: 2n ** 64n }), at(Fork.Cancun)), "FIELD_OVERFLOW");
  });

  it("EIP-4844: ≥ 1 blob hash, version 0x01, count limit per fork", () => {
    const mk = (hashes: Uint8Array[]) => signTx(blobTx({ blobVersionedHashes: hashes }), DEV_KEY);
    assert.equal(validateTx(mk([]), at(Fork.Cancun)), "NO_BLOB_HASHES");
    const v2 = blobHash(1);
    v2[0] = 0x02;
    assert.equal(validateTx(mk([blobHash(1), v2]), at(Fork.Cancun)), "BLOB_HASH_VERSION");
    const six = Array.from({ length: 6 }, (_, i) => blobHash(i));
    const seven = Array.from({ length: 7 }, (_, i) => blobHash(i));
    const nine = Array.from({ length: 9 }, (_, i) => blobHash(i));
    const ten = Array.from({ length: 10 }, (_, i) => blobHash(i));
    assert.equal(validateTx(mk(six), at(Fork.Cancun)), null);
    assert.equal(validateTx(mk(seven), at(Fork.Cancun)), "BLOB_COUNT_EXCEEDED");
    assert.equal(validateTx(mk(nine), at(Fork.Prague)), null);
    assert.equal(validateTx(mk(ten), at(Fork.Prague)), "BLOB_COUNT_EXCEEDED");
    assert.equal(validateTx(mk(seven), at(Fork.Osaka)), "BLOB_COUNT_EXCEEDED");
    assert.equal(validateTx(mk(seven), at(Fork.Osaka, { maxBlobsPerTx: 7 })), null);
    assert.equal(maxBlobsPerTx(Fork.Osaka), 6);
  });

  it("EIP-4844 / EIP-7702 without `to` are rejected (decoder and validator)", () => {
    const blob = signTx(blobTx(), DEV_KEY);
    const noTo = { ...blob, to: null } as unknown as Tx;
    assert.equal(validateTx(noTo, at(Fork.Cancun)), "CREATE_NOT_ALLOWED");
    const sc = signTx(setCodeTx(), DEV_KEY);
    assert.equal(validateTx({ ...sc, to: null } as unknown as Tx, at(Fork.Prague)), "CREATE_NOT_ALLOWED");
  });

  it("EIP-7702: non-empty authorization list", () => {
    assert.equal(
      validateTx(signTx(setCodeTx({ authorizationList: [] }), DEV_KEY), at(Fork.Prague)),
      "EMPTY_AUTHORIZATION_LIST",
    );
  });

  it("validates decoded txs the same as constructed ones", () => {
    const tx = signTx(setCodeTx(), DEV_KEY);
    assert.equal(validateTx(decodeTx(encodeTx(tx)), at(Fork.Prague)), null);
  });
});
