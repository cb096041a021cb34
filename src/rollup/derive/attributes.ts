/**
 * Payload attributes of the next L2 block (SPEC: protocol/derivation.md#building-individual-payload-
 * attributes; op-stack.md §2.8; op-node derive/attributes.go `PreparePayloadAttributes`): the
 * L1-attributes deposit first, then the epoch's user deposits (first block of an epoch only), then
 * the network-upgrade deposits of a fork's activation block. The gas limit is the system config's,
 * plus the one-time upgrade gas in the Karst activation block. The batch's own transactions are
 * appended by the caller (derivation) or by the sequencer's tx pool.
 *
 * Errors are classed as derivation needs them: an L1 fetch failure is temporary, an origin that no
 * longer links to the parent's origin is a reset (L1 reorged under us), a deposit log that cannot be
 * decoded is critical (deposits may never be skipped).
 */

import { blobBaseFee } from "../../block/blobGas.js";
import type { Receipt } from "../../block/receipt.js";
import { equalBytes, padLeft } from "../../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import { bytesToBigint } from "../../primitives/u256.js";
import { blobParamsAt, type ChainConfig, DEFAULT_CANCUN_BLOB_PARAMS } from "../../spec/chainConfig.js";
import { encodeTx } from "../../tx/envelope.js";
import { DA_FOOTPRINT_GAS_SCALAR_DEFAULT, type L1BlockInfo, L1InfoFormat } from "../../tx/l1BlockInfo.js";
import { l1InfoDepositTx } from "../../tx/l1InfoDeposit.js";
import { isForkActivationBlock, isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { BlockId, L1BlockRef, L2BlockRef } from "../refs.js";
import { DepositLogError, depositsFromReceipts } from "./depositLog.js";
import { criticalError, resetError, temporaryError } from "./errors.js";
import { applyConfigUpdateLogs, ecotoneScalars, type SystemConfig } from "./systemConfig.js";
import { upgradeGasAt, upgradeTxsAt } from "./upgradeTxs.js";

/** The SequencerFeeVault predeploy: every OP block's fee recipient. */
export const SEQUENCER_FEE_VAULT: Uint8Array = hexToBytes("0x4200000000000000000000000000000000000011");

/** What derivation needs of an L1 header beyond its reference. */
export interface L1Info extends L1BlockRef {
  readonly baseFee: bigint;
  /** 32 bytes: the L2 block's prevRandao. */
  readonly mixHash: Uint8Array;
  /** null before Cancun on L1. */
  readonly excessBlobGas: number | null;
  /** null before Cancun on L1. */
  readonly parentBeaconBlockRoot: Uint8Array | null;
}

/** The L1 reads attributes need (the L1 client implements it; tests fake it). */
export interface L1InfoSource {
  infoByHash(hash: Uint8Array): Promise<L1Info>;
  fetchReceipts(hash: Uint8Array): Promise<{ info: L1Info; receipts: readonly Receipt[] }>;
}

/** The L2 read attributes need: the system config in effect after an L2 block. */
export interface SystemConfigSource {
  systemConfigByL2Hash(hash: Uint8Array): Promise<SystemConfig>;
}

/** Engine API payload attributes with the OP extensions (op-service eth.PayloadAttributes). */
export interface PayloadAttributes {
  readonly timestamp: number;
  readonly prevRandao: Uint8Array;
  readonly suggestedFeeRecipient: Uint8Array;
  /** EIP-2718 encoded, deposits first. */
  readonly transactions: readonly Uint8Array[];
  readonly noTxPool: boolean;
  readonly gasLimit: bigint;
  /** [] from Canyon; null before. */
  readonly withdrawals: readonly never[] | null;
  /** From Ecotone; null before. */
  readonly parentBeaconBlockRoot: Uint8Array | null;
  /** 8 bytes from Holocene; null before. */
  readonly eip1559Params: Uint8Array | null;
  /** From Jovian; null before. */
  readonly minBaseFee: bigint | null;
}

/** Attributes with the L2 parent they build on (op-node `AttributesWithParent`). */
export interface AttributesWithParent {
  readonly attributes: PayloadAttributes;
  readonly parent: L2BlockRef;
  /** The batch was the last of its span (Holocene: the pipeline may drop the rest of the channel). */
  readonly isLastInSpan: boolean;
  /** The L1 block derivation was at when these attributes were made. */
  readonly derivedFrom: L1BlockRef;
}

const quantity = (n: number | bigint): string => `0x${n.toString(16)}`;

/** The Engine API JSON of attributes (PayloadAttributesV1–V3 with the OP fields). */
export function attributesJson(a: PayloadAttributes): Record<string, unknown> {
  const out: Record<string, unknown> = {
    timestamp: quantity(a.timestamp),
    prevRandao: bytesToHex(a.prevRandao),
    suggestedFeeRecipient: bytesToHex(a.suggestedFeeRecipient),
    transactions: a.transactions.map(bytesToHex),
    noTxPool: a.noTxPool,
    gasLimit: quantity(a.gasLimit),
  };
  if (a.withdrawals !== null) out.withdrawals = [];
  if (a.parentBeaconBlockRoot !== null) out.parentBeaconBlockRoot = bytesToHex(a.parentBeaconBlockRoot);
  if (a.eip1559Params !== null) out.eip1559Params = bytesToHex(a.eip1559Params);
  if (a.minBaseFee !== null) out.minBaseFee = quantity(a.minBaseFee);
  return out;
}

/**
 * The blob base fee the L1-attributes deposit reports for an L1 origin: 1 when L1 has no blobs yet,
 * else EIP-4844's fee at the header's excess blob gas under the L1 fork's update fraction — the L1
 * chain config's blob schedule when known, else Cancun's. `pectra_blob_schedule_time` keeps Cancun's
 * fraction before that time (the Sepolia/Holesky fix of op-node v1.12).
 */
export function l1BlobBaseFee(cfg: RollupConfig, l1Chain: ChainConfig | null, info: L1Info): bigint {
  if (info.excessBlobGas === null) return 1n;
  let params = l1Chain === null ? DEFAULT_CANCUN_BLOB_PARAMS : (blobParamsAt(l1Chain, info.timestamp) ?? null);
  if (params === null) params = DEFAULT_CANCUN_BLOB_PARAMS;
  const pectraFix = cfg.pectraBlobScheduleTime;
  if (pectraFix !== null && info.timestamp < pectraFix) params = DEFAULT_CANCUN_BLOB_PARAMS;
  return blobBaseFee(info.excessBlobGas, params.baseFeeUpdateFraction);
}

/** Is `fork` active at `ts` and not activating there (its L1Block upgrade already ran)? */
function settled(cfg: RollupConfig, fork: "ecotone" | "isthmus" | "jovian", ts: number): boolean {
  return isForkActive(cfg, fork, ts) && !isForkActivationBlock(cfg, fork, ts);
}

/** The calldata layout of the L1-attributes deposit of an L2 block at `l2Time` (op-node `L1InfoDeposit`). */
export function l1InfoFormatFor(cfg: RollupConfig, l2Time: number): L1InfoFormat {
  if (settled(cfg, "jovian", l2Time)) return L1InfoFormat.Jovian;
  if (settled(cfg, "isthmus", l2Time)) return L1InfoFormat.Isthmus;
  if (settled(cfg, "ecotone", l2Time)) return L1InfoFormat.Ecotone;
  return L1InfoFormat.Bedrock;
}

/** The L1 block info an L2 block at `l2Time` records for origin `info` (op-node `L1InfoDeposit`). */
export function l1BlockInfoFor(
  cfg: RollupConfig,
  l1Chain: ChainConfig | null,
  sc: SystemConfig,
  seqNumber: number,
  info: L1Info,
  l2Time: number,
): L1BlockInfo {
  const format = l1InfoFormatFor(cfg, l2Time);
  const base = {
    format,
    number: BigInt(info.number),
    timestamp: BigInt(info.timestamp),
    baseFee: info.baseFee,
    hash: info.hash,
    batcherHash: padLeft(sc.batcherAddr, 32),
    sequenceNumber: BigInt(seqNumber),
  };
  if (format === L1InfoFormat.Bedrock) {
    return {
      ...base,
      blobBaseFee: 0n,
      l1FeeOverhead: bytesToBigint(sc.overhead),
      l1FeeScalar: bytesToBigint(sc.scalar),
      baseFeeScalar: 0,
      blobBaseFeeScalar: 0,
      operatorFeeScalar: 0,
      operatorFeeConstant: 0n,
      daFootprintGasScalar: 0,
    };
  }
  const scalars = ecotoneScalars(sc);
  const isthmus = format === L1InfoFormat.Isthmus || format === L1InfoFormat.Jovian;
  const op = sc.operatorFeeParams;
  // operatorFeeParams word: scalar u32 at bytes [20..24), constant u64 at [24..32).
  const opScalar = isthmus ? ((op[20]! << 24) | (op[21]! << 16) | (op[22]! << 8) | op[23]!) >>> 0 : 0;
  const opConstant = isthmus ? bytesToBigint(op.subarray(24, 32)) : 0n;
  let daScalar = 0;
  if (format === L1InfoFormat.Jovian) {
    daScalar = sc.daFootprintGasScalar === 0 ? DA_FOOTPRINT_GAS_SCALAR_DEFAULT : sc.daFootprintGasScalar;
  }
  return {
    ...base,
    blobBaseFee: l1BlobBaseFee(cfg, l1Chain, info),
    l1FeeOverhead: 0n,
    l1FeeScalar: 0n,
    baseFeeScalar: scalars.baseFeeScalar,
    blobBaseFeeScalar: scalars.blobBaseFeeScalar,
    operatorFeeScalar: opScalar,
    operatorFeeConstant: opConstant,
    daFootprintGasScalar: daScalar,
  };
}

/** The encoded L1-attributes deposit of an L2 block at `l2Time`. */
export function l1InfoDepositBytes(
  cfg: RollupConfig,
  l1Chain: ChainConfig | null,
  sc: SystemConfig,
  seqNumber: number,
  info: L1Info,
  l2Time: number,
): Uint8Array {
  const regolith = isForkActive(cfg, "regolith", l2Time);
  return encodeTx(l1InfoDepositTx(l1BlockInfoFor(cfg, l1Chain, sc, seqNumber, info, l2Time), regolith));
}

export interface AttributesDeps {
  readonly l1: L1InfoSource;
  readonly l2: SystemConfigSource;
  /** The L1 chain config (blob base fee schedule); null when unknown. */
  readonly l1Chain: ChainConfig | null;
  /** Called with each malformed ConfigUpdate that was skipped. */
  readonly warn?: (message: string) => void;
}

/**
 * The attributes of the block after `parent` with L1 origin `epoch` (op-node
 * `FetchingAttributesBuilder.PreparePayloadAttributes`). Throws DeriveError.
 */
export async function preparePayloadAttributes(
  cfg: RollupConfig,
  deps: AttributesDeps,
  parent: L2BlockRef,
  epoch: BlockId,
): Promise<PayloadAttributes> {
  let sc: SystemConfig;
  try {
    sc = await deps.l2.systemConfigByL2Hash(parent.hash);
  } catch (e) {
    throw temporaryError(`failed to retrieve the system config of L2 block ${parent.number}`, e);
  }
  let info: L1Info;
  let deposits: Uint8Array[] = [];
  let seqNumber: number;
  if (parent.l1origin.number !== epoch.number) {
    let receipts: readonly Receipt[];
    try {
      const r = await deps.l1.fetchReceipts(epoch.hash);
      info = r.info;
      receipts = r.receipts;
    } catch (e) {
      throw temporaryError(`failed to fetch L1 block info and receipts of ${bytesToHex(epoch.hash)}`, e);
    }
    if (!equalBytes(parent.l1origin.hash, info.parentHash)) {
      throw resetError(
        `cannot create new block with L1 origin ${epoch.number} (parent ${bytesToHex(info.parentHash)}) on top of L1 origin ${parent.l1origin.number} (${bytesToHex(parent.l1origin.hash)})`,
      );
    }
    try {
      deposits = depositsFromReceipts(receipts, info.hash, cfg.depositContractAddress).map((d) => encodeTx(d));
    } catch (e) {
      if (e instanceof DepositLogError) throw criticalError(`failed to derive some deposits: ${e.message}`, e);
      throw e;
    }
    const updated = applyConfigUpdateLogs(sc, receipts, cfg.l1SystemConfigAddress, cfg, info.timestamp);
    sc = updated.config;
    for (const w of updated.warnings) deps.warn?.(w);
    seqNumber = 0;
  } else {
    if (!equalBytes(parent.l1origin.hash, epoch.hash)) {
      throw resetError(
        `cannot create new block with L1 origin ${epoch.number} (${bytesToHex(epoch.hash)}) in conflict with L1 origin ${bytesToHex(parent.l1origin.hash)}`,
      );
    }
    try {
      info = await deps.l1.infoByHash(epoch.hash);
    } catch (e) {
      throw temporaryError(`failed to fetch L1 block info of ${bytesToHex(epoch.hash)}`, e);
    }
    seqNumber = parent.sequenceNumber + 1;
  }

  const nextTime = parent.timestamp + cfg.blockTime;
  if (nextTime < info.timestamp) {
    throw resetError(
      `cannot build L2 block on top of ${parent.number} for time ${nextTime} before L1 origin ${info.number} at time ${info.timestamp}`,
    );
  }
  const txs: Uint8Array[] = [l1InfoDepositBytes(cfg, deps.l1Chain, sc, seqNumber, info, nextTime)];
  for (const d of deposits) txs.push(d);
  for (const u of upgradeTxsAt(cfg, nextTime)) txs.push(u);

  return {
    timestamp: nextTime,
    prevRandao: info.mixHash,
    suggestedFeeRecipient: SEQUENCER_FEE_VAULT,
    transactions: txs,
    noTxPool: true,
    // op-node v1.19.1 attributes.go: `GasLimit = sysConfig.GasLimit + upgradeGas`, the config after
    // this origin's ConfigUpdate logs plus the NUT bundle's gas in its activation block.
    gasLimit: sc.gasLimit + upgradeGasAt(cfg, nextTime),
    withdrawals: isForkActive(cfg, "canyon", nextTime) ? [] : null,
    parentBeaconBlockRoot: isForkActive(cfg, "ecotone", nextTime)
      ? (info.parentBeaconBlockRoot ?? new Uint8Array(32))
      : null,
    eip1559Params: isForkActive(cfg, "holocene", nextTime) ? sc.eip1559Params : null,
    minBaseFee: isForkActive(cfg, "jovian", nextTime) ? sc.minBaseFee : null,
  };
}
