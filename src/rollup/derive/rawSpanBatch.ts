/**
 * Span batch wire format (batch type 1, Delta+; SPEC: specs/protocol/delta/span-batches.md, op-stack.md
 * §2.6; op-node span_batch.go, span_batch_txs.go, span_batch_tx.go).
 *
 *   span_batch = prefix ‖ payload                  (the batch type byte 0x01 comes before it)
 *   prefix     = rel_timestamp ‖ l1_origin_num ‖ parent_check ‖ l1_origin_check
 *   payload    = block_count ‖ origin_bits ‖ block_tx_counts ‖ txs
 *   txs        = contract_creation_bits ‖ y_parity_bits ‖ tx_sigs ‖ tx_tos ‖ tx_datas ‖ tx_nonces
 *                ‖ tx_gases ‖ protected_bits
 *
 * Three layers, one file each:
 * - `RawSpanBatch` (this file): the wire columns as read, so
 *   `encodeRawSpanBatch(readRawSpanBatch(b).raw)` gives `b` back byte for byte. Decoding checks
 *   framing only (varints, bitlists, lengths, the RLP list header of each tx data), like op-node's
 *   `RawSpanBatch.decode`.
 * - `deriveSpanBatch` (deriveSpanBatch.ts): rebuilds the per-block elements (timestamps, L1 origins)
 *   and the signed EIP-2718 transactions, like op-node's `RawSpanBatch.derive`. Tx content errors
 *   surface there.
 * - `SpanBatchBuilder` / `spanBatchFromSingulars` (spanBatchBuilder.ts): the batcher side, grouping
 *   consecutive singular batches into one raw span batch (op-node `SpanBatch.AppendSingularBatch`),
 *   which `encodeSpanBatch` (this file) writes with its type byte.
 * Their errors, `BatchDecodeError` and `BatchEncodeError`, are in batchErrors.ts.
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
import { MAX_U64 } from "../../primitives/u256.js";
import { decodeHeader } from "../../rlp/decode.js";
import { RlpError } from "../../rlp/errors.js";
import { BatchDecodeError, type BatchDecodeReason, BatchEncodeError } from "./batchErrors.js";
import { BatchType } from "./batchTypes.js";

/** Cap on blocks, on txs per block, on txs in total, and on one tx data item (op-node MaxSpanBatchElementCount). */
export const MAX_SPAN_BATCH_ELEMENT_COUNT = 10_000_000;

/** 2^53 - 1 as a bigint: a u64 above it stays bigint, and cannot become a timestamp or L1 number. */
export const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);
/** Bytes per tx in `txSigs` (r ‖ s). */
export const SIG_SIZE = 64;
/** Bytes per tx in `txTos`. */
export const ADDRESS_SIZE = 20;
/** Bytes of `parentCheck` and `l1OriginCheck`. */
export const CHECK_SIZE = 20;

// ---- shape ----

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

/** Number of set bits. */
export function popcount(bits: Uint8Array): number {
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
export function isLegacyTxData(data: Uint8Array): boolean {
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
export function rawShapeProblem(raw: RawSpanBatch): string | null {
  const blocks = raw.blockTxCounts.length;
  if (blocks === 0) return "no blocks";
  if (blocks > MAX_SPAN_BATCH_ELEMENT_COUNT) return "too many blocks";
  if (raw.relTimestamp < 0n || raw.relTimestamp > MAX_U64) return "rel_timestamp outside u64";
  if (raw.l1OriginNum < 0n || raw.l1OriginNum > MAX_U64) return "l1_origin_num outside u64";
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
    if (raw.txNonces[i] < 0n || raw.txNonces[i] > MAX_U64) return "tx nonce outside u64";
    if (raw.txGases[i] < 0n || raw.txGases[i] > MAX_U64) return "tx gas outside u64";
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
