/**
 * No quantity is ever rendered negative (issue 23: `"0x-3ab24f4c"` reached clients as a fee-history
 * reward). `qty` refuses a negative, a fraction or NaN as an internal error (-32603), and every
 * formatter of rpc/format.ts that renders a quantity does so through it: each is fed one negative
 * field here and must throw that error instead of writing it. Through the dispatcher the throw is a
 * -32603 answer, not a result.
 */
import { strict as assert } from "node:assert";
import type { Header } from "../../../src/block/header.js";
import type { Receipt } from "../../../src/block/receipt.js";
import { hexToBytes } from "../../../src/primitives/hex.js";
import { RpcError } from "../../../src/rpc/errors.js";
import {
  blockJson,
  effectiveGasPrice,
  headerJson,
  logJson,
  logJsonLength,
  qty,
  receiptJson,
  txJson,
  withdrawalJson,
} from "../../../src/rpc/format.js";
import { defineMethod, Registry } from "../../../src/rpc/registry.js";
import { type FeeMarketTx, type LegacyTx, TxType } from "../../../src/tx/tx.js";
import { mulberry32 } from "../../utils/prng.js";

const Z32 = new Uint8Array(32);
const A20 = hexToBytes("0x00000000000000000000000000000000000000aa");

function refused(f: () => unknown, what: string): void {
  assert.throws(
    f,
    (e: unknown) => e instanceof RpcError && e.code === -32603 && /^not a quantity: /.test(e.message),
    `${what}: a negative must be refused as an internal error`,
  );
}

const header: Header = {
  parentHash: Z32,
  ommersHash: Z32,
  coinbase: A20,
  stateRoot: Z32,
  transactionsRoot: Z32,
  receiptsRoot: Z32,
  logsBloom: new Uint8Array(256),
  difficulty: 0n,
  number: 5,
  gasLimit: 30_000_000n,
  gasUsed: 21_000,
  timestamp: 100,
  extraData: new Uint8Array(0),
  mixHash: Z32,
  nonce: new Uint8Array(8),
  baseFeePerGas: 7n,
  withdrawalsRoot: Z32,
  blobGasUsed: 0,
  excessBlobGas: 0,
  parentBeaconBlockRoot: Z32,
  requestsHash: null,
};

const dyn: FeeMarketTx = {
  type: TxType.FeeMarket,
  chainId: 1n,
  nonce: 0n,
  maxPriorityFeePerGas: 1n,
  maxFeePerGas: 10n,
  gasLimit: 21_000n,
  to: A20,
  value: 0n,
  data: new Uint8Array(0),
  accessList: [],
  yParity: 0,
  r: 1n,
  s: 1n,
};
const legacy: LegacyTx = {
  type: TxType.Legacy,
  nonce: 0n,
  gasPrice: 10n,
  gasLimit: 21_000n,
  to: A20,
  value: 0n,
  data: new Uint8Array(0),
  v: 37n,
  r: 1n,
  s: 1n,
};
const receipt: Receipt = {
  type: 2,
  status: 1,
  postState: null,
  cumulativeGasUsed: 21_000,
  logsBloom: new Uint8Array(256),
  logs: [],
  depositNonce: null,
  depositReceiptVersion: null,
};
const place = { blockHash: Z32, blockNumber: 5, blockTimestamp: 100, index: 0, baseFee: 7n };
const rPlace = {
  blockHash: Z32,
  blockNumber: 5,
  blockTimestamp: 100,
  index: 0,
  firstLogIndex: 0,
  previousCumulativeGas: 0,
  baseFee: 7n,
  blobBaseFee: 1n,
  l1: null,
};
const extras = { hash: Z32, from: A20 };

