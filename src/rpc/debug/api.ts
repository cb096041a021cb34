/**
 * The debug namespace: geth's tracing API (eth/tracers/api.go: debug_traceTransaction,
 * debug_traceCall, debug_traceBlockByNumber/ByHash and debug_traceBlock (a block given as RLP, stored
 * or not) with the struct logger by default, or callTracer, prestateTracer, 4byteTracer;
 * tracerConfig, and the timeout of each traced tx, geth's 5 s by default; debug_intermediateRoots),
 * eth/api_debug.go (debug_storageRangeAt, debug_getBadBlocks), the raw-data methods of
 * internal/ethapi (debug_getRawBlock, _getRawHeader, _getRawReceipts, _getRawTransaction,
 * debug_dbGet, debug_setHead), and reth's debug_executionWitness(ByBlockHash), which op-reth serves
 * for OP proofs. The traces, debug_traceCall and debug_intermediateRoots run in the evmCall workers
 * when the node has them (rpc/callOffload.ts `TRACE_METHODS`); struct logs are held to the reply
 * cap as they are recorded (`TraceBudget`).
 */
import { headerHash } from "../../block/header.js";
import { encodeReceiptsForRoot } from "../../block/receipt.js";
import { Blockchain, type ChainView, type HeadChange } from "../../chain/blockchain.js";
import { precompileTable } from "../../evm/precompiles/table.js";
import type { EvmTracer } from "../../evm/tracer.js";
import { CallTracer } from "../../evm/tracers/callTracer.js";
import { FourByteTracer } from "../../evm/tracers/fourByteTracer.js";
import { PrestateTracer } from "../../evm/tracers/prestateTracer.js";
import { StructLogger, TraceBudget } from "../../evm/tracers/structLogger.js";
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { rulesAt } from "../../spec/chainConfig.js";
import { RpcError } from "../errors.js";
import type { ChainReader, DecodedBlock } from "../eth/chainReader.js";
import { DEFAULT_LOG_QUERY_LIMITS } from "../eth/filters.js";
import { blockJson } from "../format.js";
import {
  address,
  type BlockNumberSelector,
  type BlockSelector,
  blockNumber,
  blockNumberOrHash,
  data,
  goString,
  hash,
  uint64,
} from "../params.js";
import { type AnyMethod, defineMethod } from "../registry.js";
import { DB_NOT_FOUND, dbValue, parseHexOrString } from "./dbGet.js";
import { intermediateRoots } from "./layeredReplay.js";
import { callArgs, goInt, type TraceOptions, traceOptions, traceTimeoutMs } from "./params.js";
import { decodedBlockOf, replayBlockTimed, TRACE_TIMEOUT, traceMessage } from "./replay.js";
import { storageRangeAt } from "./storageRange.js";
import { executionWitness, witnessJson } from "./witness.js";

export interface DebugDeps {
  /** debug_setHead needs the node's own `Blockchain`; over any other view it refuses. */
  readonly chain: ChainView;
  readonly reader: ChainReader;
  /** --rpc.gascap for debug_traceCall (0: none). */
  readonly gasCap: bigint;
  /** Told of the head change debug_setHead made (the pool and subscriptions, as engine forkchoice tells them). */
  readonly onHead?: (change: HeadChange) => void;
  /**
   * Characters the struct logs of one trace may take (the reply cap, `--rpc.batch-response-max-size`;
   * 0 = none; default 25,000,000): past it the trace stops recording and answers -32003.
   */
  readonly resultSizeLimit?: number;
}

/** reth's EthRpcErrorCode::ResourceNotFound, its code for HeaderNotFound. */
const RESOURCE_NOT_FOUND = -32001;

/** A tracer with its JSON result. */
export interface ResultTracer extends EvmTracer {
  result(): unknown;
}

function flag(cfg: Record<string, unknown>, name: string): boolean {
  const v = cfg[name];
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") {
    throw RpcError.server(`json: cannot unmarshal ${typeof v} into Go struct field .${name} of type bool`);
  }
  return v;
}

/**
 * The tracer `opts` names (the struct logger when none), for a block at `number`/`timestamp`; a
 * struct logger counts what it records against `budget` (shared by a request's tracers).
 */
