/**
 * Keccak-256. Native (Opal's C addon) when loaded, @noble/hashes otherwise; both are exported so
 * differential tests and benches can run them side by side. The batched form hashes many small items
 * (trie nodes, tx sighashes) in one native call over packed input.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { native } from "../native/load.js";

export function keccak256Pure(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

export function keccak256PureBatch(packed: Uint8Array, offsets: Uint32Array, out: Uint8Array): void {
  const n = offsets.length - 1;
  for (let i = 0; i < n; i++) out.set(keccak_256(packed.subarray(offsets[i], offsets[i + 1])), 32 * i);
}

/** keccak-256 of `data` as a new 32-byte array. */
export const keccak256: (data: Uint8Array) => Uint8Array =
  native === null
    ? keccak256Pure
    : (data) => {
        const out = new Uint8Array(32);
        native!.keccak256(data, out);
        return out;
      };

/** Writes keccak-256 of `data` into `out[pos..pos+32)` without allocating (native) . */
export function keccak256Into(data: Uint8Array, out: Uint8Array, pos = 0): void {
  if (native !== null && pos === 0) native.keccak256(data, out);
  else out.set(keccak256(data), pos);
}

/**
 * keccak-256 of `mem[off..off+len)` (within `mem`) as a 256-bit word (the digest's 32 bytes read
 * big-endian), the value the EVM's KECCAK256 pushes. PERF: native hashes the slice in place and
 * builds the bigint from four limbs in one call (compute-keccak bench, bench/README.md `evm`).
 */
export const keccak256MemWord: (mem: Uint8Array, off: number, len: number) => bigint =
  native === null
    ? (mem, off, len) => {
        const d = keccak_256(mem.subarray(off, off + len));
        const v = new DataView(d.buffer, d.byteOffset, 32);
        return (
          (((v.getBigUint64(0) << 64n) | v.getBigUint64(8)) << 128n) | (v.getBigUint64(16) << 64n) | v.getBigUint64(24)
        );
      }
    : native.keccak256MemWord;

/**
 * Hashes item i = `packed[offsets[i]..offsets[i+1])` into `out[32i..32i+32)` for all i.
 * `offsets` has n+1 ascending entries; `out` defaults to a new n*32-byte buffer.
 */
export function keccak256Batch(
  packed: Uint8Array,
  offsets: Uint32Array,
  out: Uint8Array = new Uint8Array((offsets.length - 1) * 32),
): Uint8Array {
  if (native !== null) native.keccak256Batch(packed, offsets, out);
  else keccak256PureBatch(packed, offsets, out);
  return out;
}

/** Packs items into one buffer plus n+1 offsets, the input shape of keccak256Batch. */
export function packItems(items: readonly Uint8Array[]): { packed: Uint8Array; offsets: Uint32Array } {
  const offsets = new Uint32Array(items.length + 1);
  let size = 0;
  for (let i = 0; i < items.length; i++) {
    size += items[i].length;
    offsets[i + 1] = size;
  }
  const packed = new Uint8Array(size);
  for (let i = 0; i < items.length; i++) packed.set(items[i], offsets[i]);
  return { packed, offsets };
}

/** keccak-256 of the empty string, the code hash of every account without code. */
export const KECCAK256_EMPTY: Uint8Array = keccak256(new Uint8Array(0));
