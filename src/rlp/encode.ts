/**
 * RLP encoder (Yellow Paper appendix B). Two passes: measure the exact size, then write into one
 * buffer, so an encode allocates exactly once (code-models §10.5).
 */
import { bigintToBytes } from "../primitives/u256.js";

export type RlpInput = Uint8Array | readonly RlpInput[];

function lengthOfLength(n: number): number {
  // n < 2^53: number of big-endian bytes needed.
  let k = 0;
  while (n > 0) {
    k++;
    n = Math.floor(n / 256);
  }
  return k;
}

/** Size of the header plus payload of an item whose payload is `payloadLen` bytes. */
function itemSize(payloadLen: number): number {
  return payloadLen < 56 ? 1 + payloadLen : 1 + lengthOfLength(payloadLen) + payloadLen;
}

/** Encoded size of `input` (bytes or nested lists). */
export function encodedLength(input: RlpInput): number {
  if (input instanceof Uint8Array) return stringLength(input);
  return itemSize(listPayloadLength(input));
}

function listPayloadLength(list: readonly RlpInput[]): number {
  let total = 0;
  for (let i = 0; i < list.length; i++) total += encodedLength(list[i]);
  return total;
}

/** Writes a string or list header for `len` payload bytes at `pos`; returns the new position. */
export function writeHeader(out: Uint8Array, pos: number, len: number, shortBase: 0x80 | 0xc0): number {
  if (len < 56) {
    out[pos] = shortBase + len;
    return pos + 1;
  }
  // PERF: one length byte (56..255: every row of the state tables) without the general loop.
  if (len < 256) {
    out[pos] = shortBase + 56;
    out[pos + 1] = len;
    return pos + 2;
  }
  const k = lengthOfLength(len);
  out[pos] = shortBase + 55 + k;
  for (let i = k; i >= 1; i--) {
    out[pos + i] = len % 256;
    len = Math.floor(len / 256);
  }
  return pos + 1 + k;
}

/** Header size for a payload of `len` bytes (1 byte below 56, else 1 + length-of-length). */
export function headerLength(len: number): number {
  return len < 56 ? 1 : len < 256 ? 2 : 1 + lengthOfLength(len);
}

/** Encoded size of a byte string item (a single byte below 0x80 is its own encoding). */
export function stringLength(b: Uint8Array): number {
  return b.length === 1 && b[0] < 0x80 ? 1 : headerLength(b.length) + b.length;
}

/** Writes `b` as an RLP byte string at `pos`; returns the position after it. */
export function writeString(out: Uint8Array, pos: number, b: Uint8Array): number {
  if (b.length === 1 && b[0] < 0x80) {
    out[pos] = b[0];
    return pos + 1;
  }
  pos = writeHeader(out, pos, b.length, 0x80);
  out.set(b, pos);
  return pos + b.length;
}

function writeItem(out: Uint8Array, pos: number, input: RlpInput): number {
  if (input instanceof Uint8Array) return writeString(out, pos, input);
  pos = writeHeader(out, pos, listPayloadLength(input), 0xc0);
  for (let i = 0; i < input.length; i++) pos = writeItem(out, pos, input[i]);
  return pos;
}

/** RLP encoding of `input` in one exactly-sized buffer. */
export function encodeRlp(input: RlpInput): Uint8Array {
  const out = new Uint8Array(encodedLength(input));
  writeItem(out, 0, input);
  return out;
}

/** Writes the encoding of `input` into `out` at `pos`; returns the end position. */
export function encodeRlpInto(out: Uint8Array, pos: number, input: RlpInput): number {
  return writeItem(out, pos, input);
}

/**
 * Wraps already-encoded items into a list without re-encoding them (e.g. trie nodes whose children
 * are encoded once).
 */
export function encodeRlpListOfEncoded(items: readonly Uint8Array[]): Uint8Array {
  let payload = 0;
  for (const it of items) payload += it.length;
  const out = new Uint8Array(headerLength(payload) + payload);
  let pos = writeHeader(out, 0, payload, 0xc0);
  for (const it of items) {
    out.set(it, pos);
    pos += it.length;
  }
  return out;
}

const SMALL_INTS: Uint8Array[] = Array.from({ length: 128 }, (_, i) =>
  i === 0 ? new Uint8Array(0) : Uint8Array.of(i),
);

/** Minimal big-endian bytes for an RLP integer field (0 → empty string). */
export function uintToRlpBytes(v: number | bigint): Uint8Array {
  if (typeof v === "number") {
    if (v < 128 && v >= 0 && Number.isInteger(v)) return SMALL_INTS[v];
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`RLP integer out of range: ${v}`);
    let len = 0;
    for (let t = v; t > 0; t = Math.floor(t / 256)) len++;
    const out = new Uint8Array(len);
    for (let i = len - 1, t = v; i >= 0; i--, t = Math.floor(t / 256)) out[i] = t % 256;
    return out;
  }
  if (v < 128n && v >= 0n) return SMALL_INTS[Number(v)];
  return bigintToBytes(v);
}
