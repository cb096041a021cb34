/**
 * Batch validity (SPEC: specs/protocol/derivation.md#batch-queue, delta/span-batches.md#batch-queue,
 * holocene/derivation.md#span-batches and #batch-queue, isthmus/derivation.md#activation,
 * jovian/derivation.md#activation-block-rules, interop/derivation.md#activation-block; op-stack.md
 * §2.7, §2.13; op-node rollup/derive/batches.go; kona protocol/src/batch/{single,span}.rs).
 *
 * The checks log nothing: each returns a validity and a short reason for the caller to log.
 * `l1Blocks[0]` is the L1 origin of the safe head (the current epoch), followed by the L1 blocks
 * known after it, consecutive. Pre-Holocene versus Holocene rules (`future` versus drop, drop versus
 * `past`) are selected by the timestamp of the L1 inclusion block, as the Holocene spec requires.
 *
 * Transaction rule (SPEC derivation.md "any transaction of a future type > 2", isthmus "type 4 from
 * Isthmus at the batch timestamp"): allowed are legacy (first byte ≥ 0xc0), 0x01, 0x02, and 0x04
 * when Isthmus is active at the block's timestamp; empty data, deposits (0x7e) and every other
 * first byte drop the batch. op-node/kona only test for empty, 0x7e and pre-Isthmus 0x04.
 */
import { equalBytes } from "../../primitives/bytes.js";
import { isForkActivationBlock, isForkActive, maxSequencerDriftAt, type RollupConfig } from "../config/rollupConfig.js";
import type { L1BlockRef, L2BlockRef } from "../refs.js";
import { type Batch, BatchType, type SingularBatch, type SpanBatch } from "./batchTypes.js";

export enum BatchValidity {
  /** Invalid, and stays invalid unless L1 reorgs: discard it. */
  Drop = 0,
  /** Valid: apply it now. */
  Accept = 1,
  /** Missing L1 (or L2) information: check again later. */
  Undecided = 2,
  /** Pre-Holocene only: may become valid once the safe head catches up; keep it. */
  Future = 3,
  /** Holocene only: at or before the safe head; discard silently (no channel flush). */
  Past = 4,
}

export interface BatchCheck {
  readonly validity: BatchValidity;
  /** Why, for the caller's log line ("" on accept). */
  readonly reason: string;
}

/** Result of the span batch prefix check: on accept, `parent` is the L2 block the span builds on. */
export interface SpanPrefixCheck extends BatchCheck {
  readonly parent: L2BlockRef | null;
}

/** Read access to the local safe L2 chain, for span batches that overlap it. */
export interface L2Reader {
  l2BlockRefByNumber(n: number): Promise<L2BlockRef>;
  /** The block's EIP-2718 transactions, deposits included. */
  transactionsByNumber(n: number): Promise<readonly Uint8Array[]>;
}

const DEPOSIT_TX_TYPE = 0x7e;
const SET_CODE_TX_TYPE = 0x04;
/** First bytes of an EIP-2718 envelope are 0x00..0x7f; an RLP list (legacy tx) starts at 0xc0. */
const LEGACY_TX_MIN_FIRST_BYTE = 0xc0;
/** Span batch checks compare the first 20 bytes of a hash. */
const CHECK_BYTES = 20;

const ACCEPT: BatchCheck = Object.freeze({ validity: BatchValidity.Accept, reason: "" });

function drop(reason: string): BatchCheck {
  return { validity: BatchValidity.Drop, reason };
}

function undecided(reason: string): BatchCheck {
  return { validity: BatchValidity.Undecided, reason };
}

function prefixDrop(reason: string, parent: L2BlockRef | null = null): SpanPrefixCheck {
  return { validity: BatchValidity.Drop, reason, parent };
}

function prefixOf(c: BatchCheck, parent: L2BlockRef | null = null): SpanPrefixCheck {
  return { validity: c.validity, reason: c.reason, parent };
}

