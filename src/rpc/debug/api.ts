/**
 * The debug namespace: geth's tracing API (eth/tracers/api.go: debug_traceTransaction,
 * debug_traceCall, debug_traceBlockByNumber/ByHash with the struct logger by default, or
 * callTracer, prestateTracer, 4byteTracer; tracerConfig, and the timeout of each traced tx, geth's 5 s
 * by default) and the raw-data
 * methods of internal/ethapi (debug_getRawBlock, _getRawHeader, _getRawReceipts, _getRawTransaction).
 */
import { encodeReceiptsForRoot } from "../../block/receipt.js";
import type { ChainView } from "../../chain/blockchain.js";
import { precompileTable } from "../../evm/precompiles/table.js";
import type { EvmTracer } from "../../evm/tracer.js";
import { CallTracer } from "../../evm/tracers/callTracer.js";
import { FourByteTracer } from "../../evm/tracers/fourByteTracer.js";
import { PrestateTracer } from "../../evm/tracers/prestateTracer.js";
import { StructLogger } from "../../evm/tracers/structLogger.js";
import { bytesToHex } from "../../primitives/hex.js";
import { rulesAt } from "../../spec/chainConfig.js";
import { RpcError } from "../errors.js";
import type { ChainReader, DecodedBlock } from "../eth/chainReader.js";
import { type BlockSelector, blockNumber, blockNumberOrHash, hash } from "../params.js";
import { type AnyMethod, defineMethod } from "../registry.js";
import { callArgs, type TraceOptions, traceOptions, traceTimeoutMs } from "./params.js";
import { replayBlockTimed, TRACE_TIMEOUT, traceMessage } from "./replay.js";

export interface DebugDeps {
  readonly chain: ChainView;
  readonly reader: ChainReader;
  /** --rpc.gascap for debug_traceCall (0: none). */
  readonly gasCap: bigint;
}

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

/** The tracer `opts` names (the struct logger when none), for a block at `number`/`timestamp`. */
export function makeTracer(chain: ChainView, opts: TraceOptions, number: number, timestamp: number): ResultTracer {
  const cfg = opts.tracerConfig;
  switch (opts.tracer) {
    case null:
      return new StructLogger({
        disableStack: opts.disableStack,
        disableStorage: opts.disableStorage,
        enableMemory: opts.enableMemory,
        enableReturnData: opts.enableReturnData,
        limit: opts.limit,
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

export function debugApi(deps: DebugDeps): AnyMethod[] {
  const { chain, reader } = deps;

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
    const { traced, timedOut } = replayBlockTimed(
      chain,
      b,
      () => makeTracer(chain, opts, b.header.number, b.header.timestamp),
      timeoutMs,
    );
    const out: { index: number; entry: Record<string, unknown> }[] = traced.map((t) => ({
      index: t.index,
      entry: { txHash: bytesToHex(b.txHashes[t.index]), result: (t.tracer as ResultTracer).result() },
    }));
    for (const i of timedOut)
      out.push({ index: i, entry: { txHash: bytesToHex(b.txHashes[i]), error: TRACE_TIMEOUT } });
    return out.sort((x, y) => x.index - y.index).map((x) => x.entry);
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
        const tracer = makeTracer(chain, o, b.header.number, b.header.timestamp);
        const r = replayBlockTimed(chain, b, (i) => (i === at.index ? tracer : null), timeoutMs, at.index);
        if (r.timedOut.length > 0) throw RpcError.server(TRACE_TIMEOUT);
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
        const tracer = makeTracer(chain, o, header.number, header.timestamp);
        traceMessage(chain, header, h, msg, deps.gasCap, tracer, timeoutMs);
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
