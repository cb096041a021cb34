/**
 * keccak-256 of addresses, the keys of their accounts in the state tables, remembered for the next
 * read of the same accounts: a pure function of the address, so nothing kept here depends on a block.
 * PERF: read-only calls and state reads come back to the same few accounts (a dapp's contracts, the
 * caller, the coinbase); the native hash of 20 bytes costs more than a Map lookup. The arrays are
 * shared between callers, so they must never be written to, and not given away (transferred to a
 * worker) either: block import, which hands keys to workers, hashes its own.
 */
import { keccak256 } from "../crypto/keccak.js";
import { bytesKey } from "../primitives/bytes.js";

/** Addresses kept by default. */
const DEFAULT_ENTRIES = 4096;

export class AddressHashes {
  private readonly map = new Map<string, Uint8Array>();

  constructor(private readonly limit = DEFAULT_ENTRIES) {}

  /** keccak-256 of `addr` (shared: read only). */
  of(addr: Uint8Array): Uint8Array {
    const k = bytesKey(addr);
    const hit = this.map.get(k);
    if (hit !== undefined) return hit;
    const h = keccak256(addr);
    if (this.map.size >= this.limit) this.map.delete(this.map.keys().next().value as string);
    this.map.set(k, h);
    return h;
  }
}
