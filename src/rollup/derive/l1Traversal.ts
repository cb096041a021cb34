/**
 * L1 traversal, the innermost stage (SPEC: protocol/derivation.md#l1-traversal; op-node
 * derive/l1_traversal.go): walks L1 one block at a time, detects a reorg when the next block's parent
 * is not the current block (a reset), and applies each block's SystemConfig `ConfigUpdate` logs to
 * its own copy of the system config, which authenticates the batcher of the next block's data.
 */
import type { Receipt } from "../../block/receipt.js";
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { RollupConfig } from "../config/rollupConfig.js";
import type { L1BlockRef } from "../refs.js";
import { EOF, resetError, temporaryError } from "./errors.js";
import { applyConfigUpdateLogs, type SystemConfig } from "./systemConfig.js";

/** The L1 reads traversal needs; `l1BlockRefByNumber` answers null beyond what is visible yet. */
export interface L1BlockSource {
  l1BlockRefByNumber(n: number): Promise<L1BlockRef | null>;
  receiptsByHash(hash: Uint8Array): Promise<readonly Receipt[]>;
}

export class L1Traversal {
  private block: L1BlockRef;
  private done = false;
  private sysConfig: SystemConfig;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly l1: L1BlockSource,
    base: L1BlockRef,
    sysConfig: SystemConfig,
    private readonly warn: (msg: string) => void = () => undefined,
  ) {
    this.block = base;
    this.sysConfig = sysConfig;
  }

  origin(): L1BlockRef {
    return this.block;
  }

  /** The system config as of the current origin (batcher authentication). */
  systemConfig(): SystemConfig {
    return this.sysConfig;
  }

  /** The current block once, then EOF until `advance` moves on. */
  nextL1Block(): L1BlockRef | typeof EOF {
    if (this.done) return EOF;
    this.done = true;
    return this.block;
  }

  /**
   * Moves to the next L1 block. EOF when it is not visible yet; a reset error when it does not
   * build on the current block; temporary errors on fetch failures.
   */
  async advance(): Promise<typeof EOF | null> {
    const origin = this.block;
    let next: L1BlockRef | null;
    try {
      next = await this.l1.l1BlockRefByNumber(origin.number + 1);
    } catch (e) {
      throw temporaryError(`failed to find L1 block ${origin.number + 1}: ${(e as Error).message}`, e);
    }
    if (next === null) return EOF;
    if (!equalBytes(next.parentHash, origin.hash)) {
      throw resetError(
        `detected L1 reorg from ${origin.number} (${bytesToHex(origin.hash)}) to ${next.number} with conflicting parent ${bytesToHex(next.parentHash)}`,
      );
    }
    let receipts: readonly Receipt[];
    try {
      receipts = await this.l1.receiptsByHash(next.hash);
    } catch (e) {
      throw temporaryError(`failed to fetch receipts of L1 block ${next.number}: ${(e as Error).message}`, e);
    }
    const r = applyConfigUpdateLogs(this.sysConfig, receipts, this.cfg.l1SystemConfigAddress, this.cfg, next.timestamp);
    for (const w of r.warnings) this.warn(w);
    this.sysConfig = r.config;
    this.block = next;
    this.done = false;
    return null;
  }

  reset(base: L1BlockRef, sysConfig: SystemConfig): void {
    this.block = base;
    this.sysConfig = sysConfig;
    this.done = false;
  }
}
