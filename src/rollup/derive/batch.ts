/**
 * Batch decoding (SPEC: specs/protocol/derivation.md#batch-format, op-stack.md §2.6; op-node
 * batch.go, singular_batch.go). One batch string read from a channel is `batch_type ‖ content`:
 * - type 0, singular: content = rlp([parent_hash, epoch_number, epoch_hash, timestamp, transaction_list]),
 *   transaction_list being a list of EIP-2718 byte strings. The whole content must be that one list
 *   (Go rlp.DecodeBytes).
 * - type 1, span (Delta+): content = prefix ‖ payload, see rawSpanBatch.ts; it is derived into
 *   per-block elements here, so the result already holds absolute timestamps, origins and signed txs.
 * Any other type byte is an error. Whether span batches are allowed yet (Delta, judged by the L1
 * inclusion block) is the channel reader's check, made before calling this.
 *
 * Decoding throws BatchDecodeError only. Byte fields of a singular batch are views into `data`.
 */
import { decodeHeader } from "../../rlp/decode.js";
import { headerLength, stringLength, uintToRlpBytes, writeHeader, writeString } from "../../rlp/encode.js";
import { RlpError } from "../../rlp/errors.js";
import { BatchDecodeError, BatchEncodeError } from "./batchErrors.js";
import { type Batch, BatchType, type SingularBatch } from "./batchTypes.js";
import { deriveSpanBatch, type SpanBatchContext } from "./deriveSpanBatch.js";
import { readRawSpanBatch } from "./rawSpanBatch.js";

const HASH_SIZE = 32;

function singularError(message: string, cause?: unknown): BatchDecodeError {
  return new BatchDecodeError("SINGULAR_RLP", "decode", message, cause === undefined ? undefined : { cause });
}

/** Reads the fields of one RLP list in place; every read checks kind and width. */
class FieldReader {
  constructor(
    private readonly input: Uint8Array,
    private pos: number,
    private readonly end: number,
  ) {}

  private item(what: string): { list: boolean; start: number; length: number } {
    if (this.pos >= this.end) throw singularError(`${what}: missing (too few fields)`);
    const h = decodeHeader(this.input, this.pos, this.end);
    this.pos = h.start + h.length;
    return h;
  }

  bytes(what: string): Uint8Array {
    const h = this.item(what);
    if (h.list) throw singularError(`${what}: expected a byte string, got a list`);
    return this.input.subarray(h.start, h.start + h.length);
  }

  hash(what: string): Uint8Array {
    const b = this.bytes(what);
    if (b.length !== HASH_SIZE) throw singularError(`${what}: ${b.length} bytes, want ${HASH_SIZE}`);
    return b;
  }

  /** A u64 (as Go's rlp reads it) that must also fit a safe integer. */
  uint(what: string): number {
    const b = this.bytes(what);
    if (b.length > 0 && b[0] === 0) throw singularError(`${what}: integer has leading zero bytes`);
    if (b.length > 8) throw singularError(`${what}: integer wider than u64`);
    let n = 0;
    for (let i = 0; i < b.length; i++) n = n * 256 + b[i];
    if (n > Number.MAX_SAFE_INTEGER) {
      throw new BatchDecodeError("NUMBER_TOO_LARGE", "decode", `${what}: ${n} exceeds 2^53 - 1`);
    }
    return n;
  }

  /** The next item as a list; returns a reader over its items. */
  list(what: string): FieldReader {
    const h = this.item(what);
    if (!h.list) throw singularError(`${what}: expected a list, got a byte string`);
    return new FieldReader(this.input, h.start, h.start + h.length);
  }

  get done(): boolean {
    return this.pos >= this.end;
  }
}

/** Decodes the content of a singular batch (without its type byte). */
export function decodeSingularBatch(content: Uint8Array): SingularBatch {
  try {
    if (content.length === 0) throw singularError("empty singular batch");
    const h = decodeHeader(content, 0);
    if (!h.list) throw singularError("singular batch must be an RLP list");
    const end = h.start + h.length;
    if (end !== content.length) throw singularError(`${content.length - end} bytes after the singular batch`);
    const f = new FieldReader(content, h.start, end);
    const parentHash = f.hash("parent_hash");
    const epochNum = f.uint("epoch_number");
    const epochHash = f.hash("epoch_hash");
    const timestamp = f.uint("timestamp");
    const txList = f.list("transaction_list");
    const transactions: Uint8Array[] = [];
    while (!txList.done) transactions.push(txList.bytes("transaction"));
    if (!f.done) throw singularError("singular batch has more than 5 fields");
    return { parentHash, epochNum, epochHash, timestamp, transactions };
  } catch (e) {
    if (e instanceof RlpError) throw singularError(`${e.code}: ${e.message}`, e);
    throw e;
  }
}

/**
 * Decodes one batch (`batch_type ‖ content`) as read from a channel. A span batch is derived with the
 * chain constants in `ctx`; its decode errors have phase "decode", its derivation errors "derive".
 */
export function decodeBatch(data: Uint8Array, ctx: SpanBatchContext): Batch {
  if (data.length === 0) throw new BatchDecodeError("EMPTY", "decode", "empty batch data");
  const type = data[0];
  if (type === BatchType.Singular) {
    return { type: BatchType.Singular, batch: decodeSingularBatch(data.subarray(1)) };
  }
  if (type === BatchType.Span) {
    const { raw } = readRawSpanBatch(data, 1);
    return { type: BatchType.Span, batch: deriveSpanBatch(raw, ctx) };
  }
  throw new BatchDecodeError("UNKNOWN_TYPE", "decode", `unrecognized batch type ${type}`);
}

function checkNumber(n: number, what: string): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new BatchEncodeError("RANGE", `${what} ${n} is not a non-negative safe integer`);
  return uintToRlpBytes(n);
}

/** Encodes a singular batch with its type byte: 0x00 ‖ rlp([parent_hash, epoch_number, epoch_hash, timestamp, txs]). */
export function encodeSingularBatch(b: SingularBatch): Uint8Array {
  if (b.parentHash.length !== HASH_SIZE) throw new BatchEncodeError("RANGE", "parent hash is not 32 bytes");
  if (b.epochHash.length !== HASH_SIZE) throw new BatchEncodeError("RANGE", "epoch hash is not 32 bytes");
  const epochNum = checkNumber(b.epochNum, "epoch number");
  const timestamp = checkNumber(b.timestamp, "timestamp");
  let txPayload = 0;
  for (const t of b.transactions) txPayload += stringLength(t);
  const payload =
    stringLength(b.parentHash) +
    stringLength(epochNum) +
    stringLength(b.epochHash) +
    stringLength(timestamp) +
    headerLength(txPayload) +
    txPayload;
  const out = new Uint8Array(1 + headerLength(payload) + payload);
  out[0] = BatchType.Singular;
  let pos = writeHeader(out, 1, payload, 0xc0);
  pos = writeString(out, pos, b.parentHash);
  pos = writeString(out, pos, epochNum);
  pos = writeString(out, pos, b.epochHash);
  pos = writeString(out, pos, timestamp);
  pos = writeHeader(out, pos, txPayload, 0xc0);
  for (const t of b.transactions) pos = writeString(out, pos, t);
  return out;
}
