/**
 * The trace namespace, Parity/OpenEthereum style as erigon serves it: trace_block,
 * trace_transaction, trace_call, trace_replayBlockTransactions (the "trace" and "stateDiff" types;
 * vmTrace answers null) and trace_filter (fromBlock/toBlock/fromAddress/toAddress/after/count), from
 * flat call traces (evm/tracers/parityTracer.ts) of re-executed blocks.
 */
import type { ChainView } from "../../chain/blockchain.js";
import { MultiTracer } from "../../evm/tracers/multiTracer.js";
import { type ParityTrace, ParityTracer } from "../../evm/tracers/parityTracer.js";
import { PrestateTracer } from "../../evm/tracers/prestateTracer.js";
import { bytesKey } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { rulesAt } from "../../spec/chainConfig.js";
import { Fork } from "../../spec/forks.js";
import { type SliceJob, Slicer } from "../../util/slicer.js";
import { RpcError } from "../errors.js";
import type { ChainReader, DecodedBlock } from "../eth/chainReader.js";
import { DEFAULT_LOG_QUERY_LIMITS } from "../eth/filters.js";
import { JsonText } from "../methodTable.js";
import { type BlockNumberSelector, blockNumber, blockNumberOrHash, hash, optional } from "../params.js";
import { type AnyMethod, defineMethod } from "../registry.js";
import { callArgs, type TraceFilter, traceFilter, traceTypes } from "./params.js";
import { replayBlock, traceMessage } from "./replay.js";

export interface TraceDeps {
  readonly chain: ChainView;
  readonly reader: ChainReader;
  readonly gasCap: bigint;
  /** Runs trace_filter a block at a time (util/slicer.ts); absent: a slicer of its own. */
  readonly slicer?: Slicer;
  /** Characters of trace_filter's reply past which it stops with -32003 (0 = none; default 25,000,000). */
  readonly resultSizeLimit?: number;
}

/** Adds the block and tx placement to a flat trace, in erigon's field order. */
function place(t: ParityTrace, b: DecodedBlock, txIndex: number): ParityTrace {
  const o: ParityTrace = { action: t.action, blockHash: bytesToHex(b.hash), blockNumber: b.header.number };
  if ("error" in t) o.error = t.error;
  if ("result" in t) o.result = t.result;
  o.subtraces = t.subtraces;
  o.traceAddress = t.traceAddress;
  o.transactionHash = bytesToHex(b.txHashes[txIndex]);
  o.transactionPosition = txIndex;
  o.type = t.type;
  return o;
}

const ETHER = 10n ** 18n;

/** Block and uncle reward traces of a pre-merge block (as erigon/OpenEthereum list them after the txs). */
function rewardTraces(chain: ChainView, b: DecodedBlock): ParityTrace[] {
  if (b.header.number === 0) return [];
  const fork = rulesAt(chain.config, b.header.number, b.header.timestamp).fork;
  if (fork >= Fork.Paris) return [];
  const reward = fork >= Fork.Constantinople ? 2n * ETHER : fork >= Fork.Byzantium ? 3n * ETHER : 5n * ETHER;
  const ommers = b.body.ommers;
  const entry = (author: Uint8Array, rewardType: string, value: bigint): ParityTrace => ({
    action: { author: bytesToHex(author), rewardType, value: `0x${value.toString(16)}` },
    blockHash: bytesToHex(b.hash),
    blockNumber: b.header.number,
    result: null,
    subtraces: 0,
    traceAddress: [],
    transactionHash: null,
    transactionPosition: null,
    type: "reward",
  });
  const out = [entry(b.header.coinbase, "block", reward + (reward / 32n) * BigInt(ommers.length))];
  for (const o of ommers) out.push(entry(o.coinbase, "uncle", (reward * BigInt(8 + o.number - b.header.number)) / 8n));
  return out;
}

