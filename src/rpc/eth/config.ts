/**
 * eth_config (EIP-7910): the fork in force at the head (`current`), the next scheduled fork and the
 * last scheduled one, each `{activationTime, blobSchedule, chainId, forkId, precompiles,
 * systemContracts}`, or null. L1 chains answer as geth (internal/ethapi/api.go `Config`), OP
 * chains as op-reth, which serves reth's handler (rpc-eth-api helpers/config.rs
 * `EthConfigHandler`, reth 88505c7 as op-reth pins it) over its OP chain spec.
 */

import type { ChainView } from "../../chain/blockchain.js";
import { P256VERIFY_ID, precompileAddress, precompileTable } from "../../evm/precompiles/table.js";
import {
  BEACON_ROOTS_ADDRESS,
  CONSOLIDATION_REQUEST_ADDRESS,
  HISTORY_STORAGE_ADDRESS,
  WITHDRAWAL_REQUEST_ADDRESS,
} from "../../executor/systemCalls.js";
import { crc32 } from "../../primitives/crc32.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { JsonValue } from "../../primitives/json.js";
import {
  type BlobParams,
  type BlobSchedule,
  type ChainConfig,
  DEFAULT_CANCUN_BLOB_PARAMS,
  DEFAULT_PRAGUE_BLOB_PARAMS,
  rulesAt,
} from "../../spec/chainConfig.js";
import { type ForkPoints, forkIdAt, forkIdGenesisHash, forkPoints, scheduledForkTimes } from "../../spec/forkId.js";
import { Fork } from "../../spec/forks.js";
import { RpcError } from "../errors.js";
import { qty } from "../format.js";

/** The chain's genesis as a fork id sees it: the hash it starts from and the time before which time forks are genesis rules. */
export interface GenesisRef {
  readonly hash: Uint8Array;
  readonly timestamp: number;
}

// SPEC: the names geth's precompiles give themselves (core/vm/contracts.go `Name()`), which revm's
// `PrecompileId::name` repeats "as defined in EIP-7910".
const PRECOMPILE_NAMES: ReadonlyMap<number, string> = new Map([
  [0x01, "ECREC"],
  [0x02, "SHA256"],
  [0x03, "RIPEMD160"],
  [0x04, "ID"],
  [0x05, "MODEXP"],
  [0x06, "BN254_ADD"],
  [0x07, "BN254_MUL"],
  [0x08, "BN254_PAIRING"],
  [0x09, "BLAKE2F"],
  [0x0a, "KZG_POINT_EVALUATION"],
  [0x0b, "BLS12_G1ADD"],
  [0x0c, "BLS12_G1MSM"],
  [0x0d, "BLS12_G2ADD"],
  [0x0e, "BLS12_G2MSM"],
  [0x0f, "BLS12_PAIRING_CHECK"],
  [0x10, "BLS12_MAP_FP_TO_G1"],
  [0x11, "BLS12_MAP_FP2_TO_G2"],
  [P256VERIFY_ID, "P256VERIFY"],
]);

/** EIP-6110's mainnet deposit contract (alloy `eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS`). */
const MAINNET_DEPOSIT_CONTRACT = "0x00000000219ab540356cbb839cbe05303d7705fa";
const ZERO_ADDRESS = `0x${"0".repeat(40)}`;

/** geth's time-fork ladder (params/forks: Shanghai … BPO5) with the `blobSchedule` entry of each. */
const L1_FORKS: readonly {
  readonly time: "shanghaiTime" | "cancunTime" | "pragueTime" | "osakaTime" | `bpo${1 | 2 | 3 | 4 | 5}Time`;
  readonly blob: keyof BlobSchedule | null;
}[] = [
  { time: "shanghaiTime", blob: null },
  { time: "cancunTime", blob: "cancun" },
  { time: "pragueTime", blob: "prague" },
  { time: "osakaTime", blob: "osaka" },
  { time: "bpo1Time", blob: "bpo1" },
  { time: "bpo2Time", blob: "bpo2" },
  { time: "bpo3Time", blob: "bpo3" },
  { time: "bpo4Time", blob: "bpo4" },
  { time: "bpo5Time", blob: "bpo5" },
];

