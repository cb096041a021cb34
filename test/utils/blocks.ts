/**
 * Block-level fixtures for unit tests: a post-merge header with every optional field absent (pass
 * what a test cares about), and the block context the interpreter tests run in.
 */
import { EMPTY_OMMERS_HASH, type Header } from "../../src/block/header.js";
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
