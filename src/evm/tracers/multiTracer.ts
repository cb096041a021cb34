/**
 * Several tracers on one run (e.g. trace_* "trace" and "stateDiff" together): every hook is passed
 * to each tracer that has it, in order.
 */
import type { Frame } from "../frame.js";
import type { Halt } from "../status.js";
import type { CallKind, EvmTracer, TraceTxEnd, TraceTxStart } from "../tracer.js";

export class MultiTracer implements EvmTracer {
  constructor(readonly tracers: readonly EvmTracer[]) {}

  onTxStart(tx: TraceTxStart): void {
    for (const t of this.tracers) t.onTxStart?.(tx);
  }

  onTxEnd(end: TraceTxEnd): void {
    for (const t of this.tracers) t.onTxEnd?.(end);
  }

  onEnter(
    depth: number,
    kind: CallKind,
    from: bigint,
    to: bigint,
    input: Uint8Array,
    gas: number,
    value: bigint | null,
  ): void {
    for (const t of this.tracers) t.onEnter?.(depth, kind, from, to, input, gas, value);
  }

  onExit(
    depth: number,
    output: Uint8Array,
    gasUsed: number,
    halt: Halt,
    reverted: boolean,
    error: string | null,
  ): void {
    for (const t of this.tracers) t.onExit?.(depth, output, gasUsed, halt, reverted, error);
  }

  onStep(f: Frame, op: number, refund: number): void {
    for (const t of this.tracers) t.onStep?.(f, op, refund);
  }

  onStepCost(cost: number, f: Frame): void {
    for (const t of this.tracers) t.onStepCost?.(cost, f);
  }

  onFault(halt: Halt, f: Frame, cost: number, inOpcode: boolean, detail: string): void {
    for (const t of this.tracers) t.onFault?.(halt, f, cost, inOpcode, detail);
  }
}
