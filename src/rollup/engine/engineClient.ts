/**
 * The rollup node's view of its execution engine (op-service sources/engine_client.go and
 * l2_client.go): L2 block references and the fields derivation compares, the system config in effect
 * after a block (op-node `PayloadToSystemConfig`), and the three Engine API calls in the version each
 * fork needs (op-stack.md §2.14): forkchoiceUpdated V1 before Canyon, V2 to Ecotone, V3 after (and
 * always V3 without attributes); getPayload and newPayload V2, V3 from Ecotone, V4 from Isthmus;
 * getPayload V5 from Karst, newPayload staying V4 (see `getPayloadVersionAt`).
 */
import { decodeHoloceneExtraData, decodeJovianExtraData } from "../../block/opExtraData.js";
import { keccak256 } from "../../crypto/keccak.js";
import { equalBytes, padLeft } from "../../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import { bigintToBytes32 } from "../../primitives/u256.js";
import { decodeTx, encodeTx } from "../../tx/envelope.js";
import { type L1BlockInfo, L1InfoFormat, parseL1BlockInfo } from "../../tx/l1BlockInfo.js";
import { TxType } from "../../tx/tx.js";
import { isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import { attributesJson, type PayloadAttributes } from "../derive/attributes.js";
import type { SystemConfig } from "../derive/systemConfig.js";
import { upgradeGasToStrip } from "../derive/upgradeTxs.js";
import type { L2BlockRef } from "../refs.js";
import { parseRpcTx } from "../transport/ethJson.js";
import type { RpcTransport } from "../transport/rpcTransport.js";

export class EngineClientError extends Error {
  override readonly name = "EngineClientError";
}

/** One transaction of an L2 block as derivation compares it. */
export interface L2TxSummary {
  readonly hash: Uint8Array;
  readonly type: number;
}

/** An L2 block with what consolidation and the system config need. */
export interface L2Block {
  readonly ref: L2BlockRef;
  readonly gasLimit: bigint;
  readonly extraData: Uint8Array;
  readonly prevRandao: Uint8Array;
  readonly feeRecipient: Uint8Array;
  readonly withdrawalsRoot: Uint8Array | null;
  /** Length of the block's `withdrawals` list; null when the block has none (before Shanghai/Canyon). */
  readonly withdrawalCount: number | null;
  readonly parentBeaconBlockRoot: Uint8Array | null;
  readonly txs: readonly L2TxSummary[];
  /** Calldata of the first transaction (the L1-attributes deposit); null for an empty block. */
  readonly firstTxInput: Uint8Array | null;
}

export interface ForkchoiceState {
  readonly head: Uint8Array;
  readonly safe: Uint8Array;
  readonly finalized: Uint8Array;
}

export type PayloadStatusName = "VALID" | "INVALID" | "SYNCING" | "ACCEPTED" | "INVALID_BLOCK_HASH";

export interface PayloadStatus {
  readonly status: PayloadStatusName;
  readonly latestValidHash: string | null;
  readonly validationError: string | null;
}

/** An execution payload envelope as getPayload returns it (JSON kept as is: it goes back to newPayload). */
export interface PayloadEnvelope {
  readonly executionPayload: Record<string, unknown>;
  readonly parentBeaconBlockRoot: string | null;
  readonly blockHash: Uint8Array;
  readonly number: number;
  readonly timestamp: number;
}

interface TxJson {
  hash: string;
  type?: string;
  input?: string;
}

interface BlockJson {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  gasLimit: string;
  extraData: string;
  mixHash?: string;
  miner: string;
  withdrawalsRoot?: string | null;
  withdrawals?: unknown[] | null;
  parentBeaconBlockRoot?: string | null;
  transactions: TxJson[];
}

const num = (q: string): number => Number(BigInt(q));

function quantity(n: number): string {
  return `0x${n.toString(16)}`;
}

export function newPayloadVersionAt(cfg: RollupConfig, timestamp: number): number {
  if (isForkActive(cfg, "isthmus", timestamp)) return 4;
  if (isForkActive(cfg, "ecotone", timestamp)) return 3;
  return 2;
}

/**
 * The engine_getPayload version for a payload at `timestamp`: V5 from Karst, else the newPayload
 * version. op-node selects `engine_getPayloadV5` once Karst is active (optimism #21337, 2026-06-10,
 * "op-node and kona-node select engine_getPayloadV5 once Karst is active"; op-node rollup/types.go
 * `GetPayloadVersion` → eth.GetPayloadV5), and v1.19.1 needs op-reth v2.3.2, the release that "adds
 * engine_getPayloadV5 support for Karst" (Upgrade 19 notice, optimism #21544). Only the method moves:
 * the answer is the V4 envelope (op-reth maps ExecutionPayloadEnvelopeV5 to OpExecutionPayloadEnvelopeV4)
 * and the payload still goes back through newPayloadV4, forkchoiceUpdated staying V3.
 */
export function getPayloadVersionAt(cfg: RollupConfig, timestamp: number): number {
  if (isForkActive(cfg, "karst", timestamp)) return 5;
  return newPayloadVersionAt(cfg, timestamp);
}

export function fcuVersionFor(cfg: RollupConfig, attrs: PayloadAttributes | null): number {
  if (attrs === null) return 3;
  if (isForkActive(cfg, "ecotone", attrs.timestamp)) return 3;
  if (isForkActive(cfg, "canyon", attrs.timestamp)) return 2;
  return 1;
}

export class EngineClient {
  constructor(
    private readonly rpc: RpcTransport,
    readonly cfg: RollupConfig,
  ) {}

  /** The block at a label, number or hash; null when the engine does not have it. */
  async block(at: "latest" | "safe" | "finalized" | number | Uint8Array): Promise<L2Block | null> {
    const b =
      at instanceof Uint8Array
        ? await this.rpc.call<BlockJson | null>("eth_getBlockByHash", [bytesToHex(at), true])
        : await this.rpc.call<BlockJson | null>("eth_getBlockByNumber", [
            typeof at === "number" ? quantity(at) : at,
            true,
          ]);
    return b === null ? null : this.blockOf(b);
  }

  async blockRef(at: "latest" | "safe" | "finalized" | number | Uint8Array): Promise<L2BlockRef | null> {
    return (await this.block(at))?.ref ?? null;
  }

  /** Like `block` but a missing block is an error. */
  async mustBlock(at: "latest" | "safe" | "finalized" | number | Uint8Array): Promise<L2Block> {
    const b = await this.block(at);
    if (b === null) throw new EngineClientError(`L2 block ${at instanceof Uint8Array ? bytesToHex(at) : at} not found`);
    return b;
  }

  private blockOf(b: BlockJson): L2Block {
    const number = num(b.number);
    const hash = hexToBytes(b.hash);
    const timestamp = num(b.timestamp);
    const first = b.transactions[0];
    const firstTxInput = first?.input === undefined ? null : hexToBytes(first.input);
    const origin = originOf(this.cfg, `L2 block ${number}`, number, hash, () =>
      first?.type === "0x7e" && firstTxInput !== null ? parseL1BlockInfo(firstTxInput) : null,
    );
    return {
      ref: { hash, number, parentHash: hexToBytes(b.parentHash), timestamp, ...origin },
      gasLimit: BigInt(b.gasLimit),
      extraData: hexToBytes(b.extraData),
      prevRandao: hexToBytes(b.mixHash ?? `0x${"00".repeat(32)}`),
      feeRecipient: hexToBytes(b.miner),
      withdrawalsRoot: b.withdrawalsRoot ? hexToBytes(b.withdrawalsRoot) : null,
      withdrawalCount: Array.isArray(b.withdrawals) ? b.withdrawals.length : null,
      parentBeaconBlockRoot: b.parentBeaconBlockRoot ? hexToBytes(b.parentBeaconBlockRoot) : null,
      txs: b.transactions.map((t) => ({ hash: hexToBytes(t.hash), type: t.type === undefined ? 0 : num(t.type) })),
      firstTxInput,
    };
  }

  /** PipelineL2: a block that must exist. */
  async l2BlockRefByNumber(n: number): Promise<L2BlockRef> {
    return (await this.mustBlock(n)).ref;
  }

  async l2BlockRefByHash(hash: Uint8Array): Promise<L2BlockRef> {
    return (await this.mustBlock(hash)).ref;
  }

  /**
   * The EIP-2718 bytes of block `n`'s transactions, rebuilt from their JSON and each checked against
   * its hash (so a field the rebuild got wrong can never pass as the block's transaction).
   */
  async transactionsByNumber(n: number): Promise<readonly Uint8Array[]> {
    const b = await this.rpc.call<{ transactions: unknown[] } | null>("eth_getBlockByNumber", [quantity(n), true]);
    if (b === null) throw new EngineClientError(`L2 block ${n} not found`);
    return b.transactions.map((t, i) => {
      const raw = encodeTx(parseRpcTx(t, `transactions[${i}]`));
      const want = (t as { hash?: string }).hash;
      if (want === undefined || bytesToHex(keccak256(raw)) !== want.toLowerCase()) {
        throw new EngineClientError(`L2 block ${n}: transaction ${i} does not rebuild to its hash ${want}`);
      }
      return raw;
    });
  }

  /**
   * Block `n` as an execution payload envelope (op-node `PayloadByNumber`, what P2P req-resp serves):
   * the header fields under their Engine API names, the transactions rebuilt and checked against
   * their hashes, withdrawals from Canyon, blob gas from Ecotone, withdrawalsRoot from Isthmus.
   * Null when the engine does not have the block.
   */
  async payloadByNumber(n: number): Promise<PayloadEnvelope | null> {
    const b = await this.rpc.call<Record<string, unknown> | null>("eth_getBlockByNumber", [quantity(n), true]);
    if (b === null) return null;
    const str = (k: string): string => {
      const v = b[k];
      if (typeof v !== "string") throw new EngineClientError(`L2 block ${n}: field ${k} missing`);
      return v;
    };
    const txs = b.transactions;
    if (!Array.isArray(txs)) throw new EngineClientError(`L2 block ${n}: transactions missing`);
    const raw = txs.map((t, i) => {
      const bytes = encodeTx(parseRpcTx(t, `transactions[${i}]`));
      const want = (t as { hash?: string }).hash;
      if (want === undefined || bytesToHex(keccak256(bytes)) !== want.toLowerCase()) {
        throw new EngineClientError(`L2 block ${n}: transaction ${i} does not rebuild to its hash ${want}`);
      }
      return bytesToHex(bytes);
    });
    const timestamp = num(str("timestamp"));
    const payload: Record<string, unknown> = {
      parentHash: str("parentHash"),
      feeRecipient: str("miner"),
      stateRoot: str("stateRoot"),
      receiptsRoot: str("receiptsRoot"),
      logsBloom: str("logsBloom"),
      prevRandao: str("mixHash"),
      blockNumber: str("number"),
      gasLimit: str("gasLimit"),
      gasUsed: str("gasUsed"),
      timestamp: str("timestamp"),
      extraData: str("extraData"),
      baseFeePerGas: str("baseFeePerGas"),
      blockHash: str("hash"),
      transactions: raw,
    };
    if (isForkActive(this.cfg, "canyon", timestamp)) payload.withdrawals = [];
    if (isForkActive(this.cfg, "ecotone", timestamp)) {
      payload.blobGasUsed = typeof b.blobGasUsed === "string" ? b.blobGasUsed : "0x0";
      payload.excessBlobGas = typeof b.excessBlobGas === "string" ? b.excessBlobGas : "0x0";
    }
    if (isForkActive(this.cfg, "isthmus", timestamp)) payload.withdrawalsRoot = str("withdrawalsRoot");
    const beacon = typeof b.parentBeaconBlockRoot === "string" ? b.parentBeaconBlockRoot : null;
    return envelopeOf(payload, isForkActive(this.cfg, "ecotone", timestamp) ? beacon : null);
  }

  async systemConfigByL2Hash(hash: Uint8Array): Promise<SystemConfig> {
    return systemConfigOfBlock(this.cfg, await this.mustBlock(hash));
  }

  async forkchoiceUpdate(
    state: ForkchoiceState,
    attrs: PayloadAttributes | null,
  ): Promise<{ status: PayloadStatus; payloadId: string | null }> {
    const v = fcuVersionFor(this.cfg, attrs);
    const r = await this.rpc.call<{ payloadStatus: PayloadStatus; payloadId: string | null }>(
      `engine_forkchoiceUpdatedV${v}`,
      [
        {
          headBlockHash: bytesToHex(state.head),
          safeBlockHash: bytesToHex(state.safe),
          finalizedBlockHash: bytesToHex(state.finalized),
        },
        attrs === null ? null : attributesJson(attrs),
      ],
    );
    return { status: r.payloadStatus, payloadId: r.payloadId ?? null };
  }

  async getPayload(payloadId: string, timestamp: number): Promise<PayloadEnvelope> {
    const v = getPayloadVersionAt(this.cfg, timestamp);
    const r = await this.rpc.call<{ executionPayload: Record<string, unknown>; parentBeaconBlockRoot?: string }>(
      `engine_getPayloadV${v}`,
      [payloadId],
    );
    return envelopeOf(r.executionPayload, r.parentBeaconBlockRoot ?? null);
  }

  async newPayload(env: PayloadEnvelope): Promise<PayloadStatus> {
    const v = newPayloadVersionAt(this.cfg, env.timestamp);
    const params: unknown[] = [env.executionPayload];
    if (v >= 3) params.push([], env.parentBeaconBlockRoot ?? `0x${"00".repeat(32)}`);
    if (v >= 4) params.push([]);
    return this.rpc.call<PayloadStatus>(`engine_newPayloadV${v}`, params);
  }
}

/** Wraps a payload JSON with the fields the driver reads. */
export function envelopeOf(payload: Record<string, unknown>, parentBeaconBlockRoot: string | null): PayloadEnvelope {
  const p = payload as { blockHash?: unknown; blockNumber?: unknown; timestamp?: unknown };
  if (typeof p.blockHash !== "string" || typeof p.blockNumber !== "string" || typeof p.timestamp !== "string") {
    throw new EngineClientError("execution payload lacks blockHash, blockNumber or timestamp");
  }
  return {
    executionPayload: payload,
    parentBeaconBlockRoot,
    blockHash: hexToBytes(p.blockHash),
    number: num(p.blockNumber),
    timestamp: num(p.timestamp),
  };
}

/**
 * The ref of the block an envelope carries (op-node `PayloadToBlockRef`): number, hash, parent and
 * time from the payload, the L1 origin and sequence number from its first transaction, which must
 * be the L1-attributes deposit. The genesis payload takes the rollup config's genesis origin.
 */
export function payloadRef(cfg: RollupConfig, env: PayloadEnvelope): L2BlockRef {
  const p = env.executionPayload as { parentHash?: unknown; transactions?: unknown };
  if (typeof p.parentHash !== "string") throw new EngineClientError("execution payload lacks parentHash");
  const origin = originOf(cfg, `payload ${env.number}`, env.number, env.blockHash, () => {
    const first = Array.isArray(p.transactions) ? p.transactions[0] : undefined;
    const tx = typeof first === "string" ? decodeTx(hexToBytes(first)) : null;
    return tx !== null && tx.type === TxType.Deposit ? parseL1BlockInfo(tx.data) : null;
  });
  return {
    hash: env.blockHash,
    number: env.number,
    parentHash: hexToBytes(p.parentHash),
    timestamp: env.timestamp,
    ...origin,
  };
}

/**
 * The L1 origin and sequence number of L2 block `number` (`what` names it in errors): the rollup
 * config's genesis origin for the genesis block, whose hash must be the config's; else read from
 * its L1-attributes deposit (`info`, parsed only then), which it must start with.
 */
function originOf(
  cfg: RollupConfig,
  what: string,
  number: number,
  hash: Uint8Array,
  info: () => L1BlockInfo | null,
): Pick<L2BlockRef, "l1origin" | "sequenceNumber"> {
  const g = cfg.genesis;
  if (number === g.l2.number) {
    if (!equalBytes(hash, g.l2.hash)) {
      throw new EngineClientError(
        `${what} is ${bytesToHex(hash)}, but the rollup config's genesis is ${bytesToHex(g.l2.hash)}`,
      );
    }
    return { l1origin: g.l1, sequenceNumber: 0 };
  }
  const i = info();
  if (i === null)
    throw new EngineClientError(`${what} (${bytesToHex(hash)}) does not start with an L1-attributes deposit`);
  return { l1origin: { hash: i.hash, number: Number(i.number) }, sequenceNumber: Number(i.sequenceNumber) };
}

/**
 * The system config in effect after an L2 block, read back from the block itself (op-node
 * `PayloadToSystemConfig`): batcher and fee scalars from its L1-attributes deposit (Ecotone values
 * re-encoded as a version-1 scalar), gas limit from the header, EIP-1559 parameters (Holocene) and
 * the minimum base fee (Jovian) from extraData, operator fee (Isthmus) and DA footprint scalar
 * (Jovian) from the deposit. The genesis block gives the rollup config's genesis system config. The
 * Karst activation block's gas limit carries the one-time upgrade gas, taken off again here unless
 * `keep_karst_upgrade_gas` (op-node v1.19.1, see `upgradeGasToStrip`).
 */
export function systemConfigOfBlock(cfg: RollupConfig, b: L2Block): SystemConfig {
  const g = cfg.genesis;
  if (b.ref.number === g.l2.number) {
    const s = g.systemConfig;
    return {
      batcherAddr: s.batcherAddr,
      overhead: s.overhead,
      scalar: s.scalar,
      gasLimit: s.gasLimit,
      eip1559Params: s.eip1559Params,
      operatorFeeParams: s.operatorFeeParams,
      minBaseFee: s.minBaseFee,
      daFootprintGasScalar: s.daFootprintGasScalar,
    };
  }
  const info = b.firstTxInput === null ? null : parseL1BlockInfo(b.firstTxInput);
  if (info === null) throw new EngineClientError(`L2 block ${b.ref.number} has no L1-attributes deposit`);
  let overhead = bigintToBytes32(info.l1FeeOverhead);
  let scalar = bigintToBytes32(info.l1FeeScalar);
  if (info.format !== L1InfoFormat.Bedrock) {
    overhead = new Uint8Array(32);
    scalar = new Uint8Array(32);
    scalar[0] = 1;
    new DataView(scalar.buffer).setUint32(24, info.blobBaseFeeScalar);
    new DataView(scalar.buffer).setUint32(28, info.baseFeeScalar);
  }
  const operatorFeeParams = new Uint8Array(32);
  if (info.format === L1InfoFormat.Isthmus || info.format === L1InfoFormat.Jovian) {
    new DataView(operatorFeeParams.buffer).setUint32(20, info.operatorFeeScalar);
    new DataView(operatorFeeParams.buffer).setBigUint64(24, info.operatorFeeConstant);
  }
  let eip1559Params = new Uint8Array(8);
  let minBaseFee = 0n;
  const ts = b.ref.timestamp;
  try {
    if (isForkActive(cfg, "jovian", ts)) {
      const p = decodeJovianExtraData(b.extraData);
      eip1559Params = b.extraData.slice(1, 9);
      minBaseFee = p.minBaseFee ?? 0n;
    } else if (isForkActive(cfg, "holocene", ts)) {
      decodeHoloceneExtraData(b.extraData);
      eip1559Params = b.extraData.slice(1, 9);
    }
  } catch (e) {
    throw new EngineClientError(`L2 block ${b.ref.number}: ${(e as Error).message}`);
  }
  let gasLimit = b.gasLimit;
  const strip = upgradeGasToStrip(cfg, ts);
  if (strip > 0n) {
    // op-node PayloadToSystemConfig refuses a header below the gas it would take off.
    if (gasLimit < strip) {
      throw new EngineClientError(
        `L2 block ${b.ref.number}: karst activation block gas limit ${gasLimit} below upgrade gas ${strip}`,
      );
    }
    gasLimit -= strip;
  }
  return {
    batcherAddr: padLeft(info.batcherHash.subarray(12), 20),
    overhead,
    scalar,
    gasLimit,
    eip1559Params,
    operatorFeeParams,
    minBaseFee,
    daFootprintGasScalar: info.daFootprintGasScalar,
  };
}
