/**
 * Withdrawal (EIP-4895): `rlp([index, validatorIndex, address, amount])`, all integers u64, the amount
 * in gwei. The integers are bigint because valid blocks use the full u64 range (ethereum/tests
 * bc4895-withdrawals/withdrawalsIndexBounds has index 2^64-1); a 9-byte integer is rejected.
 * On OP Stack chains the body's withdrawal list is empty from Canyon on (op-stack.md §3.6).
 */
import { MAX_U64 } from "../primitives/u256.js";
import { encodeRlp, uintToRlpBytes } from "../rlp/encode.js";
import { BlockError } from "./errors.js";
import { ListReader } from "./listReader.js";

export interface Withdrawal {
  /** Global withdrawal counter (u64). */
  index: bigint;
  /** Beacon-chain validator index (u64). */
  validatorIndex: bigint;
  /** 20-byte recipient. */
  address: Uint8Array;
  /** Amount in gwei (u64); the credited wei is amount × 10^9. */
  amount: bigint;
}

/** Reads one withdrawal list item from `r` (used by block and body decoding). */
export function readWithdrawal(r: ListReader): Withdrawal {
  const w = r.list("withdrawal");
  const index = w.bigint("withdrawal.index", 8);
  const validatorIndex = w.bigint("withdrawal.validatorIndex", 8);
  const address = w.fixed(20, "withdrawal.address");
  const amount = w.bigint("withdrawal.amount", 8);
  w.finish("withdrawal");
  return { index, validatorIndex, address, amount };
}

/** Decodes one RLP withdrawal spanning all of `input`. The address is a view into `input`. */
export function decodeWithdrawal(input: Uint8Array): Withdrawal {
  const r = ListReader.whole(input, "withdrawal");
  const index = r.bigint("withdrawal.index", 8);
  const validatorIndex = r.bigint("withdrawal.validatorIndex", 8);
  const address = r.fixed(20, "withdrawal.address");
  const amount = r.bigint("withdrawal.amount", 8);
  r.finish("withdrawal");
  return { index, validatorIndex, address, amount };
}

function u64(v: bigint, what: string): Uint8Array {
  if (v < 0n || v > MAX_U64) throw new BlockError("INT_TOO_LARGE", `${what} is not a u64: ${v}`);
  return uintToRlpBytes(v);
}

/** RLP encoding of one withdrawal (the item that enters the body and the withdrawals trie). */
export function encodeWithdrawal(w: Withdrawal): Uint8Array {
  if (w.address.length !== 20) {
    throw new BlockError("FIELD_LENGTH", `withdrawal.address: expected 20 bytes, got ${w.address.length}`);
  }
  return encodeRlp([
    u64(w.index, "withdrawal.index"),
    u64(w.validatorIndex, "withdrawal.validatorIndex"),
    w.address,
    u64(w.amount, "withdrawal.amount"),
  ]);
}
