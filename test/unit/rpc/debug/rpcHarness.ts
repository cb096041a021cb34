/**
 * The debug (and eth) namespaces over a chain through the dispatcher, for the debug_* tests: params
 * are decoded and errors shaped exactly as a served node answers.
 */
import type { Blockchain, HeadChange } from "../../../../src/chain/blockchain.js";
import { debugApi } from "../../../../src/rpc/debug/api.js";
import type { RpcConnection } from "../../../../src/rpc/dispatch.js";
import { ethApi } from "../../../../src/rpc/eth/api.js";
import { ChainReader } from "../../../../src/rpc/eth/chainReader.js";
import { EventHub } from "../../../../src/rpc/events.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { TxPool } from "../../../../src/txpool/txPool.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

export interface Reply {
  result?: any;
  error?: { code: number; message: string };
}

export type Rpc = (method: string, params?: unknown[]) => Promise<Reply>;

/** A dispatcher serving debug and eth over `chain`; head changes of debug_setHead go to `onHead`. */
export function rpcOver(chain: Blockchain, onHead?: (c: HeadChange) => void): Rpc {
  const reader = new ChainReader(chain);
  const eth = ethApi({
    chain,
    reader,
    pool: new TxPool({}, { chain }),
    gasCap: 50_000_000n,
    txFeeCap: 1,
    evmTimeoutMs: 5000,
    networkId: 7n,
    clientVersion: "Opal/test",
    devAccounts: [],
    forwardRawTx: null,
    events: new EventHub(),
  });
  const debug = debugApi({ chain, reader, gasCap: 50_000_000n, ...(onHead === undefined ? {} : { onHead }) });
  const d = new Registry([...eth, ...debug]).forApis(["eth", "debug"]);
  return async (method, params = []) => {
    const text = await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP);
    return JSON.parse(text as string) as Reply;
  };
}
