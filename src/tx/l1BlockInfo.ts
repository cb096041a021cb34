/**
 * The L1 block attributes that the first deposit of every OP block writes into the L1Block predeploy
 * (0x4200…0015), parsed from and encoded to that deposit's calldata. Four formats (SPEC:
 * specs/protocol/deposits.md#l1-attributes-deposited-transaction, ecotone/isthmus/jovian
 * l1-attributes.md; op-stack.md §2.9):
 *
 * - Bedrock `setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)`,
 *   selector 0x015d8eb9, 8 ABI words: 260 bytes.
 * - Ecotone `setL1BlockValuesEcotone()`, 0x440a5e20, packed big-endian: 164 bytes.
 * - Isthmus `setL1BlockValuesIsthmus()`, 0x098999be, Ecotone + operator fee scalar/constant: 176.
 * - Jovian `setL1BlockValuesJovian()`, 0x3db6be2b, Isthmus + DA footprint gas scalar: 178.
 *
 * A fork's activation block still uses the previous fork's call (the L1Block contract is upgraded by
 * that block's own upgrade deposits), so the format is read from the selector, never from the fork.
 */
import { readUint32BE, writeUint32BE } from "../primitives/bytes.js";
import { bigintToBytes32, bytesToBigint, MAX_U64, MAX_U256 } from "../primitives/u256.js";

export enum L1InfoFormat {
  Bedrock = 0,
  Ecotone = 1,
  Isthmus = 2,
  Jovian = 3,
}

/**
 * One block's L1 attributes. Fields a format does not carry are zero (0, 0n or 32 zero bytes): the
 * Bedrock format has no Ecotone scalars or blob base fee, the packed formats have no overhead/scalar.
 *
 * Numeric types: u64 fields that arrive in calldata (`number`, `timestamp`, `sequenceNumber`,
 * `operatorFeeConstant`) are bigint for the same reason as a tx's gasLimit (ARCHITECTURE.md
 * "Numeric types": outside input, re-encoded exactly); in the Bedrock format they are whole ABI
 * words and are kept as read. Wei and the u256 Bedrock fee parameters are bigint; the u32/u16
 * scalars are `number`.
 */
export interface L1BlockInfo {
  /** Which calldata layout this came from (or is meant for). */
  readonly format: L1InfoFormat;
  /** L1 origin block number. */
  readonly number: bigint;
  /** L1 origin timestamp (seconds). */
  readonly timestamp: bigint;
  /** L1 origin base fee (wei): the receipts' `l1GasPrice`. */
  readonly baseFee: bigint;
  /** L1 origin blob base fee (wei); Ecotone+ formats, 0 in Bedrock. */
  readonly blobBaseFee: bigint;
  /** L1 origin block hash, 32 bytes (a copy, not a view into the calldata). */
  readonly hash: Uint8Array;
  /** SystemConfig batcher hash: the batcher address left-padded to 32 bytes (a copy). */
  readonly batcherHash: Uint8Array;
  /** Position of this L2 block within its epoch (0 at the first block of an L1 origin). */
  readonly sequenceNumber: bigint;
  /** Bedrock `l1FeeOverhead` (u256); 0 in the packed formats. */
  readonly l1FeeOverhead: bigint;
  /** Bedrock `l1FeeScalar` (u256, scaled by 1e6); 0 in the packed formats. */
  readonly l1FeeScalar: bigint;
  /** Ecotone+ u32 scalar on the L1 base fee; 0 in Bedrock. */
  readonly baseFeeScalar: number;
  /** Ecotone+ u32 scalar on the L1 blob base fee; 0 in Bedrock. */
  readonly blobBaseFeeScalar: number;
  /** Isthmus+ u32 operator fee scalar; 0 before. */
  readonly operatorFeeScalar: number;
  /** Isthmus+ u64 operator fee constant (wei); 0 before. */
  readonly operatorFeeConstant: bigint;
  /** Jovian+ u16 DA footprint gas scalar; 0 before (`DA_FOOTPRINT_GAS_SCALAR_DEFAULT` for a SystemConfig 0). */
  readonly daFootprintGasScalar: number;
}

