/**
 * The OP Stack blob codec, version 0 (specs ecotone/derivation.md#blob-encoding; op-node
 * op-service/eth/blob.go FromData/ToData).
 *
 * A blob is 4096 field elements of 32 bytes. It carries a 130048-byte stream
 * `S = version(0) ‖ length(uint24 BE) ‖ data ‖ zero padding`, 127 bytes per group of 4 field elements:
 * each element holds 31 stream bytes in its low bytes and a 6-bit header in its top byte, and the 4
 * headers (24 bits) hold the group's remaining 3 stream bytes. For group r, stream offset o = 127r:
 *
 *   element 0: A = x & 0x3f                      ‖ S[o .. o+31),   x = S[o+31]
 *   element 1: B = (y & 0x0f) | (x & 0xc0) >> 2  ‖ S[o+32 .. o+63), y = S[o+63]
 *   element 2: C = z & 0x3f                      ‖ S[o+64 .. o+95), z = S[o+95]
 *   element 3: D = (z & 0xc0) >> 2 | (y & 0xf0) >> 4 ‖ S[o+96 .. o+127)
 *
 * Decoding rejects (as an error value, never a throw): a blob that is not 131072 bytes, a version
 * byte other than 0, a length above 130044, a field element with either of its top 2 bits set, and
 * any non-zero stream byte after `length` data bytes. The last two keep the codec bijective.
 *
 * Consensus note: op-node (v1.9/v1.10 ToData) and kona both take the first element's top byte as is
 * and mask it with 0x3f, so they never reject a blob for the top 2 bits of field element 0 (every
 * other element is checked, through decodeFieldElement or the trailing-zero checks). The spec says
 * every element; we follow the reference implementations, since a stricter decoder would skip a blob
 * they accept and derive a different chain.
 */

export const BLOB_SIZE = 131_072;
export const FIELD_ELEMENTS_PER_BLOB = 4096;
/** Stream bytes a blob carries: (4 × 31 + 3) × 1024. */
export const BLOB_STREAM_SIZE = 130_048;
/** Largest payload: the stream less the version byte and the uint24 length. */
export const MAX_BLOB_DATA_SIZE = 130_044;
export const BLOB_ENCODING_VERSION = 0;

const ROUNDS = 1024;
const HEADER_BYTES = 4;

export type BlobDecodeErrorKind = "BLOB_SIZE" | "VERSION" | "LENGTH" | "FIELD_ELEMENT" | "EXTRANEOUS_DATA";

/** Why a blob does not decode. Returned, not thrown: derivation skips such a blob and goes on. */
export class BlobDecodeError extends Error {
  override readonly name = "BlobDecodeError";
  constructor(
    readonly kind: BlobDecodeErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** Encodes up to 130044 bytes into a fresh blob; throws RangeError when `data` is larger. */
export function encodeBlob(data: Uint8Array): Uint8Array {
  if (data.length > MAX_BLOB_DATA_SIZE) {
    throw new RangeError(`blob payload of ${data.length} bytes exceeds ${MAX_BLOB_DATA_SIZE}`);
  }
  const s = new Uint8Array(BLOB_STREAM_SIZE);
  s[0] = BLOB_ENCODING_VERSION;
  s[1] = (data.length >>> 16) & 0xff;
  s[2] = (data.length >>> 8) & 0xff;
  s[3] = data.length & 0xff;
  s.set(data, HEADER_BYTES);
  const blob = new Uint8Array(BLOB_SIZE);
  // Rounds past the payload encode zeros, which the fresh blob already holds.
  const rounds = Math.ceil((HEADER_BYTES + data.length) / 127);
  for (let r = 0; r < rounds; r++) {
    const o = r * 127;
    const b = r * 128;
    const x = s[o + 31];
    const y = s[o + 63];
    const z = s[o + 95];
    blob[b] = x & 0x3f;
    blob.set(s.subarray(o, o + 31), b + 1);
    blob[b + 32] = (y & 0x0f) | ((x & 0xc0) >> 2);
    blob.set(s.subarray(o + 32, o + 63), b + 33);
    blob[b + 64] = z & 0x3f;
    blob.set(s.subarray(o + 64, o + 95), b + 65);
    blob[b + 96] = ((z & 0xc0) >> 2) | ((y & 0xf0) >> 4);
    blob.set(s.subarray(o + 96, o + 127), b + 97);
  }
  return blob;
}

/** Decodes a version-0 blob into its payload (a fresh array), or says why it is invalid. */
export function decodeBlob(blob: Uint8Array): Uint8Array | BlobDecodeError {
  if (blob.length !== BLOB_SIZE) {
    return new BlobDecodeError("BLOB_SIZE", `blob is ${blob.length} bytes, want ${BLOB_SIZE}`);
  }
  // Stream bytes 0..3 are blob bytes 1..4 (the low bytes of field element 0).
  if (blob[1] !== BLOB_ENCODING_VERSION) {
    return new BlobDecodeError("VERSION", `blob encoding version ${blob[1]}, want ${BLOB_ENCODING_VERSION}`);
  }
  const length = (blob[2] << 16) | (blob[3] << 8) | blob[4];
  if (length > MAX_BLOB_DATA_SIZE) {
    return new BlobDecodeError("LENGTH", `blob payload length ${length} exceeds ${MAX_BLOB_DATA_SIZE}`);
  }
  const s = new Uint8Array(BLOB_STREAM_SIZE);
  for (let r = 0; r < ROUNDS; r++) {
    const b = r * 128;
    const o = r * 127;
    // Field element 0's top bits are not checked: see the consensus note above.
    const a = blob[b];
    const bb = blob[b + 32];
    const c = blob[b + 64];
    const d = blob[b + 96];
    if (((r === 0 ? 0 : a) | bb | c | d) & 0xc0) {
      const bad = r !== 0 && a & 0xc0 ? 0 : bb & 0xc0 ? 1 : c & 0xc0 ? 2 : 3;
      return new BlobDecodeError("FIELD_ELEMENT", `field element ${r * 4 + bad} has its top 2 bits set`);
    }
    s.set(blob.subarray(b + 1, b + 32), o);
    s[o + 31] = (a & 0x3f) | ((bb & 0x30) << 2);
    s.set(blob.subarray(b + 33, b + 64), o + 32);
    s[o + 63] = (bb & 0x0f) | ((d & 0x0f) << 4);
    s.set(blob.subarray(b + 65, b + 96), o + 64);
    s[o + 95] = (c & 0x3f) | ((d & 0x30) << 2);
    s.set(blob.subarray(b + 97, b + 128), o + 96);
  }
  for (let i = HEADER_BYTES + length; i < BLOB_STREAM_SIZE; i++) {
    if (s[i] !== 0) {
      return new BlobDecodeError(
        "EXTRANEOUS_DATA",
        `non-zero byte at payload offset ${i - HEADER_BYTES}, after the ${length}-byte payload`,
      );
    }
  }
  return s.slice(HEADER_BYTES, HEADER_BYTES + length);
}
