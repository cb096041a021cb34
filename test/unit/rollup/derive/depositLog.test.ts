/**
 * rollup/derive/depositLog: TransactionDeposited logs built by hand, as the OptimismPortal emits them
 * (op-node `MarshalDepositLogEvent`), decode to the deposit; every malformation op-node rejects is a
 * critical `DepositLogError`; the source hash follows specs/protocol/deposits.md; receipts are
 * filtered by status, address and topic, with block-wide log indices.
 */
import { strict as assert } from "node:assert";
import type { ReceiptLog } from "../../../../src/block/log.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { utf8ToBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import {
  DEPOSIT_EVENT_TOPIC,
  DepositLogError,
  type DepositReceipt,
  decodeDepositLog,
  depositsFromReceipts,
  userDepositSourceHash,
} from "../../../../src/rollup/derive/depositLog.js";
import { DeriveError } from "../../../../src/rollup/derive/errors.js";
import { decodeTx, encodeTx } from "../../../../src/tx/envelope.js";
import { TxType } from "../../../../src/tx/tx.js";

const PORTAL = hexToBytes("0xbeb5fc579115071764c7423a4f12edde41f106ed");
const L1_HASH = hexToBytes("0xc00e5d67c2755389aded7d8b151cbd5bcdf7ed275ad5e028b664880fc7581c77");
const FROM = hexToBytes("0x1111111111111111111111111111111111111111");
const TO = hexToBytes("0x2222222222222222222222222222222222222222");

function word(v: bigint): Uint8Array {
  return hexToBytes(`0x${v.toString(16).padStart(64, "0")}`);
}

function topicOf(addr: Uint8Array): Uint8Array {
  const t = new Uint8Array(32);
  t.set(addr, 12);
  return t;
}

function cat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

interface DepositFields {
  from?: Uint8Array;
  to?: Uint8Array;
  mint?: bigint;
  value?: bigint;
  gas?: bigint;
  isCreation?: number;
  data?: Uint8Array;
}

function opaqueData(f: DepositFields): Uint8Array {
  const gas = hexToBytes(`0x${(f.gas ?? 100_000n).toString(16).padStart(16, "0")}`);
  return cat(
    word(f.mint ?? 0n),
    word(f.value ?? 0n),
    gas,
    Uint8Array.of(f.isCreation ?? 0),
    f.data ?? new Uint8Array(0),
  );
}

/** abi.encode(bytes): offset 0x20, length, content zero-padded to 32. */
function abiBytes(content: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil(content.length / 32) * 32);
  padded.set(content);
  return cat(word(32n), word(BigInt(content.length)), padded);
}

function depositLog(f: DepositFields = {}): ReceiptLog {
  return {
    address: PORTAL,
    topics: [DEPOSIT_EVENT_TOPIC, topicOf(f.from ?? FROM), topicOf(f.to ?? TO), new Uint8Array(32)],
    data: abiBytes(opaqueData(f)),
  };
}

function errorOf(fn: () => unknown): DepositLogError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof DepositLogError, `expected DepositLogError, got ${String(e)}`);
    return e;
  }
  assert.fail("no error thrown");
}

