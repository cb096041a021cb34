/**
 * Fork identifiers (EIP-2124, timestamps by EIP-6122): FORK_HASH is the IEEE CRC-32 of the genesis
 * hash followed by each passed fork point as a big-endian uint64 — block forks first, then time
 * forks, ascending, each point once, none at genesis — and FORK_NEXT the first point not passed
 * (0: none). The devp2p Status message, the `eth` ENR entry and eth_config (EIP-7910) carry it.
 */
import { crc32 } from "../primitives/crc32.js";
import { hexToBytes } from "../primitives/hex.js";
import type { ChainConfig } from "./chainConfig.js";

/** A fork id: `hash` is FORK_HASH (4 bytes, big-endian CRC-32), `next` FORK_NEXT (block or time, 0 for none). */
export interface ForkId {
  readonly hash: Uint8Array;
  readonly next: number;
}

/** The fork points a chain checksums: block numbers, then timestamps, each ascending and unique. */
export interface ForkPoints {
  readonly blocks: readonly number[];
  readonly times: readonly number[];
}

type NumberField = {
  [K in keyof ChainConfig]: ChainConfig[K] extends number | null ? K : never;
}[keyof ChainConfig];

// SPEC: geth core/forkid gatherForks takes every `*big.Int` field of params.ChainConfig named
// `…Block` and every `*uint64` named `…Time`; op-geth's struct adds BedrockBlock and the OP times.
// op-reth (chainspec `From<Genesis>`) checksums the same points (Bedrock as a block fork, Regolith
// through Interop as time forks, Shanghai/Cancun/Prague at Canyon/Ecotone/Isthmus), so both
// clients announce one id. geth's DAOForkBlock has no field in our ChainConfig (yet): mainnet's
// 1920000 is missing here, see the mainnet test.
const BLOCK_FORKS = [
  "homesteadBlock",
  "eip150Block",
  "eip155Block",
  "eip158Block",
  "byzantiumBlock",
  "constantinopleBlock",
  "petersburgBlock",
  "istanbulBlock",
  "muirGlacierBlock",
  "berlinBlock",
  "londonBlock",
  "arrowGlacierBlock",
  "grayGlacierBlock",
  "mergeNetsplitBlock",
  "bedrockBlock",
] as const satisfies readonly NumberField[];

// SPEC: Delta is absent on purpose: op-geth's ChainConfig has no DeltaTime ("the Delta upgrade does
// not affect the execution-layer, and is thus not configurable in the chain config") and op-reth's
// hardfork lists have no Delta entry; op-reth's published OP Mainnet ids go from Canyon straight to
// Ecotone (chainspec `op_mainnet_forkids`).
const TIME_FORKS = [
  "shanghaiTime",
  "cancunTime",
  "pragueTime",
  "osakaTime",
  "bpo1Time",
  "bpo2Time",
  "bpo3Time",
  "bpo4Time",
  "bpo5Time",
  "regolithTime",
  "canyonTime",
  "ecotoneTime",
  "fjordTime",
  "graniteTime",
  "holoceneTime",
  "isthmusTime",
  "jovianTime",
  "karstTime",
  "interopTime",
] as const satisfies readonly NumberField[];

function sortedUnique(values: number[]): number[] {
  values.sort((a, b) => a - b);
  return values.filter((v, i) => i === 0 || v !== values[i - 1]);
}

/**
 * Every scheduled time fork of `cfg`, ascending and unique, those at or before genesis included
 * (eth_config on OP chains counts them, op-reth `EthConfigHandler`; the fork id does not).
 */
export function scheduledForkTimes(cfg: ChainConfig): number[] {
  const times: number[] = [];
  for (const k of TIME_FORKS) {
    const t = cfg[k];
    if (t !== null) times.push(t);
  }
  return sortedUnique(times);
}

/**
 * The points `cfg` checksums (geth `gatherForks`): block forks without those at block 0 (the genesis
 * ruleset is no fork), time forks without those at or before `genesisTime`.
 */
export function forkPoints(cfg: ChainConfig, genesisTime: number): ForkPoints {
  const blocks: number[] = [];
  for (const k of BLOCK_FORKS) {
    const b = cfg[k];
    if (b !== null && b > 0) blocks.push(b);
  }
  return {
    blocks: sortedUnique(blocks),
    times: scheduledForkTimes(cfg).filter((t) => t > genesisTime),
  };
}

/** The fork id of a head at `headNumber` / `headTime` (geth `forkid.NewID`, reth `ChainSpec::fork_id`). */
export function forkIdAt(genesisHash: Uint8Array, points: ForkPoints, headNumber: number, headTime: number): ForkId {
  const u64 = new Uint8Array(8);
  const view = new DataView(u64.buffer);
  let crc = crc32(genesisHash);
  const passed = (at: number, head: number): boolean => {
    if (at > head) return false;
    view.setUint32(0, Math.floor(at / 0x1_0000_0000));
    view.setUint32(4, at >>> 0);
    crc = crc32(u64, crc);
    return true;
  };
  // SPEC: EIP-6122: block forks are checked before time forks; an unpassed block fork ends the walk.
  for (const b of points.blocks) if (!passed(b, headNumber)) return { hash: be32(crc), next: b };
  for (const t of points.times) if (!passed(t, headTime)) return { hash: be32(crc), next: t };
  return { hash: be32(crc), next: 0 };
}

/** `forkIdAt` over `forkPoints(cfg, genesisTime)`. */
export function forkId(
  cfg: ChainConfig,
  genesisHash: Uint8Array,
  genesisTime: number,
  headNumber: number,
  headTime: number,
): ForkId {
  return forkIdAt(genesisHash, forkPoints(cfg, genesisTime), headNumber, headTime);
}

function be32(crc: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, crc >>> 0);
  return out;
}

/**
 * OP Mainnet's block 0, from before Bedrock. A node started from the Bedrock genesis (block
 * 105235063, 0xdbf6a80f… in the superchain registry) holds no block 0, yet op-geth (whose datadir
 * keeps the legacy history) and op-reth (chainspec `OP_MAINNET`, genesis hash 0x7ca38a19…) checksum
 * this hash: op-reth's `op_mainnet_forkids` test starts from 0xcaf517ed = CRC-32 of it.
 */
export const OP_MAINNET_LEGACY_GENESIS_HASH: Uint8Array = hexToBytes(
  "0x7ca38a1916c42007829c55e69d3e9a73265554b586a499015373241b8a3fa48b",
);

/**
 * The genesis hash a fork id starts from, given the chain's first stored block: that block's hash,
 * except on OP Mainnet started at its Bedrock block, where peers checksum the legacy block 0.
 */
export function forkIdGenesisHash(cfg: ChainConfig, genesisNumber: number, genesisHash: Uint8Array): Uint8Array {
  return cfg.optimism !== null && cfg.chainId === 10n && genesisNumber !== 0
    ? OP_MAINNET_LEGACY_GENESIS_HASH
    : genesisHash;
}
