/**
 * Point evaluation (0x0a, EIP-4844): verifies a KZG proof that p(z) = y for the blob committed to
 * by `commitment`, whose versioned hash is given. 50,000 gas. c-kzg's trusted setup (the one bundled
 * with c-kzg, ~2.5 s to load) is loaded lazily on first use through `crypto/kzg.ts` and kept.
 */
import { loadKzg } from "../../crypto/kzg.js";
import { sha256 } from "../../crypto/sha256.js";
import type { ForkRules } from "../../spec/forks.js";
import { failure, ok, outOfGas, type PrecompileResult } from "./types.js";

const GAS = 50_000;
const INPUT_LEN = 192;
const VERSIONED_HASH_VERSION_KZG = 0x01;

/** FIELD_ELEMENTS_PER_BLOB (4096) ‖ BLS_MODULUS, each as a 32-byte word. */
const RETURN_VALUE = Uint8Array.from(
  Buffer.from(
    "0000000000000000000000000000000000000000000000000000000000001000" +
      "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001",
    "hex",
  ),
);

export function pointEvaluation(input: Uint8Array, gasLimit: number, _rules: ForkRules): PrecompileResult {
  if (gasLimit < GAS) return outOfGas(gasLimit);
  if (input.length !== INPUT_LEN) return failure(gasLimit);
  const commitment = input.subarray(96, 144);
  const hash = sha256(commitment);
  if (input[0] !== VERSIONED_HASH_VERSION_KZG) return failure(gasLimit);
  for (let i = 1; i < 32; i++) if (input[i] !== hash[i]) return failure(gasLimit);
  try {
    const valid = loadKzg().verifyKzgProof(
      commitment,
      input.subarray(32, 64),
      input.subarray(64, 96),
      input.subarray(144, 192),
    );
    if (!valid) return failure(gasLimit);
  } catch {
    return failure(gasLimit);
  }
  return ok(GAS, RETURN_VALUE.slice());
}
