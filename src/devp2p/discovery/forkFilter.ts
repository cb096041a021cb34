/**
 * EIP-2124 fork id validation of a remote node against the local chain (geth core/forkid `newFilter`,
 * time forks per EIP-6122): the discovery filter for `eth` ENR entries, and the Status check.
 * Returns a code, not an error: it runs for every discovered record.
 */
import { crc32 } from "../../primitives/crc32.js";
import type { ForkId, ForkPoints } from "../../spec/forkId.js";

export const ForkCheck = {
  /** Compatible (rules 1b, 2, 3). */
  Ok: 0,
  /** The remote announces a fork we have passed without it, or is on another chain (1a, 4). */
  LocalIncompatibleOrStale: 1,
  /** The remote is behind and does not know our next fork (2 with a wrong FORK_NEXT). */
  RemoteStale: 2,
} as const;
export type ForkCheck = (typeof ForkCheck)[keyof typeof ForkCheck];

/** SPEC: geth forkid `timestampThreshold`: a FORK_NEXT above it is a time, compared to the head time. */
const TIMESTAMP_THRESHOLD = 1438269973;

/** The local head a filter compares against. */
export interface ForkHead {
  readonly number: number;
  readonly time: number;
}

export type ForkFilter = (remote: ForkId) => ForkCheck;

/** A filter over the chain's fork points; `head()` is read on every call (geth `headfn`). */
export function newForkFilter(genesisHash: Uint8Array, points: ForkPoints, head: () => ForkHead): ForkFilter {
  const forks = [...points.blocks, ...points.times];
  const nBlock = points.blocks.length;
  const sums: number[] = [];
  const u64 = new Uint8Array(8);
  const view = new DataView(u64.buffer);
  let crc = crc32(genesisHash);
  sums.push(crc >>> 0);
  for (const f of forks) {
    view.setUint32(0, Math.floor(f / 0x1_0000_0000));
    view.setUint32(4, f >>> 0);
    crc = crc32(u64, crc);
    sums.push(crc >>> 0);
  }
  // Sentinel fork that is never passed (geth appends MaxUint64).
  forks.push(Number.POSITIVE_INFINITY);
  return (remote) => {
    const want = new DataView(remote.hash.buffer, remote.hash.byteOffset, 4).getUint32(0);
    const { number, time } = head();
    for (let i = 0; i < forks.length; i++) {
      // SPEC: geth compares block forks with the head number and time forks with the head time; with
      // no time forks the sentinel counts as a block fork (either way it is never passed).
      const h = i < nBlock || (nBlock === forks.length - 1 && i === forks.length - 1) ? number : time;
      if (h >= forks[i]!) continue;
      if (sums[i] === want) {
        // Rule 1a: a fork the remote announces has already passed here.
        if (remote.next > 0 && (h >= remote.next || (remote.next > TIMESTAMP_THRESHOLD && time >= remote.next))) {
          return ForkCheck.LocalIncompatibleOrStale;
        }
        return ForkCheck.Ok; // 1b
      }
      // Rule 2: the remote is at one of our past states and knows the fork that followed.
      for (let j = 0; j < i; j++) {
        if (sums[j] === want) return forks[j] === remote.next ? ForkCheck.Ok : ForkCheck.RemoteStale;
      }
      // Rule 3: the remote is ahead of us on our own schedule.
      for (let j = i + 1; j < sums.length; j++) if (sums[j] === want) return ForkCheck.Ok;
      return ForkCheck.LocalIncompatibleOrStale; // 4
    }
    return ForkCheck.Ok; // unreachable: the sentinel is never passed
  };
}
