/**
 * The inclusion conditions of an ERC-4337 conditional tx (eth_sendRawTransactionConditional), as
 * op-geth defines and checks them (core/types/transaction_conditional.go, core/types/block.go and
 * core/state/statedb.go `CheckTransactionConditional`, params/conditional_tx_params.go): expected
 * storage roots or slot values of known accounts, and inclusive ranges of block number and
 * timestamp. The RPC checks them against the head (and its parent's state) on submission; the
 * builder checks them again against the block being built, at the tx's turn in it, and a tx whose
 * conditions fail there is left out and dropped from the pool.
 */
import { equalBytes } from "../primitives/bytes.js";
import { bytesToHex } from "../primitives/hex.js";
import { bytesToBigint } from "../primitives/u256.js";

/** An account's expected prestate: its storage root, or the values of some of its slots. */
export interface KnownAccount {
  readonly address: Uint8Array;
  /** Expected storage root (op-geth: a hash given for the account); null = `slots` are checked. */
  readonly storageRoot: Uint8Array | null;
  /** Expected slot values, 32-byte key and value each (op-geth: an object given for the account). */
  readonly slots: readonly { readonly key: Uint8Array; readonly value: Uint8Array }[];
}

/** op-geth `types.TransactionConditional`; absent bounds are null. */
export interface TxConditional {
  readonly knownAccounts: readonly KnownAccount[];
  readonly blockNumberMin: bigint | null;
  readonly blockNumberMax: bigint | null;
  readonly timestampMin: bigint | null;
  readonly timestampMax: bigint | null;
}

/** params.TransactionConditionalMaxCost: the most storage lookups a conditional may ask for (inclusive). */
export const TX_CONDITIONAL_MAX_COST = 1000;
/** params.TransactionConditionalRejectedErrCode. */
export const TX_CONDITIONAL_REJECTED_CODE = -32003;
/** params.TransactionConditionalCostExceededMaxErrCode. */
export const TX_CONDITIONAL_COST_EXCEEDED_CODE = -32005;

/** `Cost`: one lookup per account, one more for a root, one per slot, one per bounded header field. */
export function conditionalCost(c: TxConditional): number {
  let cost = 0;
  for (const a of c.knownAccounts) {
    cost += 1;
    cost += a.storageRoot !== null ? 1 : a.slots.length;
  }
  if (c.blockNumberMin !== null || c.blockNumberMax !== null) cost += 1;
  if (c.timestampMin !== null || c.timestampMax !== null) cost += 1;
  return cost;
}

/** `Validate`: the ranges are not inverted; op-geth's text, or null. */
export function validateConditional(c: TxConditional): string | null {
  if (c.blockNumberMin !== null && c.blockNumberMax !== null && c.blockNumberMin > c.blockNumberMax) {
    return "block number minimum constraint must be less than the maximum";
  }
  if (c.timestampMin !== null && c.timestampMax !== null && c.timestampMin > c.timestampMax) {
    return "timestamp minimum constraint must be less than the maximum";
  }
  return null;
}

/** `Header.CheckTransactionConditional` for a block `number` at `timestamp`; op-geth's text, or null. */
export function checkConditionalHeader(c: TxConditional, number: number, timestamp: number): string | null {
  const n = BigInt(number);
  const t = BigInt(timestamp);
  if (c.blockNumberMin !== null && c.blockNumberMin > n) return "failed block number minimum constraint";
  // SPEC: op-geth's text, spelling included.
  if (c.blockNumberMax !== null && c.blockNumberMax < n) return "failed block number maximmum constraint";
  if (c.timestampMin !== null && c.timestampMin > t) return "failed timestamp minimum constraint";
  if (c.timestampMax !== null && c.timestampMax < t) return "failed timestamp maximum constraint";
  return null;
}

/** The state a conditional reads (a state view at a block, or the block being built). */
export interface ConditionalState {
  /** The account's storage root; EMPTY_TRIE_ROOT for an account without storage or without an entry. */
  storageRoot(address: Uint8Array): Uint8Array;
  /** A slot's value as a word (0 when unset). */
  storage(address: Uint8Array, slot: Uint8Array): bigint;
}

const word = (v: bigint): string => `0x${v.toString(16).padStart(64, "0")}`;

/** `StateDB.CheckTransactionConditional`: the cost bound, then each known account; op-geth's text, or null. */
export function checkConditionalState(c: TxConditional, state: ConditionalState): string | null {
  const cost = conditionalCost(c);
  if (cost > TX_CONDITIONAL_MAX_COST) {
    return `conditional cost, ${cost}, exceeded max: ${TX_CONDITIONAL_MAX_COST}`;
  }
  for (const a of c.knownAccounts) {
    if (a.storageRoot !== null) {
      const root = state.storageRoot(a.address);
      if (!equalBytes(root, a.storageRoot)) {
        return `failed account storage root constraint. Got ${bytesToHex(root)}, Expected ${bytesToHex(a.storageRoot)}`;
      }
      continue;
    }
    for (const s of a.slots) {
      const got = state.storage(a.address, s.key);
      const want = bytesToBigint(s.value);
      if (got !== want) {
        return `failed account storage slot key ${bytesToHex(s.key)} constraint. Got ${word(got)}, Expected ${word(want)}`;
      }
    }
  }
  return null;
}
