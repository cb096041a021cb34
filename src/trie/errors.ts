/**
 * Typed trie errors. Malformed nodes, bad proofs, unsorted builder input and inconsistent stored
 * trie records all surface as a TrieError with a stable `code`, never as an untyped crash.
 */
export type TrieErrorCode =
  /** A node's RLP is not a valid leaf, extension or branch. */
  | "BAD_NODE"
  /** A hex-prefix (compact) path has an invalid flag nibble or padding. */
  | "BAD_PATH"
  /** HashBuilder input out of order, duplicated, or one key a prefix of another. */
  | "UNSORTED_KEYS"
  /** A proof does not contain a node the path needs. */
  | "PROOF_MISSING_NODE"
  /** A proof node contradicts the path (wrong hash, structure, or trailing nodes). */
  | "PROOF_INVALID"
  /** A stored branch-node record does not decode. */
  | "BAD_RECORD"
  /** An account leaf value is not [nonce, balance, storageRoot, codeHash]. */
  | "BAD_ACCOUNT"
  /** Fewer than two first-nibble groups: the root is not a branch (see parallel.ts). */
  | "SINGLE_GROUP"
  /** Packed input arrays of inconsistent sizes. */
  | "BAD_INPUT";

export class TrieError extends Error {
  override readonly name = "TrieError";
  constructor(
    readonly code: TrieErrorCode,
    message: string,
  ) {
    super(message);
  }
}
