/**
 * The children of recently built branch nodes that a stored record does not name by hash, kept in
 * memory for the incremental state root. A storage trie's records keep hashes of branch children
 * only (branchNodeCompact.ts; the account trie's keep its leaves' too, so there it serves the
 * extensions), and a branch whose children are all leaves (a "bottom" branch) has no record at
 * all, so the walker used to re-read and re-hash every unchanged leaf beside a changed key, and
 * every unchanged extension (two or more keys sharing the nibbles below the branch). With a
 * branch's other children at hand (each one's ref as the branch holds it, and a leaf's full key) it
 * hangs the unchanged ones by their refs, and under a bottom branch it reads only the changed keys,
 * by exact key (trieWalker.ts `branch`, `bottom`).
 *
 * Entries are keyed by the branch's nibble path and its node hash, both read from the parent's
 * stored record, so an entry can never be stale: a node's encoding fixes its children's refs and,
 * through each leaf node's hash, the key suffix below the branch, and the path fixes the rest of
 * the key. The same entry is therefore right in any trie and any database that holds that node at
 * that path (reorgs and rewinds included). A walk takes the entry it uses out: it only looks one up
 * for a branch with changes below it, which it then rebuilds under a new hash (a new entry). Beyond
 * `capacity` the oldest entries go first.
 *
 * Layout of `data`: one 66-byte slot per child held (leafMask | nodeMask), in nibble order: ref
 * length (1 byte), the ref (0xa0 ‖ hash, or the embedded node when under 32 bytes; up to 33 bytes),
 * then for a leaf its 32-byte key (a node child's key bytes are unused).
 */
import { bytesKeyOf } from "../primitives/bytes.js";
import { popcount16 } from "./branchNodeCompact.js";

export const BOTTOM_SLOT = 66;
const REF_AT = 1;
export const BOTTOM_KEY_AT = 34;

export interface BottomBranch {
  /** Children present (nibble bits). */
  readonly mask: number;
  /** The children that are leaves, each with a slot in `data`. */
  readonly leafMask: number;
  /**
   * The children that are neither leaves nor branches referenced by hash: extensions and embedded
   * branches, each with a slot in `data` (its ref; no key).
   */
  readonly nodeMask: number;
  /** The node children whose subtries hold stored branches (then this branch has a record too). */
  readonly treeMask: number;
  readonly data: Uint8Array;
}

/** Offset in `b.data` of the slot of child `nibble` (leafMask or nodeMask must have it). */
export function bottomSlot(b: BottomBranch, nibble: number): number {
  return BOTTOM_SLOT * popcount16((b.leafMask | b.nodeMask) & ((1 << nibble) - 1));
}

/**
 * Every child is held by ref and nothing below is stored (no child is a branch named by hash, no
 * extension sits above a stored branch): a branch with no record, which `bottom` walks (in a trie
 * without leaf hashes; with them such a branch has a record, and its parent's tree bit sends the
 * walk there instead).
 */
export function allHeld(b: BottomBranch): boolean {
  return (b.leafMask | b.nodeMask) === b.mask && b.treeMask === 0;
}

/** The leaf key of child `nibble` (a view into the entry). */
export function bottomKey(b: BottomBranch, nibble: number): Uint8Array {
  const at = bottomSlot(b, nibble) + BOTTOM_KEY_AT;
  return b.data.subarray(at, at + 32);
}

let scratch = new Uint8Array(1 + 64 + 32);

/** Writes the path part of a key (its length, then one byte per nibble) into the scratch, with room for a hash after it. */
function prefixBytes(path: Uint8Array, len: number): Uint8Array {
  if (scratch.length < 33 + len) scratch = new Uint8Array(33 + len);
  const k = scratch;
  k[0] = len;
  for (let i = 0; i < len; i++) k[1 + i] = path[i];
  return k;
}

/** The cache key of the branch at `path[0..len)` with node hash `hash[at..at+32)`. */
export function bottomCacheKey(path: Uint8Array, len: number, hash: Uint8Array, at: number): string {
  const k = prefixBytes(path, len);
  for (let i = 0; i < 32; i++) k[1 + len + i] = hash[at + i];
  return bytesKeyOf(k, 0, 33 + len);
}

/** The first part of bottomCacheKey (without the hash). */
export function bottomCachePrefix(path: Uint8Array, len: number): string {
  return bytesKeyOf(prefixBytes(path, len), 0, 1 + len);
}

/** `hash[at..at+32)` as the last part of a cache key. */
export function bottomCacheHash(hash: Uint8Array, at: number): string {
  return bytesKeyOf(hash, at, at + 32);
}

export class BottomCache {
  private readonly map = new Map<string, BottomBranch>();
  hits = 0;
  misses = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.map.size;
  }

  /** Removes and returns the entry of the branch at `path[0..len)` with hash `hash[at..at+32)`. */
  take(path: Uint8Array, len: number, hash: Uint8Array, at: number): BottomBranch | undefined {
    const k = bottomCacheKey(path, len, hash, at);
    const e = this.map.get(k);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(k);
    return e;
  }

  /** The entry `take` would return, left in the cache (not counted as a hit or a miss). */
  peek(path: Uint8Array, len: number, hash: Uint8Array, at: number): BottomBranch | undefined {
    return this.map.get(bottomCacheKey(path, len, hash, at));
  }

  set(key: string, e: BottomBranch): void {
    const map = this.map;
    map.set(key, e);
    if (map.size > this.capacity) {
      const oldest = map.keys().next().value as string;
      map.delete(oldest);
    }
  }

  clear(): void {
    this.map.clear();
  }
}

/**
 * Writes child slot `i` of a new entry: its ref `ref[from..from+len)` and, for a leaf, its key
 * `key[kFrom..kFrom+32)` (null for a node child).
 */
export function writeBottomSlot(
  data: Uint8Array,
  i: number,
  ref: Uint8Array,
  from: number,
  len: number,
  key: Uint8Array | null,
  kFrom: number,
): void {
  const at = BOTTOM_SLOT * i;
  data[at] = len;
  for (let b = 0; b < len; b++) data[at + REF_AT + b] = ref[from + b];
  if (key !== null) for (let b = 0; b < 32; b++) data[at + BOTTOM_KEY_AT + b] = key[kFrom + b];
}
