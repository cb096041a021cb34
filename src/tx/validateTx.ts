/**
 * Stateless validity of a decoded tx under a fork: everything that needs neither state nor the block
 * header (execution-specs validate_transaction / recover_sender / check_transaction's stateless
 * part; ethereum/tests TransactionTests). Returns a TxInvalidCode or null; no throws (§10.2).
 *
 * Not checked here (stateful or header-bound, the executor's and pool's): nonce equality, balance,
 * maxFee ≥ baseFee, maxFeePerBlobGas ≥ blob base fee, sender has no code, block gas/blob gas room,
 * KZG commitments/proofs of pooled blob txs.
 */
import { SECP256K1_HALF_N, SECP256K1_N } from "../crypto/secp256k1.js";
import { Fork, type ForkRules } from "../spec/forks.js";
import { VERSIONED_HASH_VERSION_KZG } from "./eip4844.js";
import type { TxInvalidCode } from "./errors.js";
import { floorDataGas, intrinsicGas, MAX_INITCODE_SIZE, MAX_TX_GAS_LIMIT_OSAKA } from "./intrinsicGas.js";
import { legacyChainId } from "./legacy.js";
import { recoverSender } from "./signer.js";
import { type Tx, TxType, txMaxFeePerGas } from "./tx.js";

const TWO_64 = 1n << 64n;
const TWO_256 = 1n << 256n;
/** EIP-2681: the largest nonce a tx may carry is 2^64 - 2. */
const NONCE_LIMIT = TWO_64 - 1n;

/** What a tx is validated against; resolve once per block or per pool configuration (§10.7). */
export interface TxValidationContext {
  readonly rules: ForkRules;
  /** The chain's id (typed txs must carry it; EIP-155 v must encode it). */
  readonly chainId: bigint;
  /**
   * Accept deposits (0x7E). True only where deposits legitimately come from: OP blocks and engine-API
   * payload attributes; false for pool and RPC submissions (op-stack.md §3.1).
   */
  readonly allowDeposit?: boolean;
  /** Blob limit per tx; defaults to maxBlobsPerTx(fork). Set it for BPO blob schedules. */
  readonly maxBlobsPerTx?: number;
  /**
   * The caller has the sender already (or recovers it alongside execution, tx/sharedRecovery.ts)
   * and reports a failed recovery itself as SENDER_RECOVERY_FAILED: skip the recovery here.
   */
  readonly senderKnown?: boolean;
}

/**
 * Default blob count limit per tx: the block maximum in Cancun (6) and Prague (9), and EIP-7594's
 * per-tx limit of 6 from Osaka. OP chains, Karst included, take no blob txs at all (`typeSupported`).
 */
export function maxBlobsPerTx(fork: Fork): number {
  if (fork >= Fork.Osaka) return 6;
  if (fork >= Fork.Prague) return 9;
  return 6;
}

function typeSupported(tx: Tx, rules: ForkRules): boolean {
  switch (tx.type) {
    case TxType.Legacy:
      return true;
    case TxType.AccessList:
      return rules.fork >= Fork.Berlin;
    case TxType.FeeMarket:
      return rules.fork >= Fork.London;
    case TxType.Blob:
      // SPEC: OP Stack chains have no blob txs (op-geth rejects type 3 on OP chains).
      return rules.fork >= Fork.Cancun && rules.op === null;
    case TxType.SetCode:
      return rules.fork >= Fork.Prague;
    case TxType.Deposit:
      return rules.op !== null;
  }
}

