/**
 * Incremental walk of a stored trie (after reth's TrieWalker + TrieNodeIter, restructured as a
 * recursion). Given the sorted keys that changed since the stored branch nodes were written (their
 * flat leaves already updated), it feeds a HashBuilder, in key order, with:
 *   - addBranchRef(path, hash) for every unchanged child that is a hashed branch (its whole subtrie
 *     costs nothing), and
 *   - the flat leaves of every changed child, and of unchanged children that are leaves or small
 *     unstored subtries.
 * Only stored nodes on the paths of changed keys are read; they are recorded in `visited` so the
 * caller can delete the ones that were not rebuilt. Leaf ranges and node seeks go through one
 * KvCursor per table, moving forward in key order, so a range that starts where the last one ended
 * costs no seek (PERF: 1000 changed of 100k accounts on RocksDB, 5.8k leaf ranges: 3.4k native
 * seeks of ~3 µs instead of 5.8k new iterators of ~15 µs). The same walk with "changed" = proof
 * targets and a ProofRetainer produces proofs.
 *
 * Why refs stay valid when branches collapse: a kept branch hash always names a branch node sitting
 * exactly at its path (branchNodeCompact.ts), and an unchanged subtrie keeps its branch at that path,
 * so the builder may hang it under whatever branch or extension the new trie has above it. A kept
 * leaf hash (the account trie's records) is used only under a branch that keeps two children with
 * a key (unchanged, or changed with a key that has a row now), so stays where it is; otherwise the
 * leaf is read.
 */
import { bytesKey, compareBytes, equalBytes } from "../primitives/bytes.js";
import { getManyShared, getShared, type KvCursor, type KvReader } from "../storage/kv.js";
import { allHeld, BOTTOM_KEY_AT, type BottomBranch, type BottomCache, bottomKey, bottomSlot } from "./bottomCache.js";
import { type BranchNodeCompact, decodeBranchNodeCompact, hashOffset } from "./branchNodeCompact.js";
import { TrieError } from "./errors.js";
import type { HashBuilder } from "./hashBuilder.js";
import { nibbleAt } from "./nibbles.js";
import { sortKeyOrder } from "./packLeaves.js";
import { leafKey, leafLower, leafUpper, nodeKey, nodeRange, type TrieView } from "./storedTrie.js";

/** Maps a flat value to the trie's leaf value (null = skip the entry). */
export type LeafValueFn = (key: Uint8Array, raw: Uint8Array) => Uint8Array | null;

export interface TrieWalkerOptions {
  /** Ignore stored branch nodes and rebuild from the flat leaves (wiped storage, first build). */
  ignoreStored?: boolean;
  /**
   * Cursor on the view's leaf table, owned by the caller, who may share it between walks in key
   * order (every storage trie of one update); by default `run` opens one and closes it.
   */
  leafCursor?: KvCursor;
  /** Cursor on the view's node table, as for `leafCursor`. */
  nodeCursor?: KvCursor;
  /**
   * Bottom branches seen by earlier walks (the builder must fill the same cache): a changed key
   * under a cached one is read by exact key and its unchanged siblings hang by their refs.
   */
  bottoms?: BottomCache | null;
  /**
   * The node hash of the trie's root before the changes (the root the stored branches and the flat
   * rows other than the changed ones belong to: the parent's state root, an account's old storage
   * root). With `bottoms`, the branch at the root is looked up in the cache like any branch whose
   * hash its parent's record keeps; a root branch of leaves only, which has no record (unless the
   * view keeps leaf hashes), is then walked without reading the node table. It must be exactly that
   * root: a cached branch is trusted by its hash.
   */
  rootHash?: Uint8Array | null;
  /**
   * Per changed key (same index): 1 when it had no row before the changes, 0 when it had one. A
   * changed child that was a leaf by the record (leafMask) and holds a changed key that had a row
   * held exactly that key, so the keys under it now are the changed ones still present: read by
   * exact key instead of the child's range. Absent: not known, the range is read.
   */
  created?: Uint8Array | null;
}

/** Compares the nibble prefix of a 32-byte key with `path[0..len)`: <0 before, 0 inside, >0 after. */
function compareToPath(key: Uint8Array, path: Uint8Array, len: number): number {
  for (let i = 0; i < len; i++) {
    const d = nibbleAt(key, i) - path[i];
    if (d !== 0) return d;
  }
  return 0;
}

