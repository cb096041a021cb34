/**
 * Opcodes that read the call, tx, block or another account: ADDRESS … BLOBBASEFEE. Account reads
 * pay the EIP-2929 cold/warm cost from Berlin (the loop charged the older flat cost before it).
 */
import type { Evm } from "../evm.js";
import type { Frame } from "../frame.js";
import { Halt } from "../status.js";
import { MASK_160, readWord } from "../word.js";
import { copyToMemory, useMemory, useWordGas } from "./memory.js";

/** EIP-2929 account access charge; false when out of gas. */
export function accessAccount(e: Evm, f: Frame, address: bigint): boolean {
  if (!e.schedule.berlin) return true;
  const cost = e.state.warmAddress(address) ? e.schedule.warmRead : e.schedule.coldAccount;
  if (f.gas < cost) return false;
  f.gas -= cost;
  return true;
}

export function opAddress(_e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = f.address;
  return Halt.Continue;
}

export function opBalance(e: Evm, f: Frame): Halt {
  const i = f.sp - 1;
  const a = f.stack[i] & MASK_160;
  if (!accessAccount(e, f, a)) return Halt.OutOfGas;
  f.stack[i] = e.state.account(a).balance;
  return Halt.Continue;
}

export function opOrigin(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.tx.origin;
  return Halt.Continue;
}

export function opCaller(_e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = f.caller;
  return Halt.Continue;
}

export function opCallvalue(_e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = f.value;
  return Halt.Continue;
}

export function opCalldataload(_e: Evm, f: Frame): Halt {
  const i = f.sp - 1;
  const off = f.stack[i];
  const input = f.input;
  f.stack[i] = off >= BigInt(input.length) ? 0n : readWord(input, Number(off), 32);
  return Halt.Continue;
}

export function opCalldatasize(_e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = BigInt(f.input.length);
  return Halt.Continue;
}

/** CALLDATACOPY / CODECOPY body: pops (memOff, srcOff, size) and copies from `src`. */
function copyOp(f: Frame, src: Uint8Array): Halt {
  const s = f.stack;
  const sp = f.sp;
  const dst = s[sp - 1];
  const from = s[sp - 2];
  const size = s[sp - 3];
  f.sp = sp - 3;
  if (!useMemory(f, dst, size)) return Halt.OutOfGas;
  const n = Number(size);
  if (!useWordGas(f, n, 3)) return Halt.OutOfGas;
  if (n > 0) copyToMemory(f, src, Number(dst), from, n);
  return Halt.Continue;
}

export function opCalldatacopy(_e: Evm, f: Frame): Halt {
  return copyOp(f, f.input);
}

export function opCodesize(_e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = BigInt(f.code.length);
  return Halt.Continue;
}

export function opCodecopy(_e: Evm, f: Frame): Halt {
  return copyOp(f, f.code);
}

export function opGasprice(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.tx.gasPrice;
  return Halt.Continue;
}

export function opExtcodesize(e: Evm, f: Frame): Halt {
  const i = f.sp - 1;
  const a = f.stack[i] & MASK_160;
  if (!accessAccount(e, f, a)) return Halt.OutOfGas;
  f.stack[i] = BigInt(e.state.code(e.state.account(a)).length);
  return Halt.Continue;
}

export function opExtcodecopy(e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = f.sp;
  const a = s[sp - 1] & MASK_160;
  const dst = s[sp - 2];
  const from = s[sp - 3];
  const size = s[sp - 4];
  f.sp = sp - 4;
  if (!useMemory(f, dst, size)) return Halt.OutOfGas;
  const n = Number(size);
  if (!useWordGas(f, n, 3)) return Halt.OutOfGas;
  if (!accessAccount(e, f, a)) return Halt.OutOfGas;
  if (n > 0) copyToMemory(f, e.state.code(e.state.account(a)), Number(dst), from, n);
  return Halt.Continue;
}

export function opReturndatasize(_e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = BigInt(f.returnData.length);
  return Halt.Continue;
}

export function opReturndatacopy(_e: Evm, f: Frame): Halt {
  const s = f.stack;
  const sp = f.sp;
  const dst = s[sp - 1];
  const from = s[sp - 2];
  const size = s[sp - 3];
  f.sp = sp - 3;
  if (from + size > BigInt(f.returnData.length)) return Halt.ReturnDataOutOfBounds;
  if (!useMemory(f, dst, size)) return Halt.OutOfGas;
  const n = Number(size);
  if (!useWordGas(f, n, 3)) return Halt.OutOfGas;
  if (n > 0) copyToMemory(f, f.returnData, Number(dst), from, n);
  return Halt.Continue;
}

export function opExtcodehash(e: Evm, f: Frame): Halt {
  const i = f.sp - 1;
  const a = f.stack[i] & MASK_160;
  if (!accessAccount(e, f, a)) return Halt.OutOfGas;
  const acc = e.state.account(a);
  f.stack[i] = !acc.exists || acc.isEmpty() ? 0n : readWord(acc.codeHash, 0, 32);
  return Halt.Continue;
}

export function opBlockhash(e: Evm, f: Frame): Halt {
  const i = f.sp - 1;
  const n = f.stack[i];
  const cur = e.block.number;
  f.stack[i] = n < cur && n + 256n >= cur ? e.block.blockHash(n) : 0n;
  return Halt.Continue;
}

export function opCoinbase(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.block.coinbase;
  return Halt.Continue;
}

export function opTimestamp(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.block.timestamp;
  return Halt.Continue;
}

export function opNumber(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.block.number;
  return Halt.Continue;
}

export function opDifficulty(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.block.difficulty;
  return Halt.Continue;
}

export function opPrevrandao(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.block.prevRandao;
  return Halt.Continue;
}

export function opGaslimit(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.block.gasLimit;
  return Halt.Continue;
}

export function opChainid(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.block.chainId;
  return Halt.Continue;
}

export function opSelfbalance(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.state.account(f.address).balance;
  return Halt.Continue;
}

export function opBasefee(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.block.baseFee;
  return Halt.Continue;
}

export function opBlobhash(e: Evm, f: Frame): Halt {
  const i = f.sp - 1;
  const idx = f.stack[i];
  const h = e.tx.blobHashes;
  f.stack[i] = idx < BigInt(h.length) ? readWord(h[Number(idx)], 0, 32) : 0n;
  return Halt.Continue;
}

export function opBlobbasefee(e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = e.block.blobBaseFee;
  return Halt.Continue;
}
