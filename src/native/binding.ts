/** Typed face of the addon built from native/ by binding.gyp. Every function here has a pure-TS twin. */
export interface NativeBinding {
  /** Writes keccak-256 of `input` into `out[0..32)`. */
  keccak256(input: Uint8Array, out: Uint8Array): void;
  /** Item i is `packed[offsets[i]..offsets[i+1])`; its hash goes to `out[32i..32i+32)`. */
  keccak256Batch(packed: Uint8Array, offsets: Uint32Array, out: Uint8Array): void;
  /** Registers a scratch buffer for `keccak256Scratch` (kept alive by the addon); returns its slot. */
  keccak256ScratchInit(buf: Uint8Array): number;
  /** Hashes `buf[32..32+length)` of the buffer in `slot` into `buf[0..32)`. */
  keccak256Scratch(slot: number, length: number): void;
  /** `keccak256Scratch`, the digest also returned as a 256-bit word (big-endian bytes → bigint). */
  keccak256ScratchWord(slot: number, length: number): bigint;
}
