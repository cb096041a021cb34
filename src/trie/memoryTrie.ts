/**
 * In-memory Merkle-Patricia trie (Yellow Paper appendix D) with put/get/del in any order, keys of
 * any length (branch values included), ordered iteration with next/prev, geth-style proofs, and
 * the secure variant (keys keccak-hashed first). It is the reference model the stored-trie code is
 * tested against, and the trie for small ad-hoc roots (TrieTests, genesis checks).
 * Nodes are mutable objects that cache their ref; a write clears the cache on its path only.
 */
import { keccak256, keccak256Batch } from "../crypto/keccak.js";
import { headerLength, stringLength, writeHeader, writeString } from "../rlp/encode.js";
import { bytesToNibbles, commonPrefixLength, nibblesToBytes } from "./nibbles.js";
import {
  EMPTY_TRIE_ROOT,
  encodeBranch,
  encodeExtension,
  encodeLeaf,
  nodeRef,
  pathStringLength,
  refLength,
  writePathString,
  writeRef,
} from "./node.js";

class Leaf {
  ref: Uint8Array | null = null;
  constructor(
    public path: Uint8Array,
    public value: Uint8Array,
  ) {}
}

class Extension {
  ref: Uint8Array | null = null;
  constructor(
    public path: Uint8Array,
    public child: Node,
  ) {}
}

class Branch {
  ref: Uint8Array | null = null;
  readonly children: (Node | null)[] = new Array(16).fill(null);
  value: Uint8Array | null = null;
}

type Node = Leaf | Extension | Branch;

