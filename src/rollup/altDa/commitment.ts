/**
 * Alt-DA input commitments (specs experimental/alt-da.md "Input Commitment Submission"; op-node
 * op-alt-da/commitment.go). A batcher inbox transaction whose data starts with the derivation
 * version byte 0x01 carries an encoded commitment instead of frames:
 *
 *   tx data            = 0x01 ‖ commitment_type ‖ commitment_bytes
 *   encoded commitment =        commitment_type ‖ commitment_bytes
 *
 * - type 0x00, keccak: `commitment_bytes` = keccak256(input), exactly 32 bytes.
 * - type 0x01, generic ("da-service"): `commitment_bytes` = da_layer_byte ‖ payload, opaque to the
 *   node; op-node only requires it to be non-empty (the spec's da_layer_byte < 127 is not enforced).
 *
 * The DA server addresses inputs by the encoded commitment WITHOUT the 0x01 version byte, as
 * `0x`-prefixed lower-case hex: `GET /get/0x<type‖bytes>`, `POST /put/0x<type‖bytes>`.
 * The DA-server input itself again begins with the derivation version 0x00 ‖ frames.
 */
import { keccak256 } from "../../crypto/keccak.js";
import { bytesKey, concatBytes, equalBytes } from "../../primitives/bytes.js";
import { bytesToHex, bytesToHexRaw, hexToBytes } from "../../primitives/hex.js";
import type { AltDaCommitmentType } from "../config/rollupConfig.js";

/** The derivation version byte of a batcher transaction carrying an alt-DA commitment. */
export const TX_DATA_VERSION_ALT_DA = 0x01;
/** Commitment type bytes; [0, 128) are reserved for official implementations. */
export const KECCAK256_COMMITMENT_TYPE = 0x00;
export const GENERIC_COMMITMENT_TYPE = 0x01;
/**
 * op-alt-da MaxInputSize: derivation skips a keccak-committed input longer than this (it could not be
 * resolved on L1 in one transaction). 131072 − 400 bytes of transaction overhead.
 */
export const ALT_DA_MAX_INPUT_SIZE = 130672;

export interface AltDaCommitment {
  readonly type: AltDaCommitmentType;
  /** The commitment bytes after the type byte: the 32-byte hash, or da_layer_byte ‖ payload. */
  readonly data: Uint8Array;
}

export type AltDaCommitmentErrorCode =
  /** No bytes at all, or a type byte with nothing after it. */
  | "EMPTY"
  /** The tx data does not start with the 0x01 version byte. */
  | "NOT_ALT_DA"
  /** A commitment type byte other than 0x00 / 0x01. */
  | "UNKNOWN_TYPE"
  /** A keccak commitment that is not 32 bytes. */
  | "BAD_LENGTH"
  /** A DA-server key that is not 0x-prefixed hex. */
  | "BAD_HEX"
  /** The input does not hash to the keccak commitment (op-alt-da ErrCommitmentMismatch). */
  | "MISMATCH"
  /** The commitment's type is not the rollup config's `da_commitment_type` (ErrCommitmentTypeMismatch). */
  | "TYPE_MISMATCH";

/**
 * A malformed or non-matching commitment. Derivation (op-node altda_data_source.go) skips a tx whose
 * commitment does not decode and skips the input on TYPE_MISMATCH; a MISMATCH on read is retried
 * as a temporary error.
 */
