/**
 * Channel data → batch byte strings (SPEC: specs/protocol/derivation.md#channel-format,
 * fjord/derivation.md; op-stack.md §2.5; op-node rollup/derive/channel.go `BatchReader`,
 * channel_in_reader.go).
 *
 * The compression comes from the first byte `b` of the channel data:
 * - `b & 0x0f` is 8 or 15 → zlib (RFC 1950), the legacy unversioned format;
 * - `b == 0x01` → brotli (RFC 7932) after that byte, accepted only when Fjord is active for the L1
 *   origin the channel is read at;
 * - anything else (and empty data) → invalid; the channel yields nothing.
 *
 * The decompressed stream is a sequence of RLP byte strings, each `batch_type ‖ batch_content`. op-node
 * reads it with an RLP stream limited to `MAX_RLP_BYTES_PER_CHANNEL` bytes (headers included) and
 * stops at the first error; every string read before the error is kept. Here the same outcome is
 * computed eagerly: decompress (natively) at most the limit, then split. What ends a channel early:
 * corrupt compressed data (the bytes decoded before the damage still count), an item running past
 * the limit or the end of the decompressed data, a non-canonical header, or a list item.
 *
 * Known gap: on corrupt data, op-node also keeps the symbols decoded from the very input byte in
 * which the corruption shows; node's one-shot decoders are probed on whole input prefixes, so output
 * from that last byte is lost. Only a string ending exactly there could differ.
 *
 * Decoding each string is the batch decoder's job (batch.ts). op-node decodes while it reads, so a
 * string that fails to decode also ends the channel there: callers decode `batches` in order and drop
 * the rest of the channel at the first failure.
 */
import {
  brotliCompressSync,
  brotliDecompressSync,
  deflateSync,
  inflateSync,
  type ZlibOptions,
  constants as zc,
} from "node:zlib";
import { decodeHeader } from "../../rlp/decode.js";
import { stringLength, writeString } from "../../rlp/encode.js";
import { RlpError } from "../../rlp/errors.js";

/** Decompressed bytes read from one channel before Fjord (op-node `MaxRLPBytesPerChannel`). */
export const MAX_RLP_BYTES_PER_CHANNEL_BEDROCK = 10_000_000;
/** From Fjord on (op-node `MaxRLPBytesPerChannelFjord`); Holocene also caps a staging channel's compressed size by it. */
export const MAX_RLP_BYTES_PER_CHANNEL_FJORD = 100_000_000;
/** First byte of a brotli channel (op-node `ChannelVersionBrotli`). */
export const CHANNEL_VERSION_BROTLI = 0x01;

export type CompressionAlgo = "zlib" | "brotli";

export function maxRlpBytesPerChannel(fjord: boolean): number {
  return fjord ? MAX_RLP_BYTES_PER_CHANNEL_FJORD : MAX_RLP_BYTES_PER_CHANNEL_BEDROCK;
}

export interface ReadChannelOptions {
  /** Fjord active at the L1 origin the channel is read at: brotli allowed, 100M limit. */
  readonly fjord: boolean;
  /** Override of the decompressed-bytes limit (tests); defaults to `maxRlpBytesPerChannel(fjord)`. */
  readonly maxRlpBytes?: number;
}

export interface ChannelBatches {
  /** Contents of the RLP strings read, in order: `batch_type ‖ batch_content`. Views into one buffer. */
  readonly batches: Uint8Array[];
  /** The compression found, when the first byte named a supported one. */
  readonly algo?: CompressionAlgo;
  /**
   * Why reading ended with an error rather than op-node's clean EOF: corrupt compressed data, an item
   * cut by the end of the data or by the limit, a non-canonical header, a list, an unknown or
   * disallowed compression. Absent when op-node would see EOF (also for a stream cut short, or
   * reaching the limit, exactly between items).
   */
  readonly error?: string;
}

/** The compression named by the channel's first byte, or an error message. */
export function detectCompression(first: number, fjord: boolean): CompressionAlgo | { error: string } {
  const cm = first & 0x0f;
  if (cm === 8 || cm === 15) return "zlib";
  if (first === CHANNEL_VERSION_BROTLI) {
    return fjord ? "brotli" : { error: "cannot accept brotli compressed batch before Fjord" };
  }
  return { error: `cannot distinguish the compression algo used given type byte ${first}` };
}

/** Reads the batch strings of one channel's data. Never throws for any input. */
export function readChannelBatches(channelData: Uint8Array, opts: ReadChannelOptions): ChannelBatches {
  if (channelData.length === 0) return { batches: [], error: "empty channel data" };
  const algo = detectCompression(channelData[0], opts.fjord);
  if (typeof algo !== "string") return { batches: [], error: algo.error };
  const limit = opts.maxRlpBytes ?? maxRlpBytesPerChannel(opts.fjord);
  const input = algo === "brotli" ? channelData.subarray(1) : channelData;
  const dec = decompressBounded(algo, input, limit);
  const read = splitRlpStrings(dec.out, limit, dec.overLimit);
  const error = read.error ?? dec.error;
  return error === undefined ? { batches: read.strings, algo } : { batches: read.strings, algo, error };
}

/**
 * Encodes batch strings as a channel: each RLP-string-wrapped, concatenated, compressed. zlib output
 * starts with its own header (0x78); brotli output is prefixed by `CHANNEL_VERSION_BROTLI`. `level` is
 * the zlib level (default 9) or brotli quality (default 10).
 */
