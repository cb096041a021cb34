/**
 * Streaming trie root from leaves given in ascending key order (the HashBuilder of reth/alloy-trie,
 * itself after Erigon's GenStructStep). Memory is O(depth): a stack of child refs and, per depth, the
 * masks of the branch being assembled. Besides leaves it takes `addBranchRef(path, hash)`: an
 * unchanged stored branch standing in for its whole subtrie, which is what makes incremental state
 * roots cheap. Optionally it reports every branch it builds that is worth storing (BranchNodeCompact,
 * see branchNodeCompact.ts) and feeds a ProofRetainer.
 *
 * Keys must be prefix-free (fixed-length hashed keys, rlp(index) keys); the in-memory trie covers the
 * general case. Refs on the stack are kept as they appear inside a parent node: embedded RLP
 * (< 32 bytes) or 0xa0 ‖ hash (33 bytes), in one flat buffer so a leaf costs no allocation.
 * Nodes of 32 bytes or more are encoded straight into a pending arena and hashed in one
 * keccak256Batch call the next time the stack is read (when a branch or extension closes), so the
 * native boundary is crossed once per branch rather than once per node.
 */
import { keccak256, keccak256Batch } from "../crypto/keccak.js";
import { headerLength, writeHeader } from "../rlp/encode.js";
import { BOTTOM_SLOT, type BottomCache, bottomCacheHash, bottomCachePrefix, writeBottomSlot } from "./bottomCache.js";
import type { BranchNodeCompact } from "./branchNodeCompact.js";
import { TrieError } from "./errors.js";
import { EMPTY_TRIE_ROOT, pathStringLength } from "./node.js";
import type { ProofRetainer } from "./proofRetainer.js";

/** A branch node the builder assembled, at nibble path `path`. */
export interface BranchUpdate {
  readonly path: Uint8Array;
  readonly node: BranchNodeCompact;
  /** `node` in the stored record layout (encodeBranchNodeCompact); `node.hashes` is a view into it. */
  readonly record: Uint8Array;
}

/**
 * Records are carved out of shared arenas: a typed array above 64 bytes gets its own off-heap
 * backing store, which costs more than encoding the record. Arena memory handed out is never reused.
 */
const ARENA_BYTES = 64 * 1024;

export interface HashBuilderOptions {
  /** Collect the storable branch nodes (see `takeUpdates`). */
  updates?: boolean;
  /** Keep the nodes on the paths of the retainer's targets. */
  retainer?: ProofRetainer | null;
  /**
   * Put every hashed branch with children held by ref (leaves with 32-byte keys, extensions,
   * embedded branches) into this cache (bottomCache.ts).
   */
  bottoms?: BottomCache | null;
  /**
   * Keep the hashes of hashed leaf children in the records too (hashMask and leafMask, see
   * branchNodeCompact.ts): the account trie's layout.
   */
  leafHashes?: boolean;
}

/** A bottom branch waiting for its hash (the next flush) before it goes into the cache. */
interface PendingBottom {
  /** The cache key's path part (bottomCacheKey without the hash). */
  readonly prefix: string;
  readonly mask: number;
  readonly leafMask: number;
  readonly nodeMask: number;
  readonly treeMask: number;
  readonly data: Uint8Array;
}

const SLOT = 33;
/** stackLens marker of a slot whose node waits in the pending arena for its hash. */
const PENDING = 255;

/** Copies `src[from..from+len)` into `dst` at `pos`; a loop beats TypedArray#set for short runs. */
function copyBytes(src: Uint8Array, from: number, len: number, dst: Uint8Array, pos: number): void {
  if (len > 48) {
    dst.set(src.subarray(from, from + len), pos);
    return;
  }
  for (let i = 0; i < len; i++) dst[pos + i] = src[from + i];
}

/** Writes an RLP string header for `len` payload bytes (the value of a leaf); returns the position after. */
function writeStringHeader(out: Uint8Array, pos: number, len: number, firstByte: number): number {
  if (len === 1 && firstByte < 0x80) return pos;
  return writeHeader(out, pos, len, 0x80);
}

/** A copy of `a` in an array twice as long. */
function doubled(a: Uint8Array): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(a.length * 2);
  b.set(a);
  return b;
}

