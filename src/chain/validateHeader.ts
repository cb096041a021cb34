/**
 * Header-versus-parent consensus rules, per fork: what geth's `beacon.verifyHeader` /
 * `ethash.verifyHeader` and execution-specs `validate_header` check without the body or state, plus
 * the OP Stack header rules (op-geth `VerifyEIP1559Header`, `VerifyEIP4844Header`; SPEC:
 * specs/protocol/holocene/exec-engine.md, isthmus/exec-engine.md, jovian/exec-engine.md).
 * Returns a code for the first broken rule, or null. PoW difficulty and seal are not checked.
 */
import { nextBaseFeeL1, nextBaseFeeOp } from "../block/baseFee.js";
import { calcExcessBlobGas, GAS_PER_BLOB, maxBlobGasPerBlock } from "../block/blobGas.js";
import { EMPTY_OMMERS_HASH, type Header, headerHash } from "../block/header.js";
import { decodeOpExtraData } from "../block/opExtraData.js";
import { equalBytes, isZeroBytes } from "../primitives/bytes.js";
import { hexToBytes } from "../primitives/hex.js";
import { blobParamsAt, type ChainConfig, isLondon, rulesAt } from "../spec/chainConfig.js";
import { Fork, OpFork } from "../spec/forks.js";

/** One line per rule; the keys are the codes `validateHeader` returns. */
export const HEADER_INVALID_MESSAGES = {
  NUMBER: "number is not parent number + 1",
  PARENT_HASH: "parentHash is not the parent's hash",
  TIMESTAMP: "timestamp is not after the parent's",
  EXTRA_DATA_TOO_LONG: "extraData longer than 32 bytes",
  EXTRA_DATA_FORMAT: "extraData is not the EIP-1559 parameter format of its OP fork (Holocene / Jovian)",
  GAS_LIMIT_TOO_HIGH: "gasLimit above 2^63-1",
  GAS_LIMIT_BOUND: "gasLimit moved by parent gasLimit / 1024 or more",
  GAS_LIMIT_TOO_LOW: "gasLimit below 5000",
  GAS_USED_EXCEEDS_LIMIT: "gasUsed above gasLimit",
  BASE_FEE_MISSING: "baseFeePerGas absent from London on",
  BASE_FEE_UNEXPECTED: "baseFeePerGas present before London",
  BASE_FEE_MISMATCH: "baseFeePerGas differs from the value computed from the parent",
  PARENT_BASE_FEE_PARAMS: "the parent's base fee or extraData parameters are missing or malformed",
  DIFFICULTY_NOT_ZERO: "difficulty is not 0 after the merge",
  NONCE_NOT_ZERO: "nonce is not 0 after the merge",
  OMMERS_HASH_NOT_EMPTY: "ommersHash is not the empty-list hash after the merge",
  WITHDRAWALS_ROOT_MISSING: "withdrawalsRoot absent from Shanghai on",
  WITHDRAWALS_ROOT_UNEXPECTED: "withdrawalsRoot present before Shanghai",
  BLOB_GAS_USED_MISSING: "blobGasUsed absent from Cancun on",
  BLOB_GAS_USED_UNEXPECTED: "blobGasUsed present before Cancun",
  EXCESS_BLOB_GAS_MISSING: "excessBlobGas absent from Cancun on",
  EXCESS_BLOB_GAS_UNEXPECTED: "excessBlobGas present before Cancun",
  PARENT_BEACON_ROOT_MISSING: "parentBeaconBlockRoot absent from Cancun on",
  PARENT_BEACON_ROOT_UNEXPECTED: "parentBeaconBlockRoot present before Cancun",
  REQUESTS_HASH_MISSING: "requestsHash absent from Prague on",
  REQUESTS_HASH_UNEXPECTED: "requestsHash present before Prague",
  BLOB_GAS_USED_ABOVE_MAX: "blobGasUsed above the fork's maximum blobs per block",
  BLOB_GAS_USED_NOT_BLOB_MULTIPLE: "blobGasUsed is not a multiple of the blob gas per blob",
  EXCESS_BLOB_GAS_MISMATCH: "excessBlobGas differs from the value computed from the parent",
  NO_BLOB_PARAMS: "the chain config has no blob parameters for this Cancun-or-later block",
  OP_BLOB_GAS_USED_NOT_ZERO: "OP Stack blobGasUsed is not 0 before Jovian",
  OP_DA_FOOTPRINT_ABOVE_GAS_LIMIT: "OP Stack Jovian blobGasUsed (DA footprint) above gasLimit",
  OP_REQUESTS_HASH: "OP Stack Isthmus requestsHash is not sha256 of the empty string",
} as const;

export type HeaderInvalidCode = keyof typeof HEADER_INVALID_MESSAGES;

