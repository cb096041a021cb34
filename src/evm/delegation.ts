/** EIP-7702 delegation designators: 0xef0100 ‖ address (23 bytes). */
import { readAddress } from "./word.js";

export const DELEGATION_LENGTH = 23;

/** The delegate address when `code` is a designator, else -1n. */
export function delegationTarget(code: Uint8Array): bigint {
  if (code.length === DELEGATION_LENGTH && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00) {
    return readAddress(code, 3);
  }
  return -1n;
}

/** The designator pointing at `address` (20 bytes). */
export function delegationCode(address: Uint8Array): Uint8Array {
  const d = new Uint8Array(DELEGATION_LENGTH);
  d[0] = 0xef;
  d[1] = 0x01;
  d.set(address, 3);
  return d;
}
