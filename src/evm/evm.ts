/**
 * The interpreter: one synchronous loop over a frame's code (no await, no throw: code-models
 * §10.1–10.2), a jump table resolved once per fork, and calls run without JS recursion — a CALL or
 * CREATE opcode prepares a child frame and returns Halt.Call, and the driver switches frames, so
 * depth 1024 costs no native stack.
 */

import { keccak256, keccak256MemWord } from "../crypto/keccak.js";
import type { NativeBinding } from "../native/binding.js";
import { native } from "../native/load.js";
import { MAX_U64, TWO_256 } from "../primitives/u256.js";
import { encodeRlp, uintToRlpBytes } from "../rlp/encode.js";
import type { ForkRules } from "../spec/forks.js";
import type { Account } from "../state/account.js";
import type { WorldState } from "../state/worldState.js";
import type { BlockContext, TxContext } from "./context.js";
import { delegationTarget } from "./delegation.js";
import { Frame, FrameKind, PUSH_CHUNK_BITS, PUSH_CHUNK_MASK, type PushChunk } from "./frame.js";
import { mulmod } from "./opcodes/arithmetic.js";
import { BYTE_WORDS } from "./opcodes/flow.js";
import { OP_NAMES } from "./opcodes/names.js";
import { type JumpTable, jumpTable } from "./opcodes/table.js";
import { type PrecompileTable, precompileTable } from "./precompiles/table.js";
import { type Precompile, PrecompileStatus } from "./precompiles/types.js";
import { type GasSchedule, gasSchedule } from "./schedule.js";
import { HALT_NAMES, Halt } from "./status.js";
import type { CallKind, EvmTracer } from "./tracer.js";
import { loadBytes, loadWord, MASK_160, MASK_256, readAddress, readWord, storeWord } from "./word.js";

const EMPTY = new Uint8Array(0);
/** Tracer names of the call kinds, indexed by FrameKind (Create is named where it is known). */
const CALL_KINDS: readonly CallKind[] = ["CALL", "CALLCODE", "DELEGATECALL", "STATICCALL", "CREATE"];
const MAX_DEPTH = 1024;
/** EIP-2681: an account nonce stays below 2^64 - 1. */
const MAX_NONCE = MAX_U64;
/** JUMP/JUMPI between two reads of the clock under a deadline (~0.1 ms of the tightest loop). */
const DEADLINE_CHECK_JUMPS = 1024;
/**
 * The native core (native/src/interp.c), null without the addon: the untraced loop hands it a run of
 * stack, arithmetic, memory and jump opcodes on a limb stack, from a backward jump's destination
 * (a loop), and carries on from where it stopped. Its pure twin is the loop itself.
 */
const EVM_RUN: NativeBinding["evmRun"] | null = native?.evmRun ?? null;
/** evmRun's in/out: pc, sp, gas, memory size, opcodes run, jumps it may run. */
const NATIVE_IO = new Float64Array(6);
/** The jump budget without a deadline. */
const NO_JUMP_LIMIT = 2 ** 52;
/** An entry that ran fewer opcodes than this did not pay for itself (stack conversion, the call)... */
const NATIVE_MIN_OPS = 32;
/** ...and after this many such entries at a position, the loop stops entering there. */
const NATIVE_TRIES = 2;
/**
 * When the untraced loop enters the native core: Off (never: the pure loop, for differential tests),
 * Loops (the default: backward jumps), Eager (tests: wherever the loop can — frame start, after
 * every table opcode, every jump — however little it then runs, so spec and differential tests
 * exercise it on all code rather than only on loops).
 */
export enum NativeCore {
  Off,
  Loops,
  Eager,
}
let nativeCore = NativeCore.Loops;
let nativeEager = false;
/** Tests only. No effect without the addon (OPAL_NATIVE=0): the loop then never enters it. */
export function setNativeCore(mode: NativeCore): void {
  nativeCore = mode;
  nativeEager = mode === NativeCore.Eager;
}

/** The untraced loop's exit on a failed check: the frame as the check found it, and the halt. */
function stopAt(f: Frame, pc: number, sp: number, gas: number, h: Halt): Halt {
  f.pc = pc;
  f.sp = sp;
  f.gas = gas;
  return h;
}

/** The result of the last finished message (tx level or a child frame). */
export interface MessageResult {
  halt: Halt;
  gasLeft: number;
  /**
   * RETURN/REVERT data. A successful creation's is the code its init code returned (geth
   * `EVM.Create`'s `ret`, which eth_call without `to` answers with); a CREATE opcode's caller still
   * sees empty return data (`resume`, EIP-211).
   */
  output: Uint8Array;
  /** CREATE: the new contract's address (valid on success). */
  address: bigint;
}

