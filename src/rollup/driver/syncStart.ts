/**
 * Where derivation restarts after startup or a reset (SPEC: protocol/derivation.md#finding-the-sync-
 * starting-point; op-node rollup/sync/start.go `FindL2Heads`). From the engine's unsafe head the L2
 * chain is walked back block by block, each block's L1 origin checked against canonical L1:
 *
 * - the new unsafe head is the newest block whose origin is canonical or not yet visible on L1
 *   ("plausible"); blocks built on a reorged-out L1 block are dropped;
 * - the new safe head is the parent of the first block of an epoch that is at or below the old safe
 *   head and more than a sequencing window older than the newest block with a canonical origin —
 *   so every batch that could still change it is read again;
 * - the walk never passes the finalized head (which is then also the safe head) or genesis, and a
 *   broken chain (origins not consecutive, sequence numbers not counting up, a different genesis or
 *   finalized block) is a critical error.
 *
 * With `--l2.skip-sync-start-check` the walk jumps from the newest canonical-origin block straight to
 * the old safe head.
 */
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { RollupConfig } from "../config/rollupConfig.js";
import { criticalError, temporaryError } from "../derive/errors.js";
import type { L1BlockRef, L2BlockRef } from "../refs.js";

export interface SyncStartL1 {
  /** null when L1 does not have the block (yet). */
  l1BlockRefByNumber(n: number): Promise<L1BlockRef | null>;
  l1BlockRefByHash(hash: Uint8Array): Promise<L1BlockRef>;
}

export interface SyncStartL2 {
  l2BlockRefByHash(hash: Uint8Array): Promise<L2BlockRef>;
}

export interface L2Heads {
  readonly unsafe: L2BlockRef;
  readonly safe: L2BlockRef;
  readonly finalized: L2BlockRef;
}

/** An L2 reorg deeper than this many sequencing windows is refused (op-node MaxReorgSeqWindows). */
const MAX_REORG_SEQ_WINDOWS = 5;

export async function findL2Heads(
  cfg: RollupConfig,
  l1: SyncStartL1,
  l2: SyncStartL2,
  current: L2Heads,
  opts: { readonly skipSyncStartCheck?: boolean } = {},
): Promise<L2Heads> {
  const lookback = cfg.seqWindowSize;
  const prevUnsafe = current.unsafe;
  let unsafe: L2BlockRef | null = current.unsafe;
  let safe = current.safe;
  const finalized = current.finalized;
  let highestCanonical: L2BlockRef | null = null;
  let l1Block: L1BlockRef | null = null;
  let ahead = false;
  let ready = false;
  let n = current.unsafe;
  for (;;) {
    try {
      if (l1Block !== null && equalBytes(n.l1origin.hash, l1Block.parentHash)) {
        l1Block = await l1.l1BlockRefByHash(n.l1origin.hash);
        ahead = false;
      } else if (l1Block === null || !equalBytes(n.l1origin.hash, l1Block.hash)) {
        const b = await l1.l1BlockRefByNumber(n.l1origin.number);
        ahead = b === null;
        l1Block = b;
      }
    } catch (e) {
      throw temporaryError(`failed to retrieve L1 block ${n.l1origin.number}: ${(e as Error).message}`, e);
    }
    if (n.number === cfg.genesis.l2.number) {
      if (!equalBytes(n.hash, cfg.genesis.l2.hash)) {
        throw criticalError(
          `the L2 engine is on a different chain: genesis ${bytesToHex(n.hash)}, want ${bytesToHex(cfg.genesis.l2.hash)}`,
        );
      }
      if (!equalBytes(n.l1origin.hash, cfg.genesis.l1.hash)) {
        throw criticalError("the L2 genesis does not have the L1 genesis of the rollup config as origin");
      }
      return { unsafe: unsafe ?? n, safe: n, finalized: n };
    }
    if (n.number === finalized.number && !equalBytes(n.hash, finalized.hash)) {
      throw criticalError(`the L2 chain conflicts with the finalized block ${finalized.number}`);
    }
    if (unsafe === null) {
      unsafe = n;
      if (n.l1origin.number + MAX_REORG_SEQ_WINDOWS * lookback < prevUnsafe.l1origin.number) {
        throw criticalError(`refusing an L2 reorg deeper than ${MAX_REORG_SEQ_WINDOWS} sequencing windows`);
      }
    }
    if (ahead) {
      // Origin not on L1 yet: keep the block as a plausible unsafe head.
    } else if (l1Block !== null && equalBytes(l1Block.hash, n.l1origin.hash)) {
      highestCanonical ??= n;
    } else {
      unsafe = null;
      highestCanonical = null;
    }
    if (
      n.number <= safe.number &&
      highestCanonical !== null &&
      n.l1origin.number + lookback < highestCanonical.l1origin.number &&
      n.sequenceNumber === 0
    ) {
      ready = true;
    }
    if (n.number === finalized.number) return { unsafe: unsafe ?? n, safe: n, finalized };
    if (opts.skipSyncStartCheck === true && highestCanonical !== null && equalBytes(highestCanonical.hash, n.hash)) {
      if (safe.number < n.number) {
        n = safe;
        continue;
      }
    }
    let parent: L2BlockRef;
    try {
      parent = await l2.l2BlockRefByHash(n.parentHash);
    } catch (e) {
      throw temporaryError(`failed to fetch L2 block ${bytesToHex(n.parentHash)}: ${(e as Error).message}`, e);
    }
    if (parent.l1origin.number !== n.l1origin.number || !equalBytes(parent.l1origin.hash, n.l1origin.hash)) {
      if (parent.l1origin.number + 1 !== n.l1origin.number) {
        throw criticalError(
          `L2 block ${n.number} has origin ${n.l1origin.number} but its parent has origin ${parent.l1origin.number}`,
        );
      }
      if (n.sequenceNumber !== 0) {
        throw criticalError(
          `L2 block ${n.number} starts epoch ${n.l1origin.number} with sequence number ${n.sequenceNumber}`,
        );
      }
      if (
        l1Block !== null &&
        equalBytes(l1Block.hash, n.l1origin.hash) &&
        !equalBytes(l1Block.parentHash, parent.l1origin.hash)
      ) {
        throw criticalError(
          `L2 block ${parent.number} has origin ${bytesToHex(parent.l1origin.hash)} but L1 says ${bytesToHex(l1Block.parentHash)}`,
        );
      }
    } else if (parent.sequenceNumber + 1 !== n.sequenceNumber) {
      throw criticalError(
        `L2 block ${n.number} has sequence number ${n.sequenceNumber} after ${parent.sequenceNumber}`,
      );
    }
    n = parent;
    if (ready) {
      safe = n;
      return { unsafe: unsafe ?? n, safe, finalized };
    }
  }
}
