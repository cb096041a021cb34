/**
 * `opal-node batch-decode FILE…` (op-node's op-node/cmd/batch_decoder): reads batcher data and prints,
 * as JSON, what derivation would see in it: the L1 batcher transaction (hash, sender, …), its frames,
 * the channels those frames form across all the files, and each channel's batches (singular, or span:
 * raw fields, and per-block timestamps/origins/txs when a rollup config gives the genesis L2 time,
 * block time and L2 chain id).
 *
 * Problems inside the data (a malformed frame, a channel missing frames, corrupt or truncated
 * compressed data, a batch that does not decode) are reported in the JSON as `error` fields, exit 0.
 * Options: `BATCH_DECODE_CLI` (the shared flag machinery, `$OP_NODE_BATCH_DECODE_*` env vars).
 * Bad options are one line on stderr and exit 2; a file that cannot be read or is not what `--kind`
 * says is one line on stderr and exit 1. Never a stack trace.
 *
 * Channels are read as from Fjord on (brotli allowed, 100 MB decompression limit): without L1
 * inclusion blocks the decoder cannot tell which rules applied when the channel was posted.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { toChecksumAddress } from "../primitives/address.js";
import { bytesKey } from "../primitives/bytes.js";
import { bytesToHex, bytesToHexRaw, hexToBytes } from "../primitives/hex.js";
import { stringLength } from "../rlp/encode.js";
import { networkRollupConfig } from "../rollup/config/network.js";
import { parseRollupConfig, type RollupConfig } from "../rollup/config/rollupConfig.js";
import { decodeSingularBatch } from "../rollup/derive/batch.js";
import { BatchDecodeError } from "../rollup/derive/batchErrors.js";
import { BatchType } from "../rollup/derive/batchTypes.js";
import { Channel } from "../rollup/derive/channel.js";
import { detectCompression, readChannelBatches } from "../rollup/derive/channelReader.js";
import { deriveSpanBatch, type SpanBatchContext } from "../rollup/derive/deriveSpanBatch.js";
import { DERIVATION_VERSION_0, type Frame, FrameParseError, parseFrames } from "../rollup/derive/frame.js";
import { type RawSpanBatch, readRawSpanBatch } from "../rollup/derive/rawSpanBatch.js";
import { ZERO_L1_REF } from "../rollup/refs.js";
import { decodeTx, txHash } from "../tx/envelope.js";
import { recoverSender } from "../tx/signer.js";
import { type Tx, TxType } from "../tx/tx.js";
import { PATH } from "./commonFlags.js";
import { defineCli, type InferConfig, renderHelp } from "./flagTable.js";
import { NETWORKS } from "./nodeFlags.js";
import { type Env, parseArgs } from "./parseArgs.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io } from "./processIo.js";
import { OPAL_VERSION } from "./version.js";

const CMD = "opal-node batch-decode";

export const BATCH_DECODE_CLI = defineCli({
  name: CMD,
  version: OPAL_VERSION,
  usage: "decode batcher transactions, frames and channels to JSON (like op-node's batch_decoder)",
  description: [
    "Decodes OP Stack batcher data and prints, as JSON, the L1 transaction, its frames, the channels the frames of all FILEs form, and the batches in each channel.",
    "",
    "Each FILE (- for stdin) is raw bytes, or hex text (0x prefix and whitespace allowed), holding one of:",
    "  tx       a signed L1 batcher transaction (EIP-2718 envelope)",
    "  txdata   batcher transaction data: version byte 0x00, then frames",
    "  channel  compressed channel data: zlib (first byte's low nibble 8/15), or 0x01 + brotli",
    "",
    'Without a rollup config, span batches show their raw fields only (relative timestamp, last L1 origin, per-block tx counts). Errors inside the data appear as "error" fields (exit 0); an unreadable FILE or one that is not what --kind says exits 1, a bad option exits 2.',
  ].join("\n"),
  envPrefix: "OP_NODE_BATCH_DECODE",
  args: [{ name: "FILE", variadic: true }],
  flags: {
    kind: {
      type: "enum",
      values: ["tx", "txdata", "channel", "auto"],
      default: "auto",
      help: "What the files hold. auto decides per file: first byte 0x00 -> txdata; else bytes that decode completely as a signed EIP-2718 transaction -> tx; else first byte 0x01 or with low nibble 8/15 -> channel; else an error",
    },
    network: {
      type: "enum",
      values: NETWORKS,
      expects: "a known network name (list them with: opal-node networks)",
      help: "A bundled network: its genesis L2 time, block time and L2 chain id derive span-batch blocks (exclusive with --rollup.config)",
    },
    "rollup.config": { ...PATH, help: "A rollup.json file, for the same (exclusive with --network)" },
    "l2-chain-id": {
      type: "bigint",
      min: 1n,
      max: (1n << 256n) - 1n,
      expects: "a positive integer below 2^256",
      help: "L2 chain id for span-batch transactions (overrides the config's; alone, it gives blocks with origins and txs but no timestamps)",
    },
    txs: { type: "bool", help: "List every batch transaction (hash, type, nonce, to, sender) instead of counts" },
    out: { ...PATH, help: "Write the JSON to this file instead of standard output" },
  },
});

/** `opal-node batch-decode --help`. */
export const BATCH_DECODE_USAGE = renderHelp(BATCH_DECODE_CLI).trimEnd();