function addressHex(a: bigint): string {
  return `0x${a.toString(16).padStart(40, "0")}`;
}

/** Keys sorted, as Go's map and Rust's BTreeMap serialise them. */
function sortedObject(entries: [string, string][]): Record<string, JsonValue> {
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries);
}

interface ForkFields {
  readonly activationTime: number;
  readonly blob: BlobParams | null;
  /** The EIP-6110 deposit contract reported from Prague on. */
  readonly depositContract: string;
}

/** One fork's object at time `t`, fields in geth's struct order. */
function forkConfig(
  cfg: ChainConfig,
  genesisHash: Uint8Array,
  points: ForkPoints,
  t: number,
  f: ForkFields,
): Record<string, JsonValue> {
  // Every block fork counts as passed (geth: Rules(LondonBlock, true, t) and NewID(…, MaxUint64, t);
  // reth: Head { number: u64::MAX, timestamp }).
  const rules = rulesAt(cfg, Number.MAX_SAFE_INTEGER, t);
  const precompiles: [string, string][] = [];
  for (const id of precompileTable(rules).keys()) {
    precompiles.push([PRECOMPILE_NAMES.get(id) ?? `0x${id.toString(16)}`, bytesToHex(precompileAddress(id))]);
  }
  const system: [string, string][] = [];
  if (rules.fork >= Fork.Cancun) system.push(["BEACON_ROOTS_ADDRESS", addressHex(BEACON_ROOTS_ADDRESS)]);
  if (rules.fork >= Fork.Prague) {
    system.push(
      ["CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS", addressHex(CONSOLIDATION_REQUEST_ADDRESS)],
      ["DEPOSIT_CONTRACT_ADDRESS", f.depositContract],
      ["HISTORY_STORAGE_ADDRESS", addressHex(HISTORY_STORAGE_ADDRESS)],
      ["WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS", addressHex(WITHDRAWAL_REQUEST_ADDRESS)],
    );
  }
  return {
    activationTime: f.activationTime,
    // geth's BlobConfig field order (params/config.go): target, max, baseFeeUpdateFraction.
    blobSchedule:
      f.blob === null
        ? null
        : { target: f.blob.target, max: f.blob.max, baseFeeUpdateFraction: f.blob.baseFeeUpdateFraction },
    chainId: qty(cfg.chainId),
    forkId: bytesToHex(forkIdAt(genesisHash, points, Number.MAX_SAFE_INTEGER, t).hash),
    precompiles: sortedObject(precompiles),
    systemContracts: sortedObject(system),
  };
}

/** geth `LatestFork`: the index in `L1_FORKS` of the latest fork scheduled at or before `t`, -1 before Shanghai. */
function latestL1Fork(cfg: ChainConfig, t: number): number {
  for (let i = L1_FORKS.length - 1; i >= 0; i--) {
    const at = cfg[L1_FORKS[i].time];
    if (at !== null && at <= t) return i;
  }
  return -1;
}

function l1Config(cfg: ChainConfig, genesis: GenesisRef, headTime: number): Record<string, JsonValue> {
  const points = forkPoints(cfg, genesis.timestamp);
  const deposit = cfg.depositContractAddress === null ? ZERO_ADDRESS : bytesToHex(cfg.depositContractAddress);
  const assemble = (i: number): Record<string, JsonValue> | null => {
    const t = i < 0 || i >= L1_FORKS.length ? null : cfg[L1_FORKS[i].time];
    if (t === null) return null;
    const blob = L1_FORKS[latestL1Fork(cfg, t)].blob;
    return forkConfig(cfg, genesis.hash, points, t, {
      // SPEC: EIP-7910 "If a fork is activated at genesis the value 0 is used" (geth: genesis.Time >= t).
      activationTime: genesis.timestamp >= t ? 0 : t,
      // geth `BlobConfig(LatestFork(t))`: the entry of exactly that fork, null for Shanghai.
      blob: blob === null ? null : cfg.blobSchedule[blob],
      // geth ActiveSystemContracts: the config's DepositContractAddress, the zero address when unset.
      depositContract: deposit,
    });
  };
  const latest = latestL1Fork(cfg, headTime);
  // geth: next is the fork after the current one in the ladder (null when that one is unscheduled);
  // last is the latest scheduled fork, reported only when a next one is.
  const next = assemble(latest + 1);
  return {
    current: assemble(latest),
    next,
    last: next === null ? null : assemble(latestL1Fork(cfg, Number.MAX_SAFE_INTEGER)),
  };
}

