/** BLS12_G2ADD (0x0d, EIP-2537): 600 gas; points checked on-curve only (no subgroup check). */
import type { ForkRules } from "../../spec/forks.js";
import { decodeG2, encodeG2 } from "./bls12381.js";
import { failure, ok, outOfGas, type PrecompileResult } from "./types.js";

const GAS = 600;

export function blsG2Add(input: Uint8Array, gasLimit: number, _rules: ForkRules): PrecompileResult {
  if (gasLimit < GAS) return outOfGas(gasLimit);
  if (input.length !== 512) return failure(gasLimit);
  const a = decodeG2(input, 0, false);
  const b = decodeG2(input, 256, false);
  if (a === null || b === null) return failure(gasLimit);
  return ok(GAS, encodeG2(a.add(b)));
}