function stringLen(len: number, firstByte: number): number {
  return len === 1 && firstByte < 0x80 ? 1 : headerLength(len) + len;
}

export class HashBuilder {
  // Current (last added) item: key nibbles and either a leaf value or a branch hash.
  private key = new Uint8Array(64);
  private keyLen = 0;
  private hasKey = false;
  private leafValue: Uint8Array | null = null;
  private valueStart = 0;
  private valueEnd = 0;
  private readonly refHash = new Uint8Array(32);
  private refInTree = false;
  /**
   * The current item is given by its ref (addLeafRef, addLeafHashRef, addNodeRef):
   * `heldRef[0..heldRefLen)`, for a leaf (`refLeaf`), with key `leafRefKey` when `refHasKey`.
   */
  private refHeld = false;
  private refLeaf = false;
  private refHasKey = false;
  private readonly heldRef = new Uint8Array(SLOT);
  private heldRefLen = 0;
  private readonly leafRefKey = new Uint8Array(32);

  // Stack of child refs: item i is stack[SLOT*i .. SLOT*i + stackLens[i]), or PENDING.
  private stack = new Uint8Array(SLOT * 128);
  private stackLens = new Uint8Array(128);
  private sp = 0;

  // Nodes waiting for their hash: node j is pend[pendOffs[j]..pendOffs[j+1]), for stack slot pendSlot[j].
  private pend = new Uint8Array(16384);
  private pendOffs = new Uint32Array(129);
  private pendSlot = new Int32Array(128);
  private pendCount = 0;
  private pendHashes = new Uint8Array(32 * 128);

  // Per depth d: children seen so far of the branch at depth d (the "groups"), and which of those
  // children are stored subtries (tree) or hashed branches (hash).
  private stateMasks: Uint16Array = new Uint16Array(65);
  private groupsLen = 0;
  private treeMasks: Uint16Array = new Uint16Array(65);
  private hashMasks: Uint16Array = new Uint16Array(65);
  private masksLen = 0;
  /** Per depth: children of the branch being assembled that are leaves hanging right below it. */
  private leafKids: Uint16Array = new Uint16Array(65);

  // With a bottom cache: the packed 32-byte key of each stack item that is a leaf (slotHasKey 1).
  private slotKeys = new Uint8Array(32 * 128);
  private slotHasKey = new Uint8Array(128);
  private pendBottoms: (PendingBottom | undefined)[] = [];
  private readonly bottoms: BottomCache | null;

  private scratchKey = new Uint8Array(64);
  private readonly hashRef = new Uint8Array(SLOT);
  private updates: BranchUpdate[] | null;
  private arena: Uint8Array | null = null;
  private arenaPos = 0;
  private readonly retainer: ProofRetainer | null;
  private readonly leafHashes: boolean;

  constructor(opts: HashBuilderOptions = {}) {
    this.updates = opts.updates === true ? [] : null;
    this.retainer = opts.retainer ?? null;
    this.bottoms = opts.bottoms ?? null;
    this.leafHashes = opts.leafHashes === true;
  }

  /** The options a pool files this builder under; null for one with a retainer (not pooled). */
  poolKind(): PoolKind | null {
    return this.retainer === null
      ? { updates: this.updates !== null, bottoms: this.bottoms, leafHashes: this.leafHashes }
      : null;
  }

  /** Clears all state for another run (keeps buffers and options). */
  reset(): void {
    this.keyLen = 0;
    this.hasKey = false;
    this.leafValue = null;
    this.sp = 0;
    this.pendCount = 0;
    this.groupsLen = 0;
    this.masksLen = 0;
    this.pendBottoms.length = 0;
    if (this.updates !== null) this.updates = [];
  }

  /**
   * Adds a leaf at nibble path `path[0..len)` with value bytes `value[vStart..vEnd)` (e.g. account
   * RLP). The value is read when the next item arrives, so it must not change until then.
   */
  addLeaf(path: Uint8Array, value: Uint8Array, len = path.length, vStart = 0, vEnd = value.length): void {
    if (len === 0) throw new TrieError("UNSORTED_KEYS", "HashBuilder: empty leaf key");
    this.advance(path, len);
    this.copyKey(path, len);
    this.setLeaf(value, vStart, vEnd);
  }

