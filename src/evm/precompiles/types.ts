/**
 * Shared shape of every precompile: a pure synchronous function of (input, gas limit, fork rules)
 * that returns a status code, never throws (code-models §10.2). A failed precompile consumes all
 * the gas it was given, as the EVM does for any exceptional halt.
 */
import type { ForkRules } from "../../spec/forks.js";

export enum PrecompileStatus {
  Ok = 0,
  OutOfGas = 1,
  Failure = 2,
}

export interface PrecompileResult {
  readonly status: PrecompileStatus;
  readonly gasUsed: number;
  readonly output: Uint8Array;
}

export type Precompile = (input: Uint8Array, gasLimit: number, rules: ForkRules) => PrecompileResult;

export const EMPTY: Uint8Array = new Uint8Array(0);

export function ok(gasUsed: number, output: Uint8Array): PrecompileResult {
  return { status: PrecompileStatus.Ok, gasUsed, output };
}

export function outOfGas(gasLimit: number): PrecompileResult {
  return { status: PrecompileStatus.OutOfGas, gasUsed: gasLimit, output: EMPTY };
}

export function failure(gasLimit: number): PrecompileResult {
  return { status: PrecompileStatus.Failure, gasUsed: gasLimit, output: EMPTY };
}

/** Number of 32-byte words covering `len` bytes. */
export function words(len: number): number {
  return Math.ceil(len / 32);
}

/** `input` right-padded with zeros to at least `len` bytes (a view when already long enough). */
export function rightPad(input: Uint8Array, len: number): Uint8Array {
  if (input.length >= len) return input;
  const out = new Uint8Array(len);
  out.set(input);
  return out;
}

/** `v` as `len` big-endian bytes written into `out` at `pos` (v must fit). */
export function writeBigint(v: bigint, out: Uint8Array, pos: number, len: number): void {
  for (let i = pos + len - 1; i >= pos; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}
