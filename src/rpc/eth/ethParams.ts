/**
 * Parameter decoders of the eth namespace beyond the shared ones in rpc/params.ts, each with the
 * error text geth's JSON decoding gives (internal/ethapi/api.go `decodeStorageKey`, encoding/json
 * messages, go-ethereum common/math `HexOrDecimal64`).
 */
import { RpcError } from "../errors.js";
import { address, hash, type ParamDecoder, ParamError } from "../params.js";

/** geth `decodeStorageKey`: lenient hex up to 32 bytes, left-padded. */
export function decodeStorageKey(s: string): { key: Uint8Array; length: number } {
  let raw = s.startsWith("0x") || s.startsWith("0X") ? s.slice(2) : s;
  if (raw.length % 2 === 1) raw = `0${raw}`;
  if (raw.length > 64)
    throw RpcError.invalidParams(`storage key too long (want at most 32 bytes): ${JSON.stringify(s)}`);
  if (!/^[0-9a-fA-F]*$/.test(raw)) throw RpcError.invalidParams(`invalid hex in storage key: ${JSON.stringify(s)}`);
  const b = Buffer.from(raw, "hex");
  const key = new Uint8Array(32);
  key.set(b, 32 - b.length);
  return { key, length: b.length };
}

/** eth_getStorageValues' request: storage keys by address (geth `map[common.Address][]common.Hash`). */
export const storageValuesRequest: ParamDecoder<Map<string, { addr: Uint8Array; keys: Uint8Array[] }>> = {
  optional: false,
  decode: (v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      throw new ParamError("json: cannot unmarshal non-object into Go value of type map[common.Address][]common.Hash");
    }
    const out = new Map<string, { addr: Uint8Array; keys: Uint8Array[] }>();
    for (const [k, list] of Object.entries(v as Record<string, unknown>)) {
      const addr = address.decode(k);
      if (!Array.isArray(list))
        throw new ParamError("json: cannot unmarshal non-array into Go value of type []common.Hash");
      out.set(k, { addr, keys: list.map((x) => hash.decode(x)) });
    }
    return out;
  },
};

/** A JSON array of strings (geth `[]string`); null is empty. */
export const stringList: ParamDecoder<string[]> = {
  optional: false,
  decode: (v) => {
    if (v === null) return [];
    if (!Array.isArray(v)) throw new ParamError("json: cannot unmarshal non-array into Go value of type []string");
    return v.map((x) => {
      if (typeof x !== "string") throw new ParamError("json: cannot unmarshal number into Go value of type string");
      return x;
    });
  },
};

/** An optional JSON array of numbers (geth `[]float64`): eth_feeHistory's percentiles. */
export const floatList: ParamDecoder<number[]> = {
  optional: true,
  decode: (v) => {
    if (v === null || v === undefined) return [];
    if (!Array.isArray(v)) throw new ParamError("json: cannot unmarshal non-array into Go value of type []float64");
    return v.map((x) => {
      if (typeof x !== "number")
        throw new ParamError(`json: cannot unmarshal ${typeof x} into Go value of type float64`);
      return x;
    });
  },
};

const MAX_UINT64 = (1n << 64n) - 1n;

/**
 * math.HexOrDecimal64: the JSON text (a string's contents, or a number as written) as a hex
 * ("0x…") or decimal uint64, read exactly as a bigint; anything else, or above 2^64-1, is geth's
 * "invalid hex or decimal integer". Unlike geth, "" is not read as 0.
 */
export const hexOrDecimal: ParamDecoder<bigint> = {
  optional: false,
  decode: (v) => {
    const text = typeof v === "string" ? v : typeof v === "number" ? String(v) : null;
    const hex = text !== null && (text.startsWith("0x") || text.startsWith("0X"));
    const digits = text === null ? "" : hex ? text.slice(2) : text;
    if (text !== null && (hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digits)) {
      const n = BigInt(hex ? `0x${digits}` : digits);
      if (n <= MAX_UINT64) return n;
    }
    if (typeof v === "string" || typeof v === "number") {
      throw new ParamError(`invalid hex or decimal integer ${JSON.stringify(text)}`);
    }
    throw new ParamError("json: cannot unmarshal non-string into Go value of type math.HexOrDecimal64");
  },
};
