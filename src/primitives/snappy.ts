/**
 * Snappy, both wire formats the OP P2P protocol uses, written from google/snappy's
 * `format_description.txt` (block format: gossip messages) and `framing_format.txt` (framed
 * format: req-resp responses). Decoders take outside bytes: every length and offset is checked,
 * the declared length is compared with the caller's limit before anything is allocated, and a
 * failure is a `SnappyError` value, never a thrown error, a hang or an unbounded allocation.
 */
import { concatByteList } from "./bytes.js";
export class SnappyError extends Error {
  override readonly name = "SnappyError";
  constructor(
    readonly code: "varint" | "too_large" | "corrupt" | "length" | "stream_id" | "checksum" | "chunk",
    message: string,
  ) {
    super(message);
  }
}

// --- block format ---

/** Reads the uvarint length header: [length, header size], or a SnappyError. */
function readLength(src: Uint8Array): [number, number] | SnappyError {
  let v = 0;
  for (let i = 0; i < 5 && i < src.length; i++) {
    const b = src[i]!;
    v += (b & 0x7f) * 2 ** (7 * i);
    if ((b & 0x80) === 0) {
      if (v > 0xffffffff) return new SnappyError("varint", "snappy: length header overflows 32 bits");
      return [v, i + 1];
    }
  }
  return new SnappyError("varint", "snappy: bad length header");
}

/** The uncompressed length a block declares. */
export function snappyUncompressedLength(src: Uint8Array): number | SnappyError {
  const r = readLength(src);
  return r instanceof SnappyError ? r : r[0];
}

/** Decompresses a snappy block of at most `maxLength` bytes. */
export function snappyUncompress(src: Uint8Array, maxLength: number): Uint8Array | SnappyError {
  const h = readLength(src);
  if (h instanceof SnappyError) return h;
  const [len, hdr] = h;
  if (!(len <= maxLength)) return new SnappyError("too_large", `snappy: ${len} bytes declared, limit ${maxLength}`);
  const out = new Uint8Array(len);
  let s = hdr;
  let d = 0;
  while (s < src.length) {
    const tag = src[s]!;
    let length: number;
    let offset: number;
    switch (tag & 3) {
      case 0: {
        // Literal.
        let n = tag >>> 2;
        s++;
        if (n >= 60) {
          const bytes = n - 59;
          if (s + bytes > src.length) return new SnappyError("corrupt", "snappy: truncated literal length");
          n = 0;
          for (let i = 0; i < bytes; i++) n += src[s + i]! * 2 ** (8 * i);
          s += bytes;
        }
        length = n + 1;
        if (s + length > src.length) return new SnappyError("corrupt", "snappy: literal past the input");
        if (d + length > len) return new SnappyError("corrupt", "snappy: literal past the declared length");
        out.set(src.subarray(s, s + length), d);
        s += length;
        d += length;
        continue;
      }
      case 1:
        if (s + 2 > src.length) return new SnappyError("corrupt", "snappy: truncated copy");
        length = 4 + ((tag >>> 2) & 7);
        offset = ((tag & 0xe0) << 3) | src[s + 1]!;
        s += 2;
        break;
      case 2:
        if (s + 3 > src.length) return new SnappyError("corrupt", "snappy: truncated copy");
        length = 1 + (tag >>> 2);
        offset = src[s + 1]! | (src[s + 2]! << 8);
        s += 3;
        break;
      default:
        if (s + 5 > src.length) return new SnappyError("corrupt", "snappy: truncated copy");
        length = 1 + (tag >>> 2);
        offset = (src[s + 1]! | (src[s + 2]! << 8) | (src[s + 3]! << 16)) + src[s + 4]! * 2 ** 24;
        s += 5;
        break;
    }
    if (offset === 0 || offset > d) return new SnappyError("corrupt", "snappy: copy offset out of range");
    if (d + length > len) return new SnappyError("corrupt", "snappy: copy past the declared length");
    if (offset >= length) {
      out.copyWithin(d, d - offset, d - offset + length);
      d += length;
    } else {
      // Byte by byte: the copy overlaps its own output (offset < length repeats a pattern).
      for (let i = 0; i < length; i++, d++) out[d] = out[d - offset]!;
    }
  }
  if (d !== len) return new SnappyError("length", `snappy: ${d} bytes decoded, ${len} declared`);
  return out;
}

const MAX_BLOCK = 65536;
const HASH_BITS = 14;

function load32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

function hash32(v: number): number {
  return Math.imul(v, 0x1e35a7bd) >>> (32 - HASH_BITS);
}

class Writer {
  buf: Uint8Array;
  pos = 0;
  constructor(cap: number) {
    this.buf = new Uint8Array(cap);
  }
  byte(b: number): void {
    this.buf[this.pos++] = b;
  }
  literal(src: Uint8Array, from: number, to: number): void {
    const n = to - from - 1;
    if (n < 60) this.byte(n << 2);
    else if (n < 0x100) {
      this.byte(60 << 2);
      this.byte(n);
    } else if (n < 0x10000) {
      this.byte(61 << 2);
      this.byte(n & 0xff);
      this.byte(n >>> 8);
    } else {
      this.byte(62 << 2);
      this.byte(n & 0xff);
      this.byte((n >>> 8) & 0xff);
      this.byte(n >>> 16);
    }
    this.buf.set(src.subarray(from, to), this.pos);
    this.pos += to - from;
  }
  copy(offset: number, length: number): void {
    // Copies of up to 64 bytes with a 2-byte offset (blocks are ≤ 64 KiB, so offsets fit).
    while (length > 0) {
      let n = Math.min(length, 64);
      if (length - n < 4 && length > 64) n = length - 4;
      if (n >= 4 && n <= 11 && offset < 2048) {
        this.byte(1 | ((n - 4) << 2) | ((offset >>> 8) << 5));
        this.byte(offset & 0xff);
      } else {
        this.byte(2 | ((n - 1) << 2));
        this.byte(offset & 0xff);
        this.byte(offset >>> 8);
      }
      length -= n;
    }
  }
}