export function compressChannel(
  batchStrings: readonly Uint8Array[],
  algo: CompressionAlgo,
  level?: number,
): Uint8Array {
  let size = 0;
  for (const b of batchStrings) size += stringLength(b);
  const raw = new Uint8Array(size);
  let pos = 0;
  for (const b of batchStrings) pos = writeString(raw, pos, b);
  if (algo === "zlib") return new Uint8Array(deflateSync(raw, { level: level ?? 9 }));
  const body = brotliCompressSync(raw, {
    params: {
      [zc.BROTLI_PARAM_QUALITY]: level ?? 10,
      [zc.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  const out = new Uint8Array(body.length + 1);
  out[0] = CHANNEL_VERSION_BROTLI;
  out.set(body, 1);
  return out;
}

// ---- bounded decompression ----

/** Output one more input byte can add beyond the limit, at most (zlib: 4 matches × 258 bytes; brotli: one long copy). */
const SLACK: Readonly<Record<CompressionAlgo, number>> = { zlib: 1 << 16, brotli: 1 << 25 };

type Probe =
  | { readonly ok: true; readonly out: Uint8Array }
  | { readonly ok: false; readonly tooLarge: boolean; readonly message: string };

function errorCode(e: Error): string | undefined {
  const code = (e as NodeJS.ErrnoException).code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Decompresses all of `input` in one native call. `finish`: the stream must be complete; otherwise a
 * truncated stream yields what it decodes to so far. Output above `maxOut` fails as `tooLarge`
 * without allocating past it (node's `maxOutputLength`).
 */
function probe(algo: CompressionAlgo, input: Uint8Array, maxOut: number, finish: boolean): Probe {
  try {
    let out: Buffer;
    if (algo === "zlib") {
      const opts: ZlibOptions = { finishFlush: finish ? zc.Z_FINISH : zc.Z_SYNC_FLUSH, maxOutputLength: maxOut };
      out = inflateSync(input, opts);
    } else {
      out = brotliDecompressSync(input, {
        finishFlush: finish ? zc.BROTLI_OPERATION_FINISH : zc.BROTLI_OPERATION_FLUSH,
        maxOutputLength: maxOut,
      });
    }
    // A plain Uint8Array view: callers compare and slice bytes, not Buffers.
    return { ok: true, out: new Uint8Array(out.buffer, out.byteOffset, out.length) };
  } catch (e) {
    if (!(e instanceof Error)) return { ok: false, tooLarge: false, message: String(e) };
    const tooLarge = errorCode(e) === "ERR_BUFFER_TOO_LARGE";
    return { ok: false, tooLarge, message: e.message };
  }
}

/**
 * At most the first `limit` decompressed bytes, with the bytes decoded before any corruption or
 * truncation (op-node's lazy reader sees exactly these). `error` is set for corruption only: a
 * truncated stream, or output beyond the limit (`overLimit`), ends like a complete stream (op-node's
 * reader sees EOF at an item boundary there).
 *
 * A complete stream within the limit costs one native call. Otherwise: decompressing a prefix of the
 * input gives a prefix of the output, and a prefix that fails makes every longer one fail, so a
 * binary search over the input length finds the longest prefix that decodes: O(log n) calls, each
 * bounded by the limit (only corrupt or oversized channels, which only the batcher can post, pay it).
 */
function decompressBounded(
  algo: CompressionAlgo,
  input: Uint8Array,
  limit: number,
): { out: Uint8Array; overLimit: boolean; error?: string } {
  const maxOut = Math.max(limit, 1);
  const full = probe(algo, input, maxOut, true);
  if (full.ok) return { out: full.out, overLimit: false };
  const partial = probe(algo, input, maxOut, false);
  // A stream that is merely cut short ends like a complete one (go-ethereum's RLP stream turns an
  // unexpected EOF at the top level into EOF); an item cut in half is reported by the splitter.
  if (partial.ok) return { out: partial.out, overLimit: false };
  let lo = 0;
  let loOut: Uint8Array = new Uint8Array(0);
  let hi = input.length;
  let hiFail = partial;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const p = probe(algo, input.subarray(0, mid), maxOut, false);
    if (p.ok) {
      lo = mid;
      loOut = p.out;
    } else {
      hi = mid;
      hiFail = p;
    }
  }
  if (hiFail.tooLarge) {
    // One byte more than `lo` crosses the limit: its output, cut at the limit, is the stream's first `limit` bytes.
    // Reaching the limit between items is a clean end for op-node; an item across it is the splitter's error.
    const over = probe(algo, input.subarray(0, hi), limit + SLACK[algo], false);
    return { out: over.ok ? over.out.subarray(0, limit) : loOut, overLimit: true };
  }
  return { out: loOut, overLimit: false, error: `${algo}: ${hiFail.message}` };
}

// ---- RLP string stream ----

/**
 * Splits `data[0..min(len, limit))` into RLP byte strings the way go-ethereum's `rlp.Stream` with an
 * input limit reads `[]byte` values: headers count against the limit, an item must fit entirely,
 * non-canonical headers and lists end the stream.
 */
function splitRlpStrings(
  data: Uint8Array,
  limit: number,
  overLimit: boolean,
): { strings: Uint8Array[]; error?: string } {
  const strings: Uint8Array[] = [];
  const end = Math.min(data.length, limit);
  let pos = 0;
  while (pos < end) {
    let start: number;
    let length: number;
    try {
      const h = decodeHeader(data, pos, end);
      if (h.list) return { strings, error: `batch ${strings.length}: expected an RLP string, found a list` };
      start = h.start;
      length = h.length;
    } catch (e) {
      if (!(e instanceof RlpError)) throw e;
      const cut = overLimit || end < data.length;
      const why = e.code === "TRUNCATED" && cut ? `runs past the ${limit}-byte channel limit` : e.message;
      return { strings, error: `batch ${strings.length}: ${why}` };
    }
    strings.push(data.subarray(start, start + length));
    pos = start + length;
  }
  return { strings };
}
