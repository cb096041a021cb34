/** BN254 ECMUL (0x07, EIP-196): 40,000 gas, 6,000 from Istanbul (EIP-1108). */
import { bytesToBigint } from "../../primitives/u256.js";
import { Fork, type ForkRules } from "../../spec/forks.js";
import { decodeG1, encodeG1, G1, N } from "./bn254.js";
import { failure, ok, outOfGas, type PrecompileResult, rightPad } from "./types.js";

export function bn254Mul(input: Uint8Array, gasLimit: number, rules: ForkRules): PrecompileResult {
  const gas = rules.fork >= Fork.Istanbul ? 6000 : 40000;
  if (gasLimit < gas) return outOfGas(gasLimit);
  const data = rightPad(input, 96);
  const p = decodeG1(data, 0);
  if (p === null) return failure(gasLimit);
  // The point has prime order N, so the 256-bit scalar may be reduced first.
  const k = bytesToBigint(data.subarray(64, 96)) % N;
  return ok(gas, encodeG1(k === 0n || p.is0() ? G1.ZERO : p.multiply(k)));
}