describe("rpc/format: no negative quantity reaches the wire", () => {
  it("qty: minimal hex of non-negative integers; a negative, a fraction or NaN is an internal error", () => {
    assert.equal(qty(0), "0x0");
    assert.equal(qty(0n), "0x0");
    assert.equal(qty(255), "0xff");
    assert.equal(qty(2n ** 256n - 1n), `0x${"f".repeat(64)}`);
    refused(() => qty(-1), "number");
    refused(() => qty(-1n), "bigint");
    refused(() => qty(-0x3ab24f4cn), "the fee-history reward of issue 23");
    refused(() => qty(1.5), "fraction");
    refused(() => qty(Number.NaN), "NaN");
    refused(() => qty(Number.POSITIVE_INFINITY), "infinity");
  });

  it("every formatter path renders its quantities through the guard", () => {
    // Sanity: the unmodified inputs format.
    headerJson(header, Z32, 500);
    txJson(dyn, extras, place);
    receiptJson(receipt, dyn, extras, rPlace);

    refused(() => headerJson({ ...header, baseFeePerGas: -1n }, Z32, 500), "header baseFeePerGas");
    refused(() => headerJson({ ...header, number: -1 }, Z32, 500), "header number");
    refused(() => headerJson({ ...header, gasUsed: -1 }, Z32, 500), "header gasUsed");
    refused(() => headerJson({ ...header, gasLimit: -1n }, Z32, 500), "header gasLimit");
    refused(() => headerJson({ ...header, timestamp: -1 }, Z32, 500), "header timestamp");
    refused(() => headerJson({ ...header, difficulty: -1n }, Z32, 500), "header difficulty");
    refused(() => headerJson({ ...header, blobGasUsed: -1 }, Z32, 500), "header blobGasUsed");
    refused(() => headerJson({ ...header, excessBlobGas: -1 }, Z32, 500), "header excessBlobGas");
    refused(() => headerJson(header, Z32, -1), "block size");
    refused(
      () =>
        blockJson({ header, hash: Z32, size: 1, transactions: [], uncleHashes: [], withdrawals: [] }) &&
        blockJson({
          header,
          hash: Z32,
          size: 1,
          transactions: [],
          uncleHashes: [],
          withdrawals: [{ index: -1n, validatorIndex: 0n, address: A20, amount: 0n }],
        }),
      "block withdrawal index",
    );
    refused(() => withdrawalJson({ index: 0n, validatorIndex: 0n, address: A20, amount: -1n }), "withdrawal amount");

    refused(() => txJson({ ...dyn, value: -1n }, extras, place), "tx value");
    refused(() => txJson({ ...dyn, nonce: -1n }, extras, place), "tx nonce");
    refused(() => txJson({ ...dyn, gasLimit: -1n }, extras, place), "tx gas");
    refused(() => txJson({ ...dyn, maxPriorityFeePerGas: -20n }, extras, place), "tx effective gasPrice");
    refused(() => txJson({ ...dyn, chainId: -1n }, extras, place), "tx chainId");
    refused(() => txJson({ ...legacy, gasPrice: -1n }, extras, place), "legacy gasPrice");
    refused(() => txJson({ ...legacy, v: -1n }, extras, place), "legacy v");
    refused(() => txJson(dyn, extras, { ...place, blockNumber: -1 }), "tx blockNumber");
    refused(() => txJson(dyn, extras, { ...place, index: -1 }), "tx transactionIndex");
    refused(() => txJson(dyn, extras, { ...place, blockTimestamp: -1 }), "tx blockTimestamp");

    refused(
      () =>
        logJson(
          { address: A20, topics: [], data: new Uint8Array(0) },
          { blockHash: Z32, blockNumber: 1, blockTimestamp: 1, txHash: Z32, txIndex: 0, logIndex: -1 },
        ),
      "log logIndex",
    );
    refused(() => receiptJson(receipt, dyn, extras, { ...rPlace, previousCumulativeGas: 30_000 }), "receipt gasUsed");
    refused(() => receiptJson(receipt, dyn, extras, { ...rPlace, baseFee: -20n }), "receipt effectiveGasPrice");
    refused(() => receiptJson(receipt, dyn, extras, { ...rPlace, index: -1 }), "receipt transactionIndex");
    refused(
      () =>
        receiptJson(receipt, dyn, extras, {
          ...rPlace,
          l1: { l1GasPrice: -1n, l1GasUsed: 0n, l1Fee: 0n, l1FeeScalar: "1" },
        }),
      "receipt l1GasPrice",
    );
    // effectiveGasPrice itself is arithmetic; its rendering goes through qty (above).
    assert.equal(effectiveGasPrice(dyn, -20n), -19n);
  });

  it("through the dispatcher a refused quantity is a -32603 answer, not a result", async () => {
    const reg = new Registry([defineMethod({ name: "test_negative", params: [], handler: () => qty(-5n) })]);
    const text = await reg
      .forApis(["test"])
      .handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "test_negative", params: [] }), {
        ctx: { transport: "http", remoteAddr: "t" },
        subs: null,
      });
    assert.deepEqual(JSON.parse(text as string), {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "not a quantity: -5" },
    });
  });
});

describe("rpc/format logJsonLength", () => {
  it("is the length of the log's JSON for any topics, data and places (removed or not)", () => {
    const rnd = mulberry32(26);
    const int = (max: number) => Math.floor(rnd() * max);
    for (let i = 0; i < 500; i++) {
      const log = {
        address: Uint8Array.from({ length: 20 }, () => int(256)),
        topics: Array.from({ length: int(5) }, () => Uint8Array.from({ length: 32 }, () => int(256))),
        data: new Uint8Array(int(3) === 0 ? 0 : int(300)),
      };
      const big = [0, 1, 15, 16, 255, 256, 2 ** 32, Number.MAX_SAFE_INTEGER];
      const n = () => (int(4) === 0 ? big[int(big.length)]! : int(100_000));
      const place = {
        blockHash: Z32,
        blockNumber: n(),
        blockTimestamp: n(),
        txHash: Z32,
        txIndex: n(),
        logIndex: n(),
        removed: int(2) === 0,
      };
      assert.equal(logJsonLength(log, place), JSON.stringify(logJson(log, place)).length);
    }
  });
});
