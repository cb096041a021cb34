/**
 * geth's callTracer (eth/tracers/native/call.go): the tree of messages of a tx — type, from, to,
 * value, gas, gasUsed, input, output, error, revertReason, calls — with `onlyTopCall` and
 * `withLog` (logs with their position among the frame's calls; dropped under a failed frame).
 */
import type { Frame } from "../frame.js";
import { HALT_NAMES, Halt } from "../status.js";
import type { CallKind, EvmTracer, TraceTxEnd, TraceTxStart } from "../tracer.js";
import { addrHex, bytesToHex, qtyHex, unpackRevert, wordHex } from "./format.js";

export interface CallTracerConfig {
  readonly onlyTopCall?: boolean;
  readonly withLog?: boolean;
}

interface CallLog {
  address: string;
  topics: string[];
  data: string;
  position: number;
}

interface CallFrame {
  type: CallKind;
  from: bigint;
  to: bigint;
  gas: number;
  gasUsed: number;
  input: Uint8Array;
  output: Uint8Array | null;
  error: string | null;
  revertReason: string | null;
  calls: CallFrame[];
  logs: CallLog[];
  value: bigint | null;
  createFailed: boolean;
}

const LOG0 = 0xa0;
const LOG4 = 0xa4;

export class CallTracer implements EvmTracer {
  private readonly stack: CallFrame[] = [];
  private root: CallFrame | null = null;
  private gasLimit = 0;
  private pendingLog: { off: number; size: number; topics: string[]; address: bigint } | null = null;

  constructor(private readonly cfg: CallTracerConfig = {}) {}

  onTxStart(tx: TraceTxStart): void {
    this.gasLimit = tx.gasLimit;
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
    if (depth > 0 && this.cfg.onlyTopCall === true) return;
    const f: CallFrame = {
      type: kind,
      from,
      to,
      gas: depth === 0 ? this.gasLimit : gas,
      gasUsed: 0,
      input: input.slice(),
      output: null,
      error: null,
      revertReason: null,
      calls: [],
      logs: [],
      value,
      createFailed: false,
    };
    if (depth === 0) this.root = f;
    this.stack.push(f);
  }

  onExit(
    depth: number,
    output: Uint8Array,
    gasUsed: number,
    halt: Halt,
    reverted: boolean,
    error: string | null,
  ): void {
    if (depth > 0 && this.cfg.onlyTopCall === true) return;
    const f = this.stack.pop();
    if (f === undefined) return;
    f.gasUsed = gasUsed;
    processOutput(f, output, halt, reverted, error);
    if (depth > 0) this.stack[this.stack.length - 1]?.calls.push(f);
  }

  onStep(f: Frame, op: number): void {
    if (this.cfg.withLog !== true || op < LOG0 || op > LOG4) return;
    if (this.cfg.onlyTopCall === true && f.depth > 0) return;
    const n = op - LOG0;
    if (f.sp < 2 + n) return;
    const s = f.stack;
    const topics: string[] = [];
    for (let i = 0; i < n; i++) topics.push(wordHex(s[f.sp - 3 - i]));
    const off = s[f.sp - 1];
    const size = s[f.sp - 2];
    if (size > 0xffffffffn || (size > 0n && off > 0xffffffffn)) return;
    this.pendingLog = { off: Number(off), size: Number(size), topics, address: f.address };
  }

  onStepCost(_cost: number, f: Frame): void {
    const p = this.pendingLog;
    if (p === null) return;
    this.pendingLog = null;
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) return;
    top.logs.push({
      address: addrHex(p.address),
      topics: p.topics,
      data: bytesToHex(f.mem.subarray(p.off, p.off + p.size)),
      position: top.calls.length,
    });
  }

  onFault(): void {
    this.pendingLog = null;
  }

  onTxEnd(end: TraceTxEnd): void {
    if (this.root === null) return;
    this.root.gasUsed = end.gasUsed;
    if (this.cfg.withLog === true) clearFailedLogs(this.root, false);
  }

  result(): Record<string, unknown> | null {
    return this.root === null ? null : frameJson(this.root);
  }
}

function processOutput(f: CallFrame, output: Uint8Array, halt: Halt, reverted: boolean, error: string | null): void {
  const ok = halt === Halt.Stop || halt === Halt.Return;
  if (ok || !reverted) {
    f.output = output.slice();
    return;
  }
  f.error = error ?? HALT_NAMES[halt];
  if (f.type === "CREATE" || f.type === "CREATE2") f.createFailed = true;
  if (halt !== Halt.Revert || output.length === 0) return;
  f.output = output.slice();
  f.revertReason = unpackRevert(output);
}

function clearFailedLogs(f: CallFrame, parentFailed: boolean): void {
  const failed = f.error !== null || parentFailed;
  if (failed) f.logs = [];
  for (const c of f.calls) clearFailedLogs(c, failed);
}

/** geth's callFrame JSON, fields in its order (type last). */
function frameJson(f: CallFrame): Record<string, unknown> {
  const o: Record<string, unknown> = { from: addrHex(f.from), gas: qtyHex(f.gas), gasUsed: qtyHex(f.gasUsed) };
  if (!f.createFailed) o.to = addrHex(f.to);
  o.input = bytesToHex(f.input);
  if (f.output !== null && f.output.length > 0) o.output = bytesToHex(f.output);
  if (f.error !== null) o.error = f.error;
  if (f.revertReason !== null && f.revertReason !== "") o.revertReason = f.revertReason;
  if (f.calls.length > 0) o.calls = f.calls.map(frameJson);
  if (f.logs.length > 0) o.logs = f.logs.map((l) => ({ ...l, position: qtyHex(l.position) }));
  if (f.value !== null) o.value = qtyHex(f.value);
  o.type = f.type;
  return o;
}
