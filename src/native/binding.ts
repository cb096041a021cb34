/** Typed face of the addon built from native/ by binding.gyp. Every function here has a pure-TS twin. */
export interface NativeBinding {
  /** Writes keccak-256 of `input` into `out[0..32)`. */
  keccak256(input: Uint8Array, out: Uint8Array): void;
  /** Item i is `packed[offsets[i]..offsets[i+1])`; its hash goes to `out[32i..32i+32)`. */
  keccak256Batch(packed: Uint8Array, offsets: Uint32Array, out: Uint8Array): void;
  /** keccak-256 of `mem[offset..offset+length)` as a 256-bit word (the digest read big-endian). */
  keccak256MemWord(mem: Uint8Array, offset: number, length: number): bigint;
  /** (a · b) mod n for a, b, n in [0, 2^256), n ≠ 0. */
  mulmod(a: bigint, b: bigint, n: bigint): bigint;
  /**
   * Runs EVM code from `io` = [pc, sp, gas, memSize, -, jump budget] on `stack` until an opcode it
   * leaves to the TS loop (native/src/interp.c; its twin is that loop); writes back the new pc, sp
   * and gas, the number of opcodes run (io[4]) and the budget left. `cfg` is JumpTable.nativeCfg.
   */
  evmRun(
    code: Uint8Array,
    jumpdests: Uint8Array,
    mem: Uint8Array,
    stack: bigint[],
    cfg: Int32Array,
    io: Float64Array,
  ): void;
  /**
   * Root and branch records of the trie of leaves `keys[32i..32i+32)` → `values[offsets[i]..
   * offsets[i+1])`, keys strictly ascending (else null): root ‖ count (u32 LE) ‖ per record its path
   * length, path nibbles, length (u16 BE) and bytes, in HashBuilder's order (native/src/trie.c;
   * its twin is trie/sortedTrie.ts `sortedTriePure`). With `rows`, `keys` holds 64 bytes a leaf (the
   * key is the second half) and each value is a storage word the leaf holds RLP-encoded
   * (`sortedTrieRowsPure`). With `leafHashes` (not with `rows`), the records keep hashed leaf
   * children too (the account trie's layout, branchNodeCompact.ts).
   */
  sortedTrie(
    keys: Uint8Array,
    values: Uint8Array,
    offsets: Uint32Array,
    rows?: boolean,
    leafHashes?: boolean,
  ): Uint8Array | null;
  /**
   * Writes to `out[0..32)` the root of the trie keyed by rlp(i) whose leaf i is
   * `values[offsets[i]..offsets[i+1])`: a block's transactions, receipts or withdrawals root
   * (native/src/trie.c; its twin is trie/orderedRoot.ts `orderedTrieRootPure`).
   */
  orderedTrieRoot(values: Uint8Array, offsets: Uint32Array, out: Uint8Array): void;
  /**
   * Fills `order` (one entry per key) with the permutation sorting the 32-byte keys
   * `keys[32i..32i+32)` ascending, equal keys in input order (native/src/trie.c; its twin is
   * trie/packLeaves.ts `sortPackedKeyOrderPure`).
   */
  sortKeys32(keys: Uint8Array, order: Uint32Array): void;
  /**
   * glibc's `mallopt(M_ARENA_MAX, max)`: caps malloc's per-thread arenas for arenas made from now
   * on; true when applied, false on a C library without the knob. Called once by the loader.
   */
  limitMallocArenas(max: number): boolean;
}
