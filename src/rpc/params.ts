/**
 * Positional parameter decoders for JSON-RPC handlers, with go-ethereum's error texts (the
 * `encoding/json` + `common/hexutil` + `rpc/types.go` messages, which clients match on). A decoder
 * sees the already-parsed JSON value (or `null`) and throws `ParamError` with the inner message;
 * the dispatcher adds geth's "invalid argument N: " prefix and answers -32602.
 */

/** Thrown by decoders; `message` is the part after "invalid argument N: ". */
export class ParamError extends Error {
  override readonly name = "ParamError";
}

export interface ParamDecoder<T> {
  /** Optional decoders accept a missing or `null` argument as `undefined` (geth: pointer arguments). */
  readonly optional: boolean;
  /** Decodes one present argument; `null` reaches required decoders, which treat it as Go does. */
  decode(v: unknown): T;
}

function required<T>(decode: (v: unknown) => T): ParamDecoder<T> {
  return { optional: false, decode };
}

/** A trailing argument that may be omitted or `null` (geth: a pointer type). */
export function optional<T>(d: ParamDecoder<T>): ParamDecoder<T | undefined> {
  return { optional: true, decode: (v) => (v === null || v === undefined ? undefined : d.decode(v)) };
}

/** Go's name for the JSON kind of a value, as in "json: cannot unmarshal <kind> into Go value…". */
export function jsonKind(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "array";
  return "object";
}

function typeError(what: string, goType: string): ParamError {
  return new ParamError(`json: cannot unmarshal ${what} into Go value of type ${goType}`);
}

// hexutil messages (common/hexutil/hexutil.go).
const ERR_EMPTY_STRING = "empty hex string";
const ERR_SYNTAX = "invalid hex string";
const ERR_MISSING_PREFIX = "hex string without 0x prefix";
const ERR_ODD_LENGTH = "hex string of odd length";
const ERR_EMPTY_NUMBER = 'hex string "0x"';
const ERR_LEADING_ZERO = "hex number with leading zero digits";
const ERR_UINT64_RANGE = "hex number > 64 bits";
const ERR_BIG256_RANGE = "hex number > 256 bits";

function has0x(s: string): boolean {
  return s.length >= 2 && s.charCodeAt(0) === 48 && (s.charCodeAt(1) === 120 || s.charCodeAt(1) === 88);
}

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/**
 * hexutil `checkNumberText`: returns the digits after 0x or throws a bare hexutil message. Unlike
 * geth, which reads "" as 0, an empty string is not a quantity: "empty hex string".
 */
function numberDigits(s: string): string {
  if (s.length === 0) throw new ParamError(ERR_EMPTY_STRING);
  if (!has0x(s)) throw new ParamError(ERR_MISSING_PREFIX);
  if (s.length === 2) throw new ParamError(ERR_EMPTY_NUMBER);
  if (s.length > 3 && s.charCodeAt(2) === 48) throw new ParamError(ERR_LEADING_ZERO);
  return s.slice(2);
}

/** Hex digits (no prefix, no leading zero) → bigint. hexutil's UnmarshalText checks the length before the digits. */
function digitsToBig(raw: string, maxDigits: number, rangeMsg: string): bigint {
  if (raw.length > maxDigits) throw new ParamError(rangeMsg);
  for (let i = 0; i < raw.length; i++) if (nibble(raw.charCodeAt(i)) < 0) throw new ParamError(ERR_SYNTAX);
  return raw.length === 0 ? 0n : BigInt(`0x${raw}`);
}

/** Small values (≤ 13 digits, < 2^52) parse without a bigint. */
function digitsToNumber(raw: string): number {
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const d = nibble(raw.charCodeAt(i));
    if (d < 0) throw new ParamError(ERR_SYNTAX);
    n = n * 16 + d;
  }
  return n;
}

/** Runs `f` on hexutil text and wraps bare hexutil messages the way `wrapTypeError` does. */
function wrapped<T>(goType: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ParamError) throw typeError(e.message, goType);
    throw e;
  }
}

