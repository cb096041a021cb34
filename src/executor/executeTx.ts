/**
 * One transaction against the WorldState: the stateful validity checks, gas purchase, EIP-2929
 * warm-up, EIP-7702 authorizations, the message call or creation, refunds (EIP-3529 cap, EIP-7623
 * floor), fee payment and the end-of-tx state rules. Synchronous; an invalid tx is a returned code
 * and leaves the state untouched (code-models §10.2).
 * Sources: execution-specs `fork.py` (check_transaction, process_transaction) per fork.
 */

import { GAS_PER_BLOB } from "../block/blobGas.js";
import type { ReceiptLog } from "../block/log.js";
import { KECCAK256_EMPTY } from "../crypto/keccak.js";
import { delegationCode, delegationTarget } from "../evm/delegation.js";
import type { Evm } from "../evm/evm.js";
import { precompileAddressSet } from "../evm/precompiles/table.js";
import { HALT_NAMES, type Halt, isSuccess } from "../evm/status.js";
import { MAX_U64 } from "../primitives/u256.js";
import { Fork, OpFork } from "../spec/forks.js";
import { addressToBigint, bigintToAddress } from "../state/worldState.js";
import { recoverAuthority } from "../tx/authorization.js";
import { encodeTx } from "../tx/envelope.js";
import { floorDataGas, intrinsicGas } from "../tx/intrinsicGas.js";
import type { L1BlockInfo } from "../tx/l1BlockInfo.js";
import { type Authorization, type Tx, TxType, txAccessList, txMaxFeePerGas, txMaxPriorityFeePerGas } from "../tx/tx.js";
import { l1Cost } from "./op/l1Cost.js";
import { operatorFee, operatorFeeRefund } from "./op/operatorFee.js";

/** EIP-2681: an account nonce stays below 2^64 - 1. */
const MAX_NONCE = MAX_U64;
const MAX_EXEC_GAS = Number.MAX_SAFE_INTEGER;
const PER_AUTH_BASE_COST = 12500;
const PER_EMPTY_ACCOUNT_COST = 25000;

/** Why a tx cannot be included (stateful rules; the stateless ones are tx/validateTx.ts). */
export type TxRejectCode =
  | "GAS_ALLOWANCE_EXCEEDED"
  | "NONCE_TOO_LOW"
  | "NONCE_TOO_HIGH"
  | "NONCE_MAX"
  | "SENDER_NOT_EOA"
  | "FEE_CAP_BELOW_BASE_FEE"
  | "BLOB_FEE_CAP_BELOW_BLOB_BASE_FEE"
  | "INSUFFICIENT_FUNDS"
  | "INTRINSIC_GAS_TOO_LOW"
  | "BLOB_GAS_EXCEEDED";

export interface TxOutcome {
  /** 1 success, 0 failure (the tx is still included). */
  readonly status: number;
  /** Gas the block counts for this tx (after refunds and the floor). */
  readonly gasUsed: number;
  readonly blobGasUsed: number;
  readonly logs: ReceiptLog[];
  /** New contract (creation txs), else null. */
  readonly contractAddress: Uint8Array | null;
  readonly output: Uint8Array;
  /** Why execution failed (null on success). */
  readonly error: string | null;
  /** The effective gas price paid. */
  readonly gasPrice: bigint;
}

export interface TxEnv {
  readonly sender: Uint8Array;
  /** Gas still available in the block (a u64 header quantity). */
  readonly blockGasLeft: bigint;
  /** Blob gas still available in the block. */
  readonly blobGasLeft: number;
  /** OP chains: the L1 attributes of the block (from its first tx), for the L1 and operator fees. */
  readonly l1Info?: L1BlockInfo | null;
  /**
   * eth_call / eth_estimateGas semantics (geth's SkipNonceChecks + SkipTransactionChecks, and
   * NoBaseFee when every gas price field is zero): no nonce or EOA check, no L1/operator fee, and
   * with zero prices no base-fee check and no fee payment.
   */
  readonly simulate?: boolean;
  /** Skip the EIP-3607 sender-is-an-EOA check only (geth SkipTransactionChecks: eth_simulateV1 with `validation`). */
  readonly skipEoaCheck?: boolean;
}

/** OP fee vaults (specs/protocol/predeploys.md). */
export const BASE_FEE_VAULT = 0x4200000000000000000000000000000000000019n;
export const L1_FEE_VAULT = 0x420000000000000000000000000000000000001an;
export const OPERATOR_FEE_VAULT = 0x420000000000000000000000000000000000001bn;