describe("rollup/derive/depositLog", () => {
  it("DEPOSIT_EVENT_TOPIC is keccak of the event signature (op-stack.md §2.10)", () => {
    assert.equal(bytesToHex(DEPOSIT_EVENT_TOPIC), "0xb3813568d9991fc951961fcb4c784893574240a28925604d09fc577c55bb7c32");
  });

  describe("userDepositSourceHash", () => {
    it("is keccak256(bytes32(0) ‖ keccak256(l1BlockHash ‖ bytes32(logIndex))), computed here by hand", () => {
      for (const logIndex of [0, 1, 4, 255, 256, 70_000]) {
        const idx = new Uint8Array(32);
        new DataView(idx.buffer).setUint32(28, logIndex);
        const inner = keccak256(cat(L1_HASH, idx));
        const expected = keccak256(cat(new Uint8Array(32), inner));
        assert.deepEqual(userDepositSourceHash(L1_HASH, logIndex), expected, `logIndex ${logIndex}`);
      }
    });

    it("differs from the L1-info source hash (domain 1) of the same inputs", () => {
      // op-node deposit_source_test.go TestL1InfoDepositSource: domain 1, same hash, seq 4.
      assert.notEqual(
        bytesToHex(userDepositSourceHash(L1_HASH, 4)),
        "0x0586c503340591999b8b38bc9834bb16aec7d5bc00eb5587ab139c9ddab81977",
      );
    });
  });

  describe("decodeDepositLog", () => {
    it("decodes every field of a call deposit", () => {
      const data = utf8ToBytes("hello deposit calldata, longer than one word of thirty-two bytes");
      const tx = decodeDepositLog(depositLog({ mint: 10n ** 18n, value: 5n, gas: 21_000n, data }), L1_HASH, 7);
      assert.equal(tx.type, TxType.Deposit);
      assert.deepEqual(tx.sourceHash, userDepositSourceHash(L1_HASH, 7));
      assert.deepEqual(tx.from, FROM);
      assert.deepEqual(tx.to, TO);
      assert.equal(tx.mint, 10n ** 18n);
      assert.equal(tx.value, 5n);
      assert.equal(tx.gasLimit, 21_000n);
      assert.equal(tx.isSystemTx, false);
      assert.deepEqual(tx.data, data);
      const encoded = encodeTx(tx);
      assert.deepEqual(encodeTx(decodeTx(encoded)), encoded);
    });

    it("isCreation (any non-zero byte) makes `to` null", () => {
      assert.equal(decodeDepositLog(depositLog({ isCreation: 1 }), L1_HASH, 0).to, null);
      assert.equal(decodeDepositLog(depositLog({ isCreation: 2 }), L1_HASH, 0).to, null);
      assert.deepEqual(decodeDepositLog(depositLog({ isCreation: 0 }), L1_HASH, 0).to, TO);
    });

    it("mint 0 is 0n and encodes as the empty string", () => {
      const tx = decodeDepositLog(depositLog({ mint: 0n }), L1_HASH, 0);
      assert.equal(tx.mint, 0n);
      const again = decodeTx(encodeTx(tx));
      assert.equal(again.type, TxType.Deposit);
      if (again.type === TxType.Deposit) assert.equal(again.mint, 0n);
    });

    it("keeps `from` as emitted: an L1-aliased contract sender is not un-aliased", () => {
      // 0x1234…5678 + 0x1111000000000000000000000000000000001111, as the portal aliases a contract.
      const aliased = hexToBytes("0x2345000000000000000000000000000000006789");
      const tx = decodeDepositLog(depositLog({ from: aliased }), L1_HASH, 0);
      assert.deepEqual(tx.from, aliased);
    });

    it("takes u256 mint/value and u64 gas at their full width", () => {
      const max256 = (1n << 256n) - 1n;
      const tx = decodeDepositLog(depositLog({ mint: max256, value: max256, gas: (1n << 64n) - 1n }), L1_HASH, 0);
      assert.equal(tx.mint, max256);
      assert.equal(tx.value, max256);
      assert.equal(tx.gasLimit, (1n << 64n) - 1n);
    });

    it("accepts empty calldata and content that needs no padding", () => {
      assert.equal(decodeDepositLog(depositLog(), L1_HASH, 0).data.length, 0);
      const data = new Uint8Array(96 - 73).fill(0xab); // opaque = 96 bytes exactly
      const log = depositLog({ data });
      assert.equal(log.data.length, 64 + 96);
      assert.deepEqual(decodeDepositLog(log, L1_HASH, 0).data, data);
    });

    it("copies the fields out of the log buffer", () => {
      const log = depositLog({ data: Uint8Array.of(1, 2, 3) });
      const tx = decodeDepositLog(log, L1_HASH, 0);
      log.data.fill(0);
      log.topics[1].fill(0);
      assert.deepEqual(tx.data, Uint8Array.of(1, 2, 3));
      assert.deepEqual(tx.from, FROM);
    });

    describe("rejects malformed logs with a critical DepositLogError", () => {
      const good = depositLog({ data: Uint8Array.of(9, 9) });
      const withData = (data: Uint8Array): ReceiptLog => ({ ...good, data });
      const cases: [string, ReceiptLog][] = [
        ["3 topics", { ...good, topics: good.topics.slice(0, 3) }],
        ["5 topics", { ...good, topics: [...good.topics, new Uint8Array(32)] }],
        ["no topics", { ...good, topics: [] }],
        ["wrong event topic", { ...good, topics: [keccak256(utf8ToBytes("x")), ...good.topics.slice(1)] }],
        ["version 1", { ...good, topics: [...good.topics.slice(0, 3), word(1n)] }],
        ["data shorter than the slice header", withData(good.data.subarray(0, 63))],
        ["empty data", withData(new Uint8Array(0))],
        ["data not a multiple of 32", withData(cat(good.data, Uint8Array.of(0)))],
        ["offset 0", withData(cat(word(0n), good.data.subarray(32)))],
        ["offset 64", withData(cat(word(64n), good.data.subarray(32)))],
        ["offset 2^64 + 32", withData(cat(word((1n << 64n) + 32n), good.data.subarray(32)))],
        ["length beyond the data", withData(cat(good.data.subarray(0, 32), word(97n), good.data.subarray(64)))],
        ["length 2^255", withData(cat(good.data.subarray(0, 32), word(1n << 255n), good.data.subarray(64)))],
        ["non-minimal padding (an extra zero word)", withData(cat(good.data, new Uint8Array(32)))],
        ["opaqueData shorter than the version-0 head", withData(abiBytes(opaqueData({}).subarray(0, 72)))],
        ["opaqueData empty", withData(abiBytes(new Uint8Array(0)))],
      ];
      for (const [name, log] of cases) {
        it(name, () => {
          const e = errorOf(() => decodeDepositLog(log, L1_HASH, 0));
          assert.ok(e instanceof DeriveError);
          assert.equal(e.severity, "critical");
        });
      }

      it("(the unmodified log decodes)", () => {
        assert.deepEqual(decodeDepositLog(good, L1_HASH, 0).data, Uint8Array.of(9, 9));
      });
    });
  });

  describe("depositsFromReceipts", () => {
    const other = hexToBytes("0x000000000000000000000000000000000000dead");
    const noise = (address: Uint8Array): ReceiptLog => ({
      address,
      topics: [keccak256(utf8ToBytes("Other()"))],
      data: new Uint8Array(0),
    });

    it("keeps successful receipts' portal deposit logs, indexed across the whole block", () => {
      const receipts: DepositReceipt[] = [
        { status: 1, logs: [noise(PORTAL), depositLog({ value: 1n })] }, // block logs 0, 1
        { status: 0, logs: [] },
        { status: 1, logs: [{ ...depositLog({ value: 2n }), address: other }, noise(other)] }, // 2, 3
        { status: 1, logs: [depositLog({ value: 3n }), depositLog({ value: 4n, isCreation: 1 })] }, // 4, 5
        { status: 1, logs: [{ ...depositLog({ value: 5n }), topics: [] }] }, // 6: no topic, not a deposit
      ];
      const txs = depositsFromReceipts(receipts, L1_HASH, PORTAL);
      assert.deepEqual(
        txs.map((t) => t.value),
        [1n, 3n, 4n],
      );
      assert.deepEqual(
        txs.map((t) => bytesToHex(t.sourceHash)),
        [1, 4, 5].map((i) => bytesToHex(userDepositSourceHash(L1_HASH, i))),
      );
      assert.equal(txs[2].to, null);
    });

    it("skips failed receipts but still counts their logs in the block index", () => {
      // A failed receipt has no logs on a real chain; if one did, its logs keep their block index.
      const receipts: DepositReceipt[] = [
        { status: 0, logs: [depositLog({ value: 1n }), depositLog({ value: 2n })] },
        { status: 1, logs: [depositLog({ value: 3n })] },
      ];
      const txs = depositsFromReceipts(receipts, L1_HASH, PORTAL);
      assert.equal(txs.length, 1);
      assert.equal(txs[0].value, 3n);
      assert.deepEqual(txs[0].sourceHash, userDepositSourceHash(L1_HASH, 2));
    });

    it("returns nothing for a block without deposits", () => {
      assert.deepEqual(depositsFromReceipts([], L1_HASH, PORTAL), []);
      assert.deepEqual(depositsFromReceipts([{ status: 1, logs: [noise(PORTAL)] }], L1_HASH, PORTAL), []);
    });

    it("throws a critical DepositLogError naming the receipt and log of a malformed deposit", () => {
      const bad: ReceiptLog = { ...depositLog(), topics: depositLog().topics.slice(0, 3) };
      const e = errorOf(() =>
        depositsFromReceipts(
          [
            { status: 1, logs: [depositLog()] },
            { status: 1, logs: [noise(PORTAL), bad] },
          ],
          L1_HASH,
          PORTAL,
        ),
      );
      assert.equal(e.severity, "critical");
      assert.match(e.message, /receipt 1, log 1/);
    });

    it("ignores a malformed deposit-topic log from another address", () => {
      const bad: ReceiptLog = { ...depositLog(), topics: depositLog().topics.slice(0, 3), address: other };
      assert.deepEqual(depositsFromReceipts([{ status: 1, logs: [bad] }], L1_HASH, PORTAL), []);
    });
  });
});
