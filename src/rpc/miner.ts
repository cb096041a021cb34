/**
 * The `miner` namespace as op-geth keeps it (eth/api_miner.go): setters of the block builder's
 * knobs, each answering true. geth serves the namespace only where `--http.api`/`--ws.api` name it.
 *
 * - miner_setExtra(string): the extraData of L1 payloads, the string's bytes (at most 32).
 * - miner_setGasPrice(big): the pool's minimum tip for every tx (legacypool `SetGasTip`, dropping
 *   pooled txs below it) and the least tip the builder takes (`Miner.SetGasTip`).
 * - miner_setGasLimit(uint64): the gas ceiling L1 payloads move towards (`Miner.SetGasCeil`).
 * - miner_setMaxDASize(big, big): op-geth's sequencer throttling, which op-batcher drives: the
 *   largest estimated DA size of a pool tx the builder takes, and of all pool txs of one block; 0
 *   lifts a limit.
 */
import type { MinerSettings } from "../txpool/minerSettings.js";
import type { TxPool } from "../txpool/txPool.js";
import { RpcError } from "./errors.js";
import { bigQuantity, string, uint64 } from "./params.js";
import { type AnyMethod, defineMethod } from "./registry.js";

export interface MinerApiDeps {
  /** The node's miner settings (the pool and the Engine API read them on every build). */
  readonly miner: MinerSettings;
  /** The pool whose price limit follows miner_setGasPrice. */
  readonly pool: TxPool;
  /** Told of a new gas ceiling too (a dev sealer building its own blocks). */
  readonly onGasLimit?: (ceil: bigint) => void;
}

const utf8 = new TextEncoder();

export function minerApi(deps: MinerApiDeps): AnyMethod[] {
  const { miner, pool } = deps;
  return [
    defineMethod({
      name: "miner_setExtra",
      params: [string],
      handler: ([extra]) => {
        const err = miner.setExtra(utf8.encode(extra));
        if (err !== null) throw RpcError.server(err);
        return true;
      },
    }),
    defineMethod({
      name: "miner_setGasPrice",
      params: [bigQuantity],
      handler: ([price]) => {
        pool.setGasTip(price);
        miner.gasTip = price;
        return true;
      },
    }),
    defineMethod({
      name: "miner_setGasLimit",
      params: [uint64],
      handler: ([limit]) => {
        miner.gasCeil = limit;
        deps.onGasLimit?.(limit);
        return true;
      },
    }),
    defineMethod({
      name: "miner_setMaxDASize",
      params: [bigQuantity, bigQuantity],
      handler: ([maxTxSize, maxBlockSize]) => {
        miner.setMaxDASize(maxTxSize, maxBlockSize);
        return true;
      },
    }),
  ];
}
