/**
 * `--rpc.allow-unprotected-txs` (geth cmd/utils/flags.go AllowUnprotectedTxs, node.Config; default
 * false, and `--dev` does not turn it on): without it eth_sendRawTransaction refuses a legacy tx
 * signed without a chain id with geth's text; with it, the deterministic deployment proxy's
 * well-known presigned deployment (Arachnid's, v = 27, from 0x3fab…5362 funded with 0.01 ether) is
 * taken and mined, and the proxy it deploys at 0x4e59…956c has the code the superchain-registry
 * genesis preinstalls there. Runs the node's API factory (`coreApis`) on a `--dev` L1 chain.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { Blockchain } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { DEV_CHAIN_ID, devAccounts, l1DevGenesis } from "../../../../src/node/exec/devGenesis.js";
import { DevSealer } from "../../../../src/node/exec/devSealer.js";
import { coreApis } from "../../../../src/node/exec/execNode.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../../../src/tx/tx.js";
import { TxPool } from "../../../../src/txpool/txPool.js";
import { fixturePath, requireFixture } from "../../../utils/fixtures.js";
import { configOf } from "../../../utils/node.js";

/** github.com/Arachnid/deterministic-deployment-proxy: the presigned deployment (pre-EIP-155, v = 27). */
const PRESIGNED =
  "0xf8a58085174876e800830186a08080b853604580600e600039806000f350fe7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf31ba02222222222222222222222222222222222222222222222222222222222222222a02222222222222222222222222222222222222222222222222222222222222222";
const SIGNER = "0x3fab184622dc19b6109349b94811493bf2a45362";
const PROXY = "0x4e59b44847b379578588920ca78fbf26c0b4956c";
/** 100 gwei × 100,000 gas. */
const FUNDING = 10_000_000_000_000_000n;
/** geth internal/ethapi SubmitTransaction. */
const REFUSAL = "only replay-protected (EIP-155) transactions allowed over RPC";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

interface Dev {
  readonly d: Dispatcher;
  readonly sealer: DevSealer;
}

function devL1(allowUnprotectedTxs: boolean): Dev {
  const g = l1DevGenesis(30_000_000n);
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(g), g.config);
  const pool = new TxPool({}, { chain });
  const keys = devAccounts(1);
  const apis = coreApis({
    chain,
    pool,
    networkId: DEV_CHAIN_ID,
    clientVersion: "opal/test",
    gasCap: 50_000_000n,
    txFeeCap: 1,
    evmTimeoutMs: 5000,
    devAccounts: keys,
    forwardRawTx: null,
    allowUnprotectedTxs,
  });
  const sealer = new DevSealer(
    { period: 1, feeRecipient: keys[0]!.address, gasCeil: 30_000_000n },
    { chain, pool, onHead: (c) => pool.onNewHead(c.newHead), now: () => (chain.head.timestamp + 12) * 1000 },
  );
  return { d: new Registry(apis.methods).forApis(["eth"]), sealer };
}

async function rpc(
  dev: Dev,
  method: string,
  params: unknown[],
): Promise<{ result?: any; error?: { code: number; message: string } }> {
  return JSON.parse(
    (await dev.d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP)) as string,
  );
}

/** Dev account 0 sends the presigned tx's signer its 0.01 ether. */
function funding(): string {
  const k = devAccounts(1)[0]!;
  const tx: FeeMarketTx = {
    type: TxType.FeeMarket,
    chainId: DEV_CHAIN_ID,
    nonce: 0n,
    maxPriorityFeePerGas: 1_000_000_000n,
    maxFeePerGas: 10_000_000_000n,
    gasLimit: 21_000n,
    to: Uint8Array.from(Buffer.from(SIGNER.slice(2), "hex")),
    value: FUNDING,
    data: new Uint8Array(0),
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
  };
  return `0x${Buffer.from(encodeTx(signTx(tx, k.privateKey, DEV_CHAIN_ID))).toString("hex")}`;
}

describe("node/exec: --rpc.allow-unprotected-txs", () => {
  it("is off by default, in --dev too; the flag turns it on", () => {
    assert.equal(configOf([])["rpc.allow-unprotected-txs"], false);
    assert.equal(configOf(["--dev"])["rpc.allow-unprotected-txs"], false);
    assert.equal(configOf(["--dev", "--rpc.allow-unprotected-txs"])["rpc.allow-unprotected-txs"], true);
  });

  it("without it: the presigned deployment is refused with geth's text, before the pool sees it", async () => {
    const dev = devL1(false);
    assert.equal((await rpc(dev, "eth_sendRawTransaction", [funding()])).error, undefined);
    dev.sealer.seal();
    assert.deepEqual((await rpc(dev, "eth_sendRawTransaction", [PRESIGNED])).error, { code: -32000, message: REFUSAL });
    assert.equal((await rpc(dev, "eth_getTransactionCount", [SIGNER, "pending"])).result, "0x0");
  });

  it("with it: the presigned deployment is mined and deploys the proxy the OP preinstalls", async () => {
    const dev = devL1(true);
    assert.equal((await rpc(dev, "eth_sendRawTransaction", [funding()])).error, undefined);
    dev.sealer.seal();
    const sent = await rpc(dev, "eth_sendRawTransaction", [PRESIGNED]);
    assert.equal(sent.error, undefined, JSON.stringify(sent.error));
    dev.sealer.seal();
    const rc = (await rpc(dev, "eth_getTransactionReceipt", [sent.result])).result;
    assert.equal(rc.status, "0x1");
    assert.equal(rc.from, SIGNER);
    assert.equal(rc.contractAddress, PROXY);
    const code = (await rpc(dev, "eth_getCode", [PROXY, "latest"])).result as string;
    const file = requireFixture(
      fixturePath("op-stack", "superchain-registry", "genesis", "ink-mainnet.genesis.json.gz"),
    );
    const alloc = (
      JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as { alloc: Record<string, { code?: string }> }
    ).alloc;
    const preinstalled = Object.entries(alloc).find(([a]) => a.toLowerCase().replace(/^0x/, "") === PROXY.slice(2))![1];
    assert.equal(code, preinstalled.code!.toLowerCase());
  });
});
