/**
 * A Merkle-Patricia trie known only in part: unresolved subtries are kept as their hash, and a node
 * is resolved (its RLP asked of a `NodeSource`, checked against the hash its parent holds) only when
 * a get, put or delete has to look inside it. That makes it both ends of an execution witness
 * (debug_executionWitness): run over the stored state, the nodes it resolves are exactly the ones a
 * stateless run needs; run over a witness's nodes alone, a missing or altered node fails the run.
 * Keys are the 32-byte keys of the secure tries (so no branch carries a value); values are leaf
 * values as stored in the trie (account RLP, rlp(word)).
 *
 * What resolves besides the paths of the keys touched: deleting a key can leave a branch with one
 * child, which then merges into the node above, so that child (a sibling of the deleted path) is
 * resolved too, as every client's trie does.
 */
import { keccak256 } from "../crypto/keccak.js";
import { bytesKey, equalBytes } from "../primitives/bytes.js";
import { bytesToHex } from "../primitives/hex.js";
import type { KvReader } from "../storage/kv.js";
import { TrieError } from "./errors.js";
import { HashBuilder } from "./hashBuilder.js";
import { bytesToNibbles, commonPrefixLength, nibblesToBytes } from "./nibbles.js";
import { decodeNode, EMPTY_TRIE_ROOT, encodeBranch, encodeExtension, encodeLeaf, nodeRef } from "./node.js";
import { ProofRetainer } from "./proofRetainer.js";
import { storageLeafValue } from "./stateRoot.js";
import type { TrieView } from "./storedTrie.js";
import { TrieWalker } from "./trieWalker.js";

/**
 * Where unresolved nodes come from. `path` is the node's nibble path from the trie root; `key` is
 * the 32-byte key being looked up or written when there is one (null for a merge sibling). Returns
 * the node's RLP, or undefined when it is not available.
 */
export type NodeSource = (hash: Uint8Array, path: Uint8Array, key: Uint8Array | null) => Uint8Array | undefined;

class Leaf {
  ref: Uint8Array | null = null;
  constructor(
    readonly path: Uint8Array,
    readonly value: Uint8Array,
  ) {}
}

class Extension {
  ref: Uint8Array | null = null;
  constructor(
    readonly path: Uint8Array,
    public child: Node,
  ) {}
}

class Branch {
  ref: Uint8Array | null = null;
  readonly children: (Node | null)[] = new Array(16).fill(null);
}

/** A subtrie not resolved yet: only its hash is known. */
class HashNode {
  constructor(readonly hash: Uint8Array) {}
}

type Node = Leaf | Extension | Branch | HashNode;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function prefixed(n: number, rest: Uint8Array): Uint8Array {
  const out = new Uint8Array(rest.length + 1);
  out[0] = n;
  out.set(rest, 1);
  return out;
}

/** A decoded node's RLP as a tree: hashed children stay HashNodes, embedded ones are decoded. */
function fromRlp(rlp: Uint8Array): Node {
  const n = decodeNode(rlp);
  if (n.type === "leaf") return new Leaf(n.path.slice(), n.value.slice());
  if (n.type === "extension") return new Extension(n.path.slice(), fromRef(n.child));
  if (n.value !== null) throw new TrieError("BAD_NODE", "branch with a value in a trie of 32-byte keys");
  const b = new Branch();
  for (let i = 0; i < 16; i++) {
    const c = n.children[i];
    b.children[i] = c === null ? null : fromRef(c);
  }
  return b;
}

function fromRef(ref: Uint8Array): Node {
  return ref.length === 32 ? new HashNode(ref.slice()) : fromRlp(ref);
}

export class SparseTrie {
  private root: Node | null;
  /** Every node resolved, in order (hash, RLP): what a stateless run over this trie needs. */
  readonly resolved: { hash: Uint8Array; rlp: Uint8Array }[] = [];

  constructor(
    rootHash: Uint8Array,
    private readonly source: NodeSource,
  ) {
    this.root = equalBytes(rootHash, EMPTY_TRIE_ROOT) ? null : new HashNode(rootHash.slice());
  }

