/**
 * User deposits: the `TransactionDeposited` logs of the OptimismPortal in the receipts of an
 * epoch's L1 origin become deposit txs of the epoch's first L2 block (op-stack.md §2.10). SPEC:
 * specs/protocol/deposits.md "Deposit Contract", "Source hash computation"; op-node
 * rollup/derive/deposit_log.go (`UnmarshalDepositLogEvent`), deposits.go (`UserDeposits`),
 * deposit_source.go (`UserDepositSource`).
 *
 * event TransactionDeposited(address indexed from, address indexed to, uint256 indexed version, bytes opaqueData)
 *
 * Version 0 packs `opaqueData` as mint u256 ‖ value u256 ‖ gasLimit u64 ‖ isCreation u8 ‖ data.
 * `from` is used as emitted: the portal has already aliased a contract caller. Unlike a malformed
 * ConfigUpdate, a deposit that cannot be decoded may never be skipped, so `DepositLogError` is a
 * critical derivation error.
 *
 * The checks are op-node's: it does not require zero padding in the address topics or after the
 * opaque data (kona-derived decoders do); the portal never emits either, so this cannot diverge on
 * a real chain.
 */

import type { ReceiptLog } from "../../block/log.js";
import { keccak256 } from "../../crypto/keccak.js";
import { concatBytes, equalBytes, isZeroBytes, utf8ToBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { bigintToBytes32, bytesToBigint } from "../../primitives/u256.js";
import { DepositSourceDomain, depositSourceHash } from "../../tx/depositSourceHash.js";
import { type DepositTx, TxType } from "../../tx/tx.js";
import { DeriveError } from "./errors.js";

/** keccak256("TransactionDeposited(address,address,uint256,bytes)"). */
export const DEPOSIT_EVENT_TOPIC: Uint8Array = keccak256(
  utf8ToBytes("TransactionDeposited(address,address,uint256,bytes)"),
);

/** Fixed head of version-0 opaque data: mint(32) value(32) gasLimit(8) isCreation(1). */
const OPAQUE_HEAD = 32 + 32 + 8 + 1;

/** A deposit log that cannot be decoded: critical, derivation stops (op-node returns it as an error of `DeriveDeposits`). */
export class DepositLogError extends DeriveError {
  constructor(message: string) {
    super("critical", message);
  }
}

/** keccak256(uint256_be(0) ‖ keccak256(l1BlockHash ‖ uint256_be(logIndex))). `logIndex` counts logs across the whole L1 block. */
export function userDepositSourceHash(l1BlockHash: Uint8Array, logIndex: number): Uint8Array {
  const inner = keccak256(concatBytes(l1BlockHash, bigintToBytes32(BigInt(logIndex))));
  return depositSourceHash(DepositSourceDomain.User, inner);
}

/** An ABI word (32 bytes at `pos`) as a number, or -1 when it does not fit in 2^53. */
function wordToNumber(data: Uint8Array, pos: number): number {
  const v = bytesToBigint(data.subarray(pos, pos + 32));
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? -1 : Number(v);
}

/**
 * Decodes one `TransactionDeposited` log of the block `l1BlockHash`, at block-wide index
 * `logIndex`, into its deposit tx. The caller has matched the log's address; the topic is checked
 * here again. Throws `DepositLogError` on any malformation.
 */
export function decodeDepositLog(log: ReceiptLog, l1BlockHash: Uint8Array, logIndex: number): DepositTx {
  const { topics, data } = log;
  if (topics.length !== 4) throw new DepositLogError(`deposit log has ${topics.length} topics, expected 4`);
  if (!equalBytes(topics[0], DEPOSIT_EVENT_TOPIC)) {
    throw new DepositLogError(`invalid deposit event selector ${bytesToHex(topics[0])}`);
  }
  if (data.length < 64) throw new DepositLogError(`incomplete opaqueData slice header (${data.length} bytes)`);
  if (data.length % 32 !== 0) throw new DepositLogError(`log data is ${data.length} bytes, not a multiple of 32`);

  // data = abi.encode(bytes opaqueData): offset word, length word, content padded to 32 bytes.
  if (wordToNumber(data, 0) !== 32) {
    throw new DepositLogError(`invalid opaqueData offset ${bytesToHex(data.subarray(0, 32))}`);
  }
  const length = wordToNumber(data, 32);
  const room = data.length - 64;
  // Fits in the data, and the padding is minimal (not 32 bytes or more of it).
  if (length < 0 || length > room || length + 32 <= room) {
    throw new DepositLogError(`invalid opaqueData length ${bytesToHex(data.subarray(32, 64))} for ${room} bytes`);
  }
  const opaque = data.subarray(64, 64 + length);

  if (!isZeroBytes(topics[3])) throw new DepositLogError(`unsupported deposit version ${bytesToHex(topics[3])}`);
  if (opaque.length < OPAQUE_HEAD) throw new DepositLogError(`version 0 opaqueData is ${opaque.length} bytes`);

  const mint = bytesToBigint(opaque.subarray(0, 32));
  const value = bytesToBigint(opaque.subarray(32, 64));
  const gasLimit = bytesToBigint(opaque.subarray(64, 72));
  // Any non-zero isCreation byte makes a contract creation (op-node tests `== 0` for a call).
  const isCreation = opaque[72] !== 0;
  return {
    type: TxType.Deposit,
    sourceHash: userDepositSourceHash(l1BlockHash, logIndex),
    from: topics[1].slice(12),
    to: isCreation ? null : topics[2].slice(12),
    // DepositTx carries "no mint" as 0n; the encoder writes it as the empty string (op-geth nil).
    mint,
    value,
    gasLimit,
    isSystemTx: false,
    data: opaque.slice(OPAQUE_HEAD),
  };
}

/** What `depositsFromReceipts` reads of a receipt. */
export interface DepositReceipt {
  /** 1 = success. */
  readonly status: number;
  readonly logs: readonly ReceiptLog[];
}

/**
 * The user deposits of an L1 block, in log order: every log of a successful receipt emitted by
 * `depositContract` whose first topic is `DEPOSIT_EVENT_TOPIC`. Each log's index is its position
 * among all logs of the block (failed receipts carry no logs, so they shift nothing). Throws
 * `DepositLogError`, naming the receipt and log, on the first malformed deposit log.
 */
export function depositsFromReceipts(
  receipts: readonly DepositReceipt[],
  l1BlockHash: Uint8Array,
  depositContract: Uint8Array,
): DepositTx[] {
  const out: DepositTx[] = [];
  let blockLogIndex = 0;
  for (let i = 0; i < receipts.length; i++) {
    const r = receipts[i];
    const first = blockLogIndex;
    blockLogIndex += r.logs.length;
    if (r.status !== 1) continue;
    for (let j = 0; j < r.logs.length; j++) {
      const log = r.logs[j];
      if (!equalBytes(log.address, depositContract)) continue;
      if (log.topics.length === 0 || !equalBytes(log.topics[0], DEPOSIT_EVENT_TOPIC)) continue;
      try {
        out.push(decodeDepositLog(log, l1BlockHash, first + j));
      } catch (e) {
        if (!(e instanceof DepositLogError)) throw e;
        throw new DepositLogError(`malformed L1 deposit log in receipt ${i}, log ${j}: ${e.message}`);
      }
    }
  }
  return out;
}