/** What an Evm may be given beyond its rules, block and state. */
export interface EvmOptions {
  /**
   * The precompiles calls reach, by address, in place of the fork's table: geth `EVM.SetPrecompiles`,
   * which eth_simulateV1 gives the table its `movePrecompileToAddress` overrides made
   * (internal/ethapi/simulate.go `processBlock`). The addresses a tx warms stay the fork's
   * (`Evm.precompiles`), as geth's state transition warms `vm.ActivePrecompiles(rules)`.
   */
  readonly precompiles?: ReadonlyMap<bigint, Precompile>;
}

/** Frames released by finished one-shot Evms, by depth, for the next Evm of this thread. */
const SPARE_FRAMES: Frame[][] = [];

export class Evm {
  readonly schedule: GasSchedule;
  /** The fork's precompiles: the set a tx warms, and what calls reach unless `EvmOptions` replaces it. */
  readonly precompiles: PrecompileTable;
  readonly table: JumpTable;
  /** `EvmOptions.precompiles`, or null: calls reach `precompiles`. */
  private readonly precompilesByAddress: ReadonlyMap<bigint, Precompile> | null;
  private readonly frames: Frame[] = [];
  private readonly jumpdestCache = new WeakMap<Uint8Array, Uint8Array>();
  private readonly viewCache = new WeakMap<Uint8Array, DataView>();
  /** Per code: the values of the PUSH2..PUSH32 already run (Frame.pushes). */
  private readonly pushCache = new WeakMap<Uint8Array, PushChunk[]>();
  /** Per code: Frame.nativeTries. */
  private readonly triesCache = new WeakMap<Uint8Array, Uint8Array>();
  /** Child frame prepared by a CALL/CREATE opcode that returned Halt.Call. */
  child: Frame | null = null;
  /** Result of the last message that ended (see MessageResult). */
  readonly result: MessageResult = { halt: Halt.Stop, gasLeft: 0, output: EMPTY, address: 0n };
  tx: TxContext = { origin: 0n, gasPrice: 0n, blobHashes: [] };
  tracer: EvmTracer | null = null;
  /** Traced runs only: the parent's gas that a CALL/CREATE opcode's cost is measured to (-1: none). */
  private callMark = -1;
  /** Traced runs only: start gas of the frame at each depth, and of a message that ends at once. */
  private readonly traceGas: number[] = [];
  private traceDepth = 0;
  /** Traced runs only: geth's text of the fault that ended the running frame's loop. */
  private traceFault: string | null = null;
  /**
   * `performance.now()` time after which the run stops (0: none): geth's `evm.Cancel()` from a
   * call or trace timeout. JUMP and JUMPI look at it (the only way code runs long without calling),
   * as geth's do, and once it passed every frame ends as if by STOP; `aborted` then stays true.
   */
  deadline = 0;
  /** The deadline passed: the outcome is not the message's (geth `evm.Cancelled()`). */
  aborted = false;
  /** JUMP/JUMPI left before the clock is read again. */
  private jumpsToCheck = DEADLINE_CHECK_JUMPS;

  constructor(
    readonly rules: ForkRules,
    readonly block: BlockContext,
    readonly state: WorldState,
    options?: EvmOptions,
  ) {
    this.schedule = gasSchedule(rules);
    this.precompiles = precompileTable(rules);
    this.precompilesByAddress = options?.precompiles ?? null;
    this.table = jumpTable(rules.fork);
  }

  /**
   * Hands this Evm's frames to the next Evm of this thread. For one-shot runs (eth_call, gas
   * estimation), where a new Evm would otherwise build a 1024-slot stack and a memory buffer per call
   * (PERF: 12% of an eth_call's time before; bench/README.md `rpc`). The Evm must not run again.
   */
  release(): void {
    for (const f of this.frames) {
      if (f === undefined) continue;
      const spare = (SPARE_FRAMES[f.index] ??= []);
      if (spare.length < 4) spare.push(f);
    }
    this.frames.length = 0;
    this.child = null;
  }

  /** Gives what runs next `ms` of wall time (0: no limit) and clears an earlier abort. */
  setDeadline(ms: number): void {
    this.deadline = ms > 0 ? performance.now() + ms : 0;
    this.aborted = false;
    this.jumpsToCheck = DEADLINE_CHECK_JUMPS;
  }

