/**
 * Opcodes that end a frame or start another: STOP, RETURN, REVERT, INVALID, SELFDESTRUCT, LOG0–4,
 * CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2. Calls charge the caller here, then
 * ask the Evm for a child frame (returned as Halt.Call) or apply an immediate result.
 * Sources: execution-specs `vm/instructions/system.py`, `vm/gas.py` (calculate_message_call_gas).
 */
import { delegationTarget } from "../delegation.js";
import type { Evm } from "../evm.js";
import { type Frame, FrameKind } from "../frame.js";
import { Halt } from "../status.js";
import { MASK_160, wordBytes } from "../word.js";
import { useMemory, useWordGas } from "./memory.js";

const CALL_VALUE_GAS = 9000;
const CALL_STIPEND = 2300;
const NEW_ACCOUNT_GAS = 25000;
const LOG_GAS = 375;
const LOG_TOPIC_GAS = 375;
const LOG_DATA_GAS = 8;
const EMPTY = new Uint8Array(0);

export function opStop(): Halt {
  return Halt.Stop;
}

export function opInvalid(): Halt {
  return Halt.InvalidOpcode;
}

function output(f: Frame): boolean {
  const s = f.stack;
  const sp = f.sp;
  const off = s[sp - 1];
  const size = s[sp - 2];
  f.sp = sp - 2;
  if (!useMemory(f, off, size)) return false;
  const n = Number(size);
  const o = n === 0 ? 0 : Number(off);
  f.output = n === 0 ? EMPTY : f.mem.slice(o, o + n);
  return true;
}

export function opReturn(_e: Evm, f: Frame): Halt {
  return output(f) ? Halt.Return : Halt.OutOfGas;
}

export function opRevert(_e: Evm, f: Frame): Halt {
  return output(f) ? Halt.Revert : Halt.OutOfGas;
}

export function opSelfdestruct(e: Evm, f: Frame): Halt {
  if (f.isStatic) return Halt.StaticWrite;
  const sc = e.schedule;
  const st = e.state;
  const beneficiary = f.stack[--f.sp] & MASK_160;
  let cost = 0;
  if (sc.berlin && !st.warmAddress(beneficiary)) cost += sc.coldAccount;
  const self = f.account as NonNullable<Frame["account"]>;
  const to = st.account(beneficiary);
  if (sc.eip158) {
    if ((!to.exists || to.isEmpty()) && self.balance !== 0n) cost += NEW_ACCOUNT_GAS;
  } else if (sc.eip150 && !to.exists) {
    cost += NEW_ACCOUNT_GAS;
  }
  if (f.gas < cost) return Halt.OutOfGas;
  f.gas -= cost;
  if (sc.selfdestructRefund > 0 && !self.destructed) st.refund += sc.selfdestructRefund;
  const balance = self.balance;
  const destroys = !sc.eip6780 || self.createdInTx;
  st.subBalance(self, balance);
  st.addBalance(to, balance);
  if (destroys) {
    st.setBalance(self, 0n);
    st.selfDestruct(self);
  }
  return Halt.Stop;
}

export function makeLog(topics: number): (e: Evm, f: Frame) => Halt {
  return (e: Evm, f: Frame): Halt => {
    if (f.isStatic) return Halt.StaticWrite;
    const s = f.stack;
    let sp = f.sp;
    const off = s[--sp];
    const size = s[--sp];
    if (!useMemory(f, off, size)) return Halt.OutOfGas;
    const n = Number(size);
    const cost = LOG_GAS + LOG_TOPIC_GAS * topics + LOG_DATA_GAS * n;
    if (f.gas < cost) return Halt.OutOfGas;
    f.gas -= cost;
    const t: Uint8Array[] = new Array(topics);
    for (let i = 0; i < topics; i++) t[i] = wordBytes(s[--sp]);
    f.sp = sp;
    const o = n === 0 ? 0 : Number(off);
    e.state.logs.push({
      address: (f.account as NonNullable<Frame["account"]>).addressBytes,
      topics: t,
      data: f.mem.slice(o, o + n),
    });
    return Halt.Continue;
  };
}