export function traceApi(deps: TraceDeps): AnyMethod[] {
  const { chain, reader } = deps;
  const slicer = deps.slicer ?? new Slicer();
  const sizeLimit = deps.resultSizeLimit ?? DEFAULT_LOG_QUERY_LIMITS.resultSizeLimit;
  const cache = new Map<string, ParityTracer[]>();

  /** Flat traces of every tx of `b` (cached per block hash, a few blocks). */
  const blockTracers = (b: DecodedBlock): ParityTracer[] => {
    const k = bytesKey(b.hash);
    const hit = cache.get(k);
    if (hit !== undefined) return hit;
    if (b.txs.length === 0 || b.header.number === 0) return [];
    const tracers = b.txs.map(() => new ParityTracer());
    replayBlock(chain, b, (i) => tracers[i]);
    cache.set(k, tracers);
    if (cache.size > 16) cache.delete(cache.keys().next().value as string);
    return tracers;
  };

  const blockBy = (sel: BlockNumberSelector): DecodedBlock | null => {
    const h = reader.resolve(sel);
    return h === null ? null : reader.block(h);
  };

  const blockTraces = (b: DecodedBlock): ParityTrace[] => {
    const out: ParityTrace[] = [];
    blockTracers(b).forEach((t, i) => {
      for (const x of t.result()) out.push(place(x, b, i));
    });
    for (const r of rewardTraces(chain, b)) out.push(r);
    return out;
  };

  const replayResult = (t: ParityTracer, diff: PrestateTracer | null, types: readonly string[]) => ({
    output: bytesToHex(t.output()),
    stateDiff: diff === null ? null : diff.parityStateDiff(),
    trace: types.includes("trace") ? t.result() : [],
    vmTrace: null,
  });

  /** Flat traces and Parity state diffs of every tx of `b` (not cached). */
  const blockWithDiffs = (b: DecodedBlock): { t: ParityTracer; d: PrestateTracer }[] => {
    if (b.txs.length === 0 || b.header.number === 0) return [];
    const pairs = b.txs.map(() => ({ t: new ParityTracer(), d: new PrestateTracer({ parity: true }) }));
    replayBlock(chain, b, (i) => new MultiTracer([pairs[i].t, pairs[i].d]));
    return pairs;
  };

  return [
    defineMethod({
      name: "trace_block",
      params: [blockNumber],
      handler: ([sel]) => {
        const b = blockBy(sel);
        return b === null ? null : blockTraces(b);
      },
    }),
    defineMethod({
      name: "trace_transaction",
      params: [hash],
      handler: ([txHash]) => {
        const at = reader.locate(txHash);
        if (at === null) return null;
        const t = blockTracers(at.block)[at.index];
        return t === undefined ? null : t.result().map((x) => place(x, at.block, at.index));
      },
    }),
    defineMethod({
      name: "trace_call",
      params: [callArgs, traceTypes, optional(blockNumberOrHash)],
      handler: ([msg, types, sel]) => {
        const h = reader.resolve(sel ?? { kind: "tag", tag: "latest" });
        const header = h === null ? null : chain.store.header(h);
        if (h === null || header === null) throw RpcError.server("header not found");
        const t = new ParityTracer();
        const d = types.includes("stateDiff") ? new PrestateTracer({ parity: true }) : null;
        traceMessage(chain, header, h, msg, deps.gasCap, d === null ? t : new MultiTracer([t, d]));
        return replayResult(t, d, types);
      },
    }),
    defineMethod({
      name: "trace_replayBlockTransactions",
      params: [blockNumberOrHash, traceTypes],
      handler: ([sel, types]) => {
        const h = reader.resolve(sel);
        const b = h === null ? null : reader.block(h);
        if (b === null) return null;
        if (types.includes("stateDiff")) {
          return blockWithDiffs(b).map((x, i) => ({
            ...replayResult(x.t, x.d, types),
            transactionHash: bytesToHex(b.txHashes[i]),
          }));
        }
        return blockTracers(b).map((t, i) => ({
          ...replayResult(t, null, types),
          transactionHash: bytesToHex(b.txHashes[i]),
        }));
      },
    }),
    defineMethod({
      name: "trace_filter",
      params: [traceFilter],
      // A block replayed per unit of a sliced job; the reply built as text and held to the cap.
      handler: ([f]) => slicer.run(filterJob(f)),
    }),
  ];

  function* filterJob(f: TraceFilter): SliceJob<JsonText> {
    const head = chain.head.number;
    const num = (s: BlockNumberSelector | undefined, dflt: number): number => {
      if (s === undefined) return dflt;
      if (s.kind === "number") return s.number;
      if (s.tag === "earliest") return 0;
      const h = reader.resolve(s);
      const hd = h === null ? null : chain.store.header(h);
      return hd === null ? head : hd.number;
    };
    const from = num(f.fromBlock, head);
    const to = num(f.toBlock, head);
    if (from > to) throw RpcError.server(`invalid parameters: fromBlock cannot be greater than toBlock`);
    const fromSet = f.fromAddress === null ? null : new Set(f.fromAddress.map((a) => bytesToHex(a)));
    const toSet = f.toAddress === null ? null : new Set(f.toAddress.map((a) => bytesToHex(a)));
    const parts: string[] = [];
    let size = 1; // the brackets, less the comma the first trace does not have
    let skipped = 0;
    for (let n = from; n <= to && n <= head; n++) {
      yield;
      const b = blockBy({ kind: "number", number: n });
      if (b === null) continue;
      for (const t of blockTraces(b)) {
        const a = t.action as Record<string, string>;
        const r = (t.result ?? null) as Record<string, string> | null;
        const src = a.from ?? a.address;
        const dst = a.to ?? r?.address ?? a.refundAddress ?? a.author;
        if (fromSet !== null && fromSet.size > 0 && !fromSet.has(src)) continue;
        if (toSet !== null && toSet.size > 0 && (dst === undefined || !toSet.has(dst))) continue;
        if (skipped < f.after) {
          skipped++;
          continue;
        }
        const text = JSON.stringify(t);
        size += text.length + 1;
        if (sizeLimit > 0 && size > sizeLimit) throw RpcError.responseTooLarge();
        parts.push(text);
        if (f.count !== null && parts.length >= f.count) return JsonText.array(parts);
      }
    }
    return JsonText.array(parts);
  }
}
