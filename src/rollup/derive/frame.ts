/**
 * Channel frames as batcher transactions carry them (SPEC: specs/protocol/derivation.md#frame-format,
 * holocene/derivation.md#frame-queue; op-stack.md §2.3; op-node rollup/derive/frame.go,
 * frame_queue.go):
 *
 *   tx data = derivation_version(0x00) ‖ frame ‖ frame ‖ …
 *   frame   = channel_id(16) ‖ frame_number(uint16 BE) ‖ frame_data_length(uint32 BE) ‖ frame_data ‖ is_last(0|1)
 *
 * A transaction's frames are all-or-nothing: one malformed frame, trailing bytes, or no frame at all
 * drops every frame of that transaction. `parseFrames` reports that as a `FrameParseError` value,
 * never by throwing.
 */
import { equalBytes, readUint32BE, writeUint32BE } from "../../primitives/bytes.js";

/** The only derivation version byte (op-node `DerivationVersion0`). */
export const DERIVATION_VERSION_0 = 0x00;
/** Largest `frame_data_length` accepted (op-node `MaxFrameLen`). */
export const MAX_FRAME_LEN = 1_000_000;
/** Bytes a frame costs in channel-bank accounting beyond its data (op-node `frameOverhead`). */
export const FRAME_OVERHEAD = 200;
/** Fixed bytes of an encoded frame: id 16 + number 2 + length 4 + is_last 1. */
export const FRAME_V0_OVERHEAD = 23;
export const CHANNEL_ID_LENGTH = 16;

export interface Frame {
  /** 16 bytes. */
  readonly channelId: Uint8Array;
  /** uint16. */
  readonly frameNumber: number;
  readonly data: Uint8Array;
  readonly isLast: boolean;
}

export type FrameParseErrorCode =
  | "EMPTY_DATA"
  | "BAD_VERSION"
  | "TRUNCATED"
  | "FRAME_TOO_LARGE"
  | "BAD_IS_LAST"
  | "NO_FRAMES";

/** Why a transaction's frames were dropped. A value, not thrown. */
export class FrameParseError {
  constructor(
    readonly code: FrameParseErrorCode,
    /** Index of the frame that failed, or -1 for errors about the whole data. */
    readonly frameIndex: number,
    readonly reason: string,
  ) {}

  toString(): string {
    return this.frameIndex < 0 ? this.reason : `parsing frame ${this.frameIndex}: ${this.reason}`;
  }
}

/** Channel-bank cost of a frame: its data plus `FRAME_OVERHEAD` (op-node `frameSize`). */
export function frameSize(f: Frame): number {
  return f.data.length + FRAME_OVERHEAD;
}

/** Encoded length of one frame. */
export function encodedFrameLength(f: Frame): number {
  return FRAME_V0_OVERHEAD + f.data.length;
}

/** Writes one frame at `pos`; returns the position after it. */
export function encodeFrameInto(out: Uint8Array, pos: number, f: Frame): number {
  if (f.channelId.length !== CHANNEL_ID_LENGTH)
    throw new RangeError(`channel id must be 16 bytes, got ${f.channelId.length}`);
  if (!Number.isInteger(f.frameNumber) || f.frameNumber < 0 || f.frameNumber > 0xffff) {
    throw new RangeError(`frame number ${f.frameNumber} is not a uint16`);
  }
  out.set(f.channelId, pos);
  out[pos + 16] = f.frameNumber >>> 8;
  out[pos + 17] = f.frameNumber & 0xff;
  writeUint32BE(out, pos + 18, f.data.length);
  out.set(f.data, pos + 22);
  out[pos + 22 + f.data.length] = f.isLast ? 1 : 0;
  return pos + FRAME_V0_OVERHEAD + f.data.length;
}

/** One frame's bytes (no version byte). Throws RangeError on a malformed id or frame number (encoder misuse). */
export function encodeFrame(f: Frame): Uint8Array {
  const out = new Uint8Array(encodedFrameLength(f));
  encodeFrameInto(out, 0, f);
  return out;
}

/** Batcher tx data: the version byte followed by the frames. */
export function encodeFramesTxData(frames: readonly Frame[]): Uint8Array {
  let size = 1;
  for (const f of frames) size += encodedFrameLength(f);
  const out = new Uint8Array(size);
  out[0] = DERIVATION_VERSION_0;
  let pos = 1;
  for (const f of frames) pos = encodeFrameInto(out, pos, f);
  return out;
}

/**
 * Parses batcher tx data (version byte, then one or more frames, nothing after). Frame `data` and
 * `channelId` are views into `txData`. Returns a `FrameParseError` when any frame is malformed: the
 * whole transaction's frames are then dropped (op-node `ParseFrames`).
 */
export function parseFrames(txData: Uint8Array): Frame[] | FrameParseError {
  if (txData.length === 0) return new FrameParseError("EMPTY_DATA", -1, "data array must not be empty");
  if (txData[0] !== DERIVATION_VERSION_0) {
    return new FrameParseError("BAD_VERSION", -1, `invalid derivation format byte: got ${txData[0]}`);
  }
  const frames: Frame[] = [];
  const end = txData.length;
  let pos = 1;
  while (pos < end) {
    const i = frames.length;
    if (end - pos < 22) {
      return new FrameParseError("TRUNCATED", i, `frame header needs 22 bytes, ${end - pos} left`);
    }
    const channelId = txData.subarray(pos, pos + 16);
    const frameNumber = (txData[pos + 16] << 8) | txData[pos + 17];
    const length = readUint32BE(txData, pos + 18);
    pos += 22;
    if (length > MAX_FRAME_LEN) {
      return new FrameParseError("FRAME_TOO_LARGE", i, `frame_data_length is too large: ${length}`);
    }
    if (end - pos < length) {
      return new FrameParseError("TRUNCATED", i, `frame_data needs ${length} bytes, ${end - pos} left`);
    }
    const data = txData.subarray(pos, pos + length);
    pos += length;
    if (pos >= end) return new FrameParseError("TRUNCATED", i, "missing is_last byte");
    const last = txData[pos];
    pos += 1;
    if (last > 1) return new FrameParseError("BAD_IS_LAST", i, `invalid byte as is_last: ${last}`);
    frames.push({ channelId, frameNumber, data, isLast: last === 1 });
  }
  if (frames.length === 0) return new FrameParseError("NO_FRAMES", -1, "was not able to find any frames");
  return frames;
}

/**
 * Holocene frame-queue pruning (op-node `pruneFrameQueue`; holocene/derivation.md#frame-queue):
 * keeps only frames that continue a channel in order. For each adjacent pair in the queue:
 * - same channel: the next frame is dropped if the current one closed the channel or the next is
 *   not current+1;
 * - different channel: a first frame (number 0) evicts the current frame if that channel is still
 *   open (and, stepping back, earlier frames of it); a non-first frame of another channel is dropped.
 * Returns a new array; the input is not modified.
 */
export function pruneFramesHolocene(frames: readonly Frame[]): Frame[] {
  const q = frames.slice();
  let i = 0;
  while (i < q.length - 1) {
    const current = q[i];
    const next = q[i + 1];
    if (equalBytes(current.channelId, next.channelId)) {
      if (current.isLast || next.frameNumber !== current.frameNumber + 1) {
        q.splice(i + 1, 1);
        continue;
      }
    } else {
      if (next.frameNumber === 0 && !current.isLast) {
        q.splice(i, 1);
        if (i > 0) i--;
        continue;
      }
      if (next.frameNumber !== 0) {
        q.splice(i + 1, 1);
        continue;
      }
    }
    i++;
  }
  return q;
}