/**
 * What the rollup node writes into the Jovian L1-attributes calldata when the SystemConfig's DA
 * footprint gas scalar is 0 (SPEC: jovian/l1-attributes.md; op-node `DAFootprintGasScalarDefault`).
 * The execution side uses the calldata value as written (op-geth `CalcDAFootprint`).
 */
export const DA_FOOTPRINT_GAS_SCALAR_DEFAULT = 400;

export const BEDROCK_L1_INFO_SELECTOR = 0x015d8eb9;
export const ECOTONE_L1_INFO_SELECTOR = 0x440a5e20;
export const ISTHMUS_L1_INFO_SELECTOR = 0x098999be;
export const JOVIAN_L1_INFO_SELECTOR = 0x3db6be2b;

export const BEDROCK_L1_INFO_LENGTH = 4 + 32 * 8;
export const ECOTONE_L1_INFO_LENGTH = 164;
export const ISTHMUS_L1_INFO_LENGTH = 176;
export const JOVIAN_L1_INFO_LENGTH = 178;

const SELECTORS: readonly number[] = [
  BEDROCK_L1_INFO_SELECTOR,
  ECOTONE_L1_INFO_SELECTOR,
  ISTHMUS_L1_INFO_SELECTOR,
  JOVIAN_L1_INFO_SELECTOR,
];
const LENGTHS: readonly number[] = [
  BEDROCK_L1_INFO_LENGTH,
  ECOTONE_L1_INFO_LENGTH,
  ISTHMUS_L1_INFO_LENGTH,
  JOVIAN_L1_INFO_LENGTH,
];

/** An L1BlockInfo with every field zero except those given (tests, state readers, the sequencer). */
export function newL1BlockInfo(fields: Partial<L1BlockInfo> = {}): L1BlockInfo {
  return {
    format: L1InfoFormat.Bedrock,
    number: 0n,
    timestamp: 0n,
    baseFee: 0n,
    blobBaseFee: 0n,
    hash: new Uint8Array(32),
    batcherHash: new Uint8Array(32),
    sequenceNumber: 0n,
    l1FeeOverhead: 0n,
    l1FeeScalar: 0n,
    baseFeeScalar: 0,
    blobBaseFeeScalar: 0,
    operatorFeeScalar: 0,
    operatorFeeConstant: 0n,
    daFootprintGasScalar: 0,
    ...fields,
  };
}

function readU64(b: Uint8Array, pos: number): bigint {
  return (BigInt(readUint32BE(b, pos)) << 32n) | BigInt(readUint32BE(b, pos + 4));
}

function word(b: Uint8Array, i: number): Uint8Array {
  return b.subarray(4 + 32 * i, 4 + 32 * (i + 1));
}

/**
 * Parses L1-attributes deposit calldata. Returns null for an unknown selector or a length other
 * than the selector's exact format length (op-geth's receipt code is laxer: ≥ 260 bytes for
 * Bedrock and ≥ 176 from Isthmus; op-node builds exactly these lengths). Never throws.
 */
export function parseL1BlockInfo(calldata: Uint8Array): L1BlockInfo | null {
  if (calldata.length < 4) return null;
  const format = SELECTORS.indexOf(readUint32BE(calldata, 0));
  if (format < 0 || calldata.length !== LENGTHS[format]) return null;
  if (format === L1InfoFormat.Bedrock) {
    return newL1BlockInfo({
      format,
      number: bytesToBigint(word(calldata, 0)),
      timestamp: bytesToBigint(word(calldata, 1)),
      baseFee: bytesToBigint(word(calldata, 2)),
      hash: word(calldata, 3).slice(),
      sequenceNumber: bytesToBigint(word(calldata, 4)),
      batcherHash: word(calldata, 5).slice(),
      l1FeeOverhead: bytesToBigint(word(calldata, 6)),
      l1FeeScalar: bytesToBigint(word(calldata, 7)),
    });
  }
  const isthmus = format >= L1InfoFormat.Isthmus;
  return newL1BlockInfo({
    format,
    baseFeeScalar: readUint32BE(calldata, 4),
    blobBaseFeeScalar: readUint32BE(calldata, 8),
    sequenceNumber: readU64(calldata, 12),
    timestamp: readU64(calldata, 20),
    number: readU64(calldata, 28),
    baseFee: bytesToBigint(calldata.subarray(36, 68)),
    blobBaseFee: bytesToBigint(calldata.subarray(68, 100)),
    hash: calldata.slice(100, 132),
    batcherHash: calldata.slice(132, 164),
    operatorFeeScalar: isthmus ? readUint32BE(calldata, 164) : 0,
    operatorFeeConstant: isthmus ? readU64(calldata, 168) : 0n,
    daFootprintGasScalar: format === L1InfoFormat.Jovian ? (calldata[176] << 8) | calldata[177] : 0,
  });
}

