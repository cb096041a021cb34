/**
 * The batcher side of span batches (SPEC: specs/protocol/delta/span-batches.md; op-node
 * span_batch.go `SpanBatch.AppendSingularBatch`, `ToRawSpanBatch`): consecutive singular batches
 * grouped into one `RawSpanBatch` (rawSpanBatch.ts), each tx split into the span's columns;
 * rawSpanBatch.ts `encodeSpanBatch` then writes it into a channel. Bad input is a BatchEncodeError.
 */
import { bigintToBytes32 } from "../../primitives/u256.js";
import { stringLength, writeString } from "../../rlp/encode.js";
import { accessListLength, writeAccessList } from "../../tx/accessList.js";
import { authorizationListLength, writeAuthorizationList } from "../../tx/authorization.js";
import { decodeTx } from "../../tx/envelope.js";
import { TxError } from "../../tx/errors.js";
import { legacyChainId } from "../../tx/legacy.js";
import { listLength, uintLength, writeListHeader, writeUint } from "../../tx/rlpWriter.js";
import { type AccessList, type Authorization, type SignedTx, type Tx, TxType } from "../../tx/tx.js";
import { BatchEncodeError } from "./batchErrors.js";
import type { SingularBatch } from "./batchTypes.js";
import {
  ADDRESS_SIZE,
  CHECK_SIZE,
  MAX_SPAN_BATCH_ELEMENT_COUNT,
  packSpanBitlist,
  type RawSpanBatch,
  SIG_SIZE,
} from "./rawSpanBatch.js";

function txDataLegacy(value: bigint, gasPrice: bigint, data: Uint8Array): Uint8Array {
  const payload = uintLength(value) + uintLength(gasPrice) + stringLength(data);
  const out = new Uint8Array(listLength(payload));
  let pos = writeListHeader(out, 0, payload);
  pos = writeUint(out, pos, value);
  pos = writeUint(out, pos, gasPrice);
  writeString(out, pos, data);
  return out;
}

function txDataTyped(
  type: TxType,
  ints: readonly bigint[],
  data: Uint8Array,
  accessList: AccessList,
  authorizationList: readonly Authorization[] | null,
): Uint8Array {
  let payload = stringLength(data) + accessListLength(accessList);
  for (const v of ints) payload += uintLength(v);
  if (authorizationList !== null) payload += authorizationListLength(authorizationList);
  const out = new Uint8Array(1 + listLength(payload));
  out[0] = type;
  let pos = writeListHeader(out, 1, payload);
  for (const v of ints) pos = writeUint(out, pos, v);
  pos = writeString(out, pos, data);
  pos = writeAccessList(out, pos, accessList);
  if (authorizationList !== null) writeAuthorizationList(out, pos, authorizationList);
  return out;
}

/** One tx split into its span batch columns. */
interface SpanTxColumns {
  readonly sig: Uint8Array;
  readonly yParity: number;
  readonly to: Uint8Array | null;
  readonly data: Uint8Array;
  readonly nonce: bigint;
  readonly gas: bigint;
  /** null for typed txs (no protected bit). */
  readonly protectedBit: number | null;
}

