/**
 * Span batch derivation (SPEC: specs/protocol/delta/span-batches.md; op-node span_batch.go
 * `RawSpanBatch.derive`, span_batch_tx.go): a `RawSpanBatch` (rawSpanBatch.ts, framing already
 * checked) becomes per-block elements with absolute timestamps and L1 origins, each tx rebuilt as
 * its signed EIP-2718 encoding. Tx content errors surface here, as BatchDecodeError phase "derive".
 */
import { bytesToBigint } from "../../primitives/u256.js";
import { decodeHeader } from "../../rlp/decode.js";
import { RlpError } from "../../rlp/errors.js";
import { decodeAccessList } from "../../tx/accessList.js";
import { decodeAuthorizationList } from "../../tx/authorization.js";
import { encodeTx } from "../../tx/envelope.js";
import { TxError } from "../../tx/errors.js";
import { legacyV } from "../../tx/legacy.js";
import { RlpCursor } from "../../tx/rlpCursor.js";
import { type Tx, TxType } from "../../tx/tx.js";
import { BatchDecodeError, type BatchDecodeReason } from "./batchErrors.js";
import type { SpanBatch, SpanBatchElement } from "./batchTypes.js";
import {
  ADDRESS_SIZE,
  isLegacyTxData,
  MAX_SAFE_BIG,
  popcount,
  type RawSpanBatch,
  rawShapeProblem,
  SIG_SIZE,
  spanBitlistGet,
} from "./rawSpanBatch.js";

/** Chain constants a span batch is derived with (rollup config `genesis.l2_time`, `block_time`, `l2_chain_id`). */
export interface SpanBatchContext {
  readonly genesisL2Time: number;
  readonly blockTime: number;
  readonly l2ChainId: bigint;
}

function deriveError(reason: BatchDecodeReason, message: string, cause?: unknown): BatchDecodeError {
  return new BatchDecodeError(reason, "derive", message, cause === undefined ? undefined : { cause });
}

function toSafeNumber(v: bigint, what: string): number {
  if (v > MAX_SAFE_BIG) throw deriveError("NUMBER_TOO_LARGE", `${what} ${v} exceeds 2^53 - 1`);
  return Number(v);
}

/** Rebuilds one signed tx from its columns and returns its EIP-2718 encoding. */
function fullTx(
  data: Uint8Array,
  nonce: bigint,
  gasLimit: bigint,
  to: Uint8Array | null,
  chainId: bigint,
  yParity: number,
  isProtected: boolean,
  r: bigint,
  s: bigint,
): Uint8Array {
  const legacy = isLegacyTxData(data);
  const type = legacy ? TxType.Legacy : data[0];
  if (type !== TxType.Legacy && type !== TxType.AccessList && type !== TxType.FeeMarket && type !== TxType.SetCode) {
    throw deriveError("TX_TYPE", `span batch tx data of unsupported type ${type}`);
  }
  if (type === TxType.SetCode && to === null) {
    throw deriveError("SET_CODE_CREATION", "set-code tx flagged as contract creation");
  }
  try {
    const listPos = legacy ? 0 : 1;
    const h = decodeHeader(data, listPos);
    const end = h.start + h.length;
    if (!h.list) throw deriveError("TX_DATA", "tx data must be an RLP list");
    if (end !== data.length) throw deriveError("TX_DATA", `${data.length - end} bytes after the tx data list`);
    const c = new RlpCursor(data, h.start, end);
    let tx: Tx;
    if (type === TxType.Legacy) {
      const value = c.u256("value");
      const gasPrice = c.u256("gasPrice");
      const d = c.bytes("data");
      c.finish("span batch legacy tx data");
      const v = legacyV(yParity, isProtected ? chainId : null);
      tx = { type: TxType.Legacy, nonce, gasPrice, gasLimit, to, value, data: d, v, r, s };
    } else if (type === TxType.AccessList) {
      const value = c.u256("value");
      const gasPrice = c.u256("gasPrice");
      const d = c.bytes("data");
      const accessList = decodeAccessList(c);
      c.finish("span batch access-list tx data");
      tx = { type, chainId, nonce, gasPrice, gasLimit, to, value, data: d, accessList, yParity, r, s };
    } else {
      const value = c.u256("value");
      const maxPriorityFeePerGas = c.u256("maxPriorityFeePerGas");
      const maxFeePerGas = c.u256("maxFeePerGas");
      const d = c.bytes("data");
      const accessList = decodeAccessList(c);
      if (type === TxType.FeeMarket) {
        c.finish("span batch fee-market tx data");
        tx = {
          type,
          chainId,
          nonce,
          maxPriorityFeePerGas,
          maxFeePerGas,
          gasLimit,
          to,
          value,
          data: d,
          accessList,
          yParity,
          r,
          s,
        };
      } else {
        const authorizationList = decodeAuthorizationList(c);
        c.finish("span batch set-code tx data");
        tx = {
          type: TxType.SetCode,
          chainId,
          nonce,
          maxPriorityFeePerGas,
          maxFeePerGas,
          gasLimit,
          to: to!,
          value,
          data: d,
          accessList,
          authorizationList,
          yParity,
          r,
          s,
        };
      }
    }
    return encodeTx(tx);
  } catch (e) {
    if (e instanceof BatchDecodeError) throw e;
    if (e instanceof TxError || e instanceof RlpError) {
      throw deriveError("TX_DATA", `span batch tx data: ${e.message}`, e);
    }
    throw e;
  }
}

