/**
 * A synthetic chain for the batch-stage unit tests: a rollup config on OP Mainnet's addresses with
 * block time 2, sequencing window 4 and only Regolith active (tests switch forks on), and L1/L2
 * references with recognisable hashes — L1 block n at 1000 + 12·(n − 10), L2 block n at 800 + 2n.
 */

import { networkRollupConfig } from "../../src/rollup/config/network.js";
import type { RollupConfig } from "../../src/rollup/config/rollupConfig.js";
import type { L1BlockRef, L2BlockRef } from "../../src/rollup/refs.js";

const base = networkRollupConfig("op-mainnet");
if (base === null) throw new Error("op-mainnet config missing");

export const CFG: RollupConfig = {
  ...base,
  blockTime: 2,
  seqWindowSize: 4,
  maxSequencerDrift: 600,
  genesis: { ...base.genesis, l2: { ...base.genesis.l2, number: 0 }, l2Time: 800 },
  regolithTime: 0,
  canyonTime: null,
  deltaTime: null,
  ecotoneTime: null,
  fjordTime: null,
  graniteTime: null,
  holoceneTime: null,
  isthmusTime: null,
  jovianTime: null,
  karstTime: null,
  interopTime: null,
  pectraBlobScheduleTime: null,
};

export const L1T = 0x11;
export const L2T = 0x22;

/** A 32-byte hash tagged with the layer and the number. */
export function hash(tag: number, n: number): Uint8Array {
  const out = new Uint8Array(32);
  out[0] = tag;
  new DataView(out.buffer).setUint32(1, n);
  out[31] = 0xaa;
  return out;
}

export function l1(n: number): L1BlockRef {
  return { hash: hash(L1T, n), number: n, parentHash: hash(L1T, n - 1), timestamp: 1000 + 12 * (n - 10) };
}

export function l2(n: number, origin: number): L2BlockRef {
  return {
    hash: hash(L2T, n),
    number: n,
    parentHash: hash(L2T, n - 1),
    timestamp: 800 + 2 * n,
    l1origin: { hash: hash(L1T, origin), number: origin },
    sequenceNumber: 0,
  };
}
