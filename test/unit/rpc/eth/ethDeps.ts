/** The eth namespace's deps as the unit tests build them: a chain and its pool, the rest fixed. */
import type { Blockchain } from "../../../../src/chain/blockchain.js";
import type { EthDeps } from "../../../../src/rpc/eth/api.js";
import { ChainReader } from "../../../../src/rpc/eth/chainReader.js";
import { EventHub } from "../../../../src/rpc/events.js";
import { TxPool } from "../../../../src/txpool/txPool.js";

/** Chain id 1337, no fee cap beyond 1 ether, no forwarding, no dev accounts; `over` replaces any field. */
export function ethDepsOf(
  chain: Blockchain,
  pool: TxPool = new TxPool({}, { chain }),
  over: Partial<EthDeps> = {},
): EthDeps {
  return {
    chain,
    reader: new ChainReader(chain),
    pool,
    gasCap: 50_000_000n,
    txFeeCap: 1,
    evmTimeoutMs: 0,
    networkId: 1337n,
    clientVersion: "Opal/test",
    devAccounts: [],
    forwardRawTx: null,
    events: new EventHub(),
    ...over,
  };
}
