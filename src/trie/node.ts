/**
 * Trie node codec (Yellow Paper appendix D): leaf [hp(path, leaf), value], extension [hp(path), child],
 * branch [c0..c15, value]. A node reference ("ref") is the node's RLP when shorter than 32 bytes
 * (embedded in the parent) and its keccak-256 hash otherwise, so a 32-byte ref is always a hash and a
 * shorter one is always an embedded node. Encoders size first and write once; the decoder returns
 * views into its input and throws TrieError("BAD_NODE" | "BAD_PATH") on anything malformed.
 */
import { keccak256 } from "../crypto/keccak.js";
import { decodeHeader } from "../rlp/decode.js";
import { headerLength, stringLength, writeHeader, writeString } from "../rlp/encode.js";
import { RlpError } from "../rlp/errors.js";
import { TrieError } from "./errors.js";
import { compactLength, decodeCompact, writeCompact } from "./nibbles.js";

/** Root of the empty trie: keccak256(rlp("")) = keccak256(0x80). */
export const EMPTY_TRIE_ROOT: Uint8Array = keccak256(Uint8Array.of(0x80));

export interface LeafNode {
  readonly type: "leaf";
  /** Remaining key nibbles. */
  readonly path: Uint8Array;
  readonly value: Uint8Array;
}
export interface ExtensionNode {
  readonly type: "extension";
  readonly path: Uint8Array;
  /** Child ref: 32-byte hash or embedded RLP (< 32 bytes). */
  readonly child: Uint8Array;
}
export interface BranchNode {
  readonly type: "branch";
  /** 16 child refs (null = empty slot). */
  readonly children: (Uint8Array | null)[];
  /** Value of the key ending here, null when none. */
  readonly value: Uint8Array | null;
}
export type TrieNode = LeafNode | ExtensionNode | BranchNode;

/** The ref of a node given its RLP: the RLP itself below 32 bytes, else its keccak-256. */
export function nodeRef(rlp: Uint8Array): Uint8Array {
  return rlp.length < 32 ? rlp : keccak256(rlp);
}

/** Bytes a ref takes inside its parent's RLP (a hash is written as a 33-byte string). */
export function refLength(ref: Uint8Array): number {
  return ref.length === 32 ? 33 : ref.length;
}

/** Writes a ref as it appears inside a parent node; returns the end position. */
export function writeRef(out: Uint8Array, pos: number, ref: Uint8Array): number {
  if (ref.length === 32) out[pos++] = 0xa0;
  out.set(ref, pos);
  return pos + ref.length;
}

/** RLP of a leaf holding `path[start..end)` and `value`. */
export function encodeLeaf(path: Uint8Array, value: Uint8Array, start = 0, end = path.length): Uint8Array {
  const payload = pathStringLength(end - start) + stringLength(value);
  const out = new Uint8Array(headerLength(payload) + payload);
  let pos = writeHeader(out, 0, payload, 0xc0);
  pos = writePathString(out, pos, path, start, end, true);
  writeString(out, pos, value);
  return out;
}

/** RLP of an extension over `path[start..end)` pointing at `child` (a ref). */
export function encodeExtension(path: Uint8Array, child: Uint8Array, start = 0, end = path.length): Uint8Array {
  const payload = pathStringLength(end - start) + refLength(child);
  const out = new Uint8Array(headerLength(payload) + payload);
  let pos = writeHeader(out, 0, payload, 0xc0);
  pos = writePathString(out, pos, path, start, end, false);
  writeRef(out, pos, child);
  return out;
}

/** RLP of a branch with 16 child refs (null = empty) and an optional value. */
export function encodeBranch(children: readonly (Uint8Array | null)[], value: Uint8Array | null): Uint8Array {
  let payload = value === null ? 1 : stringLength(value);
  for (let i = 0; i < 16; i++) {
    const c = children[i];
    payload += c == null ? 1 : refLength(c);
  }
  const out = new Uint8Array(headerLength(payload) + payload);
  let pos = writeHeader(out, 0, payload, 0xc0);
  for (let i = 0; i < 16; i++) {
    const c = children[i];
    if (c == null) out[pos++] = 0x80;
    else pos = writeRef(out, pos, c);
  }
  if (value === null) out[pos] = 0x80;
  else writeString(out, pos, value);
  return out;
}

