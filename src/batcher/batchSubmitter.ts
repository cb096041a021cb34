/**
 * The batch submitter loop (op-batcher driver.go + channel_manager.go, simplified to one channel at
 * a time): every poll it reads the rollup node's sync status, loads the unsafe L2 blocks after the
 * last one submitted (from the safe head at startup, or from the state file when that block is
 * still canonical, so a restart neither loses nor repeats blocks), and when a channel is due —
 * full, open for `maxChannelDuration` L1 blocks, or its first block's L1 origin close to the end of
 * the sequencing window — sends its frames to the batch inbox as calldata or blobs and waits for
 * them. An L2 reorg under the loaded blocks, or a failed transaction, rewinds to the safe head.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { equalBytes } from "../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { isForkActive, type RollupConfig } from "../rollup/config/rollupConfig.js";
import { MAX_BLOB_DATA_SIZE } from "../rollup/derive/blobCodec.js";
import type { CompressionAlgo } from "../rollup/derive/channelReader.js";
import { encodeFramesTxData } from "../rollup/derive/frame.js";
import type { EngineClient } from "../rollup/engine/engineClient.js";
import type { RpcTransport } from "../rollup/transport/rpcTransport.js";
import type { Logger } from "../util/log.js";
import { timerDelay } from "../util/timers.js";
import { type BlockBatch, fillChannel, framesOf } from "./channelOut.js";
import type { TxSender } from "./txSender.js";

export type DaType = "calldata" | "blobs" | "auto";

export interface SubmitterOptions {
  readonly maxChannelDuration: number;
  readonly subSafetyMargin: number;
  readonly targetNumFrames: number;
  readonly maxL1TxSize: number;
  readonly algo: CompressionAlgo;
  readonly span: boolean;
  readonly da: DaType;
  readonly pollMs: number;
  /** Where the last submitted block is kept across restarts; null = not kept. */
  readonly stateFile: string | null;
}

interface RefJson {
  hash: string;
  number: number;
  l1origin?: { number: number };
}

interface StatusJson {
  head_l1: RefJson;
  safe_l2: RefJson;
  unsafe_l2: RefJson;
}

/**
 * Frame overhead on the wire: version byte + 23 bytes of frame header, so a one-frame batcher tx of
 * `--max-l1-tx-size-bytes` (or a blob's 130,044 bytes) carries that many bytes minus this of channel data.
 */
export const FRAME_WIRE_OVERHEAD = 24;
const BLOBS_PER_TX = 6;

export class BatchSubmitter {
  private loaded: BlockBatch[] = [];
  /** The last block whose batch is on L1 (number and hash), or null before the first. */
  private submitted: { number: number; hash: Uint8Array } | null = null;
  /** L1 head number when the first pending block was loaded (channel duration). */
  private openedAt: number | null = null;
  private stopped = false;
  private loop: Promise<void> | null = null;
  readonly counters = { channels: 0, frames: 0, blocks: 0, rewinds: 0 };

  constructor(
    private readonly cfg: RollupConfig,
    private readonly opts: SubmitterOptions,
    private readonly deps: { rollup: RpcTransport; l2: EngineClient; sender: TxSender; log: Logger },
  ) {
    this.submitted = this.readState();
  }

  private readState(): { number: number; hash: Uint8Array } | null {
    if (this.opts.stateFile === null) return null;
    try {
      const j = JSON.parse(readFileSync(this.opts.stateFile, "utf8")) as { number: number; hash: string };
      return { number: j.number, hash: hexToBytes(j.hash) };
    } catch {
      return null;
    }
  }

  private writeState(): void {
    if (this.opts.stateFile === null || this.submitted === null) return;
    const tmp = `${this.opts.stateFile}.tmp`;
    writeFileSync(tmp, JSON.stringify({ number: this.submitted.number, hash: bytesToHex(this.submitted.hash) }));
    renameSync(tmp, this.opts.stateFile);
  }

  private rewind(why: string): void {
    this.deps.log.warn("batcher rewinds to the safe head", { reason: why });
    this.loaded = [];
    this.submitted = null;
    this.openedAt = null;
    this.counters.rewinds++;
    this.deps.sender.resetNonce();
  }

