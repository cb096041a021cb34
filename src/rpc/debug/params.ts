/**
 * Decoders of the debug_* and trace_* object arguments: geth's TransactionArgs (the call of
 * debug_traceCall / trace_call), its TraceConfig / TraceCallConfig (tracer, tracerConfig, timeout
 * and the struct logger's flags), and the trace_filter request. Messages follow params.ts.
 */
import type { CallMessage } from "../../executor/simulate.js";
import type { AccessList } from "../../tx/tx.js";
import {
  address,
  type BlockNumberSelector,
  bigQuantity,
  blockNumber,
  bool,
  data,
  hash,
  jsonKind,
  type ParamDecoder,
  ParamError,
  quantity,
  uint64,
} from "../params.js";

function object(v: unknown, goType: string): Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    const kind =
      typeof v === "string" ? "string" : typeof v === "number" ? "number" : Array.isArray(v) ? "array" : "bool";
    throw new ParamError(`json: cannot unmarshal ${kind} into Go value of type ${goType}`);
  }
  return v as Record<string, unknown>;
}

function field<T>(o: Record<string, unknown>, name: string, d: ParamDecoder<T>): T | undefined {
  for (const k of Object.keys(o)) {
    if (k.toLowerCase() === name.toLowerCase()) {
      const v = o[k];
      return v === null || v === undefined ? undefined : d.decode(v);
    }
  }
  return undefined;
}

function accessList(v: unknown): AccessList {
  if (!Array.isArray(v)) throw new ParamError("json: cannot unmarshal into Go value of type types.AccessList");
  return v.map((e) => {
    const o = object(e, "types.AccessTuple");
    const keys = o.storageKeys;
    return {
      address: address.decode(o.address),
      storageKeys: Array.isArray(keys) ? keys.map((k) => hash.decode(k)) : [],
    };
  });
}

/** geth TransactionArgs as a call message (from defaults to the zero address). */
export const callArgs: ParamDecoder<CallMessage> = {
  optional: false,
  decode(v) {
    const o = object(v, "ethapi.TransactionArgs");
    const input = field(o, "input", data);
    const dataField = field(o, "data", data);
    if (input !== undefined && dataField !== undefined && !equal(input, dataField)) {
      throw new ParamError(
        `both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`,
      );
    }
    const gas = field(o, "gas", uint64);
    const al = o.accessList;
    return {
      from: field(o, "from", address) ?? new Uint8Array(20),
      to: field(o, "to", address) ?? null,
      gas: gas ?? null,
      gasPrice: field(o, "gasPrice", bigQuantity) ?? null,
      maxFeePerGas: field(o, "maxFeePerGas", bigQuantity) ?? null,
      maxPriorityFeePerGas: field(o, "maxPriorityFeePerGas", bigQuantity) ?? null,
      value: field(o, "value", bigQuantity) ?? 0n,
      data: input ?? dataField ?? new Uint8Array(0),
      accessList: al === undefined || al === null ? [] : accessList(al),
    };
  },
};

/** geth TraceConfig (logger.Config embedded, plus tracer, tracerConfig, timeout, reexec). */
export interface TraceOptions {
  readonly tracer: string | null;
  readonly tracerConfig: Record<string, unknown>;
  readonly timeout: string | null;
  readonly disableStack: boolean;
  readonly disableStorage: boolean;
  readonly enableMemory: boolean;
  readonly enableReturnData: boolean;
  readonly limit: number;
}

const NO_OPTIONS: TraceOptions = {
  tracer: null,
  tracerConfig: {},
  timeout: null,
  disableStack: false,
  disableStorage: false,
  enableMemory: false,
  enableReturnData: false,
  limit: 0,
};

/** Go's time.ParseDuration grammar, enough to reject what geth rejects. */
const DURATION = /^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$/;

