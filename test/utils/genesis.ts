/**
 * Genesis documents for tests: a post-merge L1 Cancun chain and an OP chain with every fork through
 * Jovian at genesis, with a caller-given allocation.
 */
import { encodeJovianExtraData } from "../../src/block/opExtraData.js";
import { BLOCK_FORKS_AT_ZERO } from "../../src/node/exec/devGenesis.js";
import { bytesToHex } from "../../src/primitives/hex.js";

export const L1_CHAIN_ID = 1337n;
export const OP_CHAIN_ID = 901n;

export interface AllocEntry {
  balance: bigint;
  nonce?: bigint;
  code?: Uint8Array;
}

function allocJson(alloc: ReadonlyMap<Uint8Array, AllocEntry> = new Map()): Record<string, unknown> {
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
export function l1Genesis(
  alloc: ReadonlyMap<Uint8Array, AllocEntry> = new Map(),
  extra: Record<string, unknown> = {},
): unknown {
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
export function opGenesis(alloc: ReadonlyMap<Uint8Array, AllocEntry> = new Map()): unknown {
  return {
    config: {
      chainId: Number(OP_CHAIN_ID),
      ...BLOCK_FORKS_AT_ZERO,
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