function splitTx(encoded: Uint8Array, chainId: bigint): SpanTxColumns {
  let tx: Tx;
  try {
    tx = decodeTx(encoded);
  } catch (e) {
    if (e instanceof TxError) throw new BatchEncodeError("TX_DECODE", `batch tx: ${e.message}`, { cause: e });
    throw e;
  }
  if (tx.type === TxType.Blob || tx.type === TxType.Deposit) {
    throw new BatchEncodeError("TX_TYPE", `tx type ${tx.type} cannot go into a span batch`);
  }
  const signed: SignedTx = tx;
  let yParity: number;
  let protectedBit: number | null = null;
  let data: Uint8Array;
  if (signed.type === TxType.Legacy) {
    const txChainId = legacyChainId(signed.v);
    if (txChainId === undefined) throw new BatchEncodeError("SIGNATURE", `legacy tx with malformed v ${signed.v}`);
    if (txChainId === null) {
      protectedBit = 0;
      yParity = Number(signed.v - 27n);
    } else {
      if (txChainId !== chainId) {
        throw new BatchEncodeError("CHAIN_ID", `protected tx has chain id ${txChainId}, want ${chainId}`);
      }
      protectedBit = 1;
      yParity = Number((signed.v - 35n) & 1n);
    }
    data = txDataLegacy(signed.value, signed.gasPrice, signed.data);
  } else {
    if (signed.chainId !== chainId) {
      throw new BatchEncodeError("CHAIN_ID", `tx has chain id ${signed.chainId}, want ${chainId}`);
    }
    if (signed.yParity !== 0 && signed.yParity !== 1) {
      throw new BatchEncodeError("SIGNATURE", `tx yParity ${signed.yParity} is not 0 or 1`);
    }
    yParity = signed.yParity;
    if (signed.type === TxType.AccessList) {
      data = txDataTyped(signed.type, [signed.value, signed.gasPrice], signed.data, signed.accessList, null);
    } else if (signed.type === TxType.FeeMarket) {
      const ints = [signed.value, signed.maxPriorityFeePerGas, signed.maxFeePerGas];
      data = txDataTyped(signed.type, ints, signed.data, signed.accessList, null);
    } else {
      const ints = [signed.value, signed.maxPriorityFeePerGas, signed.maxFeePerGas];
      data = txDataTyped(signed.type, ints, signed.data, signed.accessList, signed.authorizationList);
    }
  }
  const sig = new Uint8Array(SIG_SIZE);
  bigintToBytes32(signed.r, sig, 0);
  bigintToBytes32(signed.s, sig, 32);
  const to = signed.to === null ? null : signed.to.slice();
  return { sig, yParity, to, data, nonce: signed.nonce, gas: signed.gasLimit, protectedBit };
}

function checkSafe(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new BatchEncodeError("RANGE", `${what} ${n} is not a non-negative safe integer`);
}

/**
 * Groups consecutive singular batches into one raw span batch, one block at a time (op-node
 * `SpanBatch.AppendSingularBatch` + `ToRawSpanBatch`). Each append converts only the new block's txs,
 * so a batcher can grow the span and re-encode it to measure its size. An append that throws leaves
 * the builder unchanged.
 */
export class SpanBatchBuilder {
  private parentCheck: Uint8Array = new Uint8Array(CHECK_SIZE);
  private l1OriginCheck: Uint8Array = new Uint8Array(CHECK_SIZE);
  private readonly blocks: { epochNum: number; timestamp: number }[] = [];
  private readonly originBits: number[] = [];
  private readonly blockTxCounts: number[] = [];
  private readonly creationBits: number[] = [];
  private readonly yParityBits: number[] = [];
  private readonly sigs: Uint8Array[] = [];
  private readonly tos: Uint8Array[] = [];
  private readonly datas: Uint8Array[] = [];
  private readonly nonces: bigint[] = [];
  private readonly gases: bigint[] = [];
  private readonly protectedBits: number[] = [];

  constructor(
    readonly genesisL2Time: number,
    readonly l2ChainId: bigint,
  ) {}

  get blockCount(): number {
    return this.blocks.length;
  }

  get txCount(): number {
    return this.datas.length;
  }