  /** Adds a leaf keyed by the bytes `key[kStart..kEnd)`; see addLeaf for the value. */
  addLeafBytes(
    key: Uint8Array,
    value: Uint8Array,
    kStart = 0,
    kEnd = key.length,
    vStart = 0,
    vEnd = value.length,
  ): void {
    const len = 2 * (kEnd - kStart);
    if (len === 0) throw new TrieError("UNSORTED_KEYS", "HashBuilder: empty leaf key");
    if (this.scratchKey.length < len) this.scratchKey = new Uint8Array(Math.max(len, 2 * this.scratchKey.length));
    const s = this.scratchKey;
    for (let i = kStart, j = 0; i < kEnd; i++, j += 2) {
      s[j] = key[i] >> 4;
      s[j + 1] = key[i] & 15;
    }
    this.advance(s, len);
    // Swap buffers instead of copying: the unpacked key becomes the current key.
    this.scratchKey = this.key;
    this.key = s;
    this.keyLen = len;
    this.hasKey = true;
    this.ensureDepth(len + 1);
    this.setLeaf(value, vStart, vEnd);
  }

  /**
   * Adds an unchanged branch node at `path` by its 32-byte hash, standing in for every key below
   * `path`. `inTree` says whether its subtrie holds stored branch nodes (the parent's tree mask bit).
   */
  addBranchRef(path: Uint8Array, hash: Uint8Array, inTree: boolean, len = path.length): void {
    if (len === 0) {
      if (this.hasKey || this.sp !== 0) throw new TrieError("UNSORTED_KEYS", "HashBuilder: root ref after items");
      this.pushHashRef(hash, 0);
      return;
    }
    this.advance(path, len);
    this.copyKey(path, len);
    this.leafValue = null;
    this.refHeld = false;
    copyBytes(hash, 0, 32, this.refHash, 0);
    this.refInTree = inTree;
  }

  /**
   * Adds an unchanged leaf at `path[0..len)` by its ref as its branch holds it (`ref[from..from+
   * refLen)`: 0xa0 ‖ hash, or the embedded node), with its 32-byte key at `key[kFrom..)`. The leaf
   * must hang right below a branch at depth len − 1 that keeps at least one other child, so that
   * its node (whose path is the key after that branch) is unchanged; the walker guarantees it.
   */
  addLeafRef(
    path: Uint8Array,
    len: number,
    ref: Uint8Array,
    from: number,
    refLen: number,
    key: Uint8Array,
    kFrom: number,
  ): void {
    this.addHeldRef(path, len, ref, from, refLen, true, true);
    copyBytes(key, kFrom, 32, this.leafRefKey, 0);
  }

  /**
   * Adds an unchanged leaf at `path[0..len)` by the hash its branch's record keeps
   * (`hash[from..from+32)`), its key unknown. Like addLeafRef, the branch it hangs from must stay.
   */
  addLeafHashRef(path: Uint8Array, len: number, hash: Uint8Array, from: number): void {
    const ref = this.hashRef;
    ref[0] = 0xa0;
    copyBytes(hash, from, 32, ref, 1);
    this.addHeldRef(path, len, ref, 0, SLOT, true, false);
  }

  /**
   * Adds an unchanged extension or embedded branch at `path[0..len)` by its ref as its branch holds
   * it (`ref[from..from+refLen)`). `inTree`: its subtrie holds stored branches (the parent's tree
   * mask bit). Like addLeafRef, it must hang right below a branch that stays, with its node unchanged.
   */
  addNodeRef(path: Uint8Array, len: number, ref: Uint8Array, from: number, refLen: number, inTree: boolean): void {
    this.addHeldRef(path, len, ref, from, refLen, false, false);
    this.refInTree = inTree;
  }

  /** The item at `path[0..len)` given by its ref; a leaf when `leaf`, its key given when `hasKey`. */
  private addHeldRef(
    path: Uint8Array,
    len: number,
    ref: Uint8Array,
    from: number,
    refLen: number,
    leaf: boolean,
    hasKey: boolean,
  ): void {
    if (len === 0 || refLen === 0 || refLen > SLOT) throw new TrieError("BAD_INPUT", "HashBuilder: bad held ref");
    this.advance(path, len);
    this.copyKey(path, len);
    this.leafValue = null;
    this.refHeld = true;
    this.refLeaf = leaf;
    this.refHasKey = hasKey;
    copyBytes(ref, from, refLen, this.heldRef, 0);
    this.heldRefLen = refLen;
  }

