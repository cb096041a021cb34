/**
 * keccak-256: Opal native (C addon) vs the pure twin (@noble/hashes, also the library baseline) at
 * 32 B and 1 KB, and the batched call over 10k × 100 B packed items vs one call per item.
 */
import { randomBytes } from "node:crypto";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { keccak256, keccak256Batch, packItems } from "../../src/crypto/keccak.js";
import { native } from "../../src/native/load.js";
import { type BenchRow, type BenchTask, measure } from "../lib.js";

export async function run(): Promise<BenchRow[]> {
  const b32 = new Uint8Array(randomBytes(32));
  const b1k = new Uint8Array(randomBytes(1024));
  const items = Array.from({ length: 10_000 }, () => new Uint8Array(randomBytes(100)));
  const { packed, offsets } = packItems(items);
  const out = new Uint8Array(items.length * 32);
  const backend = native === null ? "pure" : "native";

  const tasks: BenchTask[] = [
    { name: `keccak 32 B (opal ${backend})`, fn: () => keccak256(b32) },
    { name: "keccak 32 B (@noble/hashes)", fn: () => keccak_256(b32), baselineOf: `keccak 32 B (opal ${backend})` },
    { name: `keccak 1 KB (opal ${backend})`, fn: () => keccak256(b1k) },
    { name: "keccak 1 KB (@noble/hashes)", fn: () => keccak_256(b1k), baselineOf: `keccak 1 KB (opal ${backend})` },
    {
      name: `keccak 10k x 100 B batched (opal ${backend})`,
      fn: () => keccak256Batch(packed, offsets, out),
      items: items.length,
    },
    {
      name: `keccak 10k x 100 B one call each (opal ${backend})`,
      fn: () => {
        for (const it of items) keccak256(it);
      },
      items: items.length,
      baselineOf: `keccak 10k x 100 B batched (opal ${backend})`,
    },
    {
      name: "keccak 10k x 100 B one call each (@noble/hashes)",
      fn: () => {
        for (const it of items) keccak_256(it);
      },
      items: items.length,
      baselineOf: `keccak 10k x 100 B batched (opal ${backend})`,
    },
  ];
  return measure("keccak", tasks);
}