/** `check` (20 bytes) equals the first 20 bytes of `hash`. */
function matchesPrefix(check: Uint8Array, hash: Uint8Array): boolean {
  if (check.length !== CHECK_BYTES || hash.length < CHECK_BYTES) return false;
  for (let i = 0; i < CHECK_BYTES; i++) if (check[i] !== hash[i]) return false;
  return true;
}

function isHolocene(cfg: RollupConfig, inclusion: L1BlockRef): boolean {
  return isForkActive(cfg, "holocene", inclusion.timestamp);
}

/**
 * The rules every block's sequencer transactions obey (shared by singular and span batches): no user
 * transactions in the Jovian, Karst or Interop activation block (Karst: op-node batches.go as of
 * optimism #19220, kona #19372 "rejects non-empty batches on activation"), then per transaction:
 * non-empty, not a deposit, a type allowed at `timestamp`. Returns null when they pass.
 */
export function checkSequencerTxs(cfg: RollupConfig, timestamp: number, txs: readonly Uint8Array[]): BatchCheck | null {
  if (txs.length === 0) return null;
  if (isForkActivationBlock(cfg, "jovian", timestamp)) return drop("transactions in the Jovian activation block");
  if (isForkActivationBlock(cfg, "karst", timestamp)) return drop("transactions in the Karst activation block");
  if (isForkActivationBlock(cfg, "interop", timestamp)) return drop("transactions in the Interop activation block");
  const isthmus = isForkActive(cfg, "isthmus", timestamp);
  for (let i = 0; i < txs.length; i++) {
    const tx = txs[i]!;
    if (tx.length === 0) return drop(`empty transaction at index ${i}`);
    const first = tx[0]!;
    if (first >= LEGACY_TX_MIN_FIRST_BYTE || first === 0x01 || first === 0x02) continue;
    if (first === DEPOSIT_TX_TYPE) return drop(`deposit transaction at index ${i}`);
    if (first === SET_CODE_TX_TYPE) {
      if (isthmus) continue;
      return drop(`SetCode transaction before Isthmus at index ${i}`);
    }
    return drop(`unsupported transaction type 0x${first.toString(16).padStart(2, "0")} at index ${i}`);
  }
  return null;
}

/**
 * The drift rule for one block with L1 origin `origin` (index `originIdx` in `l1Blocks`): past
 * `origin.time + max_sequencer_drift` only an empty block that keeps its origin is allowed, and only
 * while the next L1 block is still later than it. Null when the block passes.
 */
function checkDrift(
  cfg: RollupConfig,
  l1Blocks: readonly L1BlockRef[],
  origin: L1BlockRef,
  originIdx: number,
  originAdvanced: boolean,
  timestamp: number,
  txCount: number,
): BatchCheck | null {
  const max = origin.timestamp + maxSequencerDriftAt(cfg, origin.timestamp);
  if (timestamp <= max) return null;
  if (txCount > 0) return drop(`timestamp ${timestamp} past the sequencer drift limit ${max} with transactions`);
  if (originAdvanced) return null;
  const next = l1Blocks[originIdx + 1];
  if (next === undefined) return undecided("empty batch past the drift limit: next L1 origin not known yet");
  if (timestamp >= next.timestamp) {
    return drop(`empty batch past the drift limit could have adopted the next L1 origin ${next.number}`);
  }
  return null;
}