  /**
   * After a run under a deadline: true when it passed, whether the run was stopped or had just
   * ended (geth's timer cancels the EVM and the tracer even when the last step is done).
   */
  timedOut(): boolean {
    return this.aborted || (this.deadline !== 0 && performance.now() >= this.deadline);
  }

  /** JUMP/JUMPI under a deadline: true (stop the frame) once it has passed. */
  pastDeadline(): boolean {
    if (this.aborted) return true;
    if (--this.jumpsToCheck > 0) return false;
    this.jumpsToCheck = DEADLINE_CHECK_JUMPS;
    if (performance.now() < this.deadline) return false;
    this.aborted = true;
    return true;
  }

  /** True when a call to `address` runs a precompile. */
  isPrecompile(address: bigint): boolean {
    return this.precompileAt(address) !== undefined;
  }

  /** The precompile a call to `address` runs, if any. */
  precompileAt(address: bigint): Precompile | undefined {
    const byAddress = this.precompilesByAddress;
    if (byAddress !== null) return byAddress.get(address);
    return address <= 0xffffn ? this.precompiles.get(Number(address)) : undefined;
  }

  frameAt(depth: number): Frame {
    let f = this.frames[depth];
    if (f === undefined) {
      f = SPARE_FRAMES[depth]?.pop() ?? new Frame(depth);
      this.frames[depth] = f;
    }
    return f;
  }

  jumpdests(code: Uint8Array): Uint8Array {
    let j = this.jumpdestCache.get(code);
    if (j === undefined) {
      j = new Uint8Array(code.length);
      for (let i = 0; i < code.length; i++) {
        const op = code[i];
        if (op === 0x5b) j[i] = 1;
        else if (op >= 0x60 && op <= 0x7f) i += op - 0x5f;
      }
      this.jumpdestCache.set(code, j);
    }
    return j;
  }

  /** Code run when `a` is called: its own, or its EIP-7702 delegate's. */
  executedCode(a: Account): Uint8Array {
    const code = this.state.code(a);
    if (this.schedule.eip7702) {
      const t = delegationTarget(code);
      if (t >= 0n) return this.state.code(this.state.account(t));
    }
    return code;
  }

  // ---- tx-level entry points -------------------------------------------------------------------

  /** A message call from the tx (depth 0). The outcome is in `this.result`. */
  call(caller: bigint, to: bigint, value: bigint, input: Uint8Array, gas: number): MessageResult {
    const f = this.beginCall(FrameKind.Call, 0, caller, to, to, value, input, gas, false);
    if (f !== null) this.drive(f);
    return this.result;
  }

  /** A contract creation from the tx (depth 0). The outcome is in `this.result`. */
  create(caller: bigint, value: bigint, initcode: Uint8Array, gas: number): MessageResult {
    const f = this.beginCreate(0, caller, value, initcode, gas, null);
    if (f !== null) this.drive(f);
    return this.result;
  }

  private drive(root: Frame): void {
    let f = root;
    for (;;) {
      const h = this.tracer === null ? this.loop(f) : this.loopTraced(f, this.tracer);
      if (h === Halt.Call) {
        f = this.child as Frame;
        this.child = null;
        continue;
      }
      this.endFrame(f, h);
      if (f === root) return;
      const parent = this.frames[f.index - 1];
      this.resume(parent, f.kind);
      f = parent;
    }
  }