  /** Root hash of everything added; the builder is then finished (call `reset` to reuse). */
  root(): Uint8Array {
    if (this.hasKey) {
      this.fold(0, 0);
      this.hasKey = false;
    }
    this.flush();
    if (this.sp === 0) return EMPTY_TRIE_ROOT;
    const off = SLOT * (this.sp - 1);
    const len = this.stackLens[this.sp - 1];
    if (len === SLOT) return this.stack.slice(off + 1, off + SLOT);
    return keccak256(this.stack.subarray(off, off + len));
  }

  /**
   * Finishes as the child of a branch at depth 0: every key added must share its first nibble, and
   * the result is the ref of the node in that slot (embedded RLP or 0xa0 ‖ hash, as in the parent).
   * Used to hash first-nibble groups separately (parallel.ts).
   */
  childRef(): Uint8Array {
    if (!this.hasKey) throw new TrieError("BAD_INPUT", "HashBuilder.childRef: no items");
    // Fold against a virtual one-nibble sibling that differs in the first nibble: one item remains.
    this.fold(1, 0);
    this.hasKey = false;
    this.flush();
    if (this.sp !== 1) throw new TrieError("BAD_INPUT", "HashBuilder.childRef: keys span several first nibbles");
    return this.stack.slice(0, this.stackLens[0]);
  }

  /** The branch nodes built so far that are worth storing (empty unless `updates` was set). */
  takeUpdates(): BranchUpdate[] {
    const u = this.updates ?? [];
    if (this.updates !== null) this.updates = [];
    return u;
  }

  // ---- internals ----

  private setLeaf(value: Uint8Array, vStart: number, vEnd: number): void {
    this.refHeld = false;
    this.leafValue = value;
    this.valueStart = vStart;
    this.valueEnd = vEnd;
  }

  private copyKey(path: Uint8Array, len: number): void {
    if (this.key.length < len) this.key = new Uint8Array(Math.max(len, 2 * this.key.length));
    copyBytes(path, 0, len, this.key, 0);
    this.keyLen = len;
    this.hasKey = true;
    this.ensureDepth(len + 1);
  }

  /** Checks order against the current item and folds it into the stack. */
  private advance(next: Uint8Array, len: number): void {
    if (!this.hasKey) {
      if (this.sp !== 0) throw new TrieError("UNSORTED_KEYS", "HashBuilder: item after a root ref");
      return;
    }
    const cur = this.key;
    const m = Math.min(len, this.keyLen);
    let cpl = 0;
    while (cpl < m && cur[cpl] === next[cpl]) cpl++;
    if (cpl === m || next[cpl] < cur[cpl]) {
      throw new TrieError("UNSORTED_KEYS", "HashBuilder: keys must be ascending and prefix-free");
    }
    this.fold(len, cpl);
  }

  private ensureDepth(n: number): void {
    if (this.stateMasks.length >= n) return;
    const grow = (a: Uint16Array): Uint16Array => {
      const b = new Uint16Array(Math.max(n, 2 * a.length));
      b.set(a);
      return b;
    };
    this.stateMasks = grow(this.stateMasks);
    this.treeMasks = grow(this.treeMasks);
    this.hashMasks = grow(this.hashMasks);
    this.leafKids = grow(this.leafKids);
  }

  private setMasksLen(n: number): void {
    if (n > this.masksLen) {
      this.treeMasks.fill(0, this.masksLen, n);
      this.hashMasks.fill(0, this.masksLen, n);
    }
    this.masksLen = n;
  }

  /** Makes room for one more stack item; returns its byte offset. */
  private reserveStack(): number {
    if (this.sp === this.stackLens.length) {
      this.stack = doubled(this.stack);
      this.stackLens = doubled(this.stackLens);
      if (this.bottoms !== null) {
        this.slotKeys = doubled(this.slotKeys);
        this.slotHasKey = doubled(this.slotHasKey);
      }
    }
    if (this.bottoms !== null) this.slotHasKey[this.sp] = 0;
    return SLOT * this.sp;
  }

