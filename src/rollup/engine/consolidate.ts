/**
 * Consolidation: does an existing unsafe block equal what derivation would build from the L1 data
 * (op-node engine/attributes.go `AttributesMatchBlock`)? Compared: parent, timestamp, prevRandao, fee
 * recipient, every transaction (by hash, which is the hash of its exact EIP-2718 bytes), gas limit,
 * withdrawals from Canyon, the parent beacon root from Ecotone, the EIP-1559 parameters of
 * extraData from Holocene (all-zero attributes mean the Canyon constants) and the minimum base fee
 * from Jovian. Returns null on a match, else the first difference as a sentence for the log.
 */
import { decodeHoloceneExtraData, decodeJovianExtraData } from "../../block/opExtraData.js";
import { keccak256 } from "../../crypto/keccak.js";
import { equalBytes, isZeroBytes, readUint32BE } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { EMPTY_TRIE_ROOT } from "../../trie/orderedRoot.js";
import { isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { PayloadAttributes } from "../derive/attributes.js";
import type { L2Block } from "./engineClient.js";

export function attributesMismatch(
  cfg: RollupConfig,
  attrs: PayloadAttributes,
  parentHash: Uint8Array,
  block: L2Block,
): string | null {
  const b = block.ref;
  if (!equalBytes(b.parentHash, parentHash)) {
    return `parent hash field does not match: expected ${bytesToHex(parentHash)}, got ${bytesToHex(b.parentHash)}`;
  }
  if (attrs.timestamp !== b.timestamp) return `timestamp: expected ${attrs.timestamp}, got ${b.timestamp}`;
  if (!equalBytes(attrs.prevRandao, block.prevRandao)) return "random field does not match";
  if (attrs.transactions.length !== block.txs.length) {
    return `transaction count does not match: expected ${attrs.transactions.length}, got ${block.txs.length}`;
  }
  for (let i = 0; i < attrs.transactions.length; i++) {
    if (!equalBytes(keccak256(attrs.transactions[i]!), block.txs[i]!.hash)) {
      return `transaction ${i} does not match: expected ${bytesToHex(keccak256(attrs.transactions[i]!))}, got ${bytesToHex(block.txs[i]!.hash)}`;
    }
  }
  if (attrs.gasLimit !== block.gasLimit) return `gas limit: expected ${attrs.gasLimit}, got ${block.gasLimit}`;
  if (isForkActive(cfg, "canyon", attrs.timestamp)) {
    // op-node checkWithdrawals: from Canyon the block's withdrawals list is present and empty; from
    // Isthmus its header also carries withdrawalsRoot, which is then the L2ToL1MessagePasser's
    // storage root (not the empty list's root), so the list is what is compared, never the root.
    if (attrs.withdrawals === null) return "expected withdrawals in the attributes from Canyon";
    const count =
      block.withdrawalCount ??
      (block.withdrawalsRoot !== null && equalBytes(block.withdrawalsRoot, EMPTY_TRIE_ROOT) ? 0 : null);
    if (isForkActive(cfg, "isthmus", attrs.timestamp)) {
      if (block.withdrawalCount !== 0) return "isthmus: expected an empty withdrawals list in the block";
      if (block.withdrawalsRoot === null) return "isthmus: expected withdrawalsRoot in the block";
    } else if (count !== 0) {
      return "block has withdrawals";
    }
  }
  if (!equalBytes(attrs.suggestedFeeRecipient, block.feeRecipient)) {
    return `fee recipient: expected ${bytesToHex(attrs.suggestedFeeRecipient)}, got ${bytesToHex(block.feeRecipient)}`;
  }
  const root = attrs.parentBeaconBlockRoot;
  if (root !== null || block.parentBeaconBlockRoot !== null) {
    if (root === null || block.parentBeaconBlockRoot === null || !equalBytes(root, block.parentBeaconBlockRoot)) {
      return "parent beacon block root does not match";
    }
  }
  if (isForkActive(cfg, "holocene", attrs.timestamp)) {
    const why = eip1559Mismatch(cfg, attrs, block.extraData);
    if (why !== null) return why;
  }
  return null;
}

function eip1559Mismatch(cfg: RollupConfig, attrs: PayloadAttributes, extra: Uint8Array): string | null {
  if (attrs.eip1559Params === null) return "expected eip1559Params in the attributes from Holocene";
  let denominator: number;
  let elasticity: number;
  let minBaseFee: bigint | null;
  try {
    const p = isForkActive(cfg, "jovian", attrs.timestamp)
      ? decodeJovianExtraData(extra)
      : decodeHoloceneExtraData(extra);
    denominator = p.denominator;
    elasticity = p.elasticity;
    minBaseFee = p.minBaseFee;
  } catch (e) {
    return `invalid extraData: ${(e as Error).message}`;
  }
  let wantD = readUint32BE(attrs.eip1559Params, 0);
  let wantE = readUint32BE(attrs.eip1559Params, 4);
  if (isZeroBytes(attrs.eip1559Params)) {
    // Zero parameters select the chain's Canyon constants (op-node checkEIP1559ParamsMatch).
    const op = cfg.chainOpConfig;
    if (op === null) return null;
    wantD = op.eip1559DenominatorCanyon ?? op.eip1559Denominator;
    wantE = op.eip1559Elasticity;
  }
  if (wantD !== denominator || wantE !== elasticity) {
    return `eip1559 parameters do not match: expected ${wantD}/${wantE}, got ${denominator}/${elasticity}`;
  }
  if (attrs.minBaseFee !== null && (minBaseFee ?? 0n) !== attrs.minBaseFee) {
    return `min base fee does not match: expected ${attrs.minBaseFee}, got ${minBaseFee}`;
  }
  return null;
}
