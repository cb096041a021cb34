/**
 * An OP dev chain end to end, as a user builds one: `opal-exec genesis` → `opal-exec init` →
 * `opal-exec --dev` on that datadir. Every sealed block opens with an L1-attributes deposit; viem's
 * OP Stack actions (`getL1BaseFee`, `estimateL1Fee`, through the GasPriceOracle predeploy) agree with
 * what the receipts charge, and the receipts carry the OP fields.
 */
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { chainConfig, getSourceHash, publicActionsL2 } from "viem/op-stack";
import { main } from "../../../../src/cli/opalExec.js";
import { DEV_L1_ORIGIN } from "../../../../src/node/exec/devGenesis.js";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import { hexToBytes } from "../../../../src/primitives/hex.js";
import { parseL1BlockInfo } from "../../../../src/tx/l1BlockInfo.js";
import { rpc } from "../../../utils/jsonRpc.js";
import { configOf, tempDir } from "../../../utils/node.js";

const KEY0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const CHAIN_ID = 901;

describe("node: an OP dev chain (opal-exec genesis, init, --dev) with viem's OP Stack actions", function () {
  this.timeout(120_000);
  const dir = tempDir("opdev");
  let node: ExecNode;
  let url = "";

  before(async () => {
    const file = join(dir.path, "genesis.json");
    const io = { out: () => undefined, err: () => undefined };
    assert.equal(await main(["genesis", "--chainid", String(CHAIN_ID), "--out", file], {}, io), 0);
    assert.equal(JSON.parse(readFileSync(file, "utf8")).config.chainId, CHAIN_ID);
    assert.equal(await main(["init", file, "--datadir", dir.path, "--verbosity", "0"], {}, io), 0);
    node = await ExecNode.start(configOf(["--dev", "--datadir", dir.path, "--http"]), { print: () => undefined });
    url = `http://127.0.0.1:${node.httpServer?.address().port}`;
  });

  after(async () => {
    await node.stop();
    dir.remove();
  });

  it("sealed blocks open with the L1-attributes deposit; estimateL1Fee and getL1BaseFee match the receipts", async () => {
    const chain = defineChain({
      ...chainConfig,
      id: CHAIN_ID,
      name: "opal-op-dev",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    });
    const account = privateKeyToAccount(KEY0);
    const wallet = createWalletClient({ account, chain, transport: http(url) });
    const client = createPublicClient({ chain, transport: http(url) }).extend(publicActionsL2());

    // A short transfer: both the estimate and the charge sit at Fjord's 100-byte minimum size.
    const to = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" as Hex;
    const transfer = { account, to, value: parseEther("1") };
    const estTransfer = await client.estimateL1Fee(transfer);
    const h1 = await wallet.sendTransaction(transfer);
    const r1 = await client.waitForTransactionReceipt({ hash: h1 });
    assert.equal(r1.status, "success");
    assert.equal(r1.l1Fee, estTransfer);
    assert.equal(r1.l1GasPrice, DEV_L1_ORIGIN.baseFee);
    assert.ok(r1.l1GasUsed !== null && r1.l1GasUsed > 0n);

    // The block opens with the L1-attributes deposit of the synthetic origin; viem parses it.
    const block = await client.getBlock({ blockHash: r1.blockHash, includeTransactions: true });
    assert.ok(block.transactions.length >= 2);
    const dep = block.transactions[0]!;
    assert.equal(dep.type, "deposit");
    assert.equal(dep.to?.toLowerCase(), "0x4200000000000000000000000000000000000015");
    const info = parseL1BlockInfo(hexToBytes(dep.input));
    assert.ok(info !== null);
    assert.equal(info.baseFee, DEV_L1_ORIGIN.baseFee);
    assert.equal(info.number, block.number);
    const sourceHash = getSourceHash({
      domain: "l1InfoDeposit",
      l1BlockHash: `0x${Buffer.from(info.hash).toString("hex")}`,
      sequenceNumber: Number(info.sequenceNumber),
    });
    assert.equal(dep.sourceHash, sourceHash);
    const depReceipt = await rpc(url, "eth_getTransactionReceipt", [dep.hash]);
    const dr = depReceipt.json?.result as Record<string, string>;
    assert.equal(dr.depositNonce !== undefined && dr.l1Fee === undefined, true);

    // getL1BaseFee reads L1Block through the GasPriceOracle at the head.
    assert.equal(await client.getL1BaseFee(), DEV_L1_ORIGIN.baseFee);

    // A large, poorly compressible call: above the minimum size, the estimate (unsigned tx plus the
    // GPO's 68-byte signature allowance, viem's stub gas and fees) is within 1% of the charge.
    const data = `0x${randomBytes(2000).toString("hex")}` as Hex;
    const big = { account, to, data, value: 0n };
    const estBig = await client.estimateL1Fee(big);
    const h2 = await wallet.sendTransaction(big);
    const r2 = await client.waitForTransactionReceipt({ hash: h2 });
    assert.equal(r2.status, "success");
    assert.ok(r2.l1Fee !== null && r2.l1Fee > estTransfer * 5n, `l1Fee ${r2.l1Fee}`);
    const diff = estBig > r2.l1Fee ? estBig - r2.l1Fee : r2.l1Fee - estBig;
    assert.ok(diff * 100n < r2.l1Fee, `estimate ${estBig} vs receipt ${r2.l1Fee}`);

    // The raw receipt: l1FeeScalar is a decimal string; the Ecotone fields are present.
    const raw = (await rpc(url, "eth_getTransactionReceipt", [h2])).json?.result as Record<string, string>;
    assert.match(raw.l1FeeScalar!, /^[0-9]+(\.[0-9]+)?$/);
    assert.equal(BigInt(raw.l1BaseFeeScalar!), BigInt(DEV_L1_ORIGIN.baseFeeScalar));
    assert.equal(BigInt(raw.l1BlobBaseFeeScalar!), BigInt(DEV_L1_ORIGIN.blobBaseFeeScalar));
    assert.equal(BigInt(raw.l1BlobBaseFee!), DEV_L1_ORIGIN.blobBaseFee);

    // The L1 fee went to the L1 fee vault.
    const vault = await client.getBalance({ address: "0x420000000000000000000000000000000000001a" });
    assert.equal(vault, r1.l1Fee! + r2.l1Fee!);
  });
});