  /**
   * The untraced loop. PERF: pc, sp and gas live in locals, and the commonest cheap opcodes (stack
   * moves, PUSH, comparisons, bit and add/sub/mul arithmetic, jumps) run inline in a switch that
   * V8 compiles to a jump table; every other opcode, and any opcode this fork does not define,
   * leaves the switch and runs its table function with the frame synced. Each inline case does
   * exactly what its table function does (opcodes/*.ts, which the traced loop runs). compute-keccak
   * bench: 97 → see bench/README.md `evm`.
   */
  private loop(f: Frame): Halt {
    const { fns, gas, minStack, maxStack, push0 } = this.table;
    const code = f.code;
    const n = code.length;
    const s = f.stack;
    const view = f.codeView;
    const jumpdests = f.jumpdests;
    const pushes = f.pushes;
    const nWord = BigInt(n);
    // Loops go native from a backward jump (PERF: compute-keccak, bench/README.md `import`).
    const run = nativeCore !== NativeCore.Off ? EVM_RUN : null;
    if (run !== null && nativeEager) this.runNative(f, run);
    let pc = f.pc;
    let sp = f.sp;
    let left = f.gas;
    for (;;) {
      const op = pc < n ? code[pc] : 0;
      if (sp < minStack[op]) {
        return stopAt(f, pc, sp, left, Halt.StackUnderflow);
      }
      if (sp > maxStack[op]) {
        return stopAt(f, pc, sp, left, Halt.StackOverflow);
      }
      const g = left - gas[op];
      if (g < 0) {
        return stopAt(f, pc, sp, left, Halt.OutOfGas);
      }
      left = g;
      pc++;
      switch (op) {
        case 0x01: {
          const r = s[sp - 1] + s[sp - 2];
          s[sp - 2] = r > MASK_256 ? r - TWO_256 : r;
          sp--;
          continue;
        }
        case 0x02: {
          const p = s[sp - 1] * s[sp - 2];
          s[sp - 2] = p > MASK_256 ? p & MASK_256 : p;
          sp--;
          continue;
        }
        case 0x03:
          s[sp - 2] = (s[sp - 1] - s[sp - 2]) & MASK_256;
          sp--;
          continue;
        case 0x10:
          s[sp - 2] = s[sp - 1] < s[sp - 2] ? 1n : 0n;
          sp--;
          continue;
        case 0x11:
          s[sp - 2] = s[sp - 1] > s[sp - 2] ? 1n : 0n;
          sp--;
          continue;
        case 0x14:
          s[sp - 2] = s[sp - 1] === s[sp - 2] ? 1n : 0n;
          sp--;
          continue;
        case 0x15:
          s[sp - 1] = s[sp - 1] === 0n ? 1n : 0n;
          continue;
        case 0x16:
          s[sp - 2] = s[sp - 1] & s[sp - 2];
          sp--;
          continue;
        case 0x17:
          s[sp - 2] = s[sp - 1] | s[sp - 2];
          sp--;
          continue;
        case 0x18:
          s[sp - 2] = s[sp - 1] ^ s[sp - 2];
          sp--;
          continue;
        case 0x19:
          s[sp - 1] = MASK_256 ^ s[sp - 1];
          continue;
        case 0x09: {
          const m = s[sp - 3];
          s[sp - 3] = m === 0n ? 0n : mulmod(s[sp - 1], s[sp - 2], m);
          sp -= 2;
          continue;
        }
        // KECCAK256, MLOAD and MSTORE within active memory (no expansion to charge) run here; the
        // rest (growth, offsets past it, out of gas) leave the switch.
        case 0x20: {
          const o = Number(s[sp - 1]);
          const len = Number(s[sp - 2]);
          if (o + len > f.memSize) break;
          const cost = 6 * ((len + 31) >>> 5);
          if (left < cost) break;
          left -= cost;
          s[sp - 2] = keccak256MemWord(f.mem, o, len);
          sp--;
          continue;
        }
        case 0x50:
          sp--;
          continue;
        case 0x51: {
          const o = Number(s[sp - 1]);
          if (o + 32 > f.memSize) break;
          s[sp - 1] = loadWord(f.memView, o);
          continue;
        }
        case 0x52: {
          const o = Number(s[sp - 1]);
          if (o + 32 > f.memSize) break;
          storeWord(f.memView, o, s[sp - 2]);
          sp -= 2;
          continue;
        }
        // A jump past a deadline or to a bad destination leaves the switch: its table function
        // stops the frame.
        // JUMP and JUMPI. A backward jump (a loop) runs on in the native core from its destination.
        case 0x56:
        case 0x57: {
          if (this.deadline !== 0 && this.pastDeadline()) break;
          if (op === 0x57 && s[sp - 2] === 0n) {
            sp -= 2;
            continue;
          }
          const dest = s[sp - 1];
          if (dest >= nWord || jumpdests[Number(dest)] !== 1) break;
          sp -= op - 0x55;
          const to = Number(dest);
          if (run !== null && (to < pc || nativeEager)) {
            f.pc = to;
            f.sp = sp;
            f.gas = left;
            this.runNative(f, run);
            pc = f.pc;
            sp = f.sp;
            left = f.gas;
            continue;
          }
          pc = to;
          continue;
        }
        case 0x5b:
          continue;
        case 0x5f:
          if (!push0) break;
          s[sp++] = 0n;
          continue;
        case 0x60:
          s[sp++] = BYTE_WORDS[pc < n ? code[pc] : 0];
          pc++;
          continue;
        case 0x61:
        case 0x62:
        case 0x63:
        case 0x64:
        case 0x65:
        case 0x66:
        case 0x67:
        case 0x68:
        case 0x69:
        case 0x6a:
        case 0x6b:
        case 0x6c:
        case 0x6d:
        case 0x6e:
        case 0x6f:
        case 0x70:
        case 0x71:
        case 0x72:
        case 0x73:
        case 0x74:
        case 0x75:
        case 0x76:
        case 0x77:
        case 0x78:
        case 0x79:
        case 0x7a:
        case 0x7b:
        case 0x7c:
        case 0x7d:
        case 0x7e:
        case 0x7f: {
          const len = op - 0x5f;
          const chunk = pushes[pc >>> PUSH_CHUNK_BITS];
          let v = chunk === undefined ? undefined : chunk[pc & PUSH_CHUNK_MASK];
          if (v === undefined) {
            v = pc + len <= n ? loadBytes(view, pc, len) : readWord(code, pc, len);
            if (chunk === undefined) {
              const c: PushChunk = new Array(PUSH_CHUNK_MASK + 1);
              c[pc & PUSH_CHUNK_MASK] = v;
              pushes[pc >>> PUSH_CHUNK_BITS] = c;
            } else chunk[pc & PUSH_CHUNK_MASK] = v;
          }
          s[sp++] = v;
          pc += len;
          continue;
        }
        case 0x80:
        case 0x81:
        case 0x82:
        case 0x83:
        case 0x84:
        case 0x85:
        case 0x86:
        case 0x87:
        case 0x88:
        case 0x89:
        case 0x8a:
        case 0x8b:
        case 0x8c:
        case 0x8d:
        case 0x8e:
        case 0x8f:
          s[sp] = s[sp - (op - 0x7f)];
          sp++;
          continue;
        case 0x90:
        case 0x91:
        case 0x92:
        case 0x93:
        case 0x94:
        case 0x95:
        case 0x96:
        case 0x97:
        case 0x98:
        case 0x99:
        case 0x9a:
        case 0x9b:
        case 0x9c:
        case 0x9d:
        case 0x9e:
        case 0x9f: {
          const top = sp - 1;
          const other = top - (op - 0x8f);
          const t = s[top];
          s[top] = s[other];
          s[other] = t;
          continue;
        }
      }
      // Not inline, or a jump that stops: the table function, on a synced frame.
      f.pc = pc;
      f.sp = sp;
      f.gas = left;
      const st = fns[op](this, f);
      if (st !== Halt.Continue) return st;
      if (run !== null && nativeEager) this.runNative(f, run);
      pc = f.pc;
      sp = f.sp;
      left = f.gas;
    }
  }

