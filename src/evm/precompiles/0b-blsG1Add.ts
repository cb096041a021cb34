/** BLS12_G1ADD (0x0b, EIP-2537): 375 gas; points checked on-curve only (no subgroup check). */
import type { ForkRules } from "../../spec/forks.js";
import { decodeG1, encodeG1 } from "./bls12381.js";
import { failure, ok, outOfGas, type PrecompileResult } from "./types.js";

const GAS = 375;

export function blsG1Add(input: Uint8Array, gasLimit: number, _rules: ForkRules): PrecompileResult {
  if (gasLimit < GAS) return outOfGas(gasLimit);
  if (input.length !== 256) return failure(gasLimit);
  const a = decodeG1(input, 0, false);
  const b = decodeG1(input, 128, false);
  if (a === null || b === null) return failure(gasLimit);
  return ok(GAS, encodeG1(a.add(b)));
}