export class TrieWalker {
  /** Every stored node read: KV key (latin-1) → record bytes. */
  readonly visited = new Map<string, Uint8Array>();
  /** Stats for metrics and tests. */
  nodesRead = 0;
  leavesRead = 0;
  refsAdded = 0;
  /** Unchanged leaves hung by their refs from a cached bottom branch. */
  leafRefs = 0;
  /** Unchanged extensions and embedded branches hung by their refs from a cached branch. */
  nodeRefs = 0;

  /** The current nibble path; path[0..len) is the prefix being walked. */
  private readonly path = new Uint8Array(66);
  /** branch() at depth d keeps the end index of each child's changed keys in ends[16d .. 16d+16). */
  private readonly ends = new Int32Array(16 * 65);
  /** Path length of the branch found by the last `seek` (or handed in as `known`). */
  private seekLen = 0;
  private readonly ignoreStored: boolean;
  private leafCursor: KvCursor | null;
  private nodeCursor: KvCursor | null;
  private readonly bottoms: BottomCache | null;
  private readonly rootHash: Uint8Array | null;
  private readonly created: Uint8Array | null;
  /**
   * With `created`: every changed key's row now (undefined: none), read in one getMany before the
   * walk, for the children read by exact key (`known`).
   */
  private changedRows: (Uint8Array | undefined)[] | null = null;
  /**
   * Leaf rows read ahead for the branch whose children are being emitted (`branch`), so that its
   * children's leaf ranges cost one seek between them instead of one each. `winDepth` is that
   * branch's path length (−1 outside any), `winBounded` says none of its children holds a stored
   * branch (then every row below it is a leaf child's or a recordless bottom branch's, at most
   * 16 × 16, and the window is read at its first range), `winRanges` counts its ranges read
   * without a window (a branch with stored children reads one at its second range).
   */
  private win: LeafWindow | null = null;
  private winDepth = -1;
  private winBounded = false;
  private winRanges = 0;

  /**
   * Records of the stored branches on the changed keys' paths, read a depth at a time before the
   * walk (`prefetchNodes`): node key (latin-1) → record, null when absent. Null map: not prefetched.
   */
  private prefetched: Map<string, Uint8Array | null> | null = null;

  /**
   * `changed`: the trie keys (32 bytes each, without the view's prefix) that changed, sorted
   * ascending without duplicates (see sortUniqueKeys).
   */
  constructor(
    private readonly kv: KvReader,
    private readonly view: TrieView,
    private readonly changed: readonly Uint8Array[],
    private readonly builder: HashBuilder,
    private readonly leafValue: LeafValueFn,
    opts: TrieWalkerOptions = {},
  ) {
    this.ignoreStored = opts.ignoreStored === true;
    this.leafCursor = opts.leafCursor ?? null;
    this.nodeCursor = opts.nodeCursor ?? null;
    this.bottoms = opts.bottoms ?? null;
    this.rootHash = opts.rootHash ?? null;
    this.created = opts.created ?? null;
    if (this.created !== null && this.created.length !== changed.length) {
      throw new TrieError("BAD_INPUT", "TrieWalker: one created flag per changed key");
    }
  }

  /** Feeds the whole trie into the builder; call `builder.root()` afterwards. */
  run(): void {
    const ownLeaf = this.leafCursor === null;
    const ownNode = this.nodeCursor === null;
    try {
      if (!this.ignoreStored && this.cachedRoot()) return;
      if (!this.ignoreStored && this.changed.length >= PREFETCH_MIN_KEYS) this.prefetchNodes();
      if (!this.ignoreStored && this.created !== null && this.changed.length > 0) {
        const view = this.view;
        this.changedRows = getManyShared(
          this.kv,
          view.leafTable,
          this.changed.map((k) => leafKey(view, k)),
        );
      }
      this.subtrie(0, 0, this.changed.length, undefined, this.rootHash ?? undefined);
    } finally {
      this.prefetched = null;
      this.changedRows = null;
      if (ownLeaf && this.leafCursor !== null) this.leafCursor.close();
      if (ownNode && this.nodeCursor !== null) this.nodeCursor.close();
      if (ownLeaf) this.leafCursor = null;
      if (ownNode) this.nodeCursor = null;
    }
  }

