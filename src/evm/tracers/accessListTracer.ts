/**
 * geth's access-list tracer (eth/tracers/logger/access_list_tracer.go `AccessListTracer`, the one
 * eth_createAccessList runs): before each opcode, SLOAD and SSTORE add the slot on top of the stack
 * under the running contract's address; BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH and
 * SELFDESTRUCT add the address on top of the stack, CALL, CALLCODE, DELEGATECALL and STATICCALL the
 * one under the gas word — unless that address is excluded. It starts from a given list, whose
 * entries for excluded addresses are dropped whole (geth #34887).
 */
import { bigintToBytes32, bytesToBigint } from "../../primitives/u256.js";
import { bigintToAddress } from "../../state/worldState.js";
import type { AccessList } from "../../tx/tx.js";
import type { Frame } from "../frame.js";
import type { EvmTracer } from "../tracer.js";
import { MASK_160 } from "../word.js";

export class AccessListTracer implements EvmTracer {
  /** Address → its slots, both as EVM words. */
  private readonly list = new Map<bigint, Set<bigint>>();

  /**
   * `initial` seeds the list; `excluded` are addresses an opcode never adds (a slot still adds its
   * contract, as geth's `addSlot` does).
   */
  constructor(
    initial: AccessList,
    private readonly excluded: ReadonlySet<bigint>,
  ) {
    for (const e of initial) {
      const a = bytesToBigint(e.address);
      if (excluded.has(a)) continue;
      const slots = this.slotsOf(a);
      for (const k of e.storageKeys) slots.add(bytesToBigint(k));
    }
  }

  onStep(f: Frame, op: number): void {
    const sp = f.sp;
    if (sp < 1) return;
    const s = f.stack;
    switch (op) {
      case 0x54: // SLOAD
      case 0x55: // SSTORE
        this.slotsOf(f.address).add(s[sp - 1]);
        return;
      case 0x31: // BALANCE
      case 0x3b: // EXTCODESIZE
      case 0x3c: // EXTCODECOPY
      case 0x3f: // EXTCODEHASH
      case 0xff: // SELFDESTRUCT
        this.addAddress(s[sp - 1] & MASK_160);
        return;
      case 0xf1: // CALL
      case 0xf2: // CALLCODE
      case 0xf4: // DELEGATECALL
      case 0xfa: // STATICCALL
        if (sp >= 5) this.addAddress(s[sp - 2] & MASK_160);
        return;
    }
  }

  /** The list: addresses ascending, each with its slots ascending (geth's order). */
  accessList(): AccessList {
    return [...this.list.keys()]
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((a) => ({
        address: bigintToAddress(a),
        storageKeys: [...(this.list.get(a) as Set<bigint>)]
          .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
          .map((k) => bigintToBytes32(k)),
      }));
  }

  /** Same addresses with the same slots (geth `AccessListTracer.Equal`). */
  equals(other: AccessListTracer): boolean {
    if (this.list.size !== other.list.size) return false;
    for (const [a, slots] of this.list) {
      const o = other.list.get(a);
      if (o === undefined || o.size !== slots.size) return false;
      for (const k of slots) if (!o.has(k)) return false;
    }
    return true;
  }

  private addAddress(a: bigint): void {
    if (!this.excluded.has(a)) this.slotsOf(a);
  }

  private slotsOf(a: bigint): Set<bigint> {
    let slots = this.list.get(a);
    if (slots === undefined) {
      slots = new Set();
      this.list.set(a, slots);
    }
    return slots;
  }
}
