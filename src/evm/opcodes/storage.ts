/**
 * SLOAD, SSTORE (every metering rule from Frontier to EIP-3529) and EIP-1153 TLOAD/TSTORE.
 * Sources: execution-specs `vm/instructions/storage.py` per fork; EIP-1283, EIP-2200, EIP-2929.
 */
import type { Evm } from "../evm.js";
import type { Frame } from "../frame.js";
import { SstoreRule } from "../schedule.js";
import { Halt } from "../status.js";

/** EIP-2200: SSTORE fails when no more than the call stipend is left. */
const SSTORE_SENTRY = 2300;

export function opSload(e: Evm, f: Frame): Halt {
  const i = f.sp - 1;
  const slot = f.stack[i];
  const sc = e.schedule;
  if (sc.berlin) {
    const cost = e.state.warmSlot(f.address, slot) ? sc.warmRead : sc.coldSload;
    if (f.gas < cost) return Halt.OutOfGas;
    f.gas -= cost;
  }
  f.stack[i] = e.state.sload(f.account as NonNullable<Frame["account"]>, slot);
  return Halt.Continue;
}

export function opSstore(e: Evm, f: Frame): Halt {
  if (f.isStatic) return Halt.StaticWrite;
  const sc = e.schedule;
  const st = e.state;
  const sp = f.sp - 2;
  f.sp = sp;
  const slot = f.stack[sp + 1];
  const value = f.stack[sp];
  const acc = f.account as NonNullable<Frame["account"]>;
  const rule = sc.sstoreRule;
  if (rule >= SstoreRule.Eip2200 && f.gas <= SSTORE_SENTRY) return Halt.OutOfGas;
  let cost = 0;
  if (rule === SstoreRule.Eip2929 && !st.warmSlot(f.address, slot)) cost = sc.coldSload;
  const current = st.sload(acc, slot);
  if (rule === SstoreRule.Frontier) {
    cost += current === 0n && value !== 0n ? sc.sstoreSet : sc.sstoreReset;
    if (current !== 0n && value === 0n) st.refund += sc.sstoreClearRefund;
  } else {
    const noop = rule === SstoreRule.Eip2929 ? sc.warmRead : rule === SstoreRule.Eip2200 ? sc.sload : 200;
    const original = st.originalStorage(acc, slot, current);
    if (current === value) {
      cost += noop;
    } else if (original === current) {
      if (original === 0n) {
        cost += sc.sstoreSet;
      } else {
        cost += sc.sstoreReset;
        if (value === 0n) st.refund += sc.sstoreClearRefund;
      }
    } else {
      cost += noop;
      if (original !== 0n) {
        if (current === 0n) st.refund -= sc.sstoreClearRefund;
        else if (value === 0n) st.refund += sc.sstoreClearRefund;
      }
      if (original === value) st.refund += original === 0n ? sc.sstoreSet - noop : sc.sstoreReset - noop;
    }
  }
  if (f.gas < cost) return Halt.OutOfGas;
  f.gas -= cost;
  st.sstore(acc, slot, value, current);
  return Halt.Continue;
}

export function opTload(e: Evm, f: Frame): Halt {
  const i = f.sp - 1;
  f.stack[i] = e.state.tload(f.address, f.stack[i]);
  return Halt.Continue;
}

export function opTstore(e: Evm, f: Frame): Halt {
  if (f.isStatic) return Halt.StaticWrite;
  const sp = f.sp - 2;
  f.sp = sp;
  e.state.tstore(f.address, f.stack[sp + 1], f.stack[sp]);
  return Halt.Continue;
}