export function makeTracer(
  chain: ChainView,
  opts: TraceOptions,
  number: number,
  timestamp: number,
  budget: TraceBudget | null = null,
): ResultTracer {
  const cfg = opts.tracerConfig;
  switch (opts.tracer) {
    case null:
      return new StructLogger({
        disableStack: opts.disableStack,
        disableStorage: opts.disableStorage,
        enableMemory: opts.enableMemory,
        enableReturnData: opts.enableReturnData,
        limit: opts.limit,
        ...(budget === null ? {} : { budget }),
      });
    case "callTracer":
      return new CallTracer({ onlyTopCall: flag(cfg, "onlyTopCall"), withLog: flag(cfg, "withLog") });
    case "prestateTracer":
      return new PrestateTracer({
        diffMode: flag(cfg, "diffMode"),
        disableCode: flag(cfg, "disableCode"),
        disableStorage: flag(cfg, "disableStorage"),
      });
    case "4byteTracer": {
      const table = precompileTable(rulesAt(chain.config, number, timestamp));
      return new FourByteTracer((a) => a <= 0xffffn && table.has(Number(a)));
    }
    default:
      throw RpcError.server("tracer not found");
  }
}

/** Block assembled from its stored header and body encodings: list(header, ...body items). */
function rawBlock(headerRlp: Uint8Array, bodyRlp: Uint8Array): Uint8Array {
  const bodyHeaderLen = bodyRlp[0] < 0xf8 ? 1 : 1 + (bodyRlp[0] - 0xf7);
  const len = headerRlp.length + bodyRlp.length - bodyHeaderLen;
  const lenBytes: number[] = [];
  for (let n = len; n > 0; n = Math.floor(n / 256)) lenBytes.unshift(n % 256);
  const head = len < 56 ? [0xc0 + len] : [0xf7 + lenBytes.length, ...lenBytes];
  const out = new Uint8Array(head.length + len);
  out.set(head, 0);
  out.set(headerRlp, head.length);
  out.set(bodyRlp.subarray(bodyHeaderLen), head.length + headerRlp.length);
  return out;
}

function describe(sel: BlockSelector): string {
  return sel.kind === "hash" ? bytesToHex(sel.hash) : sel.kind === "number" ? `#${sel.number}` : sel.tag;
}

/** geth rpc.BlockNumberOrHash.String(): the hash, the number in hex, or the tag. */
function gethSelector(sel: BlockSelector): string {
  return sel.kind === "hash" ? bytesToHex(sel.hash) : sel.kind === "number" ? `0x${sel.number.toString(16)}` : sel.tag;
}

/** reth's BlockNumberOrTag display (block_id_to_str): the number in hex, or the tag. */
function rethSelector(sel: BlockNumberSelector): string {
  return sel.kind === "number" ? `0x${sel.number.toString(16)}` : sel.tag;
}