function opConfig(cfg: ChainConfig, genesis: GenesisRef, headTime: number): Record<string, JsonValue> {
  const points = forkPoints(cfg, genesis.timestamp);
  // op-reth: the forks are every scheduled time fork, OP forks included and those at genesis too.
  const times = scheduledForkTimes(cfg);
  let current = -1;
  while (current + 1 < times.length && times[current + 1] <= headTime) current++;
  if (current < 0) throw RpcError.internal("no active timestamp fork found");
  const assemble = (t: number): Record<string, JsonValue> => {
    const fork = rulesAt(cfg, Number.MAX_SAFE_INTEGER, t).fork;
    return forkConfig(cfg, genesis.hash, points, t, {
      // reth reports the fork's own timestamp, also for forks at genesis.
      activationTime: t,
      // reth `blob_params_at_timestamp` over op-reth's chain spec, which keeps reth's default
      // schedule (EIP-4844 from Ecotone, EIP-7691 from Isthmus; Osaka's default repeats Prague's)
      // and falls back to Cancun's values before Ecotone.
      blob: fork >= Fork.Prague ? DEFAULT_PRAGUE_BLOB_PARAMS : DEFAULT_CANCUN_BLOB_PARAMS,
      // op-reth's chain spec has no deposit contract; alloy `SystemContract::prague(None)` reports mainnet's.
      depositContract: MAINNET_DEPOSIT_CONTRACT,
    });
  };
  // reth: next is the fork after the current one; last the last scheduled fork, only with a next one.
  if (current + 1 >= times.length) return { current: assemble(times[current]), next: null, last: null };
  return {
    current: assemble(times[current]),
    next: assemble(times[current + 1]),
    last: assemble(times[times.length - 1]),
  };
}

/** The eth_config result for a head at `headTime` (geth's rules on L1 chains, op-reth's on OP chains). */
export function ethConfigAt(cfg: ChainConfig, genesis: GenesisRef, headTime: number): Record<string, JsonValue> {
  return cfg.optimism === null ? l1Config(cfg, genesis, headTime) : opConfig(cfg, genesis, headTime);
}

/**
 * The chain's genesis for fork ids: block 0, or on an OP chain whose store starts at its Bedrock
 * block, that block (OP Mainnet then checksums its legacy block 0, `forkIdGenesisHash`).
 */
function genesisOf(chain: ChainView): GenesisRef {
  const cfg = chain.config;
  const number = chain.store.canonicalHash(0) === null && cfg.optimism !== null ? (cfg.bedrockBlock ?? 0) : 0;
  const hash = chain.store.canonicalHash(number);
  const header = hash === null ? null : chain.store.header(hash);
  if (hash === null || header === null) throw RpcError.server("unable to load genesis: header not found");
  return { hash: forkIdGenesisHash(cfg, number, hash), timestamp: header.timestamp };
}

/** eth_config at the chain's head. Cheap (a few dozen CRC-32 updates), computed per call, so never stale. */
export function ethConfig(chain: ChainView): Record<string, JsonValue> {
  return ethConfigAt(chain.config, genesisOf(chain), chain.head.timestamp);
}

/** IEEE CRC-32 continued from `crc` (primitives/crc32.ts); test/unit/rpc/eth/api.test.ts imports it from here. */
export function crc32Update(crc: number, data: Uint8Array): number {
  return crc32(data, crc);
}
