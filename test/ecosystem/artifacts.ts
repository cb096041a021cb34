/**
 * What the ecosystem tests deploy and call. Their own contracts, `Store` (a value, its setter, an
 * event, two reads the tests recompute) and `Reverter` (a reason string and a custom error, in a call
 * and in a write), are known bytecode: test/ecosystem/contracts/Ecosystem.sol compiled by
 * test/ecosystem/contracts/compile.mjs (the pinned `solc` devDependency, 0.8.37, optimizer on with
 * 200 runs, evmVersion cancun, no CBOR metadata trailer) into test/ecosystem/contracts/compiled.ts;
 * nothing compiles at test time. The OP Stack addresses and ABIs are contracts-bedrock's (the
 * predeploys) and the OP Stack preinstalls' (Multicall3), as a dapp declares them.
 */
import { getAbiItem, parseAbi } from "viem";
import { REVERTER, STORE } from "./contracts/compiled.js";

export const STORE_ABI = STORE.abi;
/** `Store`'s creation code; the constructor argument (`initial`) is ABI-encoded after it. */
export const STORE_BYTECODE = STORE.bytecode;
/** `Store`'s runtime code: what its deployment leaves at the address, and what a creation call of its init code returns. */
export const STORE_RUNTIME = STORE.runtime;
export const VALUE_SET_EVENT = getAbiItem({ abi: STORE_ABI, name: "ValueSet" });

export const REVERTER_ABI = REVERTER.abi;
export const REVERTER_BYTECODE = REVERTER.bytecode;
export const REVERT_REASON = "Reverter: reason string";
export const WRITE_REVERT_REASON = "Reverter: zero";
/** The `code` argument of `Unauthorized` that `failWithCustomError` reverts with. */
export const UNAUTHORIZED_CODE = 42n;
/** What `Reverter.ok()` returns. */
export const REVERTER_OK = 7n;

/** The OP Stack L2ToL1MessagePasser predeploy, as the contracts-bedrock ABI declares it. */
export const MESSAGE_PASSER = "0x4200000000000000000000000000000000000016" as const;
export const MESSAGE_PASSER_ABI = parseAbi([
  "event MessagePassed(uint256 indexed nonce, address indexed sender, address indexed target, uint256 value, uint256 gasLimit, bytes data, bytes32 withdrawalHash)",
  "function initiateWithdrawal(address _target, uint256 _gasLimit, bytes _data) payable",
  "function messageNonce() view returns (uint256)",
  "function sentMessages(bytes32) view returns (bool)",
  "function MESSAGE_VERSION() view returns (uint16)",
]);

/** The OP Stack GasPriceOracle predeploy (the functions a dapp calls). */
export const GAS_PRICE_ORACLE = "0x420000000000000000000000000000000000000F" as const;
export const GAS_PRICE_ORACLE_ABI = parseAbi([
  "function getL1Fee(bytes _data) view returns (uint256)",
  "function getL1GasUsed(bytes _data) view returns (uint256)",
  "function l1BaseFee() view returns (uint256)",
  "function blobBaseFee() view returns (uint256)",
  "function baseFeeScalar() view returns (uint32)",
  "function blobBaseFeeScalar() view returns (uint32)",
]);

/**
 * Multicall3, where every OP chain has it (an OP Stack preinstall, specs protocol/preinstalls.md)
 * and where viem's OP chains (`optimism`, `base`, …) declare it.
 */
export const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11" as const;