/** A singular batch against the safe head (SPEC derivation.md "Rules, in validation order"). */
export function checkSingularBatch(
  cfg: RollupConfig,
  l1Blocks: readonly L1BlockRef[],
  l2SafeHead: L2BlockRef,
  batch: SingularBatch,
  inclusion: L1BlockRef,
): BatchCheck {
  const epoch = l1Blocks[0];
  if (epoch === undefined) return undecided("no L1 blocks to check against");
  const holocene = isHolocene(cfg, inclusion);
  const nextTimestamp = l2SafeHead.timestamp + cfg.blockTime;
  if (batch.timestamp > nextTimestamp) {
    if (holocene) return drop(`future batch: timestamp ${batch.timestamp} after next ${nextTimestamp}`);
    return { validity: BatchValidity.Future, reason: `timestamp ${batch.timestamp} after next ${nextTimestamp}` };
  }
  if (batch.timestamp < nextTimestamp) {
    if (holocene)
      return { validity: BatchValidity.Past, reason: `timestamp ${batch.timestamp} before next ${nextTimestamp}` };
    return drop(`old batch: timestamp ${batch.timestamp} before next ${nextTimestamp}`);
  }
  if (!equalBytes(batch.parentHash, l2SafeHead.hash)) return drop("parent hash does not match the safe head");
  if (batch.epochNum + cfg.seqWindowSize < inclusion.number) {
    return drop(`included too late: epoch ${batch.epochNum} + window ${cfg.seqWindowSize} < ${inclusion.number}`);
  }
  let batchOrigin = epoch;
  let originIdx = 0;
  if (batch.epochNum < epoch.number) return drop(`epoch ${batch.epochNum} older than the safe head's ${epoch.number}`);
  if (batch.epochNum === epoch.number + 1) {
    const next = l1Blocks[1];
    if (next === undefined) return undecided(`epoch advances to ${batch.epochNum}: next L1 block not known yet`);
    batchOrigin = next;
    originIdx = 1;
  } else if (batch.epochNum > epoch.number + 1) {
    return drop(`epoch ${batch.epochNum} more than one block past ${epoch.number}`);
  }
  if (!equalBytes(batch.epochHash, batchOrigin.hash))
    return drop(`epoch hash does not match L1 block ${batchOrigin.number}`);
  if (batch.timestamp < batchOrigin.timestamp) {
    return drop(`timestamp ${batch.timestamp} before its L1 origin's ${batchOrigin.timestamp}`);
  }
  const drift = checkDrift(
    cfg,
    l1Blocks,
    batchOrigin,
    originIdx,
    batchOrigin.number !== epoch.number,
    batch.timestamp,
    batch.transactions.length,
  );
  if (drift !== null) return drift;
  return checkSequencerTxs(cfg, batch.timestamp, batch.transactions) ?? ACCEPT;
}

/**
 * The span batch prefix checks (op-node `checkSpanBatchPrefix`; the Holocene span batch checks, and
 * the first half of the Delta rules): activation, timestamps, parent check, sequencing window, origin
 * range and `l1_origin_check`. On accept, `parent` is the safe-chain block before the span's first.
 */
