/**
 * Sender recovery of the 10,000 signed EIP-1559 txs of the eth-transfers workload: Opal on the main
 * thread (libsecp256k1, or noble with OPAL_NATIVE=0), in a sigRecover pool of 1 and of 2 workers,
 * and @noble/curves as the library baseline (on 1,000 of the txs: it is ~30x slower; compare items/s).
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { PiscinaPool } from "../../src/node/pools.js";
import { hexToBytes } from "../../src/primitives/hex.js";
import { decodeTx } from "../../src/tx/envelope.js";
import { packSignatures } from "../../src/tx/recoverPacked.js";
import { recoverSendersParallel } from "../../src/tx/recoverSendersParallel.js";
import { type BenchRow, loadWorkload, measure } from "../lib.js";

export async function run(): Promise<BenchRow[]> {
  const w = loadWorkload("eth-transfers");
  const txs = w.blocks[0]!.transactions.map((t) => decodeTx(hexToBytes(t)));
  const n = txs.length;
  const pool1 = new PiscinaPool("sigRecover", { threads: 1 });
  const pool2 = new PiscinaPool("sigRecover", { threads: 2 });
  await Promise.all([pool1.warm(), pool2.warm()]);

  // Baseline input: 1,000 (hash, 65-byte recovered signature) pairs in noble's format.
  const { hashes, sigs } = packSignatures(txs.slice(0, 1000));
  const nobleSigs = Array.from({ length: 1000 }, (_, i) => {
    const s = new Uint8Array(65);
    s[0] = sigs[65 * i + 64]!;
    s.set(sigs.subarray(65 * i, 65 * i + 64), 1);
    return s;
  });
  const main = `recover ${n} senders, main thread`;
  try {
    return await measure(
      "recover",
      [
        { name: main, fn: () => recoverSendersParallel(txs, null), items: n },
        { name: `recover ${n} senders, pool of 1`, fn: () => recoverSendersParallel(txs, pool1), items: n },
        { name: `recover ${n} senders, pool of 2`, fn: () => recoverSendersParallel(txs, pool2), items: n },
        {
          name: "recover 1000 senders (@noble/curves)",
          fn: () => {
            for (let i = 0; i < 1000; i++) {
              secp256k1.recoverPublicKey(nobleSigs[i]!, hashes.subarray(32 * i, 32 * i + 32), { prehash: false });
            }
          },
          items: 1000,
          baselineOf: main,
        },
      ],
      { time: 1500, iterations: 3 },
    );
  } finally {
    await Promise.all([pool1.destroy(), pool2.destroy()]);
  }
}