/** Applies `tx` (stateless validity already checked) or returns why it cannot be included. */
export function executeTx(evm: Evm, tx: Tx, env: TxEnv): TxOutcome | TxRejectCode {
  const st = evm.state;
  const sc = evm.schedule;
  const fork = evm.rules.fork;
  const block = evm.block;
  if (tx.type === TxType.Deposit) throw new Error("deposits are executed by executeDeposit");
  const op = evm.rules.op !== null;
  const simulate = env.simulate === true;
  const l1Info = op && !simulate ? (env.l1Info ?? null) : null;
  if (tx.gasLimit > env.blockGasLeft) return "GAS_ALLOWANCE_EXCEEDED";
  const gasLimit = Number(tx.gasLimit); // inexact above 2^53; fee arithmetic below uses tx.gasLimit
  const senderAddr = addressToBigint(env.sender);
  const sender = st.account(senderAddr);
  if (!simulate && sender.nonce !== tx.nonce) {
    if (sender.nonce >= MAX_NONCE) return "NONCE_MAX";
    return tx.nonce < sender.nonce ? "NONCE_TOO_LOW" : "NONCE_TOO_HIGH";
  }
  if (!simulate && sender.nonce >= MAX_NONCE) return "NONCE_MAX";
  // EIP-3607: a sender with code is not an EOA (EIP-7702 delegations excepted).
  if (!simulate && env.skipEoaCheck !== true && sender.codeHash !== KECCAK256_EMPTY) {
    const code = st.code(sender);
    if (code.length > 0 && !(sc.eip7702 && delegationTarget(code) >= 0n)) return "SENDER_NOT_EOA";
  }
  const maxFee = txMaxFeePerGas(tx);
  let gasPrice = maxFee;
  // geth NoBaseFee: a simulated call with all price fields zero skips the base fee and pays nothing.
  const free = simulate && maxFee === 0n && txMaxPriorityFeePerGas(tx) === 0n;
  if (fork >= Fork.London && !free) {
    if (maxFee < block.baseFee) return "FEE_CAP_BELOW_BASE_FEE";
    const tip = txMaxPriorityFeePerGas(tx);
    gasPrice =
      tx.type === TxType.Legacy || tx.type === TxType.AccessList ? maxFee : minBig(maxFee, block.baseFee + tip);
  }
  let blobGas = 0;
  let blobFee = 0n;
  let maxBlobFee = 0n;
  if (tx.type === TxType.Blob) {
    blobGas = GAS_PER_BLOB * tx.blobVersionedHashes.length;
    if (blobGas > env.blobGasLeft) return "BLOB_GAS_EXCEEDED";
    if (tx.maxFeePerBlobGas < block.blobBaseFee) return "BLOB_FEE_CAP_BELOW_BLOB_BASE_FEE";
    blobFee = BigInt(blobGas) * block.blobBaseFee;
    maxBlobFee = BigInt(blobGas) * tx.maxFeePerBlobGas;
  }
  // OP: the L1 data fee and the worst-case operator fee are bought with the gas (op-geth buyGas).
  let l1Fee = 0n;
  let opFeeMax = 0n;
  if (l1Info !== null) {
    l1Fee = l1Cost(tx.memo?.encoded ?? encodeTx(tx), l1Info, evm.rules);
    opFeeMax = operatorFee(gasLimit, l1Info, evm.rules);
  }
  if (sender.balance < tx.gasLimit * maxFee + tx.value + maxBlobFee + l1Fee + opFeeMax) return "INSUFFICIENT_FUNDS";
  const intrinsic = intrinsicGas(tx, fork);
  const floor = fork >= Fork.Prague ? floorDataGas(tx) : 0;
  if (intrinsic > gasLimit || floor > gasLimit) return "INTRINSIC_GAS_TOO_LOW";

  // Buy gas, bump the nonce (creations bump it in beginCreate, as geth does).
  st.subBalance(sender, tx.gasLimit * gasPrice + blobFee + l1Fee + opFeeMax);
  const to = tx.to === null ? -1n : addressToBigint(tx.to);
  if (to >= 0n) st.setNonce(sender, sender.nonce + 1n);
  evm.tx = {
    origin: senderAddr,
    gasPrice,
    blobHashes: tx.type === TxType.Blob ? tx.blobVersionedHashes : [],
  };

  if (sc.berlin) {
    st.warmAddress(senderAddr);
    if (to >= 0n) st.warmAddress(to);
    st.warmAllForTx(precompileAddressSet(evm.precompiles));
    const list = txAccessList(tx);
    for (let i = 0; i < list.length; i++) {
      const a = addressToBigint(list[i].address);
      st.warmAddress(a);
      const keys = list[i].storageKeys;
      for (let k = 0; k < keys.length; k++) st.warmSlot(a, addressToBigint(keys[k]));
    }
    if (sc.warmCoinbase) st.warmAddress(block.coinbase);
  }
  if (tx.type === TxType.SetCode) applyAuthorizations(evm, tx.authorizationList, block.chainId);
  // EIP-7702: a delegated call target's delegate starts warm (execution-specs process_message_call).
  if (sc.eip7702 && to >= 0n) {
    const d = delegationTarget(st.code(st.account(to)));
    if (d >= 0n) st.warmAddress(d);
  }

  // Gas is a double (exact to 2^53). Only a pre-Osaka tx in a block with a gas limit above 2^53 (no
  // live chain has one) can bring more; it runs with 2^53-1 and pays for what it consumed.
  const gas = Math.min(gasLimit - intrinsic, MAX_EXEC_GAS);
  const r =
    to >= 0n ? evm.call(senderAddr, to, tx.value, tx.data, gas) : evm.create(senderAddr, tx.value, tx.data, gas);
  const ok = isSuccess(r.halt);
  const output = r.output;
  const contract = tx.to === null && ok ? bigintToAddress(r.address) : null;
  let used = intrinsic + (gas - r.gasLeft);
  const refund = Math.min(Math.max(st.refund, 0), Math.floor(used / sc.refundQuotient));
  used -= refund;
  if (used < floor) used = floor;

  st.addBalance(sender, (tx.gasLimit - BigInt(used)) * gasPrice);
  const tipPerGas = fork >= Fork.London ? gasPrice - block.baseFee : gasPrice;
  if (!free) st.addBalance(st.account(block.coinbase), BigInt(used) * tipPerGas);
  if (op && !free) {
    // OP: the base fee is not burnt but paid to its vault, as are the L1 and operator fees.
    st.addBalance(st.account(BASE_FEE_VAULT), BigInt(used) * block.baseFee);
    st.addBalance(st.account(L1_FEE_VAULT), l1Fee);
    if (l1Info !== null && evm.rules.op !== null && evm.rules.op >= OpFork.Isthmus) {
      st.addBalance(sender, operatorFeeRefund(gasLimit, used, l1Info, evm.rules));
      st.addBalance(st.account(OPERATOR_FEE_VAULT), operatorFee(used, l1Info, evm.rules));
    }
  }
  const logs = st.logs as ReceiptLog[];
  st.finalizeTx(sc.eip158);
  return {
    status: ok ? 1 : 0,
    gasUsed: used,
    blobGasUsed: blobGas,
    logs,
    contractAddress: contract,
    output,
    error: ok ? null : HALT_NAMES[r.halt as Halt],
    gasPrice,
  };
}

/** EIP-7702: each valid authorization sets the authority's code to a delegation designator. */
function applyAuthorizations(evm: Evm, list: readonly Authorization[], chainId: bigint): void {
  const st = evm.state;
  for (let i = 0; i < list.length; i++) {
    const auth = list[i];
    if (auth.chainId !== 0n && auth.chainId !== chainId) continue;
    if (auth.nonce >= MAX_NONCE) continue;
    const authorityBytes = recoverAuthority(auth);
    if (authorityBytes === null) continue;
    const authority = addressToBigint(authorityBytes);
    st.warmAddress(authority);
    const acc = st.account(authority);
    const code = st.code(acc);
    if (code.length > 0 && delegationTarget(code) < 0n) continue;
    if (acc.nonce !== auth.nonce) continue;
    if (acc.exists) st.refund += PER_EMPTY_ACCOUNT_COST - PER_AUTH_BASE_COST;
    const target = addressToBigint(auth.address);
    if (target === 0n) {
      st.setCode(acc, new Uint8Array(0));
    } else {
      st.setCode(acc, delegationCode(auth.address));
    }
    st.setNonce(acc, acc.nonce + 1n);
  }
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
