/**
 * The jump table of a fork: for each opcode byte its function, constant gas, the stack depth it
 * needs, and the largest stack it may start from (1024 − net growth). Built once per fork and
 * frozen; the loop reads four typed arrays and never asks which fork it runs (code-models §10.7).
 * Undefined opcodes map to INVALID (all gas consumed).
 */
import { Fork, l1Rules } from "../../spec/forks.js";
import type { Evm } from "../evm.js";
import { type Frame, FrameKind, STACK_LIMIT } from "../frame.js";
import { gasSchedule } from "../schedule.js";
import type { Halt } from "../status.js";
import * as A from "./arithmetic.js";
import * as E from "./environment.js";
import * as F from "./flow.js";
import * as M from "./memory.js";
import * as S from "./storage.js";
import * as X from "./system.js";

export type OpFn = (e: Evm, f: Frame) => Halt;

export interface JumpTable {
  readonly fns: readonly OpFn[];
  readonly gas: Int32Array;
  readonly minStack: Int32Array;
  readonly maxStack: Int32Array;
  /** PUSH0 is defined (Shanghai on): the loop runs it inline. */
  readonly push0: boolean;
  /**
   * The native core's view of the table (native/src/interp.c): `gas`, `minStack`, `maxStack` and a
   * mask of the opcodes it runs (those of NATIVE_OPS this fork defines), 256 entries each.
   */
  readonly nativeCfg: Int32Array;
}

/**
 * Opcodes the native core runs (stack, arithmetic without EXP/SDIV/SMOD/SIGNEXTEND, memory within
 * its active size, jumps); it leaves every other one to the TS loop.
 */
const NATIVE_OPS: readonly number[] = [
  0x01,
  0x02,
  0x03,
  0x04,
  0x06,
  0x08,
  0x09,
  0x10,
  0x11,
  0x12,
  0x13,
  0x14,
  0x15,
  0x16,
  0x17,
  0x18,
  0x19,
  0x1a,
  0x1b,
  0x1c,
  0x1d,
  0x20,
  0x50,
  0x51,
  0x52,
  0x53,
  0x56,
  0x57,
  0x58,
  0x59,
  0x5a,
  0x5b,
  0x5f,
  ...Array.from({ length: 64 }, (_, i) => 0x60 + i),
];

const cache = new Map<Fork, JumpTable>();

export function jumpTable(fork: Fork): JumpTable {
  let t = cache.get(fork);
  if (t === undefined) {
    t = build(fork);
    cache.set(fork, t);
  }
  return t;
}