function checkRange(name: string, v: bigint, max: bigint): void {
  if (v < 0n || v > max) throw new RangeError(`encodeL1BlockInfo: ${name} ${v} out of range`);
}

function checkInt(name: string, v: number, bits: number): void {
  if (!Number.isInteger(v) || v < 0 || v >= 2 ** bits) {
    throw new RangeError(`encodeL1BlockInfo: ${name} ${v} is not a u${bits}`);
  }
}

function checkHash(name: string, v: Uint8Array): void {
  if (v.length !== 32) throw new RangeError(`encodeL1BlockInfo: ${name} must be 32 bytes`);
}

function writeU64(out: Uint8Array, pos: number, v: bigint): void {
  writeUint32BE(out, pos, Number(v >> 32n));
  writeUint32BE(out, pos + 4, Number(v & 0xffffffffn));
}

/**
 * Encodes `info` as the calldata of `format` (default: `info.format`). Fields the format does not
 * carry are ignored. Throws RangeError on a value that does not fit its slot (a builder bug, not
 * input): this is the sequencer's and the tests' path, never a hot loop. The Jovian DA footprint
 * scalar is written as given; substituting the default for a SystemConfig 0 is the caller's job.
 */
export function encodeL1BlockInfo(info: L1BlockInfo, format: L1InfoFormat = info.format): Uint8Array {
  checkHash("hash", info.hash);
  checkHash("batcherHash", info.batcherHash);
  checkRange("baseFee", info.baseFee, MAX_U256);
  const out = new Uint8Array(LENGTHS[format]);
  writeUint32BE(out, 0, SELECTORS[format]);
  if (format === L1InfoFormat.Bedrock) {
    const words: readonly bigint[] = [info.number, info.timestamp, info.baseFee];
    for (let i = 0; i < 3; i++) bigintToBytes32(words[i], out, 4 + 32 * i);
    out.set(info.hash, 4 + 32 * 3);
    bigintToBytes32(info.sequenceNumber, out, 4 + 32 * 4);
    out.set(info.batcherHash, 4 + 32 * 5);
    bigintToBytes32(info.l1FeeOverhead, out, 4 + 32 * 6);
    bigintToBytes32(info.l1FeeScalar, out, 4 + 32 * 7);
    return out;
  }
  checkInt("baseFeeScalar", info.baseFeeScalar, 32);
  checkInt("blobBaseFeeScalar", info.blobBaseFeeScalar, 32);
  checkRange("sequenceNumber", info.sequenceNumber, MAX_U64);
  checkRange("timestamp", info.timestamp, MAX_U64);
  checkRange("number", info.number, MAX_U64);
  checkRange("blobBaseFee", info.blobBaseFee, MAX_U256);
  writeUint32BE(out, 4, info.baseFeeScalar);
  writeUint32BE(out, 8, info.blobBaseFeeScalar);
  writeU64(out, 12, info.sequenceNumber);
  writeU64(out, 20, info.timestamp);
  writeU64(out, 28, info.number);
  bigintToBytes32(info.baseFee, out, 36);
  bigintToBytes32(info.blobBaseFee, out, 68);
  out.set(info.hash, 100);
  out.set(info.batcherHash, 132);
  if (format >= L1InfoFormat.Isthmus) {
    checkInt("operatorFeeScalar", info.operatorFeeScalar, 32);
    checkRange("operatorFeeConstant", info.operatorFeeConstant, MAX_U64);
    writeUint32BE(out, 164, info.operatorFeeScalar);
    writeU64(out, 168, info.operatorFeeConstant);
  }
  if (format === L1InfoFormat.Jovian) {
    checkInt("daFootprintGasScalar", info.daFootprintGasScalar, 16);
    out[176] = info.daFootprintGasScalar >>> 8;
    out[177] = info.daFootprintGasScalar & 0xff;
  }
  return out;
}
