/**
 * The `txpool` namespace: geth's TxPoolAPI (status, content, contentFrom, inspect). Pool txs are
 * rendered as geth's pending RPCTransaction (no block fields).
 */
import type { JsonValue } from "../primitives/json.js";
import type { PooledTx } from "../txpool/pooledTx.js";
import type { TxPool } from "../txpool/txPool.js";
import { qty, txJson } from "./format.js";
import { address } from "./params.js";
import { type AnyMethod, defineMethod } from "./registry.js";

export interface TxPoolApiDeps {
  readonly pool: TxPool;
}

/** geth `NewRPCPendingTransaction`: the block fields null. */
export function pendingTxJson(p: PooledTx): Record<string, JsonValue> {
  const o = txJson(
    p.tx,
    { hash: p.hash, from: p.sender },
    { blockHash: null, blockNumber: null, blockTimestamp: null, index: null, baseFee: null },
  );
  if (!("blockTimestamp" in o)) o.blockTimestamp = null;
  return o;
}

function mapNested(o: Record<string, Record<string, PooledTx>>): Record<string, Record<string, JsonValue>> {
  const out: Record<string, Record<string, JsonValue>> = {};
  for (const [addr, byNonce] of Object.entries(o)) out[addr] = mapFlat(byNonce);
  return out;
}

function mapFlat(o: Record<string, PooledTx>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [n, p] of Object.entries(o)) out[n] = pendingTxJson(p);
  return out;
}

export function txpoolApi(deps: TxPoolApiDeps): AnyMethod[] {
  const { pool } = deps;
  return [
    defineMethod({
      name: "txpool_status",
      params: [],
      handler: () => {
        const s = pool.status();
        return { pending: qty(s.pending), queued: qty(s.queued) };
      },
    }),
    defineMethod({
      name: "txpool_content",
      params: [],
      handler: () => {
        const c = pool.content();
        return { pending: mapNested(c.pending), queued: mapNested(c.queued) };
      },
    }),
    defineMethod({
      name: "txpool_contentFrom",
      params: [address],
      handler: ([addr]) => {
        const c = pool.contentFrom(addr);
        return { pending: mapFlat(c.pending), queued: mapFlat(c.queued) };
      },
    }),
    defineMethod({ name: "txpool_inspect", params: [], handler: () => pool.inspect() }),
  ];
}
