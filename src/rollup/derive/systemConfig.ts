/**
 * The L2 system config as derivation tracks it, and its updates from the L1 SystemConfig
 * contract's `ConfigUpdate` logs in each epoch's L1 origin receipts (op-stack.md §2.11). SPEC:
 * specs/protocol/system-config.md "System Config Updates" and the holocene, isthmus and jovian
 * system-config.md; op-node rollup/derive/system_config.go, op-service/eth/types.go
 * (`CheckEcotoneL1SystemConfigScalar`, `EcotoneScalars`).
 *
 * event ConfigUpdate(uint256 indexed version, uint8 indexed updateType, bytes data)
 *
 * Version 0, `data` = abi.encode(bytes payload) with offset 32, the exact payload length and
 * nothing after it. Payload per type:
 *   0 batcher            address word (12 zero bytes, then the address)
 *   1 fee scalars        overhead word ‖ scalar word (from Ecotone, see below)
 *   2 gas limit          uint64 word
 *   3 unsafe signer      ignored by derivation (the runtime config reads it from L1 storage)
 *   4 EIP-1559 params    word; its low 8 bytes are denominator u32 ‖ elasticity u32 (Holocene)
 *   5 operator fee       word `(scalar u32 << 64) | constant u64`, kept whole (Isthmus)
 *   6 min base fee       uint64 word (Jovian)
 *   7 DA footprint       uint16 word (Jovian)
 * A malformed update is skipped: the config stays as it was and a warning is reported (current
 * spec and op-node; op-node ≤ v1.10 made some of them critical).
 *
 * Ecotone scalar (by the L1 origin's timestamp): byte 0 is a version. Version 0: [1..28) padding,
 * [28..32) baseFeeScalar, blobBaseFeeScalar = 0. Version 1: [1..24) padding, [24..28)
 * blobBaseFeeScalar, [28..32) baseFeeScalar. An update whose padding is non-zero or whose version is
 * unknown is ignored (op-node `CheckEcotoneL1SystemConfigScalar`) and the overhead is zeroed
 * otherwise. A *stored* version-0 scalar with non-zero padding (a genesis value, or one set before
 * Ecotone) reads as baseFeeScalar = MaxUint32 (`ecotoneScalars`).
 */

