/**
 * JSON-RPC QUANTITY codec (execution-apis): `0x` + hex without leading zeros; zero is `0x0`.
 * `number` for anything below 2^53 (gas, sizes, block numbers), `bigint` for wei and 256-bit words.
 */
import { PrimitiveError } from "./errors.js";

const MAX_U256 = (1n << 256n) - 1n;

export function encodeQuantity(v: number | bigint): string {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0) throw new PrimitiveError("QUANTITY_RANGE", `not a quantity: ${v}`);
    return `0x${v.toString(16)}`;
  }
  if (v < 0n) throw new PrimitiveError("QUANTITY_RANGE", `negative quantity: ${v}`);
  return `0x${v.toString(16)}`;
}

function checkQuantity(s: string): void {
  if (typeof s !== "string" || s.length < 2 || s[0] !== "0" || (s[1] !== "x" && s[1] !== "X")) {
    throw new PrimitiveError("HEX_PREFIX", "quantity without 0x prefix");
  }
  if (s.length === 2) throw new PrimitiveError("QUANTITY_EMPTY", "empty quantity: 0x");
  if (s.length > 3 && s[2] === "0")
    throw new PrimitiveError("QUANTITY_LEADING_ZERO", "quantity with leading zero digits");
  for (let i = 2; i < s.length; i++) {
    const c = s.charCodeAt(i) | 0x20; // lower-case letters; digits unaffected
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) {
      throw new PrimitiveError("HEX_CHAR", `invalid hex character in quantity at position ${i}`);
    }
  }
}

/** Strict QUANTITY → bigint, bounded to 256 bits. */
export function decodeQuantity(s: string): bigint {
  checkQuantity(s);
  if (s.length > 66) throw new PrimitiveError("QUANTITY_RANGE", "quantity exceeds 256 bits");
  const v = BigInt(s);
  if (v > MAX_U256) throw new PrimitiveError("QUANTITY_RANGE", "quantity exceeds 256 bits");
  return v;
}

/** Strict QUANTITY → number; values above 2^53-1 are rejected (use decodeQuantity for wei). */
export function decodeQuantityNumber(s: string): number {
  checkQuantity(s);
  if (s.length > 16) throw new PrimitiveError("QUANTITY_RANGE", "quantity exceeds 2^53-1");
  const v = Number.parseInt(s.slice(2), 16);
  if (!Number.isSafeInteger(v)) throw new PrimitiveError("QUANTITY_RANGE", "quantity exceeds 2^53-1");
  return v;
}