/**
 * Derives the per-block elements of a raw span batch (op-node `RawSpanBatch.derive`):
 * block i has timestamp genesisL2Time + rel_timestamp + i·blockTime; the last block's L1 origin is
 * l1_origin_num and, walking back, the origin drops by one below every block i > 0 whose origin bit
 * is set (so the first origin is l1_origin_num − popcount(origin_bits) + origin_bits[0]). Txs are
 * rebuilt with the L2 chain id: legacy v = 35 + 2·chainId + y when protected, else 27 + y; typed
 * txs carry yParity. Throws BatchDecodeError (phase "derive") only.
 */
export function deriveSpanBatch(raw: RawSpanBatch, ctx: SpanBatchContext): SpanBatch {
  const problem = rawShapeProblem(raw);
  if (problem !== null) {
    throw deriveError(raw.blockTxCounts.length === 0 ? "EMPTY_SPAN" : "INCONSISTENT", `raw span batch: ${problem}`);
  }
  const blockCount = raw.blockTxCounts.length;
  const relTimestamp = toSafeNumber(raw.relTimestamp, "rel_timestamp");
  const lastOrigin = toSafeNumber(raw.l1OriginNum, "l1_origin_num");
  const firstTimestamp = ctx.genesisL2Time + relTimestamp;
  if (firstTimestamp + (blockCount - 1) * ctx.blockTime > Number.MAX_SAFE_INTEGER) {
    throw deriveError("NUMBER_TOO_LARGE", "span batch timestamps exceed 2^53 - 1");
  }
  const originChanges = popcount(raw.originBits) - spanBitlistGet(raw.originBits, 0);
  if (originChanges > lastOrigin) {
    throw deriveError("ORIGIN_UNDERFLOW", `l1_origin_num ${lastOrigin} is below its ${originChanges} origin changes`);
  }

  const chainId = ctx.l2ChainId;
  const sigs = raw.txSigs;
  let txIdx = 0;
  let toIdx = 0;
  let legacyIdx = 0;
  let epoch = lastOrigin - originChanges;
  const batches: SpanBatchElement[] = [];
  for (let i = 0; i < blockCount; i++) {
    if (i > 0 && spanBitlistGet(raw.originBits, i) === 1) epoch++;
    const transactions: Uint8Array[] = [];
    const count = raw.blockTxCounts[i];
    for (let j = 0; j < count; j++) {
      const data = raw.txDatas[txIdx];
      let to: Uint8Array | null = null;
      if (spanBitlistGet(raw.contractCreationBits, txIdx) === 0) {
        to = raw.txTos.subarray(toIdx * ADDRESS_SIZE, (toIdx + 1) * ADDRESS_SIZE);
        toIdx++;
      }
      let isProtected = true;
      if (isLegacyTxData(data)) {
        isProtected = spanBitlistGet(raw.protectedBits, legacyIdx) === 1;
        legacyIdx++;
      }
      const sigPos = txIdx * SIG_SIZE;
      const r = bytesToBigint(sigs.subarray(sigPos, sigPos + 32));
      const s = bytesToBigint(sigs.subarray(sigPos + 32, sigPos + SIG_SIZE));
      const y = spanBitlistGet(raw.yParityBits, txIdx);
      transactions.push(fullTx(data, raw.txNonces[txIdx], raw.txGases[txIdx], to, chainId, y, isProtected, r, s));
      txIdx++;
    }
    batches.push({ epochNum: epoch, timestamp: firstTimestamp + i * ctx.blockTime, transactions });
  }
  return { parentCheck: raw.parentCheck, l1OriginCheck: raw.l1OriginCheck, batches };
}
