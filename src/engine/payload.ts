/**
 * Engine API execution payloads (execution-apis src/engine: ExecutionPayloadV1–V3, the Prague
 * `executionRequests` of newPayloadV4, and OP's V4 `withdrawalsRoot`) ⇄ blocks. Decoding checks
 * field presence per version with the spec's error ("-32602 invalid params"); the block hash is
 * recomputed and compared by the caller.
 */
import type { BlockBody } from "../block/block.js";
import { EMPTY_OMMERS_HASH, type Header } from "../block/header.js";
import { encodeWithdrawal, type Withdrawal } from "../block/withdrawal.js";
import { sha256 } from "../crypto/sha256.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { EMPTY_TRIE_ROOT } from "../trie/node.js";
import { orderedTrieRoot } from "../trie/orderedRoot.js";

export class PayloadError extends Error {
  override readonly name = "PayloadError";
}

export type PayloadJson = Record<string, unknown>;

function data(o: PayloadJson, k: string, size?: number): Uint8Array {
  const v = o[k];
  if (typeof v !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw new PayloadError(`${k}: want hex data`);
  const b = hexToBytes(v);
  if (size !== undefined && b.length !== size) throw new PayloadError(`${k}: want ${size} bytes, got ${b.length}`);
  return b;
}

function quantity(o: PayloadJson, k: string): bigint {
  const v = o[k];
  if (typeof v !== "string" || !/^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(v))
    throw new PayloadError(`${k}: want a quantity`);
  return BigInt(v);
}

const qty = (v: number | bigint): string => `0x${v.toString(16)}`;

export interface DecodedPayload {
  readonly header: Header;
  readonly body: BlockBody;
  /** The blockHash the payload claims. */
  readonly blockHash: Uint8Array;
}

/**
 * Block of a payload of `version` (1–4). `beaconRoot` (V3+) and `requests` (V4, L1) come from the
 * newPayload arguments; `op` selects OP rules (V4 carries `withdrawalsRoot`; requestsHash is
 * sha256 of nothing).
 */
export function payloadToBlock(
  p: PayloadJson,
  version: number,
  beaconRoot: Uint8Array | null,
  requests: readonly Uint8Array[] | null,
  op: boolean,
): DecodedPayload {
  if (typeof p !== "object" || p === null) throw new PayloadError("payload: want an object");
  const txsRaw = p.transactions;
  if (!Array.isArray(txsRaw)) throw new PayloadError("transactions: want an array");
  const transactions = txsRaw.map((t, i) => {
    if (typeof t !== "string") throw new PayloadError(`transactions[${i}]: want hex data`);
    return hexToBytes(t);
  });
  let withdrawals: Withdrawal[] | null = null;
  if (version >= 2 && p.withdrawals !== undefined && p.withdrawals !== null) {
    if (!Array.isArray(p.withdrawals)) throw new PayloadError("withdrawals: want an array");
    withdrawals = (p.withdrawals as PayloadJson[]).map((w, i) => {
      if (typeof w !== "object" || w === null || Array.isArray(w)) {
        throw new PayloadError(`withdrawals[${i}]: want an object`);
      }
      return {
        index: quantity(w, "index"),
        validatorIndex: quantity(w, "validatorIndex"),
        address: data(w, "address", 20),
        amount: quantity(w, "amount"),
      };
    });
  }
  if (version >= 3 && withdrawals === null) throw new PayloadError("withdrawals: required from V3");
  const v3 = version >= 3;
  let withdrawalsRoot: Uint8Array | null = null;
  if (withdrawals !== null) {
    withdrawalsRoot =
      op && version >= 4 && p.withdrawalsRoot !== undefined && p.withdrawalsRoot !== null
        ? data(p, "withdrawalsRoot", 32)
        : orderedTrieRoot(withdrawals.map(encodeWithdrawal));
  }
  let requestsHash: Uint8Array | null = null;
  if (version >= 4) {
    if (op) requestsHash = sha256(new Uint8Array(0));
    else {
      if (requests === null) throw new PayloadError("executionRequests: required by newPayloadV4");
      requestsHash = requestsHashOfList(requests);
    }
  }
  const header: Header = {
    parentHash: data(p, "parentHash", 32),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: data(p, "feeRecipient", 20),
    stateRoot: data(p, "stateRoot", 32),
    transactionsRoot: orderedTrieRoot(transactions),
    receiptsRoot: data(p, "receiptsRoot", 32),
    logsBloom: data(p, "logsBloom", 256),
    difficulty: 0n,
    number: Number(quantity(p, "blockNumber")),
    gasLimit: quantity(p, "gasLimit"),
    gasUsed: Number(quantity(p, "gasUsed")),
    timestamp: Number(quantity(p, "timestamp")),
    extraData: data(p, "extraData"),
    mixHash: data(p, "prevRandao", 32),
    nonce: new Uint8Array(8),
    baseFeePerGas: quantity(p, "baseFeePerGas"),
    withdrawalsRoot,
    blobGasUsed: v3 ? Number(quantity(p, "blobGasUsed")) : null,
    excessBlobGas: v3 ? Number(quantity(p, "excessBlobGas")) : null,
    parentBeaconBlockRoot: v3 ? beaconRoot : null,
    requestsHash,
  };
  if (header.extraData.length > 32) throw new PayloadError("extraData: longer than 32 bytes");
  return { header, body: { transactions, ommers: [], withdrawals }, blockHash: data(p, "blockHash", 32) };
}

/** EIP-7685 requestsHash of the engine API's `executionRequests` (each item type ‖ data). */
export function requestsHashOfList(requests: readonly Uint8Array[]): Uint8Array {
  const parts = requests.map((r) => sha256(r));
  const all = new Uint8Array(parts.length * 32);
  for (let i = 0; i < parts.length; i++) all.set(parts[i], 32 * i);
  return sha256(all);
}

/** The payload JSON of a block (version ≥ 3 adds the blob fields; OP V4 adds withdrawalsRoot). */
export function blockToPayload(
  header: Header,
  body: BlockBody,
  hash: Uint8Array,
  version: number,
  op: boolean,
): PayloadJson {
  const o: PayloadJson = {
    parentHash: bytesToHex(header.parentHash),
    feeRecipient: bytesToHex(header.coinbase),
    stateRoot: bytesToHex(header.stateRoot),
    receiptsRoot: bytesToHex(header.receiptsRoot),
    logsBloom: bytesToHex(header.logsBloom),
    prevRandao: bytesToHex(header.mixHash),
    blockNumber: qty(header.number),
    gasLimit: qty(header.gasLimit),
    gasUsed: qty(header.gasUsed),
    timestamp: qty(header.timestamp),
    extraData: bytesToHex(header.extraData),
    baseFeePerGas: qty(header.baseFeePerGas ?? 0n),
    blockHash: bytesToHex(hash),
    transactions: body.transactions.map((t) => bytesToHex(t)),
  };
  if (version >= 2) {
    o.withdrawals = (body.withdrawals ?? []).map((w) => ({
      index: qty(w.index),
      validatorIndex: qty(w.validatorIndex),
      address: bytesToHex(w.address),
      amount: qty(w.amount),
    }));
  }
  if (version >= 3) {
    o.blobGasUsed = qty(header.blobGasUsed ?? 0);
    o.excessBlobGas = qty(header.excessBlobGas ?? 0);
  }
  if (version >= 4 && op) o.withdrawalsRoot = bytesToHex(header.withdrawalsRoot ?? EMPTY_TRIE_ROOT);
  return o;
}