export async function checkSpanBatchPrefix(
  cfg: RollupConfig,
  l1Blocks: readonly L1BlockRef[],
  l2SafeHead: L2BlockRef,
  batch: SpanBatch,
  inclusion: L1BlockRef,
  l2: L2Reader,
): Promise<SpanPrefixCheck> {
  const epoch = l1Blocks[0];
  if (epoch === undefined) return prefixOf(undecided("no L1 blocks to check against"));
  const first = batch.batches[0];
  const last = batch.batches[batch.batches.length - 1];
  if (first === undefined || last === undefined) return prefixDrop("span batch has no blocks");
  const holocene = isHolocene(cfg, inclusion);
  const startEpoch = first.epochNum;
  let batchOrigin = epoch;
  if (startEpoch === epoch.number + 1) {
    const next = l1Blocks[1];
    if (next === undefined)
      return prefixOf(undecided(`span starts at epoch ${startEpoch}: next L1 block not known yet`));
    batchOrigin = next;
  }
  if (!isForkActive(cfg, "delta", batchOrigin.timestamp)) {
    return prefixDrop(`span batch with L1 origin ${batchOrigin.number} before Delta`);
  }
  const nextTimestamp = l2SafeHead.timestamp + cfg.blockTime;
  if (first.timestamp > nextTimestamp) {
    if (holocene) return prefixDrop(`future span batch: starts at ${first.timestamp} after next ${nextTimestamp}`);
    return {
      validity: BatchValidity.Future,
      reason: `span starts at ${first.timestamp} after next ${nextTimestamp}`,
      parent: null,
    };
  }
  if (last.timestamp < nextTimestamp) {
    const reason = `span ends at ${last.timestamp} before next ${nextTimestamp}`;
    if (holocene) return { validity: BatchValidity.Past, reason, parent: null };
    return prefixDrop(`no new blocks: ${reason}`);
  }
  let parent = l2SafeHead;
  if (first.timestamp < nextTimestamp) {
    if (first.timestamp > l2SafeHead.timestamp) return prefixDrop("span start between the safe head and the next slot");
    const back = l2SafeHead.timestamp - first.timestamp;
    if (back % cfg.blockTime !== 0) return prefixDrop("span start not aligned to the safe chain's block times");
    const parentNum = l2SafeHead.number - back / cfg.blockTime - 1;
    if (parentNum < cfg.genesis.l2.number)
      return prefixDrop(`span would build on L2 block ${parentNum}, before genesis`);
    try {
      parent = await l2.l2BlockRefByNumber(parentNum);
    } catch (e) {
      return prefixOf(undecided(`cannot read L2 block ${parentNum}: ${e instanceof Error ? e.message : String(e)}`));
    }
  }
  if (!matchesPrefix(batch.parentCheck, parent.hash))
    return prefixDrop(`parent check does not match L2 block ${parent.number}`, parent);
  if (startEpoch + cfg.seqWindowSize < inclusion.number) {
    return prefixDrop(
      `included too late: epoch ${startEpoch} + window ${cfg.seqWindowSize} < ${inclusion.number}`,
      parent,
    );
  }
  if (startEpoch > parent.l1origin.number + 1) {
    return prefixDrop(
      `start epoch ${startEpoch} more than one block past the parent's ${parent.l1origin.number}`,
      parent,
    );
  }
  const endEpoch = last.epochNum;
  let endOrigin: L1BlockRef | null = null;
  for (const b of l1Blocks) {
    if (b.number === endEpoch) {
      endOrigin = b;
      break;
    }
  }
  if (endOrigin === null) return prefixOf(undecided(`end epoch ${endEpoch} not among the known L1 blocks`), parent);
  if (!matchesPrefix(batch.l1OriginCheck, endOrigin.hash)) {
    return prefixDrop(`L1 origin check does not match L1 block ${endEpoch}`, parent);
  }
  if (startEpoch < parent.l1origin.number) {
    return prefixDrop(`start epoch ${startEpoch} older than the parent's ${parent.l1origin.number}`, parent);
  }
  return { validity: BatchValidity.Accept, reason: "", parent };
}

/**
 * The full Delta span batch check (op-node `checkSpanBatch`), used pre-Holocene where a span is
 * accepted or dropped as a whole: the prefix, then every block after the safe head (origin not older
 * than the safe head's, time ≥ origin time, drift, transactions), then every block overlapping the
 * safe chain (same L1 origin number, same non-deposit transactions).
 */
