/**
 * geth's error text for a transaction the state refuses before execution (core/state_transition.go
 * `preCheck` and `buyGas`, core/error.go), with the same details in the same order: block builders
 * (engine payloads, testing_buildBlockV1) report a forced tx that does not apply this way, and
 * clients and test suites match on it. The codes come from executeTx's `TxRejectCode`.
 */
import { toChecksumAddress } from "../primitives/address.js";
import { bytesToHex } from "../primitives/hex.js";
import type { TxRejectCode } from "./executeTx.js";

/** What the messages mention: the tx's fields and the sender's account before the tx. */
export interface RejectFacts {
  readonly from: Uint8Array;
  readonly txNonce: bigint;
  readonly stateNonce: bigint;
  readonly balance: bigint;
  readonly codeHash: Uint8Array;
  /** gas × fee cap + value (+ blob gas × blob fee cap): what buyGas wants. */
  readonly cost: bigint;
  readonly gasLimit: bigint;
  readonly intrinsicGas: bigint;
  readonly maxFeePerGas: bigint;
  readonly baseFee: bigint | null;
  readonly maxFeePerBlobGas: bigint;
  readonly blobBaseFee: bigint | null;
}

export function txRejectMessage(code: TxRejectCode, f: RejectFacts): string {
  const from = toChecksumAddress(f.from);
  switch (code) {
    case "NONCE_TOO_HIGH":
      return `nonce too high: address ${from}, tx: ${f.txNonce} state: ${f.stateNonce}`;
    case "NONCE_TOO_LOW":
      return `nonce too low: address ${from}, tx: ${f.txNonce} state: ${f.stateNonce}`;
    case "NONCE_MAX":
      return `nonce has max value: address ${from}, nonce: ${f.stateNonce}`;
    case "SENDER_NOT_EOA":
      return `sender not an eoa: address ${from}, codehash: ${bytesToHex(f.codeHash)}`;
    case "FEE_CAP_BELOW_BASE_FEE":
      return `max fee per gas less than block base fee: address ${from}, maxFeePerGas: ${f.maxFeePerGas}, baseFee: ${f.baseFee ?? 0n}`;
    case "BLOB_FEE_CAP_BELOW_BLOB_BASE_FEE":
      return `max fee per blob gas less than block blob gas fee: address ${from} blobGasFeeCap: ${f.maxFeePerBlobGas}, blobBaseFee: ${f.blobBaseFee ?? 0n}`;
    case "INSUFFICIENT_FUNDS":
      return `insufficient funds for gas * price + value: address ${from} have ${f.balance} want ${f.cost}`;
    case "INTRINSIC_GAS_TOO_LOW":
      return `intrinsic gas too low: have ${f.gasLimit}, want ${f.intrinsicGas}`;
    case "GAS_ALLOWANCE_EXCEEDED":
      return "gas limit reached";
    case "BLOB_GAS_EXCEEDED":
      return "blob gas limit reached";
  }
}
