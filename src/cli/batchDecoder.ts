/**
 * `opal-node batch-decode FILE…` (op-node's batch_decoder): reads batcher data and prints, as JSON,
 * what derivation would see in it — the L1 transaction (hash, sender, …), its frames, the channels
 * they form across all inputs, and each channel's batches (singular, or span with its blocks when a
 * rollup config gives the genesis time, block time and chain id).
 *
 * Each file holds one of (hex text with or without 0x, or raw bytes):
 * - `tx`: a signed L1 batcher transaction (EIP-2718);
 * - `txdata`: batcher transaction data — version byte 0x00, then frames;
 * - `channel`: a compressed channel (zlib, or 0x01 then brotli).
 * `--kind auto` tries them in that order: a transaction that decodes, data that parses as frames,
 * else a channel. Problems inside the data are reported in the JSON (`error` fields); unreadable
 * files and bad options are one line on stderr and a non-zero exit.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { parseRollupConfig, type RollupConfig } from "../rollup/config.js";
import { decodeSingularBatch } from "../rollup/derive/batch.js";
import { readChannelBatches } from "../rollup/derive/channelReader.js";
import { type Frame, parseFrames } from "../rollup/derive/frame.js";
import {
  BatchDecodeError,
  deriveSpanBatch,
  type RawSpanBatch,
  readRawSpanBatch,
  type SpanBatchContext,
} from "../rollup/derive/spanBatch.js";
import { networkRollupConfig } from "../rollup/network.js";
import { decodeTx, txHash } from "../tx/envelope.js";
import { recoverSender } from "../tx/signer.js";
import { type Tx, TxType } from "../tx/tx.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io } from "./processIo.js";

export const BATCH_DECODE_HELP = `Usage: opal-node batch-decode [options] FILE...

Decodes batcher data and prints its frames, channels and batches as JSON.
Each FILE holds hex text (0x optional) or raw bytes of one of:
  tx       a signed L1 batcher transaction (EIP-2718)
  txdata   batcher transaction data: version byte 0x00, then frames
  channel  compressed channel data (zlib, or 0x01 + brotli)

Options:
  --kind tx|txdata|channel|auto  what the files hold (default auto: a transaction if it decodes,
                                 else frames if they parse, else a channel)
  --network NAME                 a bundled network, to derive span-batch blocks (timestamps, origins, txs)
  --rollup.config PATH           a rollup.json, for the same
  --l2-chain-id N                L2 chain id for span-batch transactions (overrides the config's)
  --txs                          list every transaction of span-batch blocks (default: counts)
  --out PATH                     write the JSON there (default stdout)
  -h, --help                     this text`;

type Kind = "tx" | "txdata" | "channel";

class UsageError extends Error {}

/** Bytes of a file: hex text (whitespace and 0x allowed) or the raw contents. */
export function readInput(raw: Uint8Array): Uint8Array {
  const text = Buffer.from(raw).toString("latin1").trim();
  const body = (text.startsWith("0x") || text.startsWith("0X") ? text.slice(2) : text).replace(/\s+/g, "");
  if (body.length > 0 && body.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(body)) return hexToBytes(`0x${body}`);
  return raw;
}

function txJson(tx: Tx): Record<string, unknown> {
  const sender = tx.type === TxType.Deposit ? tx.from : recoverSender(tx);
  return {
    hash: bytesToHex(txHash(tx)),
    type: tx.type,
    chain_id: "chainId" in tx ? Number(tx.chainId) : null,
    nonce: tx.type === TxType.Deposit ? null : Number(tx.nonce),
    to: tx.to === null ? null : bytesToHex(tx.to),
    from: sender === null ? null : bytesToHex(sender),
    data_length: tx.data.length,
    blob_hashes: tx.type === TxType.Blob ? tx.blobVersionedHashes.map(bytesToHex) : undefined,
  };
}

function frameJson(f: Frame): Record<string, unknown> {
  return {
    channel_id: bytesToHex(f.channelId),
    frame_number: f.frameNumber,
    data_length: f.data.length,
    is_last: f.isLast,
  };
}

/** What one input decodes to before channels are assembled. */
interface Decoded {
  readonly json: Record<string, unknown>;
  readonly frames: Frame[];
  /** A whole channel given directly (`channel` kind). */
  readonly channel: Uint8Array | null;
}

