/**
 * Shared setup for the pool tests: real chains (genesis → Blockchain on a MemoryKv), signed txs, a
 * fake clock, and block building through Blockchain.buildBlock so head changes run on real state.
 */
import { encodeJovianExtraData } from "../../../src/block/opExtraData.js";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { privateKeyToAddress } from "../../../src/crypto/secp256k1.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { encodeTx } from "../../../src/tx/envelope.js";
import { signTx } from "../../../src/tx/signer.js";
import { type FeeMarketTx, type LegacyTx, type SignedTx, TxType } from "../../../src/tx/tx.js";
import { TxPool, type TxPoolDeps } from "../../../src/txpool/txPool.js";
import type { TxPoolOptions } from "../../../src/txpool/txPoolOptions.js";
import { txSourceOf } from "../../../src/txpool/txsByPriceAndNonce.js";

export const ETHER = 10n ** 18n;
export const GWEI = 10n ** 9n;
export const L1_CHAIN_ID = 1337n;
export const OP_CHAIN_ID = 901n;
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

export interface AllocEntry {
  balance: bigint;
  nonce?: bigint;
  code?: Uint8Array;
}

function allocJson(alloc: ReadonlyMap<Uint8Array, AllocEntry>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [a, e] of alloc) {
    out[bytesToHex(a)] = {
      balance: `0x${e.balance.toString(16)}`,
      ...(e.nonce === undefined ? {} : { nonce: `0x${e.nonce.toString(16)}` }),
      ...(e.code === undefined ? {} : { code: bytesToHex(e.code) }),
    };
  }
  return out;
}

/** An L1 Cancun chain (post-merge, London base fee 1 gwei at genesis). */
export function l1Genesis(alloc: ReadonlyMap<Uint8Array, AllocEntry>, extra: Record<string, unknown> = {}): unknown {
  return {
    config: {
      chainId: Number(L1_CHAIN_ID),
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      mergeNetsplitBlock: 0,
      terminalTotalDifficulty: 0,
      shanghaiTime: 0,
      cancunTime: 0,
      ...extra,
    },
    gasLimit: "0x1c9c380",
    difficulty: "0x0",
    timestamp: "0x10",
    baseFeePerGas: "0x3b9aca00",
    alloc: allocJson(alloc),
  };
}

/** An OP chain with every fork through Jovian active at genesis. */
export function opGenesis(alloc: ReadonlyMap<Uint8Array, AllocEntry>): unknown {
  return {
    config: {
      chainId: Number(OP_CHAIN_ID),
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      muirGlacierBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      arrowGlacierBlock: 0,
      grayGlacierBlock: 0,
      mergeNetsplitBlock: 0,
      bedrockBlock: 0,
      terminalTotalDifficulty: 0,
      terminalTotalDifficultyPassed: true,
      shanghaiTime: 0,
      cancunTime: 0,
      pragueTime: 0,
      regolithTime: 0,
      canyonTime: 0,
      deltaTime: 0,
      ecotoneTime: 0,
      fjordTime: 0,
      graniteTime: 0,
      holoceneTime: 0,
      isthmusTime: 0,
      jovianTime: 0,
      optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    },
    gasLimit: "0x1c9c380",
    difficulty: "0x0",
    timestamp: "0x10",
    extraData: bytesToHex(encodeJovianExtraData(250, 6, 0n)),
    baseFeePerGas: "0x3b9aca00",
    alloc: allocJson(alloc),
  };
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
