/**
 * Parity/OpenEthereum-style flat call traces (trace_* of openethereum and erigon): one entry per
 * message in depth-first order with `traceAddress` (the path of child indices) and `subtraces`;
 * `call`, `create` and `suicide` actions; `error` instead of `result` when the message failed.
 */
import { Halt } from "../status.js";
import type { CallKind, EvmTracer } from "../tracer.js";
import { addrHex, bytesToHex, qtyHex } from "./format.js";

interface Node {
  kind: CallKind;
  from: bigint;
  to: bigint;
  input: Uint8Array;
  gas: number;
  value: bigint;
  gasUsed: number;
  output: Uint8Array;
  halt: Halt;
  children: Node[];
}

/** A flat trace without the block/tx placement fields. */
export type ParityTrace = Record<string, unknown>;

/** OpenEthereum's error texts (trace/types/error.rs). */
function parityError(h: Halt): string {
  switch (h) {
    case Halt.Revert:
      return "Reverted";
    case Halt.OutOfGas:
      return "Out of gas";
    case Halt.BadJump:
      return "Bad jump destination";
    case Halt.InvalidOpcode:
      return "Bad instruction";
    case Halt.StackUnderflow:
      return "Stack underflow";
    case Halt.StackOverflow:
      return "Out of stack";
    case Halt.StaticWrite:
      return "Mutable Call In Static Context";
    case Halt.ReturnDataOutOfBounds:
      return "Out of bounds";
    case Halt.PrecompileFailure:
      return "Built-in failed";
    case Halt.CodeTooLarge:
      return "Contract code size limit exceeded";
    case Halt.DepthOrBalance:
      return "Insufficient balance";
    default:
      return "Internal error";
  }
}

const CALL_TYPES: Partial<Record<CallKind, string>> = {
  CALL: "call",
  CALLCODE: "callcode",
  DELEGATECALL: "delegatecall",
  STATICCALL: "staticcall",
};

export class ParityTracer implements EvmTracer {
  private readonly stack: Node[] = [];
  private root: Node | null = null;

  onEnter(
    depth: number,
    kind: CallKind,
    from: bigint,
    to: bigint,
    input: Uint8Array,
    gas: number,
    value: bigint | null,
  ): void {
    const n: Node = {
      kind,
      from,
      to,
      input: input.slice(),
      gas,
      value: value ?? 0n,
      gasUsed: 0,
      output: new Uint8Array(0),
      halt: Halt.Stop,
      children: [],
    };
    if (depth === 0) this.root = n;
    else this.stack[this.stack.length - 1]?.children.push(n);
    this.stack.push(n);
  }

  onExit(_depth: number, output: Uint8Array, gasUsed: number, halt: Halt): void {
    const n = this.stack.pop();
    if (n === undefined) return;
    n.output = output.slice();
    n.gasUsed = gasUsed;
    n.halt = halt;
  }

  /** The flat traces, depth first. */
  result(): ParityTrace[] {
    const out: ParityTrace[] = [];
    if (this.root !== null) flatten(this.root, [], out);
    return out;
  }

  /** The top message's output (trace_call / trace_replay* `output`). */
  output(): Uint8Array {
    return this.root?.output ?? new Uint8Array(0);
  }
}

function flatten(n: Node, path: number[], out: ParityTrace[]): void {
  const ok = n.halt === Halt.Stop || n.halt === Halt.Return;
  let t: ParityTrace;
  if (n.kind === "SELFDESTRUCT") {
    t = {
      action: { address: addrHex(n.from), balance: qtyHex(n.value), refundAddress: addrHex(n.to) },
      result: null,
      subtraces: 0,
      traceAddress: path,
      type: "suicide",
    };
  } else if (n.kind === "CREATE" || n.kind === "CREATE2") {
    t = {
      action: {
        creationMethod: n.kind === "CREATE" ? "create" : "create2",
        from: addrHex(n.from),
        gas: qtyHex(n.gas),
        init: bytesToHex(n.input),
        value: qtyHex(n.value),
      },
    };
    if (ok) t.result = { address: addrHex(n.to), code: bytesToHex(n.output), gasUsed: qtyHex(n.gasUsed) };
    else t.error = parityError(n.halt);
    t.subtraces = n.children.length;
    t.traceAddress = path;
    t.type = "create";
  } else {
    t = {
      action: {
        callType: CALL_TYPES[n.kind],
        from: addrHex(n.from),
        gas: qtyHex(n.gas),
        input: bytesToHex(n.input),
        to: addrHex(n.to),
        value: qtyHex(n.value),
      },
    };
    if (ok) t.result = { gasUsed: qtyHex(n.gasUsed), output: bytesToHex(n.output) };
    else t.error = parityError(n.halt);
    t.subtraces = n.children.length;
    t.traceAddress = path;
    t.type = "call";
  }
  out.push(t);
  for (let i = 0; i < n.children.length; i++) flatten(n.children[i], [...path, i], out);
}