function build(fork: Fork): JumpTable {
  const sc = gasSchedule(l1Rules(fork));
  const fns: OpFn[] = new Array(256).fill(X.opInvalid);
  const gas = new Int32Array(256);
  const minStack = new Int32Array(256);
  const maxStack = new Int32Array(256).fill(STACK_LIMIT);
  const def = (op: number, fn: OpFn, g: number, pops: number, pushes: number, since: Fork = Fork.Frontier): void => {
    if (fork < since) return;
    fns[op] = fn;
    gas[op] = g;
    minStack[op] = pops;
    maxStack[op] = STACK_LIMIT - Math.max(0, pushes - pops);
  };
  const berlin = sc.berlin;
  def(0x00, X.opStop, 0, 0, 0);
  def(0x01, A.opAdd, 3, 2, 1);
  def(0x02, A.opMul, 5, 2, 1);
  def(0x03, A.opSub, 3, 2, 1);
  def(0x04, A.opDiv, 5, 2, 1);
  def(0x05, A.opSdiv, 5, 2, 1);
  def(0x06, A.opMod, 5, 2, 1);
  def(0x07, A.opSmod, 5, 2, 1);
  def(0x08, A.opAddmod, 8, 3, 1);
  def(0x09, A.opMulmod, 8, 3, 1);
  def(0x0a, A.opExp, 10, 2, 1);
  def(0x0b, A.opSignextend, 5, 2, 1);
  def(0x10, A.opLt, 3, 2, 1);
  def(0x11, A.opGt, 3, 2, 1);
  def(0x12, A.opSlt, 3, 2, 1);
  def(0x13, A.opSgt, 3, 2, 1);
  def(0x14, A.opEq, 3, 2, 1);
  def(0x15, A.opIszero, 3, 1, 1);
  def(0x16, A.opAnd, 3, 2, 1);
  def(0x17, A.opOr, 3, 2, 1);
  def(0x18, A.opXor, 3, 2, 1);
  def(0x19, A.opNot, 3, 1, 1);
  def(0x1a, A.opByte, 3, 2, 1);
  def(0x1b, A.opShl, 3, 2, 1, Fork.Constantinople);
  def(0x1c, A.opShr, 3, 2, 1, Fork.Constantinople);
  def(0x1d, A.opSar, 3, 2, 1, Fork.Constantinople);
  def(0x1e, A.opClz, 5, 1, 1, Fork.Osaka);
  def(0x20, M.opKeccak256, 30, 2, 1);
  def(0x30, E.opAddress, 2, 0, 1);
  def(0x31, E.opBalance, berlin ? 0 : sc.balance, 1, 1);
  def(0x32, E.opOrigin, 2, 0, 1);
  def(0x33, E.opCaller, 2, 0, 1);
  def(0x34, E.opCallvalue, 2, 0, 1);
  def(0x35, E.opCalldataload, 3, 1, 1);
  def(0x36, E.opCalldatasize, 2, 0, 1);
  def(0x37, E.opCalldatacopy, 3, 3, 0);
  def(0x38, E.opCodesize, 2, 0, 1);
  def(0x39, E.opCodecopy, 3, 3, 0);
  def(0x3a, E.opGasprice, 2, 0, 1);
  def(0x3b, E.opExtcodesize, berlin ? 0 : sc.extcodeSize, 1, 1);
  def(0x3c, E.opExtcodecopy, berlin ? 0 : sc.extcodeCopy, 4, 0);
  def(0x3d, E.opReturndatasize, 2, 0, 1, Fork.Byzantium);
  def(0x3e, E.opReturndatacopy, 3, 3, 0, Fork.Byzantium);
  def(0x3f, E.opExtcodehash, berlin ? 0 : sc.extcodeHash, 1, 1, Fork.Constantinople);
  def(0x40, E.opBlockhash, 20, 1, 1);
  def(0x41, E.opCoinbase, 2, 0, 1);
  def(0x42, E.opTimestamp, 2, 0, 1);
  def(0x43, E.opNumber, 2, 0, 1);
  def(0x44, fork >= Fork.Paris ? E.opPrevrandao : E.opDifficulty, 2, 0, 1);
  def(0x45, E.opGaslimit, 2, 0, 1);
  def(0x46, E.opChainid, 2, 0, 1, Fork.Istanbul);
  def(0x47, E.opSelfbalance, 5, 0, 1, Fork.Istanbul);
  def(0x48, E.opBasefee, 2, 0, 1, Fork.London);
  def(0x49, E.opBlobhash, 3, 1, 1, Fork.Cancun);
  def(0x4a, E.opBlobbasefee, 2, 0, 1, Fork.Cancun);
  def(0x50, F.opPop, 2, 1, 0);
  def(0x51, M.opMload, 3, 1, 1);
  def(0x52, M.opMstore, 3, 2, 0);
  def(0x53, M.opMstore8, 3, 2, 0);
  def(0x54, S.opSload, berlin ? 0 : sc.sload, 1, 1);
  def(0x55, S.opSstore, 0, 2, 0);
  def(0x56, F.opJump, 8, 1, 0);
  def(0x57, F.opJumpi, 10, 2, 0);
  def(0x58, F.opPc, 2, 0, 1);
  def(0x59, M.opMsize, 2, 0, 1);
  def(0x5a, F.opGas, 2, 0, 1);
  def(0x5b, F.opJumpdest, 1, 0, 0);
  def(0x5c, S.opTload, 100, 1, 1, Fork.Cancun);
  def(0x5d, S.opTstore, 100, 2, 0, Fork.Cancun);
  def(0x5e, M.opMcopy, 3, 3, 0, Fork.Cancun);
  def(0x5f, F.opPush0, 2, 0, 1, Fork.Shanghai);
  def(0x60, F.opPush1, 3, 0, 1);
  for (let n = 2; n <= 32; n++) def(0x5f + n, F.makePush(n), 3, 0, 1);
  for (let n = 1; n <= 16; n++) {
    def(0x7f + n, F.makeDup(n), 3, n, n + 1);
    def(0x8f + n, F.makeSwap(n), 3, n + 1, n + 1);
  }
  for (let n = 0; n <= 4; n++) def(0xa0 + n, X.makeLog(n), 0, n + 2, 0);
  def(0xf0, X.makeCreate(false), 32000, 3, 1);
  def(0xf1, X.makeCall(FrameKind.Call), 0, 7, 1);
  def(0xf2, X.makeCall(FrameKind.CallCode), 0, 7, 1);
  def(0xf3, X.opReturn, 0, 2, 0);
  def(0xf4, X.makeCall(FrameKind.DelegateCall), 0, 6, 1, Fork.Homestead);
  def(0xf5, X.makeCreate(true), 32000, 4, 1, Fork.Constantinople);
  def(0xfa, X.makeCall(FrameKind.StaticCall), 0, 6, 1, Fork.Byzantium);
  def(0xfd, X.opRevert, 0, 2, 0, Fork.Byzantium);
  def(0xfe, X.opInvalid, 0, 0, 0);
  def(0xff, X.opSelfdestruct, sc.selfdestruct, 1, 0);
  const nativeCfg = new Int32Array(1024);
  nativeCfg.set(gas, 0);
  nativeCfg.set(minStack, 256);
  nativeCfg.set(maxStack, 512);
  for (const op of NATIVE_OPS) if (fns[op] !== X.opInvalid) nativeCfg[768 + op] = 1;
  return Object.freeze({ fns: Object.freeze(fns), gas, minStack, maxStack, push0: fork >= Fork.Shanghai, nativeCfg });
}
