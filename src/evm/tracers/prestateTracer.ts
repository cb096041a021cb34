/**
 * geth's prestateTracer (eth/tracers/native/prestate.go): the accounts and slots a tx touches as
 * they were before it (balance, nonce, code, storage), or with `diffMode` the `{post, pre}` of what
 * it changed. Accounts are read when first seen: sender, recipient (or the new contract) and
 * coinbase at tx start, then the targets of BALANCE, EXTCODESIZE/COPY/HASH, SELFDESTRUCT, the calls and creates, and the
 * running contract's SLOAD/SSTORE slots.
 */
import { keccak256 } from "../../crypto/keccak.js";
import type { WorldState } from "../../state/worldState.js";
import { bigintToAddress } from "../../state/worldState.js";
import { create2Address, createAddress } from "../evm.js";
import type { Frame } from "../frame.js";
import type { EvmTracer, TraceTxEnd, TraceTxStart } from "../tracer.js";
import { MASK_160 } from "../word.js";
import { addrHex, bytesToHex, qtyHex, wordHex } from "./format.js";

export interface PrestateTracerConfig {
  readonly diffMode?: boolean;
  /** Also compute the Parity `stateDiff` of the tx (trace_* "stateDiff"); see `parityStateDiff`. */
  readonly parity?: boolean;
  readonly disableCode?: boolean;
  readonly disableStorage?: boolean;
}

interface Acc {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
  storage: Map<bigint, bigint>;
  empty: boolean;
}

interface PostAcc {
  balance: bigint | null;
  nonce: bigint | null;
  code: Uint8Array | null;
  storage: Map<bigint, bigint>;
}

const EMPTY_CODE_HASH = keccak256(new Uint8Array(0));

export class PrestateTracer implements EvmTracer {
  private state: WorldState | null = null;
  private readonly pre = new Map<bigint, Acc>();
  private readonly post = new Map<bigint, PostAcc>();
  private readonly created = new Set<bigint>();
  private readonly destructed = new Set<bigint>();
  private parityDiff: Record<string, unknown> | null = null;

  constructor(private readonly cfg: PrestateTracerConfig = {}) {}

  onTxStart(tx: TraceTxStart): void {
    this.state = tx.state;
    let to = tx.to;
    if (to === null) {
      const from = tx.state.account(tx.from);
      to = createAddress(from.addressBytes, from.nonce);
      this.created.add(to);
    }
    this.lookupAccount(tx.from);
    this.lookupAccount(to);
    this.lookupAccount(tx.block.coinbase);
  }

  onStep(f: Frame, op: number): void {
    const s = f.stack;
    const n = f.sp;
    switch (op) {
      case 0x54: // SLOAD
      case 0x55: // SSTORE
        if (n >= 1) this.lookupStorage(f, s[n - 1]);
        return;
      case 0x3b: // EXTCODESIZE
      case 0x3c: // EXTCODECOPY
      case 0x3f: // EXTCODEHASH
      case 0x31: // BALANCE
        if (n >= 1) this.lookupAccount(s[n - 1] & MASK_160);
        return;
      case 0xff: // SELFDESTRUCT
        if (n >= 1) this.lookupAccount(s[n - 1] & MASK_160);
        this.destructed.add(f.address);
        return;
      case 0xf1: // CALL
      case 0xf2: // CALLCODE
      case 0xf4: // DELEGATECALL
      case 0xfa: // STATICCALL
        if (n >= 5) this.lookupAccount(s[n - 2] & MASK_160);
        return;
      case 0xf0: {
        // CREATE
        const st = this.state as WorldState;
        const a = createAddress(bigintToAddress(f.address), st.account(f.address).nonce);
        this.lookupAccount(a);
        this.created.add(a);
        return;
      }
      case 0xf5: {
        // CREATE2
        if (n < 4) return;
        const off = s[n - 2];
        const size = s[n - 3];
        if (size > 0xffffffffn || (size > 0n && off + size > BigInt(f.memSize))) return;
        const o = Number(off);
        const init = size === 0n ? new Uint8Array(0) : f.mem.slice(o, o + Number(size));
        const a = create2Address(bigintToAddress(f.address), s[n - 4], init);
        this.lookupAccount(a);
        this.created.add(a);
        return;
      }
    }
  }

  onTxEnd(end: TraceTxEnd): void {
    if (end.error !== null) return;
    if (this.cfg.parity === true) this.parityDiff = this.computeParityDiff();
    if (this.cfg.diffMode === true) this.processDiff();
    for (const a of this.created) {
      const p = this.pre.get(a);
      if (p?.empty === true) this.pre.delete(a);
    }
  }

  result(): Record<string, unknown> {
    if (this.cfg.diffMode === true) {
      const post: Record<string, unknown> = {};
      for (const [a, p] of sorted(this.post)) post[addrHex(a)] = postJson(p);
      return { post, pre: this.preJson() };
    }
    return this.preJson();
  }

