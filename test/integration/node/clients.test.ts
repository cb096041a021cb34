/**
 * Real clients against a running `opal-exec --dev`: viem and ethers v6 deploy a contract (compiled
 * here with solc-js), transact, read, estimate, fetch receipts and logs, and subscribe over
 * WebSocket — the way wallets and indexers use the node.
 */
import { strict as assert } from "node:assert";
import { ContractFactory, Contract as EthersContract, JsonRpcProvider, Wallet, WebSocketProvider } from "ethers";
import solc from "solc";
import {
  type Abi,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  parseAbi,
  webSocket,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ExecNode } from "../../../src/node/exec/execNode.js";
import { configOf, tempDir } from "../../utils/node.js";

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Counter {
  uint256 public count;
  event Bumped(address indexed by, uint256 value);
  function bump(uint256 by) external { count += by; emit Bumped(msg.sender, count); }
}`;

function compile(): { abi: Abi; bytecode: Hex } {
  const input = {
    language: "Solidity",
    sources: { "Counter.sol": { content: SOURCE } },
    settings: { evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const c = out.contracts["Counter.sol"].Counter;
  return { abi: c.abi as Abi, bytecode: `0x${c.evm.bytecode.object}` as Hex };
}

// anvil's first two dev keys (the node's --dev accounts).
const KEY0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const KEY1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

describe("node: viem and ethers against opal-exec --dev", function () {
  this.timeout(120_000);
  const dir = tempDir("clients");
  let node: ExecNode;
  let httpUrl = "";
  let wsUrl = "";
  const { abi, bytecode } = compile();

  before(async () => {
    node = await ExecNode.start(
      configOf(["--dev", "--datadir", dir.path, "--http", "--ws", "--ws.addr", "127.0.0.1", "--ws.origins", "*"]),
      { print: () => undefined },
    );
    httpUrl = `http://127.0.0.1:${node.httpServer?.address().port}`;
    wsUrl = `ws://127.0.0.1:${node.wsServer?.address().port}`;
  });

  after(async () => {
    await node.stop();
    dir.remove();
  });

  it("viem: deploy, write, read, estimate, receipt, logs, and a WebSocket event subscription", async () => {
    const chain = defineChain({
      id: 1337,
      name: "opal-dev",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [httpUrl], webSocket: [wsUrl] } },
    });
    const account = privateKeyToAccount(KEY0);
    const wallet = createWalletClient({ account, chain, transport: http(httpUrl) });
    const client = createPublicClient({ chain, transport: http(httpUrl) });
    const wsClient = createPublicClient({ chain, transport: webSocket(wsUrl) });

    const deployHash = await wallet.deployContract({ abi, bytecode });
    const deployed = await client.waitForTransactionReceipt({ hash: deployHash });
    assert.equal(deployed.status, "success");
    const address = deployed.contractAddress as Hex;
    assert.ok(address);

    const seen: bigint[] = [];
    const unwatch = wsClient.watchContractEvent({
      address,
      abi: parseAbi(["event Bumped(address indexed by, uint256 value)"]),
      eventName: "Bumped",
      onLogs: (logs) => {
        for (const l of logs) seen.push(l.args.value as bigint);
      },
    });

    const gas = await client.estimateContractGas({ address, abi, functionName: "bump", args: [5n], account });
    assert.ok(gas > 21_000n && gas < 100_000n, `estimate ${gas}`);
    const h = await wallet.writeContract({ address, abi, functionName: "bump", args: [5n] });
    const r = await client.waitForTransactionReceipt({ hash: h });
    assert.equal(r.status, "success");
    assert.equal(r.logs.length, 1);
    assert.ok(r.gasUsed <= gas);
    assert.equal(await client.readContract({ address, abi, functionName: "count" }), 5n);
    const logs = await client.getLogs({ address, fromBlock: 0n, toBlock: "latest" });
    assert.equal(logs.length, 1);
    const tx = await client.getTransaction({ hash: h });
    assert.equal(tx.from.toLowerCase(), account.address.toLowerCase());
    const deadline = Date.now() + 20_000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    unwatch();
    assert.deepEqual(seen, [5n]);
    await wsClient.transport.getRpcClient().then((c) => c.close());
  });

  it("ethers v6: deploy, call, send, estimate, receipts, queryFilter, and a WebSocket block subscription", async () => {
    // cacheTimeout -1: ethers otherwise reuses a `pending` nonce read for 250 ms, which an instant-sealing
    // dev node (like anvil) outruns.
    const provider = new JsonRpcProvider(httpUrl, 1337, { staticNetwork: true, cacheTimeout: -1 });
    const wallet = new Wallet(KEY1, provider);
    const factory = new ContractFactory(abi as never, bytecode, wallet);
    const contract = await factory.deploy();
    await contract.waitForDeployment();
    const address = await contract.getAddress();
    const c = new EthersContract(address, abi as never, wallet);

    const ws = new WebSocketProvider(wsUrl, 1337);
    const blocks: number[] = [];
    await ws.on("block", (n: number) => blocks.push(n));

    const est = await c.bump.estimateGas(7n);
    assert.ok(est > 21_000n);
    const tx = await c.bump(7n);
    const receipt = await tx.wait();
    assert.equal(receipt?.status, 1);
    assert.equal(await c.count(), 7n);
    const events = await c.queryFilter(c.filters.Bumped(), 0, "latest");
    assert.equal(events.length, 1);
    assert.equal((await provider.getBalance(wallet.address)) < 10_000n * 10n ** 18n, true);
    const deadline = Date.now() + 20_000;
    while (blocks.length === 0 && Date.now() < deadline) {
      await (await c.bump(1n)).wait();
      await new Promise((res) => setTimeout(res, 200));
    }
    assert.ok(blocks.length > 0, "no newHeads notification");
    await ws.destroy();
    provider.destroy();
  });
});