  /**
   * A root branch whose children are all held by ref (leaves, extensions with nothing stored
   * below), from the bottom cache by the root hash: such a branch has no stored record (nor
   * anything below it), so the walk reads only the changed keys and the leaves they replace
   * (`bottom`). False when there is no such entry; the entry is left in the cache then only if it
   * has branch children or stored branches below (`branch` takes it).
   */
  private cachedRoot(): boolean {
    if (this.rootHash === null || this.bottoms === null || this.changed.length === 0) return false;
    // A trie that keeps leaf hashes stores such a root too: walked from the cache, a record it no
    // longer needs (the root collapsed to one leaf) would stay behind, unread and so undeleted.
    if (this.view.leafHashes) return false;
    const e = this.bottoms.peek(this.path, 0, this.rootHash, 0);
    if (e === undefined || !allHeld(e)) return false;
    this.bottoms.take(this.path, 0, this.rootHash, 0);
    this.bottom(0, e, 0, this.changed.length);
    return true;
  }

  /**
   * Emits every key below path[0..pLen); changed keys there are changed[lo..hi). `known` is the
   * record of the branch sitting exactly at path[0..pLen) when the caller already read it.
   */
  private subtrie(pLen: number, lo: number, hi: number, known?: Uint8Array, hash?: Uint8Array, hashAt = 0): void {
    let node: BranchNodeCompact | null;
    if (known !== undefined) {
      node = decodeBranchNodeCompact(known);
      this.seekLen = pLen;
    } else if (this.ignoreStored) {
      node = null;
    } else {
      node = (pLen === 0 ? this.rootBranch() : null) ?? this.seek(pLen);
    }
    if (node === null) {
      this.leaves(leafLower(this.view, this.path, pLen), leafUpper(this.view, this.path, pLen));
      return;
    }
    const bLen = this.seekLen;
    // The old keys below P all sat below the branch B = path[0..bLen); split the changes around B.
    let bLo = lo;
    while (bLo < hi && compareToPath(this.changed[bLo], this.path, bLen) < 0) bLo++;
    let bHi = bLo;
    while (bHi < hi && compareToPath(this.changed[bHi], this.path, bLen) === 0) bHi++;
    if (bLo > lo) this.leaves(leafLower(this.view, this.path, pLen), leafLower(this.view, this.path, bLen));
    // `hash` (from the parent's record) names a branch sitting exactly at pLen.
    this.branch(bLen, node, bLo, bHi, bLen === pLen ? (hash ?? null) : null, hashAt);
    if (hi > bHi) {
      const from = leafUpper(this.view, this.path, bLen);
      if (from !== null) this.leaves(from, leafUpper(this.view, this.path, pLen));
    }
  }

  /**
   * Emits the children of the stored branch at path[0..bLen); changes below it are changed[lo..hi).
   * `hash[hashAt..+32)` is the branch's node hash when its parent's record keeps it (null for the
   * root): with it, unchanged leaf children come from the bottom cache by ref instead of the leaves.
   */
  private branch(
    bLen: number,
    node: BranchNodeCompact,
    lo: number,
    hi: number,
    hash: Uint8Array | null,
    hashAt: number,
  ): void {
    const path = this.path;
    // Changed children that are stored branches sit exactly at path ‖ n (a hashed child is a branch,
    // never an extension): read all their records in one getMany instead of one seek each.
    // Recursion only goes deeper, so each depth owns its 16 slots of the scratch.
    const ends = this.ends;
    const e0 = 16 * bLen;
    const direct: Uint8Array[] = [];
    const directNibbles: number[] = [];
    for (let n = 0, i = lo; n < 16; n++) {
      let j = i;
      while (j < hi && nibbleAt(this.changed[j], bLen) === n) j++;
      ends[e0 + n] = j;
      const bit = 1 << n;
      if (j > i && node.stateMask & node.treeMask & node.hashMask & bit) {
        path[bLen] = n;
        direct.push(nodeKey(this.view, path, bLen + 1));
        directNibbles.push(n);
      }
      i = j;
    }
    const records = direct.length === 0 ? [] : this.records(direct);
    const outer = this.win;
    const outerDepth = this.winDepth;
    const outerBounded = this.winBounded;
    const outerRanges = this.winRanges;
    this.win = null;
    this.winDepth = bLen;
    this.winBounded = node.treeMask === 0;
    this.winRanges = 0;
    try {
      this.children(bLen, node, lo, hash, hashAt, direct, directNibbles, records);
    } finally {
      this.win = outer;
      this.winDepth = outerDepth;
      this.winBounded = outerBounded;
      this.winRanges = outerRanges;
    }
  }

