/**
 * Block references and the sync status as the rollup node reports them (op-service/eth id.go,
 * sync_status.go; op-stack.md §1.3). In JSON, numbers are plain JSON numbers (Go uint64 without
 * hexutil) and hashes are 0x hex.
 */
import { bytesToHex } from "../primitives/hex.js";

export interface BlockId {
  readonly hash: Uint8Array;
  readonly number: number;
}

export interface L1BlockRef extends BlockId {
  readonly parentHash: Uint8Array;
  readonly timestamp: number;
}

export interface L2BlockRef extends L1BlockRef {
  readonly l1origin: BlockId;
  readonly sequenceNumber: number;
}

export interface SyncStatus {
  readonly currentL1: L1BlockRef;
  readonly headL1: L1BlockRef;
  readonly safeL1: L1BlockRef;
  readonly finalizedL1: L1BlockRef;
  readonly unsafeL2: L2BlockRef;
  readonly safeL2: L2BlockRef;
  readonly finalizedL2: L2BlockRef;
  readonly pendingSafeL2: L2BlockRef;
  /** Interop (managed by a supervisor): the cross-unsafe head; the unsafe head when absent. */
  readonly crossUnsafeL2?: L2BlockRef;
  /** Interop: the locally derived safe head (then `safeL2` is cross-safe); `safeL2` when absent. */
  readonly localSafeL2?: L2BlockRef;
}

const ZERO_HASH = new Uint8Array(32);

/** The zero reference op-node reports for what it has not seen yet. */
export const ZERO_L1_REF: L1BlockRef = Object.freeze({
  hash: ZERO_HASH,
  number: 0,
  parentHash: ZERO_HASH,
  timestamp: 0,
});
export const ZERO_L2_REF: L2BlockRef = Object.freeze({
  ...ZERO_L1_REF,
  l1origin: Object.freeze({ hash: ZERO_HASH, number: 0 }),
  sequenceNumber: 0,
});

export function blockIdJson(b: BlockId): { hash: string; number: number } {
  return { hash: bytesToHex(b.hash), number: b.number };
}

export function l1RefJson(b: L1BlockRef): Record<string, unknown> {
  return { hash: bytesToHex(b.hash), number: b.number, parentHash: bytesToHex(b.parentHash), timestamp: b.timestamp };
}

export function l2RefJson(b: L2BlockRef): Record<string, unknown> {
  return { ...l1RefJson(b), l1origin: blockIdJson(b.l1origin), sequenceNumber: b.sequenceNumber };
}

/**
 * op-node's SyncStatus JSON: `current_l1_finalized` mirrors `finalized_l1` (deprecated), and unless
 * a supervisor manages the node (interop) `cross_unsafe_l2` / `local_safe_l2` equal `unsafe_l2` /
 * `safe_l2`.
 */
export function syncStatusJson(s: SyncStatus): Record<string, unknown> {
  return {
    current_l1: l1RefJson(s.currentL1),
    current_l1_finalized: l1RefJson(s.finalizedL1),
    head_l1: l1RefJson(s.headL1),
    safe_l1: l1RefJson(s.safeL1),
    finalized_l1: l1RefJson(s.finalizedL1),
    unsafe_l2: l2RefJson(s.unsafeL2),
    safe_l2: l2RefJson(s.safeL2),
    finalized_l2: l2RefJson(s.finalizedL2),
    pending_safe_l2: l2RefJson(s.pendingSafeL2),
    cross_unsafe_l2: l2RefJson(s.crossUnsafeL2 ?? s.unsafeL2),
    local_safe_l2: l2RefJson(s.localSafeL2 ?? s.safeL2),
  };
}
