/**
 * Memory expansion (charged here, Yellow Paper Cmem) and the opcodes that read or write memory:
 * MLOAD, MSTORE, MSTORE8, MSIZE, MCOPY, KECCAK256 and the copy helper the *COPY opcodes share.
 */
import { keccak256MemWord } from "../../crypto/keccak.js";
import type { Evm } from "../evm.js";
import type { Frame } from "../frame.js";
import { Halt } from "../status.js";
import { loadWord, storeWord } from "../word.js";

/** Memory offsets at or past this many bytes cost more gas than any block holds. */
export const MEMORY_LIMIT = 0x1_0000_0000;
const LIMIT = BigInt(MEMORY_LIMIT);

/** Gas of `words` 32-byte words of memory: 3w + w²/512 (exact for w ≤ 2^27). */
export function memoryCost(words: number): number {
  return 3 * words + Math.floor(words / 512) * words + Math.floor(((words % 512) * words) / 512);
}

/** Grows active memory to cover `end` bytes, charging the expansion; false when out of gas. */
export function growMemory(f: Frame, end: number): boolean {
  if (end <= f.memSize) return true;
  if (end > MEMORY_LIMIT) return false;
  const words = Math.ceil(end / 32);
  const size = words * 32;
  const cost = memoryCost(words) - memoryCost(f.memSize / 32);
  if (f.gas < cost) return false;
  f.gas -= cost;
  if (f.mem.length < size) {
    const next = new Uint8Array(Math.max(size, f.mem.length * 2));
    next.set(f.mem.subarray(0, f.memSize));
    f.mem = next;
    f.memView = new DataView(next.buffer);
  } else {
    f.mem.fill(0, f.memSize, size);
  }
  f.memSize = size;
  return true;
}

/** Charges memory for [off, off+size) given as stack words; false when out of gas (or absurd). */
export function useMemory(f: Frame, off: bigint, size: bigint): boolean {
  if (size === 0n) return true;
  if (off >= LIMIT || size >= LIMIT) return false;
  return growMemory(f, Number(off) + Number(size));
}

/** Charges `perWord` gas for each 32-byte word of `size` bytes; false when out of gas. */
export function useWordGas(f: Frame, size: number, perWord: number): boolean {
  const cost = perWord * Math.ceil(size / 32);
  if (f.gas < cost) return false;
  f.gas -= cost;
  return true;
}

/**
 * Shared body of CALLDATACOPY, CODECOPY, RETURNDATACOPY's copy and EXTCODECOPY: copies
 * src[srcOff, srcOff+size) into memory at dst, zero-filling past the end of `src`.
 */
export function copyToMemory(f: Frame, src: Uint8Array, dst: number, srcOff: bigint, size: number): void {
  const mem = f.mem;
  const start = srcOff >= BigInt(src.length) ? src.length : Number(srcOff);
  const avail = src.length - start;
  const n = avail < size ? avail : size;
  if (n > 0) mem.set(src.subarray(start, start + n), dst);
  if (n < size) mem.fill(0, dst + n, dst + size);
}

export function opMload(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const i = f.sp - 1;
  const off = s[i];
  if (off >= LIMIT || !growMemory(f, Number(off) + 32)) return Halt.OutOfGas;
  s[i] = loadWord(f.memView, Number(off));
  return Halt.Continue;
}

export function opMstore(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = f.sp;
  const off = s[sp - 1];
  if (off >= LIMIT || !growMemory(f, Number(off) + 32)) return Halt.OutOfGas;
  storeWord(f.memView, Number(off), s[sp - 2]);
  f.sp = sp - 2;
  return Halt.Continue;
}

export function opMstore8(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = f.sp;
  const off = s[sp - 1];
  if (off >= LIMIT || !growMemory(f, Number(off) + 1)) return Halt.OutOfGas;
  f.mem[Number(off)] = Number(s[sp - 2] & 0xffn);
  f.sp = sp - 2;
  return Halt.Continue;
}

export function opMsize(_e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = BigInt(f.memSize);
  return Halt.Continue;
}

export function opMcopy(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = f.sp;
  const dst = s[sp - 1];
  const src = s[sp - 2];
  const size = s[sp - 3];
  f.sp = sp - 3;
  if (size === 0n) return Halt.Continue;
  if (size >= LIMIT || dst >= LIMIT || src >= LIMIT) return Halt.OutOfGas;
  const n = Number(size);
  if (!useWordGas(f, n, 3)) return Halt.OutOfGas;
  const d = Number(dst);
  const o = Number(src);
  if (!growMemory(f, Math.max(d, o) + n)) return Halt.OutOfGas;
  f.mem.copyWithin(d, o, o + n);
  return Halt.Continue;
}

export function opKeccak256(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = f.sp;
  const off = s[sp - 1];
  const size = s[sp - 2];
  if (!useMemory(f, off, size)) return Halt.OutOfGas;
  const n = Number(size);
  if (!useWordGas(f, n, 6)) return Halt.OutOfGas;
  const o = n === 0 ? 0 : Number(off);
  s[sp - 2] = keccak256MemWord(f.mem, o, n);
  f.sp = sp - 1;
  return Halt.Continue;
}