/** Returns why `tx` is invalid under `ctx`, or null when it passes every stateless rule. */
export function validateTx(tx: Tx, ctx: TxValidationContext): TxInvalidCode | null {
  const { rules } = ctx;
  const fork = rules.fork;
  if (!typeSupported(tx, rules)) return "TYPE_NOT_SUPPORTED";
  if (tx.type === TxType.Deposit) {
    // SPEC: deposits skip signature, nonce, fee and intrinsic-gas checks; a deposit that cannot pay
    // its intrinsic gas (or a post-Regolith system tx) fails in execution but stays in the block.
    return ctx.allowDeposit === true ? null : "DEPOSIT_NOT_ALLOWED";
  }

  // Chain id and signature parity.
  if (tx.type === TxType.Legacy) {
    const cid = legacyChainId(tx.v);
    if (cid !== null) {
      // SPEC: EIP-155 v values are only recognised from Spurious Dragon; before it only 27/28 verify.
      if (fork < Fork.SpuriousDragon) return "INVALID_SIGNATURE";
      if (cid !== ctx.chainId) return "INVALID_CHAIN_ID";
    }
  } else {
    if (tx.chainId !== ctx.chainId) return "INVALID_CHAIN_ID";
    if (tx.yParity > 1) return "INVALID_SIGNATURE";
  }

  // Type-specific shape.
  if (tx.type === TxType.Blob) {
    if (tx.to === null) return "CREATE_NOT_ALLOWED";
    const hashes = tx.blobVersionedHashes;
    if (hashes.length === 0) return "NO_BLOB_HASHES";
    if (hashes.length > (ctx.maxBlobsPerTx ?? maxBlobsPerTx(fork))) return "BLOB_COUNT_EXCEEDED";
    for (let i = 0; i < hashes.length; i++) {
      if (hashes[i].length !== 32 || hashes[i][0] !== VERSIONED_HASH_VERSION_KZG) return "BLOB_HASH_VERSION";
    }
    if (tx.maxFeePerBlobGas < 0n || tx.maxFeePerBlobGas >= TWO_256) return "FIELD_OVERFLOW";
  } else if (tx.type === TxType.SetCode) {
    if (tx.to === null) return "CREATE_NOT_ALLOWED";
    if (tx.authorizationList.length === 0) return "EMPTY_AUTHORIZATION_LIST";
  }

  // Field widths (decoded txs always pass; constructed objects may not).
  const maxFee = txMaxFeePerGas(tx);
  if (tx.nonce < 0n || tx.gasLimit < 0n || tx.gasLimit >= TWO_64 || tx.value < 0n || tx.value >= TWO_256) {
    return "FIELD_OVERFLOW";
  }
  if (tx.nonce >= NONCE_LIMIT) return tx.nonce >= TWO_64 ? "FIELD_OVERFLOW" : "NONCE_TOO_BIG";
  if (maxFee < 0n || maxFee >= TWO_256) return "FIELD_OVERFLOW";
  if (tx.type !== TxType.Legacy && tx.type !== TxType.AccessList) {
    const tip = tx.maxPriorityFeePerGas;
    if (tip < 0n || tip >= TWO_256) return "FIELD_OVERFLOW";
    if (tip > maxFee) return "PRIORITY_FEE_GREATER_THAN_MAX_FEE";
  }
  if (tx.gasLimit * maxFee >= TWO_256) return "GAS_PRICE_PRODUCT_OVERFLOW";

  // Gas.
  if (tx.gasLimit < BigInt(intrinsicGas(tx, fork))) return "INTRINSIC_GAS_TOO_LOW";
  if (fork >= Fork.Prague && tx.gasLimit < BigInt(floorDataGas(tx))) return "FLOOR_DATA_GAS_TOO_LOW";
  // EIP-7825, on OP chains from Karst (Osaka's EVM). Deposits returned above: they are exempt, being
  // "already subject to a 20MGas limit" (SPEC: karst/exec-engine.md; op-revm handler.rs `validate_env`
  // returns before the mainnet checks for type 0x7E).
  if (fork >= Fork.Osaka && tx.gasLimit > BigInt(MAX_TX_GAS_LIMIT_OSAKA)) return "GAS_LIMIT_CAP_EXCEEDED";
  if (fork >= Fork.Shanghai && tx.to === null && tx.data.length > MAX_INITCODE_SIZE) return "INITCODE_SIZE_EXCEEDED";

  // Signature values: r, s in [1, n-1]; EIP-2 (Homestead) s ≤ n/2.
  if (tx.r <= 0n || tx.r >= SECP256K1_N || tx.s <= 0n || tx.s >= SECP256K1_N) return "INVALID_SIGNATURE";
  if (fork >= Fork.Homestead && tx.s > SECP256K1_HALF_N) return "INVALID_SIGNATURE";
  if (ctx.senderKnown !== true && recoverSender(tx) === null) return "SENDER_RECOVERY_FAILED";
  return null;
}
