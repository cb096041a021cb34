/**
 * OP Stack header `extraData` formats that carry the EIP-1559 parameters.
 * - Holocene (SPEC: specs/protocol/holocene/exec-engine.md#eip-1559-parameters-in-block-header):
 *   `0x00 ‖ denominator u32 BE ‖ elasticity u32 BE`, 9 bytes, both parameters non-zero.
 * - Jovian (SPEC: specs/protocol/jovian/exec-engine.md#minimum-base-fee-in-block-header):
 *   `0x01 ‖ denominator u32 BE ‖ elasticity u32 BE ‖ minBaseFee u64 BE`, 17 bytes.
 * Before Holocene `extraData` must be empty (genesis excepted); that rule belongs to header validation.
 */
import { readUint32BE, writeUint32BE } from "../primitives/bytes.js";
import { MAX_U64 } from "../primitives/u256.js";
import { OpFork } from "../spec/forks.js";
import { BlockError } from "./errors.js";

export const HOLOCENE_EXTRA_DATA_VERSION = 0;
export const HOLOCENE_EXTRA_DATA_LENGTH = 9;
export const JOVIAN_EXTRA_DATA_VERSION = 1;
export const JOVIAN_EXTRA_DATA_LENGTH = 17;

export interface Eip1559Params {
  /** Base-fee max change denominator (u32, non-zero). */
  denominator: number;
  /** Elasticity multiplier (u32, non-zero). */
  elasticity: number;
  /** Jovian minimum base fee in wei (u64); null in the Holocene format. */
  minBaseFee: bigint | null;
}

function checkParams(denominator: number, elasticity: number): void {
  // SPEC: holocene/exec-engine.md "denominator and elasticity must be non-zero" (Jovian keeps the rule).
  // op-geth (ValidateHolocene1559Params) is laxer: it rejects only denominator = 0 with elasticity ≠ 0.
  // We follow the spec text; the difference matters only for a block with a zero parameter.
  if (denominator === 0 || elasticity === 0) {
    throw new BlockError(
      "EXTRA_DATA_ZERO_PARAM",
      `extraData: zero EIP-1559 parameter (d=${denominator}, e=${elasticity})`,
    );
  }
}

function checkU32(v: number, what: string): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`${what} is not a u32: ${v}`);
}

/** Parses Holocene `extraData` (version 0, 9 bytes). */
export function decodeHoloceneExtraData(extra: Uint8Array): Eip1559Params {
  if (extra.length !== HOLOCENE_EXTRA_DATA_LENGTH) {
    throw new BlockError("EXTRA_DATA_LENGTH", `Holocene extraData must be 9 bytes, got ${extra.length}`);
  }
  if (extra[0] !== HOLOCENE_EXTRA_DATA_VERSION) {
    throw new BlockError("EXTRA_DATA_VERSION", `Holocene extraData version must be 0, got ${extra[0]}`);
  }
  const denominator = readUint32BE(extra, 1);
  const elasticity = readUint32BE(extra, 5);
  checkParams(denominator, elasticity);
  return { denominator, elasticity, minBaseFee: null };
}

/** Parses Jovian `extraData` (version 1, 17 bytes). */
export function decodeJovianExtraData(extra: Uint8Array): Eip1559Params {
  if (extra.length !== JOVIAN_EXTRA_DATA_LENGTH) {
    throw new BlockError("EXTRA_DATA_LENGTH", `Jovian extraData must be 17 bytes, got ${extra.length}`);
  }
  if (extra[0] !== JOVIAN_EXTRA_DATA_VERSION) {
    throw new BlockError("EXTRA_DATA_VERSION", `Jovian extraData version must be 1, got ${extra[0]}`);
  }
  const denominator = readUint32BE(extra, 1);
  const elasticity = readUint32BE(extra, 5);
  checkParams(denominator, elasticity);
  const minBaseFee = (BigInt(readUint32BE(extra, 9)) << 32n) | BigInt(readUint32BE(extra, 13));
  return { denominator, elasticity, minBaseFee };
}

/**
 * Parses `extraData` in the format the OP fork of the block requires: Jovian+ → version 1,
 * Holocene → version 0. Throws EXTRA_DATA_VERSION for forks before Holocene (no parameters there).
 */
export function decodeOpExtraData(extra: Uint8Array, op: OpFork): Eip1559Params {
  if (op >= OpFork.Jovian) return decodeJovianExtraData(extra);
  if (op >= OpFork.Holocene) return decodeHoloceneExtraData(extra);
  throw new BlockError("EXTRA_DATA_VERSION", `no EIP-1559 parameters in extraData before Holocene (${OpFork[op]})`);
}

/** Builds Holocene `extraData`. Parameters must be non-zero u32 values. */
export function encodeHoloceneExtraData(denominator: number, elasticity: number): Uint8Array {
  checkU32(denominator, "denominator");
  checkU32(elasticity, "elasticity");
  checkParams(denominator, elasticity);
  const out = new Uint8Array(HOLOCENE_EXTRA_DATA_LENGTH);
  out[0] = HOLOCENE_EXTRA_DATA_VERSION;
  writeUint32BE(out, 1, denominator);
  writeUint32BE(out, 5, elasticity);
  return out;
}

/** Builds Jovian `extraData`. Parameters must be non-zero u32 values; `minBaseFee` a u64 (may be 0). */
export function encodeJovianExtraData(denominator: number, elasticity: number, minBaseFee: bigint): Uint8Array {
  checkU32(denominator, "denominator");
  checkU32(elasticity, "elasticity");
  checkParams(denominator, elasticity);
  if (minBaseFee < 0n || minBaseFee > MAX_U64) throw new RangeError(`minBaseFee is not a u64: ${minBaseFee}`);
  const out = new Uint8Array(JOVIAN_EXTRA_DATA_LENGTH);
  out[0] = JOVIAN_EXTRA_DATA_VERSION;
  writeUint32BE(out, 1, denominator);
  writeUint32BE(out, 5, elasticity);
  writeUint32BE(out, 9, Number(minBaseFee >> 32n));
  writeUint32BE(out, 13, Number(minBaseFee & 0xffffffffn));
  return out;
}