  private pushHashRef(hash: Uint8Array, from: number): void {
    const off = this.reserveStack();
    this.stack[off] = 0xa0;
    copyBytes(hash, from, 32, this.stack, off + 1);
    this.stackLens[this.sp++] = SLOT;
  }

  /**
   * Returns where to write a node of `total` bytes: the pending arena when it will be hashed (then
   * `finishNode` queues it), else the scratch area at the end of the arena for an embedded node.
   */
  private nodeTarget(total: number): number {
    const used = this.pendOffs[this.pendCount];
    if (this.pend.length < used + total) {
      const p = new Uint8Array(Math.max(2 * this.pend.length, used + total));
      p.set(this.pend.subarray(0, used));
      this.pend = p;
    }
    return used;
  }

  /** Pushes the node just written at `pend[at..at+total)`: embedded when short, else queued for hashing. */
  private finishNode(at: number, total: number): void {
    const off = this.reserveStack();
    if (total < 32) {
      copyBytes(this.pend, at, total, this.stack, off);
      this.stackLens[this.sp++] = total;
      return;
    }
    const j = this.pendCount;
    if (j + 1 === this.pendSlot.length) {
      const s = new Int32Array(2 * this.pendSlot.length);
      s.set(this.pendSlot);
      this.pendSlot = s;
      const o = new Uint32Array(2 * this.pendSlot.length + 1);
      o.set(this.pendOffs);
      this.pendOffs = o;
      this.pendHashes = new Uint8Array(32 * this.pendSlot.length);
    }
    this.pendSlot[j] = this.sp;
    this.pendOffs[j + 1] = at + total;
    this.pendCount = j + 1;
    this.stackLens[this.sp++] = PENDING;
  }

  /** Hashes every pending node in one batch and writes the refs into their stack slots. */
  private flush(): void {
    const n = this.pendCount;
    if (n === 0) return;
    const hashes = this.pendHashes;
    keccak256Batch(this.pend, this.pendOffs.subarray(0, n + 1), hashes);
    if (this.bottoms !== null && this.pendBottoms.length > 0) this.cacheBottoms(n, hashes);
    const stack = this.stack;
    for (let j = 0; j < n; j++) {
      const slot = this.pendSlot[j];
      const off = SLOT * slot;
      stack[off] = 0xa0;
      for (let i = 0, h = 32 * j; i < 32; i++) stack[off + 1 + i] = hashes[h + i];
      this.stackLens[slot] = SLOT;
    }
    this.pendCount = 0;
  }

  /**
   * Closes the current item against its successor, a key of `succLen` nibbles (0 at the end) sharing
   * `cplFull` leading nibbles with it, building every branch and extension that can no longer grow.
   */
  private fold(succLen: number, cplFull: number): void {
    const cur = this.key;
    let curLen = this.keyLen;
    let buildExtensions = false;
    for (;;) {
      const precedingExists = this.groupsLen > 0;
      const precedingLen = precedingExists ? this.groupsLen - 1 : 0;
      const cpl = Math.min(cplFull, curLen);
      const len = Math.max(precedingLen, cpl);
      // Depth `len` is the branch this node hangs from, at child cur[len].
      if (this.groupsLen <= len) {
        this.stateMasks.fill(0, this.groupsLen, len + 1);
        this.leafKids.fill(0, this.groupsLen, len + 1);
        this.groupsLen = len + 1;
      }
      this.stateMasks[len] |= 1 << cur[len];
      if (this.masksLen < curLen) this.setMasksLen(curLen);
      // The node's own path starts after the branch nibble, unless it is the whole trie.
      const lenFrom = succLen > 0 || precedingExists ? len + 1 : len;

      if (!buildExtensions) {
        if (this.leafValue !== null) {
          this.encodeLeafNode(cur, lenFrom, curLen);
          if (lenFrom === len + 1) this.leafKids[len] |= 1 << cur[len];
        } else if (this.refHeld) {
          if (lenFrom !== curLen) throw new TrieError("BAD_INPUT", "HashBuilder: a held ref whose branch collapsed");
          this.pushHeldRef();
          if (this.refLeaf) this.leafKids[len] |= 1 << cur[len];
          else if (this.refInTree) this.treeMasks[len] |= 1 << cur[len];
        } else {
          this.pushHashRef(this.refHash, 0);
          const bit = 1 << cur[curLen - 1];
          if (this.refInTree) this.treeMasks[curLen - 1] |= bit;
          this.hashMasks[curLen - 1] |= bit;
          buildExtensions = true;
        }
      }

      if (buildExtensions && lenFrom < curLen) {
        if (lenFrom > 0) {
          // The slot now holds an extension: not a hashed branch, but a stored subtrie if below was.
          const flag = 1 << cur[lenFrom - 1];
          this.hashMasks[lenFrom - 1] &= ~flag;
          if (this.treeMasks[curLen - 1] !== 0) this.treeMasks[lenFrom - 1] |= flag;
        }
        this.encodeExtensionNode(cur, lenFrom, curLen);
        this.setMasksLen(lenFrom);
      }

      if (precedingLen <= cpl && succLen > 0) return;

      if (succLen > 0 || precedingExists) this.encodeBranchNode(cur, len);

      this.groupsLen = len;
      this.setMasksLen(len);
      if (precedingLen === 0) return;
      curLen = precedingLen;
      while (this.groupsLen > 0 && this.stateMasks[this.groupsLen - 1] === 0) this.groupsLen--;
      buildExtensions = true;
    }
  }

