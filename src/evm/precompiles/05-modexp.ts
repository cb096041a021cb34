/**
 * MODEXP (0x05): base^exp mod m. Three pricings: EIP-198 (Byzantium), EIP-2565 (Berlin), EIP-7883
 * (Osaka, with the EIP-7823 1024-byte bound on each length). Gas is computed in bigint because the
 * declared lengths are 256-bit; it is converted to `number` only after the comparison with the limit.
 */
import { Fork, type ForkRules } from "../../spec/forks.js";
import { EMPTY, failure, ok, outOfGas, type PrecompileResult, writeBigint } from "./types.js";

const MAX_LEN_7823 = 1024n;

/** Big-endian integer of `len` bytes of `input` at `start`, zero-padded past the end. */
function readPadded(input: Uint8Array, start: bigint, len: number): bigint {
  let v = 0n;
  const s = start > BigInt(input.length) ? input.length : Number(start);
  for (let i = 0; i < len; i++) {
    const j = s + i;
    v = (v << 8n) | BigInt(j < input.length ? input[j] : 0);
  }
  return v;
}

function bitLength(v: bigint): bigint {
  return v === 0n ? 0n : BigInt(v.toString(2).length);
}

/** Adjusted exponent length; `mul` is 8 before Osaka and 16 from EIP-7883. */
function iterations(eLen: bigint, eHead: bigint, mul: bigint): bigint {
  const headBits = eHead === 0n ? 0n : bitLength(eHead) - 1n;
  return eLen <= 32n ? headBits : mul * (eLen - 32n) + headBits;
}

function complexity198(x: bigint): bigint {
  if (x <= 64n) return x * x;
  if (x <= 1024n) return (x * x) / 4n + 96n * x - 3072n;
  return (x * x) / 16n + 480n * x - 199680n;
}

function gasCost(bLen: bigint, eLen: bigint, mLen: bigint, eHead: bigint, fork: Fork): bigint {
  const maxLen = bLen > mLen ? bLen : mLen;
  if (fork >= Fork.Osaka) {
    const w = (maxLen + 7n) / 8n;
    const c = maxLen > 32n ? 2n * w * w : 16n;
    let it = iterations(eLen, eHead, 16n);
    if (it < 1n) it = 1n;
    const g = c * it;
    return g > 500n ? g : 500n;
  }
  if (fork >= Fork.Berlin) {
    const w = (maxLen + 7n) / 8n;
    let it = iterations(eLen, eHead, 8n);
    if (it < 1n) it = 1n;
    const g = (w * w * it) / 3n;
    return g > 200n ? g : 200n;
  }
  let it = iterations(eLen, eHead, 8n);
  if (it < 1n) it = 1n;
  return (complexity198(maxLen) * it) / 20n;
}

function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  if (mod === 1n) return 0n;
  let result = 1n;
  let b = base % mod;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % mod;
    e >>= 1n;
    if (e > 0n) b = (b * b) % mod;
  }
  return result;
}

export function modexp(input: Uint8Array, gasLimit: number, rules: ForkRules): PrecompileResult {
  const bLen = readPadded(input, 0n, 32);
  const eLen = readPadded(input, 32n, 32);
  const mLen = readPadded(input, 64n, 32);
  if (rules.fork >= Fork.Osaka && (bLen > MAX_LEN_7823 || eLen > MAX_LEN_7823 || mLen > MAX_LEN_7823)) {
    return failure(gasLimit);
  }
  const eStart = 96n + bLen;
  const headLen = eLen < 32n ? Number(eLen) : 32;
  const eHead = readPadded(input, eStart, headLen);
  const gas = gasCost(bLen, eLen, mLen, eHead, rules.fork);
  if (gas > BigInt(gasLimit)) return outOfGas(gasLimit);
  const gasUsed = Number(gas);
  // Lengths are now bounded by the gas limit (or by EIP-7823), except when both base and modulus
  // are empty, where the result is empty whatever the exponent.
  if (mLen === 0n) return ok(gasUsed, EMPTY);
  const mod = readPadded(input, eStart + eLen, Number(mLen));
  const out = new Uint8Array(Number(mLen));
  if (mod === 0n) return ok(gasUsed, out);
  const base = readPadded(input, 96n, Number(bLen));
  const exp = readPadded(input, eStart, Number(eLen));
  writeBigint(modPow(base, exp, mod), out, 0, out.length);
  return ok(gasUsed, out);
}
