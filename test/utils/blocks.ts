/**
 * Block-level fixtures for unit tests: a post-merge header with every optional field absent (pass
 * what a test cares about), and the block context the interpreter tests run in.
 */
import { EMPTY_OMMERS_HASH, type Header } from "../../src/block/header.js";
import type { Blockchain, BuildRequest, BuiltBlock } from "../../src/chain/blockchain.js";
import type { BlockContext } from "../../src/evm/context.js";

export function testHeader(fields: Partial<Header> = {}): Header {
  return {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: new Uint8Array(20),
    stateRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    receiptsRoot: new Uint8Array(32),
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: 1,
    gasLimit: 30_000_000n,
    gasUsed: 0,
    timestamp: 1_000,
    extraData: new Uint8Array(0),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: null,
    withdrawalsRoot: null,
    blobGasUsed: null,
    excessBlobGas: null,
    parentBeaconBlockRoot: null,
    requestsHash: null,
    ...fields,
  };
}

/** The block the interpreter tests execute in (base fee 7, blob base fee 1, chain id 1). */
export const TEST_BLOCK: BlockContext = Object.freeze({
  coinbase: 0xc0ffeen,
  number: 1n,
  timestamp: 1n,
  gasLimit: 30_000_000n,
  difficulty: 0n,
  prevRandao: 0n,
  baseFee: 7n,
  blobBaseFee: 1n,
  chainId: 1n,
  blockHash: () => 0n,
});

/**
 * A post-Cancun block of `forced` txs on the head of `chain` (no pool, no withdrawals, empty extra
 * data, the head's gas limit), built by the node's builder; a failed build throws its error.
 */
export function buildForced(
  chain: Blockchain,
  forced: readonly Uint8Array[],
  fields: Pick<BuildRequest, "timestamp" | "feeRecipient" | "prevRandao">,
): BuiltBlock {
  const built = chain.buildBlock({
    parentHash: chain.headBlockHash,
    gasLimit: chain.head.gasLimit,
    extraData: new Uint8Array(0),
    withdrawals: [],
    parentBeaconBlockRoot: new Uint8Array(32).fill(4),
    forced,
    pool: null,
    ...fields,
  });
  if ("error" in built) throw new Error(built.error);
  return built;
}
