/**
 * Genesis allocations (geth genesis `alloc`, test fixtures' `pre`) written into a KvStore's flat
 * tables, with the trie built over them: the state a chain starts from.
 */
import { keccak256 } from "../crypto/keccak.js";
import { bigintToBytes, bigintToBytes32 } from "../primitives/u256.js";
import { type KvStore, WriteBatch } from "../storage/kv.js";
import { encodeAccount } from "../trie/account.js";
import { computeStateRoot } from "../trie/stateRoot.js";

export interface AllocAccount {
  readonly address: Uint8Array;
  readonly nonce: bigint;
  readonly balance: bigint;
  readonly code: Uint8Array;
  /** Slot → value; zero values are skipped. */
  readonly storage: Iterable<readonly [bigint, bigint]>;
}

/** Writes `accounts` into `kv` (expected empty) and returns the state root. */
export function writeAlloc(kv: KvStore, accounts: Iterable<AllocAccount>): Uint8Array {
  const b = new WriteBatch();
  for (const acc of accounts) {
    const h = keccak256(acc.address);
    const codeHash = keccak256(acc.code);
    if (acc.code.length > 0) b.put("code", codeHash, acc.code);
    for (const [slot, v] of acc.storage) {
      if (v === 0n) continue;
      const key = new Uint8Array(64);
      key.set(h, 0);
      key.set(keccak256(bigintToBytes32(slot)), 32);
      b.put("hashedStorage", key, bigintToBytes(v));
    }
    b.put("hashedAccounts", h, encodeAccount(acc.nonce, acc.balance, undefined, codeHash));
  }
  kv.write(b);
  const r = computeStateRoot(kv);
  kv.write(r.batch);
  return r.root;
}
