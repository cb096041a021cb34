/**
 * `--rpc.txfeecap`: the RPC layer refuses to send a tx whose fee cap × gas exceeds this many ether
 * (geth internal/ethapi `checkTxFee`, default 1 ether; 0 disables it). The check belongs to
 * eth_sendTransaction / eth_sendRawTransaction, not to the pool, so it lives here as a helper.
 */
import { type Tx, txMaxFeePerGas } from "../tx/tx.js";

export const DEFAULT_RPC_TX_FEE_CAP = 1;

const WEI_PER_ETHER = 10n ** 18n;

/** Fee in ether as a double: whole ether exactly, plus the wei remainder as a fraction. */
function weiToEther(wei: bigint): number {
  return Number(wei / WEI_PER_ETHER) + Number(wei % WEI_PER_ETHER) / 1e18;
}

/**
 * geth's error text when `gasPrice × gas` exceeds `capEther`, else null. `gasPrice` is the tx's
 * gasPrice or maxFeePerGas (geth `tx.GasPrice()`).
 */
export function checkTxFee(gasPrice: bigint, gas: bigint, capEther: number): string | null {
  if (capEther === 0) return null;
  const feeEth = weiToEther(gasPrice * gas);
  if (feeEth > capEther) {
    return `tx fee (${feeEth.toFixed(2)} ether) exceeds the configured cap (${capEther.toFixed(2)} ether)`;
  }
  return null;
}

/** `checkTxFee` for a decoded tx. */
export function checkTxFeeOf(tx: Tx, capEther: number = DEFAULT_RPC_TX_FEE_CAP): string | null {
  return checkTxFee(txMaxFeePerGas(tx), tx.gasLimit, capEther);
}
