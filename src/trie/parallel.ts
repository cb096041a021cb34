/**
 * Root hashing split by first nibble, shaped for worker threads (code-models §10.9): inputs and
 * outputs are plain typed arrays, so a Piscina task can take its slice of the keys by transfer.
 * Each of the 16 first-nibble groups of a sorted key set is an independent subtrie below the root
 * branch; `subtrieRefsPacked` hashes the groups present in its input down to the ref each one leaves
 * in the root branch, and `rootFromChildRefs` assembles the root from the 16 refs on the main thread.
 *
 * The root is a branch only when at least two groups are non-empty; `groupBounds` tells the caller
 * up front (keys[0] and keys[n-1] share their first nibble ⇒ one group ⇒ use trieRootPacked).
 */
import { keccak256 } from "../crypto/keccak.js";
import { headerLength, writeHeader } from "../rlp/encode.js";
import { TrieError } from "./errors.js";
import { HashBuilder } from "./hashBuilder.js";
import { EMPTY_TRIE_ROOT } from "./node.js";

/** Refs of the 16 root-branch slots: slot g is refs[33g .. 33g + lengths[g]); length 0 = empty slot. */
export interface ChildRefs {
  readonly refs: Uint8Array;
  readonly lengths: Uint8Array;
}

function checkPacked(keys: Uint8Array, values: Uint8Array, valueOffsets: Uint32Array): number {
  if (keys.length % 32 !== 0) throw new TrieError("BAD_INPUT", `keys: ${keys.length} bytes is not a multiple of 32`);
  const n = keys.length / 32;
  if (valueOffsets.length !== n + 1) {
    throw new TrieError("BAD_INPUT", `valueOffsets: ${valueOffsets.length} entries for ${n} keys (want n + 1)`);
  }
  for (let i = 0; i < n; i++) {
    if (valueOffsets[i] > valueOffsets[i + 1] || valueOffsets[i + 1] > values.length) {
      throw new TrieError("BAD_INPUT", `valueOffsets: entry ${i + 1} out of order or past the values`);
    }
  }
  return n;
}

/** bounds[g]..bounds[g+1] is the index range of the keys (sorted, 32 bytes each) whose first nibble is g. */
export function groupBounds(keys: Uint8Array): Uint32Array {
  const n = Math.floor(keys.length / 32);
  const bounds = new Uint32Array(17);
  let i = 0;
  for (let g = 0; g < 16; g++) {
    bounds[g] = i;
    while (i < n && keys[32 * i] >> 4 === g) i++;
  }
  bounds[16] = n;
  if (i !== n) throw new TrieError("UNSORTED_KEYS", "keys are not sorted by first nibble");
  return bounds;
}

/**
 * Hashes every first-nibble group present in the sorted keys: key i is keys[32i..32i+32), its leaf
 * value values[valueOffsets[i]..valueOffsets[i+1]). Groups absent from the input get length 0.
 */
export function subtrieRefsPacked(keys: Uint8Array, values: Uint8Array, valueOffsets: Uint32Array): ChildRefs {
  checkPacked(keys, values, valueOffsets);
  const bounds = groupBounds(keys);
  const refs = new Uint8Array(16 * 33);
  const lengths = new Uint8Array(16);
  const hb = new HashBuilder();
  for (let g = 0; g < 16; g++) {
    const from = bounds[g];
    const to = bounds[g + 1];
    if (from === to) continue;
    hb.reset();
    for (let i = from; i < to; i++)
      hb.addLeafBytes(keys, values, 32 * i, 32 * i + 32, valueOffsets[i], valueOffsets[i + 1]);
    const ref = hb.childRef();
    refs.set(ref, 33 * g);
    lengths[g] = ref.length;
  }
  return { refs, lengths };
}

/** Combines the results of workers that hashed disjoint groups. */
export function mergeChildRefs(parts: readonly ChildRefs[]): ChildRefs {
  const refs = new Uint8Array(16 * 33);
  const lengths = new Uint8Array(16);
  for (const p of parts) {
    for (let g = 0; g < 16; g++) {
      const l = p.lengths[g];
      if (l === 0) continue;
      if (lengths[g] !== 0) throw new TrieError("BAD_INPUT", `group ${g} hashed twice`);
      refs.set(p.refs.subarray(33 * g, 33 * g + l), 33 * g);
      lengths[g] = l;
    }
  }
  return { refs, lengths };
}

/** Root of the trie whose root branch has the given slot refs (at least two non-empty slots). */
export function rootFromChildRefs(refs: Uint8Array, lengths: Uint8Array): Uint8Array {
  let payload = 1;
  let present = 0;
  for (let g = 0; g < 16; g++) {
    const l = lengths[g];
    if (l > 33) throw new TrieError("BAD_INPUT", `slot ${g}: ref of ${l} bytes`);
    payload += l === 0 ? 1 : l;
    if (l !== 0) present++;
  }
  if (present === 0) return EMPTY_TRIE_ROOT;
  if (present === 1) throw new TrieError("SINGLE_GROUP", "one non-empty group: the root is not a branch");
  const out = new Uint8Array(headerLength(payload) + payload);
  let pos = writeHeader(out, 0, payload, 0xc0);
  for (let g = 0; g < 16; g++) {
    const l = lengths[g];
    if (l === 0) out[pos++] = 0x80;
    else {
      out.set(refs.subarray(33 * g, 33 * g + l), pos);
      pos += l;
    }
  }
  out[pos] = 0x80;
  return keccak256(out);
}

/** Single-threaded root of the same packed input (the fallback and the reference). */
export function trieRootPacked(keys: Uint8Array, values: Uint8Array, valueOffsets: Uint32Array): Uint8Array {
  const n = checkPacked(keys, values, valueOffsets);
  const hb = new HashBuilder();
  for (let i = 0; i < n; i++) hb.addLeafBytes(keys, values, 32 * i, 32 * i + 32, valueOffsets[i], valueOffsets[i + 1]);
  return hb.root();
}