  /** Writes the hex-prefix path string of `path[start..end)`; returns the position after. */
  private writePath(out: Uint8Array, pos: number, path: Uint8Array, start: number, end: number, flag: number): number {
    const len = end - start;
    const cl = (len >> 1) + 1;
    if (cl > 1) pos = writeHeader(out, pos, cl, 0x80);
    let i = start;
    if (len & 1) out[pos++] = flag | 0x10 | path[i++];
    else out[pos++] = flag;
    for (; i < end; i += 2) out[pos++] = (path[i] << 4) | path[i + 1];
    return pos;
  }

  private encodeLeafNode(path: Uint8Array, start: number, end: number): void {
    const v = this.leafValue!;
    const vs = this.valueStart;
    const vLen = this.valueEnd - vs;
    const first = vLen > 0 ? v[vs] : 0;
    const payload = pathStringLength(end - start) + stringLen(vLen, first);
    const total = headerLength(payload) + payload;
    const at = this.nodeTarget(total);
    const out = this.pend;
    let pos = writeHeader(out, at, payload, 0xc0);
    pos = this.writePath(out, pos, path, start, end, 0x20);
    pos = writeStringHeader(out, pos, vLen, first);
    copyBytes(v, vs, vLen, out, pos);
    if (this.retainer !== null) this.retainer.retain(path, start, out.subarray(at, at + total));
    this.finishNode(at, total);
    if (this.bottoms !== null && end === 64) this.noteLeafKey(path);
  }

  /** Records the key of the leaf just pushed (64 nibbles) in its stack slot. */
  private noteLeafKey(path: Uint8Array): void {
    const slot = this.sp - 1;
    const k = this.slotKeys;
    for (let i = 0, o = 32 * slot; i < 32; i++) k[o + i] = (path[2 * i] << 4) | path[2 * i + 1];
    this.slotHasKey[slot] = 1;
  }

  /** Pushes the current held ref (addLeafRef, addNodeRef) as a finished stack item. */
  private pushHeldRef(): void {
    const off = this.reserveStack();
    const len = this.heldRefLen;
    copyBytes(this.heldRef, 0, len, this.stack, off);
    const slot = this.sp++;
    this.stackLens[slot] = len;
    if (this.bottoms !== null && this.refHasKey) {
      copyBytes(this.leafRefKey, 0, 32, this.slotKeys, 32 * slot);
      this.slotHasKey[slot] = 1;
    }
  }

  /** Puts the bottom branches hashed by this flush (`hashes` of pending nodes 0..n) into the cache. */
  private cacheBottoms(n: number, hashes: Uint8Array): void {
    const pb = this.pendBottoms;
    for (let j = 0; j < n && j < pb.length; j++) {
      const b = pb[j];
      if (b === undefined) continue;
      this.bottoms!.set(b.prefix + bottomCacheHash(hashes, 32 * j), {
        mask: b.mask,
        leafMask: b.leafMask,
        nodeMask: b.nodeMask,
        treeMask: b.treeMask,
        data: b.data,
      });
    }
    pb.length = 0;
  }