  /**
   * Runs `f` natively from f.pc (f.pc, f.sp, f.gas in and out; under a deadline, the jumps before
   * the next clock read too), unless entries at that position have
   * twice run too few opcodes to be worth it: the call and the bigint ↔ limb conversion of the
   * stack's top cost ~0.3-1 µs, which a loop repays and a few opcodes between two SLOADs do not.
   */
  private runNative(f: Frame, run: NativeBinding["evmRun"]): void {
    let tries = f.nativeTries;
    if (tries.length === 0) {
      const code = f.code;
      let t = this.triesCache.get(code);
      if (t === undefined) {
        t = new Uint8Array(code.length + 1);
        this.triesCache.set(code, t);
      }
      f.nativeTries = tries = t;
    }
    const start = f.pc;
    if (start >= tries.length || (tries[start] >= NATIVE_TRIES && !nativeEager)) return;
    const io = NATIVE_IO;
    io[0] = start;
    io[1] = f.sp;
    io[2] = f.gas;
    io[3] = f.memSize;
    // Under a deadline the core runs the jumps that pastDeadline would let pass without the clock.
    const deadline = this.deadline !== 0;
    io[5] = !deadline ? NO_JUMP_LIMIT : this.aborted ? 0 : this.jumpsToCheck - 1;
    run(f.code, f.jumpdests, f.mem, f.stack, this.table.nativeCfg, io);
    if (io[4] < NATIVE_MIN_OPS) tries[start]++;
    f.pc = io[0];
    f.sp = io[1];
    f.gas = io[2];
    if (deadline) this.jumpsToCheck = io[5] + 1;
  }