/** Yellow Paper / geth `params.MaximumExtraDataSize`. */
export const MAX_EXTRA_DATA_BYTES = 32;
/** geth `params.MaxGasLimit` (2^63-1). */
export const MAX_GAS_LIMIT = (1n << 63n) - 1n;
/** geth `params.MinGasLimit`. */
export const MIN_GAS_LIMIT = 5000n;
/** geth `params.GasLimitBoundDivisor`. */
export const GAS_LIMIT_BOUND_DIVISOR = 1024n;
/**
 * sha256 of the empty string: OP Stack Isthmus `requestsHash` (no EIP-7685 requests on L2;
 * SPEC: isthmus/exec-engine.md, docs op-stack.md §3.6).
 */
export const OP_EMPTY_REQUESTS_HASH: Uint8Array = hexToBytes(
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
);

/**
 * Checks `header` against `parent` under `cfg`. `parentHash`, when given, is taken as the parent's
 * hash instead of hashing `parent` again (callers usually know it). The order of checks follows
 * geth's `verifyHeader`, so the first code is the one geth would report for a single broken rule.
 */
export function validateHeader(
  header: Header,
  parent: Header,
  cfg: ChainConfig,
  parentHash?: Uint8Array,
): HeaderInvalidCode | null {
  if (header.number !== parent.number + 1) return "NUMBER";
  if (!equalBytes(header.parentHash, parentHash ?? headerHash(parent))) return "PARENT_HASH";
  const rules = rulesAt(cfg, header.number, header.timestamp);
  const op = cfg.optimism !== null && rules.op !== null ? rules.op : null;

  if (header.extraData.length > MAX_EXTRA_DATA_BYTES) return "EXTRA_DATA_TOO_LONG";
  if (op !== null && op >= OpFork.Holocene) {
    // SPEC: holocene/exec-engine.md#eip-1559-parameters-in-block-header and its Jovian extension.
    // op-geth checks this at newPayload; it is a header-only rule, so it lives here.
    try {
      decodeOpExtraData(header.extraData, op);
    } catch {
      return "EXTRA_DATA_FORMAT";
    }
  }
  if (rules.fork >= Fork.Paris) {
    if (!isZeroBytes(header.nonce)) return "NONCE_NOT_ZERO";
    if (!equalBytes(header.ommersHash, EMPTY_OMMERS_HASH)) return "OMMERS_HASH_NOT_EMPTY";
  }
  if (header.timestamp <= parent.timestamp) return "TIMESTAMP";
  if (rules.fork >= Fork.Paris && header.difficulty !== 0n) return "DIFFICULTY_NOT_ZERO";
  if (header.gasLimit > MAX_GAS_LIMIT) return "GAS_LIMIT_TOO_HIGH";
  if (BigInt(header.gasUsed) > header.gasLimit) return "GAS_USED_EXCEEDS_LIMIT";

  const code = checkGasLimitAndBaseFee(header, parent, cfg, rules.fork, op);
  if (code !== null) return code;

  const shanghai = rules.fork >= Fork.Shanghai;
  if (shanghai && header.withdrawalsRoot === null) return "WITHDRAWALS_ROOT_MISSING";
  if (!shanghai && header.withdrawalsRoot !== null) return "WITHDRAWALS_ROOT_UNEXPECTED";

  if (rules.fork < Fork.Cancun) {
    if (header.excessBlobGas !== null) return "EXCESS_BLOB_GAS_UNEXPECTED";
    if (header.blobGasUsed !== null) return "BLOB_GAS_USED_UNEXPECTED";
    if (header.parentBeaconBlockRoot !== null) return "PARENT_BEACON_ROOT_UNEXPECTED";
  } else {
    if (header.parentBeaconBlockRoot === null) return "PARENT_BEACON_ROOT_MISSING";
    const blob = checkBlobGas(header, parent, cfg, rules.fork, op);
    if (blob !== null) return blob;
  }

  const prague = rules.fork >= Fork.Prague;
  if (prague && header.requestsHash === null) return "REQUESTS_HASH_MISSING";
  if (!prague && header.requestsHash !== null) return "REQUESTS_HASH_UNEXPECTED";
  if (prague && op !== null && op >= OpFork.Isthmus && !equalBytes(header.requestsHash!, OP_EMPTY_REQUESTS_HASH)) {
    return "OP_REQUESTS_HASH";
  }
  return null;
}

/**
 * Base fee of the child of `parent` under OP fork `op` (null on L1 chains), or null when the
 * parent's base fee or extraData parameters are missing or malformed. Block building uses the same.
 */
export function expectedBaseFee(parent: Header, cfg: ChainConfig, op: OpFork | null): bigint | null {
  const parentIsLondon = isLondon(cfg, parent.number);
  if (op !== null && cfg.optimism !== null) {
    const parentOp = rulesAt(cfg, parent.number, parent.timestamp).op ?? OpFork.Bedrock;
    return nextBaseFeeOp(parent, parentIsLondon, parentOp, op, cfg.optimism);
  }
  return nextBaseFeeL1(parent, parentIsLondon);
}

