/**
 * OP Stack deposit transactions (0x7E) against the WorldState (specs/protocol/deposits.md#execution,
 * op-geth core/state_transition.go):
 * - `mint` is credited to `from` first and survives any failure;
 * - no signature, nonce, fee or EOA checks; no gas is bought, nothing refunded, no fee paid;
 * - a failure before execution (intrinsic gas or EIP-7623 floor above the limit, value above the
 *   balance, initcode too large, a system tx from Regolith) reverts everything but the mint, bumps
 *   the nonce and reports status 0 with the whole gas limit used;
 * - before Regolith a deposit reports its gas limit as used (a system tx 0); from Regolith the gas
 *   it really used, after the refund counter and the EIP-7623 floor.
 */
import type { ReceiptLog } from "../../block/log.js";
import type { Evm } from "../../evm/evm.js";
import { HALT_NAMES, type Halt, isSuccess } from "../../evm/status.js";
import { Fork, OpFork } from "../../spec/forks.js";
import { addressToBigint, bigintToAddress } from "../../state/worldState.js";
import { floorDataGas, intrinsicGas, MAX_INITCODE_SIZE } from "../../tx/intrinsicGas.js";
import type { DepositTx } from "../../tx/tx.js";
import type { TxOutcome, TxRejectCode } from "../executeTx.js";

export interface DepositOutcome extends TxOutcome {
  /** The sender's nonce before the deposit (receipts from Regolith). */
  readonly depositNonce: bigint;
}

export function executeDeposit(evm: Evm, tx: DepositTx, blockGasLeft: bigint): DepositOutcome | TxRejectCode {
  const st = evm.state;
  const fork = evm.rules.fork;
  const regolith = evm.rules.op !== null && evm.rules.op >= OpFork.Regolith;
  // Pre-Regolith system txs do not take from the block's gas pool; everything else does.
  if (!(tx.isSystemTx && !regolith) && tx.gasLimit > blockGasLeft) return "GAS_ALLOWANCE_EXCEEDED";
  const gasLimit = Number(tx.gasLimit);
  const fromAddr = addressToBigint(tx.from);
  const from = st.account(fromAddr);
  if (tx.mint > 0n) st.addBalance(from, tx.mint);
  const nonceBefore = from.nonce;
  const cp = st.checkpoint();
  const intrinsic = intrinsicGas(tx, fork);
  const floor = fork >= Fork.Prague ? floorDataGas(tx) : 0;

  const failed = (): DepositOutcome => {
    st.revert(cp);
    st.setNonce(from, from.nonce + 1n);
    st.finalizeTx(evm.schedule.eip158);
    return outcome(
      0,
      tx.isSystemTx && !regolith ? 0 : gasLimit,
      [],
      null,
      new Uint8Array(0),
      "failed deposit",
      nonceBefore,
    );
  };
  if (tx.isSystemTx && regolith) return failed();
  if (intrinsic > gasLimit || floor > gasLimit) return failed();
  if (tx.value > 0n && from.balance < tx.value) return failed();
  if (fork >= Fork.Shanghai && tx.to === null && tx.data.length > MAX_INITCODE_SIZE) return failed();

  const sc = evm.schedule;
  const to = tx.to === null ? -1n : addressToBigint(tx.to);
  evm.tx = { origin: fromAddr, gasPrice: 0n, blobHashes: [] };
  if (sc.berlin) {
    st.warmAddress(fromAddr);
    if (to >= 0n) st.warmAddress(to);
    for (const id of evm.precompiles.keys()) st.warmAddress(BigInt(id));
    if (sc.warmCoinbase) st.warmAddress(evm.block.coinbase);
  }
  if (to >= 0n) st.setNonce(from, from.nonce + 1n);
  const gas = Math.min(gasLimit - intrinsic, Number.MAX_SAFE_INTEGER);
  const r = to >= 0n ? evm.call(fromAddr, to, tx.value, tx.data, gas) : evm.create(fromAddr, tx.value, tx.data, gas);
  const ok = isSuccess(r.halt);
  let used: number;
  if (!regolith) {
    used = tx.isSystemTx ? 0 : gasLimit;
  } else {
    used = intrinsic + (gas - r.gasLeft);
    used -= Math.min(Math.max(st.refund, 0), Math.floor(used / sc.refundQuotient));
    if (used < floor) used = floor;
  }
  st.commit(cp);
  const logs = st.logs as ReceiptLog[];
  const contract = tx.to === null && ok ? bigintToAddress(r.address) : null;
  const output = r.output;
  const error = ok ? null : HALT_NAMES[r.halt as Halt];
  st.finalizeTx(sc.eip158);
  return outcome(ok ? 1 : 0, used, logs, contract, output, error, nonceBefore);
}

function outcome(
  status: number,
  gasUsed: number,
  logs: ReceiptLog[],
  contractAddress: Uint8Array | null,
  output: Uint8Array,
  error: string | null,
  depositNonce: bigint,
): DepositOutcome {
  return { status, gasUsed, blobGasUsed: 0, logs, contractAddress, output, error, gasPrice: 0n, depositNonce };
}
