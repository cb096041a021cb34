/**
 * Intrinsic gas per fork (Yellow Paper g0; EIP-2 Homestead creation cost, EIP-2028 Istanbul calldata,
 * EIP-2930 access lists, EIP-3860 Shanghai initcode words, EIP-7702 authorizations) and the EIP-7623
 * (Prague) calldata floor, as separate functions. Both return `number`: every input is bounded by the
 * tx's byte size.
 */
import { Fork } from "../spec/forks.js";
import { type Tx, TxType } from "./tx.js";

export const TX_BASE_GAS = 21_000;
/** Extra for a creation from Homestead (EIP-2). */
export const TX_CREATE_GAS = 32_000;
export const TX_DATA_ZERO_GAS = 4;
export const TX_DATA_NONZERO_GAS_FRONTIER = 68;
/** EIP-2028 (Istanbul). */
export const TX_DATA_NONZERO_GAS_ISTANBUL = 16;
export const TX_ACCESS_LIST_ADDRESS_GAS = 2_400;
export const TX_ACCESS_LIST_STORAGE_KEY_GAS = 1_900;
/** EIP-3860 (Shanghai): per 32-byte word of initcode. */
export const INITCODE_WORD_GAS = 2;
/** EIP-3860: 2 × MAX_CODE_SIZE. */
export const MAX_INITCODE_SIZE = 49_152;
/** EIP-7702 PER_EMPTY_ACCOUNT_COST, charged per authorization. */
export const PER_EMPTY_ACCOUNT_COST = 25_000;
/** EIP-7623 TOTAL_COST_FLOOR_PER_TOKEN. */
export const TOTAL_COST_FLOOR_PER_TOKEN = 10;
/** EIP-7825 (Osaka) TX_MAX_GAS_LIMIT = 2^24. */
export const MAX_TX_GAS_LIMIT_OSAKA = 16_777_216;

export function countZeroBytes(data: Uint8Array): number {
  let zeros = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  return zeros;
}

/** EIP-7623 tokens_in_calldata = zero_bytes + 4 × nonzero_bytes. */
export function calldataTokens(data: Uint8Array): number {
  const zeros = countZeroBytes(data);
  return zeros + 4 * (data.length - zeros);
}

/** Gas charged before execution for `tx` under `fork`. */
export function intrinsicGas(tx: Tx, fork: Fork): number {
  const data = tx.data;
  const zeros = countZeroBytes(data);
  const nonzeroCost = fork >= Fork.Istanbul ? TX_DATA_NONZERO_GAS_ISTANBUL : TX_DATA_NONZERO_GAS_FRONTIER;
  let gas = TX_BASE_GAS + zeros * TX_DATA_ZERO_GAS + (data.length - zeros) * nonzeroCost;
  if (tx.to === null) {
    if (fork >= Fork.Homestead) gas += TX_CREATE_GAS;
    if (fork >= Fork.Shanghai) gas += INITCODE_WORD_GAS * Math.ceil(data.length / 32);
  }
  if (tx.type !== TxType.Legacy && tx.type !== TxType.Deposit) {
    const list = tx.accessList;
    for (let i = 0; i < list.length; i++) {
      gas += TX_ACCESS_LIST_ADDRESS_GAS + list[i].storageKeys.length * TX_ACCESS_LIST_STORAGE_KEY_GAS;
    }
    if (tx.type === TxType.SetCode) gas += tx.authorizationList.length * PER_EMPTY_ACCOUNT_COST;
  }
  return gas;
}

/** EIP-7623 floor: 21000 + 10 × tokens_in_calldata. Applies from Prague; the caller checks the fork. */
export function floorDataGas(tx: Tx): number {
  return TX_BASE_GAS + TOTAL_COST_FLOOR_PER_TOKEN * calldataTokens(tx.data);
}
