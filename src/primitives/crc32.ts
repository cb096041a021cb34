/**
 * IEEE CRC-32 (polynomial 0xEDB88320, Go's `crc32.IEEETable`): the checksum of EIP-2124 / EIP-6122
 * fork identifiers. node:zlib has computed it since Node 20.15 / 22.2 (`zlib.crc32`), below the
 * `engines` floor of package.json (20.19), so no table of our own.
 */
import { crc32 as zlibCrc32 } from "node:zlib";

/** CRC-32 of `data`, continued from `crc` (the CRC of the bytes before it; 0 to start). */
export function crc32(data: Uint8Array, crc = 0): number {
  return zlibCrc32(data, crc);
}
