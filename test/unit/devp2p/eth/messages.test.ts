/**
 * eth/68 and eth/69 codecs: a round trip of every message of both versions, EIP-2481's published
 * vectors, OP deposit txs and receipts (with depositNonce / depositReceiptVersion) as op-geth sends
 * them, and garbage giving an error value, never an exception.
 */
import { strict as assert } from "node:assert";
import { encodeBody } from "../../../../src/block/block.js";
import { encodeHeader } from "../../../../src/block/header.js";
import { logsBloom } from "../../../../src/block/logsBloom.js";
import type { Receipt } from "../../../../src/block/receipt.js";
import {
  decodeEthMessage,
  ETH68,
  ETH69,
  type EthMessage,
  EthMsg,
  type EthVersion,
  encodeEthMessage,
  encodeGetBlockHeaders,
  encodeHashesRequest,
  isDecodeError,
  MAX_MESSAGE_SIZE,
} from "../../../../src/devp2p/eth/messages.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { TxType } from "../../../../src/tx/tx.js";
import { testHeader } from "../../../utils/blocks.js";
import { transfer } from "./fixtures.js";

const H1 = hexToBytes(`0x${"00".repeat(28)}deadc0de`);
const H2 = hexToBytes(`0x${"00".repeat(28)}feedbeef`);
const FORK = { hash: hexToBytes("0xfc64ec04"), next: 1150000 };

const DEPOSIT = encodeTx({
  type: TxType.Deposit,
  sourceHash: new Uint8Array(32).fill(1),
  from: new Uint8Array(20).fill(2),
  to: new Uint8Array(20).fill(3),
  mint: 5n,
  value: 1n,
  gasLimit: 100_000n,
  isSystemTx: false,
  data: Uint8Array.of(1, 2, 3),
});
const LEGACY_TX = encodeTx({
  type: TxType.Legacy,
  nonce: 1n,
  gasPrice: 7n,
  gasLimit: 21_000n,
  to: new Uint8Array(20).fill(9),
  value: 3n,
  data: new Uint8Array(0),
  v: 27n,
  r: 1n,
  s: 1n,
});
const TYPED_TX = encodeTx(transfer(0));

const LOGS = [{ address: new Uint8Array(20).fill(7), topics: [new Uint8Array(32).fill(8)], data: Uint8Array.of(1) }];
function receipt(type: number, extra: Partial<Receipt> = {}): Receipt {
  return {
    type,
    status: 1,
    postState: null,
    cumulativeGasUsed: 21_000,
    logsBloom: logsBloom(LOGS),
    logs: LOGS,
    depositNonce: null,
    depositReceiptVersion: null,
    ...extra,
  };
}
const RECEIPTS: Receipt[][] = [
  [
    receipt(TxType.Deposit, { depositNonce: 4, depositReceiptVersion: 1 }),
    receipt(TxType.Deposit, { depositNonce: 5 }),
    receipt(TxType.Legacy, { status: 0 }),
    receipt(TxType.FeeMarket, { logs: [], logsBloom: logsBloom([]) }),
    receipt(TxType.Legacy, { postState: new Uint8Array(32).fill(6) }),
  ],
  [],
];

const header = encodeHeader(testHeader({ number: 7, baseFeePerGas: 7n }));
const body = encodeBody({ transactions: [DEPOSIT, LEGACY_TX, TYPED_TX], ommers: [], withdrawals: [] });

function common(): EthMessage[] {
  return [
    { code: EthMsg.Transactions, txs: [DEPOSIT, LEGACY_TX, TYPED_TX] },
    { code: EthMsg.GetBlockHeaders, requestId: 1111n, origin: H1, amount: 5n, skip: 5n, reverse: false },
    { code: EthMsg.GetBlockHeaders, requestId: 2n ** 64n - 1n, origin: 9999n, amount: 1n, skip: 0n, reverse: true },
    { code: EthMsg.BlockHeaders, requestId: 1n, headers: [header, header] },
    { code: EthMsg.GetBlockBodies, requestId: 3n, hashes: [H1, H2] },
    { code: EthMsg.BlockBodies, requestId: 4n, bodies: [body] },
    {
      code: EthMsg.NewPooledTransactionHashes,
      types: Uint8Array.of(0, 2, 0x7e),
      sizes: [LEGACY_TX.length, TYPED_TX.length, DEPOSIT.length],
      hashes: [H1, H2, H1],
    },
    { code: EthMsg.GetPooledTransactions, requestId: 5n, hashes: [H2] },
    { code: EthMsg.PooledTransactions, requestId: 6n, txs: [TYPED_TX, LEGACY_TX] },
    { code: EthMsg.GetReceipts, requestId: 7n, hashes: [H1] },
    { code: EthMsg.Receipts, requestId: 8n, receipts: RECEIPTS },
  ];
}