  /** The node itself, or the subtrie behind a hash asked of the source (PROOF_MISSING_NODE when absent). */
  private load(n: Node, path: Uint8Array, depth: number, key: Uint8Array | null): Exclude<Node, HashNode> {
    if (!(n instanceof HashNode)) return n;
    const at = path.subarray(0, depth);
    const rlp = this.source(n.hash, at, key);
    if (rlp === undefined) {
      throw new TrieError("PROOF_MISSING_NODE", `no node ${bytesToHex(n.hash)} at path [${[...at].join(",")}]`);
    }
    if (!equalBytes(keccak256(rlp), n.hash)) {
      throw new TrieError(
        "PROOF_INVALID",
        `node at path [${[...at].join(",")}] does not hash to ${bytesToHex(n.hash)}`,
      );
    }
    this.resolved.push({ hash: n.hash, rlp });
    const node = fromRlp(rlp) as Exclude<Node, HashNode>;
    // A root below 32 bytes is still hashed; everywhere else a hashed node is 32 bytes or more.
    node.ref = rlp.length < 32 ? rlp : n.hash;
    return node;
  }

  /** The value under the 32-byte `key`, or null when absent. */
  get(key: Uint8Array): Uint8Array | null {
    const k = bytesToNibbles(key);
    let out: Uint8Array | null = null;
    const walk = (n: Node | null, d: number): Node | null => {
      if (n === null) return null;
      const m = this.load(n, k, d, key);
      if (m instanceof Leaf) {
        if (m.path.length === k.length - d && commonPrefixLength(m.path, k, 0, d) === m.path.length) out = m.value;
      } else if (m instanceof Extension) {
        if (commonPrefixLength(m.path, k, 0, d) === m.path.length) m.child = walk(m.child, d + m.path.length) as Node;
      } else {
        m.children[k[d]] = walk(m.children[k[d]], d + 1);
      }
      return m;
    };
    this.root = walk(this.root, 0);
    return out;
  }

  /** Sets the value under the 32-byte `key` (an empty value is not allowed: use `del`). */
  put(key: Uint8Array, value: Uint8Array): void {
    if (value.length === 0) throw new TrieError("BAD_INPUT", "empty trie value: delete the key instead");
    const k = bytesToNibbles(key);
    const insert = (n: Node | null, d: number): Node => {
      if (n === null) return new Leaf(k.slice(d), value.slice());
      const m = this.load(n, k, d, key);
      if (m instanceof Branch) {
        m.children[k[d]] = insert(m.children[k[d]], d + 1);
        m.ref = null;
        return m;
      }
      const c = commonPrefixLength(m.path, k, 0, d);
      if (m instanceof Leaf && c === m.path.length) return new Leaf(m.path, value.slice());
      if (m instanceof Extension && c === m.path.length) {
        m.child = insert(m.child, d + c);
        m.ref = null;
        return m;
      }
      // Split at the first differing nibble: a branch holding the old node's rest and the new leaf.
      const b = new Branch();
      const rest = m.path.subarray(c + 1);
      if (m instanceof Leaf) b.children[m.path[c]] = new Leaf(rest.slice(), m.value);
      else b.children[m.path[c]] = rest.length === 0 ? m.child : new Extension(rest.slice(), m.child);
      b.children[k[d + c]] = new Leaf(k.slice(d + c + 1), value.slice());
      return c === 0 ? b : new Extension(k.slice(d, d + c), b);
    };
    this.root = insert(this.root, 0);
  }