export async function checkSpanBatch(
  cfg: RollupConfig,
  l1Blocks: readonly L1BlockRef[],
  l2SafeHead: L2BlockRef,
  batch: SpanBatch,
  inclusion: L1BlockRef,
  l2: L2Reader,
): Promise<BatchCheck> {
  const prefix = await checkSpanBatchPrefix(cfg, l1Blocks, l2SafeHead, batch, inclusion, l2);
  if (prefix.validity !== BatchValidity.Accept || prefix.parent === null) {
    return { validity: prefix.validity, reason: prefix.reason };
  }
  const parent = prefix.parent;
  const blocks = batch.batches;
  const safeEpoch = l1Blocks[0]!.number;
  let originIdx = 0;
  let originAdvanced = blocks[0]!.epochNum === parent.l1origin.number + 1;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    if (i > 0) originAdvanced = block.epochNum > blocks[i - 1]!.epochNum;
    if (block.timestamp <= l2SafeHead.timestamp) continue;
    if (block.epochNum < safeEpoch) {
      return drop(`block ${i}: epoch ${block.epochNum} older than the safe head's ${safeEpoch}`);
    }
    let found = -1;
    for (let j = originIdx; j < l1Blocks.length; j++) {
      if (l1Blocks[j]!.number === block.epochNum) {
        found = j;
        break;
      }
    }
    if (found < 0) return drop(`block ${i}: L1 origin ${block.epochNum} not among the known L1 blocks`);
    originIdx = found;
    const origin = l1Blocks[found]!;
    if (block.timestamp < origin.timestamp) {
      return drop(`block ${i}: timestamp ${block.timestamp} before its L1 origin's ${origin.timestamp}`);
    }
    const drift = checkDrift(cfg, l1Blocks, origin, found, originAdvanced, block.timestamp, block.transactions.length);
    if (drift !== null) return { validity: drift.validity, reason: `block ${i}: ${drift.reason}` };
    const txs = checkSequencerTxs(cfg, block.timestamp, block.transactions);
    if (txs !== null) return { validity: txs.validity, reason: `block ${i}: ${txs.reason}` };
  }
  const nextTimestamp = l2SafeHead.timestamp + cfg.blockTime;
  if (blocks[0]!.timestamp < nextTimestamp) {
    const overlap = l2SafeHead.number - parent.number;
    for (let i = 0; i < overlap; i++) {
      const num = parent.number + i + 1;
      const block = blocks[i];
      if (block === undefined) return drop(`overlapped L2 block ${num} missing from the span`);
      let safeTxs: readonly Uint8Array[];
      let safeRef: L2BlockRef;
      try {
        safeTxs = await l2.transactionsByNumber(num);
        safeRef = await l2.l2BlockRefByNumber(num);
      } catch (e) {
        return undecided(`cannot read L2 block ${num}: ${e instanceof Error ? e.message : String(e)}`);
      }
      const mismatch = compareUserTxs(safeTxs, block.transactions);
      if (mismatch !== null) return drop(`overlapped L2 block ${num}: ${mismatch}`);
      if (safeRef.l1origin.number !== block.epochNum) {
        return drop(`overlapped L2 block ${num}: L1 origin ${safeRef.l1origin.number} != span's ${block.epochNum}`);
      }
    }
  }
  return ACCEPT;
}

/** The safe block's non-deposit transactions against a span block's; null when equal. */
function compareUserTxs(safeTxs: readonly Uint8Array[], batchTxs: readonly Uint8Array[]): string | null {
  let j = 0;
  for (const tx of safeTxs) {
    if (tx.length > 0 && tx[0] === DEPOSIT_TX_TYPE) continue;
    const other = batchTxs[j];
    if (other === undefined) return "more transactions in the safe block than in the span";
    if (!equalBytes(tx, other)) return `transaction ${j} differs`;
    j++;
  }
  if (j !== batchTxs.length) return "fewer transactions in the safe block than in the span";
  return null;
}

/** Dispatch on the batch type (op-node `CheckBatch`). */
export function checkBatch(
  cfg: RollupConfig,
  l1Blocks: readonly L1BlockRef[],
  l2SafeHead: L2BlockRef,
  batch: Batch,
  inclusion: L1BlockRef,
  l2: L2Reader,
): Promise<BatchCheck> {
  if (batch.type === BatchType.Singular) {
    return Promise.resolve(checkSingularBatch(cfg, l1Blocks, l2SafeHead, batch.batch, inclusion));
  }
  return checkSpanBatch(cfg, l1Blocks, l2SafeHead, batch.batch, inclusion, l2);
}