function concatPath(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** RLP of a node; children's refs come from their caches. */
function encodeNode(n: Node): Uint8Array {
  if (n instanceof Leaf) return encodeLeaf(n.path, n.value);
  if (n instanceof Extension) return encodeExtension(n.path, refOf(n.child));
  const refs: (Uint8Array | null)[] = new Array(16);
  for (let i = 0; i < 16; i++) {
    const c = n.children[i];
    refs[i] = c === null ? null : refOf(c);
  }
  return encodeBranch(refs, n.value);
}

function refOf(n: Node): Uint8Array {
  if (n.ref === null) n.ref = nodeRef(encodeNode(n));
  return n.ref;
}

/** Payload size of the node's RLP list; children must have refs. */
function nodePayload(n: Node): number {
  let payload: number;
  if (n instanceof Leaf) payload = pathStringLength(n.path.length) + stringLength(n.value);
  else if (n instanceof Extension) payload = pathStringLength(n.path.length) + refLength(n.child.ref!);
  else {
    payload = n.value === null ? 1 : stringLength(n.value);
    for (let i = 0; i < 16; i++) {
      const c = n.children[i];
      payload += c === null ? 1 : refLength(c.ref!);
    }
  }
  return payload;
}

/** Writes the node's RLP (list payload of `payload` bytes, from nodePayload) at `pos`. */
function writeNode(out: Uint8Array, pos: number, n: Node, payload: number): void {
  pos = writeHeader(out, pos, payload, 0xc0);
  if (n instanceof Leaf) {
    pos = writePathString(out, pos, n.path, 0, n.path.length, true);
    writeString(out, pos, n.value);
  } else if (n instanceof Extension) {
    pos = writePathString(out, pos, n.path, 0, n.path.length, false);
    writeRef(out, pos, n.child.ref!);
  } else {
    for (let i = 0; i < 16; i++) {
      const c = n.children[i];
      if (c === null) out[pos++] = 0x80;
      else pos = writeRef(out, pos, c.ref!);
    }
    if (n.value === null) out[pos] = 0x80;
    else writeString(out, pos, n.value);
  }
}

/**
 * Fills the ref cache of every dirty node, bottom-up by height, hashing each height in one
 * keccak256Batch call (code-models §9.4: batch work crosses the native boundary once).
 */
function hashDirty(root: Node): void {
  const levels: Node[][] = [];
  const visit = (n: Node): number => {
    if (n.ref !== null) return -1;
    let h = 0;
    if (n instanceof Extension) h = visit(n.child) + 1;
    else if (n instanceof Branch) {
      for (let i = 0; i < 16; i++) {
        const c = n.children[i];
        if (c !== null) h = Math.max(h, visit(c) + 1);
      }
    }
    (levels[h] ??= []).push(n);
    return h;
  };
  visit(root);
  for (const level of levels) {
    const payloads = new Uint32Array(level.length);
    const offsets = new Uint32Array(level.length + 1);
    for (let i = 0; i < level.length; i++) {
      const p = (payloads[i] = nodePayload(level[i]));
      offsets[i + 1] = offsets[i] + headerLength(p) + p;
    }
    const packed = new Uint8Array(offsets[level.length]);
    for (let i = 0; i < level.length; i++) writeNode(packed, offsets[i], level[i], payloads[i]);
    const hashes = keccak256Batch(packed, offsets);
    for (let i = 0; i < level.length; i++) {
      const size = offsets[i + 1] - offsets[i];
      level[i].ref = size < 32 ? packed.subarray(offsets[i], offsets[i + 1]) : hashes.subarray(32 * i, 32 * i + 32);
    }
  }
}

export interface MemoryTrieOptions {
  /** Hash keys with keccak-256 before use (the state and storage tries). */
  secure?: boolean;
}

export class MemoryTrie {
  private root: Node | null = null;
  private changed = false;
  private count = 0;
  readonly secure: boolean;

  constructor(opts: MemoryTrieOptions = {}) {
    this.secure = opts.secure === true;
  }

  private path(key: Uint8Array): Uint8Array {
    return bytesToNibbles(this.secure ? keccak256(key) : key);
  }

  /** Number of keys. */
  get size(): number {
    return this.count;
  }

  /** Sets `key` to `value`; an empty value deletes (as in every Ethereum trie). */
  put(key: Uint8Array, value: Uint8Array): void {
    if (value.length === 0) {
      this.del(key);
      return;
    }
    this.changed = false;
    this.root = this.insert(this.root, this.path(key), 0, value.slice());
  }

  get(key: Uint8Array): Uint8Array | null {
    const k = this.path(key);
    let n = this.root;
    let pos = 0;
    while (n !== null) {
      if (n instanceof Leaf) {
        return n.path.length === k.length - pos && commonPrefixLength(n.path, k, 0, pos) === n.path.length
          ? n.value
          : null;
      }
      if (n instanceof Extension) {
        if (commonPrefixLength(n.path, k, 0, pos) !== n.path.length) return null;
        pos += n.path.length;
        n = n.child;
      } else {
        if (pos === k.length) return n.value;
        n = n.children[k[pos++]];
      }
    }
    return null;
  }

  /** Removes `key`; returns whether it was present. */
  del(key: Uint8Array): boolean {
    this.changed = false;
    this.root = this.remove(this.root, this.path(key), 0);
    if (this.changed) this.count--;
    return this.changed;
  }

  /** The root hash (EMPTY_TRIE_ROOT when empty). */
  rootHash(): Uint8Array {
    if (this.root === null) return EMPTY_TRIE_ROOT;
    hashDirty(this.root);
    const ref = this.root.ref!;
    // An embedded root (< 32 bytes) is still hashed.
    return ref.length === 32 ? ref : keccak256(ref);
  }

  private insert(n: Node | null, k: Uint8Array, pos: number, value: Uint8Array): Node {
    if (n === null) {
      this.count++;
      return new Leaf(k.slice(pos), value);
    }
    if (n instanceof Branch) {
      n.ref = null;
      if (pos === k.length) {
        if (n.value === null) this.count++;
        n.value = value;
      } else {
        const i = k[pos];
        n.children[i] = this.insert(n.children[i], k, pos + 1, value);
      }
      return n;
    }
    const rem = k.length - pos;
    const cpl = commonPrefixLength(n.path, k, 0, pos);
    if (n instanceof Leaf && cpl === n.path.length && cpl === rem) {
      n.value = value;
      n.ref = null;
      return n;
    }
    if (n instanceof Extension && cpl === n.path.length) {
      n.ref = null;
      n.child = this.insert(n.child, k, pos + cpl, value);
      return n;
    }
    // Split at the first differing nibble: a branch, under an extension when a prefix is shared.
    const b = new Branch();
    if (n instanceof Leaf) {
      if (cpl === n.path.length) b.value = n.value;
      else b.children[n.path[cpl]] = new Leaf(n.path.slice(cpl + 1), n.value);
    } else {
      b.children[n.path[cpl]] = cpl + 1 === n.path.length ? n.child : new Extension(n.path.slice(cpl + 1), n.child);
    }
    this.count++;
    if (cpl === rem) b.value = value;
    else b.children[k[pos + cpl]] = new Leaf(k.slice(pos + cpl + 1), value);
    return cpl > 0 ? new Extension(n.path.slice(0, cpl), b) : b;
  }

  private remove(n: Node | null, k: Uint8Array, pos: number): Node | null {
    if (n === null) return null;
    if (n instanceof Leaf) {
      if (n.path.length === k.length - pos && commonPrefixLength(n.path, k, 0, pos) === n.path.length) {
        this.changed = true;
        return null;
      }
      return n;
    }
    if (n instanceof Extension) {
      if (commonPrefixLength(n.path, k, 0, pos) !== n.path.length) return n;
      const c = this.remove(n.child, k, pos + n.path.length);
      if (!this.changed) return n;
      // A branch child shrinks to a leaf or extension at worst: merge it into this extension.
      if (c === null) return null;
      if (c instanceof Leaf) return new Leaf(concatPath(n.path, c.path), c.value);
      if (c instanceof Extension) return new Extension(concatPath(n.path, c.path), c.child);
      n.child = c;
      n.ref = null;
      return n;
    }
    if (pos === k.length) {
      if (n.value === null) return n;
      n.value = null;
      this.changed = true;
    } else {
      const i = k[pos];
      const c = this.remove(n.children[i], k, pos + 1);
      if (!this.changed) return n;
      n.children[i] = c;
    }
    n.ref = null;
    return normalizeBranch(n);
  }

  /** Entries in key order (keys as bytes; hashed keys for a secure trie). */
  *entries(): Generator<[Uint8Array, Uint8Array]> {
    if (this.root !== null) yield* walk(this.root, new Uint8Array(0));
  }

  /** Smallest key strictly greater than `key` (raw key bytes; not hashed), or null. */
  next(key: Uint8Array): [Uint8Array, Uint8Array] | null {
    if (this.root === null) return null;
    const r = after(this.root, new Uint8Array(0), bytesToNibbles(key));
    return r === null ? null : [nibblesToBytes(r[0]), r[1]];
  }

  /** Largest key strictly smaller than `key`, or null. */
  prev(key: Uint8Array): [Uint8Array, Uint8Array] | null {
    if (this.root === null) return null;
    const r = before(this.root, new Uint8Array(0), bytesToNibbles(key));
    return r === null ? null : [nibblesToBytes(r[0]), r[1]];
  }

  /**
   * Proof of `key` (geth semantics): the root node's RLP, then every node on the key's path that
   * its parent references by hash. Proves presence or absence; see verifyProof in proof.ts.
   */
  proof(key: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    const k = this.path(key);
    let n = this.root;
    let pos = 0;
    let first = true;
    while (n !== null) {
      const rlp = encodeNode(n);
      if (first || rlp.length >= 32) out.push(rlp);
      first = false;
      if (n instanceof Leaf) break;
      if (n instanceof Extension) {
        if (commonPrefixLength(n.path, k, 0, pos) !== n.path.length) break;
        pos += n.path.length;
        n = n.child;
      } else {
        if (pos === k.length) break;
        n = n.children[k[pos++]];
      }
    }
    return out;
  }
}

/** Restores the canonical shape of a branch after a removal below it. */
function normalizeBranch(b: Branch): Node | null {
  let only = -1;
  let count = 0;
  for (let i = 0; i < 16; i++) {
    if (b.children[i] !== null) {
      count++;
      only = i;
    }
  }
  if (count >= 2 || (count === 1 && b.value !== null)) return b;
  if (count === 0) return b.value === null ? null : new Leaf(new Uint8Array(0), b.value);
  const c = b.children[only]!;
  const head = Uint8Array.of(only);
  if (c instanceof Leaf) return new Leaf(concatPath(head, c.path), c.value);
  if (c instanceof Extension) return new Extension(concatPath(head, c.path), c.child);
  return new Extension(head, c);
}

function* walk(n: Node, prefix: Uint8Array): Generator<[Uint8Array, Uint8Array]> {
  if (n instanceof Leaf) {
    yield [nibblesToBytes(concatPath(prefix, n.path)), n.value];
  } else if (n instanceof Extension) {
    yield* walk(n.child, concatPath(prefix, n.path));
  } else {
    if (n.value !== null) yield [nibblesToBytes(prefix), n.value];
    for (let i = 0; i < 16; i++) {
      const c = n.children[i];
      if (c !== null) yield* walk(c, concatPath(prefix, Uint8Array.of(i)));
    }
  }
}

function first(n: Node, prefix: Uint8Array): [Uint8Array, Uint8Array] {
  for (;;) {
    if (n instanceof Leaf) return [concatPath(prefix, n.path), n.value];
    if (n instanceof Extension) {
      prefix = concatPath(prefix, n.path);
      n = n.child;
      continue;
    }
    if (n.value !== null) return [prefix, n.value];
    const i = n.children.findIndex((c) => c !== null);
    prefix = concatPath(prefix, Uint8Array.of(i));
    n = n.children[i]!;
  }
}

function last(n: Node, prefix: Uint8Array): [Uint8Array, Uint8Array] {
  for (;;) {
    if (n instanceof Leaf) return [concatPath(prefix, n.path), n.value];
    if (n instanceof Extension) {
      prefix = concatPath(prefix, n.path);
      n = n.child;
      continue;
    }
    let i = 15;
    while (i >= 0 && n.children[i] === null) i--;
    if (i < 0) return [prefix, n.value!];
    prefix = concatPath(prefix, Uint8Array.of(i));
    n = n.children[i]!;
  }
}

/** -1/0/1: `p` (the path so far) before, along, or after `k` (0 also when `k` is a prefix of `p`). */
function side(p: Uint8Array, k: Uint8Array): number {
  const m = Math.min(p.length, k.length);
  for (let i = 0; i < m; i++) if (p[i] !== k[i]) return p[i] < k[i] ? -1 : 1;
  return 0;
}

/** Smallest entry in the subtree of `n` (at path `p`) whose key is > `k`. */
function after(n: Node, p: Uint8Array, k: Uint8Array): [Uint8Array, Uint8Array] | null {
  const s = side(p, k);
  if (s < 0) return null;
  // Every key below a path that sorts after k, or that extends k, is greater than k.
  if (s > 0 || p.length > k.length) return first(n, p);
  if (n instanceof Leaf) {
    const full = concatPath(p, n.path);
    const t = side(full, k);
    return t > 0 || (t === 0 && full.length > k.length) ? [full, n.value] : null;
  }
  if (n instanceof Extension) return after(n.child, concatPath(p, n.path), k);
  const from = p.length === k.length ? 0 : k[p.length];
  for (let i = from; i < 16; i++) {
    const c = n.children[i];
    if (c === null) continue;
    const r = after(c, concatPath(p, Uint8Array.of(i)), k);
    if (r !== null) return r;
  }
  return null;
}

/** Largest entry in the subtree of `n` (at path `p`) whose key is < `k`. */
function before(n: Node, p: Uint8Array, k: Uint8Array): [Uint8Array, Uint8Array] | null {
  const s = side(p, k);
  if (s > 0 || (s === 0 && p.length > k.length)) return null;
  if (s < 0) return last(n, p);
  if (n instanceof Leaf) {
    const full = concatPath(p, n.path);
    const t = side(full, k);
    return t < 0 || (t === 0 && full.length < k.length) ? [full, n.value] : null;
  }
  if (n instanceof Extension) return before(n.child, concatPath(p, n.path), k);
  if (p.length === k.length) return null; // the branch value equals k; children are greater
  for (let i = k[p.length]; i >= 0; i--) {
    const c = n.children[i];
    if (c === null) continue;
    const r = before(c, concatPath(p, Uint8Array.of(i)), k);
    if (r !== null) return r;
  }
  return n.value !== null ? [p, n.value] : null;
}