  /**
   * The same loop with the tracer's step hooks around each opcode. The cost reported is geth's:
   * for calls it includes the gas handed to the child, for creates it does not.
   */
  private loopTraced(f: Frame, t: EvmTracer): Halt {
    const { fns, gas, minStack, maxStack } = this.table;
    const code = f.code;
    for (;;) {
      const pc = f.pc;
      const op = pc < code.length ? code[pc] : 0;
      const sp = f.sp;
      const gasBefore = f.gas;
      t.onStep?.(f, op, this.state.refund);
      if (sp < minStack[op]) {
        this.traceFault = `stack underflow (${sp} <=> ${minStack[op]})`;
        t.onFault?.(Halt.StackUnderflow, f, gas[op], false, this.traceFault);
        return Halt.StackUnderflow;
      }
      if (sp > maxStack[op]) {
        this.traceFault = `stack limit reached ${sp} (${maxStack[op]})`;
        t.onFault?.(Halt.StackOverflow, f, gas[op], false, this.traceFault);
        return Halt.StackOverflow;
      }
      const g = gasBefore - gas[op];
      if (g < 0) {
        t.onFault?.(Halt.OutOfGas, f, gas[op], false, "out of gas");
        return Halt.OutOfGas;
      }
      f.gas = g;
      f.pc = pc + 1;
      this.callMark = -1;
      // SELFDESTRUCT is a message of its own for geth's tracers: beneficiary and balance before it runs.
      const sdTo = op === 0xff ? f.stack[sp - 1] & MASK_160 : 0n;
      const sdValue = op === 0xff ? (f.account as Account).balance : 0n;
      const s = fns[op](this, f);
      const cost = this.callMark >= 0 ? gasBefore - this.callMark : gasBefore - f.gas;
      if (s === Halt.Continue || s === Halt.Call || s === Halt.Stop || s === Halt.Return || s === Halt.Revert) {
        if (op === 0xff && s === Halt.Stop) {
          t.onEnter?.(f.depth + 1, "SELFDESTRUCT", f.address, sdTo, EMPTY, 0, sdValue);
          t.onExit?.(f.depth + 1, EMPTY, 0, Halt.Stop, false, null);
        }
        t.onStepCost?.(cost, f);
        if (s !== Halt.Continue) return s;
      } else {
        // An error inside the opcode belongs on its own step (EIP-3155 `error`).
        this.traceFault =
          s === Halt.InvalidOpcode
            ? `invalid opcode: ${OP_NAMES[op] ?? `opcode 0x${op.toString(16)} not defined`}`
            : HALT_NAMES[s];
        t.onFault?.(s, f, cost, true, this.traceFault);
        return s;
      }
    }
  }

  /** Traced runs: a message begins (geth captureBegin). */
  private traceEnter(
    t: EvmTracer,
    depth: number,
    kind: CallKind,
    from: bigint,
    to: bigint,
    input: Uint8Array,
    gas: number,
    value: bigint | null,
    extraMark: number,
  ): void {
    if (depth > 0) this.callMark = this.frames[depth - 1].gas + extraMark;
    this.traceGas[depth] = gas;
    this.traceDepth = depth;
    t.onEnter?.(depth, kind, from, to, input, gas, value);
  }

  // ---- calls -----------------------------------------------------------------------------------

  private immediate(halt: Halt, gasLeft: number, output: Uint8Array, error: string | null = null): null {
    const t = this.tracer;
    if (t !== null) {
      const d = this.traceDepth;
      const ok = halt === Halt.Stop || halt === Halt.Return;
      t.onExit?.(d, output, this.traceGas[d] - gasLeft, halt, !ok, ok ? null : (error ?? HALT_NAMES[halt]));
    }
    const r = this.result;
    r.halt = halt;
    r.gasLeft = gasLeft;
    r.output = output;
    r.address = 0n;
    return null;
  }