const PER_VERSION: Record<EthVersion, EthMessage[]> = {
  68: [
    {
      code: EthMsg.Status,
      form: ETH68,
      version: 68,
      networkId: 10n,
      td: 17_179_869_184n,
      head: H1,
      genesis: H2,
      forkId: FORK,
    },
    { code: EthMsg.NewBlockHashes, entries: [{ hash: H1, number: 12 }] },
    { code: EthMsg.NewBlock, block: hexToBytes("0xc3c0c0c0"), td: 9n },
    ...common(),
  ],
  69: [
    {
      code: EthMsg.Status,
      form: ETH69,
      version: 69,
      networkId: 10n,
      genesis: H2,
      forkId: FORK,
      earliest: 0,
      latest: 123,
      latestHash: H1,
    },
    { code: EthMsg.BlockRangeUpdate, earliest: 3, latest: 9, latestHash: H2 },
    ...common(),
  ],
};

/** Drops the decoder-only `decoded` fields so messages compare with what was encoded. */
function strip(m: EthMessage): unknown {
  const { decoded: _d, ...rest } = m as EthMessage & { decoded?: unknown };
  return rest;
}

describe("devp2p/eth/messages", () => {
  for (const version of [ETH68, ETH69] as const) {
    describe(`eth/${version}`, () => {
      for (const m of PER_VERSION[version]) {
        it(`round-trips ${Object.entries(EthMsg).find(([, c]) => c === m.code)?.[0]}`, () => {
          const enc = encodeEthMessage(version, m);
          const dec = decodeEthMessage(version, m.code, enc);
          assert.ok(!isDecodeError(dec), isDecodeError(dec) ? dec.reason : "");
          assert.deepEqual(strip(dec), strip(m));
          assert.equal(bytesToHex(encodeEthMessage(version, dec)), bytesToHex(enc));
        });
      }
    });
  }

  it("EIP-2481 vectors: GetBlockHeaders by hash and number, GetBlockBodies/GetReceipts/GetPooledTransactions", () => {
    const byHash = encodeGetBlockHeaders({ requestId: 1111n, origin: H1, amount: 5n, skip: 5n, reverse: false });
    assert.equal(
      bytesToHex(byHash),
      "0xe8820457e4a000000000000000000000000000000000000000000000000000000000deadc0de050580",
    );
    const byNumber = encodeGetBlockHeaders({ requestId: 1111n, origin: 9999n, amount: 5n, skip: 5n, reverse: false });
    assert.equal(bytesToHex(byNumber), "0xca820457c682270f050580");
    const hashes = encodeHashesRequest(1111n, [H1, H2]);
    assert.equal(
      bytesToHex(hashes),
      "0xf847820457f842a000000000000000000000000000000000000000000000000000000000deadc0dea000000000000000000000000000000000000000000000000000000000feedbeef",
    );
    for (const code of [EthMsg.GetBlockBodies, EthMsg.GetReceipts, EthMsg.GetPooledTransactions]) {
      const d = decodeEthMessage(ETH68, code, hashes);
      assert.ok(
        !isDecodeError(d) && "requestId" in d && "hashes" in d && d.hashes.length === 2 && d.requestId === 1111n,
      );
    }
    const d = decodeEthMessage(ETH69, EthMsg.GetBlockHeaders, byNumber);
    assert.ok(!isDecodeError(d) && d.code === EthMsg.GetBlockHeaders && d.origin === 9999n);
  });

  it("eth/69 receipts carry no bloom and keep op-geth's deposit fields; eth/68 keeps the consensus form", () => {
    const r69 = encodeEthMessage(ETH69, { code: EthMsg.Receipts, requestId: 1n, receipts: RECEIPTS });
    const r68 = encodeEthMessage(ETH68, { code: EthMsg.Receipts, requestId: 1n, receipts: RECEIPTS });
    // Five 256-byte blooms (plus their 3-byte headers) are the difference.
    assert.equal(r68.length - r69.length > 5 * 256, true);
    const d = decodeEthMessage(ETH69, EthMsg.Receipts, r69);
    assert.ok(!isDecodeError(d) && d.code === EthMsg.Receipts);
    assert.equal(d.receipts[0][0].depositNonce, 4);
    assert.equal(d.receipts[0][0].depositReceiptVersion, 1);
    assert.equal(d.receipts[0][1].depositNonce, 5);
    assert.equal(d.receipts[0][1].depositReceiptVersion, null);
    assert.equal(bytesToHex(d.receipts[0][0].logsBloom), bytesToHex(logsBloom(LOGS)));
    // A deposit receipt in eth/69: [0x7e, status, gas, logs, nonce, version].
    assert.equal(bytesToHex(r69).includes("7e01825208"), true);
  });

  it("refuses what a version does not define", () => {
    const nb = encodeEthMessage(ETH68, PER_VERSION[68][2]);
    const d = decodeEthMessage(ETH69, EthMsg.NewBlock, nb);
    assert.ok(isDecodeError(d) && d.reason.startsWith("invalid message code"));
    const bru = encodeEthMessage(ETH69, PER_VERSION[69][1]);
    const e = decodeEthMessage(ETH68, EthMsg.BlockRangeUpdate, bru);
    assert.ok(isDecodeError(e) && e.reason.startsWith("invalid message code"));
    const s68 = encodeEthMessage(ETH68, PER_VERSION[68][0]);
    assert.ok(isDecodeError(decodeEthMessage(ETH69, EthMsg.Status, s68)), "eth/68 status is not an eth/69 status");
    assert.ok(isDecodeError(decodeEthMessage(ETH68, 0x0d, hexToBytes("0xc0"))), "GetNodeData is gone (eth/67)");
  });

  it("garbage never throws: truncations, bit flips, wrong shapes, oversized", () => {
    const samples = [...PER_VERSION[68], ...PER_VERSION[69]];
    let errors = 0;
    for (const version of [ETH68, ETH69] as const) {
      for (const m of samples) {
        let enc: Uint8Array;
        try {
          enc = encodeEthMessage(version, m);
        } catch {
          continue;
        }
        for (let cut = 0; cut < enc.length; cut += Math.max(1, enc.length >> 4)) {
          const d = decodeEthMessage(version, m.code, enc.subarray(0, cut));
          if (isDecodeError(d)) errors++;
        }
        for (let i = 0; i < Math.min(enc.length, 64); i++) {
          const flipped = enc.slice();
          flipped[i] ^= 0xff;
          decodeEthMessage(version, m.code, flipped); // must return, whatever it returns
        }
      }
    }
    assert.ok(errors > 0);
    const bad = decodeEthMessage(ETH68, EthMsg.NewPooledTransactionHashes, hexToBytes("0xc60182010ac0c0"));
    assert.ok(isDecodeError(bad) && bad.reason.includes("invalid"));
    const big = decodeEthMessage(ETH68, EthMsg.Transactions, new Uint8Array(MAX_MESSAGE_SIZE + 1));
    assert.ok(isDecodeError(big) && big.reason.startsWith("message too long"));
    const badOrigin = decodeEthMessage(
      ETH68,
      EthMsg.GetBlockHeaders,
      hexToBytes("0xd2820457ce8a0102030405060708090a050580"),
    );
    assert.ok(isDecodeError(badOrigin) && badOrigin.reason.includes("origin"));
    const notTx = decodeEthMessage(ETH68, EthMsg.Transactions, hexToBytes("0xc483820102"));
    assert.ok(isDecodeError(notTx));
  });
});
