/**
 * System calls: messages the protocol sends from SYSTEM_ADDRESS with 30M gas and no fee, outside the
 * block's gas accounting (EIP-4788 beacon roots and EIP-2935 block hashes before the txs; EIP-7002
 * withdrawal and EIP-7251 consolidation requests after them). Each is finalised like a tx
 * (geth core/state_processor.go ProcessBeaconBlockRoot / processRequestsSystemCall).
 */
import type { Evm } from "../evm/evm.js";
import { isSuccess } from "../evm/status.js";

export const SYSTEM_ADDRESS = 0xfffffffffffffffffffffffffffffffffffffffen;
export const BEACON_ROOTS_ADDRESS = 0x000f3df6d732807ef1319fb7b8bb8522d0beac02n;
export const HISTORY_STORAGE_ADDRESS = 0x0000f90827f1c53a10cb7a02335b175320002935n;
export const WITHDRAWAL_REQUEST_ADDRESS = 0x00000961ef480eb55e80d19ad83579a64c007002n;
export const CONSOLIDATION_REQUEST_ADDRESS = 0x0000bbddc7ce488642fb579f8b00f3a590007251n;
const SYSTEM_GAS = 30_000_000;

/** Runs one system call; returns its output, or null when the target has no code or the call failed. */
export function systemCall(evm: Evm, target: bigint, input: Uint8Array): Uint8Array | null {
  const st = evm.state;
  evm.tx = { origin: SYSTEM_ADDRESS, gasPrice: 0n, blobHashes: [] };
  if (st.code(st.account(target)).length === 0) {
    st.finalizeTx(true);
    return null;
  }
  st.warmAddress(target);
  const r = evm.call(SYSTEM_ADDRESS, target, 0n, input, SYSTEM_GAS);
  const ok = isSuccess(r.halt);
  const out = r.output;
  st.finalizeTx(true);
  return ok ? out : null;
}

/** Whether `target` has code (a request system contract without code makes the block invalid). */
export function hasCode(evm: Evm, target: bigint): boolean {
  return evm.state.code(evm.state.account(target)).length > 0;
}
