/**
 * One channel of the batcher (op-batcher channel_out.go): consecutive L2 blocks as singular batches
 * or one span batch, RLP-wrapped and compressed (zlib, or brotli from Fjord), cut into frames of at
 * most `maxFrameData` bytes. The first frame is number 0, the last closes the channel.
 */
import { randomBytes } from "node:crypto";
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

/** The compressed channel data of `blocks`. */
export function channelData(blocks: readonly BlockBatch[], o: ChannelOptions): Uint8Array {
  if (blocks.length === 0) throw new RangeError("a channel needs at least one block");
  const strings = o.span
    ? [
        encodeSpanBatch(
          spanBatchFromSingulars(
            blocks.map((b) => b.batch),
            { genesisL2Time: o.genesisL2Time, l2ChainId: o.l2ChainId, firstSeqNum: blocks[0]!.sequenceNumber },
          ),
        ),
      ]
    : blocks.map((b) => encodeSingularBatch(b.batch));
  return compressChannel(strings, o.algo);
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
 * with its data: the channel is full when the next block would not fit.
 */
export function fillChannel(
  blocks: readonly BlockBatch[],
  maxBytes: number,
  o: ChannelOptions,
): { blocks: readonly BlockBatch[]; data: Uint8Array; full: boolean } {
  let data = channelData(blocks, o);
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