  /** Deletes the 32-byte `key` (absent: no change). */
  del(key: Uint8Array): void {
    const k = bytesToNibbles(key);
    const remove = (n: Node | null, d: number): Node | null => {
      if (n === null) return null;
      const m = this.load(n, k, d, key);
      if (m instanceof Leaf) {
        const hit = m.path.length === k.length - d && commonPrefixLength(m.path, k, 0, d) === m.path.length;
        return hit ? null : m;
      }
      if (m instanceof Extension) {
        if (commonPrefixLength(m.path, k, 0, d) !== m.path.length) return m;
        const child = remove(m.child, d + m.path.length);
        if (child === m.child) {
          // The same object, changed in place below (its ref dropped): this node's ref is stale too.
          if (isDirty(child)) m.ref = null;
          return m;
        }
        if (child === null) return null;
        // The child collapsed: merge a short node into this extension's path.
        if (child instanceof Leaf) return new Leaf(concat(m.path, child.path), child.value);
        if (child instanceof Extension) return new Extension(concat(m.path, child.path), child.child);
        m.child = child;
        m.ref = null;
        return m;
      }
      const i = k[d];
      const before = m.children[i];
      const after = remove(before, d + 1);
      m.children[i] = after;
      if (after === before) {
        if (isDirty(after)) m.ref = null;
        return m;
      }
      m.ref = null;
      if (after !== null) return m;
      let only = -1;
      for (let j = 0; j < 16; j++) {
        if (m.children[j] === null) continue;
        if (only >= 0) return m; // two or more children left: still a branch
        only = j;
      }
      if (only < 0) return null;
      // One child left: it merges upwards, so its kind matters and it must be resolved.
      const path = new Uint8Array(d + 1);
      path.set(k.subarray(0, d));
      path[d] = only;
      const s = this.load(m.children[only] as Node, path, d + 1, null);
      if (s instanceof Leaf) return new Leaf(prefixed(only, s.path), s.value);
      if (s instanceof Extension) return new Extension(prefixed(only, s.path), s.child);
      return new Extension(Uint8Array.of(only), s);
    };
    this.root = remove(this.root, 0);
  }

  /** The root hash (EMPTY_TRIE_ROOT for an empty trie). */
  rootHash(): Uint8Array {
    if (this.root === null) return EMPTY_TRIE_ROOT;
    if (this.root instanceof HashNode) return this.root.hash;
    const ref = refOf(this.root);
    return ref.length === 32 ? ref : keccak256(ref);
  }
}

/** A resolved node whose ref was dropped by a change (a HashNode or null never is). */
function isDirty(n: Node | null): boolean {
  return n !== null && !(n instanceof HashNode) && n.ref === null;
}

function refOf(n: Node): Uint8Array {
  if (n instanceof HashNode) return n.hash;
  if (n.ref !== null) return n.ref;
  let rlp: Uint8Array;
  if (n instanceof Leaf) rlp = encodeLeaf(n.path, n.value);
  else if (n instanceof Extension) rlp = encodeExtension(n.path, refOf(n.child));
  else
    rlp = encodeBranch(
      n.children.map((c) => (c === null ? null : refOf(c))),
      null,
    );
  n.ref = nodeRef(rlp);
  return n.ref;
}

/**
 * A NodeSource over a stored trie (flat leaves and stored branch records, storedTrie.ts), which
 * keeps no node by hash: the node at a path is rebuilt as a proof node is, by walking the trie
 * towards a key below that path with a ProofRetainer (the key looked up, else the path padded with
 * zeros). Every node of that walk is kept by hash, so the rest of the key's path costs no walk.
 */
export function storedNodeSource(kv: KvReader, view: TrieView): NodeSource {
  const byHash = new Map<string, Uint8Array>();
  const leafValue = view.storage ? storageLeafValue : (_k: Uint8Array, raw: Uint8Array) => raw;
  return (hash, path, key) => {
    const hit = byHash.get(bytesKey(hash));
    if (hit !== undefined) return hit;
    let target = key;
    if (target === null) {
      const padded = new Uint8Array(64);
      padded.set(path);
      target = nibblesToBytes(padded);
    }
    const retainer = new ProofRetainer([bytesToNibbles(target)]);
    const hb = new HashBuilder({ retainer });
    new TrieWalker(kv, view, [target], hb, leafValue).run();
    hb.root();
    for (const n of retainer.retained()) {
      if (n.rlp.length >= 32 || n.path.length === 0) byHash.set(bytesKey(keccak256(n.rlp)), n.rlp);
    }
    return byHash.get(bytesKey(hash));
  };
}
