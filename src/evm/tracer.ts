/**
 * Tracing hooks of the EVM (geth's `core/tracing` Hooks, in Opal's shapes) and the EIP-3155 step
 * tracer as one implementation. The Evm calls the hooks only from its traced loop and, behind a
 * null check, where frames begin and end; the plain loop has none. The tx-level hooks are called
 * by whoever drives the tx (the debug/trace replayers), before gas is bought and after the receipt.
 */
import type { WorldState } from "../state/worldState.js";
import type { BlockContext } from "./context.js";
import type { Frame } from "./frame.js";
import { OP_NAMES } from "./opcodes/names.js";
import { HALT_NAMES, type Halt } from "./status.js";

/** The kind of a frame as geth's tracers name it (an opcode name). */
export type CallKind = "CALL" | "CALLCODE" | "DELEGATECALL" | "STATICCALL" | "CREATE" | "CREATE2" | "SELFDESTRUCT";

/** What a tracer learns when a tx starts (before the gas purchase and the nonce bump). */
export interface TraceTxStart {
  readonly from: bigint;
  /** null for a creation. */
  readonly to: bigint | null;
  readonly value: bigint;
  readonly input: Uint8Array;
  /** The tx's gas limit. */
  readonly gasLimit: number;
  readonly gasPrice: bigint;
  /** The state the tx runs on (read it, never write it). */
  readonly state: WorldState;
  readonly block: BlockContext;
}

/** What a tracer learns when a tx ends (its receipt's view). */
export interface TraceTxEnd {
  /** Gas the receipt counts (after refunds). */
  readonly gasUsed: number;
  /** 1 success, 0 failure. */
  readonly status: number;
  /** Set when the tx was rejected and never ran. */
  readonly error: string | null;
}

/**
 * Tracing hooks, all optional. Depths are 0 for the tx-level frame (geth's OnEnter/OnExit depth);
 * `Frame.depth + 1` is geth's struct-log depth. Values are as the EVM holds them: bigint addresses
 * and words, number gas. Nothing passed may be kept past the call unless copied (frames are pooled).
 */
export interface EvmTracer {
  onTxStart?(tx: TraceTxStart): void;
  onTxEnd?(end: TraceTxEnd): void;
  /** A message starts; `value` is null where geth passes none (STATICCALL). */
  onEnter?(
    depth: number,
    kind: CallKind,
    from: bigint,
    to: bigint,
    input: Uint8Array,
    gas: number,
    value: bigint | null,
  ): void;
  /**
   * A message ended; `gasUsed` is its gas less what it returns; `reverted` for any failure, with
   * geth's error text in `error` (null on success).
   */
  onExit?(
    depth: number,
    output: Uint8Array,
    gasUsed: number,
    halt: Halt,
    reverted: boolean,
    error: string | null,
  ): void;
  /** Before an opcode: `f.pc`, `f.gas`, the stack, memory and return data are the pre-state. */
  onStep?(f: Frame, op: number, refund: number): void;
  /** After the opcode of the last onStep ran (or asked for a child frame): geth's gas cost of it. */
  onStepCost?(cost: number, f: Frame): void;
  /**
   * The opcode of the last onStep failed: `inOpcode` false for the loop's checks (stack, constant
   * gas; `detail` is geth's message), true for a halt raised while it ran (no onStepCost then).
   */
  onFault?(halt: Halt, f: Frame, cost: number, inOpcode: boolean, detail: string): void;
}

/** geth's VM error text for a halt (the messages its tracers print). */
export function haltError(h: Halt): string {
  return HALT_NAMES[h];
}

export interface TraceLine {
  pc: number;
  op: number;
  gas: string;
  gasCost: string;
  memSize: number;
  stack: string[];
  depth: number;
  refund: number;
  opName: string;
  error?: string;
}

/**
 * EIP-3155 step traces: one JSON object per executed opcode (pc, op, gas, gasCost, memSize, stack,
 * depth, refund, opName), written before the opcode's effects; the gas cost is known only after
 * the step, so a line is held until then.
 */
export class Tracer implements EvmTracer {
  private pending: TraceLine | null = null;
  private gasBefore = 0;

  constructor(private readonly write: (line: string) => void) {}

  onStep(f: Frame, op: number, refund: number): void {
    this.step(f, op, refund);
  }

  onStepCost(_cost: number, f: Frame): void {
    this.after(f);
  }

  onFault(halt: Halt, f: Frame, _cost: number, inOpcode: boolean): void {
    this.fault(halt, inOpcode ? f : undefined);
  }

  step(f: Frame, op: number, refund: number): void {
    this.flush();
    const stack: string[] = new Array(f.sp);
    for (let i = 0; i < f.sp; i++) stack[i] = `0x${f.stack[i].toString(16)}`;
    this.gasBefore = f.gas;
    this.pending = {
      pc: f.pc,
      op,
      gas: `0x${f.gas.toString(16)}`,
      gasCost: "0x0",
      memSize: f.memSize,
      stack,
      depth: f.depth + 1,
      refund,
      opName: OP_NAMES[op] ?? `opcode 0x${op.toString(16)} not defined`,
    };
  }

  after(f: Frame): void {
    const p = this.pending;
    if (p !== null) {
      const cost = this.gasBefore - f.gas;
      p.gasCost = `0x${(cost > 0 ? cost : 0).toString(16)}`;
      this.flush();
    }
  }

  fault(h: Halt, f?: Frame): Halt {
    const p = this.pending;
    if (p !== null) {
      p.error = HALT_NAMES[h];
      if (f !== undefined) {
        const cost = this.gasBefore - f.gas;
        p.gasCost = `0x${(cost > 0 ? cost : 0).toString(16)}`;
      }
    }
    this.flush();
    return h;
  }

  /** The end-of-tx summary line of EIP-3155. */
  summary(output: Uint8Array, gasUsed: number, error: string | null): void {
    this.flush();
    let hex = "0x";
    for (let i = 0; i < output.length; i++) hex += output[i].toString(16).padStart(2, "0");
    const o: Record<string, unknown> = { output: hex, gasUsed: `0x${gasUsed.toString(16)}` };
    if (error !== null) o.error = error;
    this.write(JSON.stringify(o));
  }

  private flush(): void {
    if (this.pending !== null) {
      this.write(JSON.stringify(this.pending));
      this.pending = null;
    }
  }
}