  /** `branch`'s walk over the children, once the stored children's records are read. */
  private children(
    bLen: number,
    node: BranchNodeCompact,
    lo: number,
    hash: Uint8Array | null,
    hashAt: number,
    direct: Uint8Array[],
    directNibbles: number[],
    records: (Uint8Array | undefined)[],
  ): void {
    const path = this.path;
    const ends = this.ends;
    const e0 = 16 * bLen;
    // Refs of leaves and extensions need the branch to stay where it is: two children that keep a
    // key guarantee it (unchanged ones, and changed ones where a changed key has a row now).
    let cached: BottomBranch | undefined;
    let unchanged = 0;
    let kept = 0;
    let leafish = 0;
    let changedPlain = 0;
    const plain = node.stateMask & ~node.hashMask & ~node.treeMask;
    const unnamed = node.stateMask & ~node.hashMask;
    for (let n = 0, i = lo; n < 16; n++) {
      if (ends[e0 + n] === i) {
        if ((node.stateMask >> n) & 1) unchanged++;
        leafish |= unnamed & (1 << n);
      } else {
        changedPlain |= plain & (1 << n);
        if (this.keepsKey(i, ends[e0 + n])) kept++;
      }
      i = ends[e0 + n];
    }
    const refsOk = unchanged + kept >= 2;
    // (a cache lookup is worth it for an unchanged child the record names by no hash: a leaf, or an
    // extension, whose subtrie would be read; and for a changed leaf: the key it had is read by
    // exact key with the changes, instead of its range).
    if (hash !== null && this.bottoms !== null && ((refsOk && leafish !== 0) || changedPlain !== 0)) {
      cached = this.bottoms.take(path, bLen, hash, hashAt);
    }
    let d = 0;
    let i = lo;
    for (let n = 0; n < 16; n++) {
      const j = ends[e0 + n];
      const bit = 1 << n;
      path[bLen] = n;
      const cLen = bLen + 1;
      const present = (node.stateMask & bit) !== 0;
      const inTree = (node.treeMask & bit) !== 0;
      if (i === j) {
        if (present) {
          if (node.leafMask & bit) {
            if (refsOk) {
              this.builder.addLeafHashRef(path, cLen, node.hashes, hashOffset(node, n));
              this.leafRefs++;
            } else {
              this.leaves(leafLower(this.view, path, cLen), leafUpper(this.view, path, cLen));
            }
          } else if (node.hashMask & bit) {
            const off = hashOffset(node, n);
            this.builder.addBranchRef(path, node.hashes.subarray(off, off + 32), inTree, cLen);
            this.refsAdded++;
          } else if (refsOk && cached !== undefined && ((cached.leafMask | cached.nodeMask) & bit) !== 0) {
            this.heldRef(cached, n, cLen, inTree);
          } else if (inTree) {
            this.subtrie(cLen, i, i);
          } else {
            this.leaves(leafLower(this.view, path, cLen), leafUpper(this.view, path, cLen));
          }
        }
      } else if (present && (node.leafMask & bit) !== 0 && this.hadRow(i, j)) {
        // The child was one leaf, and a changed key here had a row: that key was the leaf.
        this.known(i, j);
      } else if (present && !inTree && this.bottoms !== null && (node.hashMask & ~node.leafMask & bit) !== 0) {
        const e = this.bottoms.take(path, cLen, node.hashes, hashOffset(node, n));
        if (e === undefined || !allHeld(e)) {
          this.leaves(leafLower(this.view, path, cLen), leafUpper(this.view, path, cLen));
        } else {
          this.bottom(cLen, e, i, j);
        }
      } else if (!present && (this.changedRows !== null || this.bottoms !== null)) {
        // No key was under this child: its keys now are the changed ones that exist (their rows
        // already read with `created`, else read here by exact key).
        if (this.changedRows !== null) this.known(i, j);
        else this.exact(i, j, null);
      } else if (present && !inTree && cached !== undefined && (cached.leafMask & bit) !== 0) {
        // A leaf was here: it and the changed keys, by exact key.
        this.exact(i, j, bottomKey(cached, n));
      } else if (present && inTree) {
        let known: Uint8Array | undefined;
        if (d < directNibbles.length && directNibbles[d] === n) {
          known = records[d];
          if (known !== undefined) {
            this.visited.set(bytesKey(direct[d]), known);
            this.nodesRead++;
          }
          d++;
        }
        if (node.hashMask & bit) this.subtrie(cLen, i, j, known, node.hashes, hashOffset(node, n));
        else this.subtrie(cLen, i, j, known);
      } else {
        this.leaves(leafLower(this.view, path, cLen), leafUpper(this.view, path, cLen));
      }
      i = j;
    }
  }

