/**
 * The account leaf value of the state trie: rlp([nonce, balance, storageRoot, codeHash]) (Yellow
 * Paper 4.1). The trie code only needs to read and replace the storageRoot field, in place of a full
 * decode: both hashes are fixed 32-byte strings, so a replacement keeps every offset.
 */
import { KECCAK256_EMPTY } from "../crypto/keccak.js";
import { equalBytes } from "../primitives/bytes.js";
import { decodeHeader } from "../rlp/decode.js";
import { encodeRlp, uintToRlpBytes } from "../rlp/encode.js";
import { RlpError } from "../rlp/errors.js";
import { TrieError } from "./errors.js";
import { EMPTY_TRIE_ROOT } from "./node.js";

/** Offset of the 32 storageRoot bytes inside an account RLP; throws TrieError("BAD_ACCOUNT"). */
export function storageRootOffset(account: Uint8Array): number {
  try {
    const h = decodeHeader(account, 0);
    const end = h.start + h.length;
    if (!h.list || end !== account.length) throw new TrieError("BAD_ACCOUNT", "account is not one RLP list");
    const nonce = decodeHeader(account, h.start, end);
    const balance = decodeHeader(account, nonce.start + nonce.length, end);
    const rootPos = balance.start + balance.length;
    const root = decodeHeader(account, rootPos, end);
    const code = decodeHeader(account, root.start + root.length, end);
    if (nonce.list || balance.list || root.list || code.list || root.length !== 32 || code.length !== 32) {
      throw new TrieError("BAD_ACCOUNT", "account fields are not [nonce, balance, root32, codeHash32]");
    }
    if (code.start + code.length !== end) throw new TrieError("BAD_ACCOUNT", "account has more than four fields");
    return root.start;
  } catch (e) {
    if (e instanceof RlpError) throw new TrieError("BAD_ACCOUNT", `account RLP: ${e.message}`);
    throw e;
  }
}

/** The account's storageRoot (a view into `account`). */
export function accountStorageRoot(account: Uint8Array): Uint8Array {
  const at = storageRootOffset(account);
  return account.subarray(at, at + 32);
}

/** `account` with its storageRoot set to `root`: the same array when already equal, else a patched copy. */
export function withStorageRoot(account: Uint8Array, root: Uint8Array): Uint8Array {
  const at = storageRootOffset(account);
  if (equalBytes(account.subarray(at, at + 32), root)) return account;
  const out = account.slice();
  out.set(root, at);
  return out;
}

/** Account RLP from its fields (tests, genesis). */
export function encodeAccount(
  nonce: number | bigint,
  balance: bigint,
  storageRoot: Uint8Array = EMPTY_TRIE_ROOT,
  codeHash: Uint8Array = KECCAK256_EMPTY,
): Uint8Array {
  return encodeRlp([uintToRlpBytes(nonce), uintToRlpBytes(balance), storageRoot, codeHash]);
}