/** CALL, CALLCODE, DELEGATECALL and STATICCALL. */
export function makeCall(kind: FrameKind): (e: Evm, f: Frame) => Halt {
  const hasValue = kind === FrameKind.Call || kind === FrameKind.CallCode;
  return (e: Evm, f: Frame): Halt => {
    const s = f.stack;
    const sc = e.schedule;
    const st = e.state;
    let sp = f.sp;
    const gasWord = s[--sp];
    const to = s[--sp] & MASK_160;
    const value = hasValue ? s[--sp] : 0n;
    const inOff = s[--sp];
    const inSize = s[--sp];
    const outOff = s[--sp];
    const outSize = s[--sp];
    f.sp = sp;
    if (kind === FrameKind.Call && f.isStatic && value !== 0n) return Halt.StaticWrite;
    if (!useMemory(f, inOff, inSize) || !useMemory(f, outOff, outSize)) return Halt.OutOfGas;
    let cost = sc.berlin ? 0 : sc.callBase;
    if (sc.berlin) cost += st.warmAddress(to) ? sc.warmRead : sc.coldAccount;
    if (value !== 0n) cost += CALL_VALUE_GAS;
    if (kind === FrameKind.Call) {
      const target = st.account(to);
      if (sc.eip158 ? value !== 0n && (!target.exists || target.isEmpty()) : !target.exists) cost += NEW_ACCOUNT_GAS;
    }
    if (sc.eip7702) {
      const d = delegationTarget(st.code(st.account(to)));
      if (d >= 0n) cost += st.warmAddress(d) ? sc.warmRead : sc.coldAccount;
    }
    if (f.gas < cost) return Halt.OutOfGas;
    f.gas -= cost;
    let callGas: number;
    if (sc.eip150) {
      const cap = f.gas - Math.floor(f.gas / 64);
      callGas = gasWord < BigInt(cap) ? Number(gasWord) : cap;
    } else {
      if (gasWord > BigInt(f.gas)) return Halt.OutOfGas;
      callGas = Number(gasWord);
    }
    f.gas -= callGas;
    if (value !== 0n) callGas += CALL_STIPEND;
    const inN = Number(inSize);
    const input = inN === 0 ? EMPTY : f.mem.slice(Number(inOff), Number(inOff) + inN);
    f.retSize = Number(outSize);
    f.retOffset = f.retSize === 0 ? 0 : Number(outOff);
    let child: Frame | null;
    switch (kind) {
      case FrameKind.Call:
        child = e.beginCall(kind, f.depth + 1, f.address, to, to, value, input, callGas, f.isStatic);
        break;
      case FrameKind.CallCode:
        child = e.beginCall(kind, f.depth + 1, f.address, f.address, to, value, input, callGas, f.isStatic);
        break;
      case FrameKind.DelegateCall:
        child = e.beginCall(kind, f.depth + 1, f.caller, f.address, to, f.value, input, callGas, f.isStatic);
        break;
      default:
        child = e.beginCall(kind, f.depth + 1, f.address, to, to, 0n, input, callGas, true);
    }
    if (child === null) {
      e.resume(f, kind);
      return Halt.Continue;
    }
    e.child = child;
    return Halt.Call;
  };
}

/** CREATE (salted = false) and CREATE2. */
export function makeCreate(salted: boolean): (e: Evm, f: Frame) => Halt {
  return (e: Evm, f: Frame): Halt => {
    if (f.isStatic) return Halt.StaticWrite;
    const sc = e.schedule;
    const s = f.stack;
    let sp = f.sp;
    const value = s[--sp];
    const off = s[--sp];
    const size = s[--sp];
    const salt = salted ? s[--sp] : null;
    f.sp = sp;
    if (!useMemory(f, off, size)) return Halt.OutOfGas;
    const n = Number(size);
    if (n > sc.maxInitcodeSize) return Halt.OutOfGas;
    if (!useWordGas(f, n, sc.initcodeWordGas + (salted ? 6 : 0))) return Halt.OutOfGas;
    const callGas = sc.eip150 ? f.gas - Math.floor(f.gas / 64) : f.gas;
    f.gas -= callGas;
    const o = n === 0 ? 0 : Number(off);
    const initcode = f.mem.slice(o, o + n);
    const child = e.beginCreate(f.depth + 1, f.address, value, initcode, callGas, salt);
    if (child === null) {
      e.resume(f, FrameKind.Create);
      return Halt.Continue;
    }
    e.child = child;
    return Halt.Call;
  };
}