  /**
   * Starts a message call at `depth`. Returns the frame to run, or null when the call finished at
   * once (depth/balance failure, precompile, no code, EIP-161 no-op); the outcome is then in
   * `this.result`. Gas is already taken from the caller.
   */
  beginCall(
    kind: FrameKind,
    depth: number,
    caller: bigint,
    address: bigint,
    codeAddress: bigint,
    value: bigint,
    input: Uint8Array,
    gas: number,
    isStatic: boolean,
  ): Frame | null {
    const st = this.state;
    const t = this.tracer;
    if (t !== null) {
      this.traceEnter(
        t,
        depth,
        CALL_KINDS[kind],
        kind === FrameKind.DelegateCall ? address : caller,
        codeAddress,
        input,
        gas,
        kind === FrameKind.StaticCall ? null : value,
        0,
      );
    }
    if (depth > MAX_DEPTH) return this.immediate(Halt.DepthOrBalance, gas, EMPTY, "max call depth exceeded");
    const transfers = kind === FrameKind.Call || kind === FrameKind.CallCode;
    let from: Account | null = null;
    if (transfers && value !== 0n) {
      from = st.account(caller);
      if (from.balance < value) {
        return this.immediate(Halt.DepthOrBalance, gas, EMPTY, "insufficient balance for transfer");
      }
    }
    const cp = st.checkpoint();
    const target = st.account(address);
    const pre = this.precompileAt(codeAddress);
    if (kind === FrameKind.Call) {
      if (!target.exists) {
        if (pre === undefined && this.schedule.eip158 && value === 0n) {
          st.commit(cp);
          return this.immediate(Halt.Stop, gas, EMPTY);
        }
        st.markExists(target);
      }
      from ??= st.account(caller);
      st.subBalance(from, value);
      st.addBalance(target, value);
    } else if (kind === FrameKind.StaticCall) {
      // geth touches the target of a STATICCALL (an AddBalance of zero), which EIP-161 observes.
      st.touch(target);
    }
    if (pre !== undefined) {
      const r = pre(input, gas, this.rules);
      if (r.status === PrecompileStatus.Ok) {
        st.commit(cp);
        return this.immediate(Halt.Return, gas - r.gasUsed, r.output);
      }
      st.revert(cp);
      return this.immediate(r.status === PrecompileStatus.OutOfGas ? Halt.OutOfGas : Halt.PrecompileFailure, 0, EMPTY);
    }
    const codeAccount = codeAddress === address ? target : st.account(codeAddress);
    const code = this.executedCode(codeAccount);
    if (code.length === 0) {
      st.commit(cp);
      return this.immediate(Halt.Stop, gas, EMPTY);
    }
    return this.initFrame(depth, kind, code, gas, target, caller, value, input, isStatic, cp);
  }

  /** Starts a contract creation at `depth` (salt null: CREATE, else CREATE2). As beginCall. */
  beginCreate(
    depth: number,
    caller: bigint,
    value: bigint,
    initcode: Uint8Array,
    gas: number,
    salt: bigint | null,
  ): Frame | null {
    const st = this.state;
    const t = this.tracer;
    if (t !== null) {
      const a = st.account(caller);
      const to =
        salt === null ? createAddress(a.addressBytes, a.nonce) : create2Address(a.addressBytes, salt, initcode);
      this.traceEnter(t, depth, salt === null ? "CREATE" : "CREATE2", caller, to, initcode, gas, value, gas);
    }
    if (depth > MAX_DEPTH) return this.immediate(Halt.DepthOrBalance, gas, EMPTY, "max call depth exceeded");
    const from = st.account(caller);
    if (from.balance < value) {
      return this.immediate(Halt.DepthOrBalance, gas, EMPTY, "insufficient balance for transfer");
    }
    const nonce = from.nonce;
    if (nonce >= MAX_NONCE) return this.immediate(Halt.NonceOverflow, gas, EMPTY);
    st.setNonce(from, nonce + 1n);
    const address =
      salt === null ? createAddress(from.addressBytes, nonce) : create2Address(from.addressBytes, salt, initcode);
    if (this.schedule.berlin) st.warmAddress(address);
    const target = st.account(address);
    if (target.nonce !== 0n || this.state.code(target).length !== 0 || st.hasStorage(target)) {
      return this.immediate(Halt.CreateCollision, 0, EMPTY);
    }
    const cp = st.checkpoint();
    st.createContract(target);
    if (this.schedule.eip158) st.setNonce(target, 1n);
    st.subBalance(from, value);
    st.addBalance(target, value);
    const f = this.initFrame(depth, FrameKind.Create, initcode, gas, target, caller, value, EMPTY, false, cp);
    if (initcode.length === 0) {
      this.endFrame(f, Halt.Stop);
      return null;
    }
    return f;
  }

