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
  /** Block headers of every stored block (canonical or not). key: block hash → header RLP. */
  headers: "key: block hash; value: header RLP",
  /** Block bodies. key: block hash → rlp([txs (EIP-2718 items), ommers, withdrawals?]). */
  bodies: "key: block hash; value: body RLP",
  /** Consensus receipts of executed blocks. key: block hash → rlp list of EIP-2718 receipt encodings. */
  receipts: "key: block hash; value: rlp([receipt…])",
  /** Total difficulty. key: block hash → minimal big-endian (empty for 0). */
  difficulty: "key: block hash; value: minimal big-endian total difficulty",
  /** The canonical chain. key: block number (8 bytes BE) → block hash. */
  canonical: "key: u64 BE block number; value: block hash",
  /** Canonical tx positions. key: tx hash → block hash (32) ‖ index (u32 BE). */
  txLookup: "key: tx hash; value: block hash ++ u32 BE index",
  /**
   * Undo records: the inverse of every state write a block made (flat state and trie nodes), so the
   * state can be rewound past it (reorgs, crash recovery). key: block hash → encoded WriteBatch.
   */
  history: "key: block hash; value: encoded inverse WriteBatch",
  /**
   * The rollup node's safe-head DB (`--safedb.path`; op-node safedb): which L2 block was safe after
   * each L1 block was processed. key: L1 block number (u64 BE) → L1 hash (32) ‖ L2 safe hash (32) ‖
   * L2 safe number (u64 BE).
   */
  safeHeads: "key: u64 BE L1 block number; value: l1 hash ++ l2 safe hash ++ u64 BE l2 safe number",
  /**
   * Blocks that failed import (geth rawdb WriteBadBlock, served by debug_getBadBlocks): at most the
   * 10 with the highest numbers (geth's badBlockToKeep). key: block number (u64 BE) ‖ block hash →
   * block RLP. Added after the first release: RocksDB creates the missing column family when an
   * older store opens (create_missing_column_families), LMDB creates the named database.
   */
  badBlocks: "key: u64 BE block number ++ block hash; value: block RLP",
  /**
   * The execution-layer sync's skeleton (devp2p/sync/skeleton.ts): headers downloaded backwards from
   * the sync target, linked by parent hash, kept until the sync reaches the target so a restart
   * resumes instead of starting again; the range and target are in meta `syncSkeleton`. key: block
   * number (u64 BE) → header RLP. Added after the first release (created on open, as badBlocks).
   */
  syncHeaders: "key: u64 BE block number; value: header RLP",
  /**
   * A dev L1's blob sidecars by sealed block (txpool/blobSidecars.ts, served by the dev beacon API):
   * key: block number (u64 BE) → block hash (32) ‖ sidecars (blobSidecars.ts `encodeSealed`), kept
   * for the store's retention in blocks. On disk so the retention costs no memory. Added after the
   * first release (created on open, as badBlocks).
   */
  blobSidecars: "key: u64 BE block number; value: block hash ++ encoded sidecars",
} as const;

export type TableName = keyof typeof TABLES;

export const TABLE_NAMES: readonly TableName[] = Object.freeze(Object.keys(TABLES) as TableName[]);
