/**
 * Merkle proofs (eth_getProof, EIP-1186): for a key, the root node's RLP and every node on the key's
 * path that its parent references by hash, in root-to-leaf order; embedded nodes travel inside their
 * parent. The same list proves absence: the path ends at an empty branch slot, a diverging extension,
 * or a leaf with another key. Proofs are generated from stored state (flat leaves + stored branch
 * nodes, through the trie walker with the keys as "changed" targets and a ProofRetainer), and
 * verified against a root without any state.
 */
import { keccak256 } from "../crypto/keccak.js";
import { bytesKey, equalBytes } from "../primitives/bytes.js";
import type { KvReader } from "../storage/kv.js";
import { TrieError } from "./errors.js";
import { HashBuilder } from "./hashBuilder.js";
import { bytesToNibbles } from "./nibbles.js";
import { decodeNode, EMPTY_TRIE_ROOT } from "./node.js";
import { ProofRetainer } from "./proofRetainer.js";
import { storageLeafValue } from "./stateRoot.js";
import { ACCOUNT_TRIE_VIEW, storageTrieView, type TrieView } from "./storedTrie.js";
import { sortUniqueKeys, TrieWalker } from "./trieWalker.js";

export interface TrieProof {
  /** The trie key (32 bytes: keccak of the address or slot). */
  readonly key: Uint8Array;
  /** The leaf value (account RLP, or rlp(word) for storage), null when absent. */
  readonly value: Uint8Array | null;
  /** RLP nodes from the root to the key. */
  readonly proof: Uint8Array[];
}

/** Root of one stored trie plus proofs of `keys` (32-byte trie keys), in the order given. */
export function trieProofs(
  kv: KvReader,
  view: TrieView,
  keys: readonly Uint8Array[],
): { root: Uint8Array; proofs: TrieProof[] } {
  const targets = sortUniqueKeys(keys);
  const retainer = new ProofRetainer(targets.map((k) => bytesToNibbles(k)));
  const hb = new HashBuilder({ retainer });
  const leafValue = view.storage ? storageLeafValue : (_k: Uint8Array, raw: Uint8Array) => raw;
  new TrieWalker(kv, view, targets, hb, leafValue).run();
  const root = hb.root();
  const proofs = keys.map((key) => {
    const raw = kv.get(view.leafTable, view.leafPrefix.length === 0 ? key : concat(view.leafPrefix, key));
    const value = raw === undefined ? null : leafValue(key, raw);
    return { key, value, proof: retainer.proof(bytesToNibbles(key)) };
  });
  return { root, proofs };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Account proof for keccak(address) = `hashedAddress`, and the state root it proves against. */
export function accountProof(kv: KvReader, hashedAddress: Uint8Array): { root: Uint8Array; proof: TrieProof } {
  const r = trieProofs(kv, ACCOUNT_TRIE_VIEW, [hashedAddress]);
  return { root: r.root, proof: r.proofs[0] };
}

/** Storage proofs of keccak(slot) keys under one account, and that account's storage root. */
export function storageProofs(
  kv: KvReader,
  hashedAddress: Uint8Array,
  hashedSlots: readonly Uint8Array[],
): { root: Uint8Array; proofs: TrieProof[] } {
  return trieProofs(kv, storageTrieView(hashedAddress), hashedSlots);
}

/**
 * Verifies `proof` of `key` (the trie key bytes: already hashed for secure tries) against `root`.
 * Returns the value when present, null when the proof shows absence; throws
 * TrieError("PROOF_MISSING_NODE" | "PROOF_INVALID") when the proof does not decide.
 */
export function verifyProof(root: Uint8Array, key: Uint8Array, proof: readonly Uint8Array[]): Uint8Array | null {
  if (equalBytes(root, EMPTY_TRIE_ROOT)) return null;
  const byHash = new Map<string, Uint8Array>();
  for (const node of proof) byHash.set(bytesKey(keccak256(node)), node);
  const path = bytesToNibbles(key);
  let pos = 0;
  let ref: Uint8Array = root;
  for (;;) {
    let rlp: Uint8Array;
    if (ref.length === 32) {
      const found = byHash.get(bytesKey(ref));
      if (found === undefined) throw new TrieError("PROOF_MISSING_NODE", `proof lacks the node at depth ${pos}`);
      rlp = found;
    } else {
      rlp = ref; // embedded in its parent
    }
    let node: ReturnType<typeof decodeNode>;
    try {
      node = decodeNode(rlp);
    } catch (e) {
      if (e instanceof TrieError) throw new TrieError("PROOF_INVALID", `proof node at depth ${pos}: ${e.message}`);
      throw e;
    }
    if (node.type === "leaf") {
      const rest = path.length - pos;
      if (node.path.length !== rest) return null;
      for (let i = 0; i < rest; i++) if (node.path[i] !== path[pos + i]) return null;
      return node.value;
    }
    if (node.type === "extension") {
      const n = node.path.length;
      if (path.length - pos < n) return null;
      for (let i = 0; i < n; i++) if (node.path[i] !== path[pos + i]) return null;
      pos += n;
      ref = node.child;
      continue;
    }
    if (pos === path.length) return node.value;
    const child = node.children[path[pos++]];
    if (child === null) return null;
    ref = child;
  }
}