  /** One poll: load new blocks, submit a channel when one is due. Throws on RPC failures. */
  async step(): Promise<"submitted" | "waiting"> {
    const s = await this.deps.rollup.call<StatusJson>("optimism_syncStatus");
    const safe = s.safe_l2;
    // Start point: the state file's block if still canonical and not behind safe, else safe.
    if (this.submitted !== null && this.submitted.number > safe.number && this.loaded.length === 0) {
      const b = await this.deps.l2.block(this.submitted.number);
      if (b === null || !equalBytes(b.ref.hash, this.submitted.hash))
        this.rewind("the last submitted block was reorged");
    }
    if (this.submitted === null || this.submitted.number < safe.number) {
      this.submitted = { number: safe.number, hash: hexToBytes(safe.hash) };
      this.loaded = this.loaded.filter((b) => b.number > safe.number);
    }
    let next = (this.loaded.at(-1)?.number ?? this.submitted.number) + 1;
    let parentHash = this.loaded.at(-1)?.hash ?? this.submitted.hash;
    for (; next <= s.unsafe_l2.number; next++) {
      const b = await this.deps.l2.mustBlock(next);
      if (!equalBytes(b.ref.parentHash, parentHash)) {
        this.rewind(`L2 reorg at block ${next}`);
        return "waiting";
      }
      const txs = (await this.deps.l2.transactionsByNumber(next)).filter((t) => t[0] !== 0x7e);
      this.loaded.push({
        number: next,
        hash: b.ref.hash,
        sequenceNumber: b.ref.sequenceNumber,
        batch: {
          parentHash: b.ref.parentHash,
          epochNum: b.ref.l1origin.number,
          epochHash: b.ref.l1origin.hash,
          timestamp: b.ref.timestamp,
          transactions: txs,
        },
      });
      parentHash = b.ref.hash;
      if (this.openedAt === null) this.openedAt = s.head_l1.number;
    }
    if (this.loaded.length === 0) return "waiting";
    const blobs = this.useBlobs();
    const frameData = (blobs ? MAX_BLOB_DATA_SIZE : this.opts.maxL1TxSize) - FRAME_WIRE_OVERHEAD;
    const maxBytes = frameData * this.opts.targetNumFrames;
    const head = s.head_l1.number;
    const first = this.loaded[0]!;
    const fjord = isForkActive(this.cfg, "fjord", first.batch.timestamp);
    const channelOpts = {
      span: this.opts.span && isForkActive(this.cfg, "delta", first.batch.timestamp),
      algo: this.opts.algo === "brotli" && fjord ? ("brotli" as const) : ("zlib" as const),
      maxFrameData: frameData,
      genesisL2Time: this.cfg.genesis.l2Time,
      l2ChainId: this.cfg.l2ChainId,
    };
    const durationDue =
      this.opts.maxChannelDuration > 0 && head - (this.openedAt ?? head) >= this.opts.maxChannelDuration;
    const windowDue = first.batch.epochNum + this.cfg.seqWindowSize - this.opts.subSafetyMargin <= head;
    const filled = fillChannel(this.loaded, maxBytes, channelOpts, durationDue || windowDue);
    if (filled.data === null || (!filled.full && !durationDue && !windowDue)) return "waiting";
    const frames = framesOf(filled.data, frameData);
    try {
      if (blobs) {
        for (let i = 0; i < frames.length; i += BLOBS_PER_TX) {
          const payloads = frames.slice(i, i + BLOBS_PER_TX).map((f) => encodeFramesTxData([f]));
          await this.deps.sender.sendBlobs(this.cfg.batchInboxAddress, payloads);
        }
      } else {
        for (const f of frames)
          await this.deps.sender.sendCalldata(this.cfg.batchInboxAddress, encodeFramesTxData([f]));
      }
    } catch (e) {
      this.rewind((e as Error).message);
      throw e;
    }
    const last = filled.blocks.at(-1)!;
    this.submitted = { number: last.number, hash: last.hash };
    this.writeState();
    this.loaded = this.loaded.slice(filled.blocks.length);
    this.openedAt = this.loaded.length === 0 ? null : head;
    this.counters.channels++;
    this.counters.frames += frames.length;
    this.counters.blocks += filled.blocks.length;
    this.deps.log.info("submitted channel", {
      blocks: `${filled.blocks[0]!.number}-${last.number}`,
      frames: frames.length,
      bytes: filled.data.length,
      da: blobs ? "blobs" : "calldata",
    });
    return "submitted";
  }

  private useBlobs(): boolean {
    if (this.opts.da === "calldata") return false;
    if (this.opts.da === "blobs") return true;
    // auto: blobs from Ecotone (cheaper at any realistic blob fee for full channels).
    return isForkActive(this.cfg, "ecotone", this.loaded[0]?.batch.timestamp ?? 0);
  }

  start(): void {
    if (this.loop !== null) return;
    this.loop = (async () => {
      while (!this.stopped) {
        let r: "submitted" | "waiting" = "waiting";
        try {
          r = await this.step();
        } catch (e) {
          this.deps.log.warn("batcher step failed, retrying", { err: (e as Error).message });
        }
        if (r === "waiting" && !this.stopped) await new Promise((res) => setTimeout(res, timerDelay(this.opts.pollMs)));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}
