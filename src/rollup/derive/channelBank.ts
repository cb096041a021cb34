/**
 * The pre-Holocene channel bank (SPEC: specs/protocol/derivation.md#channel-bank; op-stack.md §2.4;
 * op-node rollup/derive/channel_bank.go): channels in FIFO order of their first frame, frames added
 * out of order, a size cap that prunes the oldest channels, and timeouts.
 *
 * - Ingest: a frame of an unknown channel opens it at the current L1 origin. A frame of a timed-out
 *   channel (`open.number + timeout < origin.number`) is dropped; so is a frame the channel rejects.
 *   After a frame is added, channels are pruned oldest first while the total `size()` exceeds
 *   `MAX_CHANNEL_BANK_SIZE` (100M; 1G from Fjord, by the origin's timestamp).
 * - Read: timed-out channels at the head of the queue are dropped. Before Canyon only the head
 *   channel may be read; from Canyon (by the origin's timestamp) the first ready, non-timed-out
 *   channel in FIFO order is read. A read channel leaves the bank.
 *
 * The timeout is `channelTimeoutAt(cfg, origin.timestamp)` (Granite switches it to 50). op-node
 * reads before it ingests (`NextData`); callers keep that order: drain `read` for an origin, then feed
 * the next frame, and again.
 */
import { bytesKey } from "../../primitives/bytes.js";
import { channelTimeoutAt, isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { L1BlockRef } from "../refs.js";
import { type AddFrameError, Channel } from "./channel.js";
import type { Frame } from "./frame.js";

/** Channel bank size cap before Fjord (op-node `MaxChannelBankSize`). */
export const MAX_CHANNEL_BANK_SIZE_BEDROCK = 100_000_000;
/** From Fjord on. */
export const MAX_CHANNEL_BANK_SIZE_FJORD = 1_000_000_000;

export function maxChannelBankSize(cfg: RollupConfig, l1Timestamp: number): number {
  return isForkActive(cfg, "fjord", l1Timestamp) ? MAX_CHANNEL_BANK_SIZE_FJORD : MAX_CHANNEL_BANK_SIZE_BEDROCK;
}

/** A channel's data as it leaves the bank or the assembler. */
export interface RawChannel {
  /** 16 bytes. */
  readonly id: Uint8Array;
  /** Compressed channel data: frame data 0..last concatenated. */
  readonly data: Uint8Array;
  /**
   * The L1 origin the channel was read at: the inclusion block of every batch in it (op-node's batch
   * queue stamps batches with its origin).
   */
  readonly inclusionBlock: L1BlockRef;
  /** The L1 block of the channel's first frame. */
  readonly openBlock: L1BlockRef;
  /** The highest L1 block that added a frame: where the channel became complete. */
  readonly completedBlock: L1BlockRef;
}

/** What `ingestFrame` did with a frame. */
export type IngestResult = "ADDED" | "TIMED_OUT" | AddFrameError;

export function isChannelTimedOut(cfg: RollupConfig, ch: Channel, origin: L1BlockRef): boolean {
  return ch.openBlockNumber() + channelTimeoutAt(cfg, origin.timestamp) < origin.number;
}

export class ChannelBank {
  private readonly channels = new Map<string, Channel>();
  /** Channel keys in FIFO order. */
  private queue: string[] = [];

  constructor(readonly cfg: RollupConfig) {}

  /** Adds a frame seen in the L1 block `origin`; prunes the bank if the frame was added. */
  ingestFrame(frame: Frame, origin: L1BlockRef): IngestResult {
    const key = bytesKey(frame.channelId);
    let ch = this.channels.get(key);
    if (ch === undefined) {
      ch = new Channel(frame.channelId, origin);
      this.channels.set(key, ch);
      this.queue.push(key);
    }
    if (isChannelTimedOut(this.cfg, ch, origin)) return "TIMED_OUT";
    const err = ch.addFrame(frame, origin);
    if (err !== null) return err;
    this.prune(origin);
    return "ADDED";
  }

  /** The next channel to decode at `origin`, or null when none is ready (op-node `io.EOF`). */
  read(origin: L1BlockRef): RawChannel | null {
    while (this.queue.length > 0) {
      const first = this.channels.get(this.queue[0])!;
      if (!isChannelTimedOut(this.cfg, first, origin)) break;
      this.channels.delete(this.queue[0]);
      this.queue.shift();
    }
    if (this.queue.length === 0) return null;
    if (!isForkActive(this.cfg, "canyon", origin.timestamp)) return this.tryReadAt(0, origin);
    for (let i = 0; i < this.queue.length; i++) {
      const out = this.tryReadAt(i, origin);
      if (out !== null) return out;
    }
    return null;
  }

  /** Drops every channel (pipeline reset, Holocene activation). */
  reset(): void {
    this.channels.clear();
    this.queue = [];
  }

  /** Sum of the channels' `size()`. */
  totalSize(): number {
    let total = 0;
    for (const ch of this.channels.values()) total += ch.size();
    return total;
  }

  channelCount(): number {
    return this.queue.length;
  }

  /** Channel ids in FIFO order. */
  channelIds(): Uint8Array[] {
    return this.queue.map((k) => this.channels.get(k)!.id);
  }

  getChannel(id: Uint8Array): Channel | undefined {
    return this.channels.get(bytesKey(id));
  }

  private tryReadAt(i: number, origin: L1BlockRef): RawChannel | null {
    const key = this.queue[i];
    const ch = this.channels.get(key)!;
    if (isChannelTimedOut(this.cfg, ch, origin)) return null;
    const data = ch.assemble();
    if (data === null) return null;
    this.channels.delete(key);
    this.queue.splice(i, 1);
    return {
      id: ch.id,
      data,
      inclusionBlock: origin,
      openBlock: ch.openBlock,
      completedBlock: ch.highestL1InclusionBlock(),
    };
  }

  private prune(origin: L1BlockRef): void {
    const max = maxChannelBankSize(this.cfg, origin.timestamp);
    let total = this.totalSize();
    while (total > max && this.queue.length > 0) {
      const key = this.queue.shift()!;
      total -= this.channels.get(key)!.size();
      this.channels.delete(key);
    }
  }
}
