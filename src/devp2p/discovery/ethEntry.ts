/**
 * The `eth` ENR entry (devp2p enr-entries/eth.md): `[[FORK_HASH, FORK_NEXT], …]`, a list whose first
 * element is the EIP-2124 fork id; later elements are ignored (geth eth/protocols/eth `enrEntry` has
 * an `rlp:"tail"`). The value is an RLP list in the record, not a byte string.
 */

import type { RlpItem } from "../../rlp/decode.js";
import { type RlpInput, uintToRlpBytes } from "../../rlp/encode.js";
import type { ForkId } from "../../spec/forkId.js";

export const ETH_ENR_KEY = "eth";

/** The entry's value as an RLP input for `Enr.sign`. */
export function ethEntryValue(id: ForkId): RlpInput {
  return [[id.hash, uintToRlpBytes(id.next)]];
}

/**
 * The fork id in a decoded `eth` value; null when malformed. FORK_NEXT above 2^53-1 (a u64 from
 * outside) is clamped: no head of ours reaches it, so every rule treats it as "not passed".
 */
export function parseEthEntry(v: RlpItem | undefined): ForkId | null {
  if (!Array.isArray(v) || v.length === 0) return null;
  const f = v[0];
  if (!Array.isArray(f) || f.length < 2) return null;
  const hash = f[0];
  const next = f[1];
  if (!(hash instanceof Uint8Array) || hash.length !== 4) return null;
  if (!(next instanceof Uint8Array) || next.length > 8 || (next.length > 0 && next[0] === 0)) return null;
  let n = 0;
  for (let i = 0; i < next.length; i++) n = n * 256 + next[i]!;
  return { hash: hash.slice(), next: Math.min(n, Number.MAX_SAFE_INTEGER) };
}