  /**
   * The cache entry for the branch at `path[0..len)` with children `first..sp` on the stack: its
   * children that are not branches named by hash (refs, and keys of the leaves); null when it has
   * none, or a leaf child without a recorded key.
   */
  private bottomOf(path: Uint8Array, len: number, mask: number, first: number): PendingBottom | null {
    const leafMask = this.leafKids[len] & mask;
    const nodeMask = mask & ~leafMask & ~this.hashMasks[len];
    const held = leafMask | nodeMask;
    if (held === 0) return null;
    let count = 0;
    for (let j = first, i = 0; i < 16; i++) {
      if (!(mask & (1 << i))) continue;
      if (held & (1 << i)) {
        if (leafMask & (1 << i) && this.slotHasKey[j] !== 1) return null;
        count++;
      }
      j++;
    }
    const data = new Uint8Array(BOTTOM_SLOT * count);
    for (let j = first, i = 0, k = 0; i < 16; i++) {
      if (!(mask & (1 << i))) continue;
      if (held & (1 << i)) {
        const key = leafMask & (1 << i) ? this.slotKeys : null;
        writeBottomSlot(data, k++, this.stack, SLOT * j, this.stackLens[j], key, 32 * j);
      }
      j++;
    }
    const treeMask = nodeMask & this.treeMasks[len];
    return { prefix: bottomCachePrefix(path, len), mask, leafMask, nodeMask, treeMask, data };
  }

  private encodeExtensionNode(path: Uint8Array, start: number, end: number): void {
    this.flush();
    const top = this.sp - 1;
    const childLen = this.stackLens[top];
    const payload = pathStringLength(end - start) + childLen;
    const total = headerLength(payload) + payload;
    const at = this.nodeTarget(total);
    const out = this.pend;
    let pos = writeHeader(out, at, payload, 0xc0);
    pos = this.writePath(out, pos, path, start, end, 0);
    copyBytes(this.stack, SLOT * top, childLen, out, pos);
    if (this.retainer !== null) this.retainer.retain(path, start, out.subarray(at, at + total));
    this.sp = top;
    this.finishNode(at, total);
  }

  /** Builds the branch at depth `len` from its children on top of the stack. */
  private encodeBranchNode(path: Uint8Array, len: number): void {
    this.flush();
    const mask = this.stateMasks[len];
    let count = 0;
    for (let m = mask; m !== 0; m &= m - 1) count++;
    const first = this.sp - count;
    let payload = 1 + (16 - count);
    for (let i = first; i < this.sp; i++) payload += this.stackLens[i];
    const total = headerLength(payload) + payload;
    const at = this.nodeTarget(total);
    const out = this.pend;
    let pos = writeHeader(out, at, payload, 0xc0);
    let j = first;
    for (let i = 0; i < 16; i++) {
      if (mask & (1 << i)) {
        const l = this.stackLens[j];
        copyBytes(this.stack, SLOT * j, l, out, pos);
        pos += l;
        j++;
      } else {
        out[pos++] = 0x80;
      }
    }
    out[pos] = 0x80;
    if (this.retainer !== null) this.retainer.retain(path, len, out.subarray(at, at + total));

    // A branch referenced by hash is a hashed child of its parent (an embedded one is not: it is
    // rebuilt from its leaves, which are then embedded too).
    const bit = len > 0 ? 1 << path[len - 1] : 0;
    if (len > 0 && total >= 32) this.hashMasks[len - 1] |= bit;
    // Its hashed leaf children, whose hashes the record keeps too (account trie).
    let leafMask = 0;
    if (this.leafHashes) {
      const kids = this.leafKids[len] & mask;
      for (let i = 0, j = first; i < 16; i++) {
        if (!(mask & (1 << i))) continue;
        if (kids & (1 << i) && this.stackLens[j] === SLOT) leafMask |= 1 << i;
        j++;
      }
      this.hashMasks[len] |= leafMask;
    }
    if (this.treeMasks[len] !== 0 || this.hashMasks[len] !== 0) {
      if (len > 0) this.treeMasks[len - 1] |= bit;
      if (this.updates !== null) this.recordUpdate(path, len, mask, first, leafMask);
    }
    // The root branch too (len 0): its hash is the trie's root, which the next walk is given.
    const bottom = this.bottoms !== null && total >= 32 ? this.bottomOf(path, len, mask, first) : null;
    this.sp = first;
    this.finishNode(at, total);
    if (bottom !== null) this.pendBottoms[this.pendCount - 1] = bottom;
  }