export function debugApi(deps: DebugDeps): AnyMethod[] {
  const { chain, reader } = deps;
  const sizeLimit = deps.resultSizeLimit ?? DEFAULT_LOG_QUERY_LIMITS.resultSizeLimit;
  /** Past its budget a trace's reply is past the cap: geth's -32003, without building it. */
  const checkBudget = (budget: TraceBudget): void => {
    if (budget.over) throw RpcError.responseTooLarge();
  };

  const blockOf = (sel: BlockSelector): DecodedBlock => {
    const h = reader.resolve(sel);
    const b = h === null ? null : reader.block(h);
    if (b === null) {
      throw RpcError.server(
        sel.kind === "hash" ? `block ${describe(sel)} not found` : `block ${describe(sel)} not found`,
      );
    }
    return b;
  };

  // Each traced tx has the config's timeout (geth's 5 s by default); one past it is an entry with
  // geth's error instead of a result.
  const traceBlock = (b: DecodedBlock, opts: TraceOptions): unknown[] => {
    const timeoutMs = traceTimeoutMs(opts.timeout);
    if (b.header.number === 0) throw RpcError.server("genesis is not traceable");
    const budget = new TraceBudget(sizeLimit);
    const { traced, timedOut } = replayBlockTimed(
      chain,
      b,
      () => makeTracer(chain, opts, b.header.number, b.header.timestamp, budget),
      timeoutMs,
    );
    checkBudget(budget);
    const out: { index: number; entry: Record<string, unknown> }[] = traced.map((t) => ({
      index: t.index,
      entry: { txHash: bytesToHex(b.txHashes[t.index]), result: (t.tracer as ResultTracer).result() },
    }));
    for (const i of timedOut)
      out.push({ index: i, entry: { txHash: bytesToHex(b.txHashes[i]), error: TRACE_TIMEOUT } });
    return out.sort((x, y) => x.index - y.index).map((x) => x.entry);
  };

  /**
   * The parent of a block to replay, found as geth's tracers find it (blockByNumberAndHash): the
   * canonical block at number-1 when it is the parent, else the parent by hash; geth's texts.
   */
  const requireParent = (b: DecodedBlock): void => {
    const n = b.header.number - 1;
    const canon = chain.store.canonicalHash(n);
    if (canon === null) throw RpcError.server(`block #${n} not found`);
    if (equalBytes(canon, b.header.parentHash)) return;
    if (chain.store.header(b.header.parentHash) === null) {
      throw RpcError.server(`block ${bytesToHex(b.header.parentHash)} not found`);
    }
  };

  /** A stored block, else a kept bad block (geth IntermediateRoots reads rawdb.ReadBadBlock next). */
  const storedOrBad = (h: Uint8Array): DecodedBlock | null => {
    const b = reader.block(h);
    if (b !== null) return b;
    const bad = chain.store.badBlock(h);
    return bad === null ? null : decodedBlockOf(bad.rlp);
  };

  /** geth BadBlockArgs: hash, the block as RPCMarshalBlock(block, true, true) marshals it, its RLP. */
  const badBlockJson = (rlp: Uint8Array) => {
    const b = decodedBlockOf(rlp);
    return {
      hash: bytesToHex(b.hash),
      block: blockJson({
        header: b.header,
        hash: b.hash,
        size: rlp.length,
        transactions: b.txs.map((_, i) => reader.txJsonAt(b, i)),
        uncleHashes: b.body.ommers.map((o) => headerHash(o)),
        withdrawals: b.body.withdrawals,
      }),
      rlp: bytesToHex(rlp),
    };
  };

  /** debug_executionWitness(ByBlockHash): reth answers an unknown block with HeaderNotFound. */
  const witnessOf = (h: Uint8Array | null, what: string) => {
    const b = h === null ? null : reader.block(h);
    if (b === null) throw new RpcError(RESOURCE_NOT_FOUND, `block not found: ${what}`);
    return witnessJson(executionWitness(chain, b));
  };

  return [
    defineMethod({
      name: "debug_traceTransaction",
      params: [hash, traceOptions],
      handler: ([txHash, opts]) => {
        const timeoutMs = traceTimeoutMs(opts?.timeout ?? null);
        const at = reader.locate(txHash);
        if (at === null) throw RpcError.server("transaction not found");
        const b = at.block;
        if (b.header.number === 0) throw RpcError.server("genesis is not traceable");
        const o = opts ?? (traceOptions.decode(null) as TraceOptions);
        const budget = new TraceBudget(sizeLimit);
        const tracer = makeTracer(chain, o, b.header.number, b.header.timestamp, budget);
        const r = replayBlockTimed(chain, b, (i) => (i === at.index ? tracer : null), timeoutMs, at.index);
        if (r.timedOut.length > 0) throw RpcError.server(TRACE_TIMEOUT);
        checkBudget(budget);
        return tracer.result();
      },
    }),
    defineMethod({
      name: "debug_traceCall",
      params: [callArgs, blockNumberOrHash, traceOptions],
      handler: ([msg, sel, opts]) => {
        const o = opts ?? (traceOptions.decode(null) as TraceOptions);
        const timeoutMs = traceTimeoutMs(o.timeout);
        const h = reader.resolve(sel);
        const header = h === null ? null : chain.store.header(h);
        if (h === null || header === null) throw RpcError.server("header not found");
        const budget = new TraceBudget(sizeLimit);
        const tracer = makeTracer(chain, o, header.number, header.timestamp, budget);
        traceMessage(chain, header, h, msg, deps.gasCap, tracer, timeoutMs);
        checkBudget(budget);
        return tracer.result();
      },
    }),
    defineMethod({
      name: "debug_traceBlockByNumber",
      params: [blockNumber, traceOptions],
      handler: ([sel, opts]) => traceBlock(blockOf(sel), opts ?? (traceOptions.decode(null) as TraceOptions)),
    }),
    defineMethod({
      name: "debug_traceBlockByHash",
      params: [hash, traceOptions],
      handler: ([h, opts]) =>
        traceBlock(
          blockOf({ kind: "hash", hash: h, requireCanonical: false }),
          opts ?? (traceOptions.decode(null) as TraceOptions),
        ),
    }),
    defineMethod({
      name: "debug_traceBlock",
      params: [data, traceOptions],
      handler: ([rlp, opts]) => {
        let b: DecodedBlock;
        try {
          b = decodedBlockOf(rlp);
        } catch (e) {
          throw RpcError.server(`could not decode block: ${(e as Error).message}`);
        }
        if (b.header.number === 0) throw RpcError.server("genesis is not traceable");
        requireParent(b);
        return traceBlock(b, opts ?? (traceOptions.decode(null) as TraceOptions));
      },
    }),
    defineMethod({
      name: "debug_intermediateRoots",
      params: [hash, traceOptions],
      handler: ([h]) => {
        const b = storedOrBad(h);
        if (b === null) throw RpcError.server(`block ${bytesToHex(h)} not found`);
        if (b.header.number === 0) throw RpcError.server("genesis is not traceable");
        requireParent(b);
        return intermediateRoots(chain, b).map((r) => bytesToHex(r));
      },
    }),
    defineMethod({
      name: "debug_storageRangeAt",
      params: [blockNumberOrHash, goInt, address, data, goInt],
      handler: ([sel, txIndex, addr, keyStart, maxResult]) => {
        if (sel.kind === "hash" && sel.requireCanonical) {
          const hd = chain.store.header(sel.hash);
          const canon = hd === null ? null : chain.store.canonicalHash(hd.number);
          if (hd !== null && (canon === null || !equalBytes(canon, sel.hash))) {
            throw RpcError.server("hash is not currently canonical");
          }
        }
        const h = reader.resolve(sel);
        const b = h === null ? null : reader.block(h);
        if (b === null) throw RpcError.server(`block ${gethSelector(sel)} not found`);
        if (b.header.number === 0) throw RpcError.server("no transaction in genesis");
        if (chain.store.header(b.header.parentHash) === null) {
          throw RpcError.server(`parent ${bytesToHex(b.header.parentHash)} not found`);
        }
        return storageRangeAt(chain, b, txIndex, addr, keyStart, maxResult);
      },
    }),
    defineMethod({
      name: "debug_getBadBlocks",
      params: [],
      handler: () => chain.store.badBlocks().map((bb) => badBlockJson(bb.rlp)),
    }),
    defineMethod({
      name: "debug_setHead",
      params: [uint64],
      handler: ([n]) => {
        if (!(chain instanceof Blockchain)) throw RpcError.server("debug_setHead: this chain view cannot write");
        // After any block import under way (the chain's mutations run one at a time).
        return chain.exclusive(() => {
          const change = chain.rewindHead(n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n));
          if (change !== null) deps.onHead?.(change);
          return null;
        });
      },
    }),
    defineMethod({
      name: "debug_dbGet",
      params: [goString()],
      handler: ([key]) => {
        const v = dbValue(chain, parseHexOrString(key));
        if (v === undefined) throw RpcError.server(DB_NOT_FOUND);
        return bytesToHex(v);
      },
    }),
    defineMethod({
      name: "debug_executionWitness",
      params: [blockNumber],
      handler: ([sel]) => witnessOf(reader.resolve(sel), rethSelector(sel)),
    }),
    defineMethod({
      name: "debug_executionWitnessByBlockHash",
      params: [hash],
      handler: ([h]) => witnessOf(chain.store.header(h) === null ? null : h, `hash ${bytesToHex(h)}`),
    }),
    defineMethod({
      name: "debug_getRawHeader",
      params: [blockNumberOrHash],
      handler: ([sel]) => {
        const h = reader.resolve(sel);
        const rlp = h === null ? undefined : chain.store.headerRlp(h);
        if (rlp === undefined) {
          throw RpcError.server(
            sel.kind === "hash" ? `header ${describe(sel)} not found` : `header ${describe(sel)} not found`,
          );
        }
        return bytesToHex(rlp);
      },
    }),
    defineMethod({
      name: "debug_getRawBlock",
      params: [blockNumberOrHash],
      handler: ([sel]) => {
        const h = reader.resolve(sel);
        const headerRlp = h === null ? undefined : chain.store.headerRlp(h);
        const bodyRlp = h === null ? undefined : chain.store.bodyRlp(h);
        if (headerRlp === undefined || bodyRlp === undefined) throw RpcError.server(`block ${describe(sel)} not found`);
        return bytesToHex(rawBlock(headerRlp, bodyRlp));
      },
    }),
    defineMethod({
      name: "debug_getRawReceipts",
      params: [blockNumberOrHash],
      handler: ([sel]) => {
        const h = reader.resolve(sel);
        const header = h === null ? null : chain.store.header(h);
        const receipts = h === null ? null : chain.store.receipts(h);
        if (header === null || receipts === null) throw RpcError.server(`block ${describe(sel)} not found`);
        const rules = rulesAt(chain.config, header.number, header.timestamp);
        return encodeReceiptsForRoot(receipts, rules).map((r) => bytesToHex(r));
      },
    }),
    defineMethod({
      name: "debug_getRawTransaction",
      params: [hash],
      handler: ([txHash]) => {
        const loc = chain.store.txLocation(txHash);
        const body = loc === null ? null : chain.store.body(loc.blockHash);
        const raw = loc === null || body === null ? undefined : body.transactions[loc.index];
        return raw === undefined ? "0x" : bytesToHex(raw);
      },
    }),
  ];
}