  /**
   * Emits the keys below the cached bottom branch `e` at path[0..bLen) (every child held by ref);
   * changes there are changed[lo..hi). Reads by exact key the changed keys and, under each changed
   * child, the leaf that was there; an unchanged child goes in by its ref. That ref is right only
   * while the branch stays at this path, so when fewer than two children would remain (a collapse),
   * or a change falls under an extension (whose keys the entry does not name), it reads the whole
   * range as `leaves` does.
   */
  private bottom(bLen: number, e: BottomBranch, lo: number, hi: number): void {
    const view = this.view;
    const changed = this.changed;
    // Candidate keys per changed child, ascending: the changed keys and the old leaf there.
    const cand: Uint8Array[] = [];
    const childOf: number[] = [];
    let changedMask = 0;
    for (let m = 0, i = lo; m < 16 && i < hi; m++) {
      let j = i;
      while (j < hi && nibbleAt(changed[j], bLen) === m) j++;
      if (j === i) continue;
      changedMask |= 1 << m;
      if ((e.nodeMask >> m) & 1) {
        this.leaves(leafLower(view, this.path, bLen), leafUpper(view, this.path, bLen));
        return;
      }
      this.candidates(i, j, (e.leafMask >> m) & 1 ? bottomKey(e, m) : null, cand, childOf, m);
      i = j;
    }
    const rows = getManyShared(
      this.kv,
      view.leafTable,
      cand.map((k) => leafKey(view, k)),
    );
    const values: (Uint8Array | null)[] = new Array(cand.length);
    let alive = 0;
    for (let x = 0; x < cand.length; x++) {
      const raw = rows[x];
      const v = raw === undefined ? null : this.leafValue(cand[x], raw);
      values[x] = v;
      if (v !== null) alive |= 1 << childOf[x];
    }
    this.leavesRead += cand.length;
    let kept = (e.mask & ~changedMask) | alive;
    let count = 0;
    for (; kept !== 0; kept &= kept - 1) count++;
    if (count < 2) {
      this.leaves(leafLower(view, this.path, bLen), leafUpper(view, this.path, bLen));
      return;
    }
    const path = this.path;
    const builder = this.builder;
    for (let m = 0, x = 0; m < 16; m++) {
      const bit = 1 << m;
      if (changedMask & bit) {
        for (; x < cand.length && childOf[x] === m; x++) {
          const v = values[x];
          if (v !== null) builder.addLeafBytes(cand[x], v);
        }
      } else if (e.mask & bit) {
        path[bLen] = m;
        this.heldRef(e, m, bLen + 1, false);
      }
    }
  }

  /**
   * Hangs the unchanged child `n` of the cached branch `e` at path[0..cLen) by its ref: a leaf with
   * its key, an extension or embedded branch with `inTree` (its subtrie holds stored branches).
   */
  private heldRef(e: BottomBranch, n: number, cLen: number, inTree: boolean): void {
    const at = bottomSlot(e, n);
    const d = e.data;
    if ((e.leafMask >> n) & 1) {
      this.builder.addLeafRef(this.path, cLen, d, at + 1, d[at], d, at + BOTTOM_KEY_AT);
      this.leafRefs++;
    } else {
      this.builder.addNodeRef(this.path, cLen, d, at + 1, d[at], inTree);
      this.nodeRefs++;
    }
  }

  /** Whether one of changed[lo..hi) is known to have a row now (so the child holding them stays). */
  private keepsKey(lo: number, hi: number): boolean {
    const rows = this.changedRows;
    if (rows === null) return false;
    // (an empty row is no leaf: a storage word of zero)
    for (let k = lo; k < hi; k++) if ((rows[k]?.length ?? 0) > 0) return true;
    return false;
  }

