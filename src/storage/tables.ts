/**
 * THE list of tables (RocksDB column families). Every table is declared here once, with its key and
 * value layout; backends open exactly this list, and code refers to tables only by these names.
 * Adding a table is one row here (RocksDB requires every existing column family at open).
 */
export const TABLES = {
  /** Opal metadata: schema version, heads. key: ascii name → value: bytes. */
  meta: "key: ascii name; value: raw bytes",
  /** Hashed flat state for the trie. key: keccak(address) (32) → account RLP [nonce, balance, storageRoot, codeHash]. */
  hashedAccounts: "key: keccak256(address); value: account RLP",
  /** key: keccak(address) (32) ‖ keccak(slot) (32) → minimal big-endian value (never zero; zero = absent). */
  hashedStorage: "key: keccak256(address) ++ keccak256(slot); value: minimal big-endian word",
  /**
   * Stored branch nodes of the account trie (trie/branchNodeCompact.ts). key: the branch's nibble path,
   * one nibble (0..15) per byte, so byte order is path order (the root branch has the empty key) →
   * value: stateMask u16 BE ‖ treeMask u16 BE ‖ hashMask u16 BE ‖ 32-byte hash per hashMask bit.
   * Only branches with a hashed-branch child or a stored subtrie are kept; leaves are in hashedAccounts.
   */
  accountTrie: "key: nibble path, one nibble per byte; value: masks (3 × u16 BE) ++ child branch hashes",
  /** Stored branch nodes of storage tries: key keccak(address) (32) ‖ nibble path; value as accountTrie. */
  storageTrie: "key: keccak256(address) ++ nibble path, one nibble per byte; value: as accountTrie",
  /** Contract code by hash. key: keccak(code) → code. */
  code: "key: keccak256(code); value: code bytes",
} as const;

export type TableName = keyof typeof TABLES;

export const TABLE_NAMES: readonly TableName[] = Object.freeze(Object.keys(TABLES) as TableName[]);
