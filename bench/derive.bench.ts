/**
 * The `derive` section: derivation's decoding of real OP Mainnet batcher data — the channel in
 * `../shared/fixtures/op-stack/kona-batch-data/batch.hex` (zlib, 615 KB → 1.4 MB): decompression and
 * RLP framing (`readChannelBatches`), the span batch's columns (`decodeRawSpanBatch`) and its blocks
 * and transactions (`deriveSpanBatch`, with OP Mainnet's genesis time, block time and chain id).
 * Items are the L2 transactions decoded.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { readInputBytes } from "../src/cli/batchDecode.js";
import { networkRollupConfig } from "../src/rollup/config/network.js";
import { BatchType } from "../src/rollup/derive/batchTypes.js";
import { readChannelBatches } from "../src/rollup/derive/channelReader.js";
import { deriveSpanBatch, type SpanBatchContext } from "../src/rollup/derive/deriveSpanBatch.js";
import { decodeRawSpanBatch } from "../src/rollup/derive/rawSpanBatch.js";
import { REPO_ROOT } from "../test/utils/fixtures.js";
import { type BenchRow, measure } from "./lib.js";

const FILE = resolve(REPO_ROOT, "../shared/fixtures/op-stack/kona-batch-data/batch.hex");

/** Decodes every span batch of the channel; returns the blocks and transactions. */
export function decodeChannel(data: Uint8Array, ctx: SpanBatchContext): { blocks: number; txs: number } {
  const read = readChannelBatches(data, { fjord: true });
  if (read.error !== undefined && read.batches.length === 0) throw new Error(`channel: ${read.error}`);
  let blocks = 0;
  let txs = 0;
  for (const b of read.batches) {
    if (b[0] !== BatchType.Span) continue;
    const span = deriveSpanBatch(decodeRawSpanBatch(b.subarray(1)), ctx);
    blocks += span.batches.length;
    for (const x of span.batches) txs += x.transactions.length;
  }
  return { blocks, txs };
}

export async function run(): Promise<BenchRow[]> {
  const cfg = networkRollupConfig("op-mainnet");
  if (cfg === null) throw new Error("op-mainnet is not bundled");
  const ctx: SpanBatchContext = {
    genesisL2Time: cfg.genesis.l2Time,
    blockTime: cfg.blockTime,
    l2ChainId: cfg.l2ChainId,
  };
  const { bytes } = readInputBytes(new Uint8Array(readFileSync(FILE)));
  const first = decodeChannel(bytes, ctx);
  console.log(`  derive: ${bytes.length} B channel, ${first.blocks} L2 blocks, ${first.txs} txs in its span batch(es)`);
  return measure(
    "derive",
    [
      {
        name: `decode OP Mainnet channel (${(bytes.length / 1e3).toFixed(0)} KB zlib): span batch → ${first.txs} txs`,
        items: first.txs,
        fn: () => decodeChannel(bytes, ctx),
      },
    ],
    { time: 3000 },
  );
}