/** Encoded size of a hex-prefix path of `n` nibbles as an RLP string. */
export function pathStringLength(n: number): number {
  const cl = compactLength(n);
  // A one-byte compact path is 0x00..0x3f, below 0x80, so RLP writes it bare.
  return cl === 1 ? 1 : headerLength(cl) + cl;
}

/** Writes the hex-prefix encoding of `path[start..end)` as an RLP string; returns the end position. */
export function writePathString(
  out: Uint8Array,
  pos: number,
  path: Uint8Array,
  start: number,
  end: number,
  leaf: boolean,
): number {
  const cl = compactLength(end - start);
  if (cl > 1) pos = writeHeader(out, pos, cl, 0x80);
  return writeCompact(out, pos, path, start, end, leaf);
}

function bad(msg: string): TrieError {
  return new TrieError("BAD_NODE", msg);
}

/** Reads a child ref at `pos`; returns [ref | null, end]. */
function readChild(rlp: Uint8Array, pos: number, end: number, allowEmpty: boolean): [Uint8Array | null, number] {
  const h = decodeHeader(rlp, pos, end);
  const itemEnd = h.start + h.length;
  if (h.list) {
    if (itemEnd - pos >= 32) throw bad("embedded child node of 32 bytes or more");
    return [rlp.subarray(pos, itemEnd), itemEnd];
  }
  if (h.length === 0 && allowEmpty) return [null, itemEnd];
  if (h.length !== 32) throw bad(`child reference of ${h.length} bytes (want a 32-byte hash or an embedded list)`);
  return [rlp.subarray(h.start, itemEnd), itemEnd];
}

/** Decodes a node's RLP. Returned byte fields are views into `rlp`. */
export function decodeNode(rlp: Uint8Array): TrieNode {
  try {
    return decodeNodeUnchecked(rlp);
  } catch (e) {
    if (e instanceof RlpError) throw bad(`node RLP: ${e.message}`);
    throw e;
  }
}

function decodeNodeUnchecked(rlp: Uint8Array): TrieNode {
  if (rlp.length === 0) throw bad("empty node");
  const h = decodeHeader(rlp, 0);
  if (!h.list) throw bad("node is not an RLP list");
  const end = h.start + h.length;
  if (end !== rlp.length) throw bad("trailing bytes after node");
  // Count items first to tell short nodes from branches.
  let count = 0;
  for (let p = h.start; p < end; count++) {
    const ih = decodeHeader(rlp, p, end);
    p = ih.start + ih.length;
  }
  if (count === 2) {
    const ph = decodeHeader(rlp, h.start, end);
    if (ph.list) throw bad("short node path is a list");
    const { path, leaf } = decodeCompact(rlp.subarray(ph.start, ph.start + ph.length));
    const second = ph.start + ph.length;
    if (leaf) {
      const vh = decodeHeader(rlp, second, end);
      if (vh.list) throw bad("leaf value is a list");
      return { type: "leaf", path, value: rlp.subarray(vh.start, vh.start + vh.length) };
    }
    if (path.length === 0) throw bad("extension with an empty path");
    const [child] = readChild(rlp, second, end, false);
    return { type: "extension", path, child: child! };
  }
  if (count === 17) {
    const children: (Uint8Array | null)[] = new Array(16);
    let p = h.start;
    for (let i = 0; i < 16; i++) {
      const [c, next] = readChild(rlp, p, end, true);
      children[i] = c;
      p = next;
    }
    const vh = decodeHeader(rlp, p, end);
    if (vh.list) throw bad("branch value is a list");
    return { type: "branch", children, value: vh.length === 0 ? null : rlp.subarray(vh.start, vh.start + vh.length) };
  }
  throw bad(`node list has ${count} items (want 2 or 17)`);
}
