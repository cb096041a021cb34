/**
 * The pool's stateless admission checks, in geth's order and with geth's errors (core/txpool
 * validation.go `ValidateTransaction`, txpool.go `Add`): which types the pool takes at all, which the
 * head's fork has activated, and the consensus checks of validateTx mapped onto pool errors.
 */
import { Fork, type ForkRules } from "../spec/forks.js";
import { floorDataGas, intrinsicGas, MAX_INITCODE_SIZE, MAX_TX_GAS_LIMIT_OSAKA } from "../tx/intrinsicGas.js";
import { legacyChainId } from "../tx/legacy.js";
import { recoverSender } from "../tx/signer.js";
import { type SignedTx, type Tx, TxType, txMaxFeePerGas } from "../tx/tx.js";
import { validateTx } from "../tx/validateTx.js";
import { RETH_TX_REJECTED_CODE, reject, TX_POOL_ERRORS, type TxPoolRejection } from "./errors.js";

/** What the checks run against: the head's rules and gas limit, and the chain id. */
export interface PoolTxContext {
  readonly rules: ForkRules;
  readonly chainId: bigint;
  /** The head block's gas limit. */
  readonly gasLimit: bigint;
}

/**
 * Types no subpool takes (geth TxPool.Add finds none: "received type N"; there is no blob pool, and
 * OP chains have no blob txs at all, op-stack.md §3.6) and deposits (op-geth ValidateTransaction:
 * no unauthenticated deposits in the pool, the bare error).
 */
export function subpoolRejection(tx: Tx, acceptBlobs = false): TxPoolRejection | null {
  if (tx.type === TxType.Deposit) return reject("TX_TYPE_NOT_SUPPORTED");
  if (tx.type === TxType.Blob && !acceptBlobs) return reject("TX_TYPE_NOT_SUPPORTED", `received type ${tx.type}`);
  return null;
}

/**
 * EIP-7825 (Osaka) per-tx gas cap. L1: geth wraps this one as "%w (cap: %d, tx: %d)". OP chains (the
 * cap comes with Karst): op-reth's answer, reth's bare "gas limit too high" with code -32003 (SPEC:
 * reth 88505c7 transaction-pool validate/eth.rs `validate_stateless` → InvalidTransactionError::
 * GasLimitTooHigh → rpc-eth-types RpcInvalidTransactionError::GasLimitTooHigh, `error_code`
 * TransactionRejected).
 */
function osakaCap(tx: SignedTx, rules: ForkRules): TxPoolRejection {
  if (rules.op !== null) {
    return {
      code: "OP_GAS_LIMIT_TOO_HIGH",
      message: TX_POOL_ERRORS.OP_GAS_LIMIT_TOO_HIGH,
      rpcCode: RETH_TX_REJECTED_CODE,
    };
  }
  return {
    code: "GAS_LIMIT_TOO_HIGH",
    message: `${TX_POOL_ERRORS.GAS_LIMIT_TOO_HIGH} (cap: ${MAX_TX_GAS_LIMIT_OSAKA}, tx: ${tx.gasLimit})`,
  };
}

/** geth ValidateTransaction: types the head's fork has not activated. */
export function forkRejection(tx: SignedTx, rules: ForkRules): TxPoolRejection | null {
  const fork = rules.fork;
  if (fork < Fork.Berlin && tx.type !== TxType.Legacy) {
    return reject("TX_TYPE_NOT_SUPPORTED", `type ${tx.type} rejected, pool not yet in Berlin`);
  }
  if (fork < Fork.London && tx.type === TxType.FeeMarket) {
    return reject("TX_TYPE_NOT_SUPPORTED", `type ${tx.type} rejected, pool not yet in London`);
  }
  if (fork < Fork.Cancun && tx.type === TxType.Blob) {
    return reject("TX_TYPE_NOT_SUPPORTED", `type ${tx.type} rejected, pool not yet in Cancun`);
  }
  if (fork < Fork.Prague && tx.type === TxType.SetCode) {
    return reject("TX_TYPE_NOT_SUPPORTED", `type ${tx.type} rejected, pool not yet in Prague`);
  }
  return null;
}

