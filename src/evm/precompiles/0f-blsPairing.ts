/**
 * BLS12_PAIRING_CHECK (0x0f, EIP-2537): k × (G1 ‖ G2), k ≥ 1, subgroup-checked; 37,700 + 32,600·k
 * gas. OP input caps: 235,008 B from Isthmus, 156,672 B from Jovian.
 */
import { type ForkRules, OpFork } from "../../spec/forks.js";
import { decodeG1, decodeG2, type G1Point, type G2Point, pairingIsOne } from "./bls12381.js";
import { failure, ok, outOfGas, type PrecompileResult } from "./types.js";

const PAIR_LEN = 384;
export const ISTHMUS_MAX_INPUT = 235_008;
export const JOVIAN_MAX_INPUT = 156_672;

export function blsPairing(input: Uint8Array, gasLimit: number, rules: ForkRules): PrecompileResult {
  const k = Math.floor(input.length / PAIR_LEN);
  const gas = 37_700 + 32_600 * k;
  if (gasLimit < gas) return outOfGas(gasLimit);
  if (k === 0 || input.length % PAIR_LEN !== 0) return failure(gasLimit);
  if (rules.op !== null) {
    if (rules.op >= OpFork.Jovian && input.length > JOVIAN_MAX_INPUT) return failure(gasLimit);
    if (rules.op >= OpFork.Isthmus && input.length > ISTHMUS_MAX_INPUT) return failure(gasLimit);
  }
  const pairs: { g1: G1Point; g2: G2Point }[] = [];
  for (let i = 0; i < k; i++) {
    const g1 = decodeG1(input, i * PAIR_LEN, true);
    const g2 = decodeG2(input, i * PAIR_LEN + 128, true);
    if (g1 === null || g2 === null) return failure(gasLimit);
    pairs.push({ g1, g2 });
  }
  let one: boolean;
  try {
    one = pairingIsOne(pairs);
  } catch {
    return failure(gasLimit);
  }
  const out = new Uint8Array(32);
  if (one) out[31] = 1;
  return ok(gas, out);
}
