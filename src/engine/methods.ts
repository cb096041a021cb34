/**
 * The Engine API's JSON-RPC methods over EngineApi (execution-apis src/engine: paris.md through
 * osaka.md, with OP's attributes and V4 payload of op-stack.md §3.9): positional parameter
 * decoding with the spec's object field names, the per-version field and fork-window checks geth's
 * eth/catalyst/api.go makes before it executes anything (forkWindows.ts), and EngineError → RpcError
 * with the same code, message and data.
 */
import { hexToBytes } from "../primitives/hex.js";
import { RpcError } from "../rpc/errors.js";
import { fixedData, hash, optional, type ParamDecoder, ParamError, uint64 } from "../rpc/params.js";
import { type AnyMethod, defineMethod } from "../rpc/registry.js";
import { Fork } from "../spec/forks.js";
import { ENGINE_ERRORS, type EngineApi, EngineError } from "./engineApi.js";
import { forkchoiceWindowError, newPayloadWindowError } from "./forkWindows.js";
import type { PayloadJson } from "./payload.js";

export interface ForkchoiceStateJson {
  headBlockHash: string;
  safeBlockHash: string;
  finalizedBlockHash: string;
}

/** Go's name for a JSON value's kind in "json: cannot unmarshal <kind> into Go value of type …". */
function jsonKind(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "array";
  return "object";
}

/** A JSON object argument (the engine structs); `null` only where the spec allows it (optional). */
function object(goType: string): ParamDecoder<PayloadJson> {
  return {
    optional: false,
    decode(v) {
      if (v === null || typeof v !== "object" || Array.isArray(v)) {
        throw new ParamError(
          `json: cannot unmarshal ${v === null ? "null" : jsonKind(v)} into Go value of type ${goType}`,
        );
      }
      return v as PayloadJson;
    },
  };
}

/** A JSON array of items decoded by `item`; `null` → null (a nil Go slice). */
function list<T>(item: ParamDecoder<T>, goType: string): ParamDecoder<T[] | null> {
  return {
    optional: false,
    decode(v) {
      if (v === null) return null;
      if (!Array.isArray(v))
        throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type ${goType}`);
      return v.map((x) => item.decode(x));
    },
  };
}

/** Go `string` items. */
const str: ParamDecoder<string> = {
  optional: false,
  decode(v) {
    if (typeof v !== "string")
      throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type string`);
    return v;
  },
};

const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;

