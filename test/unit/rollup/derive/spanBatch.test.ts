/**
 * Span batch codec (specs delta/span-batches.md, op-stack.md §2.6): byte-exact raw round trips on
 * kona's synthetic raw batch and on a real OP Mainnet channel (143 blocks, 1766 txs, every rebuilt
 * tx recovering a sender), the origin and v reconstruction rules, framing rejections with typed
 * reasons, the batcher-side builder, and property tests (singulars → span → singulars; random and
 * mutated bytes only ever raise BatchDecodeError).
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import fc from "fast-check";
import { privateKeyToAddress } from "../../../../src/crypto/secp256k1.js";
import { concatBytes, equalBytes } from "../../../../src/primitives/bytes.js";
import { hexToBytes } from "../../../../src/primitives/hex.js";
import { decodeHeader } from "../../../../src/rlp/decode.js";
import { decodeBatch } from "../../../../src/rollup/derive/batch.js";
import {
  BatchDecodeError,
  type BatchDecodeReason,
  BatchEncodeError,
  type BatchEncodeReason,
} from "../../../../src/rollup/derive/batchErrors.js";
import { BatchType, type SingularBatch } from "../../../../src/rollup/derive/batchTypes.js";
import { deriveSpanBatch } from "../../../../src/rollup/derive/deriveSpanBatch.js";
import {
  decodeRawSpanBatch,
  encodeRawSpanBatch,
  encodeSpanBatch,
  MAX_SPAN_BATCH_ELEMENT_COUNT,
  packSpanBitlist,
  type RawSpanBatch,
  readRawSpanBatch,
  spanBatchLegacyTxCount,
  spanBatchTxCount,
  spanBitlistGet,
  uvarintLength,
  writeUvarint,
} from "../../../../src/rollup/derive/rawSpanBatch.js";
import { SpanBatchBuilder, spanBatchFromSingulars } from "../../../../src/rollup/derive/spanBatchBuilder.js";
import { decodeTx, encodeTx } from "../../../../src/tx/envelope.js";
import { recoverSender, signTx } from "../../../../src/tx/signer.js";
import { type SignedTx, type Tx, TxType } from "../../../../src/tx/tx.js";
import { fixturePath } from "../../../utils/fixtures.js";
import { accessListTx, blobTx, DEV_KEY, depositTx, feeMarketTx, legacy, setCodeTx, TO } from "../../tx/builders.js";

const OP_MAINNET = { genesisL2Time: 1686068903, blockTime: 2, l2ChainId: 10n };
const DEV_ADDR = privateKeyToAddress(DEV_KEY);

function expectDecodeError(fn: () => unknown, reason: BatchDecodeReason, phase?: "decode" | "derive"): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof BatchDecodeError, `expected BatchDecodeError, got ${String(e)}`);
    assert.equal(e.reason, reason, e.message);
    if (phase !== undefined) assert.equal(e.phase, phase);
    return true;
  });
}

function expectEncodeError(fn: () => unknown, reason: BatchEncodeReason): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof BatchEncodeError, `expected BatchEncodeError, got ${String(e)}`);
    assert.equal(e.reason, reason, e.message);
    return true;
  });
}

function uvarint(v: number | bigint): Uint8Array {
  const out = new Uint8Array(uvarintLength(v));
  writeUvarint(out, 0, v);
  return out;
}

/** The one batch string of the OP Mainnet channel in batch.hex (type byte ‖ content). */
function mainnetBatchData(): Uint8Array {
  const hex = readFileSync(fixturePath("op-stack/kona-batch-data/batch.hex"), "utf8").trim();
  const channel = new Uint8Array(inflateSync(hexToBytes(hex)));
  const h = decodeHeader(channel, 0);
  assert.equal(h.list, false);
  assert.equal(h.start + h.length, channel.length, "the channel holds exactly one batch");
  return channel.subarray(h.start, h.start + h.length);
}

const hash = (fill: number) => new Uint8Array(32).fill(fill);

function block(over: Partial<SingularBatch> = {}): SingularBatch {
  return {
    parentHash: hash(0xaa),
    epochNum: 100,
    epochHash: hash(0xbb),
    timestamp: OP_MAINNET.genesisL2Time + 1000,
    transactions: [],
    ...over,
  };
}