export const traceOptions: ParamDecoder<TraceOptions> = {
  optional: true,
  decode(v) {
    if (v === null || v === undefined) return NO_OPTIONS;
    const o = object(v, "tracers.TraceConfig");
    const tracerField = o.tracer;
    if (tracerField !== undefined && tracerField !== null && typeof tracerField !== "string") {
      throw new ParamError("json: cannot unmarshal into Go struct field TraceConfig.tracer of type string");
    }
    const timeout = o.timeout;
    if (timeout !== undefined && timeout !== null) {
      if (typeof timeout !== "string")
        throw new ParamError("json: cannot unmarshal into Go struct field TraceConfig.timeout of type string");
    }
    const cfg = o.tracerConfig;
    return {
      tracer: typeof tracerField === "string" && tracerField !== "" ? tracerField : null,
      tracerConfig:
        cfg !== null && typeof cfg === "object" && !Array.isArray(cfg) ? (cfg as Record<string, unknown>) : {},
      timeout: typeof timeout === "string" ? timeout : null,
      disableStack: field(o, "disableStack", bool) ?? false,
      disableStorage: field(o, "disableStorage", bool) ?? false,
      enableMemory: field(o, "enableMemory", bool) ?? false,
      enableReturnData: field(o, "enableReturnData", bool) ?? false,
      limit: field(o, "limit", quantityOrNumber) ?? 0,
    };
  },
};

/** A timeout string is a Go duration; geth fails the call when it does not parse. */
export function checkTimeout(t: string | null): void {
  if (t !== null && !DURATION.test(t)) throw new Error(`time: invalid duration "${t}"`);
}

/** geth `defaultTraceTimeout`: the time one traced tx may run when the config names none. */
export const DEFAULT_TRACE_TIMEOUT_MS = 5000;

const DURATION_UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * The trace timeout in ms: the TraceConfig's Go duration ("500ms", "1m30s"), or geth's 5 s default
 * when absent; a string geth cannot parse fails the call with Go's text.
 */
export function traceTimeoutMs(t: string | null): number {
  if (t === null) return DEFAULT_TRACE_TIMEOUT_MS;
  checkTimeout(t);
  let ms = 0;
  for (const m of t.matchAll(/([0-9]+(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)/g))
    ms += Number(m[1]) * DURATION_UNIT_MS[m[2]!]!;
  return ms;
}

const quantityOrNumber: ParamDecoder<number> = {
  optional: false,
  decode(v) {
    if (typeof v === "number" && Number.isInteger(v) && v >= 0) return v;
    return quantity.decode(v);
  },
};

/**
 * A Go `int` argument (debug_storageRangeAt's txIndex and maxResult): a JSON number without a
 * fraction, `null` as 0, encoding/json's messages otherwise.
 */
export const goInt: ParamDecoder<number> = {
  optional: false,
  decode(v) {
    if (v === null) return 0;
    if (typeof v !== "number") throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type int`);
    if (!Number.isSafeInteger(v)) throw new ParamError(`json: cannot unmarshal number ${v} into Go value of type int`);
    return v;
  },
};

/** trace_filter's request object. */
export interface TraceFilter {
  readonly fromBlock: BlockNumberSelector | undefined;
  readonly toBlock: BlockNumberSelector | undefined;
  readonly fromAddress: Uint8Array[] | null;
  readonly toAddress: Uint8Array[] | null;
  readonly after: number;
  readonly count: number | null;
}

export const traceFilter: ParamDecoder<TraceFilter> = {
  optional: false,
  decode(v) {
    const o = object(v, "TraceFilterRequest");
    const addrs = (x: unknown): Uint8Array[] | null => {
      if (x === undefined || x === null) return null;
      if (!Array.isArray(x)) return [address.decode(x)];
      return x.map((a) => address.decode(a));
    };
    return {
      fromBlock: field(o, "fromBlock", blockNumber),
      toBlock: field(o, "toBlock", blockNumber),
      fromAddress: addrs(o.fromAddress),
      toAddress: addrs(o.toAddress),
      after: field(o, "after", quantityOrNumber) ?? 0,
      count: field(o, "count", quantityOrNumber) ?? null,
    };
  },
};

/** trace_* trace type list ("trace", "vmTrace", "stateDiff"). */
export const traceTypes: ParamDecoder<string[]> = {
  optional: false,
  decode(v) {
    if (!Array.isArray(v) || v.some((t) => typeof t !== "string")) {
      throw new ParamError("json: cannot unmarshal into Go value of type []string");
    }
    return v as string[];
  },
};

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
