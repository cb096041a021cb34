/**
 * BN254 pairing check (0x08, EIP-197): 100,000 + 80,000·k gas, 45,000 + 34,000·k from Istanbul
 * (EIP-1108). OP chains cap the input: 112,687 bytes from Granite, 81,984 (427 pairs) from Jovian
 * (op-stack §3.4, §3.6), 57,600 (300 pairs) from Karst (SPEC: op-revm precompiles.rs `karst()`,
 * `bn254_pair::KARST_MAX_INPUT_SIZE`; specs/protocol/karst/exec-engine.md); above the cap the call fails.
 */
import { Fork, type ForkRules, OpFork } from "../../spec/forks.js";
import { decodeG1, decodeG2, type G1Point, type G2Point, pairingIsOne } from "./bn254.js";
import { failure, ok, outOfGas, type PrecompileResult } from "./types.js";

const PAIR_LEN = 192;
export const GRANITE_MAX_INPUT = 112_687;
export const JOVIAN_MAX_INPUT = 81_984;
export const KARST_MAX_INPUT = 57_600;

export function bn254Pairing(input: Uint8Array, gasLimit: number, rules: ForkRules): PrecompileResult {
  const k = Math.floor(input.length / PAIR_LEN);
  const gas = rules.fork >= Fork.Istanbul ? 45_000 + 34_000 * k : 100_000 + 80_000 * k;
  if (gasLimit < gas) return outOfGas(gasLimit);
  if (input.length % PAIR_LEN !== 0) return failure(gasLimit);
  if (rules.op !== null) {
    if (rules.op >= OpFork.Karst && input.length > KARST_MAX_INPUT) return failure(gasLimit);
    if (rules.op >= OpFork.Jovian && input.length > JOVIAN_MAX_INPUT) return failure(gasLimit);
    if (rules.op >= OpFork.Granite && input.length > GRANITE_MAX_INPUT) return failure(gasLimit);
  }
  const pairs: { g1: G1Point; g2: G2Point }[] = [];
  for (let i = 0; i < k; i++) {
    const g1 = decodeG1(input, i * PAIR_LEN);
    const g2 = decodeG2(input, i * PAIR_LEN + 64);
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