  /** Emits changed[lo..hi) that have a row now, from the rows read before the walk. */
  private known(lo: number, hi: number): void {
    const rows = this.changedRows!;
    for (let k = lo; k < hi; k++) {
      const raw = rows[k];
      this.leavesRead++;
      if (raw === undefined) continue;
      const v = this.leafValue(this.changed[k]!, raw);
      if (v !== null) this.builder.addLeafBytes(this.changed[k]!, v);
    }
  }

  /** Whether one of changed[lo..hi) is known to have had a row before the changes. */
  private hadRow(lo: number, hi: number): boolean {
    const created = this.created;
    if (created === null) return false;
    for (let k = lo; k < hi; k++) if (created[k] === 0) return true;
    return false;
  }

  /** Appends changed[lo..hi) and `old` (when not among them) in ascending order, each tagged `tag`. */
  private candidates(
    lo: number,
    hi: number,
    old: Uint8Array | null,
    cand: Uint8Array[],
    childOf: number[],
    tag: number,
  ): void {
    for (let k = lo; k < hi; k++) {
      const c = this.changed[k];
      if (old !== null) {
        const d = compareBytes(old, c);
        if (d < 0) {
          cand.push(old);
          childOf.push(tag);
        }
        if (d <= 0) old = null;
      }
      cand.push(c);
      childOf.push(tag);
    }
    if (old !== null) {
      cand.push(old);
      childOf.push(tag);
    }
  }

  /**
   * Emits the leaves of a child whose keys are known to be changed[lo..hi) and `old` (the one key it
   * had, or null for none): read by exact key, those still present go in.
   */
  private exact(lo: number, hi: number, old: Uint8Array | null): void {
    const view = this.view;
    const cand: Uint8Array[] = [];
    const tags: number[] = [];
    this.candidates(lo, hi, old, cand, tags, 0);
    const rows = getManyShared(
      this.kv,
      view.leafTable,
      cand.map((k) => leafKey(view, k)),
    );
    this.leavesRead += cand.length;
    for (let x = 0; x < cand.length; x++) {
      const raw = rows[x];
      if (raw === undefined) continue;
      const v = this.leafValue(cand[x], raw);
      if (v !== null) this.builder.addLeafBytes(cand[x], v);
    }
  }

  /**
   * The branch stored at the trie's root, read by exact key (a store that caches the node table
   * serves it without a native iterator); null when the root is no stored branch (an extension or a
   * leaf on top, or no stored nodes), which `seek` then settles.
   */
  private rootBranch(): BranchNodeCompact | null {
    const k = nodeKey(this.view, this.path, 0);
    const v = this.records([k])[0];
    if (v === undefined) return null;
    this.visited.set(bytesKey(k), v);
    this.nodesRead++;
    this.seekLen = 0;
    return decodeBranchNodeCompact(v);
  }

  /** The topmost stored branch below path[0..pLen), its path written into `path`; null when none. */
  private seek(pLen: number): BranchNodeCompact | null {
    const view = this.view;
    const range = nodeRange(view, this.path, pLen);
    let c = this.nodeCursor;
    if (c === null) c = this.nodeCursor = this.kv.cursor(view.nodeTable);
    if (!c.seek(range.gte!)) return null;
    const k = c.key;
    if (range.lt !== undefined && compareBytes(k, range.lt) >= 0) return null;
    const pre = view.nodePrefix.length;
    const bLen = k.length - pre;
    if (bLen > 64) throw new TrieError("BAD_RECORD", `stored branch path of ${bLen} nibbles`);
    for (let i = pLen; i < bLen; i++) {
      const nib = k[pre + i];
      if (nib > 15) throw new TrieError("BAD_RECORD", "stored branch path byte is not a nibble");
      this.path[i] = nib;
    }
    const v = c.value;
    this.visited.set(bytesKey(k), v);
    this.nodesRead++;
    this.seekLen = bLen;
    return decodeBranchNodeCompact(v);
  }

  /** The records at `keys` (node table), from the prefetched ones where they were read. */
  private records(keys: Uint8Array[]): (Uint8Array | undefined)[] {
    const pre = this.prefetched;
    if (pre === null) return getManyShared(this.kv, this.view.nodeTable, keys);
    const out: (Uint8Array | undefined)[] = new Array(keys.length);
    let missing: number[] | null = null;
    for (let i = 0; i < keys.length; i++) {
      const r = pre.get(bytesKey(keys[i]!));
      if (r === undefined) (missing ??= []).push(i);
      else out[i] = r ?? undefined;
    }
    if (missing !== null) {
      const got = getManyShared(
        this.kv,
        this.view.nodeTable,
        missing.map((i) => keys[i]!),
      );
      for (let x = 0; x < missing.length; x++) out[missing[x]!] = got[x];
    }
    return out;
  }

