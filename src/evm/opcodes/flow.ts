/** Stack and control-flow opcodes: POP, JUMP, JUMPI, PC, GAS, JUMPDEST, PUSH0–PUSH32, DUP, SWAP. */
import type { Evm } from "../evm.js";
import type { Frame } from "../frame.js";
import { Halt } from "../status.js";
import { loadBytes, readWord } from "../word.js";

export function opPop(_e: Evm, f: Frame): Halt {
  f.sp--;
  return Halt.Continue;
}

export function opJump(e: Evm, f: Frame): Halt {
  if (e.deadline !== 0 && e.pastDeadline()) return Halt.Stop;
  const dest = f.stack[--f.sp];
  if (dest >= BigInt(f.code.length) || f.jumpdests[Number(dest)] !== 1) return Halt.BadJump;
  f.pc = Number(dest);
  return Halt.Continue;
}

export function opJumpi(e: Evm, f: Frame): Halt {
  if (e.deadline !== 0 && e.pastDeadline()) return Halt.Stop;
  const sp = f.sp - 2;
  f.sp = sp;
  if (f.stack[sp] === 0n) return Halt.Continue;
  const dest = f.stack[sp + 1];
  if (dest >= BigInt(f.code.length) || f.jumpdests[Number(dest)] !== 1) return Halt.BadJump;
  f.pc = Number(dest);
  return Halt.Continue;
}

export function opPc(_e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = BigInt(f.pc - 1);
  return Halt.Continue;
}

export function opGas(_e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = BigInt(f.gas);
  return Halt.Continue;
}

export function opJumpdest(_e: Evm, _f: Frame): Halt {
  return Halt.Continue;
}

export function opPush0(_e: Evm, f: Frame): Halt {
  f.stack[f.sp++] = 0n;
  return Halt.Continue;
}

/** The 256 one-byte words, made once: PUSH1 (the commonest opcode) then allocates nothing. */
export const BYTE_WORDS: readonly bigint[] = Array.from({ length: 256 }, (_, i) => BigInt(i));

export function opPush1(_e: Evm, f: Frame): Halt {
  const pc = f.pc;
  const code = f.code;
  f.stack[f.sp++] = BYTE_WORDS[pc < code.length ? code[pc] : 0];
  f.pc = pc + 1;
  return Halt.Continue;
}

/** PUSHn for n = 2..32 (immediates past the end of code read as zero). */
export function makePush(n: number): (e: Evm, f: Frame) => Halt {
  return (_e: Evm, f: Frame): Halt => {
    const pc = f.pc;
    f.stack[f.sp++] = pc + n <= f.code.length ? loadBytes(f.codeView, pc, n) : readWord(f.code, pc, n);
    f.pc = pc + n;
    return Halt.Continue;
  };
}

export function makeDup(n: number): (e: Evm, f: Frame) => Halt {
  return (_e: Evm, f: Frame): Halt => {
    const s = f.stack;
    s[f.sp] = s[f.sp - n];
    f.sp++;
    return Halt.Continue;
  };
}

export function makeSwap(n: number): (e: Evm, f: Frame) => Halt {
  return (_e: Evm, f: Frame): Halt => {
    const s = f.stack;
    const top = f.sp - 1;
    const t = s[top];
    s[top] = s[top - n];
    s[top - n] = t;
    return Halt.Continue;
  };
}
