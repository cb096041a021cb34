/**
 * Shared setup for the pool tests: real chains (genesis → Blockchain on a MemoryKv), signed txs, a
 * fake clock, and block building through Blockchain.buildBlock so head changes run on real state.
 */
import { encodeJovianExtraData } from "../../../src/block/opExtraData.js";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { privateKeyToAddress } from "../../../src/crypto/secp256k1.js";
import { hexToBytes } from "../../../src/primitives/hex.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { encodeTx } from "../../../src/tx/envelope.js";
import { encodeL1BlockInfo, L1InfoFormat, newL1BlockInfo } from "../../../src/tx/l1BlockInfo.js";
import { signTx } from "../../../src/tx/signer.js";
import { type FeeMarketTx, type LegacyTx, type SignedTx, TxType } from "../../../src/tx/tx.js";
import { TxPool, type TxPoolDeps } from "../../../src/txpool/txPool.js";
import type { TxPoolOptions } from "../../../src/txpool/txPoolOptions.js";
import { txSourceOf } from "../../../src/txpool/txsByPriceAndNonce.js";
import { type AllocEntry, L1_CHAIN_ID, l1Genesis, OP_CHAIN_ID, opGenesis } from "../../utils/genesis.js";
import { depositTx } from "../tx/builders.js";

export { type AllocEntry, L1_CHAIN_ID, l1Genesis, OP_CHAIN_ID, opGenesis };

export const ETHER = 10n ** 18n;
export const GWEI = 10n ** 9n;
export const TO = hexToBytes("0x00000000000000000000000000000000000000aa");

export function key(n: number): Uint8Array {
  const k = new Uint8Array(32);
  k[31] = n;
  k[0] = 0x11;
  return k;
}

export function addr(n: number): Uint8Array {
  return privateKeyToAddress(key(n));
}

export function chainOf(json: unknown): Blockchain {
  return Blockchain.init(new MemoryKv(), parseGenesis(json), (json as { config: unknown }).config);
}

export class Clock {
  t = 1_000_000;
  readonly now = (): number => this.t;
}

export function poolOf(chain: Blockchain, opts: Partial<TxPoolOptions> = {}, deps: Partial<TxPoolDeps> = {}) {
  const clock = new Clock();
  const pool = new TxPool(opts, { chain, now: clock.now, ...deps });
  return { pool, clock };
}

export interface TxFields {
  tip?: bigint;
  maxFee?: bigint;
  gas?: bigint;
  value?: bigint;
  to?: Uint8Array | null;
  data?: Uint8Array;
  chainId?: bigint;
}

export function dyn(k: number, nonce: number | bigint, f: TxFields = {}): FeeMarketTx {
  const tx: FeeMarketTx = {
    type: TxType.FeeMarket,
    chainId: f.chainId ?? L1_CHAIN_ID,
    nonce: BigInt(nonce),
    maxPriorityFeePerGas: f.tip ?? 2n * GWEI,
    maxFeePerGas: f.maxFee ?? 10n * GWEI,
    gasLimit: f.gas ?? 21_000n,
    to: f.to === undefined ? TO : f.to,
    value: f.value ?? 1000n,
    data: f.data ?? new Uint8Array(0),
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
  };
  return signTx(tx, key(k));
}

export function legacy(k: number, nonce: number, gasPrice: bigint, f: TxFields = {}): LegacyTx {
  const tx: LegacyTx = {
    type: TxType.Legacy,
    nonce: BigInt(nonce),
    gasPrice,
    gasLimit: f.gas ?? 21_000n,
    to: f.to === undefined ? TO : f.to,
    value: f.value ?? 1000n,
    data: f.data ?? new Uint8Array(0),
    v: 0n,
    r: 0n,
    s: 0n,
  };
  return signTx(tx, key(k), f.chainId ?? L1_CHAIN_ID);
}

export function raw(tx: SignedTx): Uint8Array {
  return encodeTx(tx);
}

export interface BuildOpts {
  forced?: Uint8Array[];
  /** Take pool txs through `byPriceAndNonce`. */
  pool?: TxPool | null;
  timestampDelta?: number;
  parentHash?: Uint8Array;
  extraData?: Uint8Array;
}

/** Builds, stores and makes canonical a block on top of the head (or `parentHash`). */
export function mine(chain: Blockchain, o: BuildOpts = {}) {
  const parentHash = o.parentHash ?? chain.headBlockHash;
  const parent = chain.store.header(parentHash)!;
  const built = chain.buildBlock({
    parentHash,
    timestamp: parent.timestamp + (o.timestampDelta ?? 2),
    feeRecipient: hexToBytes("0x00000000000000000000000000000000000000fe"),
    prevRandao: new Uint8Array(32).fill(3),
    gasLimit: parent.gasLimit,
    extraData: o.extraData ?? new Uint8Array(0),
    withdrawals: [],
    parentBeaconBlockRoot: new Uint8Array(32).fill(4),
    forced: o.forced ?? [],
    pool: o.pool ? txSourceOf(o.pool.byPriceAndNonce(parent.baseFeePerGas)) : null,
  });
  if ("error" in built) throw new Error(`build failed: ${built.error}`);
  chain.setHead(built.hash);
  return built;
}

/**
 * Jovian L1 attributes: by default L1 block 7, a 30 gwei L1 base fee, OP Mainnet's scalars and no
 * operator fee; `over` changes any of those.
 */
export function jovianL1Info(
  over: {
    number?: bigint;
    baseFee?: bigint;
    blobBaseFee?: bigint;
    operatorFeeScalar?: number;
    operatorFeeConstant?: bigint;
  } = {},
) {
  return newL1BlockInfo({
    format: L1InfoFormat.Jovian,
    number: over.number ?? 7n,
    timestamp: 1n,
    baseFee: over.baseFee ?? 30n * GWEI,
    blobBaseFee: over.blobBaseFee ?? 5n,
    baseFeeScalar: 1368,
    blobBaseFeeScalar: 810949,
    operatorFeeScalar: over.operatorFeeScalar ?? 0,
    operatorFeeConstant: over.operatorFeeConstant ?? 0n,
    daFootprintGasScalar: 400,
  });
}

/** An L1-info deposit of `jovianL1Info()` to open OP blocks with. */
export const JOVIAN_L1_INFO_DEPOSIT = l1InfoDeposit(encodeL1BlockInfo(jovianL1Info()));

/** The L1-attributes deposit carrying `data` (the L1Block setter call), as the derivation forms it. */
export function l1InfoDeposit(data: Uint8Array, sourceHashByte = 9): Uint8Array {
  return encodeTx(depositTx({ sourceHash: new Uint8Array(32).fill(sourceHashByte), data }));
}

/** Jovian extraData (denominator 250, elasticity 6, min base fee 0). */
export const JOVIAN_EXTRA = encodeJovianExtraData(250, 6, 0n);

/** Builds the next OP block (the L1-info deposit, then what `pool` offers) and tells the pool of the new head. */
export function opMine(chain: Blockchain, pool?: TxPool) {
  const b = mine(chain, {
    forced: [JOVIAN_L1_INFO_DEPOSIT],
    extraData: JOVIAN_EXTRA,
    ...(pool === undefined ? {} : { pool }),
  });
  pool?.onNewHead(chain.head);
  return b;
}