  private initFrame(
    depth: number,
    kind: FrameKind,
    code: Uint8Array,
    gas: number,
    account: Account,
    caller: bigint,
    value: bigint,
    input: Uint8Array,
    isStatic: boolean,
    checkpoint: number,
  ): Frame {
    const f = this.frameAt(depth);
    f.reset();
    f.kind = kind;
    f.code = code;
    f.jumpdests = this.jumpdests(code);
    f.nativeTries = EMPTY;
    let pushes = this.pushCache.get(code);
    if (pushes === undefined) {
      pushes = new Array<PushChunk>(Math.ceil(code.length / (PUSH_CHUNK_MASK + 1)));
      this.pushCache.set(code, pushes);
    }
    f.pushes = pushes;
    let view = this.viewCache.get(code);
    if (view === undefined) {
      view = new DataView(code.buffer, code.byteOffset, code.byteLength);
      this.viewCache.set(code, view);
    }
    f.codeView = view;
    f.gas = gas;
    f.address = account.address;
    f.account = account;
    f.caller = caller;
    f.value = value;
    f.input = input;
    f.isStatic = isStatic;
    f.depth = depth;
    f.checkpoint = checkpoint;
    return f;
  }

  /** Settles a finished frame: code deposit for creates, commit or revert, the result. */
  private endFrame(f: Frame, halt: Halt): void {
    const st = this.state;
    const sc = this.schedule;
    let h = halt;
    let output = h === Halt.Return || h === Halt.Revert ? f.output : EMPTY;
    let created: Uint8Array = EMPTY;
    if (f.kind === FrameKind.Create && (h === Halt.Stop || h === Halt.Return)) {
      const code = output;
      created = code;
      if (code.length > sc.maxCodeSize) h = Halt.CodeTooLarge;
      else if (sc.rejectEf && code.length > 0 && code[0] === 0xef) h = Halt.InvalidCodePrefix;
      else {
        const cost = code.length * 200;
        if (f.gas >= cost) {
          f.gas -= cost;
          st.setCode(f.account as Account, code);
        } else if (sc.codeDepositFails) {
          h = Halt.OutOfGas;
        }
      }
    }
    const r = this.result;
    if (h === Halt.Stop || h === Halt.Return) {
      st.commit(f.checkpoint);
      r.gasLeft = f.gas;
    } else {
      st.revert(f.checkpoint);
      r.gasLeft = h === Halt.Revert ? f.gas : 0;
      if (h !== Halt.Revert) output = EMPTY;
    }
    r.halt = h;
    r.output = output;
    r.address = f.kind === FrameKind.Create ? f.address : 0n;
    const t = this.tracer;
    if (t !== null) {
      const ok = h === Halt.Stop || h === Halt.Return;
      const out = ok && f.kind === FrameKind.Create ? created : output;
      let error: string | null = null;
      if (!ok) {
        if (h === halt && this.traceFault !== null) error = this.traceFault;
        else if (h === Halt.OutOfGas && halt !== h) error = "contract creation code storage out of gas";
        else error = HALT_NAMES[h];
      }
      this.traceFault = null;
      t.onExit?.(f.depth, out, this.traceGas[f.depth] - r.gasLeft, h, !ok, error);
    }
  }

  /** Hands the result of a finished child to its parent frame and lets the parent continue. */
  resume(parent: Frame, kind: FrameKind): void {
    const r = this.result;
    const ok = r.halt === Halt.Stop || r.halt === Halt.Return;
    parent.gas += r.gasLeft;
    if (kind === FrameKind.Create) {
      parent.stack[parent.sp++] = ok ? r.address : 0n;
      parent.returnData = r.halt === Halt.Revert ? r.output : EMPTY;
      return;
    }
    parent.stack[parent.sp++] = ok ? 1n : 0n;
    const out = r.output;
    parent.returnData = out;
    if (ok || r.halt === Halt.Revert) {
      const n = out.length < parent.retSize ? out.length : parent.retSize;
      if (n > 0) parent.mem.set(n === out.length ? out : out.subarray(0, n), parent.retOffset);
    }
  }
}

/** CREATE address: keccak256(rlp([sender, nonce]))[12:]. */
export function createAddress(sender: Uint8Array, nonce: bigint): bigint {
  const h = keccak256(encodeRlp([sender, uintToRlpBytes(nonce)]));
  return readAddress(h, 12);
}

/** CREATE2 address: keccak256(0xff ‖ sender ‖ salt ‖ keccak256(initcode))[12:]. */
export function create2Address(sender: Uint8Array, salt: bigint, initcode: Uint8Array): bigint {
  const buf = new Uint8Array(85);
  buf[0] = 0xff;
  buf.set(sender, 1);
  let s = salt;
  for (let i = 52; i >= 21; i--) {
    buf[i] = Number(s & 0xffn);
    s >>= 8n;
  }
  buf.set(keccak256(initcode), 53);
  return readAddress(keccak256(buf), 12);
}
