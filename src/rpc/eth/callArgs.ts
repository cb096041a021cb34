/**
 * geth's `TransactionArgs` (internal/ethapi/transaction_args.go) as a parameter decoder, and the
 * revert error of eth_call / eth_estimateGas / eth_simulateV1.
 */
import { unpackRevert } from "../../evm/tracers/format.js";
import type { CallMessage } from "../../executor/simulate.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { AccessList, Authorization } from "../../tx/tx.js";
import { RpcError } from "../errors.js";
import { address, bigQuantity, data, hash, type ParamDecoder, ParamError, uint64 } from "../params.js";

export interface TxArgs {
  readonly from: Uint8Array | null;
  readonly to: Uint8Array | null;
  readonly gas: bigint | null;
  readonly gasPrice: bigint | null;
  readonly maxFeePerGas: bigint | null;
  readonly maxPriorityFeePerGas: bigint | null;
  readonly maxFeePerBlobGas: bigint | null;
  readonly value: bigint | null;
  readonly nonce: bigint | null;
  readonly input: Uint8Array | null;
  readonly accessList: AccessList | null;
  readonly authorizationList: Authorization[] | null;
  readonly chainId: bigint | null;
  readonly blobVersionedHashes: Uint8Array[] | null;
}

function field<T>(d: ParamDecoder<T>, v: unknown): T | null {
  return v === null || v === undefined ? null : d.decode(v);
}

function accessListOf(v: unknown): AccessList {
  if (!Array.isArray(v))
    throw new ParamError("json: cannot unmarshal non-array into Go value of type types.AccessList");
  return v.map((e) => {
    const o = (e ?? {}) as Record<string, unknown>;
    const keys = o.storageKeys;
    return {
      address: address.decode(o.address),
      storageKeys: Array.isArray(keys) ? keys.map((k) => hash.decode(k)) : [],
    };
  });
}

function authListOf(v: unknown): Authorization[] {
  if (!Array.isArray(v))
    throw new ParamError("json: cannot unmarshal non-array into Go value of type []types.SetCodeAuthorization");
  return v.map((e) => {
    const o = (e ?? {}) as Record<string, unknown>;
    return {
      chainId: bigQuantity.decode(o.chainId ?? "0x0"),
      address: address.decode(o.address),
      nonce: uint64.decode(o.nonce ?? "0x0"),
      yParity: Number(uint64.decode(o.yParity ?? o.v ?? "0x0")),
      r: bigQuantity.decode(o.r ?? "0x0"),
      s: bigQuantity.decode(o.s ?? "0x0"),
    } as Authorization;
  });
}

/** geth's error for call arguments whose `data` and `input` differ. */
export const BOTH_DATA_AND_INPUT =
  'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data';

/** Decodes a TransactionArgs object (field names case-insensitive, like encoding/json). */
export function decodeTxArgs(v: unknown): TxArgs {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new ParamError(
      `json: cannot unmarshal ${Array.isArray(v) ? "array" : typeof v === "string" ? "string" : typeof v === "number" ? "number" : typeof v === "boolean" ? "bool" : "object"} into Go value of type ethapi.TransactionArgs`,
    );
  }
  const o: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) o[k.toLowerCase()] = val;
  const input = field(data, o.input);
  const dataField = field(data, o.data);
  if (input !== null && dataField !== null && bytesToHex(input) !== bytesToHex(dataField)) {
    // geth's text (transaction_args.go setDefaults); as an argument error it is invalid params
    // (-32602, "invalid argument 0: …"), as reth answers it (EthApiError::TransactionInputError) and
    // as debug_traceCall's decoder already did: it is thrown as a ParamError, which every path that
    // decodes arguments (the dispatcher, the evmCall workers) turns into that answer.
    throw new ParamError(BOTH_DATA_AND_INPUT);
  }
  return {
    from: field(address, o.from),
    to: field(address, o.to),
    gas: field(uint64, o.gas),
    gasPrice: field(bigQuantity, o.gasprice),
    maxFeePerGas: field(bigQuantity, o.maxfeepergas),
    maxPriorityFeePerGas: field(bigQuantity, o.maxpriorityfeepergas),
    maxFeePerBlobGas: field(bigQuantity, o.maxfeeperblobgas),
    value: field(bigQuantity, o.value),
    nonce: field(uint64, o.nonce),
    input: input ?? dataField,
    accessList: o.accesslist === null || o.accesslist === undefined ? null : accessListOf(o.accesslist),
    authorizationList:
      o.authorizationlist === null || o.authorizationlist === undefined ? null : authListOf(o.authorizationlist),
    chainId: field(bigQuantity, o.chainid),
    blobVersionedHashes: Array.isArray(o.blobversionedhashes) ? o.blobversionedhashes.map((h) => hash.decode(h)) : null,
  };
}

export const txArgs: ParamDecoder<TxArgs> = { optional: false, decode: decodeTxArgs };

/**
 * geth `TransactionArgs.CallDefaults` fee checks: gasPrice with 1559 fields is refused, and a tip
 * above the fee cap. Returns the error text or null.
 */
export function checkFeeArgs(a: TxArgs): string | null {
  if (a.gasPrice !== null && (a.maxFeePerGas !== null || a.maxPriorityFeePerGas !== null)) {
    return "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified";
  }
  if (a.maxFeePerGas !== null && a.maxPriorityFeePerGas !== null && a.maxFeePerGas < a.maxPriorityFeePerGas) {
    return `maxFeePerGas (${a.maxFeePerGas}) < maxPriorityFeePerGas (${a.maxPriorityFeePerGas})`;
  }
  return null;
}

const ZERO_ADDRESS = new Uint8Array(20);

/** The call message of `a` (from defaults to the zero address, as in geth). */
export function callMessage(a: TxArgs, gas: bigint | null = a.gas): CallMessage {
  return {
    from: a.from ?? ZERO_ADDRESS,
    to: a.to,
    gas,
    gasPrice: a.gasPrice,
    maxFeePerGas: a.maxFeePerGas,
    maxPriorityFeePerGas: a.maxPriorityFeePerGas,
    value: a.value ?? 0n,
    data: a.input ?? new Uint8Array(0),
    accessList: a.accessList ?? [],
    ...(a.authorizationList !== null ? { authorizationList: a.authorizationList } : {}),
  };
}

/**
 * geth `newRevertError`: code 3, "execution reverted[: reason]" with the reason `abi.UnpackRevert`
 * finds (evm/tracers/format.ts `unpackRevert`, which the callTracer shares), data = the revert bytes.
 */
export function revertError(out: Uint8Array): RpcError {
  return RpcError.executionReverted(bytesToHex(out), unpackRevert(out) ?? undefined);
}
