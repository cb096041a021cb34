/**
 * geth's 4byteTracer (eth/tracers/native/4byte.go): counts `0x<selector>-<calldata size - 4>` over
 * every CALL, CALLCODE, DELEGATECALL and STATICCALL (the tx's own call included) whose input has a
 * selector and whose target is not a precompile.
 */
import type { CallKind, EvmTracer } from "../tracer.js";
import { bytesToHex } from "./format.js";

export class FourByteTracer implements EvmTracer {
  private readonly ids = new Map<string, number>();

  /** `isPrecompile` is the Evm's (the precompiles of the rules the tx runs under). */
  constructor(private readonly isPrecompile: (a: bigint) => boolean) {}

  onEnter(_depth: number, kind: CallKind, _from: bigint, to: bigint, input: Uint8Array): void {
    if (input.length < 4) return;
    if (kind !== "CALL" && kind !== "CALLCODE" && kind !== "DELEGATECALL" && kind !== "STATICCALL") return;
    if (this.isPrecompile(to)) return;
    const key = `${bytesToHex(input.subarray(0, 4))}-${input.length - 4}`;
    this.ids.set(key, (this.ids.get(key) ?? 0) + 1);
  }

  result(): Record<string, number> {
    const o: Record<string, number> = {};
    for (const k of [...this.ids.keys()].sort()) o[k] = this.ids.get(k) as number;
    return o;
  }
}
