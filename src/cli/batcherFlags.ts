/**
 * Every option of `opal-batcher`, with op-batcher's names and `OP_BATCHER_*` environment variables
 * (op-batcher/flags/flags.go; the tx-manager options reduced to what Opal's sender uses).
 */

import { defineCli, type InferConfig, MS_PER_SECOND } from "./flagTable.js";
import { type Env, type ParseResult, parseArgs } from "./parseArgs.js";
import { OPAL_VERSION } from "./version.js";

const URL_RE = /^https?:\/\/\S+$/;
const checkUrl = (t: string): string | undefined => (URL_RE.test(t) ? undefined : "not an http(s) URL");
const checkKey = (t: string): string | undefined =>
  /^(0x)?[0-9a-fA-F]{64}$/.test(t) ? undefined : "not a 32-byte hex private key";

const CONN = "CONNECTIONS";
const BATCH = "BATCHING";
const TX = "TRANSACTIONS";
const LOG = "LOGGING";

export const BATCHER_CLI = defineCli({
  name: "opal-batcher",
  version: OPAL_VERSION,
  usage: "OP Stack batch submitter: posts L2 blocks to the L1 batch inbox",
  envPrefix: "OP_BATCHER",
  flags: {
    "l1-eth-rpc": {
      type: "string",
      required: true,
      validate: checkUrl,
      category: CONN,
      help: "HTTP provider URL for L1",
    },
    "l2-eth-rpc": {
      type: "string",
      required: true,
      validate: checkUrl,
      category: CONN,
      help: "HTTP provider URL for L2 execution engine",
    },
    "rollup-rpc": {
      type: "string",
      required: true,
      validate: checkUrl,
      category: CONN,
      help: "HTTP provider URL for the rollup node",
    },
    "private-key": {
      type: "string",
      required: true,
      validate: checkKey,
      category: TX,
      help: "The private key to use with the batcher's L1 transactions",
    },
    // op-batcher ticks with time.NewTicker(PollInterval), which panics on 0 or less: refused here.
    "poll-interval": {
      type: "duration",
      default: 6 * MS_PER_SECOND,
      min: 1,
      category: BATCH,
      help: "How frequently to poll L2 for new blocks",
    },
    "max-channel-duration": {
      type: "int",
      min: 0,
      default: 0,
      category: BATCH,
      help: "The maximum duration of L1-blocks to keep a channel open. 0 to disable.",
    },
    "sub-safety-margin": {
      type: "int",
      min: 0,
      default: 10,
      category: BATCH,
      help: "The batcher tx submission safety margin (in #L1-blocks) to subtract from a channel's timeout and sequencing window, to guarantee safe inclusion of a channel on L1.",
    },
    "target-num-frames": {
      type: "int",
      min: 1,
      default: 1,
      category: BATCH,
      help: "The target number of frames to create per channel",
    },
    "max-l1-tx-size-bytes": {
      type: "int",
      min: 1000,
      default: 120_000,
      category: BATCH,
      help: "The maximum size of a batch tx submitted to L1. Ignored for blobs.",
    },
    "compression-algo": {
      type: "enum",
      values: ["zlib", "brotli"],
      default: "zlib",
      category: BATCH,
      help: "The compression algorithm to use (brotli only once Fjord is active)",
    },
    "batch-type": {
      type: "int",
      min: 0,
      max: 1,
      default: 0,
      category: BATCH,
      help: "The batch type. 0 for SingularBatch and 1 for SpanBatch.",
    },
    "data-availability-type": {
      type: "enum",
      values: ["calldata", "blobs", "auto"],
      default: "calldata",
      category: BATCH,
      help: "The data availability type to use for submitting batches to the L1",
    },
    "state-file": {
      type: "path",
      category: BATCH,
      help: "File that keeps the last submitted L2 block, so a restart neither loses nor repeats blocks",
    },
    stopped: { type: "bool", category: BATCH, help: "Initialize the batcher in a stopped state" },
    "num-confirmations": {
      type: "int",
      min: 1,
      default: 10,
      category: TX,
      help: "Number of confirmations which we will wait after sending a transaction",
    },
    // op-service txmgr CLIConfig.Check: "must provide ResubmissionTimeout" (0 would re-bump at once).
    "resubmission-timeout": {
      type: "duration",
      default: 48 * MS_PER_SECOND,
      min: 1,
      category: TX,
      help: "Duration we will wait before resubmitting a transaction to L1",
    },
    "txmgr.fee-bump-percent": {
      type: "int",
      min: 10,
      default: 10,
      category: TX,
      help: "Percent by which fees rise on each resubmission (at least 10: the pool's replacement rule)",
    },
    "txmgr.max-attempts": {
      type: "int",
      min: 1,
      default: 10,
      category: TX,
      help: "Sends of one transaction (with bumped fees) before it counts as failed",
    },
    "log.level": {
      type: "enum",
      values: ["trace", "debug", "info", "warn", "error", "crit"],
      default: "info",
      category: LOG,
      help: "The lowest log level that will be output",
    },
    "log.format": {
      type: "enum",
      values: ["text", "terminal", "logfmt", "json", "json-pretty"],
      default: "text",
      category: LOG,
      help: "Format the log output",
    },
  },
});

export type BatcherConfig = InferConfig<typeof BATCHER_CLI.flags>;

export function parseBatcherArgs(argv: readonly string[], env: Env): ParseResult<typeof BATCHER_CLI> {
  return parseArgs(BATCHER_CLI, argv, env);
}
