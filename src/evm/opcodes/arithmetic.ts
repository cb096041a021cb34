/**
 * Arithmetic, comparison and bitwise opcodes on 256-bit words held as non-negative bigints.
 * Stack bounds and constant gas are checked by the loop (table.ts); these only compute.
 */
import { native } from "../../native/load.js";
import { TWO_256 } from "../../primitives/u256.js";
import type { Evm } from "../evm.js";
import type { Frame } from "../frame.js";
import { Halt } from "../status.js";
import { MASK_256, SIGN_256 } from "../word.js";

function signed(v: bigint): bigint {
  return v >= SIGN_256 ? v - TWO_256 : v;
}

function unsigned(v: bigint): bigint {
  return v < 0n ? v + TWO_256 : v;
}

export function opAdd(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  // PERF: a compare and a rare subtraction instead of an always-allocating mask.
  const r = s[sp] + s[sp - 1];
  s[sp - 1] = r > MASK_256 ? r - TWO_256 : r;
  return Halt.Continue;
}

export function opMul(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  // PERF: a compare instead of the mask's allocation when the product fits (as in opAdd).
  const p = s[sp] * s[sp - 1];
  s[sp - 1] = p > MASK_256 ? p & MASK_256 : p;
  return Halt.Continue;
}

export function opSub(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  s[sp - 1] = (s[sp] - s[sp - 1]) & MASK_256;
  return Halt.Continue;
}

export function opDiv(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  const b = s[sp - 1];
  s[sp - 1] = b === 0n ? 0n : s[sp] / b;
  return Halt.Continue;
}

export function opSdiv(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  const b = s[sp - 1];
  // (-2^255) / -1 overflows back to -2^255, which the mask gives for free.
  s[sp - 1] = b === 0n ? 0n : unsigned(signed(s[sp]) / signed(b)) & MASK_256;
  return Halt.Continue;
}

export function opMod(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  const b = s[sp - 1];
  s[sp - 1] = b === 0n ? 0n : s[sp] % b;
  return Halt.Continue;
}

export function opSmod(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  const b = s[sp - 1];
  // BigInt % truncates toward zero and takes the dividend's sign, as SMOD requires.
  s[sp - 1] = b === 0n ? 0n : unsigned(signed(s[sp]) % signed(b));
  return Halt.Continue;
}

export function opAddmod(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = f.sp - 2;
  f.sp = sp;
  const n = s[sp - 1];
  const a = s[sp + 1];
  const b = s[sp];
  if (n === 0n) s[sp - 1] = 0n;
  else if (a < n && b < n) {
    // PERF: reduced operands (field arithmetic) need one subtraction at most, not a division.
    const r = a + b;
    s[sp - 1] = r >= n ? r - n : r;
  } else s[sp - 1] = (a + b) % n;
  return Halt.Continue;
}

/**
 * (a · b) mod n for words a, b and n ≠ 0. PERF: native when loaded (the bigint 512-by-256-bit
 * remainder is ~210 ns here, the addon's call ~165 ns; compute-keccak bench), else the bigint form.
 */
export const mulmod: (a: bigint, b: bigint, n: bigint) => bigint =
  native === null
    ? (a, b, n) => {
        const p = a * b;
        return p < n ? p : p % n;
      }
    : native.mulmod;

export function opMulmod(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = f.sp - 2;
  f.sp = sp;
  const n = s[sp - 1];
  s[sp - 1] = n === 0n ? 0n : mulmod(s[sp + 1], s[sp], n);
  return Halt.Continue;
}

export function opExp(e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  const base = s[sp];
  let exp = s[sp - 1];
  if (exp !== 0n) {
    const bytes = Math.ceil(exp.toString(16).length / 2);
    const cost = e.schedule.expByte * bytes;
    if (f.gas < cost) return Halt.OutOfGas;
    f.gas -= cost;
  }
  let r = 1n;
  let b = base;
  if (b === 2n) {
    r = exp < 256n ? 1n << exp : 0n;
  } else if (b < 2n || exp === 0n) {
    r = exp === 0n ? 1n : b;
  } else {
    while (exp > 0n) {
      if (exp & 1n) r = (r * b) & MASK_256;
      exp >>= 1n;
      if (exp > 0n) b = (b * b) & MASK_256;
    }
  }
  s[sp - 1] = r;
  return Halt.Continue;
}

export function opSignextend(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  const k = s[sp];
  if (k < 31n) {
    const bits = (k + 1n) * 8n;
    const x = s[sp - 1] & ((1n << bits) - 1n);
    const sign = 1n << (bits - 1n);
    s[sp - 1] = x & sign ? x | (MASK_256 ^ ((1n << bits) - 1n)) : x;
  }
  return Halt.Continue;
}

export function opLt(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  s[sp - 1] = s[sp] < s[sp - 1] ? 1n : 0n;
  return Halt.Continue;
}

export function opGt(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  s[sp - 1] = s[sp] > s[sp - 1] ? 1n : 0n;
  return Halt.Continue;
}

export function opSlt(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  s[sp - 1] = signed(s[sp]) < signed(s[sp - 1]) ? 1n : 0n;
  return Halt.Continue;
}

export function opSgt(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  s[sp - 1] = signed(s[sp]) > signed(s[sp - 1]) ? 1n : 0n;
  return Halt.Continue;
}

export function opEq(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  s[sp - 1] = s[sp] === s[sp - 1] ? 1n : 0n;
  return Halt.Continue;
}

export function opIszero(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const i = f.sp - 1;
  s[i] = s[i] === 0n ? 1n : 0n;
  return Halt.Continue;
}

export function opAnd(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  s[sp - 1] = s[sp] & s[sp - 1];
  return Halt.Continue;
}

export function opOr(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  s[sp - 1] = s[sp] | s[sp - 1];
  return Halt.Continue;
}

export function opXor(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  s[sp - 1] = s[sp] ^ s[sp - 1];
  return Halt.Continue;
}

export function opNot(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const i = f.sp - 1;
  s[i] = MASK_256 ^ s[i];
  return Halt.Continue;
}

export function opByte(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  const i = s[sp];
  s[sp - 1] = i < 32n ? (s[sp - 1] >> (8n * (31n - i))) & 0xffn : 0n;
  return Halt.Continue;
}

export function opShl(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  const sh = s[sp];
  s[sp - 1] = sh < 256n ? (s[sp - 1] << sh) & MASK_256 : 0n;
  return Halt.Continue;
}

export function opShr(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  const sh = s[sp];
  s[sp - 1] = sh < 256n ? s[sp - 1] >> sh : 0n;
  return Halt.Continue;
}

export function opSar(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = --f.sp;
  const sh = s[sp];
  const v = signed(s[sp - 1]);
  s[sp - 1] = sh < 256n ? unsigned(v >> sh) : v < 0n ? MASK_256 : 0n;
  return Halt.Continue;
}

/** EIP-7939 (Osaka): count of leading zero bits, 256 for zero. */
export function opClz(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const i = f.sp - 1;
  const v = s[i];
  s[i] = v === 0n ? 256n : BigInt(256 - v.toString(2).length);
  return Halt.Continue;
}
