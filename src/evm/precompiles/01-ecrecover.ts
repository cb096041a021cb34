/** ECRECOVER (0x01): signer address of (hash, v, r, s); empty output, not failure, on a bad signature. */
import { recoverAddress, SECP256K1_N } from "../../crypto/secp256k1.js";
import { bytesToBigint } from "../../primitives/u256.js";
import type { ForkRules } from "../../spec/forks.js";
import { EMPTY, ok, outOfGas, type PrecompileResult, rightPad } from "./types.js";

const GAS = 3000;

export function ecrecover(input: Uint8Array, gasLimit: number, _rules: ForkRules): PrecompileResult {
  if (gasLimit < GAS) return outOfGas(gasLimit);
  const data = rightPad(input, 128);
  for (let i = 32; i < 63; i++) if (data[i] !== 0) return ok(GAS, EMPTY);
  const v = data[63];
  if (v !== 27 && v !== 28) return ok(GAS, EMPTY);
  const r = bytesToBigint(data.subarray(64, 96));
  const s = bytesToBigint(data.subarray(96, 128));
  if (r === 0n || s === 0n || r >= SECP256K1_N || s >= SECP256K1_N) return ok(GAS, EMPTY);
  const address = recoverAddress(data.subarray(0, 32), data.subarray(64, 128), v - 27);
  if (address === null) return ok(GAS, EMPTY);
  const out = new Uint8Array(32);
  out.set(address, 12);
  return ok(GAS, out);
}