function decodeAs(kind: Kind, bytes: Uint8Array): Decoded {
  if (kind === "tx") {
    const tx = decodeTx(bytes);
    const parsed = parseFrames(tx.data);
    if (!Array.isArray(parsed)) {
      return {
        json: { kind, transaction: txJson(tx), frames: [], error: parsed.toString() },
        frames: [],
        channel: null,
      };
    }
    return { json: { kind, transaction: txJson(tx), frames: parsed.map(frameJson) }, frames: parsed, channel: null };
  }
  if (kind === "txdata") {
    const parsed = parseFrames(bytes);
    if (!Array.isArray(parsed))
      return { json: { kind, frames: [], error: parsed.toString() }, frames: [], channel: null };
    return { json: { kind, frames: parsed.map(frameJson) }, frames: parsed, channel: null };
  }
  return { json: { kind, compressed_length: bytes.length }, frames: [], channel: bytes };
}

function detect(bytes: Uint8Array): Kind {
  try {
    decodeTx(bytes);
    return "tx";
  } catch {
    // not a transaction
  }
  if (Array.isArray(parseFrames(bytes))) return "txdata";
  return "channel";
}

function spanJson(raw: RawSpanBatch, ctx: SpanBatchContext | null, withTxs: boolean): Record<string, unknown> {
  const txCount = raw.blockTxCounts.reduce((a, b) => a + b, 0);
  const out: Record<string, unknown> = {
    type: "span",
    rel_timestamp: Number(raw.relTimestamp),
    l1_origin_num: Number(raw.l1OriginNum),
    parent_check: bytesToHex(raw.parentCheck),
    l1_origin_check: bytesToHex(raw.l1OriginCheck),
    block_count: raw.blockTxCounts.length,
    tx_count: txCount,
    block_tx_counts: raw.blockTxCounts,
  };
  if (ctx === null) {
    out.note = "absolute timestamps, origins and transactions need a rollup config (--network or --rollup.config)";
    return out;
  }
  try {
    const span = deriveSpanBatch(raw, ctx);
    out.blocks = span.batches.map((b) => ({
      timestamp: b.timestamp,
      epoch_num: b.epochNum,
      tx_count: b.transactions.length,
      ...(withTxs
        ? {
            txs: b.transactions.map((t) => {
              const { hash, type, nonce, to, from } = txJson(decodeTx(t));
              return { hash, type, nonce, to, from };
            }),
          }
        : {}),
    }));
  } catch (e) {
    out.error = (e as Error).message;
  }
  return out;
}

function batchJson(data: Uint8Array, ctx: SpanBatchContext | null, withTxs: boolean): Record<string, unknown> {
  try {
    if (data.length === 0) return { error: "empty batch" };
    if (data[0] === 0) {
      const b = decodeSingularBatch(data.subarray(1));
      return {
        type: "singular",
        parent_hash: bytesToHex(b.parentHash),
        epoch_num: b.epochNum,
        epoch_hash: bytesToHex(b.epochHash),
        timestamp: b.timestamp,
        tx_count: b.transactions.length,
      };
    }
    if (data[0] === 1) return spanJson(readRawSpanBatch(data, 1).raw, ctx, withTxs);
    return { error: `unknown batch type ${data[0]}` };
  } catch (e) {
    if (e instanceof BatchDecodeError) return { error: e.message };
    throw e;
  }
}

function channelJson(
  id: string | null,
  data: Uint8Array,
  ctx: SpanBatchContext | null,
  withTxs: boolean,
): Record<string, unknown> {
  const read = readChannelBatches(data, { fjord: true });
  const decompressed = read.batches.reduce((n, b) => n + b.length, 0);
  return {
    ...(id === null ? {} : { id }),
    complete: true,
    compressed_length: data.length,
    algo: read.algo ?? null,
    batch_bytes: decompressed,
    batches: read.batches.map((b) => batchJson(b, ctx, withTxs)),
    ...(read.error === undefined ? {} : { error: read.error }),
  };
}

/** Groups frames by channel; complete channels (frames 0..last) are decoded. */
function channelsOf(
  frames: readonly Frame[],
  ctx: SpanBatchContext | null,
  withTxs: boolean,
): Record<string, unknown>[] {
  const byId = new Map<string, Frame[]>();
  for (const f of frames) {
    const k = bytesToHex(f.channelId);
    const list = byId.get(k) ?? [];
    list.push(f);
    byId.set(k, list);
  }
  const out: Record<string, unknown>[] = [];
  for (const [id, list] of byId) {
    const sorted = [...list].sort((a, b) => a.frameNumber - b.frameNumber);
    const last = sorted.find((f) => f.isLast);
    const numbers = new Set(sorted.map((f) => f.frameNumber));
    const complete =
      last !== undefined && Array.from({ length: last.frameNumber + 1 }, (_, i) => i).every((i) => numbers.has(i));
    if (!complete) {
      out.push({ id, complete: false, frames: sorted.map((f) => f.frameNumber) });
      continue;
    }
    const parts = sorted.filter(
      (f, i, a) => f.frameNumber <= last.frameNumber && (i === 0 || a[i - 1]!.frameNumber !== f.frameNumber),
    );
    const size = parts.reduce((n, f) => n + f.data.length, 0);
    const data = new Uint8Array(size);
    let pos = 0;
    for (const f of parts) {
      data.set(f.data, pos);
      pos += f.data.length;
    }
    out.push({ ...channelJson(id, data, ctx, withTxs), frames: parts.length });
  }
  return out;
}