  /**
   * Reads the records `branch` will read, a depth at a time: from the root branch down, each
   * stored branch's changed children that are stored branches themselves (exactly at path ‖ n, the
   * rule of `branch`), all of one depth in one getMany. PERF (10M accounts on RocksDB, 320 changed
   * keys): ~780 getMany calls of 1–2 keys each become one per depth.
   */
  private prefetchNodes(): void {
    const rootKey = nodeKey(this.view, this.path, 0);
    const root = getShared(this.kv, this.view.nodeTable, rootKey);
    const pre = new Map<string, Uint8Array | null>();
    this.prefetched = pre;
    pre.set(bytesKey(rootKey), root ?? null);
    if (root === undefined) return;
    const changed = this.changed;
    const scratch = new Uint8Array(64);
    // A frontier entry: a stored branch at the first `len` nibbles of changed[lo], changes [lo, hi).
    let nodes: BranchNodeCompact[] = [decodeBranchNodeCompact(root)];
    let los = [0];
    let his = [changed.length];
    let len = 0;
    while (nodes.length > 0 && len < 64) {
      const keys: Uint8Array[] = [];
      const kLo: number[] = [];
      const kHi: number[] = [];
      for (let f = 0; f < nodes.length; f++) {
        const node = nodes[f]!;
        const wanted = node.stateMask & node.treeMask & node.hashMask;
        for (let i = los[f]!, hi = his[f]!; i < hi; ) {
          const n = nibbleAt(changed[i]!, len);
          let j = i + 1;
          while (j < hi && nibbleAt(changed[j]!, len) === n) j++;
          if (wanted & (1 << n)) {
            const k = changed[i]!;
            for (let d = 0; d <= len; d++) scratch[d] = nibbleAt(k, d);
            keys.push(nodeKey(this.view, scratch, len + 1));
            kLo.push(i);
            kHi.push(j);
          }
          i = j;
        }
      }
      if (keys.length === 0) break;
      const got = getManyShared(this.kv, this.view.nodeTable, keys);
      nodes = [];
      los = [];
      his = [];
      for (let x = 0; x < keys.length; x++) {
        const r = got[x];
        pre.set(bytesKey(keys[x]!), r ?? null);
        if (r === undefined) continue;
        nodes.push(decodeBranchNodeCompact(r));
        los.push(kLo[x]!);
        his.push(kHi[x]!);
      }
      len++;
    }
  }

  /**
   * Serves `leaves(gte, lt)` from the current branch's window, reading the window first when it is
   * due (see `win`); false when the range must be read from the cursor.
   */
  private fromWindow(gte: Uint8Array, lt: Uint8Array | null, pre: number): boolean {
    let w = this.win;
    if (w === null) {
      if (!this.winBounded && this.winRanges === 0) {
        this.winRanges++;
        return false;
      }
      const from = this.winBounded ? leafLower(this.view, this.path, this.winDepth) : gte;
      w = this.win = this.readWindow(from, leafUpper(this.view, this.path, this.winDepth));
    }
    if (!w.covers(gte, lt)) return false;
    const keys = w.keys;
    let i = 0;
    let j = keys.length;
    while (i < j) {
      const m = (i + j) >> 1;
      if (compareBytes(keys[m]!, gte) < 0) i = m + 1;
      else j = m;
    }
    for (; i < keys.length; i++) {
      const k = keys[i]!;
      if (lt !== null && compareBytes(k, lt) >= 0) break;
      this.emitLeaf(k, w.values[i]!, pre);
    }
    return true;
  }

  /** Up to WINDOW_ROWS leaf rows in [from, hi) (hi null: to the end), with one seek. */
  private readWindow(from: Uint8Array, hi: Uint8Array | null): LeafWindow {
    let c = this.leafCursor;
    if (c === null) c = this.leafCursor = this.kv.cursor(this.view.leafTable);
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    let complete = true;
    for (let ok = c.seek(from, WINDOW_SEEK_ROWS); ok; ok = c.next()) {
      const k = c.key;
      if (hi !== null && compareBytes(k, hi) >= 0) break;
      if (keys.length === WINDOW_ROWS) {
        complete = false;
        break;
      }
      keys.push(k);
      values.push(c.value);
    }
    return new LeafWindow(from, hi, complete, keys, values);
  }