export class AltDaCommitmentError extends Error {
  override readonly name = "AltDaCommitmentError";
  constructor(
    readonly code: AltDaCommitmentErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function commitmentTypeByte(type: AltDaCommitmentType): number {
  return type === "KeccakCommitment" ? KECCAK256_COMMITMENT_TYPE : GENERIC_COMMITMENT_TYPE;
}

/** The keccak commitment to `input` (op-alt-da NewKeccak256Commitment). */
export function keccakCommitment(input: Uint8Array): AltDaCommitment {
  return { type: "KeccakCommitment", data: keccak256(input) };
}

/** A generic commitment over `data` = da_layer_byte ‖ payload. Throws EMPTY on no bytes. */
export function genericCommitment(data: Uint8Array): AltDaCommitment {
  if (data.length === 0) throw new AltDaCommitmentError("EMPTY", "empty generic commitment");
  return { type: "GenericCommitment", data: data.slice() };
}

/**
 * Decodes `type ‖ bytes` (op-alt-da DecodeCommitmentData). The result owns a copy of the bytes.
 * Throws AltDaCommitmentError EMPTY / UNKNOWN_TYPE / BAD_LENGTH.
 */
export function decodeCommitment(encoded: Uint8Array): AltDaCommitment {
  if (encoded.length === 0) throw new AltDaCommitmentError("EMPTY", "empty commitment");
  const t = encoded[0];
  const data = encoded.slice(1);
  if (t === KECCAK256_COMMITMENT_TYPE) {
    if (data.length === 0) throw new AltDaCommitmentError("EMPTY", "empty keccak commitment");
    if (data.length !== 32) {
      throw new AltDaCommitmentError("BAD_LENGTH", `keccak commitment has ${data.length} bytes, want 32`);
    }
    return { type: "KeccakCommitment", data };
  }
  if (t === GENERIC_COMMITMENT_TYPE) {
    if (data.length === 0) throw new AltDaCommitmentError("EMPTY", "empty generic commitment");
    return { type: "GenericCommitment", data };
  }
  throw new AltDaCommitmentError("UNKNOWN_TYPE", `unknown commitment type 0x${t.toString(16).padStart(2, "0")}`);
}

/** `type ‖ bytes` (op-alt-da CommitmentData.Encode): the DA-server key and the challenge contract's form. */
export function encodeCommitment(c: AltDaCommitment): Uint8Array {
  const out = new Uint8Array(1 + c.data.length);
  out[0] = commitmentTypeByte(c.type);
  out.set(c.data, 1);
  return out;
}

/** True when batcher tx data carries an alt-DA commitment (first byte 0x01). */
export function isAltDaTxData(txData: Uint8Array): boolean {
  return txData.length > 0 && txData[0] === TX_DATA_VERSION_ALT_DA;
}

/** `0x01 ‖ type ‖ bytes`, the batcher inbox tx data (op-alt-da CommitmentData.TxData). */
export function commitmentTxData(c: AltDaCommitment): Uint8Array {
  return concatBytes(Uint8Array.of(TX_DATA_VERSION_ALT_DA), encodeCommitment(c));
}

/** Decodes batcher tx data `0x01 ‖ type ‖ bytes`. Throws NOT_ALT_DA for other versions, else as decodeCommitment. */
export function decodeCommitmentTxData(txData: Uint8Array): AltDaCommitment {
  if (!isAltDaTxData(txData)) {
    throw new AltDaCommitmentError(
      "NOT_ALT_DA",
      txData.length === 0 ? "empty tx data" : `tx data version ${txData[0]} is not alt-DA`,
    );
  }
  return decodeCommitment(txData.subarray(1));
}

/** The DA-server path key: `0x` ‖ hex(type ‖ bytes), lower case, no version byte (daclient.go `0x%x` of Encode()). */
export function commitmentUrlKey(c: AltDaCommitment): string {
  return bytesToHex(encodeCommitment(c));
}

/** Parses a DA-server path key (`0x`-prefixed hex of type ‖ bytes, as the DA server's hexutil.Decode wants). */
export function parseCommitmentUrlKey(key: string): AltDaCommitment {
  if (!/^0[xX]([0-9a-fA-F]{2})+$/.test(key)) {
    throw new AltDaCommitmentError("BAD_HEX", `DA-server key is not 0x-prefixed hex: ${key.slice(0, 80)}`);
  }
  return decodeCommitment(hexToBytes(key));
}

/**
 * Checks `input` against the commitment (op-alt-da Verify): keccak256(input) must equal a keccak
 * commitment; generic commitments always pass (the DA server vouches for them). Throws MISMATCH.
 */
export function verifyCommitment(c: AltDaCommitment, input: Uint8Array): void {
  if (c.type !== "KeccakCommitment") return;
  if (!equalBytes(c.data, keccak256(input))) {
    throw new AltDaCommitmentError(
      "MISMATCH",
      `input of ${input.length} bytes does not match commitment ${commitmentUrlKey(c)}`,
    );
  }
}

/** Rejects a commitment of another type than the rollup config's `da_commitment_type`. Throws TYPE_MISMATCH. */
export function checkCommitmentType(c: AltDaCommitment, expected: AltDaCommitmentType): void {
  if (c.type !== expected) {
    throw new AltDaCommitmentError("TYPE_MISMATCH", `commitment type ${c.type}, the rollup expects ${expected}`);
  }
}

export function commitmentsEqual(a: AltDaCommitment, b: AltDaCommitment): boolean {
  return a.type === b.type && equalBytes(a.data, b.data);
}

/** A collision-free Map key for the commitment (Latin-1 of type ‖ bytes). */
export function commitmentKey(c: AltDaCommitment): string {
  return bytesKey(encodeCommitment(c));
}

/** Hex of type ‖ bytes without prefix, as op-node logs a commitment (CommitmentData.String). */
export function commitmentToString(c: AltDaCommitment): string {
  return bytesToHexRaw(encodeCommitment(c));
}
