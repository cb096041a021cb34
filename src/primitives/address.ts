/**
 * Addresses are 20-byte `Uint8Array`s. EIP-55 mixed-case checksums exist only at text edges.
 * The checksum hashes with @noble/hashes directly: it is an edge operation (never in a hot loop),
 * and importing crypto/ here would invert the layer order.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { PrimitiveError } from "./errors.js";
import { bytesToHexRaw, hexToBytes } from "./hex.js";

export const ADDRESS_LENGTH = 20;
export const ZERO_ADDRESS: Uint8Array = new Uint8Array(20);

/** EIP-55 checksummed `0x…` string. */
export function toChecksumAddress(addr: Uint8Array): string {
  if (addr.length !== ADDRESS_LENGTH) throw new PrimitiveError("ADDRESS_LENGTH", `address has ${addr.length} bytes`);
  const lower = bytesToHexRaw(addr);
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1] >> (i & 1 ? 0 : 4)) & 0xf;
    const c = lower[i];
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/**
 * Parses `0x` + 40 hex digits. All-lower or all-upper input is accepted as is; mixed case must be a
 * valid EIP-55 checksum.
 */
export function parseAddress(s: string): Uint8Array {
  if (typeof s !== "string" || !/^0[xX][0-9a-fA-F]{40}$/.test(s)) {
    throw new PrimitiveError("ADDRESS_LENGTH", "address must be 0x followed by 40 hex digits");
  }
  const body = s.slice(2);
  const bytes = hexToBytes(body);
  if (body !== body.toLowerCase() && body !== body.toUpperCase() && toChecksumAddress(bytes) !== `0x${body}`) {
    throw new PrimitiveError("ADDRESS_CHECKSUM", "address has an invalid EIP-55 checksum");
  }
  return bytes;
}

export function isValidChecksumAddress(s: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(s)) return false;
  return toChecksumAddress(hexToBytes(s)) === s;
}