  private recordUpdate(path: Uint8Array, len: number, mask: number, first: number, leafMask: number): void {
    const hashMask = this.hashMasks[len];
    const treeMask = this.treeMasks[len];
    let n = 0;
    for (let m = hashMask; m !== 0; m &= m - 1) n++;
    const size = 6 + 32 * n + (leafMask !== 0 ? 2 : 0);
    let arena = this.arena;
    if (arena === null || this.arenaPos + size > arena.length) {
      arena = this.arena = new Uint8Array(ARENA_BYTES);
      this.arenaPos = 0;
    }
    const at = this.arenaPos;
    this.arenaPos = at + size;
    const record = arena.subarray(at, at + size);
    record[0] = mask >> 8;
    record[1] = mask & 0xff;
    record[2] = treeMask >> 8;
    record[3] = treeMask & 0xff;
    record[4] = hashMask >> 8;
    record[5] = hashMask & 0xff;
    const stack = this.stack;
    let j = first;
    let h = at + 6;
    for (let i = 0; i < 16; i++) {
      if (!(mask & (1 << i))) continue;
      if (hashMask & (1 << i)) {
        const from = SLOT * j + 1;
        for (let b = 0; b < 32; b++) arena[h + b] = stack[from + b];
        h += 32;
      }
      j++;
    }
    if (leafMask !== 0) {
      arena[h] = leafMask >> 8;
      arena[h + 1] = leafMask & 0xff;
    }
    this.updates!.push({
      path: path.slice(0, len),
      node: { stateMask: mask, treeMask, hashMask, leafMask, hashes: record.subarray(6, 6 + 32 * n) },
      record,
    });
  }
}

/**
 * Builders kept for reuse, by their options (`updates`, `bottoms`; a builder with a retainer is
 * never pooled). PERF: a new builder allocates its ~30 KB of typed arrays (~11–15 µs), a third of a
 * 21-item tx or receipts root (~40 µs); an L2 block's import makes half a dozen (tx and receipts
 * roots, the account trie, each changed storage trie). At most POOLED_PER_KIND wait per kind.
 */
const POOLED_PER_KIND = 4;

/** The options that tell pooled builders apart. */
interface PoolKind {
  readonly updates: boolean;
  readonly bottoms: BottomCache | null;
  readonly leafHashes: boolean;
}

const spares: { kind: PoolKind; free: HashBuilder[] }[] = [];

function sparesOf(kind: PoolKind): HashBuilder[] {
  for (const s of spares) {
    const k = s.kind;
    if (k.updates === kind.updates && k.bottoms === kind.bottoms && k.leafHashes === kind.leafHashes) return s.free;
  }
  const free: HashBuilder[] = [];
  spares.push({ kind, free });
  return free;
}

/**
 * A builder with these options, empty: a pooled one reset, else a new one. Hand it back with
 * `releaseHashBuilder` once its root and updates are taken (one that threw may just be dropped).
 */
export function borrowHashBuilder(
  opts: { updates?: boolean; bottoms?: BottomCache | null; leafHashes?: boolean } = {},
): HashBuilder {
  const hb = sparesOf({
    updates: opts.updates === true,
    bottoms: opts.bottoms ?? null,
    leafHashes: opts.leafHashes === true,
  }).pop();
  if (hb === undefined) return new HashBuilder(opts);
  hb.reset();
  return hb;
}

/** Returns a borrowed builder to the pool (the records it handed out stay valid: see ARENA_BYTES). */
export function releaseHashBuilder(hb: HashBuilder): void {
  const kind = hb.poolKind();
  if (kind === null) return;
  const free = sparesOf(kind);
  if (free.length < POOLED_PER_KIND) free.push(hb);
}