  /**
   * Appends the next L2 block. `seqNum` is the block's sequence number within its epoch; it only
   * matters for the first block, whose origin bit is set when seqNum is 0 (a new epoch starts).
   */
  append(batch: SingularBatch, seqNum: number): void {
    if (batch.parentHash.length !== 32) throw new BatchEncodeError("RANGE", "parent hash is not 32 bytes");
    if (batch.epochHash.length !== 32) throw new BatchEncodeError("RANGE", "epoch hash is not 32 bytes");
    checkSafe(batch.epochNum, "epoch number");
    checkSafe(batch.timestamp, "timestamp");
    checkSafe(seqNum, "sequence number");
    if (batch.timestamp < this.genesisL2Time) {
      throw new BatchEncodeError("RANGE", `timestamp ${batch.timestamp} is before L2 genesis ${this.genesisL2Time}`);
    }
    if (batch.transactions.length > MAX_SPAN_BATCH_ELEMENT_COUNT) {
      throw new BatchEncodeError("RANGE", `block has ${batch.transactions.length} txs, above the span limit`);
    }
    let originBit: number;
    const prev = this.blocks.length === 0 ? null : this.blocks[this.blocks.length - 1];
    if (prev === null) {
      originBit = seqNum === 0 ? 1 : 0;
    } else {
      if (batch.timestamp < prev.timestamp) {
        throw new BatchEncodeError("ORDER", `timestamp ${batch.timestamp} before the previous ${prev.timestamp}`);
      }
      const step = batch.epochNum - prev.epochNum;
      if (step !== 0 && step !== 1) {
        throw new BatchEncodeError("ORDER", `L1 origin steps from ${prev.epochNum} to ${batch.epochNum}`);
      }
      originBit = step;
    }
    const cols: SpanTxColumns[] = [];
    for (const t of batch.transactions) cols.push(splitTx(t, this.l2ChainId));

    if (prev === null) this.parentCheck = batch.parentHash.slice(0, CHECK_SIZE);
    this.l1OriginCheck = batch.epochHash.slice(0, CHECK_SIZE);
    this.blocks.push({ epochNum: batch.epochNum, timestamp: batch.timestamp });
    this.originBits.push(originBit);
    this.blockTxCounts.push(cols.length);
    for (const c of cols) {
      this.creationBits.push(c.to === null ? 1 : 0);
      this.yParityBits.push(c.yParity);
      this.sigs.push(c.sig);
      if (c.to !== null) this.tos.push(c.to);
      this.datas.push(c.data);
      this.nonces.push(c.nonce);
      this.gases.push(c.gas);
      if (c.protectedBit !== null) this.protectedBits.push(c.protectedBit);
    }
  }

  /** The raw span batch of everything appended so far. */
  toRaw(): RawSpanBatch {
    if (this.blocks.length === 0) throw new BatchEncodeError("EMPTY", "span batch has no blocks");
    const first = this.blocks[0];
    const last = this.blocks[this.blocks.length - 1];
    const txSigs = new Uint8Array(SIG_SIZE * this.sigs.length);
    for (let i = 0; i < this.sigs.length; i++) txSigs.set(this.sigs[i], i * SIG_SIZE);
    const txTos = new Uint8Array(ADDRESS_SIZE * this.tos.length);
    for (let i = 0; i < this.tos.length; i++) txTos.set(this.tos[i], i * ADDRESS_SIZE);
    return {
      relTimestamp: BigInt(first.timestamp - this.genesisL2Time),
      l1OriginNum: BigInt(last.epochNum),
      parentCheck: this.parentCheck,
      l1OriginCheck: this.l1OriginCheck,
      originBits: packSpanBitlist(this.originBits),
      blockTxCounts: this.blockTxCounts.slice(),
      contractCreationBits: packSpanBitlist(this.creationBits),
      yParityBits: packSpanBitlist(this.yParityBits),
      txSigs,
      txTos,
      txDatas: this.datas.slice(),
      txNonces: this.nonces.slice(),
      txGases: this.gases.slice(),
      protectedBits: packSpanBitlist(this.protectedBits),
    };
  }
}

/**
 * Groups consecutive singular batches into one raw span batch. `firstSeqNum` is the sequence number
 * of the first block within its epoch (0 sets origin bit 0, as op-batcher does).
 */
export function spanBatchFromSingulars(
  batches: readonly SingularBatch[],
  ctx: { readonly genesisL2Time: number; readonly l2ChainId: bigint; readonly firstSeqNum: number },
): RawSpanBatch {
  if (batches.length === 0) throw new BatchEncodeError("EMPTY", "no singular batches to group");
  const b = new SpanBatchBuilder(ctx.genesisL2Time, ctx.l2ChainId);
  for (let i = 0; i < batches.length; i++) b.append(batches[i], i === 0 ? ctx.firstSeqNum : 1);
  return b.toRaw();
}