function loadConfig(values: { network?: string; "rollup.config"?: string }): RollupConfig | null {
  if (values.network !== undefined) {
    const c = networkRollupConfig(values.network);
    if (c === null) throw new UsageError(`--network: unknown network ${JSON.stringify(values.network)}`);
    return c;
  }
  const path = values["rollup.config"];
  if (path === undefined) return null;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`--rollup.config: ${path}: ${code === "ENOENT" ? "no such file" : (code ?? "not JSON")}`);
  }
  try {
    return parseRollupConfig(json);
  } catch (e) {
    throw new UsageError(`--rollup.config: ${path}: ${(e as Error).message}`);
  }
}

const OPTIONS = {
  kind: { type: "string" },
  network: { type: "string" },
  "rollup.config": { type: "string" },
  "l2-chain-id": { type: "string" },
  txs: { type: "boolean" },
  out: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function parseOptions(args: readonly string[]) {
  return parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
}

/** Runs `opal-node batch-decode` with `args` (after the subcommand); returns the exit status. */
export async function batchDecodeMain(args: readonly string[], io: Io): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(args);
  } catch (e) {
    io.err(`opal-node batch-decode: ${(e as Error).message.split("\n")[0]}`);
    return EXIT_USAGE;
  }
  const v = parsed.values;
  if (v.help === true) {
    io.out(BATCH_DECODE_HELP);
    return EXIT_OK;
  }
  try {
    const kind = v.kind ?? "auto";
    if (!["tx", "txdata", "channel", "auto"].includes(kind)) {
      throw new UsageError(`--kind: want tx, txdata, channel or auto, got ${JSON.stringify(kind)}`);
    }
    if (parsed.positionals.length === 0) throw new UsageError("no input files (see --help)");
    if (v.network !== undefined && v["rollup.config"] !== undefined) {
      throw new UsageError("--network and --rollup.config are exclusive");
    }
    const cfg = loadConfig(v);
    let chainId = cfg?.l2ChainId ?? null;
    if (v["l2-chain-id"] !== undefined) {
      if (!/^[0-9]+$/.test(v["l2-chain-id"])) throw new UsageError(`--l2-chain-id: not a number: ${v["l2-chain-id"]}`);
      chainId = BigInt(v["l2-chain-id"]);
    }
    const ctx: SpanBatchContext | null =
      cfg === null || chainId === null
        ? null
        : { genesisL2Time: cfg.genesis.l2Time, blockTime: cfg.blockTime, l2ChainId: chainId };
    const inputs: Record<string, unknown>[] = [];
    const frames: Frame[] = [];
    const direct: Record<string, unknown>[] = [];
    for (const file of parsed.positionals) {
      let raw: Uint8Array;
      try {
        raw = new Uint8Array(readFileSync(file));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        throw new UsageError(`${file}: ${code === "ENOENT" ? "no such file" : (code ?? (e as Error).message)}`);
      }
      const bytes = readInput(raw);
      const k: Kind = kind === "auto" ? detect(bytes) : (kind as Kind);
      let d: Decoded;
      try {
        d = decodeAs(k, bytes);
      } catch (e) {
        throw new UsageError(`${file}: not a ${k === "tx" ? "transaction" : k}: ${(e as Error).message}`);
      }
      inputs.push({ file, ...d.json });
      for (const f of d.frames) frames.push(f);
      if (d.channel !== null) direct.push({ file, ...channelJson(null, d.channel, ctx, v.txs === true) });
    }
    const result = { inputs, channels: [...channelsOf(frames, ctx, v.txs === true), ...direct] };
    const text = JSON.stringify(result, null, 2);
    if (v.out !== undefined) {
      try {
        writeFileSync(v.out, `${text}\n`);
      } catch (e) {
        throw new UsageError(`--out: ${v.out}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    } else {
      io.out(text);
    }
    return EXIT_OK;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`opal-node batch-decode: ${e.message}`);
      return EXIT_FAILED;
    }
    throw e;
  }
}
