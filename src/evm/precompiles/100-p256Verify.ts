/**
 * P256VERIFY (0x100): secp256r1 ECDSA verification. 6,900 gas from Osaka (EIP-7951); 3,450 on OP
 * chains from Fjord (RIP-7212). Input: hash ‖ r ‖ s ‖ qx ‖ qy (160 bytes); output 32-byte 1 on a
 * valid signature, empty otherwise (never a failure).
 */
import { p256 } from "@noble/curves/nist.js";
import { bytesToBigint } from "../../primitives/u256.js";
import { Fork, type ForkRules } from "../../spec/forks.js";
import { EMPTY, ok, outOfGas, type PrecompileResult } from "./types.js";

const INPUT_LEN = 160;
const N = p256.Point.Fn.ORDER;
const P = p256.Point.Fp.ORDER;

export function p256Verify(input: Uint8Array, gasLimit: number, rules: ForkRules): PrecompileResult {
  const gas = rules.fork >= Fork.Osaka ? 6900 : 3450;
  if (gasLimit < gas) return outOfGas(gasLimit);
  if (input.length !== INPUT_LEN) return ok(gas, EMPTY);
  const r = bytesToBigint(input.subarray(32, 64));
  const s = bytesToBigint(input.subarray(64, 96));
  const qx = bytesToBigint(input.subarray(96, 128));
  const qy = bytesToBigint(input.subarray(128, 160));
  if (r === 0n || r >= N || s === 0n || s >= N || qx >= P || qy >= P) return ok(gas, EMPTY);
  if (qx === 0n && qy === 0n) return ok(gas, EMPTY);
  let valid = false;
  try {
    const pub = new Uint8Array(65);
    pub[0] = 4;
    pub.set(input.subarray(96, 160), 1);
    valid = p256.verify(input.subarray(32, 96), input.subarray(0, 32), pub, { prehash: false, lowS: false });
  } catch {
    valid = false;
  }
  if (!valid) return ok(gas, EMPTY);
  const out = new Uint8Array(32);
  out[31] = 1;
  return ok(gas, out);
}