/** Minimal raw bytes: one block, no txs; `prefix` overrides the two prefix varints. */
function minimalRaw(rel: Uint8Array = Uint8Array.of(0), l1: Uint8Array = Uint8Array.of(0)): Uint8Array {
  return concatBytes(rel, l1, new Uint8Array(40), Uint8Array.of(1, 0, 0));
}

describe("rollup/derive/spanBatch", () => {
  describe("kona raw_span_batch.bin (synthetic, 4 blocks)", () => {
    const bytes = new Uint8Array(readFileSync(fixturePath("op-stack/kona-batch-data/raw_span_batch.bin")));

    it("decodes the whole input and re-encodes it byte for byte", () => {
      const { raw, end } = readRawSpanBatch(bytes);
      assert.equal(end, bytes.length);
      assert.deepEqual(raw.blockTxCounts, [8, 15, 15, 1]);
      assert.equal(spanBatchTxCount(raw), 39);
      assert.equal(spanBatchLegacyTxCount(raw), 20);
      assert.equal(raw.relTimestamp, 1639845645n);
      // Above 2^63: the raw form keeps it exactly.
      assert.equal(raw.l1OriginNum, 16988980031808077784n);
      assert.ok(equalBytes(encodeRawSpanBatch(raw), bytes));
      assert.ok(equalBytes(encodeSpanBatch(raw), concatBytes(Uint8Array.of(1), bytes)));
    });

    it("cannot be derived: its L1 origin number exceeds 2^53", () => {
      expectDecodeError(() => deriveSpanBatch(decodeRawSpanBatch(bytes), OP_MAINNET), "NUMBER_TOO_LARGE", "derive");
    });
  });

  describe("OP Mainnet channel (batch.hex, June 2024)", () => {
    const data = mainnetBatchData();

    it("decodes the span batch prefix and payload", () => {
      assert.equal(data[0], BatchType.Span);
      const { raw, end } = readRawSpanBatch(data, 1);
      assert.equal(end, data.length, "the batch spans the whole string");
      assert.equal(raw.blockTxCounts.length, 143);
      assert.equal(raw.relTimestamp, 32_295_734n);
      assert.equal(raw.l1OriginNum, 20_089_770n);
      assert.ok(equalBytes(raw.parentCheck, hexToBytes("ba1be7cfde4724e81290aa5ae3c082731ce44823")));
      assert.ok(equalBytes(raw.l1OriginCheck, hexToBytes("4bd8da85bfabf4daa6a3f294d3d51dd927c6cbcb")));
      assert.equal(spanBatchTxCount(raw), 1766);
      assert.equal(raw.txDatas.length, 1766);
      const byType = new Map<number, number>();
      for (const d of raw.txDatas) {
        const t = d[0] > 0x7f ? 0 : d[0];
        byType.set(t, (byType.get(t) ?? 0) + 1);
      }
      assert.deepEqual([...byType.entries()].sort(), [
        [0, 454],
        [1, 11],
        [2, 1301],
      ]);
      assert.equal(spanBatchLegacyTxCount(raw), 454);
    });

    it("re-encodes byte for byte", () => {
      const raw = decodeRawSpanBatch(data.subarray(1));
      assert.ok(equalBytes(encodeRawSpanBatch(raw), data.subarray(1)));
      assert.ok(equalBytes(encodeSpanBatch(raw), data));
    });

    it("derives 143 blocks whose 1766 txs all decode and recover a sender", () => {
      const raw = decodeRawSpanBatch(data.subarray(1));
      const span = deriveSpanBatch(raw, OP_MAINNET);
      assert.equal(span.batches.length, 143);
      const t0 = OP_MAINNET.genesisL2Time + 32_295_734;
      assert.equal(t0, 1718364637); // 2024-06-14 11:30:37 UTC
      let txs = 0;
      let prevEpoch = span.batches[0].epochNum;
      for (let i = 0; i < span.batches.length; i++) {
        const el = span.batches[i];
        assert.equal(el.timestamp, t0 + 2 * i);
        assert.equal(el.transactions.length, raw.blockTxCounts[i]);
        assert.ok(el.epochNum === prevEpoch || el.epochNum === prevEpoch + 1);
        assert.equal(el.epochNum - prevEpoch, i === 0 ? 0 : spanBitlistGet(raw.originBits, i));
        prevEpoch = el.epochNum;
        for (const t of el.transactions) {
          const tx = decodeTx(t);
          assert.notEqual(tx.type, TxType.Deposit);
          if (tx.type !== TxType.Legacy && tx.type !== TxType.Deposit) assert.equal(tx.chainId, 10n);
          assert.notEqual(recoverSender(tx), null, "sender must recover");
          assert.ok(equalBytes(encodeTx(tx), t), "derived tx is canonical");
          txs++;
        }
      }
      assert.equal(txs, 1766);
      assert.equal(span.batches[142].epochNum, 20_089_770);
      assert.equal(span.batches[0].epochNum, 20_089_746);
      assert.ok(equalBytes(span.parentCheck, raw.parentCheck));
      assert.ok(equalBytes(span.l1OriginCheck, raw.l1OriginCheck));
    });

    it("decodeBatch yields the same derived span batch", () => {
      const b = decodeBatch(data, OP_MAINNET);
      assert.equal(b.type, BatchType.Span);
      if (b.type !== BatchType.Span) return;
      assert.equal(b.batch.batches.length, 143);
      assert.equal(b.batch.batches[0].timestamp, 1718364637);
    });

    it("the builder regroups the derived blocks into the identical batch", () => {
      const raw = decodeRawSpanBatch(data.subarray(1));
      const span = deriveSpanBatch(raw, OP_MAINNET);
      const singulars: SingularBatch[] = span.batches.map((el, i) => ({
        parentHash: i === 0 ? concatBytes(span.parentCheck, new Uint8Array(12)) : hash(0),
        epochNum: el.epochNum,
        epochHash: concatBytes(span.l1OriginCheck, new Uint8Array(12)),
        timestamp: el.timestamp,
        transactions: el.transactions,
      }));
      const firstSeqNum = spanBitlistGet(raw.originBits, 0) === 1 ? 0 : 1;
      const rebuilt = spanBatchFromSingulars(singulars, { ...OP_MAINNET, firstSeqNum });
      assert.ok(equalBytes(encodeSpanBatch(rebuilt), data));
    });
  });

  describe("derivation rules", () => {
    it("first origin = l1_origin_num − popcount(origin_bits) + bit 0; later origins step at set bits", () => {
      const base = decodeRawSpanBatch(minimalRaw());
      const raw = (bits: number[], l1: bigint): RawSpanBatch => ({
        ...base,
        l1OriginNum: l1,
        originBits: packSpanBitlist(bits),
        blockTxCounts: bits.map(() => 0),
      });
      const epochs = (r: RawSpanBatch) => deriveSpanBatch(r, OP_MAINNET).batches.map((b) => b.epochNum);
      assert.deepEqual(epochs(raw([1, 1, 1], 10n)), [8, 9, 10]);
      assert.deepEqual(epochs(raw([0, 1, 1], 10n)), [8, 9, 10]);
      assert.deepEqual(epochs(raw([0, 0, 1, 0, 1], 10n)), [8, 8, 9, 9, 10]);
      assert.deepEqual(epochs(raw([1, 0, 0], 0n)), [0, 0, 0]);
      expectDecodeError(() => epochs(raw([0, 1, 1], 1n)), "ORIGIN_UNDERFLOW", "derive");
    });

    it("timestamps are genesis + rel_timestamp + i·blockTime", () => {
      const base = decodeRawSpanBatch(minimalRaw());
      const r: RawSpanBatch = {
        ...base,
        relTimestamp: 50n,
        originBits: packSpanBitlist([0, 0, 0]),
        blockTxCounts: [0, 0, 0],
      };
      const span = deriveSpanBatch(r, { genesisL2Time: 1000, blockTime: 12, l2ChainId: 1n });
      assert.deepEqual(
        span.batches.map((b) => b.timestamp),
        [1050, 1062, 1074],
      );
    });

    it("the builder sets origin bits from epoch steps and the first block's sequence number", () => {
      const blocks = [5, 5, 6, 7, 7].map((epochNum, i) => block({ epochNum, timestamp: 2000 + 2 * i }));
      const ctx = { genesisL2Time: 1000, blockTime: 2, l2ChainId: 10n };
      const atStart = spanBatchFromSingulars(blocks, { ...ctx, firstSeqNum: 0 });
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((i) => spanBitlistGet(atStart.originBits, i)),
        [1, 0, 1, 1, 0],
      );
      const midEpoch = spanBatchFromSingulars(blocks, { ...ctx, firstSeqNum: 3 });
      assert.equal(spanBitlistGet(midEpoch.originBits, 0), 0);
      for (const raw of [atStart, midEpoch]) {
        assert.equal(raw.relTimestamp, 1000n);
        assert.equal(raw.l1OriginNum, 7n);
        assert.deepEqual(
          deriveSpanBatch(raw, ctx).batches.map((b) => b.epochNum),
          [5, 5, 6, 7, 7],
        );
      }
    });

    it("rebuilds signed txs of every span type: legacy v = 35 + 2·chainId + y or 27 + y", () => {
      const chainId = 10n;
      const txs: SignedTx[] = [
        signTx(legacy(), DEV_KEY, chainId),
        signTx(legacy({ nonce: 8n }), DEV_KEY),
        signTx(legacy({ to: null, data: Uint8Array.of(0x60, 0, 0xf3) }), DEV_KEY, chainId),
        signTx(accessListTx({ chainId }), DEV_KEY),
        signTx(feeMarketTx({ chainId }), DEV_KEY),
        signTx(feeMarketTx({ chainId, to: null }), DEV_KEY),
        signTx(setCodeTx({ chainId }), DEV_KEY),
      ];
      const encoded = txs.map((t) => encodeTx(t));
      const raw = spanBatchFromSingulars([block({ transactions: encoded })], {
        ...OP_MAINNET,
        l2ChainId: chainId,
        firstSeqNum: 0,
      });
      assert.equal(spanBatchLegacyTxCount(raw), 3);
      assert.deepEqual(
        [0, 1, 2].map((i) => spanBitlistGet(raw.protectedBits, i)),
        [1, 0, 1],
      );
      const back = deriveSpanBatch(decodeRawSpanBatch(encodeRawSpanBatch(raw)), { ...OP_MAINNET, l2ChainId: chainId });
      const out = back.batches[0].transactions;
      assert.equal(out.length, encoded.length);
      for (let i = 0; i < out.length; i++) {
        assert.ok(equalBytes(out[i], encoded[i]), `tx ${i} round-trips`);
        const tx = decodeTx(out[i]);
        assert.ok(equalBytes(recoverSender(tx)!, DEV_ADDR));
        const orig = txs[i];
        if (tx.type === TxType.Legacy && orig.type === TxType.Legacy) {
          assert.equal(tx.v, orig.v);
          const base = i === 1 ? 27n : 35n + 2n * chainId;
          assert.ok(tx.v === base || tx.v === base + 1n, `v ${tx.v} from base ${base}`);
        }
      }
    });
  });

  describe("framing rejections", () => {
    it("accepts the minimal one-block batch", () => {
      const raw = decodeRawSpanBatch(minimalRaw());
      assert.deepEqual(raw.blockTxCounts, [0]);
      assert.ok(equalBytes(encodeRawSpanBatch(raw), minimalRaw()));
    });

    it("varints: canonical only, at most u64", () => {
      expectDecodeError(() => decodeRawSpanBatch(minimalRaw(Uint8Array.of(0x80, 0x00))), "VARINT_NON_CANONICAL");
      expectDecodeError(() => decodeRawSpanBatch(minimalRaw(Uint8Array.of(0x81, 0x80, 0x00))), "VARINT_NON_CANONICAL");
      const long = new Uint8Array(10).fill(0xff);
      long[9] = 0x00;
      expectDecodeError(() => decodeRawSpanBatch(minimalRaw(long)), "VARINT_NON_CANONICAL");
      const over = new Uint8Array(10).fill(0xff);
      over[9] = 0x02;
      expectDecodeError(() => decodeRawSpanBatch(minimalRaw(over)), "VARINT_OVERFLOW");
      expectDecodeError(
        () => decodeRawSpanBatch(minimalRaw(concatBytes(new Uint8Array(10).fill(0xff), Uint8Array.of(1)))),
        "VARINT_OVERFLOW",
      );
      const max = new Uint8Array(10).fill(0xff);
      max[9] = 0x01;
      const bytes = minimalRaw(Uint8Array.of(0x7f), max);
      const raw = decodeRawSpanBatch(bytes);
      assert.equal(raw.l1OriginNum, (1n << 64n) - 1n);
      assert.equal(raw.relTimestamp, 127n);
      assert.ok(equalBytes(encodeRawSpanBatch(raw), bytes));
      expectDecodeError(() => decodeRawSpanBatch(Uint8Array.of(0x80)), "TRUNCATED");
    });

    it("varint encoding matches the canonical LEB128 form", () => {
      assert.deepEqual([...uvarint(0)], [0]);
      assert.deepEqual([...uvarint(127)], [0x7f]);
      assert.deepEqual([...uvarint(128)], [0x80, 0x01]);
      assert.deepEqual([...uvarint(300)], [0xac, 0x02]);
      assert.deepEqual([...uvarint(2n ** 53n)], [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]);
      assert.equal(uvarintLength((1n << 64n) - 1n), 10);
    });

    it("block_count: zero, above the limit, and counts that cannot fit the input", () => {
      const pre = concatBytes(Uint8Array.of(0, 0), new Uint8Array(40));
      expectDecodeError(() => decodeRawSpanBatch(concatBytes(pre, Uint8Array.of(0))), "EMPTY_SPAN", "decode");
      expectDecodeError(
        () => decodeRawSpanBatch(concatBytes(pre, uvarint(MAX_SPAN_BATCH_ELEMENT_COUNT + 1))),
        "TOO_BIG",
      );
      expectDecodeError(() => decodeRawSpanBatch(concatBytes(pre, uvarint(2n ** 63n))), "TOO_BIG");
      expectDecodeError(
        () => decodeRawSpanBatch(concatBytes(pre, uvarint(MAX_SPAN_BATCH_ELEMENT_COUNT), new Uint8Array(16))),
        "TRUNCATED",
      );
    });

    it("tx counts: per block and in total at most 10,000,000", () => {
      const pre = concatBytes(Uint8Array.of(0, 0), new Uint8Array(40));
      expectDecodeError(
        () => decodeRawSpanBatch(concatBytes(pre, Uint8Array.of(1, 0), uvarint(MAX_SPAN_BATCH_ELEMENT_COUNT + 1))),
        "TOO_BIG",
      );
      const half = uvarint(MAX_SPAN_BATCH_ELEMENT_COUNT / 2 + 1);
      expectDecodeError(() => decodeRawSpanBatch(concatBytes(pre, Uint8Array.of(2, 0), half, half)), "TOO_BIG");
      expectDecodeError(
        () => decodeRawSpanBatch(concatBytes(pre, Uint8Array.of(1, 0), uvarint(MAX_SPAN_BATCH_ELEMENT_COUNT))),
        "TRUNCATED",
      );
    });

    it("bitlists: padding bits must be zero", () => {
      const pre = concatBytes(Uint8Array.of(0, 0), new Uint8Array(40));
      // 3 blocks: origin bits 0b0000_0111 is fine, 0b0000_1000 sets a bit beyond the third.
      assert.doesNotThrow(() => decodeRawSpanBatch(concatBytes(pre, Uint8Array.of(3, 0x07, 0, 0, 0))));
      expectDecodeError(() => decodeRawSpanBatch(concatBytes(pre, Uint8Array.of(3, 0x08, 0, 0, 0))), "BITLIST_PADDING");
    });

    it("tx data must be [type ‖] an RLP list; its content is checked at derivation", () => {
      const pre = concatBytes(Uint8Array.of(0, 0), new Uint8Array(40), Uint8Array.of(1, 0, 1));
      // creation bit 0, y bit 0, sig, to, then the data item.
      const cols = (data: Uint8Array, nonceGas = Uint8Array.of(0, 0), prot = new Uint8Array(0)) =>
        concatBytes(pre, Uint8Array.of(0, 0), new Uint8Array(64).fill(1), TO, data, nonceGas, prot);
      expectDecodeError(() => decodeRawSpanBatch(cols(Uint8Array.of(0x83, 1, 2, 3))), "TX_DATA", "decode");
      expectDecodeError(() => decodeRawSpanBatch(cols(Uint8Array.of(0x02, 0x83, 1, 2, 3))), "TX_DATA", "decode");
      expectDecodeError(() => decodeRawSpanBatch(cols(Uint8Array.of(0xc5, 1))), "TRUNCATED", "decode");
      // A type-3 item frames fine but has no span form.
      const blob = decodeRawSpanBatch(cols(Uint8Array.of(0x03, 0xc0)));
      expectDecodeError(() => deriveSpanBatch(blob, OP_MAINNET), "TX_TYPE", "derive");
      // Legacy with a missing field.
      const short = decodeRawSpanBatch(cols(Uint8Array.of(0xc2, 0x01, 0x02), Uint8Array.of(0, 0), Uint8Array.of(1)));
      expectDecodeError(() => deriveSpanBatch(short, OP_MAINNET), "TX_DATA", "derive");
      // Fee-market with an extra field.
      const long = decodeRawSpanBatch(cols(Uint8Array.of(0x02, 0xc6, 1, 2, 3, 0x80, 0xc0, 9)));
      expectDecodeError(() => deriveSpanBatch(long, OP_MAINNET), "TX_DATA", "derive");
    });

    it("a set-code tx flagged as contract creation fails derivation", () => {
      const raw = spanBatchFromSingulars(
        [block({ transactions: [encodeTx(signTx(setCodeTx({ chainId: 10n }), DEV_KEY))] })],
        {
          ...OP_MAINNET,
          firstSeqNum: 0,
        },
      );
      const forged: RawSpanBatch = { ...raw, contractCreationBits: Uint8Array.of(1), txTos: new Uint8Array(0) };
      const decoded = decodeRawSpanBatch(encodeRawSpanBatch(forged));
      expectDecodeError(() => deriveSpanBatch(decoded, OP_MAINNET), "SET_CODE_CREATION", "derive");
    });
  });

  describe("batcher side", () => {
    it("rejects txs span batches cannot carry", () => {
      const ctx = { ...OP_MAINNET, firstSeqNum: 0 };
      const one = (t: Tx | Uint8Array) => [block({ transactions: [t instanceof Uint8Array ? t : encodeTx(t)] })];
      expectEncodeError(() => spanBatchFromSingulars(one(signTx(blobTx({ chainId: 10n }), DEV_KEY)), ctx), "TX_TYPE");
      expectEncodeError(() => spanBatchFromSingulars(one(depositTx()), ctx), "TX_TYPE");
      expectEncodeError(() => spanBatchFromSingulars(one(signTx(legacy(), DEV_KEY, 1n)), ctx), "CHAIN_ID");
      expectEncodeError(
        () => spanBatchFromSingulars(one(signTx(feeMarketTx({ chainId: 1n }), DEV_KEY)), ctx),
        "CHAIN_ID",
      );
      expectEncodeError(() => spanBatchFromSingulars(one(legacy({ v: 30n, r: 1n, s: 1n })), ctx), "SIGNATURE");
      expectEncodeError(
        () => spanBatchFromSingulars(one(feeMarketTx({ chainId: 10n, yParity: 2, r: 1n, s: 1n })), ctx),
        "SIGNATURE",
      );
      expectEncodeError(() => spanBatchFromSingulars(one(Uint8Array.of(0x02, 0xc0)), ctx), "TX_DECODE");
      expectEncodeError(() => spanBatchFromSingulars([], ctx), "EMPTY");
    });

    it("rejects blocks out of order and leaves the builder unchanged on failure", () => {
      const b = new SpanBatchBuilder(OP_MAINNET.genesisL2Time, 10n);
      const t = OP_MAINNET.genesisL2Time + 100;
      b.append(block({ epochNum: 10, timestamp: t }), 0);
      expectEncodeError(() => b.append(block({ epochNum: 10, timestamp: t - 2 }), 1), "ORDER");
      expectEncodeError(() => b.append(block({ epochNum: 12, timestamp: t + 2 }), 0), "ORDER");
      expectEncodeError(() => b.append(block({ epochNum: 9, timestamp: t + 2 }), 0), "ORDER");
      expectEncodeError(
        () => b.append(block({ epochNum: 11, timestamp: t + 2, transactions: [Uint8Array.of(0xff)] }), 0),
        "TX_DECODE",
      );
      expectEncodeError(() => b.append(block({ epochHash: new Uint8Array(20), timestamp: t + 2 }), 1), "RANGE");
      expectEncodeError(
        () => new SpanBatchBuilder(OP_MAINNET.genesisL2Time, 10n).append(block({ timestamp: 5 }), 0),
        "RANGE",
      );
      assert.equal(b.blockCount, 1);
      assert.equal(b.txCount, 0);
      b.append(block({ epochNum: 11, epochHash: hash(0xcc), timestamp: t + 2 }), 0);
      const raw = b.toRaw();
      assert.equal(raw.l1OriginNum, 11n);
      assert.ok(equalBytes(raw.l1OriginCheck, hash(0xcc).subarray(0, 20)));
      assert.ok(equalBytes(raw.parentCheck, hash(0xaa).subarray(0, 20)));
      expectEncodeError(() => new SpanBatchBuilder(0, 1n).toRaw(), "EMPTY");
    });

    it("encodeRawSpanBatch rejects columns that disagree", () => {
      const raw = decodeRawSpanBatch(minimalRaw());
      expectEncodeError(() => encodeRawSpanBatch({ ...raw, blockTxCounts: [] }), "INCONSISTENT");
      expectEncodeError(() => encodeRawSpanBatch({ ...raw, blockTxCounts: [1] }), "INCONSISTENT");
      expectEncodeError(() => encodeRawSpanBatch({ ...raw, originBits: Uint8Array.of(2) }), "INCONSISTENT");
      expectEncodeError(() => encodeRawSpanBatch({ ...raw, parentCheck: new Uint8Array(32) }), "INCONSISTENT");
      expectEncodeError(() => encodeRawSpanBatch({ ...raw, relTimestamp: 1n << 64n }), "INCONSISTENT");
      expectDecodeError(() => deriveSpanBatch({ ...raw, blockTxCounts: [] }, OP_MAINNET), "EMPTY_SPAN", "derive");
      expectDecodeError(() => deriveSpanBatch({ ...raw, blockTxCounts: [1] }, OP_MAINNET), "INCONSISTENT", "derive");
    });

    it("encodeRawSpanBatch takes u64 nonces and gas limits up to 2^64 - 1, not beyond", () => {
      const tx = encodeTx(signTx(legacy(), DEV_KEY));
      const raw = spanBatchFromSingulars([block({ transactions: [tx] })], { ...OP_MAINNET, firstSeqNum: 0 });
      const max = (1n << 64n) - 1n;
      for (const over of [{ txNonces: [max] }, { txGases: [max] }]) {
        assert.deepEqual(decodeRawSpanBatch(encodeRawSpanBatch({ ...raw, ...over })), { ...raw, ...over });
      }
      expectEncodeError(() => encodeRawSpanBatch({ ...raw, txNonces: [max + 1n] }), "INCONSISTENT");
      expectEncodeError(() => encodeRawSpanBatch({ ...raw, txGases: [max + 1n] }), "INCONSISTENT");
      expectEncodeError(() => encodeRawSpanBatch({ ...raw, txGases: [-1n] }), "INCONSISTENT");
    });
  });

  describe("properties", () => {
    const CHAIN_ID = 901n;
    const CTX = { genesisL2Time: 1_700_000_000, blockTime: 2, l2ChainId: CHAIN_ID };
    const u256 = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
    const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
    const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
    const accessList = fc.array(fc.record({ address: bytes(20), storageKeys: fc.array(bytes(32), { maxLength: 2 }) }), {
      maxLength: 2,
    });
    const common = {
      nonce: u64,
      gasLimit: u64,
      value: u256,
      data: fc.uint8Array({ maxLength: 40 }),
      r: u256,
      s: u256,
    };
    const y = fc.integer({ min: 0, max: 1 });
    const txArb: fc.Arbitrary<Tx> = fc.oneof(
      fc
        .record({ ...common, to: fc.option(bytes(20)), gasPrice: u256, y, protect: fc.boolean() })
        .map(({ y: yp, protect, ...f }) => ({
          type: TxType.Legacy as const,
          ...f,
          v: protect ? 35n + 2n * CHAIN_ID + BigInt(yp) : 27n + BigInt(yp),
        })),
      fc.record({ ...common, to: fc.option(bytes(20)), gasPrice: u256, accessList, yParity: y }).map((f) => ({
        type: TxType.AccessList as const,
        chainId: CHAIN_ID,
        ...f,
      })),
      fc
        .record({
          ...common,
          to: fc.option(bytes(20)),
          maxPriorityFeePerGas: u256,
          maxFeePerGas: u256,
          accessList,
          yParity: y,
        })
        .map((f) => ({ type: TxType.FeeMarket as const, chainId: CHAIN_ID, ...f })),
      fc
        .record({
          ...common,
          to: bytes(20),
          maxPriorityFeePerGas: u256,
          maxFeePerGas: u256,
          accessList,
          authorizationList: fc.array(
            fc.record({
              chainId: u256,
              address: bytes(20),
              nonce: u64,
              yParity: fc.integer({ min: 0, max: 255 }),
              r: u256,
              s: u256,
            }),
            { maxLength: 2 },
          ),
          yParity: y,
        })
        .map((f) => ({ type: TxType.SetCode as const, chainId: CHAIN_ID, ...f })),
    );
    const spanArb = fc.record({
      rel: fc.integer({ min: 0, max: 2 ** 40 }),
      firstEpoch: fc.integer({ min: 0, max: 2 ** 40 }),
      firstSeqNum: fc.integer({ min: 0, max: 5 }),
      blocks: fc.array(
        fc.record({ step: fc.integer({ min: 0, max: 1 }), txs: fc.array(txArb, { maxLength: 4 }), h: bytes(32) }),
        { minLength: 1, maxLength: 6 },
      ),
    });
    type SpanCase = typeof spanArb extends fc.Arbitrary<infer T> ? T : never;
    const toSingulars = (s: SpanCase): SingularBatch[] => {
      let epoch = s.firstEpoch;
      return s.blocks.map((b, i) => {
        if (i > 0) epoch += b.step;
        return {
          parentHash: b.h,
          epochNum: epoch,
          epochHash: hash(epoch % 256),
          timestamp: CTX.genesisL2Time + s.rel + i * CTX.blockTime,
          transactions: b.txs.map((t) => encodeTx(t)),
        };
      });
    };

    it("singular batches → span batch → bytes → derived blocks: same origins, timestamps and txs", () => {
      fc.assert(
        fc.property(spanArb, (s) => {
          const singulars = toSingulars(s);
          const raw = spanBatchFromSingulars(singulars, { ...CTX, firstSeqNum: s.firstSeqNum });
          const encoded = encodeSpanBatch(raw);
          const decoded = readRawSpanBatch(encoded, 1);
          assert.equal(decoded.end, encoded.length);
          assert.ok(equalBytes(encodeSpanBatch(decoded.raw), encoded));
          const b = decodeBatch(encoded, CTX);
          assert.equal(b.type, BatchType.Span);
          if (b.type !== BatchType.Span) return;
          const span = b.batch;
          assert.ok(equalBytes(span.parentCheck, singulars[0].parentHash.subarray(0, 20)));
          assert.ok(equalBytes(span.l1OriginCheck, singulars[singulars.length - 1].epochHash.subarray(0, 20)));
          assert.equal(span.batches.length, singulars.length);
          for (let i = 0; i < singulars.length; i++) {
            const el = span.batches[i];
            assert.equal(el.epochNum, singulars[i].epochNum);
            assert.equal(el.timestamp, singulars[i].timestamp);
            assert.equal(el.transactions.length, singulars[i].transactions.length);
            for (let j = 0; j < el.transactions.length; j++) {
              assert.ok(equalBytes(el.transactions[j], singulars[i].transactions[j]));
            }
          }
        }),
        { numRuns: 150 },
      );
    });

    function onlyDecodeErrors(fn: () => unknown): void {
      try {
        fn();
      } catch (e) {
        if (!(e instanceof BatchDecodeError)) throw e;
      }
    }

    it("random bytes raise nothing but BatchDecodeError", () => {
      const pre = concatBytes(Uint8Array.of(0, 0), new Uint8Array(40));
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 400 }), fc.boolean(), (b, withPrefix) => {
          const input = withPrefix ? concatBytes(pre, b) : b;
          onlyDecodeErrors(() => deriveSpanBatch(decodeRawSpanBatch(input), CTX));
          onlyDecodeErrors(() => decodeBatch(concatBytes(Uint8Array.of(1), input), CTX));
        }),
        { numRuns: 2000 },
      );
    });

    it("mutated valid batches raise nothing but BatchDecodeError, and what decodes re-encodes exactly", () => {
      fc.assert(
        fc.property(
          spanArb,
          fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 4 }),
          fc.nat(),
          (s, edits, cut) => {
            const enc = encodeRawSpanBatch(spanBatchFromSingulars(toSingulars(s), { ...CTX, firstSeqNum: 0 }));
            const m = enc.slice();
            for (const e of edits) m[e.at % m.length] = e.byte;
            for (const input of [m, m.subarray(0, cut % (m.length + 1))]) {
              try {
                const { raw, end } = readRawSpanBatch(input);
                assert.ok(equalBytes(encodeRawSpanBatch(raw), input.subarray(0, end)));
                deriveSpanBatch(raw, CTX);
              } catch (e) {
                if (!(e instanceof BatchDecodeError)) throw e;
              }
            }
          },
        ),
        { numRuns: 400 },
      );
    });
  });
});