// ---- JSON ----

export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A u64 as a JSON number when it is a safe integer, else as a decimal string. */
function u64(v: bigint): number | string {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

function address(a: Uint8Array | null): string | null {
  return a === null ? null : toChecksumAddress(a);
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// ---- inputs ----

export type InputKind = "tx" | "txdata" | "channel";
export type KindOption = InputKind | "auto";

/** A file (or bytes) that cannot be what was asked, or cannot be read: one line for stderr. */
export class InputError extends Error {
  override readonly name = "InputError";
}

/** Bad options: one line for stderr, exit 2. */
class UsageError extends Error {
  override readonly name = "UsageError";
}

const HEX_TEXT = /^(0[xX])?[0-9a-fA-F\s]*$/;

/**
 * A file's bytes: hex text (optional 0x, whitespace anywhere) when the whole file is hex digits,
 * else the raw contents. Throws InputError for an empty file or an odd number of hex digits.
 */
export function readInputBytes(content: Uint8Array): { bytes: Uint8Array; encoding: "hex" | "binary" } {
  if (content.length === 0) throw new InputError("empty file");
  // Only files of printable ASCII can be hex text; latin1 keeps one char per byte.
  const text = Buffer.from(content.buffer, content.byteOffset, content.length).toString("latin1").trim();
  if (text.length > 0 && HEX_TEXT.test(text)) {
    const body = (text.startsWith("0x") || text.startsWith("0X") ? text.slice(2) : text).replace(/\s+/g, "");
    if (body.length === 0) throw new InputError("empty hex text");
    if (body.length % 2 !== 0) throw new InputError(`hex text has an odd number of digits (${body.length})`);
    return { bytes: hexToBytes(body), encoding: "hex" };
  }
  return { bytes: content, encoding: "binary" };
}

function tryDecodeTx(bytes: Uint8Array): Tx | string {
  try {
    return decodeTx(bytes);
  } catch (e) {
    return message(e);
  }
}

function hexByte(b: number): string {
  return `0x${b.toString(16).padStart(2, "0")}`;
}

/** What `--kind auto` takes the bytes for (see the help text), or null when nothing fits. */
export function detectKind(bytes: Uint8Array): InputKind | null {
  if (bytes.length === 0) return null;
  if (bytes[0] === DERIVATION_VERSION_0) return "txdata";
  if (typeof tryDecodeTx(bytes) !== "string") return "tx";
  if (typeof detectCompression(bytes[0], true) === "string") return "channel";
  return null;
}

// ---- chain constants ----

/** What span-batch derivation can use: timing from a rollup config, the chain id from it or --l2-chain-id. */
export interface ChainInfo {
  /** Genesis L2 time and block time, when a rollup config is known. */
  readonly timing: { readonly genesisL2Time: number; readonly blockTime: number } | null;
  readonly l2ChainId: bigint | null;
}

export const NO_CHAIN_INFO: ChainInfo = Object.freeze({ timing: null, l2ChainId: null });

export function chainInfoOf(cfg: RollupConfig | null, l2ChainId: bigint | null = null): ChainInfo {
  return {
    timing: cfg === null ? null : { genesisL2Time: cfg.genesis.l2Time, blockTime: cfg.blockTime },
    l2ChainId: l2ChainId ?? cfg?.l2ChainId ?? null,
  };
}

export interface DecodeOptions {
  readonly chain: ChainInfo;
  /** List every batch transaction instead of counts only. */
  readonly txs: boolean;
}

// ---- transactions ----

/** The L1 batcher transaction. */
function l1TxJson(tx: Tx): JsonObject {
  const out: JsonObject = { hash: bytesToHex(txHash(tx)), type: tx.type };
  if (tx.type === TxType.Deposit) {
    out.chain_id = null;
    out.nonce = null;
  } else if (tx.type === TxType.Legacy) {
    out.chain_id = tx.v >= 35n ? u64((tx.v - 35n) / 2n) : null;
    out.nonce = u64(tx.nonce);
  } else {
    out.chain_id = u64(tx.chainId);
    out.nonce = u64(tx.nonce);
  }
  out.to = address(tx.to);
  out.sender = address(recoverSender(tx));
  out.data_length = tx.data.length;
  if (tx.type === TxType.Blob) out.blob_hashes = tx.blobVersionedHashes.map((h) => bytesToHex(h));
  return out;
}

/** One transaction of a batch (EIP-2718 bytes). */
function batchTxJson(bytes: Uint8Array): JsonObject {
  let tx: Tx;
  try {
    tx = decodeTx(bytes);
  } catch (e) {
    return { error: message(e), length: bytes.length };
  }
  return {
    hash: bytesToHex(txHash(tx)),
    type: tx.type,
    nonce: tx.type === TxType.Deposit ? null : u64(tx.nonce),
    to: address(tx.to),
    sender: address(recoverSender(tx)),
  };
}

// ---- batches ----

const NOTE_NO_CONFIG =
  "block timestamps, L1 origins and transactions need a rollup config (--network or --rollup.config)";
const NOTE_NO_TIMING = "block timestamps need a rollup config (--network or --rollup.config)";
const NOTE_NO_CHAIN_ID = "transactions need the L2 chain id (--network, --rollup.config or --l2-chain-id)";

function spanRawJson(raw: RawSpanBatch): JsonObject {
  let txCount = 0;
  for (const c of raw.blockTxCounts) txCount += c;
  return {
    type: "span",
    rel_timestamp: u64(raw.relTimestamp),
    l1_origin_num: u64(raw.l1OriginNum),
    parent_check: bytesToHex(raw.parentCheck),
    l1_origin_check: bytesToHex(raw.l1OriginCheck),
    block_count: raw.blockTxCounts.length,
    tx_count: txCount,
  };
}

function spanJson(raw: RawSpanBatch, opts: DecodeOptions): JsonObject {
  const out = spanRawJson(raw);
  const { timing, l2ChainId } = opts.chain;
  if (timing === null && l2ChainId === null) {
    out.block_tx_counts = [...raw.blockTxCounts];
    out.note = NOTE_NO_CONFIG;
    return out;
  }
  const ctx: SpanBatchContext = {
    genesisL2Time: timing?.genesisL2Time ?? 0,
    blockTime: timing?.blockTime ?? 0,
    l2ChainId: l2ChainId ?? 0n,
  };
  try {
    const span = deriveSpanBatch(raw, ctx);
    const notes: string[] = [];
    if (timing === null) notes.push(NOTE_NO_TIMING);
    if (opts.txs && l2ChainId === null) notes.push(NOTE_NO_CHAIN_ID);
    out.blocks = span.batches.map((b) => {
      const block: JsonObject = {};
      if (timing !== null) block.timestamp = b.timestamp;
      block.epoch_num = b.epochNum;
      block.tx_count = b.transactions.length;
      if (opts.txs && l2ChainId !== null) block.txs = b.transactions.map(batchTxJson);
      return block;
    });
    if (notes.length > 0) out.note = notes.join("; ");
  } catch (e) {
    // A derivation error: op-node drops this batch and reads on.
    out.block_tx_counts = [...raw.blockTxCounts];
    out.error = message(e);
    out.error_phase = "derive";
  }
  return out;
}

/**
 * One batch string (`batch_type ‖ content`) as JSON. `fatal`: op-node's channel reader stops at this
 * batch (a decode error), dropping the rest of the channel.
 */
export function batchJson(data: Uint8Array, opts: DecodeOptions): { json: JsonObject; fatal: boolean } {
  const type = data.length === 0 ? -1 : data[0];
  try {
    if (type === BatchType.Singular) {
      const b = decodeSingularBatch(data.subarray(1));
      const json: JsonObject = {
        type: "singular",
        parent_hash: bytesToHex(b.parentHash),
        epoch_num: b.epochNum,
        epoch_hash: bytesToHex(b.epochHash),
        timestamp: b.timestamp,
        tx_count: b.transactions.length,
      };
      if (opts.txs) json.txs = b.transactions.map(batchTxJson);
      return { json, fatal: false };
    }
    if (type === BatchType.Span) return { json: spanJson(readRawSpanBatch(data, 1).raw, opts), fatal: false };
    const why = type < 0 ? "empty batch data" : `unrecognized batch type ${type}`;
    return { json: { type: "unknown", length: data.length, error: why }, fatal: true };
  } catch (e) {
    if (!(e instanceof BatchDecodeError)) throw e;
    const name = type === BatchType.Singular ? "singular" : "span";
    return { json: { type: name, length: data.length, error: e.message, error_phase: e.phase }, fatal: true };
  }
}

/**
 * Channel data → its compression, sizes and batches (never throws for bad data).
 * `decompressed_length` counts the RLP-framed batch bytes read: the whole decompressed stream for a
 * well-formed channel, the bytes before the damage otherwise.
 */
export function channelDataJson(data: Uint8Array, opts: DecodeOptions): JsonObject {
  const read = readChannelBatches(data, { fjord: true });
  const out: JsonObject = { compressed_length: data.length };
  let decompressed = 0;
  for (const b of read.batches) decompressed += stringLength(b);
  out.decompressed_length = decompressed;
  out.algo = read.algo ?? null;
  const batches: JsonObject[] = [];
  let dropped = 0;
  for (let i = 0; i < read.batches.length; i++) {
    const { json, fatal } = batchJson(read.batches[i], opts);
    batches.push(json);
    if (fatal) {
      dropped = read.batches.length - i - 1;
      break;
    }
  }
  out.batches = batches;
  if (dropped > 0) out.dropped_batches = dropped;
  if (read.error !== undefined) out.error = read.error;
  return out;
}

// ---- frames and channels ----

function frameJson(f: Frame): JsonObject {
  return {
    channel_id: bytesToHexRaw(f.channelId),
    frame_number: f.frameNumber,
    data_length: f.data.length,
    is_last: f.isLast,
  };
}

interface PendingChannel {
  readonly channel: Channel;
  /** Numbers of the frames accepted, in arrival order. */
  readonly frameNumbers: number[];
  readonly rejected: JsonObject[];
  lastFrame: number | null;
}

/**
 * Collects inputs in order: frames are grouped into channels by id across all inputs (out of order
 * allowed, as before Holocene); raw channel inputs become channels of their own.
 */
export class BatchDecoder {
  private readonly inputs: JsonObject[] = [];
  /** Channel reports in order of first appearance; frame channels are filled in by `report`. */
  private readonly order: ({ kind: "frames"; key: string } | { kind: "raw"; json: JsonObject })[] = [];
  private readonly pending = new Map<string, PendingChannel>();

  constructor(private readonly opts: DecodeOptions) {}

  /** Adds one input. Throws InputError when the bytes are not of `kind` (or, for auto, of any kind). */
  add(bytes: Uint8Array, kind: KindOption, extra: JsonObject = {}): void {
    const k = kind === "auto" ? detectKind(bytes) : kind;
    if (k === null) {
      const first = bytes.length === 0 ? "no bytes" : `first byte ${hexByte(bytes[0])}`;
      throw new InputError(
        `cannot tell what the data is (${first}): not batcher tx data, a signed transaction or channel data; try --kind`,
      );
    }
    const input: JsonObject = { ...extra, kind: k, length: bytes.length };
    this.inputs.push(input);
    if (k === "tx") {
      const tx = tryDecodeTx(bytes);
      if (typeof tx === "string") throw new InputError(`not a signed transaction (--kind tx): ${tx}`);
      input.tx = l1TxJson(tx);
      if (tx.type === TxType.Blob && tx.data.length === 0) {
        input.frames = [];
        input.frames_error = "no calldata: a blob transaction carries its frames in blobs";
        return;
      }
      this.addFrames(tx.data, input);
      return;
    }
    if (k === "txdata") {
      if (bytes.length === 0 || bytes[0] !== DERIVATION_VERSION_0) {
        const got = bytes.length === 0 ? "no bytes" : `version byte ${hexByte(bytes[0])}`;
        throw new InputError(`not batcher tx data (--kind txdata): ${got}, want 0x00`);
      }
      this.addFrames(bytes, input);
      return;
    }
    if (bytes.length === 0 || typeof detectCompression(bytes[0], true) !== "string") {
      const got = bytes.length === 0 ? "no bytes" : `first byte ${hexByte(bytes[0])}`;
      throw new InputError(
        `not channel data (--kind channel): ${got} names no compression (zlib: low nibble 8 or 15; brotli: 0x01)`,
      );
    }
    input.channel = this.order.length;
    this.order.push({ kind: "raw", json: { ...extra, ...channelDataJson(bytes, this.opts) } });
  }

  private addFrames(txData: Uint8Array, input: JsonObject): void {
    const frames = parseFrames(txData);
    if (frames instanceof FrameParseError) {
      // op-node drops every frame of a transaction with one bad frame.
      input.frames = [];
      input.frames_error = frames.toString();
      return;
    }
    input.frames = frames.map(frameJson);
    for (const f of frames) {
      const key = bytesKey(f.channelId);
      let p = this.pending.get(key);
      if (p === undefined) {
        p = { channel: new Channel(f.channelId, ZERO_L1_REF), frameNumbers: [], rejected: [], lastFrame: null };
        this.pending.set(key, p);
        this.order.push({ kind: "frames", key });
      }
      const err = p.channel.addFrame(f, ZERO_L1_REF);
      if (err !== null) {
        p.rejected.push({ frame_number: f.frameNumber, error: err });
        continue;
      }
      p.frameNumbers.push(f.frameNumber);
      if (f.isLast) p.lastFrame = f.frameNumber;
    }
  }

  private channelJson(p: PendingChannel): JsonObject {
    const ch = p.channel;
    const out: JsonObject = { id: bytesToHexRaw(ch.id) };
    const data = ch.assemble();
    out.complete = data !== null;
    out.frame_numbers = [...p.frameNumbers].sort((a, b) => a - b);
    if (p.rejected.length > 0) out.rejected_frames = p.rejected;
    if (data === null) {
      const missing: number[] = [];
      if (p.lastFrame !== null) {
        const have = new Set(p.frameNumbers);
        for (let i = 0; i <= p.lastFrame; i++) if (!have.has(i)) missing.push(i);
      }
      out.closed = ch.isClosed();
      if (missing.length > 0) out.missing_frames = missing;
      out.error = ch.isClosed()
        ? `incomplete channel: missing frame(s) ${missing.join(", ")}`
        : "incomplete channel: no closing frame (is_last) seen";
      return out;
    }
    return { ...out, ...channelDataJson(data, this.opts) };
  }

  /** The report: `{ inputs: [...], channels: [...] }`. */
  report(): JsonObject {
    const channels: JsonObject[] = this.order.map((c) =>
      c.kind === "raw" ? c.json : this.channelJson(this.pending.get(c.key)!),
    );
    return { inputs: [...this.inputs], channels };
  }
}

/**
 * Decodes one input (see `BatchDecoder`): `{ inputs: [{ kind, length, tx?, frames?, frames_error? }],
 * channels: [...] }`. Throws InputError when the bytes are not of `kind`.
 */
export function decodeBatcherInput(
  bytes: Uint8Array,
  kind: KindOption = "auto",
  opts: DecodeOptions = { chain: NO_CHAIN_INFO, txs: false },
): JsonObject {
  const d = new BatchDecoder(opts);
  d.add(bytes, kind);
  return d.report();
}

// ---- command line ----

type BatchDecodeConfig = InferConfig<typeof BATCH_DECODE_CLI.flags>;

function fsReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "is a directory";
  if (code === "EACCES") return "permission denied";
  return code ?? message(e);
}

/** The rollup config of `--network` or `--rollup.config`, or null; throws UsageError. */
function loadRollupConfig(a: BatchDecodeConfig): RollupConfig | null {
  if (a.network !== undefined && a["rollup.config"] !== undefined) {
    throw new UsageError("--network and --rollup.config are exclusive: give one");
  }
  if (a.network !== undefined) {
    const cfg = networkRollupConfig(a.network);
    if (cfg === null) throw new UsageError(`--network: unknown network ${JSON.stringify(a.network)}`);
    return cfg;
  }
  const path = a["rollup.config"];
  if (path === undefined) return null;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new UsageError(`--rollup.config: ${path}: ${fsReason(e)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`--rollup.config: ${path}: not JSON`);
  }
  try {
    return parseRollupConfig(json);
  } catch (e) {
    throw new UsageError(`--rollup.config: ${path}: ${message(e).split("\n")[0]}`);
  }
}

/**
 * Runs `opal-node batch-decode` with `args` (the words after the command); returns the exit status.
 * `env` supplies `$OP_NODE_BATCH_DECODE_*` (opal-node passes the process's).
 */
export async function batchDecodeMain(args: readonly string[], io: Io, env: Env = {}): Promise<number> {
  const parsed = parseArgs(BATCH_DECODE_CLI, args, env);
  switch (parsed.kind) {
    case "help":
    case "version":
      io.out(parsed.text.trimEnd());
      return EXIT_OK;
    case "error":
      io.err(`${CMD}: ${parsed.error}`);
      return EXIT_USAGE;
  }
  const { config, args: files } = parsed;
  let cfg: RollupConfig | null;
  try {
    cfg = loadRollupConfig(config);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`${CMD}: ${e.message}`);
    return EXIT_USAGE;
  }
  for (const w of parsed.warnings) io.err(`${CMD}: ${w}`);
  const decoder = new BatchDecoder({ chain: chainInfoOf(cfg, config["l2-chain-id"] ?? null), txs: config.txs });
  for (const file of files) {
    try {
      let content: Uint8Array;
      try {
        const buf = readFileSync(file === "-" ? 0 : file);
        content = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
      } catch (e) {
        throw new InputError(fsReason(e));
      }
      const { bytes, encoding } = readInputBytes(content);
      decoder.add(bytes, config.kind, { file, encoding });
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      io.err(`${CMD}: ${file}: ${e.message}`);
      return EXIT_FAILED;
    }
  }
  const text = JSON.stringify(decoder.report(), null, 2);
  if (config.out === undefined) {
    io.out(text);
    return EXIT_OK;
  }
  try {
    writeFileSync(config.out, `${text}\n`);
  } catch (e) {
    io.err(`${CMD}: --out: ${config.out}: ${fsReason(e)}`);
    return EXIT_FAILED;
  }
  return EXIT_OK;
}