/** hexutil.Bytes kept as its (checked) hex text: EngineApi takes hex strings. */
const hexData: ParamDecoder<string> = {
  optional: false,
  decode(v) {
    if (typeof v !== "string")
      throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type hexutil.Bytes`);
    if (!HEX_DATA.test(v))
      throw new ParamError("json: cannot unmarshal invalid hex string into Go value of type hexutil.Bytes");
    return v;
  },
};

/** A 32-byte hash kept as lower-case hex text. */
const hashHex: ParamDecoder<string> = {
  optional: false,
  decode(v) {
    hash.decode(v);
    return (v as string).toLowerCase();
  },
};

/** engine.PayloadID: 8 bytes. */
const payloadIdDecoder: ParamDecoder<string> = {
  optional: false,
  decode(v) {
    fixedData(8, "engine.PayloadID").decode(v);
    return (v as string).toLowerCase();
  },
};

/** ForkchoiceStateV1: three 32-byte hashes (Go leaves a missing one zero). */
const forkchoiceState: ParamDecoder<ForkchoiceStateJson> = {
  optional: false,
  decode(v) {
    const o = object("engine.ForkchoiceStateV1").decode(v);
    const hash = (k: keyof ForkchoiceStateJson): string => {
      const x = o[k];
      if (x === undefined || x === null) return `0x${"00".repeat(32)}`;
      try {
        return hashHex.decode(x);
      } catch (e) {
        if (!(e instanceof ParamError)) throw e;
        throw new ParamError(`${e.message} (ForkchoiceStateV1.${k})`);
      }
    };
    // Evaluated in this order, so the first bad field is the one reported.
    return {
      headBlockHash: hash("headBlockHash"),
      safeBlockHash: hash("safeBlockHash"),
      finalizedBlockHash: hash("finalizedBlockHash"),
    };
  },
};

const present = (o: PayloadJson, k: string): boolean => o[k] !== undefined && o[k] !== null;

function invalidParams(detail: string): EngineError {
  return new EngineError(ENGINE_ERRORS.INVALID_PARAMS, `invalid params: ${detail}`);
}

function invalidAttributes(detail: string): EngineError {
  return new EngineError(ENGINE_ERRORS.INVALID_PAYLOAD_ATTRIBUTES, `Invalid payload attributes: ${detail}`);
}

/** EngineError → RpcError (same code, message and data); anything else is rethrown for the dispatcher. */
function engineCall<T>(f: () => T): T {
  const mapped = (e: unknown): unknown => (e instanceof EngineError ? new RpcError(e.code, e.message, e.data) : e);
  try {
    const r = f();
    // An async method (newPayload) rejects instead of throwing: the same mapping applies.
    if (r instanceof Promise) {
      return r.catch((e: unknown) => {
        throw mapped(e);
      }) as T;
    }
    return r;
  } catch (e) {
    throw mapped(e);
  }
}

/** A JSON quantity as a number, or null when it is not one (the decoders downstream report it). */
function quantityOf(v: unknown): number | null {
  if (typeof v !== "string" || !/^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(v)) return null;
  const n = Number(BigInt(v));
  return Number.isSafeInteger(n) ? n : null;
}

/** The fork of payload attributes' timestamp for a block on the current head; null if unreadable. */
function attributesFork(api: EngineApi, a: PayloadJson): Fork | null {
  const ts = quantityOf(a.timestamp);
  return ts === null ? null : api.forkAt(ts, api.chain.head.number + 1).fork;
}

/** The fork of a payload's timestamp and number; null if unreadable (payloadToBlock reports it). */
function payloadFork(api: EngineApi, p: PayloadJson): Fork | null {
  const ts = quantityOf(p.timestamp);
  const n = quantityOf(p.blockNumber);
  return ts === null || n === null ? null : api.forkAt(ts, n).fork;
}

function throwWindow(e: ReturnType<typeof newPayloadWindowError>): void {
  if (e !== null) throw EngineError.of(e);
}

/**
 * geth ForkchoiceUpdatedV1–V3, in its order: which attribute fields each version takes, then the
 * fork window of the attributes' timestamp (`fork`; null skips it, for attributes whose timestamp
 * does not decode, which the build then refuses).
 */
export function checkAttributes(version: number, a: PayloadJson, fork: Fork | null): void {
  if (version === 1) {
    if (present(a, "withdrawals") || present(a, "parentBeaconBlockRoot"))
      throw invalidParams("withdrawals and beacon root not supported in V1");
  } else if (version === 2) {
    if (present(a, "parentBeaconBlockRoot")) throw invalidAttributes("unexpected beacon root");
    if (fork === Fork.Paris && present(a, "withdrawals")) throw invalidAttributes("withdrawals before shanghai");
    if (fork === Fork.Shanghai && !present(a, "withdrawals")) throw invalidAttributes("missing withdrawals");
  } else {
    if (!present(a, "withdrawals")) throw invalidAttributes("missing withdrawals");
    if (!present(a, "parentBeaconBlockRoot")) throw invalidAttributes("missing beacon root");
  }
  if (fork !== null) throwWindow(forkchoiceWindowError(version, fork));
}

/**
 * geth NewPayloadV1–V4, in its order: the payload fields and arguments each version requires or
 * forbids, and the fork window of the payload's timestamp (`fork`; null: not decodable, left to the
 * payload decoder) — V2's post-Cancun refusal first, V3's and V4's window last.
 */
export function checkPayload(
  version: number,
  p: PayloadJson,
  versionedHashes: readonly string[] | null | undefined,
  beaconRoot: string | undefined,
  requests: readonly string[] | null | undefined,
  fork: Fork | null,
): void {
  if (version === 1) {
    if (present(p, "withdrawals")) throw invalidParams("withdrawals not supported in V1");
    return;
  }
  if (version === 2) {
    if (fork !== null) {
      throwWindow(newPayloadWindowError(2, fork));
      const shanghai = fork >= Fork.Shanghai;
      if (shanghai && !present(p, "withdrawals")) throw invalidParams("nil withdrawals post-shanghai");
      if (!shanghai && present(p, "withdrawals")) throw invalidParams("non-nil withdrawals pre-shanghai");
    }
    if (present(p, "excessBlobGas")) throw invalidParams("non-nil excessBlobGas pre-cancun");
    if (present(p, "blobGasUsed")) throw invalidParams("non-nil blobGasUsed pre-cancun");
    return;
  }
  if (!present(p, "withdrawals")) throw invalidParams("nil withdrawals post-shanghai");
  if (!present(p, "excessBlobGas")) throw invalidParams("nil excessBlobGas post-cancun");
  if (!present(p, "blobGasUsed")) throw invalidParams("nil blobGasUsed post-cancun");
  if (versionedHashes === null || versionedHashes === undefined) throw invalidParams("nil versionedHashes post-cancun");
  if (beaconRoot === undefined) throw invalidParams("nil beaconRoot post-cancun");
  if (version >= 4 && (requests === null || requests === undefined))
    throw invalidParams("nil executionRequests post-prague");
  if (fork !== null) throwWindow(newPayloadWindowError(version, fork));
}

/** Every engine_* method, bound to `api`. */
export function engineMethods(api: EngineApi): AnyMethod[] {
  const out: AnyMethod[] = [
    defineMethod({
      name: "engine_exchangeCapabilities",
      params: [list(str, "[]string")],
      handler: ([theirs]) => api.exchangeCapabilities(theirs ?? []),
    }),
    defineMethod({
      name: "engine_getPayloadBodiesByHashV1",
      params: [list(hashHex, "[]common.Hash")],
      handler: ([hashes]) => engineCall(() => api.getPayloadBodiesByHash(hashes ?? [])),
    }),
    defineMethod({
      name: "engine_getPayloadBodiesByRangeV1",
      params: [uint64, uint64],
      handler: ([start, count]) => engineCall(() => api.getPayloadBodiesByRange(start, count)),
    }),
  ];
  for (const version of [1, 2, 3]) {
    out.push(
      defineMethod({
        name: `engine_forkchoiceUpdatedV${version}`,
        params: [forkchoiceState, optional(object("engine.PayloadAttributes"))],
        handler: ([state, attrs]) =>
          engineCall(() =>
            // After any block import under way: its block may be the new head or the payload's parent.
            // The answer waits for the forkchoice's log sync (Blockchain.exclusiveDurable).
            api.chain.exclusiveDurable(() => {
              if (attrs !== undefined) checkAttributes(version, attrs, attributesFork(api, attrs));
              return api.forkchoiceUpdated(version, state, attrs ?? null);
            }),
          ),
      }),
    );
  }
  for (const version of [1, 2, 3, 4, 5]) {
    out.push(
      defineMethod({
        name: `engine_getPayloadV${version}`,
        params: [payloadIdDecoder],
        handler: ([id]) => engineCall(() => api.getPayload(version, id)),
      }),
    );
  }
  const blobHashes = list(hashHex, "[]common.Hash");
  out.push(
    defineMethod({
      name: "engine_getBlobsV1",
      params: [blobHashes],
      handler: ([hashes]) => engineCall(() => api.getBlobsV1((hashes ?? []).map((h) => hexToBytes(h)))),
    }),
    defineMethod({
      name: "engine_getBlobsV2",
      params: [blobHashes],
      handler: ([hashes]) => engineCall(() => api.getBlobsV2((hashes ?? []).map((h) => hexToBytes(h)))),
    }),
    defineMethod({
      name: "engine_getBlobsV3",
      params: [blobHashes],
      handler: ([hashes]) =>
        engineCall(() =>
          api.getBlobsV2(
            (hashes ?? []).map((h) => hexToBytes(h)),
            true,
          ),
        ),
    }),
  );
  out.push(
    defineMethod({
      name: "engine_newPayloadV1",
      params: [object("engine.ExecutableData")],
      handler: ([p]) =>
        engineCall(() => {
          checkPayload(1, p, null, undefined, null, payloadFork(api, p));
          return api.newPayload(1, p, null, null, null);
        }),
    }),
    defineMethod({
      name: "engine_newPayloadV2",
      params: [object("engine.ExecutableData")],
      handler: ([p]) =>
        engineCall(() => {
          checkPayload(2, p, null, undefined, null, payloadFork(api, p));
          return api.newPayload(2, p, null, null, null);
        }),
    }),
    defineMethod({
      name: "engine_newPayloadV3",
      params: [object("engine.ExecutableData"), list(hashHex, "[]common.Hash"), optional(hashHex)],
      handler: ([p, hashes, root]) =>
        engineCall(() => {
          checkPayload(3, p, hashes, root, null, payloadFork(api, p));
          return api.newPayload(3, p, hashes, root ?? null, null);
        }),
    }),
    defineMethod({
      name: "engine_newPayloadV4",
      params: [
        object("engine.ExecutableData"),
        list(hashHex, "[]common.Hash"),
        optional(hashHex),
        optional(list(hexData, "[]hexutil.Bytes")),
      ],
      handler: ([p, hashes, root, requests]) =>
        engineCall(() => {
          checkPayload(4, p, hashes, root, requests, payloadFork(api, p));
          return api.newPayload(4, p, hashes, root ?? null, requests ?? null);
        }),
    }),
  );
  return out;
}

/**
 * The `testing` namespace (execution-apis src/testing): testing_buildBlockV1. Served only where the
 * operator lists `testing` in --http.api/--ws.api; it builds arbitrary blocks, so never by default.
 */
export function testingMethods(api: EngineApi): AnyMethod[] {
  return [
    defineMethod({
      name: "testing_buildBlockV1",
      params: [
        hashHex,
        object("engine.PayloadAttributes"),
        optional(list(hexData, "[]hexutil.Bytes")),
        optional(hexData),
      ],
      handler: ([parent, attrs, txs, extra]) =>
        engineCall(() =>
          api.chain.exclusive(() => {
            checkAttributes(3, attrs, null);
            return api.buildForTesting(
              hexToBytes(parent),
              attrs,
              txs === undefined || txs === null ? null : txs.map((t) => hexToBytes(t)),
              extra === undefined ? null : hexToBytes(extra),
            );
          }),
        ),
    }),
  ];
}
