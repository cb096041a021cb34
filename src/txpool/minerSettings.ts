/**
 * The block builder's runtime knobs, geth's `miner.Config` as the miner_* methods change it
 * (op-geth eth/api_miner.go, miner/miner.go): the least tip a pool tx pays to be taken
 * (`miner_setGasPrice`), the gas ceiling L1 payloads move towards (`--miner.gaslimit`,
 * `miner_setGasLimit`), the extraData of L1 payloads (`miner_setExtra`), and op-geth's sequencer
 * throttling limits (`miner_setMaxDASize`, which op-batcher calls when its DA backlog grows). One
 * object per node, read on every build: the pool's price-and-nonce iterator applies the tip and the
 * per-tx DA limit, the builder's tx source the per-block one (txsByPriceAndNonce.ts), the Engine API
 * the gas ceiling and extraData.
 */

/** params.MaximumExtraDataSize: the longest extraData a header may carry. */
export const MAX_EXTRA_DATA_SIZE = 32;

export class MinerSettings {
  /** miner.Config.GasPrice: the least effective tip of a pool tx the builder takes (0 = any). */
  gasTip = 0n;
  /** miner.Config.GasCeil. */
  gasCeil: bigint;
  /** miner.Config.ExtraData: L1 payloads only (op-geth: OP chains have their own extraData rules). */
  extraData: Uint8Array = new Uint8Array(0);
  /** miner.Config.MaxDATxSize: a pool tx whose estimated DA size is above it is not taken; null = none. */
  maxDATxSize: bigint | null = null;
  /** miner.Config.MaxDABlockSize: the most estimated DA bytes of pool txs a block takes; null = none. */
  maxDABlockSize: bigint | null = null;

  constructor(opts: { readonly gasCeil: bigint }) {
    this.gasCeil = opts.gasCeil;
  }

  /**
   * miner.SetExtra: refused above MAX_EXTRA_DATA_SIZE with geth's text ("extra exceeds max length.
   * %d > %v"); returns that text, or null once set.
   */
  setExtra(extra: Uint8Array): string | null {
    if (extra.length > MAX_EXTRA_DATA_SIZE) {
      return `extra exceeds max length. ${extra.length} > ${MAX_EXTRA_DATA_SIZE}`;
    }
    this.extraData = extra.slice();
    return null;
  }

  /** miner.SetMaxDASize: 0 lifts a limit (op-geth `convertZeroToNil`). */
  setMaxDASize(maxTxSize: bigint, maxBlockSize: bigint): void {
    this.maxDATxSize = maxTxSize === 0n ? null : maxTxSize;
    this.maxDABlockSize = maxBlockSize === 0n ? null : maxBlockSize;
  }
}
