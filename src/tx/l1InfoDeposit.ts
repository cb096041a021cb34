/**
 * The L1-attributes deposit that opens every OP block (SPEC: specs/protocol/deposits.md
 * #l1-attributes-deposited-transaction; op-stack.md §2.9): from the depositor account
 * 0xDeaD…0001 to the L1Block predeploy, no mint or value, its calldata the block's L1BlockInfo.
 * Its source hash is domain 1 over the L1 origin hash and the sequence number, so every L2 block
 * of an epoch gets a distinct deposit.
 *
 * Which calldata format a block carries depends on the fork of the block *and* of its parent: a
 * fork's activation block still uses the previous fork's call, because the L1Block contract is
 * upgraded by that block's own upgrade deposits (`l1InfoFormatAt`).
 */

import { keccak256 } from "../crypto/keccak.js";
import { concatBytes } from "../primitives/bytes.js";
import { bigintToBytes32 } from "../primitives/u256.js";
import type { ChainConfig } from "../spec/chainConfig.js";
import { L1_BLOCK_ADDRESS, L1_INFO_DEPOSITOR } from "../spec/opAddresses.js";
import { DepositSourceDomain, depositSourceHash } from "./depositSourceHash.js";
import { encodeL1BlockInfo, type L1BlockInfo, L1InfoFormat } from "./l1BlockInfo.js";
import { type DepositTx, TxType } from "./tx.js";

/** Gas of the deposit from Regolith on (a non-system tx that must not fail). */
export const L1_INFO_GAS_REGOLITH = 1_000_000n;
/** Gas of the deposit before Regolith (a system tx, its gas not charged to the block). */
export const L1_INFO_GAS_BEDROCK = 150_000_000n;

/** keccak256(bytes32(1) ‖ keccak256(l1BlockHash ‖ bytes32(sequenceNumber))). */
export function l1InfoSourceHash(l1BlockHash: Uint8Array, sequenceNumber: bigint): Uint8Array {
  const inner = keccak256(concatBytes(l1BlockHash, bigintToBytes32(sequenceNumber)));
  return depositSourceHash(DepositSourceDomain.L1Info, inner);
}

function reachedAfter(time: number | null, timestamp: number, parentTimestamp: number): boolean {
  // Active at this block and already active at its parent: not the activation block.
  return time !== null && timestamp >= time && parentTimestamp >= time;
}

/**
 * The calldata format of the L1-attributes deposit of a block at `timestamp` whose parent is at
 * `parentTimestamp` (op-node `L1InfoDeposit`): the newest of Jovian, Isthmus and Ecotone that is
 * active at the block and was already active at its parent, else Bedrock. The genesis block of a
 * chain with a fork at time 0 has no parent; pass its own timestamp.
 */
export function l1InfoFormatAt(cfg: ChainConfig, timestamp: number, parentTimestamp: number): L1InfoFormat {
  if (reachedAfter(cfg.jovianTime, timestamp, parentTimestamp)) return L1InfoFormat.Jovian;
  if (reachedAfter(cfg.isthmusTime, timestamp, parentTimestamp)) return L1InfoFormat.Isthmus;
  if (reachedAfter(cfg.ecotoneTime, timestamp, parentTimestamp)) return L1InfoFormat.Ecotone;
  return L1InfoFormat.Bedrock;
}

/**
 * The L1-attributes deposit carrying `info` in `info.format`. `regolith` selects the gas and the
 * system-tx flag (Regolith made it an ordinary deposit with 1M gas).
 */
export function l1InfoDepositTx(info: L1BlockInfo, regolith: boolean): DepositTx {
  return {
    type: TxType.Deposit,
    sourceHash: l1InfoSourceHash(info.hash, info.sequenceNumber),
    from: L1_INFO_DEPOSITOR,
    to: L1_BLOCK_ADDRESS,
    mint: 0n,
    value: 0n,
    gasLimit: regolith ? L1_INFO_GAS_REGOLITH : L1_INFO_GAS_BEDROCK,
    isSystemTx: !regolith,
    data: encodeL1BlockInfo(info),
  };
}
