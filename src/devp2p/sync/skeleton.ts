/**
 * The sync skeleton on disk: headers downloaded backwards from the sync target, linked by parent
 * hash, in the `syncHeaders` table by number, and the sync's range in meta `syncSkeleton` (geth's
 * skeleton `SkeletonSyncStatus`, one subchain plus the previous one while a new target links to it).
 * Both change in one batch per linked chunk, so a restart resumes from the last linked header.
 */
import { decodeHeader, type Header } from "../../block/header.js";
import { numberKey } from "../../chain/chainStore.js";
import { keccak256 } from "../../crypto/keccak.js";
import { decodeRlp, expectBytes, expectList, expectSafeInt } from "../../rlp/decode.js";
import { encodeRlp, uintToRlpBytes } from "../../rlp/encode.js";
import { type KvStore, WriteBatch } from "../../storage/kv.js";

export const META_SYNC_SKELETON: Uint8Array = new TextEncoder().encode("syncSkeleton");

/** A stored skeleton header: decoded (views into `rlp`), its hash and its RLP. */
export interface SkeletonHeader {
  readonly header: Header;
  readonly hash: Uint8Array;
  readonly rlp: Uint8Array;
}

/** The sync's range and where it stands. */
export interface SkeletonState {
  /** The sync target (the forkchoice head the sync moves to). */
  readonly top: Uint8Array;
  readonly topNumber: number;
  /** Lowest header of the current subchain (top down to tail are stored and linked). */
  readonly tail: number;
  /** True once the tail's parent is a block the node has executed: headers are done. */
  readonly complete: boolean;
  /**
   * The previous subchain, kept while a new target links down to it (0, 0 when none): headers
   * `prevTail..prevTop` are intact in the table; `prevComplete` is its `complete`.
   */
  readonly prevTail: number;
  readonly prevTop: number;
  readonly prevComplete: boolean;
  /** The forkchoice's safe and finalized blocks, applied when the sync reaches the target (zero: none). */
  readonly safe: Uint8Array;
  readonly finalized: Uint8Array;
  /** The head when the sync started (eth_syncing startingBlock). */
  readonly startingBlock: number;
}

export class Skeleton {
  constructor(private readonly kv: KvStore) {}

  load(): SkeletonState | null {
    const v = this.kv.get("meta", META_SYNC_SKELETON);
    if (v === undefined) return null;
    const f = expectList(decodeRlp(v), "syncSkeleton");
    if (f.length !== 10) return null;
    return {
      top: expectBytes(f[0], "top"),
      topNumber: expectSafeInt(f[1], "topNumber"),
      tail: expectSafeInt(f[2], "tail"),
      complete: expectSafeInt(f[3], "complete") === 1,
      prevTail: expectSafeInt(f[4], "prevTail"),
      prevTop: expectSafeInt(f[5], "prevTop"),
      prevComplete: expectSafeInt(f[6], "prevComplete") === 1,
      safe: expectBytes(f[7], "safe"),
      finalized: expectBytes(f[8], "finalized"),
      startingBlock: expectSafeInt(f[9], "startingBlock"),
    };
  }

  putState(b: WriteBatch, s: SkeletonState): void {
    b.put(
      "meta",
      META_SYNC_SKELETON,
      encodeRlp([
        s.top,
        uintToRlpBytes(s.topNumber),
        uintToRlpBytes(s.tail),
        uintToRlpBytes(s.complete ? 1 : 0),
        uintToRlpBytes(s.prevTail),
        uintToRlpBytes(s.prevTop),
        uintToRlpBytes(s.prevComplete ? 1 : 0),
        s.safe,
        s.finalized,
        uintToRlpBytes(s.startingBlock),
      ]),
    );
  }

  putHeader(b: WriteBatch, number: number, rlp: Uint8Array): void {
    b.put("syncHeaders", numberKey(number), rlp);
  }

  header(number: number): SkeletonHeader | null {
    const rlp = this.kv.get("syncHeaders", numberKey(number));
    if (rlp === undefined) return null;
    return { header: decodeHeader(rlp), hash: keccak256(rlp), rlp };
  }

  /** Deletes the headers numbered `from..to` (inclusive) into `b`. */
  deleteRange(b: WriteBatch, from: number, to: number): void {
    for (const [k] of this.kv.iterate("syncHeaders", { gte: numberKey(from), lt: numberKey(to + 1) })) {
      b.del("syncHeaders", k);
    }
  }

  /** Drops every skeleton header and the state (the sync finished or was abandoned). */
  clear(): void {
    const b = new WriteBatch();
    for (const [k] of this.kv.iterate("syncHeaders")) b.del("syncHeaders", k);
    b.del("meta", META_SYNC_SKELETON);
    this.kv.write(b);
  }
}
