/**
 * Span batch codec (batch type 1, Delta+; SPEC: specs/protocol/delta/span-batches.md, op-stack.md
 * §2.6; op-node span_batch.go, span_batch_txs.go, span_batch_tx.go).
 *
 *   span_batch = prefix ‖ payload                  (the batch type byte 0x01 comes before it)
 *   prefix     = rel_timestamp ‖ l1_origin_num ‖ parent_check ‖ l1_origin_check
 *   payload    = block_count ‖ origin_bits ‖ block_tx_counts ‖ txs
 *   txs        = contract_creation_bits ‖ y_parity_bits ‖ tx_sigs ‖ tx_tos ‖ tx_datas ‖ tx_nonces
 *                ‖ tx_gases ‖ protected_bits
 *
 * Three layers:
 * - `RawSpanBatch`: the wire columns as read, so `encodeRawSpanBatch(readRawSpanBatch(b).raw)` gives
 *   `b` back byte for byte. Decoding checks framing only (varints, bitlists, lengths, the RLP list
 *   header of each tx data), like op-node's `RawSpanBatch.decode`.
 * - `deriveSpanBatch`: rebuilds the per-block elements (timestamps, L1 origins) and the signed
 *   EIP-2718 transactions, like op-node's `RawSpanBatch.derive`. Tx content errors surface here.
 * - `SpanBatchBuilder` / `spanBatchFromSingulars` / `encodeSpanBatch`: the batcher side, grouping
 *   consecutive singular batches into one raw span batch (op-node `SpanBatch.AppendSingularBatch`).
 *
 * Varints are protobuf unsigned varints (LEB128). They must be canonical (no trailing zero groups)
 * and fit u64; kona rejects non-minimal varints too, while Go's `binary.ReadUvarint` (op-node)
 * accepts them. Bitlists are big-endian integers left-padded to whole bytes: bit i is the i-th least
 * significant bit, and padding bits must be zero. Raw u64 fields that may exceed 2^53 on the wire
 * (rel_timestamp, l1_origin_num, nonces, gas limits) stay bigint; `deriveSpanBatch` converts the
 * first two to `number` and rejects values above 2^53 - 1.
 *
 * Every count is checked against MAX_SPAN_BATCH_ELEMENT_COUNT and against the remaining input before
 * anything is allocated. Decoded byte fields are views into the input.
 */
import { bigintToBytes32 } from "../../primitives/u256.js";
import { decodeHeader } from "../../rlp/decode.js";
import { stringLength, writeString } from "../../rlp/encode.js";
import { RlpError } from "../../rlp/errors.js";
import { accessListLength, decodeAccessList, writeAccessList } from "../../tx/accessList.js";
import { authorizationListLength, decodeAuthorizationList, writeAuthorizationList } from "../../tx/authorization.js";
import { decodeTx, encodeTx } from "../../tx/envelope.js";
import { TxError } from "../../tx/errors.js";
import { legacyChainId, legacyV } from "../../tx/legacy.js";
import { bytesToBigintBE, RlpCursor } from "../../tx/rlpCursor.js";
import { listLength, uintLength, writeListHeader, writeUint } from "../../tx/rlpWriter.js";
import { type AccessList, type Authorization, type SignedTx, type Tx, TxType } from "../../tx/tx.js";
import { BatchType, type SingularBatch, type SpanBatch, type SpanBatchElement } from "./batchTypes.js";

/** Cap on blocks, on txs per block, on txs in total, and on one tx data item (op-node MaxSpanBatchElementCount). */
export const MAX_SPAN_BATCH_ELEMENT_COUNT = 10_000_000;

const U64_MAX = (1n << 64n) - 1n;
const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);
const SIG_SIZE = 64;
const ADDRESS_SIZE = 20;
const CHECK_SIZE = 20;

// ---- errors ----

export type BatchDecodeReason =
  /** Zero-length batch data. */
  | "EMPTY"
  /** A batch type byte other than 0 (singular) or 1 (span). */
  | "UNKNOWN_TYPE"
  /** The singular batch RLP is malformed (framing, field count, field widths). */
  | "SINGULAR_RLP"
  /** Input ended inside a field. */
  | "TRUNCATED"
  /** A varint with a trailing zero group. */
  | "VARINT_NON_CANONICAL"
  /** A varint wider than u64. */
  | "VARINT_OVERFLOW"
  /** A value above 2^53 - 1 where a `number` is needed (timestamps, L1 numbers). */
  | "NUMBER_TOO_LARGE"
  /** block_count = 0. */
  | "EMPTY_SPAN"
  /** A count (or one tx data item) above MAX_SPAN_BATCH_ELEMENT_COUNT (op-node ErrTooBigSpanBatchSize). */
  | "TOO_BIG"
  /** A bitlist with a set bit beyond its length. */
  | "BITLIST_PADDING"
  /** A tx data item that is not `[type ‖] rlp-list`, or whose fields do not decode. */
  | "TX_DATA"
  /** A typed tx data item of a type span batches do not carry (only 1, 2 and 4 are defined). */
  | "TX_TYPE"
  /** A set-code (type 4) tx flagged as contract creation: it needs a `to`. */
  | "SET_CODE_CREATION"
  /** l1_origin_num is smaller than the number of origin changes it implies. */
  | "ORIGIN_UNDERFLOW"
  /** A hand-built RawSpanBatch whose columns disagree in length. */
  | "INCONSISTENT";

