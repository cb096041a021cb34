/**
 * What execution reads from outside the state: the block (fixed for a block) and the tx (fixed
 * for a tx). Numbers the EVM pushes are bigints here so opcodes push them without conversion.
 */

export interface BlockContext {
  readonly coinbase: bigint;
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly gasLimit: bigint;
  /** DIFFICULTY before the merge; PREVRANDAO (the header's mixHash) after it. */
  readonly difficulty: bigint;
  readonly prevRandao: bigint;
  readonly baseFee: bigint;
  readonly blobBaseFee: bigint;
  readonly chainId: bigint;
  /** Hash of block `n` for BLOCKHASH (the caller bounds n to the last 256), 0n when unknown. */
  blockHash(n: bigint): bigint;
}

export interface TxContext {
  origin: bigint;
  gasPrice: bigint;
  blobHashes: readonly Uint8Array[];
}