function compressBlock(src: Uint8Array, start: number, end: number, w: Writer, table: Int32Array): void {
  table.fill(-1);
  let lit = start;
  let i = start;
  const limit = end - 4;
  while (i <= limit) {
    const v = load32(src, i);
    const h = hash32(v);
    const cand = table[h]!;
    table[h] = i;
    if (cand >= start && i - cand < MAX_BLOCK && load32(src, cand) === v) {
      if (lit < i) w.literal(src, lit, i);
      let n = 4;
      while (i + n < end && src[cand + n] === src[i + n]) n++;
      w.copy(i - cand, n);
      i += n;
      lit = i;
      if (i - 1 <= limit) table[hash32(load32(src, i - 1))] = i - 1;
    } else {
      i++;
    }
  }
  if (lit < end) w.literal(src, lit, end);
}

/** Compresses `data` as one snappy block. */
export function snappyCompress(data: Uint8Array): Uint8Array {
  // Worst case: 32 + n + n/6 (the reference bound).
  const w = new Writer(32 + data.length + Math.ceil(data.length / 6));
  let n = data.length;
  do {
    const b = n & 0x7f;
    n = Math.floor(n / 128);
    w.byte(n > 0 ? b | 0x80 : b);
  } while (n > 0);
  const table = new Int32Array(1 << HASH_BITS);
  for (let p = 0; p < data.length; p += MAX_BLOCK) {
    compressBlock(data, p, Math.min(data.length, p + MAX_BLOCK), w, table);
  }
  return w.buf.slice(0, w.pos);
}

// --- framing format ---

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

/** CRC-32C (Castagnoli). */
export function crc32c(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function maskedCrc(data: Uint8Array): number {
  const c = crc32c(data);
  return (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0;
}

const STREAM_ID = new Uint8Array([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);
const FRAME_DATA = 65536;

/** Encodes `data` in snappy's framed format (stream identifier, then ≤ 64 KiB chunks). */
export function snappyFrameEncode(data: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [STREAM_ID];
  for (let p = 0; p < data.length; p += FRAME_DATA) {
    const chunk = data.subarray(p, Math.min(data.length, p + FRAME_DATA));
    const c = snappyCompress(chunk);
    const useCompressed = c.length < chunk.length - (chunk.length >>> 3);
    const body = useCompressed ? c : chunk;
    const head = new Uint8Array(8);
    const len = body.length + 4;
    head[0] = useCompressed ? 0x00 : 0x01;
    head[1] = len & 0xff;
    head[2] = (len >>> 8) & 0xff;
    head[3] = len >>> 16;
    new DataView(head.buffer).setUint32(4, maskedCrc(chunk), true);
    parts.push(head, body);
  }
  return concatByteList(parts);
}

/** Decodes a snappy framed stream of at most `maxLength` uncompressed bytes. */
export function snappyFrameDecode(src: Uint8Array, maxLength: number): Uint8Array | SnappyError {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let s = 0;
  let sawId = false;
  while (s < src.length) {
    if (s + 4 > src.length) return new SnappyError("chunk", "snappy frame: truncated chunk header");
    const type = src[s]!;
    const len = src[s + 1]! | (src[s + 2]! << 8) | (src[s + 3]! << 16);
    s += 4;
    if (s + len > src.length) return new SnappyError("chunk", "snappy frame: chunk past the input");
    const body = src.subarray(s, s + len);
    s += len;
    if (type === 0xff) {
      if (len !== 6 || !body.every((b, i) => b === STREAM_ID[4 + i])) {
        return new SnappyError("stream_id", "snappy frame: bad stream identifier");
      }
      sawId = true;
      continue;
    }
    if (!sawId) return new SnappyError("stream_id", "snappy frame: missing stream identifier");
    if (type === 0x00 || type === 0x01) {
      if (len < 4) return new SnappyError("chunk", "snappy frame: chunk too short for its checksum");
      const want = body[0]! | (body[1]! << 8) | (body[2]! << 16) | (body[3]! * 2 ** 24);
      let data: Uint8Array;
      if (type === 0x00) {
        const d = snappyUncompress(body.subarray(4), Math.min(FRAME_DATA, maxLength - total));
        if (d instanceof SnappyError) return d.code === "too_large" && total > 0 ? tooLarge(maxLength) : d;
        data = d;
      } else {
        data = body.subarray(4);
        if (data.length > FRAME_DATA) return new SnappyError("chunk", "snappy frame: uncompressed chunk over 64 KiB");
      }
      if (maskedCrc(data) !== want >>> 0) return new SnappyError("checksum", "snappy frame: checksum mismatch");
      total += data.length;
      if (total > maxLength) return tooLarge(maxLength);
      if (data.length > 0) chunks.push(data);
      continue;
    }
    if (type >= 0x02 && type <= 0x7f) {
      return new SnappyError("chunk", `snappy frame: reserved unskippable chunk 0x${type.toString(16)}`);
    }
    // 0x80–0xfe: skippable (0xfe padding).
  }
  if (!sawId) return new SnappyError("stream_id", "snappy frame: missing stream identifier");
  return concatByteList(chunks);
}

function tooLarge(max: number): SnappyError {
  return new SnappyError("too_large", `snappy frame: more than ${max} bytes`);
}
