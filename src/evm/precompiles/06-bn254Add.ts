/** BN254 ECADD (0x06, EIP-196): 500 gas, 150 from Istanbul (EIP-1108). */
import { Fork, type ForkRules } from "../../spec/forks.js";
import { decodeG1, encodeG1 } from "./bn254.js";
import { failure, ok, outOfGas, type PrecompileResult, rightPad } from "./types.js";

export function bn254Add(input: Uint8Array, gasLimit: number, rules: ForkRules): PrecompileResult {
  const gas = rules.fork >= Fork.Istanbul ? 150 : 500;
  if (gasLimit < gas) return outOfGas(gasLimit);
  const data = rightPad(input, 128);
  const a = decodeG1(data, 0);
  const b = decodeG1(data, 64);
  if (a === null || b === null) return failure(gasLimit);
  return ok(gas, encodeG1(a.add(b)));
}
