/**
 * Hex codecs for the edges (RPC, CLI, logs, fixtures). Encoding uses a 256-entry table, decoding a
 * char-code table; neither allocates intermediate strings per byte.
 */
import { PrimitiveError } from "./errors.js";

const HEX_PAIRS: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

// Char code → nibble value, 255 = not a hex digit.
const NIBBLE = new Uint8Array(128).fill(255);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) {
  NIBBLE[65 + i] = 10 + i;
  NIBBLE[97 + i] = 10 + i;
}

/** `0x`-prefixed lower-case hex of the bytes. */
export function bytesToHex(b: Uint8Array): string {
  let s = "0x";
  for (let i = 0; i < b.length; i++) s += HEX_PAIRS[b[i]];
  return s;
}

/** Lower-case hex without prefix. */
export function bytesToHexRaw(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += HEX_PAIRS[b[i]];
  return s;
}

function decodeFrom(s: string, start: number): Uint8Array {
  const digits = s.length - start;
  if (digits % 2 !== 0) throw new PrimitiveError("HEX_ODD_LENGTH", `hex string has odd length: ${digits} digits`);
  const out = new Uint8Array(digits / 2);
  for (let i = 0, j = start; i < out.length; i++, j += 2) {
    const c1 = s.charCodeAt(j);
    const c2 = s.charCodeAt(j + 1);
    const hi = c1 < 128 ? NIBBLE[c1] : 255;
    const lo = c2 < 128 ? NIBBLE[c2] : 255;
    if ((hi | lo) === 255) throw new PrimitiveError("HEX_CHAR", `invalid hex character at position ${j}`);
    out[i] = (hi << 4) | lo;
  }
  return out;
}

function hasPrefix(s: string): boolean {
  return s.length >= 2 && s.charCodeAt(0) === 48 && (s.charCodeAt(1) === 120 || s.charCodeAt(1) === 88);
}

/** Lenient: accepts an optional `0x` prefix (fixtures, config files). Odd length or bad digits throw. */
export function hexToBytes(s: string): Uint8Array {
  return decodeFrom(s, hasPrefix(s) ? 2 : 0);
}

/** Strict JSON-RPC DATA: `0x` prefix required, even length, optional exact byte length. */
export function parseData(s: string, byteLength?: number): Uint8Array {
  if (typeof s !== "string" || !hasPrefix(s)) throw new PrimitiveError("HEX_PREFIX", "hex string without 0x prefix");
  const out = decodeFrom(s, 2);
  if (byteLength !== undefined && out.length !== byteLength) {
    throw new PrimitiveError("HEX_LENGTH", `hex string has length ${out.length}, want ${byteLength} bytes`);
  }
  return out;
}

export function isHexString(s: unknown): s is string {
  if (typeof s !== "string" || !hasPrefix(s)) return false;
  for (let i = 2; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || NIBBLE[c] === 255) return false;
  }
  return true;
}
