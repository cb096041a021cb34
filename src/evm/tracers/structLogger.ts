/**
 * geth's default tracer (eth/tracers/logger StructLogger): one struct log per executed opcode with
 * pc, op, gas, gasCost, depth and, per the config, stack, memory (32-byte words), return data and
 * the storage slots of the running contract seen so far in the tx (SLOAD reads, SSTORE writes);
 * the result is `{gas, failed, returnValue, structLogs}`.
 */
import type { WorldState } from "../../state/worldState.js";
import type { Frame } from "../frame.js";
import { Halt } from "../status.js";
import type { EvmTracer, TraceTxEnd, TraceTxStart } from "../tracer.js";
import { bytesToHex, opName, wordHex } from "./format.js";

export interface StructLoggerConfig {
  readonly disableStack?: boolean;
  readonly disableStorage?: boolean;
  readonly enableMemory?: boolean;
  readonly enableReturnData?: boolean;
  /** Maximum number of logs (0: unlimited). */
  readonly limit?: number;
  /** The reply size the struct logs of one request may take, shared by its loggers (issue 26). */
  readonly budget?: TraceBudget;
}

/**
 * The characters the traces of one request may take in its reply (the reply cap,
 * `--rpc.batch-response-max-size`), shared by the tracers of a block trace. A struct logger adds a
 * lower bound of each log's JSON length as it records it and records no more once `over`: the
 * request is then answered -32003 "response too large", as the reply would be, without holding
 * the rest (a 50 M-gas trace is millions of logs, GBs as objects).
 */
export class TraceBudget {
  /** Characters counted so far. */
  used = 0;

  /** `max` 0: no cap. */
  constructor(readonly max: number) {}

  get over(): boolean {
    return this.max > 0 && this.used > this.max;
  }
}

/**
 * The least characters of a struct log's JSON besides its stack, memory, storage and return data:
 * `{"pc":0,"op":"OR","gas":0,"gasCost":0,"depth":1}` and the comma before the next one.
 */
const ENTRY_MIN_CHARS = 49;
/** `,"storage":{}`, then per slot `"0x…64":"0x…64"` (and a comma but for the last). */
const STORAGE_FRAME_CHARS = 13;
const SLOT_CHARS = 2 * 68 + 1;

interface Entry {
  pc: number;
  op: number;
  gas: number;
  cost: number;
  depth: number;
  error: string | null;
  stack: string[] | null;
  returnData: string | null;
  memory: string[] | null;
  storage: Record<string, string> | null;
  refund: number;
}

export interface StructLogResult {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: Record<string, unknown>[];
}

const SLOAD = 0x54;
const SSTORE = 0x55;

export class StructLogger implements EvmTracer {
  private readonly entries: Entry[] = [];
  private pending: Entry | null = null;
  private readonly storage = new Map<bigint, Map<bigint, bigint>>();
  private state: WorldState | null = null;
  private output: Uint8Array = new Uint8Array(0);
  private halt: Halt = Halt.Stop;
  private usedGas = 0;
  private txError: string | null = null;

  constructor(private readonly cfg: StructLoggerConfig = {}) {}

  onTxStart(tx: TraceTxStart): void {
    this.state = tx.state;
  }

  onTxEnd(end: TraceTxEnd): void {
    if (end.error !== null) this.txError ??= end.error;
    else this.usedGas = end.gasUsed;
  }

