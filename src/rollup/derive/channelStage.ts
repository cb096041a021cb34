/**
 * Channels and the batches in them (SPEC: protocol/derivation.md#channel-bank, #channel-reader;
 * holocene/derivation.md#channel-assembler; op-node derive/channel_mux.go, channel_bank.go,
 * channel_assembler.go, channel_in_reader.go): before Holocene frames go to the channel bank, from
 * Holocene (by the L1 origin's time; both are emptied at the switch) to the single-channel assembler.
 * A completed channel is decompressed (brotli from Fjord) and its batches decoded one by one; a batch
 * that does not decode, or a span batch before Delta, drops the rest of its channel. Each batch is
 * tagged with the L1 origin the channel was read at (its inclusion block).
 */

import { bytesToHex } from "../../primitives/hex.js";
import { isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { L1BlockRef } from "../refs.js";
import { decodeBatch } from "./batch.js";
import { BatchDecodeError } from "./batchErrors.js";
import type { BatchSource } from "./batchQueue.js";
import { BatchType, type BatchWithInclusion } from "./batchTypes.js";
import { ChannelAssembler } from "./channelAssembler.js";
import { ChannelBank, type RawChannel } from "./channelBank.js";
import { readChannelBatches } from "./channelReader.js";
import { EOF, NOT_ENOUGH_DATA, type StageSignal } from "./errors.js";
import type { FrameQueue } from "./frameQueue.js";

export type StageWarn = (msg: string, ctx?: Record<string, unknown>) => void;

export class ChannelStage implements BatchSource {
  private readonly bank: ChannelBank;
  private readonly assembler: ChannelAssembler;
  private holocene: boolean | null = null;
  /** Sees each decoded batch's type (the derived_batches metric). */
  onBatch: ((type: "singular" | "span") => void) | null = null;
  /** Undecoded batches of the channel being read, with its inclusion block. */
  private current: { batches: Uint8Array[]; next: number; inclusion: L1BlockRef; id: string } | null = null;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly frames: FrameQueue,
    private readonly warn: StageWarn = () => undefined,
  ) {
    this.bank = new ChannelBank(cfg);
    this.assembler = new ChannelAssembler(cfg);
  }

  origin(): L1BlockRef {
    return this.frames.origin();
  }

  async nextBatch(): Promise<BatchWithInclusion | StageSignal> {
    const cur = this.current;
    if (cur !== null) {
      if (cur.next >= cur.batches.length) {
        this.current = null;
        return NOT_ENOUGH_DATA;
      }
      const data = cur.batches[cur.next++]!;
      const origin = this.origin();
      let batch: BatchWithInclusion["batch"];
      try {
        batch = decodeBatch(data, {
          genesisL2Time: this.cfg.genesis.l2Time,
          blockTime: this.cfg.blockTime,
          l2ChainId: this.cfg.l2ChainId,
        });
      } catch (e) {
        // A batch that does not decode drops the rest of its channel; a span batch that decodes but
        // cannot be derived (bad tx fields) drops only itself (op-node ChannelInReader, kona).
        if (e instanceof BatchDecodeError && e.phase === "derive") {
          this.warn("failed to derive span batch, dropping it", { channel: cur.id, err: e.message });
          return NOT_ENOUGH_DATA;
        }
        this.warn("failed to read batch from channel, skipping to next channel", {
          channel: cur.id,
          err: (e as Error).message,
        });
        this.current = null;
        return NOT_ENOUGH_DATA;
      }
      if (batch.type === BatchType.Span && !isForkActive(this.cfg, "delta", origin.timestamp)) {
        this.warn("cannot accept span batch before Delta, skipping to next channel", {
          channel: cur.id,
          origin: origin.number,
        });
        this.current = null;
        return NOT_ENOUGH_DATA;
      }
      this.onBatch?.(batch.type === BatchType.Span ? "span" : "singular");
      return { batch, inclusionBlock: cur.inclusion };
    }
    const ch = await this.nextChannel();
    if (typeof ch === "symbol") return ch;
    const origin = this.origin();
    const read = readChannelBatches(ch.data, { fjord: isForkActive(this.cfg, "fjord", origin.timestamp) });
    if (read.error !== undefined) {
      this.warn("channel data ended with an error; keeping the batches before it", {
        channel: bytesToHex(ch.id),
        batches: read.batches.length,
        err: read.error,
      });
    }
    this.current = { batches: read.batches, next: 0, inclusion: ch.inclusionBlock, id: bytesToHex(ch.id) };
    return NOT_ENOUGH_DATA;
  }

  /** The next completed channel, EOF when the L1 block is exhausted, or NOT_ENOUGH_DATA after a frame. */
  private async nextChannel(): Promise<RawChannel | StageSignal> {
    const origin = this.origin();
    const holocene = isForkActive(this.cfg, "holocene", origin.timestamp);
    if (this.holocene !== holocene) {
      if (this.holocene !== null) {
        this.bank.reset();
        this.assembler.reset();
      }
      this.holocene = holocene;
    }
    if (!holocene) {
      const ready = this.bank.read(origin);
      if (ready !== null) return ready;
    }
    const frame = await this.frames.nextFrame();
    if (frame === EOF || frame === NOT_ENOUGH_DATA) return frame;
    if (!holocene) {
      const r = this.bank.ingestFrame(frame, origin);
      if (r !== "ADDED")
        this.warn("frame dropped by the channel bank", { reason: r, channel: bytesToHex(frame.channelId) });
      return NOT_ENOUGH_DATA;
    }
    const r = this.assembler.ingestFrame(frame, origin);
    if (r.status === "COMPLETED") return r.channel;
    if (r.status !== "ADDED") {
      this.warn("frame dropped by the channel assembler", {
        reason: r.status === "REJECTED" ? r.reason : r.status,
        channel: bytesToHex(frame.channelId),
      });
    }
    return NOT_ENOUGH_DATA;
  }

  /** Holocene fast channel invalidation: the rest of the channel being read is dropped. */
  flushChannel(): void {
    this.current = null;
  }

  reset(): void {
    this.bank.reset();
    this.assembler.reset();
    this.current = null;
    this.holocene = null;
    this.frames.reset();
  }
}