/**
 * geth ValidateTransaction after the size and type checks: init code size, the Osaka per-tx gas cap
 * and the block gas limit in geth's order, then validateTx (chain id, signature, fee caps, intrinsic
 * and floor gas) mapped to geth's errors. On OP chains the cap is checked in reth's order instead
 * (after the block gas limit, chain id and intrinsic gas: validateTx's GAS_LIMIT_CAP_EXCEEDED). The
 * sender must already be recovered (memoized).
 */
export function validatePoolTx(
  tx: SignedTx,
  ctx: PoolTxContext,
  balanceOf: (sender: Uint8Array) => bigint,
): TxPoolRejection | null {
  const { rules } = ctx;
  if (rules.fork >= Fork.Shanghai && tx.to === null && tx.data.length > MAX_INITCODE_SIZE) {
    return reject("MAX_INITCODE_SIZE_EXCEEDED", `code size ${tx.data.length}, limit ${MAX_INITCODE_SIZE}`);
  }
  if (rules.fork >= Fork.Osaka && rules.op === null && tx.gasLimit > BigInt(MAX_TX_GAS_LIMIT_OSAKA)) {
    return osakaCap(tx, rules);
  }
  if (tx.gasLimit > ctx.gasLimit) return reject("GAS_LIMIT");
  const code = validateTx(tx, { rules, chainId: ctx.chainId });
  switch (code) {
    case null:
      return null;
    case "INVALID_CHAIN_ID": {
      // geth: the signer's ErrInvalidChainId wrapped in ErrInvalidSender.
      const have = tx.type === TxType.Legacy ? legacyChainId(tx.v) : tx.chainId;
      return reject("INVALID_SENDER", `invalid chain id for signer: have ${have} want ${ctx.chainId}`);
    }
    case "INVALID_SIGNATURE":
    case "SENDER_RECOVERY_FAILED":
      return reject("INVALID_SENDER", "invalid transaction v, r, s values");
    case "NONCE_TOO_BIG":
      return reject("NONCE_MAX");
    case "FIELD_OVERFLOW":
      return reject("FEE_CAP_VERY_HIGH");
    case "PRIORITY_FEE_GREATER_THAN_MAX_FEE":
      return reject("TIP_ABOVE_FEE_CAP");
    case "GAS_PRICE_PRODUCT_OVERFLOW": {
      // gas × fee cap ≥ 2^256 exceeds any balance: geth reports it from the balance check.
      const from = recoverSender(tx);
      const balance = from === null ? 0n : balanceOf(from);
      const cost = tx.gasLimit * txMaxFeePerGas(tx) + tx.value;
      return reject("INSUFFICIENT_FUNDS", `balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`);
    }
    case "INTRINSIC_GAS_TOO_LOW":
      return reject("INTRINSIC_GAS", `gas ${tx.gasLimit}, minimum needed ${intrinsicGas(tx, rules.fork)}`);
    case "FLOOR_DATA_GAS_TOO_LOW":
      return reject("FLOOR_DATA_GAS", `gas ${tx.gasLimit}, minimum needed ${floorDataGas(tx)}`);
    case "GAS_LIMIT_CAP_EXCEEDED":
      return osakaCap(tx, rules);
    case "INITCODE_SIZE_EXCEEDED":
      return reject("MAX_INITCODE_SIZE_EXCEEDED", `code size ${tx.data.length}, limit ${MAX_INITCODE_SIZE}`);
    case "EMPTY_AUTHORIZATION_LIST":
      return reject("EMPTY_AUTHORIZATION_LIST");
    default:
      // TYPE_NOT_SUPPORTED, DEPOSIT_NOT_ALLOWED and the blob/creation shapes are caught before.
      return reject("TX_TYPE_NOT_SUPPORTED");
  }
}