  onStep(f: Frame, op: number, refund: number): void {
    const cfg = this.cfg;
    const budget = cfg.budget;
    if ((cfg.limit !== undefined && cfg.limit > 0 && this.entries.length >= cfg.limit) || budget?.over === true) {
      this.pending = null;
      return;
    }
    let stack: string[] | null = null;
    if (cfg.disableStack !== true) {
      stack = new Array(f.sp);
      for (let i = 0; i < f.sp; i++) stack[i] = `0x${f.stack[i].toString(16)}`;
    }
    let memory: string[] | null = null;
    if (cfg.enableMemory === true && f.memSize > 0) {
      memory = [];
      for (let i = 0; i + 32 <= f.memSize; i += 32) memory.push(bytesToHex(f.mem.subarray(i, i + 32)));
    }
    let storage: Record<string, string> | null = null;
    if (cfg.disableStorage !== true && (op === SLOAD || op === SSTORE) && this.state !== null) {
      let slots = this.storage.get(f.address);
      if (slots === undefined) {
        slots = new Map();
        this.storage.set(f.address, slots);
      }
      if (op === SLOAD && f.sp >= 1) {
        const key = f.stack[f.sp - 1];
        slots.set(key, this.state.sload(f.account as NonNullable<Frame["account"]>, key));
        storage = snapshot(slots);
      } else if (op === SSTORE && f.sp >= 2) {
        slots.set(f.stack[f.sp - 1], f.stack[f.sp - 2]);
        storage = snapshot(slots);
      }
    }
    const e: Entry = {
      pc: f.pc,
      op,
      gas: f.gas,
      cost: 0,
      depth: f.depth + 1,
      error: null,
      stack,
      returnData: cfg.enableReturnData === true && f.returnData.length > 0 ? bytesToHex(f.returnData) : null,
      memory,
      storage,
      refund: refund > 0 ? refund : 0,
    };
    this.entries.push(e);
    this.pending = e;
    if (budget !== undefined && budget.max > 0) budget.used += entryChars(e);
  }

  onStepCost(cost: number): void {
    if (this.pending !== null) this.pending.cost = cost;
    this.pending = null;
  }

  onFault(halt: Halt, _f: Frame, cost: number, inOpcode: boolean, detail: string): void {
    const p = this.pending;
    this.pending = null;
    if (p === null) return;
    // geth reports an error on the step only when it arises before the opcode runs (stack, gas).
    if (!inOpcode || halt === Halt.OutOfGas) {
      p.cost = cost;
      p.error = detail;
    } else {
      p.cost = cost;
    }
  }

  onExit(depth: number, output: Uint8Array, _gasUsed: number, halt: Halt): void {
    if (depth !== 0) return;
    this.output = output;
    this.halt = halt;
  }

  result(): StructLogResult {
    const failed = this.txError !== null || (this.halt !== Halt.Stop && this.halt !== Halt.Return);
    const ret = failed && this.halt !== Halt.Revert ? "0x" : bytesToHex(this.output);
    return { gas: this.usedGas, failed, returnValue: ret, structLogs: this.entries.map(entryJson) };
  }
}

/** A lower bound of `JSON.stringify(entryJson(e)).length + 1` (values as recorded; fields in entryJson). */
function entryChars(e: Entry): number {
  let n = ENTRY_MIN_CHARS;
  // `,"stack":[` … `]`: each value quoted, comma-separated.
  if (e.stack !== null) {
    n += 10;
    for (const v of e.stack) n += v.length + 3;
  }
  if (e.memory !== null) n += 11 + e.memory.length * 69;
  if (e.returnData !== null) n += 16 + e.returnData.length;
  if (e.storage !== null) {
    n += STORAGE_FRAME_CHARS;
    for (const _ in e.storage) n += SLOT_CHARS;
  }
  return n;
}

function snapshot(slots: Map<bigint, bigint>): Record<string, string> {
  const keys = [...slots.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const o: Record<string, string> = {};
  for (const k of keys) o[wordHex(k)] = wordHex(slots.get(k) as bigint);
  return o;
}

/** geth's legacy struct-log JSON, fields in its order. */
function entryJson(e: Entry): Record<string, unknown> {
  const o: Record<string, unknown> = { pc: e.pc, op: opName(e.op), gas: e.gas, gasCost: e.cost, depth: e.depth };
  if (e.error !== null) o.error = e.error;
  if (e.stack !== null) o.stack = e.stack;
  if (e.returnData !== null) o.returnData = e.returnData;
  if (e.memory !== null) o.memory = e.memory;
  if (e.storage !== null) o.storage = e.storage;
  if (e.refund !== 0) o.refund = e.refund;
  return o;
}