/** hexutil.Uint64 text → bigint (≤ 2^64-1). Bare messages; callers wrap. */
function uint64Text(s: string): bigint {
  return digitsToBig(numberDigits(s), 16, ERR_UINT64_RANGE);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * QUANTITY as `number` (gas, counts, indices): hexutil.Uint64 rules and messages. A value above
 * 2^53-1 cannot be held exactly and is refused ("hex number > 53 bits", Opal's wording: geth takes
 * it as a uint64).
 */
export const quantity: ParamDecoder<number> = required((v) => {
  if (typeof v !== "string") throw typeError("non-string", "hexutil.Uint64");
  return wrapped("hexutil.Uint64", () => {
    const raw = numberDigits(v);
    if (raw.length <= 13) return digitsToNumber(raw);
    const b = digitsToBig(raw, 16, ERR_UINT64_RANGE);
    if (b > MAX_SAFE) throw new ParamError("hex number > 53 bits");
    return Number(b);
  });
});

/** hexutil.Uint64 exactly (nonces, gas caps from outside input): bigint up to 2^64-1. */
export const uint64: ParamDecoder<bigint> = required((v) => {
  if (typeof v !== "string") throw typeError("non-string", "hexutil.Uint64");
  return wrapped("hexutil.Uint64", () => uint64Text(v));
});

/** *hexutil.Big: bigint up to 256 bits (wei, fees, words). */
export const bigQuantity: ParamDecoder<bigint> = required((v) => {
  if (typeof v !== "string") throw typeError("non-string", "*hexutil.Big");
  return wrapped("*hexutil.Big", () => digitsToBig(numberDigits(v), 64, ERR_BIG256_RANGE));
});

/** hexutil `checkText` with the prefix required; empty string allowed (→ no bytes). */
function dataDigits(s: string): string {
  if (s.length === 0) return "";
  if (!has0x(s)) throw new ParamError(ERR_MISSING_PREFIX);
  if ((s.length - 2) % 2 !== 0) throw new ParamError(ERR_ODD_LENGTH);
  return s.slice(2);
}

function hexToBytesChecked(raw: string): Uint8Array {
  const out = new Uint8Array(raw.length >>> 1);
  for (let i = 0, j = 0; i < out.length; i++, j += 2) {
    const hi = nibble(raw.charCodeAt(j));
    const lo = nibble(raw.charCodeAt(j + 1));
    if ((hi | lo) < 0) throw new ParamError(ERR_SYNTAX);
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/** hexutil.Bytes: DATA of any length. */
export const data: ParamDecoder<Uint8Array> = required((v) => {
  if (typeof v !== "string") throw typeError("non-string", "hexutil.Bytes");
  return wrapped("hexutil.Bytes", () => hexToBytesChecked(dataDigits(v)));
});

/** hexutil `UnmarshalFixedText`: the length message is not wrapped, the others are (UnmarshalFixedJSON). */
function fixedText(s: string, size: number, goType: string): Uint8Array {
  const raw = wrapped(goType, () => dataDigits(s));
  if (raw.length / 2 !== size) {
    throw new ParamError(`hex string has length ${raw.length}, want ${size * 2} for ${goType}`);
  }
  return wrapped(goType, () => hexToBytesChecked(raw));
}

/** Fixed-size DATA; `goType` names the Go type in messages (geth: common.Address, common.Hash). */
export function fixedData(size: number, goType: string): ParamDecoder<Uint8Array> {
  return required((v) => {
    if (typeof v !== "string") throw typeError("non-string", goType);
    return fixedText(v, size, goType);
  });
}

/** 20-byte address (checksum not enforced, as geth). */
export const address: ParamDecoder<Uint8Array> = fixedData(20, "common.Address");
/** 32-byte hash. */
export const hash: ParamDecoder<Uint8Array> = fixedData(32, "common.Hash");

/** Go `bool`: `null` leaves it false, other kinds are type errors. */
export const bool: ParamDecoder<boolean> = required((v) => {
  if (v === null) return false;
  if (typeof v === "boolean") return v;
  throw typeError(jsonKind(v), "bool");
});

/** Go `string`: `null` leaves it empty. */
export function goString(goType = "string"): ParamDecoder<string> {
  return required((v) => {
    if (v === null) return "";
    if (typeof v === "string") return v;
    throw typeError(jsonKind(v), goType);
  });
}

export const string: ParamDecoder<string> = goString();

/** Any JSON value, passed through (objects decoded by the handler). `null` passes as `null`. */
export const json: ParamDecoder<unknown> = required((v) => v);

export type BlockTag = "earliest" | "latest" | "pending" | "finalized" | "safe";

/**
 * rpc.BlockNumber decoded: a tag or a number. Same shape as the number/tag arms of
 * `eth/chainReader.ts` `BlockSelector`, so decoded params go straight to `ChainReader.resolve`.
 */
export type BlockNumberSelector =
  | { readonly kind: "tag"; readonly tag: BlockTag }
  | { readonly kind: "number"; readonly number: number };

/** rpc.BlockNumberOrHash decoded (EIP-1898); structurally `eth/chainReader.ts` `BlockSelector`. */
export type BlockSelector =
  | BlockNumberSelector
  | { readonly kind: "hash"; readonly hash: Uint8Array; readonly requireCanonical: boolean };

function numberSel(n: number): BlockNumberSelector {
  return { kind: "number", number: n };
}

function tagSel(tag: BlockTag): BlockNumberSelector {
  return { kind: "tag", tag };
}

function blockTag(s: string): BlockTag | undefined {
  switch (s) {
    case "earliest":
    case "latest":
    case "pending":
    case "finalized":
    case "safe":
      return s;
    default:
      return undefined;
  }
}

const MAX_INT64 = (1n << 63n) - 1n;
const ERR_ABOVE_SAFE_BLOCK = "block number larger than 2^53-1";

/**
 * hexutil.DecodeUint64 (strconv.ParseUint order: a bad digit or the 17th digit, whichever comes
 * first) and the int64 bound. A number above 2^53-1 is refused ("block number larger than 2^53-1",
 * Opal's words; geth looks it up and finds nothing): it has no exact `number`, and no stand-in for
 * it may be mistaken for a real block or for "latest".
 */
function decodeBlockNumberText(s: string, tooHigh: string): number {
  const raw = numberDigits(s);
  for (let i = 0; i < raw.length; i++) {
    if (nibble(raw.charCodeAt(i)) < 0) throw new ParamError(ERR_SYNTAX);
    if (i >= 16) throw new ParamError(ERR_UINT64_RANGE);
  }
  if (raw.length <= 13) return digitsToNumber(raw);
  const b = BigInt(`0x${raw}`);
  if (b > MAX_INT64) throw new ParamError(tooHigh);
  if (b > MAX_SAFE) throw new ParamError(ERR_ABOVE_SAFE_BLOCK);
  return Number(b);
}

/** rpc.BlockNumber.UnmarshalJSON: the JSON text, unquoted if quoted; messages are not wrapped. */
function blockNumberFromJson(v: unknown): BlockNumberSelector {
  const input = typeof v === "string" ? v : v === null ? "null" : JSON.stringify(v);
  const tag = blockTag(input);
  return tag !== undefined ? tagSel(tag) : numberSel(decodeBlockNumberText(input, "block number larger than int64"));
}

/** rpc.BlockNumber: tag or hex number. */
export const blockNumber: ParamDecoder<BlockNumberSelector> = required(blockNumberFromJson);

/** The struct path of rpc.BlockNumberOrHash; any field error makes it fall back to the string path. */
function blockNumberOrHashObject(o: Record<string, unknown>): BlockSelector | ParamError | null {
  let num: BlockNumberSelector | undefined;
  let h: Uint8Array | undefined;
  let canonical = false;
  try {
    for (const key of Object.keys(o)) {
      const k = key.toLowerCase(); // encoding/json matches field names case-insensitively
      const val = o[key];
      if (k === "blocknumber") num = val === null ? undefined : blockNumberFromJson(val);
      else if (k === "blockhash") h = val === null ? undefined : hash.decode(val);
      else if (k === "requirecanonical") canonical = bool.decode(val);
    }
  } catch (e) {
    if (e instanceof ParamError) return null;
    throw e;
  }
  if (num !== undefined && h !== undefined) {
    return new ParamError("cannot specify both BlockHash and BlockNumber, choose one or the other");
  }
  if (num !== undefined) return num;
  if (h !== undefined) return { kind: "hash", hash: h, requireCanonical: canonical };
  return new ParamError("must specify either BlockHash or BlockNumber");
}

/** rpc.BlockNumberOrHash (EIP-1898): tag, hex number, 32-byte hash string, or the object form. */
export const blockNumberOrHash: ParamDecoder<BlockSelector> = required((v) => {
  if (v === null || (typeof v === "object" && !Array.isArray(v))) {
    const r =
      v === null
        ? new ParamError("must specify either BlockHash or BlockNumber")
        : blockNumberOrHashObject(v as Record<string, unknown>);
    if (r instanceof ParamError) throw r;
    if (r !== null) return r;
    throw typeError("object", "string");
  }
  if (typeof v !== "string") throw typeError(jsonKind(v), "string");
  const tag = blockTag(v);
  if (tag !== undefined) return tagSel(tag);
  if (v.length === 66) {
    const raw = dataDigits(v);
    return { kind: "hash", hash: hexToBytesChecked(raw), requireCanonical: false };
  }
  return numberSel(decodeBlockNumberText(v, "blocknumber too high"));
});

/** Decoded parameter tuple of a decoder list. */
export type DecodedParams<D extends readonly ParamDecoder<unknown>[]> = {
  -readonly [K in keyof D]: D[K] extends ParamDecoder<infer T> ? T : never;
};

/**
 * geth `parsePositionalArguments`: `params` absent or `null` counts as `[]`; a non-array is
 * "non-array args"; arguments are decoded in order, so the first failure wins; extra arguments are
 * "too many arguments, want at most N"; a missing required one is "missing value for required
 * argument N". Returns the decoded array or the message to answer with (-32602).
 */
export function decodePositional(params: unknown, decoders: readonly ParamDecoder<unknown>[]): unknown[] | string {
  let list: readonly unknown[];
  if (params === undefined || params === null) list = EMPTY;
  else if (Array.isArray(params)) list = params;
  else return "non-array args";
  const n = decoders.length;
  const out: unknown[] = new Array(n);
  for (let i = 0; i < list.length; i++) {
    if (i >= n) return `too many arguments, want at most ${n}`;
    try {
      out[i] = decoders[i]!.decode(list[i]);
    } catch (e) {
      if (e instanceof ParamError) return `invalid argument ${i}: ${e.message}`;
      throw e;
    }
  }
  for (let i = list.length; i < n; i++) {
    if (!decoders[i]!.optional) return `missing value for required argument ${i}`;
    out[i] = undefined;
  }
  return out;
}

const EMPTY: readonly unknown[] = Object.freeze([]);
