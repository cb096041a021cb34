/**
 * Bounded RLP decoder. Rejects every non-canonical form (single bytes wrapped in a header, long form
 * for short payloads, length prefixes with leading zeros) with a typed RlpError, and never reads or
 * allocates past the input: lengths are checked against the remaining bytes before use.
 *
 * Returned byte strings are views (`subarray`) into the input; copy anything kept past the input's
 * lifetime.
 */
import { RlpError } from "./errors.js";

export type RlpItem = Uint8Array | RlpItem[];

export const DEFAULT_MAX_DEPTH = 64;

/** Header of the item at `pos`: where its payload starts, how long it is, and whether it is a list. */
export interface RlpHeader {
  list: boolean;
  /** Start of the payload. */
  start: number;
  /** Payload length in bytes. */
  length: number;
}

/** Decodes one header at `pos` within `input[..end)`; throws RlpError on any non-canonical or truncated form. */
export function decodeHeader(input: Uint8Array, pos: number, end: number = input.length): RlpHeader {
  if (pos >= end) throw new RlpError("TRUNCATED", "input ended before an item header");
  const b = input[pos];
  if (b < 0x80) return { list: false, start: pos, length: 1 };
  if (b < 0xb8) {
    const length = b - 0x80;
    if (pos + 1 + length > end) throw new RlpError("TRUNCATED", "string payload runs past the end of input");
    if (length === 1 && input[pos + 1] < 0x80) {
      throw new RlpError("NON_CANONICAL_SINGLE_BYTE", "single byte below 0x80 must be encoded as itself");
    }
    return { list: false, start: pos + 1, length };
  }
  if (b < 0xc0) return longHeader(input, pos, end, b - 0xb7, false);
  if (b < 0xf8) {
    const length = b - 0xc0;
    if (pos + 1 + length > end) throw new RlpError("TRUNCATED", "list payload runs past the end of input");
    return { list: true, start: pos + 1, length };
  }
  return longHeader(input, pos, end, b - 0xf7, true);
}

function longHeader(input: Uint8Array, pos: number, end: number, lenOfLen: number, list: boolean): RlpHeader {
  if (pos + 1 + lenOfLen > end) throw new RlpError("TRUNCATED", "length prefix runs past the end of input");
  if (input[pos + 1] === 0) throw new RlpError("LEADING_ZERO_SIZE", "length prefix has leading zero bytes");
  if (lenOfLen > 6) throw new RlpError("SIZE_TOO_LARGE", `length prefix of ${lenOfLen} bytes exceeds any input`);
  let length = 0;
  for (let i = 0; i < lenOfLen; i++) length = length * 256 + input[pos + 1 + i];
  if (length < 56) throw new RlpError("NON_CANONICAL_SIZE", "long form used for a payload shorter than 56 bytes");
  const start = pos + 1 + lenOfLen;
  if (length > end - start) throw new RlpError("TRUNCATED", "payload runs past the end of input");
  return { list, start, length };
}

function decodeAt(input: Uint8Array, pos: number, end: number, depth: number, out: { pos: number }): RlpItem {
  const h = decodeHeader(input, pos, end);
  const payloadEnd = h.start + h.length;
  out.pos = payloadEnd;
  if (!h.list) return input.subarray(h.start, payloadEnd);
  if (depth === 0) throw new RlpError("DEPTH_EXCEEDED", "list nesting exceeds the decoder's depth limit");
  const items: RlpItem[] = [];
  let p = h.start;
  while (p < payloadEnd) {
    items.push(decodeAt(input, p, payloadEnd, depth - 1, out));
    p = out.pos;
  }
  out.pos = payloadEnd;
  return items;
}

/** Decodes exactly one item spanning all of `input`; trailing bytes are an error. */
export function decodeRlp(input: Uint8Array, maxDepth: number = DEFAULT_MAX_DEPTH): RlpItem {
  if (input.length === 0) throw new RlpError("EMPTY_INPUT", "empty input");
  const cursor = { pos: 0 };
  const item = decodeAt(input, 0, input.length, maxDepth, cursor);
  if (cursor.pos !== input.length) {
    throw new RlpError("TRAILING_BYTES", `${input.length - cursor.pos} bytes after the first item`);
  }
  return item;
}

/** Decodes the item at `pos`; returns it and the position after it (for streams of items). */
export function decodeRlpAt(
  input: Uint8Array,
  pos: number,
  maxDepth: number = DEFAULT_MAX_DEPTH,
): { item: RlpItem; end: number } {
  const cursor = { pos };
  const item = decodeAt(input, pos, input.length, maxDepth, cursor);
  return { item, end: cursor.pos };
}

// ---- typed field accessors for structure decoders (tx, block, receipt) ----

export function expectList(item: RlpItem, what: string): RlpItem[] {
  if (!Array.isArray(item)) throw new RlpError("EXPECTED_LIST", `${what}: expected a list`);
  return item;
}

export function expectBytes(item: RlpItem, what: string): Uint8Array {
  if (Array.isArray(item)) throw new RlpError("EXPECTED_BYTES", `${what}: expected a byte string`);
  return item as Uint8Array;
}

/** Exactly-sized byte string (hashes, addresses, bloom). */
export function expectFixed(item: RlpItem, size: number, what: string): Uint8Array {
  const b = expectBytes(item, what);
  if (b.length !== size) throw new RlpError("WRONG_FIELD_COUNT", `${what}: expected ${size} bytes, got ${b.length}`);
  return b;
}

function checkInt(b: Uint8Array, what: string): void {
  if (b.length > 0 && b[0] === 0) throw new RlpError("INT_LEADING_ZERO", `${what}: integer has leading zero bytes`);
}

/** RLP integer that must fit in a safe JS number (gas, nonce, sizes, timestamps). */
export function expectSafeInt(item: RlpItem, what: string, maxBytes = 8): number {
  const b = expectBytes(item, what);
  checkInt(b, what);
  if (b.length > maxBytes) throw new RlpError("INT_TOO_LARGE", `${what}: integer wider than ${maxBytes} bytes`);
  let n = 0;
  for (let i = 0; i < b.length; i++) n = n * 256 + b[i];
  if (n > Number.MAX_SAFE_INTEGER) throw new RlpError("INT_TOO_LARGE", `${what}: integer exceeds 2^53-1`);
  return n;
}

/** RLP integer up to `maxBytes` bytes (default 32) as bigint (wei, 256-bit words). */
export function expectBigint(item: RlpItem, what: string, maxBytes = 32): bigint {
  const b = expectBytes(item, what);
  checkInt(b, what);
  if (b.length > maxBytes) throw new RlpError("INT_TOO_LARGE", `${what}: integer wider than ${maxBytes} bytes`);
  if (b.length === 0) return 0n;
  let n = 0n;
  let i = 0;
  // 6 bytes at a time through a Number window keeps bigint operations few.
  for (; i + 6 <= b.length; i += 6) {
    n =
      (n << 48n) |
      BigInt(
        b[i] * 0x10000000000 +
          b[i + 1] * 0x100000000 +
          ((b[i + 2] << 24) >>> 0) +
          ((b[i + 3] << 16) | (b[i + 4] << 8) | b[i + 5]),
      );
  }
  for (; i < b.length; i++) n = (n << 8n) | BigInt(b[i]);
  return n;
}
