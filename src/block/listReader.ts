/**
 * ListReader: walks the items of one RLP list payload in order, reading typed fields with BlockError
 * codes that name the field. Structure decoders (header, block, withdrawal, receipt, log) use it so
 * they never build the nested `RlpItem` tree: payloads are skipped by length, never recursed into.
 *
 * Every read is bounded by the list's end; malformed RLP underneath throws the RLP layer's RlpError.
 * Returned byte strings are views into the input.
 */
import { bytesToBigint } from "../primitives/u256.js";
import { decodeHeader } from "../rlp/decode.js";
import { BlockError } from "./errors.js";

export class ListReader {
  /** Position of the next item. */
  pos: number;

  private constructor(
    readonly input: Uint8Array,
    start: number,
    /** End of the list payload (exclusive). */
    readonly end: number,
    /** Position right after the whole list item (header + payload) in the outer input. */
    readonly next: number,
  ) {
    this.pos = start;
  }

  /** Opens the list item at `pos` of `input[..end)`. */
  static open(input: Uint8Array, pos: number, end: number, what: string): ListReader {
    const h = decodeHeader(input, pos, end);
    if (!h.list) throw new BlockError("EXPECTED_LIST", `${what}: expected a list`);
    const payloadEnd = h.start + h.length;
    return new ListReader(input, h.start, payloadEnd, payloadEnd);
  }

  /** Opens `input` as exactly one list item; trailing bytes are an error. */
  static whole(input: Uint8Array, what: string): ListReader {
    const r = ListReader.open(input, 0, input.length, what);
    if (r.next !== input.length) {
      throw new BlockError("FIELD_COUNT", `${what}: ${input.length - r.next} bytes after the list`);
    }
    return r;
  }

  hasMore(): boolean {
    return this.pos < this.end;
  }

  /** Throws FIELD_COUNT unless every item was read. */
  finish(what: string): void {
    if (this.pos !== this.end) throw new BlockError("FIELD_COUNT", `${what}: unexpected extra fields`);
  }

  private need(what: string): void {
    if (this.pos >= this.end) throw new BlockError("FIELD_COUNT", `${what}: missing field`);
  }

  /** Next item as a byte string (view). */
  bytes(what: string): Uint8Array {
    this.need(what);
    const h = decodeHeader(this.input, this.pos, this.end);
    if (h.list) throw new BlockError("EXPECTED_BYTES", `${what}: expected a byte string`);
    this.pos = h.start + h.length;
    return this.input.subarray(h.start, this.pos);
  }

  /** Next item as a byte string of exactly `size` bytes (hashes, addresses, bloom). */
  fixed(size: number, what: string): Uint8Array {
    const b = this.bytes(what);
    if (b.length !== size) throw new BlockError("FIELD_LENGTH", `${what}: expected ${size} bytes, got ${b.length}`);
    return b;
  }

  /** Next item as a u64 integer that must also be ≤ 2^53-1 (gas, numbers, timestamps, nonces). */
  safeInt(what: string): number {
    return bytesToSafeInt(this.bytes(what), what);
  }

  /** Next item as an unsigned integer of at most `maxBytes` bytes (8 = u64, 32 = u256). */
  bigint(what: string, maxBytes: number): bigint {
    const b = this.bytes(what);
    checkIntBytes(b, maxBytes, what);
    if (b.length <= 6) {
      let n = 0;
      for (let i = 0; i < b.length; i++) n = n * 256 + b[i];
      return BigInt(n);
    }
    return bytesToBigint(b);
  }

  /** Next item, which must be a list, as a reader over its payload; this reader moves past it. */
  list(what: string): ListReader {
    this.need(what);
    const r = ListReader.open(this.input, this.pos, this.end, what);
    this.pos = r.next;
    return r;
  }

  /**
   * Next item of either kind: `list` tells which, `raw` is the whole encoded item (header included)
   * and `payload` its payload. Both are views.
   */
  item(what: string): { list: boolean; raw: Uint8Array; payload: Uint8Array } {
    this.need(what);
    const start = this.pos;
    const h = decodeHeader(this.input, start, this.end);
    this.pos = h.start + h.length;
    return { list: h.list, raw: this.input.subarray(start, this.pos), payload: this.input.subarray(h.start, this.pos) };
  }
}

function checkIntBytes(b: Uint8Array, maxBytes: number, what: string): void {
  if (b.length > 0 && b[0] === 0) throw new BlockError("INT_LEADING_ZERO", `${what}: integer has leading zero bytes`);
  if (b.length > maxBytes) throw new BlockError("INT_TOO_LARGE", `${what}: integer wider than ${maxBytes} bytes`);
}

/** Canonical RLP integer bytes → number; rejects leading zeros, more than 8 bytes and values above 2^53-1. */
export function bytesToSafeInt(b: Uint8Array, what: string): number {
  checkIntBytes(b, 8, what);
  let n = 0;
  // Above 2^53 the float may round, but it rounds to ≥ 2^53, so the range check below stays exact.
  for (let i = 0; i < b.length; i++) n = n * 256 + b[i];
  if (n > Number.MAX_SAFE_INTEGER) throw new BlockError("INT_TOO_LARGE", `${what}: integer exceeds 2^53-1`);
  return n;
}