  private preJson(): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    for (const [a, acc] of sorted(this.pre)) {
      const j: Record<string, unknown> = { balance: qtyHex(acc.balance) };
      if (this.cfg.disableCode !== true && acc.code.length > 0) {
        j.code = bytesToHex(acc.code);
      }
      if (!equal(acc.codeHash, EMPTY_CODE_HASH)) j.codeHash = bytesToHex(acc.codeHash);
      if (acc.nonce !== 0n) j.nonce = Number(acc.nonce);
      if (this.cfg.disableStorage !== true && acc.storage.size > 0) j.storage = slotsJson(acc.storage);
      o[addrHex(a)] = j;
    }
    return o;
  }

  /** The Parity/OpenEthereum `stateDiff` of the tx (needs `parity: true`): "=", {"+"}, {"-"}, {"*": {from, to}}. */
  parityStateDiff(): Record<string, unknown> | null {
    return this.parityDiff;
  }

  private computeParityDiff(): Record<string, unknown> {
    const st = this.state as WorldState;
    const out: Record<string, unknown> = {};
    for (const [addr, pre] of sorted(this.pre)) {
      const a = st.account(addr);
      const code = st.code(a);
      const postExists = a.exists && !(a.balance === 0n && a.nonce === 0n && code.length === 0);
      const preExists = !pre.empty;
      if (!preExists && !postExists) continue;
      if (!preExists || !postExists) {
        const sign = preExists ? "-" : "+";
        const bal = preExists ? pre.balance : a.balance;
        const nonce = preExists ? pre.nonce : a.nonce;
        const c = preExists ? pre.code : code;
        const storage: Record<string, unknown> = {};
        for (const [k, v] of sorted(pre.storage)) {
          const val = preExists ? v : st.sload(a, k);
          if (val !== 0n) storage[wordHex(k)] = { [sign]: wordHex(val) };
        }
        out[addrHex(addr)] = {
          balance: { [sign]: qtyHex(bal) },
          code: { [sign]: bytesToHex(c) },
          nonce: { [sign]: qtyHex(nonce) },
          storage,
        };
        continue;
      }
      const change = (from: string, to: string): unknown => (from === to ? "=" : { "*": { from, to } });
      const storage: Record<string, unknown> = {};
      for (const [k, v] of sorted(pre.storage)) {
        const nv = st.sload(a, k);
        if (nv !== v) storage[wordHex(k)] = { "*": { from: wordHex(v), to: wordHex(nv) } };
      }
      const d = {
        balance: change(qtyHex(pre.balance), qtyHex(a.balance)),
        code: change(bytesToHex(pre.code), bytesToHex(code)),
        nonce: change(qtyHex(pre.nonce), qtyHex(a.nonce)),
        storage,
      };
      if (d.balance === "=" && d.code === "=" && d.nonce === "=" && Object.keys(storage).length === 0) continue;
      out[addrHex(addr)] = d;
    }
    return out;
  }

  private processDiff(): void {
    const st = this.state as WorldState;
    for (const [addr, pre] of [...this.pre]) {
      const a = st.account(addr);
      if (this.destructed.has(addr) && !a.exists) continue;
      let modified = false;
      const post: PostAcc = { balance: null, nonce: null, code: null, storage: new Map() };
      if (a.balance !== pre.balance) {
        modified = true;
        post.balance = a.balance;
      }
      if (a.nonce !== pre.nonce) {
        modified = true;
        post.nonce = a.nonce;
      }
      if (this.cfg.disableCode !== true) {
        const code = st.code(a);
        if (!equal(code, pre.code)) {
          modified = true;
          post.code = code;
        }
      }
      if (this.cfg.disableStorage !== true) {
        for (const [k, v] of [...pre.storage]) {
          if (v === 0n) pre.storage.delete(k);
          const nv = st.sload(a, k);
          if (nv === v) pre.storage.delete(k);
          else {
            modified = true;
            if (nv !== 0n) post.storage.set(k, nv);
          }
        }
      }
      if (modified) this.post.set(addr, post);
      else this.pre.delete(addr);
    }
  }

  private lookupAccount(addr: bigint): void {
    if (this.pre.has(addr)) return;
    const st = this.state as WorldState;
    const a = st.account(addr);
    const code = st.code(a);
    const acc: Acc = {
      balance: a.balance,
      nonce: a.nonce,
      code,
      codeHash: a.codeHash,
      storage: new Map(),
      empty: a.balance === 0n && a.nonce === 0n && code.length === 0,
    };
    this.pre.set(addr, acc);
  }

  private lookupStorage(f: Frame, slot: bigint): void {
    this.lookupAccount(f.address);
    const acc = this.pre.get(f.address) as Acc;
    if (acc.storage.has(slot)) return;
    acc.storage.set(slot, (this.state as WorldState).sload(f.account as NonNullable<Frame["account"]>, slot));
  }
}

function sorted<V>(m: Map<bigint, V>): [bigint, V][] {
  return [...m].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
}

function slotsJson(m: Map<bigint, bigint>): Record<string, string> {
  const o: Record<string, string> = {};
  for (const [k, v] of sorted(m)) o[wordHex(k)] = wordHex(v);
  return o;
}

function postJson(p: PostAcc): Record<string, unknown> {
  const j: Record<string, unknown> = {};
  if (p.balance !== null) j.balance = qtyHex(p.balance);
  if (p.code !== null && p.code.length > 0) j.code = bytesToHex(p.code);
  if (p.nonce !== null && p.nonce !== 0n) j.nonce = Number(p.nonce);
  if (p.storage.size > 0) j.storage = slotsJson(p.storage);
  return j;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
