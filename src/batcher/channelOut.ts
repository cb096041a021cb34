/**
 * One channel of the batcher (op-batcher channel_out.go): consecutive L2 blocks as singular batches
 * or one span batch, RLP-wrapped and compressed (zlib, or brotli from Fjord), cut into frames of at
 * most `maxFrameData` bytes. The first frame is number 0, the last closes the channel.
 */
import { randomBytes } from "node:crypto";
import { stringLength } from "../rlp/encode.js";
import { encodeSingularBatch } from "../rollup/derive/batch.js";
import type { SingularBatch } from "../rollup/derive/batchTypes.js";
import { type CompressionAlgo, compressChannel } from "../rollup/derive/channelReader.js";
import type { Frame } from "../rollup/derive/frame.js";
import { encodeSpanBatch } from "../rollup/derive/rawSpanBatch.js";
import { spanBatchFromSingulars } from "../rollup/derive/spanBatchBuilder.js";

export interface ChannelOptions {
  /** Span batch (Delta+) instead of singular batches. */
  readonly span: boolean;
  readonly algo: CompressionAlgo;
  /** Largest frame data, bytes. */
  readonly maxFrameData: number;
  readonly genesisL2Time: number;
  readonly l2ChainId: bigint;
}

/** The L2 block a batch came from, with its position in its epoch (span batches need it). */
export interface BlockBatch {
  readonly batch: SingularBatch;
  readonly number: number;
  readonly hash: Uint8Array;
  readonly sequenceNumber: number;
}

/** The batch strings of `blocks` (one span batch, or one singular batch per block). */
function batchStrings(blocks: readonly BlockBatch[], o: ChannelOptions): Uint8Array[] {
  if (blocks.length === 0) throw new RangeError("a channel needs at least one block");
  return o.span
    ? [
        encodeSpanBatch(
          spanBatchFromSingulars(
            blocks.map((b) => b.batch),
            { genesisL2Time: o.genesisL2Time, l2ChainId: o.l2ChainId, firstSeqNum: blocks[0]!.sequenceNumber },
          ),
        ),
      ]
    : blocks.map((b) => encodeSingularBatch(b.batch));
}

/** The compressed channel data of `blocks`. */
export function channelData(blocks: readonly BlockBatch[], o: ChannelOptions): Uint8Array {
  return compressChannel(batchStrings(blocks, o), o.algo);
}

/**
 * The most a channel of `raw` uncompressed bytes can take compressed: incompressible input costs
 * deflate 5 bytes per stored block of up to 65,535 bytes plus 6 of header and checksum, and brotli
 * 3-4 bytes per uncompressed meta-block of up to 65,536 bytes plus a few, and its version byte. A
 * margin of 1/1024 and 64 bytes covers both.
 */
export function compressedBound(raw: number): number {
  return raw + Math.ceil(raw / 1024) + 64;
}

/** Cuts channel data into frames of a fresh random channel id. */
export function framesOf(
  data: Uint8Array,
  maxFrameData: number,
  id: Uint8Array = new Uint8Array(randomBytes(16)),
): Frame[] {
  if (!(maxFrameData >= 1)) throw new RangeError(`bad max frame size ${maxFrameData}`);
  const frames: Frame[] = [];
  for (let off = 0, n = 0; off < data.length || n === 0; off += maxFrameData, n++) {
    const end = Math.min(data.length, off + maxFrameData);
    frames.push({ channelId: id, frameNumber: n, data: data.subarray(off, end), isLast: end >= data.length });
  }
  return frames;
}

/**
 * The longest prefix of `blocks` (at least one block) whose channel fits in `maxBytes` compressed,
 * with its data: the channel is full when the next block would not fit. `due`: the channel goes out
 * now whatever its size; when it is not due and every block fits even uncompressed (compressedBound),
 * nothing is compressed and `data` is null. PERF: the batcher asks at every poll while a channel
 * fills, so compressing the pending blocks each time cost CPU and a compressor's buffers per poll.
 */
export function fillChannel(
  blocks: readonly BlockBatch[],
  maxBytes: number,
  o: ChannelOptions,
  due = true,
): { blocks: readonly BlockBatch[]; data: Uint8Array | null; full: boolean } {
  let data: Uint8Array;
  if (due) {
    data = channelData(blocks, o);
  } else {
    const strings = batchStrings(blocks, o);
    let raw = 0;
    for (const b of strings) raw += stringLength(b);
    if (compressedBound(raw) <= maxBytes) return { blocks, data: null, full: false };
    data = compressChannel(strings, o.algo); // the strings already built, not encoded again
  }
  if (data.length <= maxBytes) return { blocks, data, full: false };
  // Binary search on the prefix length; compression is monotone enough in the block count.
  let lo = 1;
  let hi = blocks.length - 1;
  let best = 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (channelData(blocks.slice(0, mid), o).length <= maxBytes) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  const chosen = blocks.slice(0, best);
  data = channelData(chosen, o);
  return { blocks: chosen, data, full: true };
}