  /**
   * Feeds the flat leaves in [gte, lt) to the builder. Ranges come in ascending order, so the cursor
   * mostly moves forward: the row that ended one range often starts the next without a native call.
   */
  private leaves(gte: Uint8Array, lt: Uint8Array | null): void {
    const view = this.view;
    const pre = view.leafPrefix.length;
    if (this.winDepth >= 0 && this.fromWindow(gte, lt, pre)) return;
    let c = this.leafCursor;
    if (c === null) c = this.leafCursor = this.kv.cursor(view.leafTable);
    for (let ok = c.seek(gte); ok; ok = c.next()) {
      const k = c.key;
      if (lt !== null && compareBytes(k, lt) >= 0) break;
      this.emitLeaf(k, c.value, pre);
    }
  }

  /** Feeds one flat leaf row (its KV key, `pre` prefix bytes in front of the 32-byte trie key) to the builder. */
  private emitLeaf(k: Uint8Array, raw: Uint8Array, pre: number): void {
    if (k.length !== pre + 32) throw new TrieError("BAD_RECORD", `flat leaf key of ${k.length - pre} bytes`);
    const key = pre === 0 ? k : k.subarray(pre);
    const value = this.leafValue(key, raw);
    this.leavesRead++;
    if (value !== null) this.builder.addLeafBytes(key, value);
  }
}

/** Fewer changed keys than this walk branch by branch (a prefetch saves calls only over many paths). */
const PREFETCH_MIN_KEYS = 8;

/**
 * Most rows a window reads: a bottom-level branch's leaves and its bottoms' (~10–20 at 10M accounts)
 * with room; a branch with more rows below it than this reads the rest range by range.
 */
const WINDOW_ROWS = 64;
/**
 * Rows a window's seek reads: a bottom-level branch's ~10–20, not more (RocksDB copies every row it
 * reads ahead, past the branch's end too); a longer window's `next`s then read twice as many each.
 */
const WINDOW_SEEK_ROWS = 16;

/** The leaf rows of a window: every row in [start, end) when `complete`, else the first WINDOW_ROWS. */
class LeafWindow {
  constructor(
    readonly start: Uint8Array,
    /** The branch's end (null: the table's). */
    readonly end: Uint8Array | null,
    readonly complete: boolean,
    readonly keys: Uint8Array[],
    readonly values: Uint8Array[],
  ) {}

  /** Every row of [gte, lt) within the branch is held. */
  covers(gte: Uint8Array, lt: Uint8Array | null): boolean {
    if (compareBytes(gte, this.start) < 0) return false;
    const end = this.end;
    if (end !== null && (lt === null || compareBytes(lt, end) > 0)) return false;
    if (this.complete) return true;
    // Partial: the rows held end at the last key, so a range ending at or below it is whole.
    const last = this.keys[this.keys.length - 1];
    return last !== undefined && lt !== null && compareBytes(lt, last) <= 0;
  }
}

/** Sorts 32-byte keys ascending and drops duplicates (the walker's `changed` input). */
export function sortUniqueKeys(keys: Iterable<Uint8Array>): Uint8Array[] {
  const list = Array.isArray(keys) ? (keys as Uint8Array[]) : [...keys];
  // PERF: a block's slots come sorted from WorldState.commitBlock; one pass finds that out.
  let ascending = true;
  for (let i = 0; i < list.length; i++) {
    const k = list[i]!;
    if (k.length !== 32) throw new TrieError("BAD_INPUT", `changed key of ${k.length} bytes (want 32)`);
    if (ascending && i > 0 && compareBytes(list[i - 1]!, k) >= 0) ascending = false;
  }
  if (ascending) return list.slice();
  const order = sortKeyOrder(list, true);
  const out: Uint8Array[] = [];
  let prev: Uint8Array | null = null;
  for (let i = 0; i < order.length; i++) {
    const k = list[order[i]!]!;
    if (prev !== null && equalBytes(prev, k)) continue;
    out.push(k);
    prev = k;
  }
  return out;
}
