/** Builders of unsigned txs of every type, signed with a dev key, for the tx unit tests. */
import { hexToBytes } from "../../../src/primitives/hex.js";
import { signTx } from "../../../src/tx/signer.js";
import {
  type AccessListTx,
  type BlobTx,
  type DepositTx,
  type FeeMarketTx,
  type LegacyTx,
  type SetCodeTx,
  type SignedTx,
  TxType,
} from "../../../src/tx/tx.js";

/** Anvil/Hardhat dev account #0 (public test key). */
export const DEV_KEY = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
export const DEV_KEY_2 = hexToBytes("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");

export const TO = hexToBytes("0x095e7baea6a6c7c4c2dfeb977efac326af552d87");
export const KEY_A = new Uint8Array(32).fill(0x11);
export const KEY_B = new Uint8Array(32).fill(0x22);

export function blobHash(fill: number): Uint8Array {
  const h = new Uint8Array(32).fill(fill);
  h[0] = 0x01;
  return h;
}

export function legacy(over: Partial<LegacyTx> = {}): LegacyTx {
  return {
    type: TxType.Legacy,
    nonce: 7n,
    gasPrice: 10_000_000_000n,
    gasLimit: 100_000n,
    to: TO,
    value: 1_000_000_000_000_000_000n,
    data: Uint8Array.of(1, 2, 0, 3),
    v: 0n,
    r: 0n,
    s: 0n,
    ...over,
  };
}

export function accessListTx(over: Partial<AccessListTx> = {}): AccessListTx {
  return {
    type: TxType.AccessList,
    chainId: 1n,
    nonce: 1n,
    gasPrice: 20n,
    gasLimit: 60_000n,
    to: TO,
    value: 0n,
    data: new Uint8Array(0),
    accessList: [{ address: TO, storageKeys: [KEY_A, KEY_B] }],
    yParity: 0,
    r: 0n,
    s: 0n,
    ...over,
  };
}

export function feeMarketTx(over: Partial<FeeMarketTx> = {}): FeeMarketTx {
  return {
    type: TxType.FeeMarket,
    chainId: 1n,
    nonce: 2n,
    maxPriorityFeePerGas: 1_000_000_000n,
    maxFeePerGas: 30_000_000_000n,
    gasLimit: 50_000n,
    to: TO,
    value: 5n,
    data: Uint8Array.of(0xde, 0xad, 0xbe, 0xef),
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
    ...over,
  };
}

export function blobTx(over: Partial<BlobTx> = {}): BlobTx {
  return {
    type: TxType.Blob,
    chainId: 1n,
    nonce: 3n,
    maxPriorityFeePerGas: 1n,
    maxFeePerGas: 100n,
    gasLimit: 21_000n,
    to: TO,
    value: 0n,
    data: new Uint8Array(0),
    accessList: [],
    maxFeePerBlobGas: 7n,
    blobVersionedHashes: [blobHash(0xaa), blobHash(0xbb)],
    yParity: 0,
    r: 0n,
    s: 0n,
    ...over,
  };
}

export function setCodeTx(over: Partial<SetCodeTx> = {}): SetCodeTx {
  return {
    type: TxType.SetCode,
    chainId: 1n,
    nonce: 4n,
    maxPriorityFeePerGas: 1n,
    maxFeePerGas: 100n,
    gasLimit: 100_000n,
    to: TO,
    value: 0n,
    data: new Uint8Array(0),
    accessList: [],
    authorizationList: [{ chainId: 1n, address: TO, nonce: 0n, yParity: 0, r: 1n, s: 1n }],
    yParity: 0,
    r: 0n,
    s: 0n,
    ...over,
  };
}

export function depositTx(over: Partial<DepositTx> = {}): DepositTx {
  return {
    type: TxType.Deposit,
    sourceHash: new Uint8Array(32).fill(0x5e),
    from: hexToBytes("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001"),
    to: hexToBytes("0x4200000000000000000000000000000000000015"),
    mint: 0n,
    value: 0n,
    gasLimit: 1_000_000n,
    isSystemTx: false,
    data: Uint8Array.of(0x44, 0x0a, 0x5e, 0x20),
    ...over,
  };
}

/** One signed tx of every signed type (legacy both with and without EIP-155). */
export function signedSamples(): { name: string; tx: SignedTx }[] {
  return [
    { name: "legacy pre-155", tx: signTx(legacy(), DEV_KEY) },
    { name: "legacy EIP-155", tx: signTx(legacy(), DEV_KEY, 1n) },
    {
      name: "legacy creation",
      tx: signTx(legacy({ to: null, data: Uint8Array.of(0x60, 0, 0x60, 0, 0xf3) }), DEV_KEY, 10n),
    },
    { name: "EIP-2930", tx: signTx(accessListTx(), DEV_KEY) },
    { name: "EIP-1559", tx: signTx(feeMarketTx(), DEV_KEY) },
    { name: "EIP-1559 creation", tx: signTx(feeMarketTx({ to: null, gasLimit: 100_000n }), DEV_KEY) },
    { name: "EIP-4844", tx: signTx(blobTx(), DEV_KEY) },
    { name: "EIP-7702", tx: signTx(setCodeTx(), DEV_KEY) },
  ];
}
