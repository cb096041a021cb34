/**
 * OP Stack protocol addresses that both the execution side (the L1-attributes deposit, the genesis
 * predeploys) and the rollup node (upgrade deposits) use (SPEC: specs/protocol/predeploys.md,
 * deposits.md#l1-attributes-deposited-transaction; op-stack.md §3.3).
 */
import { hexToBytes } from "../primitives/hex.js";

/** The L1Block predeploy, which every block's L1-attributes deposit writes. */
export const L1_BLOCK_ADDRESS: Uint8Array = hexToBytes("0x4200000000000000000000000000000000000015");
/** The GasPriceOracle predeploy. */
export const GAS_PRICE_ORACLE_ADDRESS: Uint8Array = hexToBytes("0x420000000000000000000000000000000000000f");
/** The system account that sends the L1-attributes deposit (and the GasPriceOracle upgrade calls). */
export const L1_INFO_DEPOSITOR: Uint8Array = hexToBytes("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