/** excessBlobGas of the child of `parent` at `timestamp` (0 on OP chains). */
export function expectedExcessBlobGas(parent: Header, cfg: ChainConfig, fork: Fork, timestamp: number): number {
  if (cfg.optimism !== null) return 0;
  const params = blobParamsAt(cfg, timestamp);
  if (params === null) return 0;
  const parentExcess = parent.excessBlobGas ?? 0;
  const parentUsed = parent.excessBlobGas !== null ? (parent.blobGasUsed ?? 0) : 0;
  return calcExcessBlobGas(parentExcess, parentUsed, parent.baseFeePerGas ?? 0n, params, fork >= Fork.Osaka);
}

/** geth `VerifyEIP1559Header` / ethash pre-London gas limit rule, and the base fee value. */
function checkGasLimitAndBaseFee(
  header: Header,
  parent: Header,
  cfg: ChainConfig,
  fork: Fork,
  op: OpFork | null,
): HeaderInvalidCode | null {
  const parentIsLondon = isLondon(cfg, parent.number);
  const london = fork >= Fork.London;
  // SPEC: op-geth VerifyEIP1559Header skips VerifyGaslimit when Optimism is set: the L2 gas limit
  // follows the SystemConfig and may change in one block, and there is no 5000 floor either.
  if (cfg.optimism === null) {
    // SPEC: EIP-1559: the London fork block's limit is judged against parent limit × elasticity.
    const parentLimit = london && !parentIsLondon ? parent.gasLimit * 2n : parent.gasLimit;
    const diff = header.gasLimit > parentLimit ? header.gasLimit - parentLimit : parentLimit - header.gasLimit;
    if (diff >= parentLimit / GAS_LIMIT_BOUND_DIVISOR) return "GAS_LIMIT_BOUND";
    if (header.gasLimit < MIN_GAS_LIMIT) return "GAS_LIMIT_TOO_LOW";
  }
  if (!london) return header.baseFeePerGas !== null ? "BASE_FEE_UNEXPECTED" : null;
  if (header.baseFeePerGas === null) return "BASE_FEE_MISSING";
  const expected = expectedBaseFee(parent, cfg, op);
  if (expected === null) return "PARENT_BASE_FEE_PARAMS";
  return header.baseFeePerGas === expected ? null : "BASE_FEE_MISMATCH";
}

/** geth / op-geth `VerifyEIP4844Header` (presence, limits, excessBlobGas) and the OP Stack blob rules. */
function checkBlobGas(
  header: Header,
  parent: Header,
  cfg: ChainConfig,
  fork: Fork,
  op: OpFork | null,
): HeaderInvalidCode | null {
  if (header.excessBlobGas === null) return "EXCESS_BLOB_GAS_MISSING";
  if (header.blobGasUsed === null) return "BLOB_GAS_USED_MISSING";
  if (cfg.optimism !== null) {
    // SPEC: op-geth CalcExcessBlobGas returns 0 on OP chains: L2 has no blob market. Karst's Osaka
    // EVM changes nothing here (no EIP-7918 reserve price, no BPO schedule): op-reth's
    // `validate_header_against_parent` still wants excessBlobGas 0 (consensus lib.rs, mantle-v2 c19ebc83).
    if (header.excessBlobGas !== 0) return "EXCESS_BLOB_GAS_MISMATCH";
    // SPEC: blobGasUsed is 0 until Jovian (docs op-stack.md §3.6); from Jovian it is the DA
    // footprint and must not exceed gasLimit (jovian/exec-engine.md#da-footprint-block-limit).
    if (op !== null && op >= OpFork.Jovian) {
      return BigInt(header.blobGasUsed) > header.gasLimit ? "OP_DA_FOOTPRINT_ABOVE_GAS_LIMIT" : null;
    }
    return header.blobGasUsed !== 0 ? "OP_BLOB_GAS_USED_NOT_ZERO" : null;
  }
  const params = blobParamsAt(cfg, header.timestamp);
  if (params === null) return "NO_BLOB_PARAMS";
  if (header.blobGasUsed > maxBlobGasPerBlock(params)) return "BLOB_GAS_USED_ABOVE_MAX";
  if (header.blobGasUsed % GAS_PER_BLOB !== 0) return "BLOB_GAS_USED_NOT_BLOB_MULTIPLE";
  // SPEC: a pre-Cancun parent counts as excess 0, used 0 (EIP-4844 calc_excess_blob_gas).
  const expected = expectedExcessBlobGas(parent, cfg, fork, header.timestamp);
  return header.excessBlobGas === expected ? null : "EXCESS_BLOB_GAS_MISMATCH";
}

/**
 * The gas limit a builder gives the child of a block with `parentGasLimit` when it aims for
 * `desired` (geth core.CalcGasLimit): one step of parent/1024 − 1 towards the target, never past it.
 */
export function calcGasLimit(parentGasLimit: bigint, desired: bigint): bigint {
  const delta = parentGasLimit / GAS_LIMIT_BOUND_DIVISOR - 1n;
  const target = desired < MIN_GAS_LIMIT ? MIN_GAS_LIMIT : desired;
  if (parentGasLimit < target) {
    const up = parentGasLimit + delta;
    return up > target ? target : up;
  }
  if (parentGasLimit > target) {
    const down = parentGasLimit - delta;
    return down < target ? target : down;
  }
  return parentGasLimit;
}
