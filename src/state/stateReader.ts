/**
 * The read side of world state as the EVM's state layer sees it: accounts and storage by hashed key,
 * code by hash. Synchronous (code-models §10.1): RocksDB reads are sync MultiGets, so execution
 * needs no "load then restart" protocol. Implementations: `kvStateReader.ts` (the flat tables of
 * any KvStore: RocksDB in the node, MemoryKv in tests and tools).
 */

/** An account as stored: nonce and balance decoded, the two hashes as 32-byte arrays. */
export interface AccountRecord {
  readonly nonce: bigint;
  readonly balance: bigint;
  readonly storageRoot: Uint8Array;
  readonly codeHash: Uint8Array;
}

/** Bytes a reader returns (a record's hashes, code) are read-only: they may be a cache's own. */
export interface StateReader {
  /** The account whose address hashes to `hashedAddress`, or null when absent. */
  account(hashedAddress: Uint8Array): AccountRecord | null;
  /** A storage word (0n when absent). */
  storage(hashedAddress: Uint8Array, hashedSlot: Uint8Array): bigint;
  /** Code by its keccak hash (empty when unknown). */
  code(codeHash: Uint8Array): Uint8Array;
  /** True when the account has any storage row (EIP-7610 create collision check). */
  hasStorage(hashedAddress: Uint8Array): boolean;
  /**
   * `account` of each key, in one read of the store (a block's accounts before it runs:
   * WorldState.prefetchAccounts). Optional: a reader without it is asked key by key.
   */
  accountBatch?(hashedAddresses: readonly Uint8Array[]): (AccountRecord | null)[];
}
