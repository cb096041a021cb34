/**
 * EIP-3155 step traces: one JSON object per executed opcode (pc, op, gas, gasCost, memSize, stack,
 * depth, refund, opName), written before the opcode's effects; the gas cost is known only after
 * the step, so a line is held until then. Only the traced loop calls this (the plain loop has no hook).
 */
import type { Frame } from "./frame.js";
import { OP_NAMES } from "./opcodes/names.js";
import { HALT_NAMES, type Halt } from "./status.js";

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

export class Tracer {
  private pending: TraceLine | null = null;
  private gasBefore = 0;

  constructor(private readonly write: (line: string) => void) {}

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