/**
 * Why batch data could not be decoded. `phase` tells where op-node would have failed: "decode"
 * (BatchData.UnmarshalBinary: op-node drops the rest of the channel) or "derive"
 * (DeriveSpanBatch: the batch is dropped after the channel reader moved past it).
 */
export class BatchDecodeError extends Error {
  override readonly name = "BatchDecodeError";
  constructor(
    readonly reason: BatchDecodeReason,
    readonly phase: "decode" | "derive",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type BatchEncodeReason =
  /** No blocks to encode. */
  | "EMPTY"
  /** RawSpanBatch columns disagree in length, or a field is out of range. */
  | "INCONSISTENT"
  /** A batch transaction that does not decode as an EIP-2718 envelope. */
  | "TX_DECODE"
  /** A tx type span batches cannot carry (blob, deposit). */
  | "TX_TYPE"
  /** A protected or typed tx signed for another chain id. */
  | "CHAIN_ID"
  /** A legacy v that is neither 27/28 nor ≥ 35, or a yParity other than 0/1. */
  | "SIGNATURE"
  /** Blocks out of order: decreasing timestamps, or an L1 origin that does not step by 0 or 1. */
  | "ORDER"
  /** A hash of the wrong size, or a number that is not a non-negative safe integer. */
  | "RANGE";

/** Why singular batches could not be turned into (or encoded as) a batch. */
export class BatchEncodeError extends Error {
  override readonly name = "BatchEncodeError";
  constructor(
    readonly reason: BatchEncodeReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

// ---- shapes ----

/** Chain constants a span batch is derived with (rollup config `genesis.l2_time`, `block_time`, `l2_chain_id`). */
export interface SpanBatchContext {
  readonly genesisL2Time: number;
  readonly blockTime: number;
  readonly l2ChainId: bigint;
}

/**
 * A span batch in wire form (op-node `RawSpanBatch`). Bitlists are kept as their wire bytes
 * (`spanBitlistGet` reads them); `txSigs` is r ‖ s, 32 bytes each, per tx; `txTos` holds 20 bytes per
 * tx whose contract-creation bit is clear; `txDatas` per tx is legacy `rlp([value, gasPrice, data])`
 * or `type ‖ rlp([...])`; `protectedBits` has one bit per legacy tx.
 */
export interface RawSpanBatch {
  /** u64: first block timestamp − genesis L2 time. */
  readonly relTimestamp: bigint;
  /** u64: L1 origin number of the last block. */
  readonly l1OriginNum: bigint;
  /** 20 bytes: prefix of the first block's parent hash. */
  readonly parentCheck: Uint8Array;
  /** 20 bytes: prefix of the last block's L1 origin hash. */
  readonly l1OriginCheck: Uint8Array;
  /** Bitlist of block_count bits: bit i set = block i starts a new L1 origin. */
  readonly originBits: Uint8Array;
  /** Tx count per block; its length is block_count. */
  readonly blockTxCounts: readonly number[];
  readonly contractCreationBits: Uint8Array;
  readonly yParityBits: Uint8Array;
  readonly txSigs: Uint8Array;
  readonly txTos: Uint8Array;
  readonly txDatas: readonly Uint8Array[];
  /** u64 each. */
  readonly txNonces: readonly bigint[];
  /** u64 each. */
  readonly txGases: readonly bigint[];
  readonly protectedBits: Uint8Array;
}

// ---- bitlists ----

/** Bytes of a bitlist of `n` bits. */
export function spanBitlistLength(n: number): number {
  return Math.ceil(n / 8);
}

/** Bit `i` (0 = least significant) of a big-endian, left-padded bitlist; 0 beyond its bytes. */
export function spanBitlistGet(bits: Uint8Array, i: number): number {
  const byte = bits.length - 1 - (i >> 3);
  if (byte < 0) return 0;
  return (bits[byte] >> (i & 7)) & 1;
}

/** Packs 0/1 values into a bitlist of `bits.length` bits. */
export function packSpanBitlist(bits: readonly number[]): Uint8Array {
  const out = new Uint8Array(spanBitlistLength(bits.length));
  const last = out.length - 1;
  for (let i = 0; i < bits.length; i++) {
    if (bits[i] !== 0) out[last - (i >> 3)] |= 1 << (i & 7);
  }
  return out;
}

const POPCOUNT = new Uint8Array(256);
for (let i = 1; i < 256; i++) POPCOUNT[i] = (i & 1) + POPCOUNT[i >> 1];

function popcount(bits: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) n += POPCOUNT[bits[i]];
  return n;
}

/** True when no bit at or above `n` is set and the byte length is exactly ceil(n / 8). */
function bitlistFits(bits: Uint8Array, n: number): boolean {
  if (bits.length !== spanBitlistLength(n)) return false;
  const extra = n & 7;
  return extra === 0 || bits.length === 0 || bits[0] >> extra === 0;
}

// ---- varints ----

/** Encoded size of an unsigned varint. */
export function uvarintLength(v: number | bigint): number {
  if (typeof v === "bigint") {
    if (v <= MAX_SAFE_BIG) return uvarintLength(Number(v));
    let len = 1;
    for (let t = v >> 7n; t > 0n; t >>= 7n) len++;
    return len;
  }
  let len = 1;
  for (let t = Math.floor(v / 128); t > 0; t = Math.floor(t / 128)) len++;
  return len;
}

/** Writes an unsigned varint at `pos`; returns the position after it. */
export function writeUvarint(out: Uint8Array, pos: number, v: number | bigint): number {
  if (typeof v === "bigint") {
    if (v <= MAX_SAFE_BIG) return writeUvarint(out, pos, Number(v));
    while (v >= 0x80n) {
      out[pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    out[pos++] = Number(v);
    return pos;
  }
  while (v >= 0x80) {
    out[pos++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  out[pos++] = v;
  return pos;
}

function decodeError(reason: BatchDecodeReason, message: string, cause?: unknown): BatchDecodeError {
  return new BatchDecodeError(reason, "decode", message, cause === undefined ? undefined : { cause });
}

function deriveError(reason: BatchDecodeReason, message: string, cause?: unknown): BatchDecodeError {
  return new BatchDecodeError(reason, "derive", message, cause === undefined ? undefined : { cause });
}

/** Sequential reader over the span batch bytes; every read checks the remaining input first. */
class SpanReader {
  pos: number;

  constructor(
    readonly input: Uint8Array,
    start: number,
  ) {
    this.pos = start;
  }

  remaining(): number {
    return this.input.length - this.pos;
  }

  /** View of the next `n` bytes. */
  take(n: number, what: string): Uint8Array {
    if (n > this.remaining()) throw decodeError("TRUNCATED", `${what}: needs ${n} bytes, ${this.remaining()} left`);
    const v = this.input.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  /** A canonical u64 varint; `number` when it is a safe integer, else bigint. */
  uvarint(what: string): number | bigint {
    const input = this.input;
    const start = this.pos;
    let n = 0;
    let mul = 1;
    // Up to 7 groups (49 bits) accumulate exactly in a double.
    for (let i = 0; i < 7; i++) {
      const p = start + i;
      if (p >= input.length) throw decodeError("TRUNCATED", `${what}: input ended inside a varint`);
      const b = input[p];
      if (b < 0x80) {
        if (b === 0 && i > 0) throw decodeError("VARINT_NON_CANONICAL", `${what}: varint has a trailing zero group`);
        this.pos = p + 1;
        return n + b * mul;
      }
      n += (b & 0x7f) * mul;
      mul *= 128;
    }
    let v = 0n;
    for (let i = 0; i < 10; i++) {
      const p = start + i;
      if (p >= input.length) throw decodeError("TRUNCATED", `${what}: input ended inside a varint`);
      const b = input[p];
      v |= BigInt(b & 0x7f) << BigInt(7 * i);
      if (b < 0x80) {
        if (i === 9 && b > 1) throw decodeError("VARINT_OVERFLOW", `${what}: varint exceeds u64`);
        if (b === 0) throw decodeError("VARINT_NON_CANONICAL", `${what}: varint has a trailing zero group`);
        this.pos = p + 1;
        return v <= MAX_SAFE_BIG ? Number(v) : v;
      }
    }
    throw decodeError("VARINT_OVERFLOW", `${what}: varint longer than 10 bytes`);
  }

  uvarintBig(what: string): bigint {
    const v = this.uvarint(what);
    return typeof v === "bigint" ? v : BigInt(v);
  }

  /** A count, at most MAX_SPAN_BATCH_ELEMENT_COUNT. */
  count(what: string): number {
    const v = this.uvarint(what);
    if (typeof v === "bigint" || v > MAX_SPAN_BATCH_ELEMENT_COUNT) {
      throw decodeError("TOO_BIG", `${what}: ${v} exceeds ${MAX_SPAN_BATCH_ELEMENT_COUNT}`);
    }
    return v;
  }

  /** A bitlist of `n` bits (n ≤ MAX_SPAN_BATCH_ELEMENT_COUNT); padding bits must be zero. */
  bits(n: number, what: string): Uint8Array {
    const b = this.take(spanBitlistLength(n), what);
    const extra = n & 7;
    if (extra !== 0 && b[0] >> extra !== 0) {
      throw decodeError("BITLIST_PADDING", `${what}: bitlist has bits set beyond its ${n} bits`);
    }
    return b;
  }

  /** Throws unless at least `n` more bytes remain (before allocating n items of ≥ 1 byte each). */
  need(n: number, what: string): void {
    if (n > this.remaining()) {
      throw decodeError("TRUNCATED", `${what}: ${n} items cannot fit in ${this.remaining()} bytes`);
    }
  }

  /** One tx data item: `[type ‖] rlp-list`, framing checked, content left to derivation. */
  txData(what: string): Uint8Array {
    const input = this.input;
    const start = this.pos;
    if (start >= input.length) throw decodeError("TRUNCATED", `${what}: input ended before a tx data item`);
    const listPos = input[start] <= 0x7f ? start + 1 : start;
    let end: number;
    try {
      const h = decodeHeader(input, listPos);
      if (!h.list) throw decodeError("TX_DATA", `${what}: tx data must be an RLP list`);
      end = h.start + h.length;
    } catch (e) {
      if (e instanceof RlpError) {
        const reason = e.code === "TRUNCATED" ? "TRUNCATED" : "TX_DATA";
        throw decodeError(reason, `${what}: ${e.code}: ${e.message}`, e);
      }
      throw e;
    }
    if (end - listPos > MAX_SPAN_BATCH_ELEMENT_COUNT) {
      throw decodeError("TOO_BIG", `${what}: tx data of ${end - listPos} bytes exceeds the limit`);
    }
    this.pos = end;
    return input.subarray(start, end);
  }
}

/** True when a tx data item is legacy (its first byte is an RLP list header, not a type byte). */
function isLegacyTxData(data: Uint8Array): boolean {
  return data[0] > 0x7f;
}

// ---- raw decode / encode ----

/**
 * Reads a raw span batch (prefix ‖ payload, no type byte) from `bytes` at `start`. Returns the batch
 * and the position after it; bytes after the batch are not read (op-node ignores them too).
 * Throws BatchDecodeError (phase "decode") only.
 */
export function readRawSpanBatch(bytes: Uint8Array, start = 0): { raw: RawSpanBatch; end: number } {
  const r = new SpanReader(bytes, start);
  const relTimestamp = r.uvarintBig("rel_timestamp");
  const l1OriginNum = r.uvarintBig("l1_origin_num");
  const parentCheck = r.take(CHECK_SIZE, "parent_check");
  const l1OriginCheck = r.take(CHECK_SIZE, "l1_origin_check");

  const blockCount = r.count("block_count");
  if (blockCount === 0) throw decodeError("EMPTY_SPAN", "span batch has no blocks");
  const originBits = r.bits(blockCount, "origin_bits");
  r.need(blockCount, "block_tx_counts");
  const blockTxCounts: number[] = [];
  let total = 0;
  for (let i = 0; i < blockCount; i++) {
    const c = r.count("block_tx_count");
    blockTxCounts.push(c);
    total += c;
  }
  if (total > MAX_SPAN_BATCH_ELEMENT_COUNT) {
    throw decodeError("TOO_BIG", `span batch holds ${total} txs, above ${MAX_SPAN_BATCH_ELEMENT_COUNT}`);
  }

  const contractCreationBits = r.bits(total, "contract_creation_bits");
  const yParityBits = r.bits(total, "y_parity_bits");
  const txSigs = r.take(SIG_SIZE * total, "tx_sigs");
  const txTos = r.take(ADDRESS_SIZE * (total - popcount(contractCreationBits)), "tx_tos");
  r.need(total, "tx_datas");
  const txDatas: Uint8Array[] = [];
  let legacyCount = 0;
  for (let i = 0; i < total; i++) {
    const d = r.txData("tx_data");
    if (isLegacyTxData(d)) legacyCount++;
    txDatas.push(d);
  }
  r.need(total, "tx_nonces");
  const txNonces: bigint[] = [];
  for (let i = 0; i < total; i++) txNonces.push(r.uvarintBig("tx_nonce"));
  r.need(total, "tx_gases");
  const txGases: bigint[] = [];
  for (let i = 0; i < total; i++) txGases.push(r.uvarintBig("tx_gas"));
  const protectedBits = r.bits(legacyCount, "protected_bits");

  const raw: RawSpanBatch = {
    relTimestamp,
    l1OriginNum,
    parentCheck,
    l1OriginCheck,
    originBits,
    blockTxCounts,
    contractCreationBits,
    yParityBits,
    txSigs,
    txTos,
    txDatas,
    txNonces,
    txGases,
    protectedBits,
  };
  return { raw, end: r.pos };
}

/** Decodes a raw span batch (no type byte); trailing bytes are ignored, as in op-node. */
export function decodeRawSpanBatch(bytes: Uint8Array): RawSpanBatch {
  return readRawSpanBatch(bytes).raw;
}

/** Number of blocks in the span. */
export function spanBatchBlockCount(raw: RawSpanBatch): number {
  return raw.blockTxCounts.length;
}

/** Number of txs over all blocks. */
export function spanBatchTxCount(raw: RawSpanBatch): number {
  let n = 0;
  for (const c of raw.blockTxCounts) n += c;
  return n;
}

/** Number of legacy txs (the length of `protectedBits`). */
export function spanBatchLegacyTxCount(raw: RawSpanBatch): number {
  let n = 0;
  for (const d of raw.txDatas) if (d.length > 0 && isLegacyTxData(d)) n++;
  return n;
}

/** Why the columns of a raw span batch disagree, or null when they are consistent. */
function rawShapeProblem(raw: RawSpanBatch): string | null {
  const blocks = raw.blockTxCounts.length;
  if (blocks === 0) return "no blocks";
  if (blocks > MAX_SPAN_BATCH_ELEMENT_COUNT) return "too many blocks";
  if (raw.relTimestamp < 0n || raw.relTimestamp > U64_MAX) return "rel_timestamp outside u64";
  if (raw.l1OriginNum < 0n || raw.l1OriginNum > U64_MAX) return "l1_origin_num outside u64";
  if (raw.parentCheck.length !== CHECK_SIZE) return "parent_check is not 20 bytes";
  if (raw.l1OriginCheck.length !== CHECK_SIZE) return "l1_origin_check is not 20 bytes";
  if (!bitlistFits(raw.originBits, blocks)) return "origin_bits do not match block_count";
  let total = 0;
  for (const c of raw.blockTxCounts) {
    if (!Number.isSafeInteger(c) || c < 0 || c > MAX_SPAN_BATCH_ELEMENT_COUNT) return "block tx count out of range";
    total += c;
  }
  if (total > MAX_SPAN_BATCH_ELEMENT_COUNT) return "too many txs";
  if (!bitlistFits(raw.contractCreationBits, total)) return "contract_creation_bits do not match the tx count";
  if (!bitlistFits(raw.yParityBits, total)) return "y_parity_bits do not match the tx count";
  if (raw.txSigs.length !== SIG_SIZE * total) return "tx_sigs do not match the tx count";
  if (raw.txTos.length !== ADDRESS_SIZE * (total - popcount(raw.contractCreationBits))) {
    return "tx_tos do not match the non-creation tx count";
  }
  if (raw.txDatas.length !== total) return "tx_datas do not match the tx count";
  if (raw.txNonces.length !== total) return "tx_nonces do not match the tx count";
  if (raw.txGases.length !== total) return "tx_gases do not match the tx count";
  let legacy = 0;
  for (const d of raw.txDatas) {
    if (d.length === 0) return "empty tx data";
    if (isLegacyTxData(d)) legacy++;
  }
  for (let i = 0; i < total; i++) {
    if (raw.txNonces[i] < 0n || raw.txNonces[i] > U64_MAX) return "tx nonce outside u64";
    if (raw.txGases[i] < 0n || raw.txGases[i] > U64_MAX) return "tx gas outside u64";
  }
  if (!bitlistFits(raw.protectedBits, legacy)) return "protected_bits do not match the legacy tx count";
  return null;
}

function encodedRawLength(raw: RawSpanBatch): number {
  let n =
    uvarintLength(raw.relTimestamp) +
    uvarintLength(raw.l1OriginNum) +
    2 * CHECK_SIZE +
    uvarintLength(raw.blockTxCounts.length) +
    raw.originBits.length +
    raw.contractCreationBits.length +
    raw.yParityBits.length +
    raw.txSigs.length +
    raw.txTos.length +
    raw.protectedBits.length;
  for (const c of raw.blockTxCounts) n += uvarintLength(c);
  for (const d of raw.txDatas) n += d.length;
  for (const v of raw.txNonces) n += uvarintLength(v);
  for (const v of raw.txGases) n += uvarintLength(v);
  return n;
}

function writeRaw(out: Uint8Array, pos: number, raw: RawSpanBatch): number {
  pos = writeUvarint(out, pos, raw.relTimestamp);
  pos = writeUvarint(out, pos, raw.l1OriginNum);
  out.set(raw.parentCheck, pos);
  pos += CHECK_SIZE;
  out.set(raw.l1OriginCheck, pos);
  pos += CHECK_SIZE;
  pos = writeUvarint(out, pos, raw.blockTxCounts.length);
  out.set(raw.originBits, pos);
  pos += raw.originBits.length;
  for (const c of raw.blockTxCounts) pos = writeUvarint(out, pos, c);
  out.set(raw.contractCreationBits, pos);
  pos += raw.contractCreationBits.length;
  out.set(raw.yParityBits, pos);
  pos += raw.yParityBits.length;
  out.set(raw.txSigs, pos);
  pos += raw.txSigs.length;
  out.set(raw.txTos, pos);
  pos += raw.txTos.length;
  for (const d of raw.txDatas) {
    out.set(d, pos);
    pos += d.length;
  }
  for (const v of raw.txNonces) pos = writeUvarint(out, pos, v);
  for (const v of raw.txGases) pos = writeUvarint(out, pos, v);
  out.set(raw.protectedBits, pos);
  return pos + raw.protectedBits.length;
}

/** Encodes prefix ‖ payload (no type byte). Throws BatchEncodeError("INCONSISTENT") on mismatched columns. */
export function encodeRawSpanBatch(raw: RawSpanBatch): Uint8Array {
  const problem = rawShapeProblem(raw);
  if (problem !== null) throw new BatchEncodeError("INCONSISTENT", `raw span batch: ${problem}`);
  const out = new Uint8Array(encodedRawLength(raw));
  writeRaw(out, 0, raw);
  return out;
}

/** The batch as it goes into a channel: 0x01 ‖ prefix ‖ payload (the channel wraps it in an RLP string). */
export function encodeSpanBatch(raw: RawSpanBatch): Uint8Array {
  const problem = rawShapeProblem(raw);
  if (problem !== null) throw new BatchEncodeError("INCONSISTENT", `raw span batch: ${problem}`);
  const out = new Uint8Array(1 + encodedRawLength(raw));
  out[0] = BatchType.Span;
  writeRaw(out, 1, raw);
  return out;
}

// ---- derivation ----

function toSafeNumber(v: bigint, what: string): number {
  if (v > MAX_SAFE_BIG) throw deriveError("NUMBER_TOO_LARGE", `${what} ${v} exceeds 2^53 - 1`);
  return Number(v);
}

/** Rebuilds one signed tx from its columns and returns its EIP-2718 encoding. */
function fullTx(
  data: Uint8Array,
  nonce: bigint,
  gasLimit: bigint,
  to: Uint8Array | null,
  chainId: bigint,
  yParity: number,
  isProtected: boolean,
  r: bigint,
  s: bigint,
): Uint8Array {
  const legacy = isLegacyTxData(data);
  const type = legacy ? TxType.Legacy : data[0];
  if (type !== TxType.Legacy && type !== TxType.AccessList && type !== TxType.FeeMarket && type !== TxType.SetCode) {
    throw deriveError("TX_TYPE", `span batch tx data of unsupported type ${type}`);
  }
  if (type === TxType.SetCode && to === null) {
    throw deriveError("SET_CODE_CREATION", "set-code tx flagged as contract creation");
  }
  try {
    const listPos = legacy ? 0 : 1;
    const h = decodeHeader(data, listPos);
    const end = h.start + h.length;
    if (!h.list) throw deriveError("TX_DATA", "tx data must be an RLP list");
    if (end !== data.length) throw deriveError("TX_DATA", `${data.length - end} bytes after the tx data list`);
    const c = new RlpCursor(data, h.start, end);
    let tx: Tx;
    if (type === TxType.Legacy) {
      const value = c.u256("value");
      const gasPrice = c.u256("gasPrice");
      const d = c.bytes("data");
      c.finish("span batch legacy tx data");
      const v = legacyV(yParity, isProtected ? chainId : null);
      tx = { type: TxType.Legacy, nonce, gasPrice, gasLimit, to, value, data: d, v, r, s };
    } else if (type === TxType.AccessList) {
      const value = c.u256("value");
      const gasPrice = c.u256("gasPrice");
      const d = c.bytes("data");
      const accessList = decodeAccessList(c);
      c.finish("span batch access-list tx data");
      tx = { type, chainId, nonce, gasPrice, gasLimit, to, value, data: d, accessList, yParity, r, s };
    } else {
      const value = c.u256("value");
      const maxPriorityFeePerGas = c.u256("maxPriorityFeePerGas");
      const maxFeePerGas = c.u256("maxFeePerGas");
      const d = c.bytes("data");
      const accessList = decodeAccessList(c);
      if (type === TxType.FeeMarket) {
        c.finish("span batch fee-market tx data");
        tx = {
          type,
          chainId,
          nonce,
          maxPriorityFeePerGas,
          maxFeePerGas,
          gasLimit,
          to,
          value,
          data: d,
          accessList,
          yParity,
          r,
          s,
        };
      } else {
        const authorizationList = decodeAuthorizationList(c);
        c.finish("span batch set-code tx data");
        tx = {
          type: TxType.SetCode,
          chainId,
          nonce,
          maxPriorityFeePerGas,
          maxFeePerGas,
          gasLimit,
          to: to!,
          value,
          data: d,
          accessList,
          authorizationList,
          yParity,
          r,
          s,
        };
      }
    }
    return encodeTx(tx);
  } catch (e) {
    if (e instanceof BatchDecodeError) throw e;
    if (e instanceof TxError || e instanceof RlpError) {
      throw deriveError("TX_DATA", `span batch tx data: ${e.message}`, e);
    }
    throw e;
  }
}

/**
 * Derives the per-block elements of a raw span batch (op-node `RawSpanBatch.derive`):
 * block i has timestamp genesisL2Time + rel_timestamp + i·blockTime; the last block's L1 origin is
 * l1_origin_num and, walking back, the origin drops by one below every block i > 0 whose origin bit
 * is set (so the first origin is l1_origin_num − popcount(origin_bits) + origin_bits[0]). Txs are
 * rebuilt with the L2 chain id: legacy v = 35 + 2·chainId + y when protected, else 27 + y; typed
 * txs carry yParity. Throws BatchDecodeError (phase "derive") only.
 */
export function deriveSpanBatch(raw: RawSpanBatch, ctx: SpanBatchContext): SpanBatch {
  const problem = rawShapeProblem(raw);
  if (problem !== null) {
    throw deriveError(raw.blockTxCounts.length === 0 ? "EMPTY_SPAN" : "INCONSISTENT", `raw span batch: ${problem}`);
  }
  const blockCount = raw.blockTxCounts.length;
  const relTimestamp = toSafeNumber(raw.relTimestamp, "rel_timestamp");
  const lastOrigin = toSafeNumber(raw.l1OriginNum, "l1_origin_num");
  const firstTimestamp = ctx.genesisL2Time + relTimestamp;
  if (firstTimestamp + (blockCount - 1) * ctx.blockTime > Number.MAX_SAFE_INTEGER) {
    throw deriveError("NUMBER_TOO_LARGE", "span batch timestamps exceed 2^53 - 1");
  }
  const originChanges = popcount(raw.originBits) - spanBitlistGet(raw.originBits, 0);
  if (originChanges > lastOrigin) {
    throw deriveError("ORIGIN_UNDERFLOW", `l1_origin_num ${lastOrigin} is below its ${originChanges} origin changes`);
  }

  const chainId = ctx.l2ChainId;
  const sigs = raw.txSigs;
  let txIdx = 0;
  let toIdx = 0;
  let legacyIdx = 0;
  let epoch = lastOrigin - originChanges;
  const batches: SpanBatchElement[] = [];
  for (let i = 0; i < blockCount; i++) {
    if (i > 0 && spanBitlistGet(raw.originBits, i) === 1) epoch++;
    const transactions: Uint8Array[] = [];
    const count = raw.blockTxCounts[i];
    for (let j = 0; j < count; j++) {
      const data = raw.txDatas[txIdx];
      let to: Uint8Array | null = null;
      if (spanBitlistGet(raw.contractCreationBits, txIdx) === 0) {
        to = raw.txTos.subarray(toIdx * ADDRESS_SIZE, (toIdx + 1) * ADDRESS_SIZE);
        toIdx++;
      }
      let isProtected = true;
      if (isLegacyTxData(data)) {
        isProtected = spanBitlistGet(raw.protectedBits, legacyIdx) === 1;
        legacyIdx++;
      }
      const sigPos = txIdx * SIG_SIZE;
      const r = bytesToBigintBE(sigs.subarray(sigPos, sigPos + 32));
      const s = bytesToBigintBE(sigs.subarray(sigPos + 32, sigPos + SIG_SIZE));
      const y = spanBitlistGet(raw.yParityBits, txIdx);
      transactions.push(fullTx(data, raw.txNonces[txIdx], raw.txGases[txIdx], to, chainId, y, isProtected, r, s));
      txIdx++;
    }
    batches.push({ epochNum: epoch, timestamp: firstTimestamp + i * ctx.blockTime, transactions });
  }
  return { parentCheck: raw.parentCheck, l1OriginCheck: raw.l1OriginCheck, batches };
}

// ---- batcher side ----

function txDataLegacy(value: bigint, gasPrice: bigint, data: Uint8Array): Uint8Array {
  const payload = uintLength(value) + uintLength(gasPrice) + stringLength(data);
  const out = new Uint8Array(listLength(payload));
  let pos = writeListHeader(out, 0, payload);
  pos = writeUint(out, pos, value);
  pos = writeUint(out, pos, gasPrice);
  writeString(out, pos, data);
  return out;
}

function txDataTyped(
  type: TxType,
  ints: readonly bigint[],
  data: Uint8Array,
  accessList: AccessList,
  authorizationList: readonly Authorization[] | null,
): Uint8Array {
  let payload = stringLength(data) + accessListLength(accessList);
  for (const v of ints) payload += uintLength(v);
  if (authorizationList !== null) payload += authorizationListLength(authorizationList);
  const out = new Uint8Array(1 + listLength(payload));
  out[0] = type;
  let pos = writeListHeader(out, 1, payload);
  for (const v of ints) pos = writeUint(out, pos, v);
  pos = writeString(out, pos, data);
  pos = writeAccessList(out, pos, accessList);
  if (authorizationList !== null) writeAuthorizationList(out, pos, authorizationList);
  return out;
}

/** One tx split into its span batch columns. */
interface SpanTxColumns {
  readonly sig: Uint8Array;
  readonly yParity: number;
  readonly to: Uint8Array | null;
  readonly data: Uint8Array;
  readonly nonce: bigint;
  readonly gas: bigint;
  /** null for typed txs (no protected bit). */
  readonly protectedBit: number | null;
}

function splitTx(encoded: Uint8Array, chainId: bigint): SpanTxColumns {
  let tx: Tx;
  try {
    tx = decodeTx(encoded);
  } catch (e) {
    if (e instanceof TxError) throw new BatchEncodeError("TX_DECODE", `batch tx: ${e.message}`, { cause: e });
    throw e;
  }
  if (tx.type === TxType.Blob || tx.type === TxType.Deposit) {
    throw new BatchEncodeError("TX_TYPE", `tx type ${tx.type} cannot go into a span batch`);
  }
  const signed: SignedTx = tx;
  let yParity: number;
  let protectedBit: number | null = null;
  let data: Uint8Array;
  if (signed.type === TxType.Legacy) {
    const txChainId = legacyChainId(signed.v);
    if (txChainId === undefined) throw new BatchEncodeError("SIGNATURE", `legacy tx with malformed v ${signed.v}`);
    if (txChainId === null) {
      protectedBit = 0;
      yParity = Number(signed.v - 27n);
    } else {
      if (txChainId !== chainId) {
        throw new BatchEncodeError("CHAIN_ID", `protected tx has chain id ${txChainId}, want ${chainId}`);
      }
      protectedBit = 1;
      yParity = Number((signed.v - 35n) & 1n);
    }
    data = txDataLegacy(signed.value, signed.gasPrice, signed.data);
  } else {
    if (signed.chainId !== chainId) {
      throw new BatchEncodeError("CHAIN_ID", `tx has chain id ${signed.chainId}, want ${chainId}`);
    }
    if (signed.yParity !== 0 && signed.yParity !== 1) {
      throw new BatchEncodeError("SIGNATURE", `tx yParity ${signed.yParity} is not 0 or 1`);
    }
    yParity = signed.yParity;
    if (signed.type === TxType.AccessList) {
      data = txDataTyped(signed.type, [signed.value, signed.gasPrice], signed.data, signed.accessList, null);
    } else if (signed.type === TxType.FeeMarket) {
      const ints = [signed.value, signed.maxPriorityFeePerGas, signed.maxFeePerGas];
      data = txDataTyped(signed.type, ints, signed.data, signed.accessList, null);
    } else {
      const ints = [signed.value, signed.maxPriorityFeePerGas, signed.maxFeePerGas];
      data = txDataTyped(signed.type, ints, signed.data, signed.accessList, signed.authorizationList);
    }
  }
  const sig = new Uint8Array(SIG_SIZE);
  bigintToBytes32(signed.r, sig, 0);
  bigintToBytes32(signed.s, sig, 32);
  const to = signed.to === null ? null : signed.to.slice();
  return { sig, yParity, to, data, nonce: signed.nonce, gas: signed.gasLimit, protectedBit };
}

function checkSafe(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new BatchEncodeError("RANGE", `${what} ${n} is not a non-negative safe integer`);
}

/**
 * Groups consecutive singular batches into one raw span batch, one block at a time (op-node
 * `SpanBatch.AppendSingularBatch` + `ToRawSpanBatch`). Each append converts only the new block's txs,
 * so a batcher can grow the span and re-encode it to measure its size. An append that throws leaves
 * the builder unchanged.
 */
export class SpanBatchBuilder {
  private parentCheck: Uint8Array = new Uint8Array(CHECK_SIZE);
  private l1OriginCheck: Uint8Array = new Uint8Array(CHECK_SIZE);
  private readonly blocks: { epochNum: number; timestamp: number }[] = [];
  private readonly originBits: number[] = [];
  private readonly blockTxCounts: number[] = [];
  private readonly creationBits: number[] = [];
  private readonly yParityBits: number[] = [];
  private readonly sigs: Uint8Array[] = [];
  private readonly tos: Uint8Array[] = [];
  private readonly datas: Uint8Array[] = [];
  private readonly nonces: bigint[] = [];
  private readonly gases: bigint[] = [];
  private readonly protectedBits: number[] = [];

  constructor(
    readonly genesisL2Time: number,
    readonly l2ChainId: bigint,
  ) {}

  get blockCount(): number {
    return this.blocks.length;
  }

  get txCount(): number {
    return this.datas.length;
  }

  /**
   * Appends the next L2 block. `seqNum` is the block's sequence number within its epoch; it only
   * matters for the first block, whose origin bit is set when seqNum is 0 (a new epoch starts).
   */
  append(batch: SingularBatch, seqNum: number): void {
    if (batch.parentHash.length !== 32) throw new BatchEncodeError("RANGE", "parent hash is not 32 bytes");
    if (batch.epochHash.length !== 32) throw new BatchEncodeError("RANGE", "epoch hash is not 32 bytes");
    checkSafe(batch.epochNum, "epoch number");
    checkSafe(batch.timestamp, "timestamp");
    checkSafe(seqNum, "sequence number");
    if (batch.timestamp < this.genesisL2Time) {
      throw new BatchEncodeError("RANGE", `timestamp ${batch.timestamp} is before L2 genesis ${this.genesisL2Time}`);
    }
    if (batch.transactions.length > MAX_SPAN_BATCH_ELEMENT_COUNT) {
      throw new BatchEncodeError("RANGE", `block has ${batch.transactions.length} txs, above the span limit`);
    }
    let originBit: number;
    const prev = this.blocks.length === 0 ? null : this.blocks[this.blocks.length - 1];
    if (prev === null) {
      originBit = seqNum === 0 ? 1 : 0;
    } else {
      if (batch.timestamp < prev.timestamp) {
        throw new BatchEncodeError("ORDER", `timestamp ${batch.timestamp} before the previous ${prev.timestamp}`);
      }
      const step = batch.epochNum - prev.epochNum;
      if (step !== 0 && step !== 1) {
        throw new BatchEncodeError("ORDER", `L1 origin steps from ${prev.epochNum} to ${batch.epochNum}`);
      }
      originBit = step;
    }
    const cols: SpanTxColumns[] = [];
    for (const t of batch.transactions) cols.push(splitTx(t, this.l2ChainId));

    if (prev === null) this.parentCheck = batch.parentHash.slice(0, CHECK_SIZE);
    this.l1OriginCheck = batch.epochHash.slice(0, CHECK_SIZE);
    this.blocks.push({ epochNum: batch.epochNum, timestamp: batch.timestamp });
    this.originBits.push(originBit);
    this.blockTxCounts.push(cols.length);
    for (const c of cols) {
      this.creationBits.push(c.to === null ? 1 : 0);
      this.yParityBits.push(c.yParity);
      this.sigs.push(c.sig);
      if (c.to !== null) this.tos.push(c.to);
      this.datas.push(c.data);
      this.nonces.push(c.nonce);
      this.gases.push(c.gas);
      if (c.protectedBit !== null) this.protectedBits.push(c.protectedBit);
    }
  }

  /** The raw span batch of everything appended so far. */
  toRaw(): RawSpanBatch {
    if (this.blocks.length === 0) throw new BatchEncodeError("EMPTY", "span batch has no blocks");
    const first = this.blocks[0];
    const last = this.blocks[this.blocks.length - 1];
    const txSigs = new Uint8Array(SIG_SIZE * this.sigs.length);
    for (let i = 0; i < this.sigs.length; i++) txSigs.set(this.sigs[i], i * SIG_SIZE);
    const txTos = new Uint8Array(ADDRESS_SIZE * this.tos.length);
    for (let i = 0; i < this.tos.length; i++) txTos.set(this.tos[i], i * ADDRESS_SIZE);
    return {
      relTimestamp: BigInt(first.timestamp - this.genesisL2Time),
      l1OriginNum: BigInt(last.epochNum),
      parentCheck: this.parentCheck,
      l1OriginCheck: this.l1OriginCheck,
      originBits: packSpanBitlist(this.originBits),
      blockTxCounts: this.blockTxCounts.slice(),
      contractCreationBits: packSpanBitlist(this.creationBits),
      yParityBits: packSpanBitlist(this.yParityBits),
      txSigs,
      txTos,
      txDatas: this.datas.slice(),
      txNonces: this.nonces.slice(),
      txGases: this.gases.slice(),
      protectedBits: packSpanBitlist(this.protectedBits),
    };
  }
}

/**
 * Groups consecutive singular batches into one raw span batch. `firstSeqNum` is the sequence number
 * of the first block within its epoch (0 sets origin bit 0, as op-batcher does).
 */
export function spanBatchFromSingulars(
  batches: readonly SingularBatch[],
  ctx: { readonly genesisL2Time: number; readonly l2ChainId: bigint; readonly firstSeqNum: number },
): RawSpanBatch {
  if (batches.length === 0) throw new BatchEncodeError("EMPTY", "no singular batches to group");
  const b = new SpanBatchBuilder(ctx.genesisL2Time, ctx.l2ChainId);
  for (let i = 0; i < batches.length; i++) b.append(batches[i], i === 0 ? ctx.firstSeqNum : 1);
  return b.toRaw();
}
