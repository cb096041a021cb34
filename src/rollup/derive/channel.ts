/**
 * A channel being assembled from frames (SPEC: specs/protocol/derivation.md#channel-bank; op-stack.md
 * §2.4; op-node rollup/derive/channel.go). Frames may arrive out of order (pre-Holocene) or must
 * arrive in order (`requireInOrder`, the Holocene channel assembler). The rules are consensus:
 *
 * - a frame of another channel is rejected;
 * - a second closing frame is rejected;
 * - a duplicate frame number is rejected (the first one stays);
 * - once closed, frame numbers at or above the closing frame's are rejected;
 * - a closing frame prunes already-buffered frames with higher numbers;
 * - in order: the frame number must equal the number of buffered frames.
 *
 * `size()` is op-node's memory estimate (`len(data) + 200` per frame) that the channel bank prunes
 * by. op-node's closing-frame pruning subtracts the size of *every* buffered frame (also the ones it
 * keeps); that quirk changes which channels the bank prunes, so it is reproduced here.
 */
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { type L1BlockRef, ZERO_L1_REF } from "../refs.js";
import { type Frame, frameSize } from "./frame.js";

export type AddFrameError = "ID_MISMATCH" | "CHANNEL_CLOSED" | "DUPLICATE_FRAME" | "BEYOND_END_FRAME" | "OUT_OF_ORDER";

export class Channel {
  private readonly inputs = new Map<number, Frame>();
  private estimatedSize = 0;
  private closed = false;
  private highestFrameNumber = 0;
  private endFrameNumber = 0;
  private highestInclusion: L1BlockRef = ZERO_L1_REF;

  constructor(
    /** 16 bytes. */
    readonly id: Uint8Array,
    /** The L1 block holding the channel's first ingested frame: timeouts count from it. */
    readonly openBlock: L1BlockRef,
    readonly requireInOrder = false,
  ) {}

  /** Buffers `frame`, or returns why it was rejected (the channel is then unchanged). */
  addFrame(frame: Frame, l1InclusionBlock: L1BlockRef): AddFrameError | null {
    if (!equalBytes(frame.channelId, this.id)) return "ID_MISMATCH";
    if (frame.isLast && this.closed) return "CHANNEL_CLOSED";
    if (this.inputs.has(frame.frameNumber)) return "DUPLICATE_FRAME";
    if (this.closed && frame.frameNumber >= this.endFrameNumber) return "BEYOND_END_FRAME";
    if (this.requireInOrder && frame.frameNumber !== this.inputs.size) return "OUT_OF_ORDER";

    if (frame.isLast) {
      this.endFrameNumber = frame.frameNumber;
      this.closed = true;
      if (this.endFrameNumber < this.highestFrameNumber) {
        for (const [n, f] of this.inputs) {
          if (n >= this.endFrameNumber) this.inputs.delete(n);
          // op-node subtracts every buffered frame here, kept or not (see the file comment).
          this.estimatedSize -= frameSize(f);
        }
        this.highestFrameNumber = this.endFrameNumber;
      }
    }
    if (frame.frameNumber > this.highestFrameNumber) this.highestFrameNumber = frame.frameNumber;
    if (this.highestInclusion.number < l1InclusionBlock.number) this.highestInclusion = l1InclusionBlock;
    this.inputs.set(frame.frameNumber, frame);
    this.estimatedSize += frameSize(frame);
    return null;
  }

  /** Closed and holding every frame 0..last. */
  isReady(): boolean {
    if (!this.closed) return false;
    if (this.inputs.size !== this.endFrameNumber + 1) return false;
    for (let i = 0; i <= this.endFrameNumber; i++) if (!this.inputs.has(i)) return false;
    return true;
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Estimated memory size: `len(data) + 200` per buffered frame (with op-node's pruning quirk). */
  size(): number {
    return this.estimatedSize;
  }

  frameCount(): number {
    return this.inputs.size;
  }

  openBlockNumber(): number {
    return this.openBlock.number;
  }

  /**
   * The highest L1 block (by number) that contributed a frame: for a ready channel, the block in
   * which it became complete. The zero ref before any frame (op-node's zero value).
   */
  highestL1InclusionBlock(): L1BlockRef {
    return this.highestInclusion;
  }

  /** The channel data (frame data 0..last concatenated), or null while the channel is not ready. */
  assemble(): Uint8Array | null {
    if (!this.isReady()) return null;
    let total = 0;
    for (let i = 0; i <= this.endFrameNumber; i++) total += this.inputs.get(i)!.data.length;
    const out = new Uint8Array(total);
    let pos = 0;
    for (let i = 0; i <= this.endFrameNumber; i++) {
      const d = this.inputs.get(i)!.data;
      out.set(d, pos);
      pos += d.length;
    }
    return out;
  }

  idHex(): string {
    return bytesToHex(this.id);
  }
}