import type { ReceiptLog } from "../../block/log.js";
import { keccak256 } from "../../crypto/keccak.js";
import { equalBytes, isZeroBytes, readUint32BE, utf8ToBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { bytesToBigint } from "../../primitives/u256.js";
import { type GenesisSystemConfig, isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import { criticalError } from "./errors.js";

/**
 * The system config: batcher, fee scalars, gas limit, EIP-1559 params, operator fee params, min
 * base fee and DA footprint gas scalar. The same shape as the rollup config's genesis value, which
 * is where derivation starts from.
 */
export type SystemConfig = GenesisSystemConfig;

/** keccak256("ConfigUpdate(uint256,uint8,bytes)"). */
export const CONFIG_UPDATE_TOPIC: Uint8Array = keccak256(utf8ToBytes("ConfigUpdate(uint256,uint8,bytes)"));

/** `updateType` of a version-0 ConfigUpdate. */
export enum ConfigUpdateType {
  Batcher = 0,
  FeeScalars = 1,
  GasLimit = 2,
  UnsafeBlockSigner = 3,
  Eip1559Params = 4,
  OperatorFeeParams = 5,
  MinBaseFee = 6,
  DaFootprintGasScalar = 7,
}

/** The config after an L1 block's updates, and one message per ConfigUpdate log that was skipped. */
export interface ConfigUpdateResult {
  readonly config: SystemConfig;
  /** "malformed ConfigUpdate in receipt <i>, log <j>: <reason>", for the caller to log. */
  readonly warnings: string[];
}

/** Scalar versions (op-service `L1ScalarBedrock`, `L1ScalarEcotone`). */
const SCALAR_V0 = 0;
const SCALAR_V1 = 1;
const MAX_UINT32 = 0xffffffff;

/**
 * Why an Ecotone scalar update would be ignored, or null when it is valid (op-service
 * `CheckEcotoneL1SystemConfigScalar`). `v0Padding` tells the one failure `ecotoneScalars` accepts.
 */
function checkEcotoneScalar(scalar: Uint8Array): { message: string; v0Padding: boolean } | null {
  switch (scalar[0]) {
    case SCALAR_V0:
      return isZeroBytes(scalar.subarray(1, 28))
        ? null
        : { message: "version 0 scalar has non-zero padding", v0Padding: true };
    case SCALAR_V1:
      return isZeroBytes(scalar.subarray(1, 24))
        ? null
        : { message: "version 1 scalar has non-zero padding", v0Padding: false };
    default:
      return { message: `unknown scalar version ${scalar[0]}`, v0Padding: false };
  }
}

/**
 * The Ecotone L1-fee scalars encoded in `sc.scalar` (op-service `SystemConfig.EcotoneScalars`).
 * A version-0 scalar with non-zero padding gives baseFeeScalar = MaxUint32 (the spec's rule for a
 * pre-Ecotone value). An unknown version, or version 1 with non-zero padding, cannot be read:
 * that throws a critical DeriveError (op-node fails building the L1-info deposit).
 */
export function ecotoneScalars(sc: SystemConfig): { baseFeeScalar: number; blobBaseFeeScalar: number } {
  const s = sc.scalar;
  const bad = checkEcotoneScalar(s);
  if (bad !== null) {
    if (bad.v0Padding) return { baseFeeScalar: MAX_UINT32, blobBaseFeeScalar: 0 };
    throw criticalError(`system config scalar ${bytesToHex(s)}: ${bad.message}`);
  }
  return {
    baseFeeScalar: readUint32BE(s, 28),
    blobBaseFeeScalar: s[0] === SCALAR_V1 ? readUint32BE(s, 24) : 0,
  };
}

/** The Isthmus operator fee parameters in `sc.operatorFeeParams`: scalar u32 at [20..24), constant u64 at [24..32). */
export function operatorFeeParams(sc: SystemConfig): { scalar: number; constant: bigint } {
  const p = sc.operatorFeeParams;
  return { scalar: readUint32BE(p, 20), constant: bytesToBigint(p.subarray(24, 32)) };
}

/**
 * The payload of `abi.encode(bytes)` data whose payload must be exactly `length` bytes: pointer
 * word 32, length word `length`, payload, nothing more. A string says what is wrong.
 */
function readPayload(data: Uint8Array, length: number): Uint8Array | string {
  if (data.length < 32 || !isUint64Word(data, 0) || bytesToBigint(data.subarray(24, 32)) !== 32n) {
    return "invalid pointer field";
  }
  if (data.length < 64 || !isUint64Word(data, 32) || bytesToBigint(data.subarray(56, 64)) !== BigInt(length)) {
    return "invalid length field";
  }
  if (data.length < 64 + length) return "payload shorter than its length";
  if (data.length > 64 + length) return "too many bytes";
  return data.subarray(64, 64 + length);
}

/** The word at `pos` has its high 24 bytes zero (op-service `solabi.ReadUint64`). */
function isUint64Word(b: Uint8Array, pos: number): boolean {
  return isZeroBytes(b.subarray(pos, pos + 24));
}

/** The `updateType` topic as a number, or -1 when it is not a uint8. */
function updateTypeOf(topic: Uint8Array): number {
  return isZeroBytes(topic.subarray(0, 31)) ? topic[31] : -1;
}

/**
 * One ConfigUpdate log applied to `sc`: the new config (or `sc` itself when the update does not
 * concern derivation), or a string saying why it is skipped.
 */
function applyUpdate(sc: SystemConfig, log: ReceiptLog, ecotone: boolean): SystemConfig | string {
  if (log.topics.length !== 3) return `expected 3 topics, got ${log.topics.length}`;
  if (!equalBytes(log.topics[0], CONFIG_UPDATE_TOPIC)) return "not a ConfigUpdate event";
  if (!isZeroBytes(log.topics[1])) return `unknown ConfigUpdate version ${bytesToHex(log.topics[1])}`;
  const type = updateTypeOf(log.topics[2]);
  switch (type) {
    case ConfigUpdateType.Batcher: {
      const p = readPayload(log.data, 32);
      if (typeof p === "string") return `batcher: ${p}`;
      if (!isZeroBytes(p.subarray(0, 12))) return "batcher: address padding is not zero";
      return { ...sc, batcherAddr: p.slice(12) };
    }
    case ConfigUpdateType.FeeScalars: {
      const p = readPayload(log.data, 64);
      if (typeof p === "string") return `fee scalars: ${p}`;
      const overhead = p.slice(0, 32);
      const scalar = p.slice(32, 64);
      if (!ecotone) return { ...sc, overhead, scalar };
      const bad = checkEcotoneScalar(scalar);
      if (bad !== null) return `fee scalars: ignored, ${bad.message}: ${bytesToHex(scalar)}`;
      // The scalar is kept encoded; the overhead no longer affects the state transition.
      return { ...sc, overhead: new Uint8Array(32), scalar };
    }
    case ConfigUpdateType.GasLimit: {
      const p = readPayload(log.data, 32);
      if (typeof p === "string") return `gas limit: ${p}`;
      if (!isUint64Word(p, 0)) return "gas limit: not a uint64";
      return { ...sc, gasLimit: bytesToBigint(p.subarray(24, 32)) };
    }
    case ConfigUpdateType.UnsafeBlockSigner:
      return sc;
    case ConfigUpdateType.Eip1559Params: {
      const p = readPayload(log.data, 32);
      if (typeof p === "string") return `eip-1559 params: ${p}`;
      const params = p.slice(24, 32);
      // op-geth `ValidateHolocene1559Params`: a zero denominator needs a zero elasticity.
      if (readUint32BE(params, 0) === 0 && readUint32BE(params, 4) !== 0) {
        return `eip-1559 params: zero denominator with non-zero elasticity: ${bytesToHex(params)}`;
      }
      return { ...sc, eip1559Params: params };
    }
    case ConfigUpdateType.OperatorFeeParams: {
      const p = readPayload(log.data, 32);
      if (typeof p === "string") return `operator fee params: ${p}`;
      return { ...sc, operatorFeeParams: p.slice() };
    }
    case ConfigUpdateType.MinBaseFee: {
      const p = readPayload(log.data, 32);
      if (typeof p === "string") return `min base fee: ${p}`;
      if (!isUint64Word(p, 0)) return "min base fee: not a uint64";
      return { ...sc, minBaseFee: bytesToBigint(p.subarray(24, 32)) };
    }
    case ConfigUpdateType.DaFootprintGasScalar: {
      const p = readPayload(log.data, 32);
      if (typeof p === "string") return `da footprint gas scalar: ${p}`;
      if (!isZeroBytes(p.subarray(0, 30))) return "da footprint gas scalar: not a uint16";
      return { ...sc, daFootprintGasScalar: (p[30] << 8) | p[31] };
    }
    default:
      return `unknown ConfigUpdate type ${bytesToHex(log.topics[2])}`;
  }
}

/**
 * `sc` after the ConfigUpdate logs of an L1 block, applied in log order (op-node
 * `UpdateSystemConfigWithL1Receipts`): logs of successful receipts emitted by
 * `systemConfigAddress` with `CONFIG_UPDATE_TOPIC` first. `l1Timestamp` is that L1 block's time,
 * which decides the Ecotone scalar rules. Each update is applied whole or not at all; a skipped one
 * adds a warning (receipt and log index within the receipt). `sc` is not modified; without updates
 * `config` is `sc` itself.
 */
export function applyConfigUpdateLogs(
  sc: SystemConfig,
  receipts: readonly { readonly status: number; readonly logs: readonly ReceiptLog[] }[],
  systemConfigAddress: Uint8Array,
  cfg: RollupConfig,
  l1Timestamp: number,
): ConfigUpdateResult {
  const ecotone = isForkActive(cfg, "ecotone", l1Timestamp);
  const warnings: string[] = [];
  let config = sc;
  for (let i = 0; i < receipts.length; i++) {
    const r = receipts[i];
    if (r.status !== 1) continue;
    for (let j = 0; j < r.logs.length; j++) {
      const log = r.logs[j];
      if (!equalBytes(log.address, systemConfigAddress)) continue;
      if (log.topics.length === 0 || !equalBytes(log.topics[0], CONFIG_UPDATE_TOPIC)) continue;
      const next = applyUpdate(config, log, ecotone);
      if (typeof next === "string") warnings.push(`malformed ConfigUpdate in receipt ${i}, log ${j}: ${next}`);
      else config = next;
    }
  }
  return { config, warnings };
}
