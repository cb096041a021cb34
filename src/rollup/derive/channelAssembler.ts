/**
 * The Holocene channel stage (SPEC: specs/protocol/holocene/derivation.md#channel-bank; op-stack.md
 * §2.4; op-node rollup/derive/channel_assembler.go), replacing the channel bank from Holocene on. It
 * holds at most one staging channel, fed by the Holocene-pruned frame queue (`pruneFramesHolocene`):
 *
 * - a first frame (number 0) always opens a new staging channel, evicting an unfinished one;
 * - a non-first frame without a staging channel is dropped;
 * - frames must continue the staging channel in order (the channel's `requireInOrder` rules);
 * - a staging channel whose `size()` exceeds `MAX_RLP_BYTES_PER_CHANNEL` (100M from Fjord, which
 *   Holocene implies) is dropped;
 * - the staging channel times out like in the bank (`open.number + timeout < origin.number`),
 *   checked before each frame;
 * - a closing frame completes the channel, which is handed out at once.
 */
import { isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { L1BlockRef } from "../refs.js";
import { type AddFrameError, Channel } from "./channel.js";
import { isChannelTimedOut, type RawChannel } from "./channelBank.js";
import { maxRlpBytesPerChannel } from "./channelReader.js";
import type { Frame } from "./frame.js";

/** What the assembler did with a frame. */
export type AssembleResult =
  | { readonly status: "COMPLETED"; readonly channel: RawChannel }
  | { readonly status: "ADDED" }
  | { readonly status: "NO_CHANNEL" }
  | { readonly status: "OVERSIZED" }
  | { readonly status: "REJECTED"; readonly reason: AddFrameError };

export class ChannelAssembler {
  private staging: Channel | null = null;

  constructor(readonly cfg: RollupConfig) {}

  /** The staging channel, if any. */
  channel(): Channel | null {
    return this.staging;
  }

  /** Drops the staging channel when it has timed out at `origin`; returns whether it did. */
  checkTimeout(origin: L1BlockRef): boolean {
    if (this.staging === null || !isChannelTimedOut(this.cfg, this.staging, origin)) return false;
    this.staging = null;
    return true;
  }

  /** Feeds one frame seen in the L1 block `origin`. */
  ingestFrame(frame: Frame, origin: L1BlockRef): AssembleResult {
    this.checkTimeout(origin);
    if (frame.frameNumber === 0) this.staging = new Channel(frame.channelId, origin, true);
    const ch = this.staging;
    if (ch === null) return { status: "NO_CHANNEL" };
    const err = ch.addFrame(frame, origin);
    if (err !== null) return { status: "REJECTED", reason: err };
    const limit = maxRlpBytesPerChannel(isForkActive(this.cfg, "fjord", origin.timestamp));
    if (ch.size() > limit) {
      this.staging = null;
      return { status: "OVERSIZED" };
    }
    if (!frame.isLast) return { status: "ADDED" };
    this.staging = null;
    const data = ch.assemble()!;
    return {
      status: "COMPLETED",
      channel: {
        id: ch.id,
        data,
        inclusionBlock: origin,
        openBlock: ch.openBlock,
        completedBlock: ch.highestL1InclusionBlock(),
      },
    };
  }

  reset(): void {
    this.staging = null;
  }
}
