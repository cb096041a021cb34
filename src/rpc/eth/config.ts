/**
 * eth_config (EIP-7910), as geth answers it: the fork in force at the head (`current`), the next
 * scheduled one and the last scheduled one, each with its activation time, blob schedule, chain
 * id, EIP-2124 fork id, active precompiles and system contracts.
 */
import type { ChainView } from "../../chain/blockchain.js";
import { META_CONFIG } from "../../chain/chainStore.js";
import { buildPrecompileTable, precompileAddress } from "../../evm/precompiles/table.js";
import { bytesToHex } from "../../primitives/hex.js";
import { blobParamsAt, rulesAt } from "../../spec/chainConfig.js";
import { Fork } from "../../spec/forks.js";
import type { Json } from "../format.js";
import { qty } from "../format.js";

const PRECOMPILE_NAMES: Record<number, string> = {
  1: "ECREC",
  2: "SHA256",
  3: "RIPEMD160",
  4: "ID",
  5: "MODEXP",
  6: "BN254_ADD",
  7: "BN254_MUL",
  8: "BN254_PAIRING",
  9: "BLAKE2F",
  10: "KZG_POINT_EVALUATION",
  11: "BLS12_G1ADD",
  12: "BLS12_G1MSM",
  13: "BLS12_G2ADD",
  14: "BLS12_G2MSM",
  15: "BLS12_PAIRING_CHECK",
  16: "BLS12_MAP_FP_TO_G1",
  17: "BLS12_MAP_FP2_TO_G2",
  256: "P256VERIFY",
};

let CRC_TABLE: Uint32Array | null = null;

/** IEEE CRC-32 continued from `crc` (hash/crc32.Update). */
export function crc32Update(crc: number, data: Uint8Array): number {
  if (CRC_TABLE === null) {
    CRC_TABLE = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      let c = i;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[i] = c >>> 0;
    }
  }
  let c = ~crc >>> 0;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

function u64be(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
}

interface ForkPoints {
  readonly blocks: number[];
  readonly times: number[];
}

/** geth `gatherForks`: every `*Block` and `*Time` field of the config JSON, sorted, unique, non-zero. */
function gatherForks(configJson: Record<string, unknown>, genesisTime: number): ForkPoints {
  const blocks = new Set<number>();
  const times = new Set<number>();
  for (const [k, v] of Object.entries(configJson)) {
    if (typeof v !== "number") continue;
    if (k.endsWith("Block") && k !== "terminalTotalDifficultyBlock") {
      if (v > 0) blocks.add(v);
    } else if (k.endsWith("Time")) {
      if (v > genesisTime) times.add(v);
    }
  }
  const asc = (a: number, b: number) => a - b;
  return { blocks: [...blocks].sort(asc), times: [...times].sort(asc) };
}

export function ethConfig(chain: ChainView): Record<string, Json> {
  const raw = chain.store.meta(META_CONFIG);
  const cfgJson = raw === null ? {} : (JSON.parse(new TextDecoder().decode(raw)) as Record<string, unknown>);
  const genesisHash = chain.store.canonicalHash(0) ?? new Uint8Array(32);
  const genesis = chain.store.header(genesisHash);
  const genesisTime = genesis?.timestamp ?? 0;
  const forks = gatherForks(cfgJson, genesisTime);
  const now = chain.head.timestamp;
  const forkId = (time: number): string => {
    let crc = crc32Update(0, genesisHash);
    for (const b of forks.blocks) crc = crc32Update(crc, u64be(b));
    for (const t of forks.times) if (t <= time) crc = crc32Update(crc, u64be(t));
    return `0x${crc.toString(16).padStart(8, "0")}`;
  };
  const at = (time: number): Record<string, Json> | null => {
    const rules = rulesAt(chain.config, Number.MAX_SAFE_INTEGER, time);
    if (rules.fork < Fork.Cancun && rules.op === null) return null;
    const blob = blobParamsAt(chain.config, time);
    const precompiles: Record<string, Json> = {};
    for (const id of [...buildPrecompileTable(rules).keys()].sort((a, b) => a - b)) {
      precompiles[PRECOMPILE_NAMES[id] ?? `0x${id.toString(16)}`] = bytesToHex(precompileAddress(id));
    }
    const sys: Record<string, Json> = {};
    if (rules.fork >= Fork.Cancun) sys.BEACON_ROOTS_ADDRESS = "0x000f3df6d732807ef1319fb7b8bb8522d0beac02";
    if (rules.fork >= Fork.Prague) {
      sys.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = "0x0000bbddc7ce488642fb579f8b00f3a590007251";
      const dep = cfgJson.depositContractAddress;
      sys.DEPOSIT_CONTRACT_ADDRESS =
        typeof dep === "string" ? dep.toLowerCase() : "0x00000000219ab540356cbb839cbe05303d7705fa";
      sys.HISTORY_STORAGE_ADDRESS = "0x0000f90827f1c53a10cb7a02335b175320002935";
      sys.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = "0x00000961ef480eb55e80d19ad83579a64c007002";
    }
    const activation = forks.times.filter((t) => t <= time).pop() ?? 0;
    return {
      activationTime: activation,
      blobSchedule:
        blob === null
          ? null
          : { target: blob.target, max: blob.max, baseFeeUpdateFraction: blob.baseFeeUpdateFraction },
      chainId: qty(chain.config.chainId),
      forkId: forkId(time),
      precompiles,
      systemContracts: sys,
    };
  };
  const future = forks.times.filter((t) => t > now);
  return {
    current: at(now),
    next: future.length === 0 ? null : at(future[0]),
    last: future.length === 0 ? null : at(future[future.length - 1]),
  };
}
